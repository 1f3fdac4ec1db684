-- interference: CPU time other threads took on the allowed CPUs.
--
-- CPU time, in W, on the CPUs in A (the union of all allowed sets) of every
-- thread that is not a target thread and not idle (utid 0). Kernel workers
-- and irq threads count: they are noise for the benchmark too.
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
other_sched AS (
  SELECT s.utid, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
  WHERE s.cpu IN (SELECT cpu FROM allowed)
    AND s.utid != 0
    AND s.utid NOT IN (SELECT utid FROM artscope_target_thread)
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
