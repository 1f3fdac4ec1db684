-- frequency: residency of every frequency series in each run window.
--
-- Series (never merged across sources; their units differ):
--   source 'cpufreq'        cpu_counter_track 'cpufreq' per CPU (kHz; ftrace
--                           cpu_frequency and sys_stats cpufreq polling)
--   source 'cpu_max_limit'  'Cpu N Max Freq Limit' per CPU (kHz)
--   source 'devfreq'        devfreq_frequency events per device
--                           (linux_device_frequency tracks)
--   source 'clock'          clock_set_rate / clk_set_rate events per clock (Hz)
--   source 'sys_stats'      sys_stats devfreq polling per device (kHz)
-- trace_processor keeps clock events and sys_stats devfreq samples of the
-- same name on one clock_frequency track; a sample is a clock event when a
-- clock_set_rate / clk_set_rate ftrace event of that clock with the same
-- timestamp and rate exists (raw ftrace ingestion is on for both engines;
-- its `name` and `state`/`rate` args), else it came from sys_stats polling.
-- A sample holds until the next sample of the same series; the last one
-- holds to the end of W. The value at W's start is the last sample before
-- it; time before a series' first sample is unknown (no residency).
--
-- Output columns (one row per run, series and value held in W; a series with
-- samples but no residency in W has one row with value NULL):
--   run, track_id, source, cpu, device   the series (track_id + source)
--   value              the frequency value held
--   residency_ns       known time at that value inside W
--   transitions        series: value changes inside W, i.e. samples with
--                      start_ts < ts < end_ts whose value differs from the
--                      previous sample's (a change exactly at W's start is the
--                      value W starts with, not a change within W)
--   samples_by_end     series: samples at or before W's end
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
series_in_run AS (
  SELECT r.run, c.track_id, c.source,
    sum(iif(c.ts > r.start_ts AND c.ts < r.end_ts
            AND c.prev_value IS NOT NULL AND c.prev_value != c.value, 1, 0)) AS transitions,
    sum(iif(c.ts <= r.end_ts, 1, 0)) AS samples_by_end
  FROM sample c CROSS JOIN artscope_run r
  GROUP BY r.run, c.track_id, c.source
),
residency AS (
  SELECT r.run, c.track_id, c.source, c.value,
    sum(min(coalesce(c.next_ts, r.end_ts), r.end_ts) - max(c.ts, r.start_ts)) AS residency_ns
  FROM sample c
  JOIN artscope_run r ON c.ts < r.end_ts AND coalesce(c.next_ts, r.end_ts) > r.start_ts
  GROUP BY r.run, c.track_id, c.source, c.value
  HAVING residency_ns > 0
)
SELECT sr.run, sr.track_id, sr.source, s.cpu, s.device,
  rs.value, coalesce(rs.residency_ns, 0) AS residency_ns,
  sr.transitions, sr.samples_by_end
FROM series_in_run sr
JOIN series s USING (track_id)
LEFT JOIN residency rs
  ON rs.run = sr.run AND rs.track_id = sr.track_id AND rs.source = sr.source
ORDER BY sr.run, sr.source, s.cpu, s.device, sr.track_id, rs.value
