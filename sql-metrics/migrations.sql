-- migrations: CPU changes of target threads within each run.
--
-- Each target thread's sched slices that overlap W, ordered by ts; every
-- consecutive pair on different CPUs is one migration.
--
-- Output columns (one row per run, from_cpu, to_cpu with at least one move):
--   run, from_cpu, to_cpu
--   migrations   number of consecutive slice pairs moving from_cpu -> to_cpu
--   threads      distinct threads that made that move
WITH
target_sched AS (
  SELECT s.utid, s.cpu, s.ts, s.id,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
),
sched_in_run AS (
  SELECT r.run, s.utid, s.cpu,
    lag(s.cpu) OVER (PARTITION BY r.run, s.utid ORDER BY s.ts, s.id) AS prev_cpu
  FROM target_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
)
SELECT run, prev_cpu AS from_cpu, cpu AS to_cpu, count(*) AS migrations,
  count(DISTINCT utid) AS threads
FROM sched_in_run
WHERE prev_cpu IS NOT NULL AND prev_cpu != cpu
GROUP BY run, prev_cpu, cpu
ORDER BY run, prev_cpu, cpu
