-- migrations: CPU changes of target threads within each run.
--
-- Each target thread's sched slices that overlap W, ordered by ts; every
-- consecutive pair on different CPUs is one migration.
--
-- Shape (no window over every slice of the app, no range join, no sort of
-- sched rows): per run and thread, one scalar subquery reads the thread's
-- slices starting in W by `utid =` and a ts range (trace_processor
-- binary-searches its sorted ts column; the embedded engine uses its
-- (utid, ts) index); the slices reaching in from before W come from one seek
-- per CPU (see sched_before_run). The path spells
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
--
-- Column types: run LONG, from_cpu LONG, to_cpu LONG, migrations LONG, threads
--   LONG
WITH
-- Per run and CPU, the last sched slice starting before W. A CPU's slices
-- follow one another (each ends where the next on its CPU starts), so it is
-- the only slice of that CPU that can start before W and reach into it.
-- One seek per CPU: first within 100 ms before W (on trace_processor a short
-- ts range to filter), else anywhere before.
sched_before_run AS MATERIALIZED (
  SELECT r.run, r.start_ts, coalesce(
    (SELECT s.id FROM sched s
     WHERE s.cpu = c.cpu AND s.ts < r.start_ts AND s.ts >= r.start_ts - 100000000
     ORDER BY s.ts DESC, s.id DESC LIMIT 1),
    (SELECT s.id FROM sched s
     WHERE s.cpu = c.cpu AND s.ts < r.start_ts - 100000000
     ORDER BY s.ts DESC, s.id DESC LIMIT 1)) AS id
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
),
-- Target slices starting before W and reaching into it (an open slice, dur
-- -1, ends at the next slice on its CPU, else where that CPU's data ends).
straddling AS MATERIALIZED (
  SELECT b.run, s.utid, s.ts, s.id, s.cpu
  FROM sched_before_run b
  JOIN sched s ON s.id = b.id
  WHERE s.utid IN (SELECT utid FROM artscope_target_thread)
    AND iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                         WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) > b.start_ts
),
-- The candidates for both ends of a move: every CPU of the trace (the cpu
-- table holds each CPU with sched data; a CPU no target thread ran on has
-- no moves and is dropped by the HAVING below). Read from cpu, not from the
-- target threads' sched rows: that would be one more pass over all of them.
target_cpu AS MATERIALIZED (
  SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL
),
-- Per run and thread, the CPUs of its slices overlapping W, in (ts, id)
-- order: those reaching in from before W (all start before the others), then
-- those starting at W's start (they overlap W unless they end there too: a
-- lookup of their own, so the pass over the rest checks no end per row),
-- then those starting in W after it.
cpu_path AS MATERIALIZED (
  SELECT r.run, t.utid,
    nullif(
      coalesce((SELECT group_concat(c, '')
                FROM (SELECT char(48 + x.cpu) AS c FROM straddling x
                      WHERE x.run = r.run AND x.utid = t.utid
                      ORDER BY x.ts, x.id)), '')
      || coalesce((SELECT group_concat(c, '')
                   FROM (
                     SELECT char(48 + s.cpu) AS c
                     FROM sched s
                     -- (ts as a range: the embedded engine looks an equality
                     -- on ts and utid up in a (ts, utid) index it would build)
                     WHERE s.utid = t.utid AND s.ts >= r.start_ts AND s.ts <= r.start_ts
                       AND iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                                            WHERE o.cpu = s.cpu AND o.ts = s.ts),
                               s.ts + s.dur) > r.start_ts
                     ORDER BY s.id)), '')
      || coalesce((SELECT group_concat(c, '')
                   FROM (
                     SELECT char(48 + s.cpu) AS c
                     FROM sched s
                     WHERE s.utid = t.utid AND s.ts > r.start_ts AND s.ts < r.end_ts
                     ORDER BY s.ts, s.id)), ''),
      '') AS path
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT utid FROM artscope_target_thread) t
),
-- The path with its runs on one CPU shortened: "cc" -> "c" for each CPU,
-- five rounds (a run of k slices becomes about k/32 long). The pairs of
-- different CPUs stay as they were, and the 56 counts per thread below
-- (8 CPUs) then read a path about as long as its moves, not its slices.
short_path AS MATERIALIZED (
  SELECT p.run, p.utid, (
    WITH RECURSIVE shrink(i, path) AS (
      SELECT 0, p.path
      UNION ALL
      SELECT i + 1, replace(path, char(48 + c.cpu, 48 + c.cpu), char(48 + c.cpu))
      FROM shrink
      JOIN (SELECT cpu, row_number() OVER (ORDER BY cpu) - 1 AS k FROM target_cpu) c
        ON c.k = i % (SELECT count(*) FROM target_cpu)
      WHERE i < 5 * (SELECT count(*) FROM target_cpu))
    SELECT path FROM shrink ORDER BY i DESC LIMIT 1) AS path
  FROM cpu_path p
  WHERE p.path IS NOT NULL
),
thread_move AS (
  SELECT p.run, p.utid, a.cpu AS from_cpu, z.cpu AS to_cpu,
    (length(CAST(p.path AS BLOB))
     - length(CAST(replace(p.path, char(48 + a.cpu, 48 + z.cpu), '') AS BLOB)))
      / length(CAST(char(48 + a.cpu, 48 + z.cpu) AS BLOB)) AS moves
  FROM short_path p
  CROSS JOIN target_cpu a
  CROSS JOIN target_cpu z
  WHERE a.cpu != z.cpu
)
SELECT run, from_cpu, to_cpu, sum(moves) AS migrations, sum(moves > 0) AS threads
FROM thread_move
GROUP BY run, from_cpu, to_cpu
HAVING sum(moves) > 0
ORDER BY run, from_cpu, to_cpu
