-- process_lifetime: when each target process started and when it ended, as
-- the trace shows it (the default run window is the app's lifetime).
--
-- A process ended when its main thread (tid = pid) did; the earliest of
-- these shows that:
--   'exit'          ftrace sched/sched_process_exit of the main thread (the
--                   kernel's do_exit writes it as the task exits)
--   'dead_state'    the main thread's last sched slice ends in state X
--                   (dead) or Z (zombie): it never ran again
--   'process_free'  trace_processor's thread end (sched/sched_process_free,
--                   when the kernel frees the task; later than its exit)
-- Its other threads may run a moment longer while the process dies:
-- last_run_end_ts is the end of the last sched slice of any of its threads.
-- A kill (lmkd, the OOM killer) is read from memory_kills.sql.
--
-- Output columns (one row per target process):
--   upid, pid
--   start_ts         when it started (process.start_ts; NULL when unknown)
--   main_end_ts      when its main thread ended, earliest evidence (NULL:
--                    the trace shows no end)
--   main_end_source  'exit' | 'dead_state' | 'process_free' (NULL with
--                    main_end_ts)
--   last_run_end_ts  end of the last sched slice of any of its threads
--                    (NULL without sched data; a slice still open at the
--                    trace's end ends where its CPU's data ends,
--                    artscope_cpu_data_end)
--
-- Column types: upid LONG, pid LONG, start_ts TIMESTAMP, main_end_ts TIMESTAMP,
--   main_end_source STRING, last_run_end_ts TIMESTAMP
WITH
target_thread AS MATERIALIZED (
  SELECT t.utid, t.upid, t.end_ts AS free_ts, t.tid = p.pid AS is_main
  FROM thread t JOIN process p USING (upid)
  WHERE t.upid IN (SELECT upid FROM artscope_target_process)
),
-- each thread's last sched slice (one seek per thread by utid)
last_slice AS MATERIALIZED (
  SELECT tt.utid, tt.upid, tt.is_main, tt.free_ts,
    (SELECT s.id FROM sched s WHERE s.utid = tt.utid ORDER BY s.ts DESC LIMIT 1) AS id
  FROM target_thread tt
),
-- the exits of the trace (few), in one pass by event name
process_exit AS MATERIALIZED (
  SELECT e.utid, min(e.ts) AS ts FROM ftrace_event e
  WHERE e.name = 'sched_process_exit' GROUP BY e.utid
),
thread_end AS (
  SELECT l.utid, l.upid, l.is_main, l.free_ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS run_end_ts,
    iif(s.end_state IN ('X', 'Z') AND s.dur >= 0, s.ts + s.dur, NULL) AS dead_ts,
    x.ts AS exit_ts
  FROM last_slice l
  LEFT JOIN sched s ON s.id = l.id
  LEFT JOIN process_exit x ON x.utid = l.utid
),
main_end AS (
  -- the earliest of the three that are known (SQLite's min() of a row is
  -- NULL when any argument is: each argument falls back on the others)
  SELECT upid,
    min(coalesce(exit_ts, dead_ts, free_ts), coalesce(dead_ts, free_ts, exit_ts),
        coalesce(free_ts, exit_ts, dead_ts)) AS ts,
    exit_ts, dead_ts, free_ts
  FROM thread_end WHERE is_main
)
SELECT p.upid, p.pid, p.start_ts, m.ts AS main_end_ts,
  CASE WHEN m.ts IS NULL THEN NULL WHEN m.ts = m.exit_ts THEN 'exit'
       WHEN m.ts = m.dead_ts THEN 'dead_state' ELSE 'process_free' END AS main_end_source,
  (SELECT max(te.run_end_ts) FROM thread_end te WHERE te.upid = p.upid) AS last_run_end_ts
FROM process p
LEFT JOIN main_end m USING (upid)
WHERE p.upid IN (SELECT upid FROM artscope_target_process)
ORDER BY p.upid
