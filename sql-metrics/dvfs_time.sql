-- dvfs_time: the target's CPU time in each run window by the frequency its
-- CPU ran at -- for all of the app (the task clock) and for the GC.
--
-- Time is split as gc.sql splits it: the app's CPU time is its threads'
-- sched slices clipped to W (an open last slice ends at its CPU's last
-- recorded event: artscope_cpu_data_end); the GC's is each GC thread's
-- time inside its own GCs (artscope_target_gc, GCs overlapping W, ∩ W) plus
-- all the time of dedicated GC workers ('gc'-role threads other than
-- HeapTaskDaemon); the mutators' is the app's minus the GC's. Each piece of
-- time is then split at its CPU's cpufreq samples (cpu_counter_track
-- 'cpufreq', as frequency.sql reads it): a sample holds until the next one
-- on that CPU; before a CPU's first sample, or while it reads 0 (a polled
-- node it could not read), the frequency is unknown.
--
-- Shape: sched is never range-joined. The app's time is summed per
-- frequency interval of each CPU, with one lookup by `cpu =` and the
-- interval's ts range plus one seek for the slice crossing its start (a
-- CPU's slices follow one another). The GC's few pieces (per-GC lookups by
-- `utid =`, as gc.sql) are merged with the cpufreq samples in one ordered
-- pass per (run, CPU).
--
-- Output columns (one row per run, scope, GC, thread, CPU and frequency):
--   run        run id
--   scope      'app': all the target's CPU time in W; 'gc': the GC's
--              (gc_cpu_ns of gc.sql); 'cpu': the CPU's busy time in W (any
--              thread but the idle task: what the CPU's cluster ran)
--   gc_id      the GC (artscope_target_gc.gc_id) the time was in; NULL for
--              scope 'app' and for a dedicated GC worker's time
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
-- Sched slices with their end (as gc.sql); inlined into the lookups below.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.cpu, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts),
      (SELECT o.end_ts FROM artscope_cpu_data_end o WHERE o.cpu = s.cpu AND o.ts = s.ts),
      trace_end())
    ELSE s.ts + s.dur END AS end_ts
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
-- slice of a dedicated worker in W; numbered (gc_piece_id) to be found
-- again by the samples inside them.
gc_piece AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY run, cpu, p_start) AS gc_piece_id, *
  FROM (
    SELECT g.run, g.gc_id, g.utid, s.cpu, max(s.ts, g.c_start) AS p_start,
      min(s.end_ts, g.c_end) AS p_end
    FROM gc_in_run g
    CROSS JOIN gc_thread_bound b
    JOIN sched_end s ON s.utid = g.utid
      AND s.ts < g.c_end AND s.ts > g.c_start - b.max_dur AND s.end_ts > g.c_start
    UNION ALL
    SELECT r.run, NULL, t.utid, s.cpu, max(s.ts, r.start_ts), min(s.end_ts, r.end_ts)
    FROM artscope_run r
    CROSS JOIN target t
    CROSS JOIN gc_thread_bound b
    JOIN sched_end s ON s.utid = t.utid
      AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur AND s.end_ts > r.start_ts
    WHERE t.is_worker)
  WHERE p_end > p_start
),
-- cpufreq samples (frequency.sql's 'cpufreq' series): each with its value
-- (0: unknown), the previous sample's value on its CPU, and a key that
-- orders them and carries the value (ordinal * 2^24 + kHz).
freq_sample AS MATERIALIZED (
  SELECT t.cpu, c.ts, lead(c.ts) OVER w AS next_ts,
    c.value AS khz, lag(c.value) OVER w AS prev_khz,
    row_number() OVER w * 16777216 + c.value AS key
  FROM counter c JOIN cpu_counter_track t ON t.id = c.track_id
  WHERE t.name = 'cpufreq'
  WINDOW w AS (PARTITION BY t.cpu ORDER BY c.ts, c.id)
),
-- Each CPU's frequency intervals in W: from each sample (or W's start) to
-- the next sample (or W's end), and before the CPU's first sample an
-- interval of unknown frequency (khz NULL).
freq_interval AS MATERIALIZED (
  SELECT r.run, f.cpu, max(f.ts, r.start_ts) AS a, min(coalesce(f.next_ts, r.end_ts), r.end_ts) AS b,
    f.khz
  FROM artscope_run r
  JOIN freq_sample f ON f.ts < r.end_ts AND coalesce(f.next_ts, r.end_ts) > r.start_ts
  UNION ALL
  SELECT r.run, c.cpu, r.start_ts,
    min(coalesce((SELECT min(f.ts) FROM freq_sample f WHERE f.cpu = c.cpu), r.end_ts), r.end_ts),
    NULL
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
),
-- The app's time per frequency interval, and the CPU's busy time (any
-- thread but the idle task): slices on that CPU starting in the interval
-- (clipped at its end), plus the CPU's last slice starting before it (a
-- CPU's slices follow one another: only that one can cross the interval's
-- start; one seek, first within 100 ms as in gc.sql). sched is read by
-- `cpu =` and the interval's ts range, never range-joined; each lookup
-- returns its two sums as one 'app,busy' text.
interval_time AS (
  SELECT i.run, i.cpu, i.khz,
    (SELECT sum(iif(s.utid IN (SELECT utid FROM target), min(s.end_ts, i.b) - s.ts, 0))
            || ',' || sum(iif(s.utid != 0, min(s.end_ts, i.b) - s.ts, 0))
     FROM sched_end s
     WHERE s.cpu = i.cpu AND s.ts >= i.a AND s.ts < i.b) AS starting,
    (SELECT iif(s.utid IN (SELECT utid FROM target), 1, 0) || ','
            || iif(s.utid != 0, max(0, min(s.end_ts, i.b) - i.a), 0)
     FROM sched_end s
     WHERE s.id = coalesce(
       (SELECT p.id FROM sched p
        WHERE p.cpu = i.cpu AND p.ts < i.a AND p.ts >= i.a - 100000000
        ORDER BY p.ts DESC, p.id DESC LIMIT 1),
       (SELECT p.id FROM sched p
        WHERE p.cpu = i.cpu AND p.ts < i.a - 100000000
        ORDER BY p.ts DESC, p.id DESC LIMIT 1))) AS crossing
  FROM freq_interval i
  WHERE i.b > i.a
),
app_in_interval AS (
  SELECT run, cpu, khz,
    coalesce(cast(substr(starting, 1, instr(starting, ',') - 1) AS INT), 0)
      + coalesce(cast(substr(crossing, 1, 1) AS INT)
                 * cast(substr(crossing, 3) AS INT), 0) AS app_ns,
    coalesce(cast(substr(starting, instr(starting, ',') + 1) AS INT), 0)
      + coalesce(cast(substr(crossing, 3) AS INT), 0) AS busy_ns
  FROM interval_time
),
-- The GC's time by frequency: one ordered pass per (run, CPU) over the GC
-- pieces and the samples that can reach W. Every row learns the last
-- sample at or before it (its key), the end of the last piece starting
-- before it and that piece (samples sort first at equal times: a sample at
-- a piece's start holds for the piece, one at its end is outside it).
event AS (
  SELECT run, cpu, p_start AS ts, 1 AS kind, p_end, gc_piece_id,
    NULL AS key, NULL AS khz, NULL AS prev_khz
  FROM gc_piece
  UNION ALL
  SELECT r.run, f.cpu, f.ts, 0, NULL, NULL, f.key, f.khz, f.prev_khz
  FROM artscope_run r
  JOIN freq_sample f ON f.ts < r.end_ts AND coalesce(f.next_ts, r.end_ts) >= r.start_ts
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
-- A piece [s, e) at frequency v0 from s with samples t1 < ... < tm inside
-- it (values v1 ... vm) spends t1 - s at v0, t2 - t1 at v1, ..., e - tm at
-- vm: the same as e - s at v0, plus e - tj at vj and minus e - tj at v(j-1)
-- for each sample inside. So a piece row adds its length at the last
-- sample's value; a sample row inside a piece adds e - tj at its value and
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
),
at_frequency AS (
  SELECT run, 'app' AS scope, NULL AS gc_id, NULL AS utid, cpu, khz, app_ns AS ns
  FROM app_in_interval
  UNION ALL
  SELECT run, 'cpu', NULL, NULL, cpu, khz, busy_ns
  FROM app_in_interval
  UNION ALL
  SELECT g.run, 'gc', g.gc_id, g.utid, g.cpu, p.khz, p.ns
  FROM gc_part p JOIN gc_piece g USING (gc_piece_id)
)
SELECT run, scope, gc_id, utid, cpu, iif(khz > 0, khz, NULL) AS freq_khz, sum(ns) AS ns
FROM at_frequency
GROUP BY run, scope, gc_id, utid, cpu, iif(khz > 0, khz, NULL)
HAVING sum(ns) != 0
ORDER BY run, scope, gc_id, utid, cpu, freq_khz
