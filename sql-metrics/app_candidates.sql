-- app_candidates: every process of the trace with the evidence that tells a
-- benchmarked app from the rest (used by `artscope apps` and by the hint of
-- the app-not-found error; artscope/apps.py ranks the rows).
--
-- Inputs: artscope_gc_pattern (GLOBs naming GC slices), artscope_marker
-- (names of harness marker slices, e.g. "App Benchmark").
--
-- Output columns:
--   upid, pid, name       the process (name NULL when the trace has none)
--   uid, android_appid    its Android uid and app id (NULL when unknown)
--   main_thread_name      its main thread's (tid = pid) name: the kernel's
--                         15-character comm, often the only name systrace has
--   cpu_ns                sched time of its threads over the whole trace
--                         (closed sched slices); NULL when it never ran
--   gc_slices             GCs on its threads: the outermost slices, at any
--                         depth, whose name GLOBs a GC pattern
--   timeline_frames       its actual frame timeline rows (surface frames)
--   choreographer_frames  depth-0 `Choreographer#doFrame` / GLOB
--                         `Choreographer#doFrame *` slices on its main thread
--   marker_slices         marker slices on its threads or process tracks
--   markers               their distinct names, comma-separated (NULL: none)
--
-- Column types: upid LONG, pid LONG, name STRING, uid LONG, android_appid
--   LONG, main_thread_name STRING, cpu_ns DURATION, gc_slices LONG,
--   timeline_frames LONG, choreographer_frames LONG, marker_slices LONG,
--   markers STRING
WITH
-- Each process thread's CPU time: one lookup per thread (utid =, dur > 0,
-- which the engine filters) summing dur alone, no sorter over every sched
-- row (as process_cpu.sql).
thread_cpu AS MATERIALIZED (
  SELECT th.upid, (SELECT sum(s.dur) FROM sched s WHERE s.utid = th.utid AND s.dur > 0) AS cpu_ns
  FROM thread th
  WHERE th.utid != 0 AND th.upid IS NOT NULL
),
process_cpu AS MATERIALIZED (
  SELECT upid, sum(cpu_ns) AS cpu_ns
  FROM thread_cpu
  WHERE cpu_ns IS NOT NULL
  GROUP BY upid
),
-- the latest thread with tid = pid (tid reuse keeps older ones in the table)
main_thread AS MATERIALIZED (
  SELECT th.upid, max(th.utid) AS utid
  FROM thread th JOIN process p USING (upid)
  WHERE th.tid = p.pid
  GROUP BY th.upid
),
gc_named AS MATERIALIZED (
  SELECT s.id, s.track_id, s.parent_id
  FROM slice s
  WHERE EXISTS (SELECT 1 FROM artscope_gc_pattern g WHERE s.name GLOB g.pattern)
),
-- GC-named slices inside another one (a walk up parent_id) are part of it
gc_ancestor(gc_id, id) AS (
  SELECT g.id, g.parent_id FROM gc_named g WHERE g.parent_id IS NOT NULL
  UNION ALL
  SELECT a.gc_id, s.parent_id
  FROM gc_ancestor a JOIN slice s ON s.id = a.id
  WHERE s.parent_id IS NOT NULL
),
gc_slice AS MATERIALIZED (
  SELECT th.upid, count(*) AS n
  FROM gc_named s
  JOIN thread_track tt ON tt.id = s.track_id
  JOIN thread th USING (utid)
  WHERE th.upid IS NOT NULL
    AND s.id NOT IN (SELECT a.gc_id FROM gc_ancestor a JOIN gc_named n ON n.id = a.id)
  GROUP BY th.upid
),
timeline_frame AS MATERIALIZED (
  SELECT upid, count(*) AS n FROM actual_frame_timeline_slice
  WHERE upid IS NOT NULL
  GROUP BY upid
),
choreographer_frame AS MATERIALIZED (
  SELECT m.upid, count(*) AS n
  FROM slice s
  JOIN thread_track tt ON tt.id = s.track_id
  JOIN main_thread m ON m.utid = tt.utid
  WHERE s.depth = 0
    AND (s.name = 'Choreographer#doFrame' OR s.name GLOB 'Choreographer#doFrame *')
  GROUP BY m.upid
),
marker_slice AS MATERIALIZED (
  SELECT s.name, coalesce(th.upid, pt.upid) AS upid
  FROM artscope_marker mk
  JOIN slice s ON s.name = mk.name
  LEFT JOIN thread_track tt ON tt.id = s.track_id
  LEFT JOIN thread th ON th.utid = tt.utid
  LEFT JOIN process_track pt ON pt.id = s.track_id
),
marker AS MATERIALIZED (
  SELECT upid, count(*) AS n, group_concat(DISTINCT name) AS names
  FROM marker_slice
  WHERE upid IS NOT NULL
  GROUP BY upid
)
SELECT p.upid, p.pid, p.name, p.uid, p.android_appid,
  mt.name AS main_thread_name,
  c.cpu_ns,
  coalesce(g.n, 0) AS gc_slices,
  coalesce(tf.n, 0) AS timeline_frames,
  coalesce(cf.n, 0) AS choreographer_frames,
  coalesce(mk.n, 0) AS marker_slices,
  mk.names AS markers
FROM process p
LEFT JOIN main_thread m ON m.upid = p.upid
LEFT JOIN thread mt ON mt.utid = m.utid
LEFT JOIN process_cpu c ON c.upid = p.upid
LEFT JOIN gc_slice g ON g.upid = p.upid
LEFT JOIN timeline_frame tf ON tf.upid = p.upid
LEFT JOIN choreographer_frame cf ON cf.upid = p.upid
LEFT JOIN marker mk ON mk.upid = p.upid
WHERE p.pid IS NOT NULL AND p.pid != 0
ORDER BY p.upid
