-- interference: CPU time other threads took on the allowed CPUs.
--
-- CPU time, in W, on the CPUs in A (the union of all allowed sets) of every
-- thread that is not a target thread and not idle (utid 0). Kernel workers
-- and irq threads count: they are noise for the benchmark too.
--
-- Shape: the other threads' rows are read by `cpu IN` and utid ranges that
-- trace_processor filters itself: the utids between the target's ranges
-- (target_utid_range) need no per-row check, only those inside a range
-- that also holds other threads are checked against the target threads.
--
-- Output columns (one row per run and interfering thread):
--   run, utid, tid, thread_name
--   upid, pid, process_name   the thread's process (NULL when unknown)
--   cpu_ns                    its CPU time on A within W
--
-- Column types: run LONG, utid LONG, tid LONG, thread_name STRING, upid LONG,
--   pid LONG, process_name STRING, cpu_ns DURATION
WITH
allowed AS (SELECT DISTINCT cpu FROM artscope_allowed_cpu),
-- the utids outside the target's ranges, as exclusive bounds (after, before)
utid_gap AS MATERIALIZED (
  SELECT coalesce(lag(hi) OVER (ORDER BY lo), 0) AS after, lo AS before FROM target_utid_range
  UNION ALL
  SELECT coalesce((SELECT max(hi) FROM target_utid_range), 0), 9223372036854775807
),
-- the other threads' slices on A: those between the target's ranges, and
-- those of other threads inside a range that is not pure
other_slice AS (
  SELECT s.utid, s.cpu, s.ts, s.dur
  FROM utid_gap g CROSS JOIN sched s
  WHERE s.cpu IN (SELECT cpu FROM allowed) AND s.utid > g.after AND s.utid < g.before
  UNION ALL
  SELECT s.utid, s.cpu, s.ts, s.dur
  FROM target_utid_range u CROSS JOIN sched s
  WHERE NOT u.pure AND s.cpu IN (SELECT cpu FROM allowed)
    AND s.utid >= u.lo AND s.utid <= u.hi
    AND s.utid NOT IN (SELECT utid FROM artscope_target_thread)
),
other_sched AS (
  SELECT s.utid, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM other_slice s
),
in_run AS (
  SELECT r.run, s.utid, min(s.end_ts, r.end_ts) - max(s.ts, r.start_ts) AS ns
  FROM other_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
),
-- summed per thread first: the thread and process lookups then run once per
-- thread, not once per slice
per_thread AS (
  SELECT run, utid, sum(ns) AS cpu_ns FROM in_run GROUP BY run, utid
)
SELECT i.run, i.utid, th.tid, th.name AS thread_name, th.upid, p.pid,
  p.name AS process_name, i.cpu_ns
FROM per_thread i
JOIN thread th USING (utid)
LEFT JOIN process p USING (upid)
ORDER BY i.run, i.cpu_ns DESC, i.utid
