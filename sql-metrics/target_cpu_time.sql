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
-- sorter over every sched row of the app was most of the time): slices
-- wholly inside W after the grace period ("interior": nearly all of them)
-- count their whole dur and need no clipping. Per run and target thread,
-- one scalar subquery reads them by `utid =` and a ts range and groups them
-- by cpu: the embedded engine serves those rows already grouped (its
-- (utid, cpu, ts) index: no sorter), trace_processor filters its sorted ts
-- range. Only the few other slices (reaching in from before W, starting in
-- the grace period, running past W's end, open or empty) are clipped one by
-- one, per run. A CPU's slices follow one another (each ends where the next
-- on its CPU starts), so the slices crossing W's start or end are, per CPU,
-- the last one starting before that edge: one seek each, not a pass over
-- every target slice. Each subquery's groups come back packed as one JSON
-- array and are unpacked with json_each.
--
-- The runner computes this once per selection and hands it to the metric
-- files as the input table artscope_target_cpu.
--
-- Output columns (one row per run, utid, cpu the thread ran on in W):
--   run, utid, cpu
--   cpu_ns             CPU time on that CPU in W
--   grace_ns           the part of it before grace_end_ts
--   post_ns            the part from grace_end_ts on
--   post_slices        slices with time from grace_end_ts on
--   first_post_ts      clipped start of the first such slice (NULL if none)
--   last_post_end_ts   clipped end of the last such slice (NULL if none)
--
-- Column types: run LONG, utid LONG, cpu LONG, cpu_ns DURATION, grace_ns
--   DURATION, post_ns DURATION, post_slices LONG, first_post_ts TIMESTAMP,
--   last_post_end_ts TIMESTAMP
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
-- Per (run, thread, CPU), the off-mask quantities as if the CPU were not
-- allowed; they are zeroed below for allowed CPUs. Interior slices (ts in
-- [grace_end_ts, end_ts), dur > 0, ending by end_ts): all their time is in W
-- and after the grace period, so cpu_ns = post_ns = dur, grace_ns = 0 and
-- each is one post-grace slice.
interior AS MATERIALIZED (
  SELECT r.run,
    (SELECT json_group_array(json_array(t.utid, cpu, cpu_ns, 0, cpu_ns,
                                        post_slices, first_post_ts, last_post_end_ts))
     FROM (
       SELECT s.cpu,
         sum(s.dur) AS cpu_ns,
         count(*) AS post_slices,
         min(s.ts) AS first_post_ts,
         max(s.ts + s.dur) AS last_post_end_ts
       FROM sched s
       WHERE s.utid = t.utid
         AND s.ts >= r.grace_end_ts AND s.ts < r.end_ts
         AND s.dur > 0 AND s.ts + s.dur <= r.end_ts
       GROUP BY s.cpu)) AS packed
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT utid FROM target) t
),
-- The other slices, per run, clipped one by one.
boundary AS MATERIALIZED (
  SELECT r.run,
    (SELECT json_group_array(json_array(utid, cpu, cpu_ns, grace_ns, post_ns,
                                        post_slices, first_post_ts, last_post_end_ts))
     FROM (
       SELECT utid, cpu,
         sum(c_end - c_start) AS cpu_ns,
         sum(max(0, min(c_end, r.grace_end_ts) - c_start)) AS grace_ns,
         sum(max(0, c_end - post_start)) AS post_ns,
         sum(c_end > post_start) AS post_slices,
         min(iif(c_end > post_start, post_start, NULL)) AS first_post_ts,
         max(iif(c_end > post_start, c_end, NULL)) AS last_post_end_ts
       FROM (
         SELECT s.utid, s.cpu,
           max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end,
           -- the part of the slice after the grace period starts here
           max(s.ts, r.start_ts, r.grace_end_ts) AS post_start
         FROM (
           -- Every other slice that may overlap W, in four disjoint sets:
           -- reaching in from before W, starting in the grace period,
           -- starting after it and running past W's end, and open or empty
           -- (dur -1: it ends at the next slice on its CPU, else where that
           -- CPU's data ends; dur 0: no time, but its CPU still gets a row).
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
             SELECT s.utid, s.cpu, s.ts, s.dur
             FROM sched_before_edge b JOIN sched s ON s.id = b.id
             WHERE b.run = r.run AND b.at_end
               AND s.utid IN (SELECT utid FROM target)
               AND s.ts >= r.grace_end_ts
               AND s.dur != -1 AND s.ts + s.dur > r.end_ts
             UNION ALL
             SELECT o.value ->> 0, o.value ->> 1, o.value ->> 2, o.value ->> 3
             FROM open_or_empty oe, json_each(oe.slices) o
             WHERE o.value ->> 2 >= r.grace_end_ts AND o.value ->> 2 < r.end_ts) s) s
         WHERE s.end_ts > r.start_ts)
       GROUP BY utid, cpu)) AS packed
  FROM artscope_run r
),
packed_group AS (
  SELECT p.run, g.value FROM interior p, json_each(p.packed) g
  UNION ALL
  SELECT p.run, g.value FROM boundary p, json_each(p.packed) g
)
SELECT run,
  value ->> 0 AS utid,
  value ->> 1 AS cpu,
  sum(value ->> 2) AS cpu_ns,
  sum(value ->> 3) AS grace_ns,
  sum(value ->> 4) AS post_ns,
  sum(value ->> 5) AS post_slices,
  min(value ->> 6) AS first_post_ts,
  max(value ->> 7) AS last_post_end_ts
FROM packed_group
GROUP BY run, utid, cpu
