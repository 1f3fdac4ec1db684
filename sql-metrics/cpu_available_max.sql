-- cpu_available_max: the highest frequency each CPU lists as available
-- (CpuInfo), the ceiling a run's cluster level is compared with besides the
-- highest frequency the CPU reaches in the trace (frequency.sql's
-- series_max).
--
-- Output columns (one row per CPU listing available frequencies):
--   cpu
--   available_max_khz  the highest of its available frequencies (kHz)
--
-- Column types: cpu LONG, available_max_khz LONG
SELECT cpu, max(freq) AS available_max_khz
FROM cpu_available_frequencies
GROUP BY cpu
ORDER BY cpu
