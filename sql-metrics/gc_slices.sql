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
-- Their ancestors (a walk up parent_id: a GC's depth is small), and the
-- outermost GC-named slices: none of their ancestors is named like a GC.
ancestor(gc_id, id) AS (
  SELECT g.id, g.parent_id FROM gc_named g WHERE g.parent_id IS NOT NULL
  UNION ALL
  SELECT a.gc_id, s.parent_id
  FROM ancestor a JOIN slice s ON s.id = a.id
  WHERE s.parent_id IS NOT NULL
),
nested_gc AS MATERIALIZED (
  SELECT DISTINCT a.gc_id FROM ancestor a JOIN gc_named n ON n.id = a.id
),
outermost AS MATERIALIZED (
  SELECT g.* FROM gc_named g WHERE g.id NOT IN (SELECT gc_id FROM nested_gc)
),
-- The next slice at each GC's depth on its track: one sweep (lead) over the
-- slices of the GC threads' tracks, no seek per GC; a CompactionPhase there
-- under the same parent extends the GC. The GCs holding nested slices: one
-- pass over the slice table by parent.
next_at_level AS MATERIALIZED (
  SELECT s.id,
    lead(s.id) OVER (PARTITION BY s.track_id, s.depth ORDER BY s.ts, s.id) AS next_id
  FROM slice s
  WHERE s.track_id IN (SELECT DISTINCT track_id FROM outermost)
    AND s.depth IN (SELECT DISTINCT depth FROM outermost)
),
with_phases AS MATERIALIZED (
  SELECT DISTINCT s.parent_id AS id
  FROM slice s
  WHERE s.parent_id IN (SELECT id FROM outermost)
),
with_next AS (
  SELECT g.*, n.next_id, (g.id IN (SELECT id FROM with_phases)) AS has_phases
  FROM outermost g
  JOIN next_at_level n ON n.id = g.id
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
