-- gc_slices: every garbage collection of the target app, on any of its
-- threads, at any depth -- the one GC set every GC metric reads.
--
-- ART opens one slice per collection, "<cause> <collector> GC"
-- (GarbageCollector::Run), on the thread that runs it: HeapTaskDaemon for
-- background collections, the allocating thread itself when it cannot
-- allocate (Alloc / NativeAlloc GCs, an explicit System.gc()), inside
-- whatever slice that thread has open (Choreographer#doFrame, inflate, a
-- benchmark marker). A GC is the outermost slice on a target thread whose
-- name GLOBs one of artscope_gc_pattern (a matching slice inside another on
-- the same thread is part of it). As in Perfetto's android.garbage_collection
-- module, a CompactionPhase slice directly following it on the same thread
-- (the next slice at its depth, same parent) extends it by its duration. A
-- GC still open at the trace end (its slice or that CompactionPhase) runs to
-- trace_end().
--
-- The runner computes this once per selection and hands it to the metric
-- files as the input table artscope_target_gc.
--
-- Output columns:
--   gc_id         slice id of the GC slice
--   utid, upid    the thread that ran it and its process
--   track_id      that thread's track
--   depth         the GC slice's depth (> 0: nested in another slice)
--   ts            GC start (absolute trace ns)
--   end_ts        GC end: ts + its dur + a following CompactionPhase's dur
--   name          the GC slice's name
--   foreground    run by a mutator (the allocating thread stopped for it),
--                 not by HeapTaskDaemon or a GC worker ('gc'-role threads)
--   is_main_thread  that thread is its process's main thread (tid = pid)
--   unfinished    the GC slice or its CompactionPhase was still open at the
--                 trace end
--   has_phases    the GC slice holds nested slices (ART's TimingLogger
--                 phases: without them its pauses cannot be known)
--
-- Column types: gc_id LONG, utid LONG, upid LONG, track_id LONG, depth LONG,
--   ts TIMESTAMP, end_ts TIMESTAMP, name STRING, foreground BOOL,
--   is_main_thread BOOL, unfinished BOOL, has_phases BOOL
WITH
target_track AS MATERIALIZED (
  SELECT tt.id AS track_id, tt.utid, th.upid, t.role,
    coalesce(th.tid = p.pid, 0) AS is_main_thread
  FROM thread_track tt
  JOIN artscope_target_thread t ON t.utid = tt.utid
  JOIN thread th ON th.utid = tt.utid
  LEFT JOIN process p ON p.upid = th.upid
),
-- Slices of target threads named like a GC, at any depth: found by the
-- slice table alone (track IN, name), then given their thread.
gc_named AS MATERIALIZED (
  SELECT s.id, s.ts, s.dur, s.depth, s.parent_id, s.track_id, s.name
  FROM slice s
  WHERE s.track_id IN (SELECT track_id FROM target_track)
    AND EXISTS (SELECT 1 FROM artscope_gc_pattern p WHERE s.name GLOB p.pattern)
),
-- The outermost ones: no GC-named slice of the same thread encloses them.
outermost AS MATERIALIZED (
  SELECT g.* FROM gc_named g
  WHERE NOT EXISTS (
    SELECT 1 FROM gc_named a
    WHERE a.track_id = g.track_id AND a.depth < g.depth AND a.ts <= g.ts
      AND (a.dur = -1 OR a.ts + a.dur >= g.ts + max(g.dur, 0)))
),
-- The next slice at the GC's depth on its track (one seek per GC): a
-- CompactionPhase under the same parent extends the GC.
with_next AS (
  SELECT g.*,
    (SELECT n.id FROM slice n
     WHERE n.track_id = g.track_id AND n.depth = g.depth
       AND n.ts >= g.ts AND (n.ts > g.ts OR n.id > g.id)
     ORDER BY n.ts, n.id
     LIMIT 1) AS next_id,
    EXISTS (SELECT 1 FROM slice c
            WHERE c.track_id = g.track_id AND c.depth = g.depth + 1
              AND c.ts >= g.ts
              AND c.ts < iif(g.dur = -1, trace_end(), g.ts + g.dur)) AS has_phases
  FROM outermost g
),
with_compaction AS (
  SELECT g.*, c.dur AS compaction_dur
  FROM with_next g
  LEFT JOIN slice c
    ON c.id = g.next_id AND c.name = 'CompactionPhase'
       AND c.parent_id IS g.parent_id AND g.dur != -1
)
SELECT g.id AS gc_id, tk.utid, tk.upid, g.track_id, g.depth, g.ts,
  CASE
    WHEN g.dur = -1 OR g.compaction_dur = -1 THEN trace_end()
    ELSE g.ts + g.dur + coalesce(g.compaction_dur, 0)
  END AS end_ts,
  g.name,
  (tk.role = 'mutator') AS foreground,
  tk.is_main_thread,
  (g.dur = -1 OR coalesce(g.compaction_dur, 0) = -1) AS unfinished,
  g.has_phases
FROM with_compaction g
JOIN target_track tk USING (track_id)
ORDER BY g.ts, g.id
