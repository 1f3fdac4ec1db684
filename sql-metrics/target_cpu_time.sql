-- target_cpu_time: where the target threads ran in each run, per run, thread and
-- CPU: their CPU time in W, split at the --pin-grace period, and the
-- slices with time after it. pinning.sql classifies these rows by the
-- allowed CPUs; gc.sql sums them into each thread's CPU time (the task
-- clock). One pass over the target's sched rows for both.
--
-- A slice's time is its overlap with W (an open slice, dur -1, ends where
-- its CPU's data ends: artscope_cpu_data_end); grace time is the part before
-- grace_end_ts, post-grace time the rest.
--
-- Shape (trace_processor's tables have no indexes of ours, and SQLite's
-- per-row work over every sched row of the app was most of the time):
-- slices starting in W after the grace period with time ("interior":
-- nearly all of them) count their whole dur. Per run, target thread and
-- CPU, one lookup by `utid =`, `cpu =`, a ts range and `dur > 0` sums
-- them, reading no other column per row (trace_processor filters those
-- constraints itself; the embedded engine serves them from its (utid, cpu,
-- ts) index), and two seeks find the first and the last. A CPU's slices
-- follow one another (each ends where the next on its CPU starts), so the
-- slices crossing W's start or end are, per CPU, the last one starting
-- before that edge: one seek each, not a pass over every target slice.
-- The one crossing W's end is in the interior; its part after W's end is
-- taken off. Only the few other slices (reaching in from before W,
-- starting in the grace period, open or empty) are clipped one by one, per
-- run, packed as one JSON array and unpacked with json_each.
--
-- The runner computes this once per selection and hands it to the metric
-- files as the input table artscope_target_cpu.
--
-- Output columns (one row per run, utid, cpu the thread ran on in W):
--   run, utid, cpu
--   cpu_ns             CPU time on that CPU in W
--   slices             its slices with time in W
--   grace_ns           the part of it before grace_end_ts
--   post_ns            the part from grace_end_ts on
--   post_slices        slices with time from grace_end_ts on
--   first_post_ts      clipped start of the first such slice (NULL if none)
--   last_post_end_ts   clipped end of the last such slice (NULL if none)
--
-- Column types: run LONG, utid LONG, cpu LONG, cpu_ns DURATION, slices LONG,
--   grace_ns DURATION, post_ns DURATION, post_slices LONG, first_post_ts
--   TIMESTAMP, last_post_end_ts TIMESTAMP
WITH
target AS MATERIALIZED (
  SELECT DISTINCT utid FROM artscope_target_thread
),
-- Per run, CPU and edge of W (its start, its end), the last sched slice
-- starting before that edge: the only slice of that CPU that can cross it.
-- One seek each: first within 100 ms before the edge (on trace_processor a
-- short ts range to filter), else anywhere before.
sched_before_edge AS MATERIALIZED (
  SELECT e.run, e.at_end, coalesce(
    (SELECT s.id FROM sched s
     WHERE s.cpu = c.cpu AND s.ts < e.at AND s.ts >= e.at - 100000000
     ORDER BY s.ts DESC, s.id DESC LIMIT 1),
    (SELECT s.id FROM sched s
     WHERE s.cpu = c.cpu AND s.ts < e.at - 100000000
     ORDER BY s.ts DESC, s.id DESC LIMIT 1)) AS id
  FROM (SELECT run, 0 AS at_end, start_ts AS at FROM artscope_run
        UNION ALL
        SELECT run, 1, end_ts FROM artscope_run) e
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
),
-- The open (dur -1) and empty (dur 0) target slices, few, packed as JSON
-- [utid, cpu, ts, dur] for the per-run clipping below: one lean pass over
-- the target slices (the interior reads only slices with time).
open_or_empty AS MATERIALIZED (
  SELECT json_group_array(json_array(s.utid, s.cpu, s.ts, s.dur)) AS slices
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM target) AND s.dur <= 0
),
-- Per (run, thread, CPU), the slices with time starting in W after the
-- grace period (ts in [grace_end_ts, end_ts), dur > 0): all their time is
-- after the grace period, so grace_ns = 0 and each is one post-grace
-- slice. The one running past W's end (a CPU's last before it) counts its
-- whole dur here and its part after W's end is taken off below
-- (past_end); the end of the last slice is clipped at W's end. Per
-- (thread, CPU) one lookup sums the rows (the only columns read per row
-- are dur and the constraints trace_processor filters itself) and two
-- seeks find the first slice and the last.
interior_sum AS MATERIALIZED (
  SELECT r.run, t.utid, c.cpu, r.grace_end_ts, r.end_ts,
    (SELECT sum(s.dur) || ',' || count(*) FROM sched s
     WHERE s.utid = t.utid AND s.cpu = c.cpu
       AND s.ts >= r.grace_end_ts AND s.ts < r.end_ts AND s.dur > 0) AS sum_count
  FROM artscope_run r
  CROSS JOIN target t
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
),
interior_total AS (
  SELECT run, utid, cpu, grace_end_ts, end_ts,
    cast(substr(sum_count, 1, instr(sum_count, ',') - 1) AS INT) AS cpu_ns,
    cast(substr(sum_count, instr(sum_count, ',') + 1) AS INT) AS slices
  FROM interior_sum
  WHERE sum_count IS NOT NULL
),
interior AS (
  SELECT i.run, json_array(i.utid, i.cpu, i.cpu_ns, 0, i.cpu_ns, i.slices,
    (SELECT s.ts FROM sched s
     WHERE s.utid = i.utid AND s.cpu = i.cpu
       AND s.ts >= i.grace_end_ts AND s.ts < i.end_ts AND s.dur > 0
     ORDER BY s.ts LIMIT 1),
    (SELECT min(s.ts + s.dur, i.end_ts) FROM sched s
     WHERE s.utid = i.utid AND s.cpu = i.cpu
       AND s.ts >= i.grace_end_ts AND s.ts < i.end_ts AND s.dur > 0
     ORDER BY s.ts DESC LIMIT 1), i.slices) AS value
  FROM interior_total i
),
-- The other slices, per run, clipped one by one.
boundary AS MATERIALIZED (
  SELECT r.run,
    (SELECT json_group_array(json_array(utid, cpu, cpu_ns, grace_ns, post_ns,
                                        post_slices, first_post_ts, last_post_end_ts,
                                        slices))
     FROM (
       SELECT utid, cpu,
         sum(c_end - c_start) AS cpu_ns,
         sum(max(0, min(c_end, r.grace_end_ts) - c_start)) AS grace_ns,
         sum(max(0, c_end - post_start)) AS post_ns,
         sum(c_end > post_start) AS post_slices,
         min(iif(c_end > post_start, post_start, NULL)) AS first_post_ts,
         max(iif(c_end > post_start, c_end, NULL)) AS last_post_end_ts,
         sum(c_end > c_start) AS slices
       FROM (
         SELECT s.utid, s.cpu,
           max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end,
           -- the part of the slice after the grace period starts here
           max(s.ts, r.start_ts, r.grace_end_ts) AS post_start
         FROM (
           -- Every other slice that may overlap W, in three disjoint sets:
           -- reaching in from before W, starting in the grace period, and
           -- open or empty (dur -1: it ends at the next slice on its CPU,
           -- else where that CPU's data ends; dur 0: no time, but its CPU
           -- still gets a row).
           SELECT s.utid, s.cpu, s.ts,
             iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                              WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
           FROM (
             SELECT s.utid, s.cpu, s.ts, s.dur
             FROM sched_before_edge b JOIN sched s ON s.id = b.id
             WHERE b.run = r.run AND NOT b.at_end
               AND s.utid IN (SELECT utid FROM target)
             UNION ALL
             SELECT s.utid, s.cpu, s.ts, s.dur FROM sched s
             WHERE s.utid IN (SELECT utid FROM target)
               AND s.ts >= r.start_ts AND s.ts < r.grace_end_ts AND s.ts < r.end_ts
             UNION ALL
             SELECT o.value ->> 0, o.value ->> 1, o.value ->> 2, o.value ->> 3
             FROM open_or_empty oe, json_each(oe.slices) o
             WHERE o.value ->> 2 >= r.grace_end_ts AND o.value ->> 2 < r.end_ts) s) s
         WHERE s.end_ts > r.start_ts)
       GROUP BY utid, cpu)) AS packed
  FROM artscope_run r
),
-- The part after W's end of the slice running past it, which interior
-- counted whole: taken off its CPU time (one per CPU at most: its last
-- slice starting before W's end).
past_end AS (
  SELECT r.run, json_array(s.utid, s.cpu, r.end_ts - s.ts - s.dur, 0,
                           r.end_ts - s.ts - s.dur, 0, NULL, NULL, 0) AS value
  FROM sched_before_edge b
  JOIN artscope_run r ON r.run = b.run
  JOIN sched s ON s.id = b.id
  WHERE b.at_end AND s.utid IN (SELECT utid FROM target)
    AND s.ts >= r.grace_end_ts AND s.dur > 0 AND s.ts + s.dur > r.end_ts
),
packed_group AS (
  SELECT run, value FROM interior
  UNION ALL
  SELECT run, value FROM past_end
  UNION ALL
  SELECT p.run, g.value FROM boundary p, json_each(p.packed) g
)
SELECT run,
  value ->> 0 AS utid,
  value ->> 1 AS cpu,
  sum(value ->> 2) AS cpu_ns,
  sum(value ->> 8) AS slices,
  sum(value ->> 3) AS grace_ns,
  sum(value ->> 4) AS post_ns,
  sum(value ->> 5) AS post_slices,
  min(value ->> 6) AS first_post_ts,
  max(value ->> 7) AS last_post_end_ts
FROM packed_group
GROUP BY run, utid, cpu
