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
SELECT p.upid, p.pid, p.name,
  (SELECT m.name FROM thread m WHERE m.upid = p.upid AND m.tid = p.pid) AS main_thread_name,
  sum(s.dur) AS cpu_ns
-- CROSS JOIN fixes the loop order (SQLite keeps it): processes in upid
-- order outermost, so GROUP BY p.upid needs no sorter over the sched rows;
-- each thread's rows are an index lookup (utid =)
FROM process p
CROSS JOIN thread th ON th.upid = p.upid
CROSS JOIN sched s ON s.utid = th.utid
WHERE s.dur > 0 AND s.utid != 0
GROUP BY p.upid
ORDER BY cpu_ns DESC, p.name
LIMIT 10
