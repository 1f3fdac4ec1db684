-- dvfs_gc_time: the GC's CPU time in each run window by the frequency its
-- CPU ran at, per GC, thread and CPU.
--
-- The GC's time is gc.sql's gc_cpu_ns: each GC thread's sched slices inside
-- its own GCs (artscope_target_gc, GCs overlapping W, ∩ W; an open slice
-- ends where artscope_cpu_data_end says) plus all the
-- time of dedicated GC workers ('gc'-role threads other than
-- HeapTaskDaemon). Each piece of it is split at its CPU's frequency changes
-- (the cpufreq series of frequency.sql, cpu_counter_track 'cpufreq'): a
-- value holds until the next change on that CPU; before a CPU's first
-- sample, or while it reads 0 (a polled node it could not read), the
-- frequency is unknown.
--
-- Shape: the GC's few pieces come from per-GC lookups by `utid =` and a ts
-- range (as gc.sql) and are merged with the frequency changes in one
-- ordered pass per (run, CPU); sched is never range-joined.
--
-- Output columns (one row per run, GC, thread, CPU and frequency):
--   run        run id
--   scope      'gc' (the rows of dvfs_app_time.sql and dvfs_cpu_busy.sql
--              have the same columns)
--   gc_id      the GC (artscope_target_gc.gc_id) the time was in; NULL for
--              a dedicated GC worker's time
--   utid       the thread that ran
--   cpu        the CPU it ran on
--   freq_khz   the CPU's frequency (kHz, cpufreq); NULL: unknown
--   ns         CPU time at that frequency
--
-- Column types: run LONG, scope STRING, gc_id LONG, utid LONG, cpu LONG,
--   freq_khz DOUBLE, ns DURATION
WITH
target AS MATERIALIZED (
  SELECT t.utid,
    (t.role = 'gc' AND coalesce(th.name, '') != 'HeapTaskDaemon') AS is_worker
  FROM artscope_target_thread t JOIN thread th USING (utid)
),
-- Where each open sched slice ends, read once (the SQL package inlines
-- artscope_cpu_data_end's own query where it is named).
open_end AS MATERIALIZED (
  SELECT cpu, ts, end_ts FROM artscope_cpu_data_end
),
-- Sched slices with their end (an open slice ends where artscope_cpu_data_end
-- says); inlined into the lookups below.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM open_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- GCs overlapping W on threads that are not dedicated workers, clipped to W.
gc_in_run AS MATERIALIZED (
  SELECT r.run, g.gc_id, g.utid, max(g.ts, r.start_ts) AS c_start,
    min(g.end_ts, r.end_ts) AS c_end
  FROM artscope_target_gc g
  JOIN artscope_run r ON g.ts < r.end_ts AND g.end_ts > r.start_ts
  JOIN target t ON t.utid = g.utid AND NOT t.is_worker
),
-- A slice overlapping [a, b) starts after a - max_dur (a lower ts bound).
gc_thread_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT DISTINCT utid FROM gc_in_run)
),
-- The GC's pieces: each GC thread's slices inside its GC (∩ W), and every
-- slice of a dedicated worker in W; numbered (gc_piece_id) in time order
-- per CPU, to be found again by the frequency changes inside them. CROSS
-- JOIN keeps sched the inner loop, looked up per GC / worker (the SQL
-- package's inlined inputs would otherwise let SQLite scan sched first).
gc_piece AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY run, cpu, p_start) AS gc_piece_id, *
  FROM (
    SELECT g.run, g.gc_id, g.utid, s.cpu, max(s.ts, g.c_start) AS p_start,
      min(s.end_ts, g.c_end) AS p_end
    FROM gc_in_run g
    CROSS JOIN gc_thread_bound b
    CROSS JOIN sched_end s ON s.utid = g.utid
      AND s.ts < g.c_end AND s.ts > g.c_start - b.max_dur AND s.end_ts > g.c_start
    UNION ALL
    SELECT r.run, NULL, t.utid, s.cpu, max(s.ts, r.start_ts), min(s.end_ts, r.end_ts)
    FROM artscope_run r
    CROSS JOIN target t
    CROSS JOIN gc_thread_bound b
    CROSS JOIN sched_end s ON s.utid = t.utid
      AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur AND s.end_ts > r.start_ts
    WHERE t.is_worker)
  WHERE p_end > p_start
),
-- The GC's time by frequency: one ordered pass per (run, CPU) over the GC
-- pieces and the frequency changes that can reach W. Every row learns the
-- last change at or before it (its key), the end of the last piece starting
-- before it and that piece (changes sort first at equal times: a change at
-- a piece's start holds for the piece, one at its end is outside it).
event AS (
  SELECT run, cpu, p_start AS ts, 1 AS kind, p_end, gc_piece_id,
    NULL AS key, NULL AS khz, NULL AS prev_khz
  FROM gc_piece
  UNION ALL
  SELECT r.run, f.cpu, f.ts, 0, NULL, NULL, f.key, f.khz, f.prev_khz
  FROM artscope_run r
  JOIN cpufreq_change f ON f.ts < r.end_ts AND coalesce(f.next_ts, r.end_ts) >= r.start_ts
  WHERE f.cpu IN (SELECT cpu FROM gc_piece)
),
swept AS (
  SELECT run, cpu, ts, kind, p_end, gc_piece_id, khz, prev_khz,
    max(key) OVER w AS last_key,
    max(p_end) OVER w AS last_end,
    max(gc_piece_id) OVER w AS last_gc_piece
  FROM event
  WINDOW w AS (PARTITION BY run, cpu ORDER BY ts, kind ROWS UNBOUNDED PRECEDING)
),
-- A piece [s, e) at frequency v0 from s with changes t1 < ... < tm inside
-- it (values v1 ... vm) spends t1 - s at v0, t2 - t1 at v1, ..., e - tm at
-- vm: the same as e - s at v0, plus e - tj at vj and minus e - tj at v(j-1)
-- for each change inside. So a piece row adds its length at the last
-- change's value; a change row inside a piece adds e - tj at its value and
-- takes as much off the previous value.
gc_part AS (
  SELECT gc_piece_id, cast(last_key % 16777216 AS REAL) AS khz, p_end - ts AS ns
  FROM swept WHERE kind = 1
  UNION ALL
  SELECT last_gc_piece, khz, last_end - ts
  FROM swept WHERE kind = 0 AND last_end > ts
  UNION ALL
  SELECT last_gc_piece, prev_khz, ts - last_end
  FROM swept WHERE kind = 0 AND last_end > ts
)
SELECT g.run, 'gc' AS scope, g.gc_id, g.utid, g.cpu, iif(p.khz > 0, p.khz, NULL) AS freq_khz,
  sum(p.ns) AS ns
FROM gc_part p JOIN gc_piece g USING (gc_piece_id)
GROUP BY g.run, g.gc_id, g.utid, g.cpu, iif(p.khz > 0, p.khz, NULL)
HAVING sum(p.ns) != 0
ORDER BY g.run, g.gc_id, g.utid, g.cpu, freq_khz
