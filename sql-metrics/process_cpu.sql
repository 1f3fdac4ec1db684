-- process_cpu: CPU time per process over the whole trace, biggest first
-- (used to suggest --app names when the asked-for app is not in the trace).
--
-- Output columns:
--   upid, pid, name   the process
--   main_thread_name  its main thread's name (a hint when name is NULL)
--   cpu_ns            total sched time of its threads (closed slices)
--
-- Column types: upid LONG, pid LONG, name STRING, main_thread_name STRING,
--   cpu_ns DURATION
WITH
-- Each process thread's CPU time: one lookup per thread (utid =, dur > 0,
-- which the engine filters) summing dur alone, no other column read per
-- row and no sorter over the sched rows.
thread_cpu AS MATERIALIZED (
  SELECT th.upid, (SELECT sum(s.dur) FROM sched s WHERE s.utid = th.utid AND s.dur > 0) AS cpu_ns
  FROM thread th
  WHERE th.utid != 0 AND th.upid IS NOT NULL
)
SELECT p.upid, p.pid, p.name,
  (SELECT m.name FROM thread m WHERE m.upid = p.upid AND m.tid = p.pid) AS main_thread_name,
  sum(c.cpu_ns) AS cpu_ns
FROM process p
JOIN thread_cpu c ON c.upid = p.upid
WHERE c.cpu_ns IS NOT NULL
GROUP BY p.upid
ORDER BY cpu_ns DESC, p.name
LIMIT 10
