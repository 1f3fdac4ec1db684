-- cpu_frequency_changes: every change of a CPU's frequency over the whole
-- trace, and the rate changes of the clocks that drive CPU clusters. CPUs
-- that change together (same value, within a moment) form one frequency
-- domain (cpufreq policy); a cluster clock whose rates track a domain's
-- changes names that domain (Qualcomm pwrcl / perfcl / perfpcl, Exynos and
-- Tensor cpucl0 / cpucl1 / cpucl2).
--
-- Output columns:
--   kind    'cpufreq' (a CPU's frequency, kHz) or 'clock' (a cluster
--           clock's rate, Hz or kHz as the kernel wrote it)
--   cpu     the CPU ('cpufreq' rows), else NULL
--   clock   the clock's name ('clock' rows), else NULL
--   ts      when the value took effect (absolute trace ns)
--   value   the new value
--
-- Column types: kind STRING, cpu LONG, clock STRING, ts TIMESTAMP, value
--   DOUBLE
WITH
cpufreq_sample AS (
  SELECT t.cpu, v.ts, v.value,
    lag(v.value) OVER (PARTITION BY t.cpu ORDER BY v.ts) AS prev_value
  FROM cpu_counter_track t JOIN counter v ON v.track_id = t.id
  WHERE t.name = 'cpufreq'
),
cluster_clock AS (
  SELECT ct.id,
    iif(ct.name GLOB '* Frequency', substr(ct.name, 1, length(ct.name) - 10), ct.name)
      AS clock
  FROM counter_track ct
  WHERE ct.type = 'clock_frequency'
    AND (lower(ct.name) GLOB '*pwrcl*' OR lower(ct.name) GLOB '*perfcl*'
         OR lower(ct.name) GLOB '*perfpcl*' OR lower(ct.name) GLOB '*cpucl[0-9]*')
)
SELECT 'cpufreq' AS kind, cpu, NULL AS clock, ts, value
FROM cpufreq_sample
WHERE prev_value IS NULL OR value != prev_value
UNION ALL
SELECT 'clock', NULL, k.clock, v.ts, v.value
FROM cluster_clock k JOIN counter v ON v.track_id = k.id
ORDER BY ts, kind, cpu
