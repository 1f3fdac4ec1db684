-- memory_pressure: kswapd's CPU time and the target's I/O waits, per run.
--
-- kswapd (threads named kswapd*, one per memory node) reclaims pages in the
-- background when free memory falls below the low watermark; its CPU time
-- is memory pressure made visible, and on the allowed CPUs it competes with
-- the benchmark. Its sched slices are clipped to W; an open sched slice
-- (dur -1) ends at the next slice on its CPU, else where that CPU's data
-- ends (artscope_cpu_data_end).
--
-- I/O wait: thread_state rows of target threads in uninterruptible sleep
-- ('D', 'DK', ...) whose io_wait is 1 (from sched_blocked_reason: the
-- thread blocked on I/O, e.g. a major page fault re-reading a page that was
-- reclaimed), clipped to W; an open row (dur -1) ends at trace_end().
--
-- Output columns (one row per run):
--   run
--   kswapd_cpu_ns           kswapd's CPU time in W, on any CPU
--   kswapd_allowed_cpu_ns   the part of it on the allowed CPUs (every role)
--   io_wait_ns              target threads' time in W blocked on I/O
--   io_wait_known           1 when any thread_state row has io_wait set
--
-- Column types: run LONG, kswapd_cpu_ns DURATION, kswapd_allowed_cpu_ns
--   DURATION, io_wait_ns DURATION, io_wait_known BOOL
WITH
allowed AS MATERIALIZED (SELECT DISTINCT cpu FROM artscope_allowed_cpu),
kswapd AS MATERIALIZED (
  SELECT utid FROM thread WHERE name GLOB 'kswapd*'
),
-- kswapd runs seldom: its few slices, found with one utid = lookup per
-- kswapd thread, are joined to the runs by time range. CROSS JOIN keeps
-- kswapd the outer loop (SQLite may otherwise scan sched and probe kswapd)
kswapd_slice AS MATERIALIZED (
  SELECT s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM kswapd k CROSS JOIN sched s ON s.utid = k.utid
),
kswapd_in_run AS (
  SELECT r.run, min(k.end_ts, r.end_ts) - max(k.ts, r.start_ts) AS ns,
    (k.cpu IN (SELECT cpu FROM allowed)) AS on_allowed
  FROM kswapd_slice k
  JOIN artscope_run r ON k.ts < r.end_ts AND k.end_ts > r.start_ts
),
-- io_wait = 1 is rare: one pass over thread_state filtered on it alone (an
-- equality both engines answer fast), then the state and the target's threads
io_wait_state AS MATERIALIZED (
  SELECT ts.utid, ts.ts, iif(ts.dur = -1, trace_end(), ts.ts + ts.dur) AS end_ts, ts.state
  FROM thread_state ts
  WHERE ts.io_wait = 1
),
io_wait_in_run AS (
  SELECT r.run, min(w.end_ts, r.end_ts) - max(w.ts, r.start_ts) AS ns
  FROM io_wait_state w
  JOIN artscope_target_thread t USING (utid)
  JOIN artscope_run r ON w.ts < r.end_ts AND w.end_ts > r.start_ts
  WHERE w.state GLOB 'D*'
)
SELECT r.run,
  coalesce((SELECT sum(ns) FROM kswapd_in_run k WHERE k.run = r.run), 0) AS kswapd_cpu_ns,
  coalesce((SELECT sum(ns) FROM kswapd_in_run k WHERE k.run = r.run AND k.on_allowed), 0)
    AS kswapd_allowed_cpu_ns,
  coalesce((SELECT sum(ns) FROM io_wait_in_run w WHERE w.run = r.run), 0) AS io_wait_ns,
  EXISTS (SELECT 1 FROM thread_state WHERE io_wait = 0 OR io_wait = 1) AS io_wait_known
FROM artscope_run r
ORDER BY r.run
