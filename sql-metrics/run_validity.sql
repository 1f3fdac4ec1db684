-- run_validity: per run, the facts that decide whether the run was a valid
-- benchmark invocation (ISMM'24 §3.4: every invocation starts the app fresh;
-- Tables 4/6: a run whose app died or ran out of memory did not finish), and
-- how much of the app's CPU went to ART's JIT compiler.
--
-- The run's process is the target process alive at W's start (its start not
-- after W's end, its end not before W's start; the earliest such, a process
-- whose start the trace does not know first). A kill or an
-- OutOfMemoryError counts when it happened in [W's start, W's end], its end
-- included: a window can end where the killed app's process ended; the
-- first exit in that span is listed too (artscope/metrics/validity.py counts
-- an exit only before W's end: at it, a process window saw its app finish).
--   * exit: a target process's end (sched_process_free of its main thread)
--   * kill: a SIGKILL (9) generated for a target thread (ftrace
--     signal/signal_generate, an instant `signal_generate` with arg
--     `signal.sig` on the signalled thread's track)
--   * OutOfMemoryError: ART's `OutOfMemoryError` slice on the throwing thread
--     (Thread::ThrowOutOfMemoryError's ScopedTrace, atrace category dalvik),
--     or a logcat line of a target thread that names it (ART's "Throwing
--     OutOfMemoryError ...", AndroidRuntime's fatal exception)
-- JIT CPU = all CPU in W (a thread's CPU time as in gc.sql: sched slices
-- clipped to W, an open last slice ending where its CPU's data ends) of
-- target threads named `Jit thread pool*` (the
-- JIT's worker: "Jit thread pool worker thread 0", 15 characters in the
-- kernel's comm) plus the CPU of other target threads inside their
-- `JIT compiling <method> (kind=...)` slices (JitCompiler::CompileMethod)
-- in W.
--
-- Output columns (one row per run):
--   run                run id
--   upid               the run's process (NULL: no target process overlaps W)
--   pid                its pid
--   process_start_ts   when it started (NULL: the trace does not know)
--   trace_start_ts     the trace's start (a process whose start the trace
--                      does not record existed by then)
--   exit_ts            first end of a target process in W (NULL: none)
--   exit_pid           that process's pid
--   kill_ts            first SIGKILL of a target thread in W (NULL: none)
--   kill_tid           the thread it was sent to
--   oom_ts             first OutOfMemoryError of a target thread in W (NULL: none)
--   oom_tid            the thread that threw or logged it
--   oom_source         'slice' (ART's trace slice) | 'log' (logcat)
--   jit_cpu_ns         CPU time in W of JIT threads and JIT compile slices
--   jit_threads        target threads named `Jit thread pool*`
--   jit_compiles       `JIT compiling` slices of target threads starting in W
--
-- Column types: run LONG, upid LONG, pid LONG, process_start_ts TIMESTAMP,
--   trace_start_ts TIMESTAMP, exit_ts TIMESTAMP, exit_pid LONG,
--   kill_ts TIMESTAMP, kill_tid LONG, oom_ts TIMESTAMP, oom_tid LONG,
--   oom_source STRING, jit_cpu_ns DURATION, jit_threads LONG, jit_compiles LONG
WITH
target_thread AS MATERIALIZED (
  SELECT t.utid, th.tid, coalesce(th.name, '') GLOB 'Jit thread pool*' AS is_jit_pool
  FROM artscope_target_thread t JOIN thread th USING (utid)
),
target_process AS MATERIALIZED (
  SELECT p.upid, p.pid, p.start_ts, p.end_ts
  FROM artscope_target_process tp JOIN process p USING (upid)
),
run_process AS (
  SELECT r.run, (
    SELECT p.upid FROM target_process p
    WHERE (p.start_ts IS NULL OR p.start_ts <= r.end_ts)
      AND (p.end_ts IS NULL OR p.end_ts >= r.start_ts)
    ORDER BY p.start_ts IS NOT NULL, p.start_ts, p.upid
    LIMIT 1) AS upid
  FROM artscope_run r
),
exit_in_run AS (
  SELECT r.run, p.end_ts AS ts, p.pid,
    row_number() OVER (PARTITION BY r.run ORDER BY p.end_ts, p.upid) AS nth
  FROM artscope_run r
  JOIN target_process p ON p.end_ts BETWEEN r.start_ts AND r.end_ts
),
target_track AS MATERIALIZED (
  SELECT tt.id AS track_id, t.utid, t.tid, t.is_jit_pool
  FROM thread_track tt JOIN target_thread t USING (utid)
),
sigkill AS MATERIALIZED (
  SELECT s.ts, tk.tid
  FROM slice s
  JOIN target_track tk USING (track_id)
  JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key = 'signal.sig'
  WHERE s.name = 'signal_generate' AND a.int_value = 9
),
oom AS MATERIALIZED (
  SELECT s.ts, tk.tid, 'slice' AS source
  FROM slice s JOIN target_track tk USING (track_id)
  WHERE s.name = 'OutOfMemoryError'
  UNION ALL
  SELECT l.ts, t.tid, 'log' AS source
  FROM android_logs l JOIN target_thread t ON t.utid = l.utid
  WHERE l.msg GLOB '*OutOfMemoryError*'
),
kill_in_run AS (
  SELECT r.run, k.ts, k.tid,
    row_number() OVER (PARTITION BY r.run ORDER BY k.ts, k.tid) AS nth
  FROM artscope_run r JOIN sigkill k ON k.ts BETWEEN r.start_ts AND r.end_ts
),
oom_in_run AS (
  SELECT r.run, o.ts, o.tid, o.source,
    row_number() OVER (PARTITION BY r.run ORDER BY o.ts, o.source DESC, o.tid) AS nth
  FROM artscope_run r JOIN oom o ON o.ts BETWEEN r.start_ts AND r.end_ts
),
-- JIT compile slices of target threads (any depth), their open end at trace_end()
jit_slice AS MATERIALIZED (
  SELECT tk.utid, tk.is_jit_pool, s.ts,
    iif(s.dur = -1, trace_end(), s.ts + s.dur) AS end_ts
  FROM slice s JOIN target_track tk USING (track_id)
  WHERE s.name GLOB 'JIT compiling *'
),
-- What counts as JIT CPU, per run: all of W on a JIT pool thread; a compile
-- slice clipped to W on any other target thread
jit_interval AS MATERIALIZED (
  SELECT r.run, t.utid, r.start_ts AS c_start, r.end_ts AS c_end
  FROM artscope_run r CROSS JOIN target_thread t
  WHERE t.is_jit_pool
  UNION ALL
  SELECT r.run, j.utid, max(j.ts, r.start_ts) AS c_start, min(j.end_ts, r.end_ts) AS c_end
  FROM jit_slice j JOIN artscope_run r ON j.ts < r.end_ts AND j.end_ts > r.start_ts
  WHERE NOT j.is_jit_pool
),
-- Sched slices with their end (an open slice, dur -1, ends at the next slice
-- on its CPU, else where its CPU's data ends: artscope_cpu_data_end); inlined
-- into the lookup below so its `utid =` and ts bounds reach sched.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- The longest sched slice of a thread with a JIT interval: a slice
-- overlapping [a, b) starts after a - max_dur (a pass over those threads only).
jit_thread_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT DISTINCT utid FROM jit_interval)
),
jit_cpu AS (
  SELECT j.run,
    sum((SELECT sum(max(0, min(s.end_ts, j.c_end) - max(s.ts, j.c_start)))
         FROM sched_end s
         WHERE s.utid = j.utid
           AND s.ts < j.c_end AND s.ts > j.c_start - b.max_dur
           AND s.end_ts > j.c_start)) AS ns
  FROM jit_interval j CROSS JOIN jit_thread_bound b
  WHERE j.c_end > j.c_start
  GROUP BY j.run
),
jit_compiles AS (
  SELECT r.run, count(*) AS n
  FROM jit_slice j JOIN artscope_run r ON j.ts >= r.start_ts AND j.ts < r.end_ts
  GROUP BY r.run
)
SELECT r.run, rp.upid, p.pid, p.start_ts AS process_start_ts,
  trace_start() AS trace_start_ts,
  e.ts AS exit_ts, e.pid AS exit_pid,
  k.ts AS kill_ts, k.tid AS kill_tid,
  o.ts AS oom_ts, o.tid AS oom_tid, o.source AS oom_source,
  coalesce(c.ns, 0) AS jit_cpu_ns,
  (SELECT count(*) FROM target_thread WHERE is_jit_pool) AS jit_threads,
  coalesce(n.n, 0) AS jit_compiles
FROM artscope_run r
JOIN run_process rp USING (run)
LEFT JOIN target_process p ON p.upid = rp.upid
LEFT JOIN exit_in_run e ON e.run = r.run AND e.nth = 1
LEFT JOIN kill_in_run k ON k.run = r.run AND k.nth = 1
LEFT JOIN oom_in_run o ON o.run = r.run AND o.nth = 1
LEFT JOIN jit_cpu c ON c.run = r.run
LEFT JOIN jit_compiles n ON n.run = r.run
ORDER BY r.run
