-- migrations: CPU changes of target threads within each run.
--
-- Each target thread's sched slices that overlap W, ordered by ts; every
-- consecutive pair on different CPUs is one migration.
--
-- Shape (no window over every slice of the app, no range join, no sort of
-- sched rows): per run and thread, one scalar subquery reads the thread's
-- slices in W by `utid =` and a ts range (trace_processor binary-searches its
-- sorted ts column; the embedded engine uses its (utid, ts) index) and spells
-- the CPUs they ran on, in order, as a string, one character per slice:
-- char(48 + cpu). A move from CPU a to CPU b is then an occurrence of the
-- two characters "ab" in that string; for a != b occurrences cannot overlap,
-- so their number is the bytes replace() removes divided by the pattern's
-- bytes. (The subquery's ORDER BY is what group_concat sees: SQLite keeps a
-- FROM-subquery's ORDER BY under any aggregate but count/min/max.)
--
-- Output columns (one row per run, from_cpu, to_cpu with at least one move):
--   run, from_cpu, to_cpu
--   migrations   number of consecutive slice pairs moving from_cpu -> to_cpu
--   threads      distinct threads that made that move
WITH
-- The longest target sched slice: a slice overlapping W starts after
-- start_ts - max_dur, a lower ts bound for the lookups below.
sched_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
),
-- The candidates for both ends of a move: every CPU of the trace (the cpu
-- table holds each CPU with sched data; a CPU no target thread ran on has
-- no moves and is dropped by the HAVING below). Read from cpu, not from the
-- target threads' sched rows: that would be one more pass over all of them.
target_cpu AS MATERIALIZED (
  SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL
),
-- Per run and thread, the CPUs of its slices overlapping W, in (ts, id)
-- order. An open slice (dur -1) ends at the next slice on its CPU, else at
-- trace_end().
cpu_path AS MATERIALIZED (
  SELECT r.run, t.utid,
    (SELECT group_concat(c, '')
     FROM (
       SELECT char(48 + s.cpu) AS c
       FROM sched s
       WHERE s.utid = t.utid
         AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur
         AND CASE WHEN s.dur = -1 THEN coalesce(
               (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
             ELSE s.ts + s.dur END > r.start_ts
       ORDER BY s.ts, s.id)) AS path
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT utid FROM artscope_target_thread) t
  CROSS JOIN sched_bound b
),
thread_move AS (
  SELECT p.run, p.utid, a.cpu AS from_cpu, z.cpu AS to_cpu,
    (length(CAST(p.path AS BLOB))
     - length(CAST(replace(p.path, char(48 + a.cpu, 48 + z.cpu), '') AS BLOB)))
      / length(CAST(char(48 + a.cpu, 48 + z.cpu) AS BLOB)) AS moves
  FROM cpu_path p
  CROSS JOIN target_cpu a
  CROSS JOIN target_cpu z
  WHERE a.cpu != z.cpu AND p.path IS NOT NULL
)
SELECT run, from_cpu, to_cpu, sum(moves) AS migrations, sum(moves > 0) AS threads
FROM thread_move
GROUP BY run, from_cpu, to_cpu
HAVING sum(moves) > 0
ORDER BY run, from_cpu, to_cpu
