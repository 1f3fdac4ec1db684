-- frame_source: which frame source the target app has anywhere in the trace.
--
-- 'frame_timeline' when the target process has actual frame timeline rows;
-- else 'choreographer' when its main thread has depth-0
-- Choreographer#doFrame slices; else no row.
--
-- Output columns:
--   source   'frame_timeline' | 'choreographer'
--
-- Column types: source STRING
WITH
target_upid AS (
  SELECT DISTINCT th.upid FROM artscope_target_thread t JOIN thread th USING (utid)
  WHERE th.upid IS NOT NULL
  UNION
  SELECT upid FROM artscope_target_process
),
main_thread AS (
  SELECT th.utid FROM thread th
  JOIN artscope_target_thread t USING (utid)
  JOIN process p USING (upid)
  WHERE th.tid = p.pid
)
SELECT 'frame_timeline' AS source
WHERE EXISTS (SELECT 1 FROM actual_frame_timeline_slice a
              WHERE a.upid IN (SELECT upid FROM target_upid))
UNION ALL
SELECT 'choreographer'
WHERE NOT EXISTS (SELECT 1 FROM actual_frame_timeline_slice a
                  WHERE a.upid IN (SELECT upid FROM target_upid))
  AND EXISTS (SELECT 1 FROM slice s JOIN thread_track tt ON tt.id = s.track_id
              WHERE tt.utid IN (SELECT utid FROM main_thread) AND s.depth = 0
                AND (s.name = 'Choreographer#doFrame'
                     OR s.name GLOB 'Choreographer#doFrame *'))
