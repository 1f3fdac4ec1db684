-- cpu_topology: what the trace says about each CPU's place among the
-- clusters (frequency domains), strongest evidence first. Python groups the
-- CPUs into domains and ranks them (artscope/metrics/topology.py).
--
-- A CPU is known to the trace when it has sched slices, CPU frequency data
-- (cpufreq or max-frequency limits) or CpuInfo; a CPU seen only as the
-- buffer of other ftrace events (atrace prints) is not: nothing there says
-- what runs on it or how fast.
--
-- Output columns (one row per CPU known to the trace):
--   cpu
--   capacity           its CpuInfo capacity (the kernel's cpu_capacity)
--   available_max_khz  max of its CpuInfo available frequencies
--   available_khz      its available frequencies, ascending, comma-separated
--                      (CPUs of one frequency domain share the list)
--   limit_max_khz      max of its cpu_frequency_limits max values (the
--                      kernel may name only a domain's first CPU)
--   observed_max_khz   the highest cpufreq value over the whole trace
--
-- Column types: cpu LONG, capacity LONG, available_max_khz LONG, available_khz
--   STRING, limit_max_khz DOUBLE, observed_max_khz DOUBLE
WITH
cpus AS (
  SELECT c.cpu FROM cpu c
  WHERE c.capacity IS NOT NULL OR EXISTS (SELECT 1 FROM sched s WHERE s.cpu = c.cpu)
  UNION SELECT cpu FROM cpu_counter_track
    WHERE name = 'cpufreq' OR name GLOB 'Cpu * Max Freq Limit'
  UNION SELECT cpu FROM cpu_available_frequencies
),
available AS (
  SELECT cpu, max(freq) AS max_khz, group_concat(freq, ',') AS khz
  FROM (SELECT cpu, freq FROM cpu_available_frequencies ORDER BY cpu, freq)
  GROUP BY cpu
),
counter_max AS (
  SELECT t.cpu,
    max(iif(t.name GLOB 'Cpu * Max Freq Limit', v.value, NULL)) AS limit_max_khz,
    max(iif(t.name = 'cpufreq', v.value, NULL)) AS observed_max_khz
  FROM cpu_counter_track t JOIN counter v ON v.track_id = t.id
  WHERE t.name = 'cpufreq' OR t.name GLOB 'Cpu * Max Freq Limit'
  GROUP BY t.cpu
)
SELECT c.cpu,
  (SELECT max(k.capacity) FROM cpu k WHERE k.cpu = c.cpu) AS capacity,
  a.max_khz AS available_max_khz,
  a.khz AS available_khz,
  m.limit_max_khz,
  m.observed_max_khz
FROM cpus c
LEFT JOIN available a USING (cpu)
LEFT JOIN counter_max m USING (cpu)
WHERE c.cpu IS NOT NULL
ORDER BY c.cpu
