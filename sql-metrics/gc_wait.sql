-- gc_wait: the target app's mutator threads waiting for a running GC.
--
-- ART's Heap::WaitForGcToCompleteLocked traces `GC: Wait For Completion`
-- (newer ART appends the waiter's GC cause) on a thread that must wait for
-- the running collection before it may go on (allocate, run its own GC).
-- Only threads of role 'mutator' count (the GC daemon waiting for a GC is
-- not the app waiting). An open slice (dur -1) runs to trace_end(). One row
-- per run and wait slice overlapping W.
--
-- Output columns:
--   run             run id
--   slice_id        the wait slice's id
--   ts              wait start (absolute trace ns)
--   dur             wait length (ns)
--   clipped_ts      start of the wait ∩ W
--   clipped_end_ts  end of the wait ∩ W
--   utid, tid       the waiting thread
--   thread_name     its name
--   is_main_thread  it is its process's main thread (tid = pid)
--
-- Column types: run LONG, slice_id LONG, ts TIMESTAMP, dur DURATION,
--   clipped_ts TIMESTAMP, clipped_end_ts TIMESTAMP, utid LONG, tid LONG,
--   thread_name STRING, is_main_thread BOOL
WITH
mutator_track AS MATERIALIZED (
  SELECT tt.id AS track_id, tt.utid
  FROM thread_track tt
  WHERE tt.utid IN (SELECT utid FROM artscope_target_thread WHERE role = 'mutator')
),
-- Found by the slice table alone (track IN, name), then given their thread.
gc_wait_row AS MATERIALIZED (
  SELECT s.id AS slice_id, s.ts, iif(s.dur = -1, trace_end(), s.ts + s.dur) AS end_ts,
    s.track_id
  FROM slice s
  WHERE s.track_id IN (SELECT track_id FROM mutator_track)
    AND s.name GLOB 'GC: Wait For Completion*'
),
gc_wait AS MATERIALIZED (
  SELECT w.slice_id, w.ts, w.end_ts, tk.utid
  FROM gc_wait_row w JOIN mutator_track tk USING (track_id)
)
SELECT r.run, w.slice_id, w.ts, w.end_ts - w.ts AS dur,
  max(w.ts, r.start_ts) AS clipped_ts, min(w.end_ts, r.end_ts) AS clipped_end_ts,
  w.utid, th.tid, th.name AS thread_name,
  coalesce(th.tid = p.pid, 0) AS is_main_thread
FROM gc_wait w
JOIN artscope_run r ON w.ts < r.end_ts AND w.end_ts > r.start_ts
JOIN thread th ON th.utid = w.utid
LEFT JOIN process p ON p.upid = th.upid
ORDER BY r.run, w.ts, w.slice_id
