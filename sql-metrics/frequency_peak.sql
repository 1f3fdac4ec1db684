-- frequency_peak: the highest frequency each CPU and frequency series shows
-- anywhere in the trace -- reached, or (CPUs) listed as available -- so a
-- run's dominant level can be compared with what the device can run at.
--
-- Series are those of frequency.sql, in their own units: 'cpufreq' per CPU
-- (kHz), 'devfreq', 'clock' and 'sys_stats' per device; a clock_frequency
-- track's sample is a clock event when a clock_set_rate / clk_set_rate
-- ftrace event of that clock with the same timestamp and rate exists, else
-- it came from sys_stats polling (as frequency.sql decides).
--
-- Output columns (one row per series with samples, and per CPU listing
-- available frequencies):
--   source         'cpufreq' | 'devfreq' | 'clock' | 'sys_stats'
--   cpu            the CPU (cpufreq), else NULL
--   device         the device or clock (other sources), else NULL
--   reached_max    the highest sample of the series in the trace
--   available_max  cpufreq: the CPU's highest CpuInfo available frequency
WITH
series AS (
  SELECT t.id AS track_id, 'cpufreq' AS source, t.cpu, NULL AS device
  FROM cpu_counter_track t WHERE t.name = 'cpufreq'
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
series_sample AS (
  SELECT s.track_id, s.cpu, s.device, c.value,
    CASE
      WHEN s.source != 'clock_frequency' THEN s.source
      WHEN EXISTS (SELECT 1 FROM clock_event ce
                   WHERE ce.ts = c.ts AND ce.clock = s.device
                     AND ce.rate = c.value) THEN 'clock'
      ELSE 'sys_stats'
    END AS source
  FROM counter c JOIN series s USING (track_id)
),
reached AS (
  SELECT source, cpu, device, max(value) AS reached_max
  FROM series_sample GROUP BY track_id, source
),
available AS (
  SELECT cpu, max(freq) AS available_max FROM cpu_available_frequencies GROUP BY cpu
)
SELECT r.source, r.cpu, r.device, r.reached_max,
  (SELECT a.available_max FROM available a WHERE a.cpu = r.cpu) AS available_max
FROM reached r
UNION ALL
SELECT 'cpufreq', a.cpu, NULL, NULL, a.available_max
FROM available a
WHERE a.cpu NOT IN (SELECT r.cpu FROM reached r WHERE r.source = 'cpufreq')
ORDER BY 1, 2, 3
