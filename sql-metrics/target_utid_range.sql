-- target_utid_range: the target threads' utids (artscope_target_thread) as
-- at most 4 ranges of neighbouring utids, split at the 3 widest gaps
-- between them: a process's threads mostly have neighbouring utids, so a
-- lookup of sched by a utid range (which trace_processor filters itself)
-- hands back little more than the target's rows, and the utids between
-- the ranges are other threads'. A range may hold other threads too (not
-- pure): a reader checks its rows against artscope_target_thread. A
-- shared CTE (runner.SHARED_CTES): the files that name target_utid_range
-- read it inlined.
--
-- Output columns (one row per range):
--   lo     its lowest utid (a target thread's)
--   hi     its highest utid (a target thread's)
--   pure   1 when every utid in [lo, hi] is a target thread's
--
-- Column types: lo LONG, hi LONG, pure BOOL
WITH
target_gap AS MATERIALIZED (
  SELECT utid, utid - lag(utid) OVER (ORDER BY utid) AS gap
  FROM (SELECT DISTINCT utid FROM artscope_target_thread)
),
target_split AS (
  SELECT g.utid,
    sum(iif(g.gap > 1 AND (SELECT count(*) FROM target_gap w
                           WHERE w.gap > g.gap OR (w.gap = g.gap AND w.utid < g.utid)) < 3,
            1, 0)) OVER (ORDER BY g.utid) AS grp
  FROM target_gap g
)
SELECT min(utid) AS lo, max(utid) AS hi, count(*) = max(utid) - min(utid) + 1 AS pure
FROM target_split
GROUP BY grp
