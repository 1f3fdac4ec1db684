-- migrations: CPU changes of target threads within each run.
--
-- Each target thread's sched slices that overlap W, ordered by ts; every
-- consecutive pair on different CPUs is one migration.
--
-- Shape: the previous slice of each target slice comes from one window over
-- the thread's whole history, in sched's own (utid, ts, id) order (no sort,
-- no range join); only the slices that changed CPU are then matched to
-- runs. A thread's sched slices do not overlap in time, so those that
-- overlap W are consecutive in that order: a change counts for W when its
-- slice overlaps W and is not the thread's first slice in W (whose
-- predecessor lies outside W).
--
-- Output columns (one row per run, from_cpu, to_cpu with at least one move):
--   run, from_cpu, to_cpu
--   migrations   number of consecutive slice pairs moving from_cpu -> to_cpu
--   threads      distinct threads that made that move
WITH
target_sched AS (
  SELECT s.id, s.utid, s.cpu, s.ts, s.dur,
    lag(s.cpu) OVER (PARTITION BY s.utid ORDER BY s.ts, s.id) AS prev_cpu
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
),
-- Only the (few) slices that changed CPU need their end: an open slice
-- (dur -1) ends at the next slice on its CPU, else at trace_end().
cpu_change AS MATERIALIZED (
  SELECT c.id, c.utid, c.cpu, c.ts, c.prev_cpu,
    CASE WHEN c.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = c.cpu AND n.ts > c.ts), trace_end())
    ELSE c.ts + c.dur END AS end_ts
  FROM target_sched c
  WHERE c.prev_cpu IS NOT NULL AND c.prev_cpu != c.cpu
),
-- The longest target sched slice: a slice overlapping W starts after
-- start_ts - max_dur, a lower ts bound for the lookups below.
sched_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
),
first_in_run AS MATERIALIZED (
  SELECT r.run, t.utid,
    (SELECT s.id FROM sched s
     WHERE s.utid = t.utid
       AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur
       AND CASE WHEN s.dur = -1 THEN coalesce(
             (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
           ELSE s.ts + s.dur END > r.start_ts
     ORDER BY s.ts, s.id
     LIMIT 1) AS first_id
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT utid FROM artscope_target_thread) t
  CROSS JOIN sched_bound b
)
SELECT r.run, c.prev_cpu AS from_cpu, c.cpu AS to_cpu, count(*) AS migrations,
  count(DISTINCT c.utid) AS threads
FROM cpu_change c
JOIN artscope_run r ON c.ts < r.end_ts AND c.end_ts > r.start_ts
JOIN first_in_run f ON f.run = r.run AND f.utid = c.utid
WHERE c.id != f.first_id
GROUP BY r.run, c.prev_cpu, c.cpu
ORDER BY r.run, c.prev_cpu, c.cpu
