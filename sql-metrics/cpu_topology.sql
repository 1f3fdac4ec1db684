-- cpu_topology: each CPU's candidate maximum frequencies, to group CPUs
-- into clusters (big = highest max, little = lowest, mid = the rest).
--
-- Output columns (one row per CPU known to the trace):
--   cpu
--   available_max_khz  max of its CpuInfo available frequencies
--   limit_max_khz      max of its cpu_frequency_limits max values
--   capacity           its CpuInfo capacity
--   observed_max_khz   the highest cpufreq value observed on it
WITH
cpus AS (
  SELECT cpu FROM cpu
  UNION SELECT cpu FROM cpu_counter_track WHERE name = 'cpufreq'
  UNION SELECT cpu FROM cpu_available_frequencies
)
SELECT c.cpu,
  (SELECT max(f.freq) FROM cpu_available_frequencies f WHERE f.cpu = c.cpu)
    AS available_max_khz,
  (SELECT max(v.value) FROM counter v JOIN cpu_counter_track t ON t.id = v.track_id
   WHERE t.cpu = c.cpu AND t.name GLOB 'Cpu * Max Freq Limit') AS limit_max_khz,
  (SELECT max(k.capacity) FROM cpu k WHERE k.cpu = c.cpu) AS capacity,
  (SELECT max(v.value) FROM counter v JOIN cpu_counter_track t ON t.id = v.track_id
   WHERE t.cpu = c.cpu AND t.name = 'cpufreq') AS observed_max_khz
FROM cpus c
WHERE c.cpu IS NOT NULL
ORDER BY c.cpu
