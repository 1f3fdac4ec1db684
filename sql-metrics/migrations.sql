-- migrations: CPU changes of target threads within each run.
--
-- Each target thread's sched slices that overlap W, ordered by ts; every
-- consecutive pair on different CPUs is one migration.
--
-- Shape: the previous slice of each target slice comes from one window over
-- the thread's whole history, in sched's own (utid, ts, id) order (no sort,
-- no range join); only the pairs that change CPU are then matched to runs. A
-- pair belongs to run W when both slices overlap W. This equals pairing
-- within W because a thread's sched slices do not overlap in time, so no
-- slice outside W falls between two slices that overlap it.
--
-- Output columns (one row per run, from_cpu, to_cpu with at least one move):
--   run, from_cpu, to_cpu
--   migrations   number of consecutive slice pairs moving from_cpu -> to_cpu
--   threads      distinct threads that made that move
WITH
target_sched AS (
  SELECT s.utid, s.cpu, s.ts, s.dur,
    lag(s.cpu) OVER thread_order AS prev_cpu,
    -- An open slice (dur -1) is the last on its CPU (a later switch there
    -- would have closed it), so it ends at trace_end().
    lag(iif(s.dur = -1, trace_end(), s.ts + s.dur)) OVER thread_order AS prev_end_ts
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
  WINDOW thread_order AS (PARTITION BY s.utid ORDER BY s.ts, s.id)
),
-- Only the (few) slices that changed CPU need their own end: an open slice
-- ends at the next slice on its CPU, else at trace_end().
cpu_change AS MATERIALIZED (
  SELECT c.utid, c.cpu, c.ts, c.prev_cpu, c.prev_end_ts,
    CASE WHEN c.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = c.cpu AND n.ts > c.ts), trace_end())
    ELSE c.ts + c.dur END AS end_ts
  FROM target_sched c
  WHERE c.prev_cpu IS NOT NULL AND c.prev_cpu != c.cpu
)
SELECT r.run, c.prev_cpu AS from_cpu, c.cpu AS to_cpu, count(*) AS migrations,
  count(DISTINCT c.utid) AS threads
FROM cpu_change c
JOIN artscope_run r
  ON c.ts < r.end_ts AND c.end_ts > r.start_ts AND c.prev_end_ts > r.start_ts
GROUP BY r.run, c.prev_cpu, c.cpu
ORDER BY r.run, c.prev_cpu, c.cpu
