-- cooling_devices: each thermal cooling device's state in each run window,
-- when the trace captured them -- the evidence that a thermal governor
-- capped the CPUs (a cpufreq cooling device at state N > 0 holds its CPUs
-- N steps below their highest frequency).
--
-- Devices (counter_track type):
--   'cooling_device_counter'       ftrace thermal/cdev_update, per device
--                                  (its `type`, e.g. thermal-cpufreq-0)
--   'acpm_cooling_device_counter'  Exynos ACPM thermal events, per zone
--                                  ('Tj-<zone> Cooling Device')
-- A sample holds until the next sample of the same device; the state at W's
-- start is the last sample at or before it (unknown before the first).
--
-- Output columns (one row per run and device of the trace):
--   run, track_id
--   kind         the counter_track type above
--   device       the linux_device / thermal_zone dimension, else the name
--   start_state  the state holding at W's start (NULL: none yet)
--   max_state    the highest of start_state and the states set inside W
--                (NULL: no sample at or before W's end)
--   max_from_ts  when max_state was first in force in W (W's start when it
--                was carried in), absolute trace ns
--   samples      samples after W's start and before its end
--
-- Column types: run LONG, track_id LONG, kind STRING, device STRING,
--   start_state DOUBLE, max_state DOUBLE, max_from_ts TIMESTAMP, samples LONG
WITH
device AS MATERIALIZED (
  SELECT t.id AS track_id, t.type AS kind,
    coalesce(
      (SELECT a.string_value FROM args a
       WHERE a.arg_set_id = t.dimension_arg_set_id
         AND a.key IN ('linux_device', 'thermal_zone')),
      t.name) AS device
  FROM counter_track t
  WHERE t.type IN ('cooling_device_counter', 'acpm_cooling_device_counter')
),
state_in_run AS MATERIALIZED (
  -- the sample carried in at W's start and every sample inside W
  SELECT r.run, d.track_id, r.start_ts AS ts, c.value
  FROM artscope_run r CROSS JOIN device d
  JOIN counter c ON c.id = (
    SELECT c2.id FROM counter c2
    WHERE c2.track_id = d.track_id AND c2.ts <= r.start_ts
    ORDER BY c2.ts DESC, c2.id DESC LIMIT 1)
  UNION ALL
  SELECT r.run, d.track_id, c.ts, c.value
  FROM artscope_run r CROSS JOIN device d
  JOIN counter c ON c.track_id = d.track_id AND c.ts > r.start_ts AND c.ts < r.end_ts
),
peak AS (
  SELECT run, track_id, max(value) AS max_state, count(*) AS rows_in_w
  FROM state_in_run GROUP BY run, track_id
)
SELECT r.run, d.track_id, d.kind, d.device,
  (SELECT c.value FROM counter c
   WHERE c.track_id = d.track_id AND c.ts <= r.start_ts
   ORDER BY c.ts DESC, c.id DESC LIMIT 1) AS start_state,
  p.max_state,
  (SELECT min(s.ts) FROM state_in_run s
   WHERE s.run = r.run AND s.track_id = d.track_id AND s.value = p.max_state) AS max_from_ts,
  (SELECT count(*) FROM counter c
   WHERE c.track_id = d.track_id AND c.ts > r.start_ts AND c.ts < r.end_ts) AS samples
FROM artscope_run r CROSS JOIN device d
LEFT JOIN peak p ON p.run = r.run AND p.track_id = d.track_id
ORDER BY r.run, d.device, d.track_id
