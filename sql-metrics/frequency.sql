-- frequency: every frequency series' samples as intervals clipped to each
-- run window; residency, transitions and stability are sums over these rows.
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
-- it; time before a series' first sample is unknown (no row covers it).
--
-- Output columns (one row per run and sample whose interval reaches W --
-- the sample carried in from before W, every sample inside W, a sample
-- exactly at W's end -- and, for a series of the trace with no sample at or
-- before W's end (nothing known), one row with ts NULL):
--   run, track_id, source, cpu, device   the series (track_id + source)
--   ts              the sample's time (absolute trace ns)
--   value           the frequency value from ts on
--   start_ts        max(ts, W start): where its time in W begins
--   end_ts          min(next sample's ts, W end): where it ends (= start_ts
--                   when it holds no time in W)
--   is_transition   1 when the value changes strictly inside W: start_ts <
--                   ts < W end and it differs from the previous sample (a
--                   change exactly at W's start is the value W starts with)
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
  SELECT r.run, c.*, r.start_ts AS w_start, r.end_ts AS w_end
  FROM sample c
  JOIN artscope_run r ON c.ts <= r.end_ts AND coalesce(c.next_ts, r.end_ts) >= r.start_ts
),
series_in_run AS (
  SELECT DISTINCT r.run, c.track_id, c.source FROM sample c CROSS JOIN artscope_run r
)
SELECT sr.run, sr.track_id, sr.source, s.cpu, s.device, c.ts, c.value,
  max(c.ts, c.w_start) AS start_ts,
  max(max(c.ts, c.w_start), min(coalesce(c.next_ts, c.w_end), c.w_end)) AS end_ts,
  iif(c.ts > c.w_start AND c.ts < c.w_end
      AND c.prev_value IS NOT NULL AND c.prev_value != c.value, 1, 0) AS is_transition
FROM series_in_run sr
JOIN series s USING (track_id)
LEFT JOIN sample_in_run c
  ON c.run = sr.run AND c.track_id = sr.track_id AND c.source = sr.source
ORDER BY sr.run, sr.source, s.cpu, s.device, sr.track_id, c.ts
