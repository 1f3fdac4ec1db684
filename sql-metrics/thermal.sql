-- thermal: each thermal zone's temperature at each run window's start and
-- its maximum inside W, when the trace captured temperatures.
--
-- Zones (counter_track type):
--   'thermal_temperature'       ftrace thermal/thermal_temperature, per zone
--                               (millidegrees Celsius, as the kernel reports)
--   'thermal_temperature_sys'   sys_stats thermal zone polling (degrees C)
--   'acpm_thermal_temperature'  Exynos ACPM thermal events (degrees C)
-- A sample holds until the next sample of the same zone; the temperature at
-- W's start is the last sample at or before it (unknown before the first).
--
-- Output columns (one row per run and zone of the trace):
--   run, track_id
--   kind         the counter_track type above (its unit follows from it)
--   zone         the thermal_zone dimension, else the track's name
--   start_value  the sample holding at W's start (NULL: none yet)
--   max_value    the highest of start_value and the samples inside W (NULL:
--                no sample at or before W's end)
--   samples      samples after W's start and before its end
--
-- Column types: run LONG, track_id LONG, kind STRING, zone STRING, start_value
--   DOUBLE, max_value DOUBLE, samples LONG
WITH
zone AS MATERIALIZED (
  SELECT t.id AS track_id, t.type AS kind,
    coalesce(
      (SELECT a.string_value FROM args a
       WHERE a.arg_set_id = t.dimension_arg_set_id AND a.key = 'thermal_zone'),
      t.name) AS zone
  FROM counter_track t
  WHERE t.type IN ('thermal_temperature', 'thermal_temperature_sys',
                   'acpm_thermal_temperature')
),
zone_in_run AS MATERIALIZED (
  SELECT r.run, r.start_ts, r.end_ts, z.track_id, z.kind, z.zone,
    (SELECT c.value FROM counter c
     WHERE c.track_id = z.track_id AND c.ts <= r.start_ts
     ORDER BY c.ts DESC, c.id DESC LIMIT 1) AS start_value
  FROM artscope_run r CROSS JOIN zone z
)
SELECT z.run, z.track_id, z.kind, z.zone, z.start_value,
  CASE
    WHEN z.start_value IS NULL THEN w.max_in_w
    WHEN w.max_in_w IS NULL THEN z.start_value
    ELSE max(z.start_value, w.max_in_w)
  END AS max_value,
  w.samples
FROM zone_in_run z
JOIN (
  SELECT z2.run, z2.track_id,
    (SELECT max(c.value) FROM counter c
     WHERE c.track_id = z2.track_id AND c.ts > z2.start_ts AND c.ts < z2.end_ts)
      AS max_in_w,
    (SELECT count(*) FROM counter c
     WHERE c.track_id = z2.track_id AND c.ts > z2.start_ts AND c.ts < z2.end_ts)
      AS samples
  FROM zone_in_run z2
) w ON w.run = z.run AND w.track_id = z.track_id
ORDER BY z.run, z.zone, z.track_id
