-- frequency_samples: the samples of every frequency series that matter for
-- each run window (for plotting frequency over time).
--
-- Series and sources exactly as in frequency.sql (cpufreq, cpu_max_limit,
-- devfreq, clock, sys_stats). Per run and series: the last sample before W's
-- start (the value W starts with) and every sample inside W.
--
-- Output columns:
--   run, track_id, source, cpu, device   the series
--   ts      sample time (absolute trace ns)
--   value   the frequency value from ts on
WITH
series AS (
  SELECT t.id AS track_id, 'cpufreq' AS source, t.cpu, NULL AS device
  FROM cpu_counter_track t WHERE t.name = 'cpufreq'
  UNION ALL
  SELECT t.id, 'cpu_max_limit', t.cpu, NULL
  FROM cpu_counter_track t WHERE t.name GLOB 'Cpu * Max Freq Limit'
  UNION ALL
  SELECT ct.id, iif(ct.type = 'linux_device_frequency', 'devfreq', 'clock_frequency'), NULL,
    coalesce(
      (SELECT a.string_value FROM args a
       WHERE a.arg_set_id = ct.dimension_arg_set_id AND a.key = 'linux_device'),
      iif(ct.name GLOB '* Frequency', substr(ct.name, 1, length(ct.name) - 10), ct.name))
  FROM counter_track ct WHERE ct.type IN ('linux_device_frequency', 'clock_frequency')
),
clock_event AS (
  SELECT DISTINCT e.ts, n.string_value AS clock, v.int_value AS rate
  FROM ftrace_event e
  JOIN args n ON n.arg_set_id = e.arg_set_id AND n.key = 'name'
  JOIN args v ON v.arg_set_id = e.arg_set_id
    AND v.key = iif(e.name = 'clock_set_rate', 'state', 'rate')
  WHERE e.name IN ('clock_set_rate', 'clk_set_rate')
),
series_sample AS (
  SELECT c.id, c.track_id, c.ts, c.value,
    CASE
      WHEN s.source != 'clock_frequency' THEN s.source
      WHEN EXISTS (SELECT 1 FROM clock_event ce
                   WHERE ce.ts = c.ts AND ce.clock = s.device
                     AND ce.rate = c.value) THEN 'clock'
      ELSE 'sys_stats'
    END AS source
  FROM counter c JOIN series s USING (track_id)
),
sample AS (
  SELECT track_id, source, ts, value,
    lead(ts) OVER (PARTITION BY track_id, source ORDER BY ts, id) AS next_ts,
    lag(value) OVER (PARTITION BY track_id, source ORDER BY ts, id) AS prev_value
  FROM series_sample
),
sample_in_run AS (
  SELECT r.run, c.track_id, c.source, c.ts, c.value,
    (c.ts < r.start_ts AND coalesce(c.next_ts, r.end_ts) > r.start_ts) AS carried_in,
    (c.ts >= r.start_ts AND c.ts < r.end_ts) AS inside
  FROM sample c CROSS JOIN artscope_run r
)
SELECT si.run, si.track_id, si.source, s.cpu, s.device, si.ts, si.value
FROM sample_in_run si JOIN series s USING (track_id)
WHERE si.carried_in OR si.inside
ORDER BY si.run, si.track_id, si.source, si.ts
