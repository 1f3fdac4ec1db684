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
  SELECT s.utid, s.cpu, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts,
    lag(s.cpu) OVER thread_order AS prev_cpu,
    lag(s.ts + s.dur) OVER thread_order AS prev_end_ts,
    lag(s.dur) OVER thread_order AS prev_dur
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
  WINDOW thread_order AS (PARTITION BY s.utid ORDER BY s.ts, s.id)
),
cpu_change AS MATERIALIZED (
  SELECT utid, cpu, ts, end_ts, prev_cpu,
    -- an open previous slice (dur -1) ended when this one started, at the
    -- latest; all that matters is whether it reaches into W.
    iif(prev_dur = -1, ts, prev_end_ts) AS prev_end_ts
  FROM target_sched
  WHERE prev_cpu IS NOT NULL AND prev_cpu != cpu
)
SELECT r.run, c.prev_cpu AS from_cpu, c.cpu AS to_cpu, count(*) AS migrations,
  count(DISTINCT c.utid) AS threads
FROM cpu_change c
JOIN artscope_run r
  ON c.ts < r.end_ts AND c.end_ts > r.start_ts AND c.prev_end_ts > r.start_ts
GROUP BY r.run, c.prev_cpu, c.cpu
ORDER BY r.run, c.prev_cpu, c.cpu
