-- cpufreq_interval: each CPU's frequency intervals in each run window W:
-- from each change (cpufreq_change) or W's start to the next change or W's
-- end, and before the CPU's first sample an interval of unknown frequency.
-- Together a CPU's intervals cover W. A shared CTE (runner.SHARED_CTES): the
-- files that name cpufreq_interval read it inlined.
--
-- Output columns (one row per run, CPU and interval):
--   run        run id
--   cpu        the CPU
--   a          where the interval starts (absolute trace ns)
--   b          where it ends
--   khz        the frequency over it, kHz (NULL before the CPU's first
--              sample; 0: unknown)
--   idx        its number in time order per run and CPU, from 1
--
-- Column types: run LONG, cpu LONG, a TIMESTAMP, b TIMESTAMP, khz DOUBLE,
--   idx LONG
WITH
clipped AS (
  SELECT r.run, f.cpu, max(f.ts, r.start_ts) AS a,
    min(coalesce(f.next_ts, r.end_ts), r.end_ts) AS b, f.khz
  FROM artscope_run r
  JOIN cpufreq_change f ON f.ts < r.end_ts AND coalesce(f.next_ts, r.end_ts) > r.start_ts
  UNION ALL
  SELECT r.run, c.cpu, r.start_ts,
    min(coalesce((SELECT min(f.ts) FROM cpufreq_change f WHERE f.cpu = c.cpu), r.end_ts),
        r.end_ts),
    NULL
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
)
SELECT run, cpu, a, b, khz, row_number() OVER (PARTITION BY run, cpu ORDER BY a) AS idx
FROM clipped
WHERE b > a
