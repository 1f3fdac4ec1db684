-- frequency: every frequency series' samples as intervals clipped to each
-- run window, and those of the caps on the CPUs' frequency (limits, LMh,
-- cooling-device states); residency, transitions and stability are sums
-- over these rows.
--
-- Series (never merged across sources; their units differ):
--   source 'cpufreq'        cpu_counter_track 'cpufreq' per CPU (ftrace
--                           cpu_frequency and sys_stats cpufreq polling)
--   source 'cpu_max_limit'  'Cpu N Max Freq Limit' per CPU
--   source 'cpu_throttle'   'cpufreq_throttle' per CPU: Qualcomm LMh's cap
--                           (dcvsh/dcvsh_freq events) while it throttles
--   source 'cooling_device' a thermal cooling device's state (ftrace
--                           thermal/cdev_update) per device: a cpufreq
--                           cooling device at state N caps its policy N
--                           levels below its highest frequency
--   source 'devfreq'        devfreq_frequency events per device
--                           (linux_device_frequency tracks)
--   source 'clock'          clock_set_rate / clk_set_rate events per clock
--   source 'sys_stats'      sys_stats devfreq polling per device
--   source 'bus_dcvs'       Qualcomm bus_dcvs `dcvs/qcom_dcvs_update` events:
--                           the frequency a hardware's voting path committed
--                           (arg path_ib), device '<hw>/<path>' from args hw
--                           (0 DDR, 1 LLCC, 2 L3, 3 DDRQOS, 4 UBWCP, 5 L3_1)
--                           and path (0 slow, 1 fast, 2 percpu)
--   source 'memlat'         `dcvs/memlat_dev_update`: a memlat monitor's vote
--                           (arg vote) per monitor (arg name)
--   source 'bw_hwmon'       `dcvs/bw_hwmon_update`: a bandwidth monitor's
--                           vote (arg freq) per monitor (arg name)
-- The dcvs events have no Perfetto proto: traced_probes records them as
-- generic ftrace events and trace_processor keeps them only in ftrace_event
-- with one arg per field, so those series are read from there.
-- trace_processor keeps clock events and sys_stats devfreq samples of the
-- same name on one clock_frequency track; a sample is a clock event when a
-- clock_set_rate / clk_set_rate ftrace event of that clock with the same
-- timestamp and rate exists (raw ftrace ingestion is on for both engines;
-- its `name` and `state`/`rate` args), else it came from sys_stats polling
-- (never in a systrace / ftrace text trace: there every sample is a clock
-- event).
-- Units are not decided here (see artscope/units.py: frequency_unit).
--
-- A sample holds until the next sample of the same series; the last one
-- holds to the end of W. The value at W's start is the last sample before
-- it; time before a series' first sample is unknown (no row covers it). A
-- sample that reads 0 from a polled or devfreq source (cpufreq, cpu_max_limit,
-- devfreq, sys_stats) is unknown too: Perfetto polls a node it cannot read
-- as 0, and no CPU or devfreq device runs at 0 (a clock or dcvs 0 is a gated
-- clock or a withdrawn vote: a value).
--
-- Output columns (one row per run and sample whose interval reaches W --
-- the sample carried in from before W, every sample inside W, a sample
-- exactly at W's end -- and, for a series of the trace with no sample at or
-- before W's end (nothing known), one row with ts NULL):
--   run, track_id, source, cpu, device   the series (track_id + source +
--                   device); track_id is the counter track, or for a series
--                   read from ftrace events a negative number naming it
--   ts              the sample's time (absolute trace ns)
--   value           the frequency value from ts on, as the kernel reports it
--   known           1 when the value is a reading, 0 for an unknown (a 0 read
--                   from a polled/devfreq source)
--   series_max      the series' largest value over the whole trace (its unit
--                   is decided from it)
--   start_ts        max(ts, W start): where its time in W begins
--   end_ts          min(next sample's ts, W end): where it ends (= start_ts
--                   when it holds no time in W)
--   is_transition   1 when a known value changes strictly inside W: start_ts
--                   < ts < W end and it differs from the previous sample,
--                   itself known (a change exactly at W's start is the value
--                   W starts with)
--
-- Column types: run LONG, track_id LONG, source STRING, cpu LONG, device
--   STRING, ts TIMESTAMP, value DOUBLE, known BOOL, series_max DOUBLE,
--   start_ts TIMESTAMP, end_ts TIMESTAMP, is_transition BOOL
WITH
track_series AS (
  SELECT t.id AS track_id, 'cpufreq' AS source, t.cpu, NULL AS device
  FROM cpu_counter_track t WHERE t.name = 'cpufreq'
  UNION ALL
  SELECT t.id, 'cpu_max_limit', t.cpu, NULL
  FROM cpu_counter_track t WHERE t.name GLOB 'Cpu * Max Freq Limit'
  UNION ALL
  SELECT t.id, 'cpu_throttle', t.cpu, NULL
  FROM cpu_counter_track t WHERE t.name = 'cpufreq_throttle'
  UNION ALL
  SELECT t.id, 'cooling_device', NULL,
    coalesce((SELECT a.string_value FROM args a
              WHERE a.arg_set_id = t.dimension_arg_set_id AND a.key = 'linux_device'), t.name)
  FROM counter_track t WHERE t.type = 'cooling_device_counter'
  UNION ALL
  SELECT ct.id, iif(ct.type = 'linux_device_frequency', 'devfreq', 'clock_frequency'), NULL,
    coalesce(
      (SELECT a.string_value FROM args a
       WHERE a.arg_set_id = ct.dimension_arg_set_id AND a.key = 'linux_device'),
      iif(ct.name GLOB '* Frequency', substr(ct.name, 1, length(ct.name) - 10), ct.name))
  FROM counter_track ct WHERE ct.type IN ('linux_device_frequency', 'clock_frequency')
),
clock_event AS MATERIALIZED (
  SELECT DISTINCT e.ts, n.string_value AS clock, v.int_value AS rate
  FROM ftrace_event e
  JOIN args n ON n.arg_set_id = e.arg_set_id AND n.key = 'name'
  JOIN args v ON v.arg_set_id = e.arg_set_id
    AND v.key = iif(e.name = 'clock_set_rate', 'state', 'rate')
  WHERE e.name IN ('clock_set_rate', 'clk_set_rate')
),
-- the dcvs events, in one pass over ftrace_event (read twice below)
dcvs_event AS MATERIALIZED (
  SELECT e.id, e.ts, e.name, e.arg_set_id
  FROM ftrace_event e
  WHERE e.name IN ('qcom_dcvs_update', 'memlat_dev_update', 'bw_hwmon_update')
),
dcvs_sample AS (
  SELECT e.id, e.ts, 'bus_dcvs' AS source,
    CASE hw.int_value WHEN 0 THEN 'DDR' WHEN 1 THEN 'LLCC' WHEN 2 THEN 'L3'
      WHEN 3 THEN 'DDRQOS' WHEN 4 THEN 'UBWCP' WHEN 5 THEN 'L3_1'
      ELSE 'hw' || hw.int_value END
    || '/' || CASE path.int_value WHEN 0 THEN 'slow' WHEN 1 THEN 'fast'
      WHEN 2 THEN 'percpu' ELSE 'path' || path.int_value END AS device,
    v.int_value AS value
  FROM dcvs_event e
  JOIN args hw ON hw.arg_set_id = e.arg_set_id AND hw.key = 'hw'
  JOIN args path ON path.arg_set_id = e.arg_set_id AND path.key = 'path'
  JOIN args v ON v.arg_set_id = e.arg_set_id AND v.key = 'path_ib'
  WHERE e.name = 'qcom_dcvs_update'
  UNION ALL
  SELECT e.id, e.ts, iif(e.name = 'memlat_dev_update', 'memlat', 'bw_hwmon'),
    n.string_value, v.int_value
  FROM dcvs_event e
  JOIN args n ON n.arg_set_id = e.arg_set_id AND n.key = 'name'
  JOIN args v ON v.arg_set_id = e.arg_set_id
    AND v.key = iif(e.name = 'memlat_dev_update', 'vote', 'freq')
  WHERE e.name IN ('memlat_dev_update', 'bw_hwmon_update')
),
event_series AS (
  SELECT source, device, -row_number() OVER (ORDER BY source, device) AS track_id
  FROM (SELECT DISTINCT source, device FROM dcvs_sample)
),
-- systrace / ftrace text has no sys_stats polling (nor raw ftrace rows for
-- its clock events): all its clock_frequency samples are clock events
text_trace AS MATERIALIZED (
  SELECT EXISTS (SELECT 1 FROM metadata
                 WHERE name = 'trace_type' AND str_value IN ('systrace', 'ctrace'))
    AS is_text
),
counter_sample AS (
  SELECT c.id, c.track_id, s.cpu, s.device, c.ts, c.value,
    CASE
      WHEN s.source != 'clock_frequency' THEN s.source
      WHEN (SELECT is_text FROM text_trace) THEN 'clock'
      WHEN EXISTS (SELECT 1 FROM clock_event ce
                   WHERE ce.ts = c.ts AND ce.clock = s.device
                     AND ce.rate = c.value) THEN 'clock'
      ELSE 'sys_stats'
    END AS source
  FROM counter c JOIN track_series s USING (track_id)
),
-- counter and event samples get their neighbours apart (one sort of the
-- counters, as without events, plus a small one of the events)
sample AS (
  SELECT track_id, source, cpu, device, ts, value,
    iif(value = 0 AND source IN ('cpufreq', 'cpu_max_limit', 'devfreq', 'sys_stats'),
        0, 1) AS known,
    lead(ts) OVER w AS next_ts,
    lag(value) OVER w AS prev_value
  FROM counter_sample
  WINDOW w AS (PARTITION BY track_id, source ORDER BY ts, id)
  UNION ALL
  SELECT es.track_id, d.source, NULL, d.device, d.ts, d.value, 1,
    lead(d.ts) OVER e AS next_ts,
    lag(d.value) OVER e AS prev_value
  FROM dcvs_sample d JOIN event_series es USING (source, device)
  WINDOW e AS (PARTITION BY es.track_id ORDER BY d.ts, d.id)
),
sample_in_run AS (
  SELECT r.run, c.*, r.start_ts AS w_start, r.end_ts AS w_end
  FROM sample c
  JOIN artscope_run r ON c.ts <= r.end_ts AND coalesce(c.next_ts, r.end_ts) >= r.start_ts
),
series_in_run AS (
  SELECT r.run, s.track_id, s.source, s.cpu, s.device, s.series_max
  FROM (SELECT track_id, source, cpu, device, max(value) AS series_max
        FROM sample GROUP BY track_id, source) s
  CROSS JOIN artscope_run r
)
SELECT sr.run, sr.track_id, sr.source, sr.cpu, sr.device, c.ts, c.value, c.known,
  sr.series_max,
  max(c.ts, c.w_start) AS start_ts,
  max(max(c.ts, c.w_start), min(coalesce(c.next_ts, c.w_end), c.w_end)) AS end_ts,
  iif(c.ts > c.w_start AND c.ts < c.w_end AND c.known = 1
      AND c.prev_value IS NOT NULL AND c.prev_value != c.value
      AND NOT (c.prev_value = 0
               AND c.source IN ('cpufreq', 'cpu_max_limit', 'devfreq', 'sys_stats')),
      1, 0) AS is_transition
FROM series_in_run sr
LEFT JOIN sample_in_run c
  ON c.run = sr.run AND c.track_id = sr.track_id AND c.source = sr.source
ORDER BY sr.run, sr.source, sr.cpu, sr.device, sr.track_id, c.ts
