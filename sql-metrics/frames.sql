-- frames: the target app's frames per run, from the best source it has.
--
-- Source: 'frame_timeline' when the target process has actual frame
-- timeline rows anywhere in the trace (its surface frames: one row per layer
-- and frame); else 'choreographer': depth-0 slices on the target's main
-- thread named `Choreographer#doFrame` or GLOB `Choreographer#doFrame *`.
-- A frame belongs to the run whose window contains its start. Unfinished
-- frames (dur = -1) are returned with unfinished = 1 and no duration.
--
-- Output columns:
--   run, source     run id; 'frame_timeline' | 'choreographer'
--   frame_id        slice id
--   ts, dur         frame start and duration (dur NULL when unfinished)
--   unfinished      1 when the frame never ended in the trace
--   jank_type       frame timeline jank type string (NULL for choreographer)
--   is_missed       1 when jank_type is one of Perfetto's missed-frame types
--                   (app: App Deadline Missed / App Resynced Jitter;
--                   SurfaceFlinger: SF CPU/GPU Deadline Missed, SF Scheduling,
--                   Prediction Error, Display HAL; or Dropped Frame)
--   is_app_jank     1 when jank_type is an app jank type
--   layer_name      frame timeline layer (NULL for choreographer)
--
-- Column types: run LONG, source STRING, frame_id LONG, ts TIMESTAMP, dur
--   DURATION, unfinished BOOL, jank_type STRING, is_missed BOOL, is_app_jank
--   BOOL, layer_name STRING
WITH
target_upid AS (
  SELECT DISTINCT th.upid FROM artscope_target_thread t JOIN thread th USING (utid)
  WHERE th.upid IS NOT NULL
  UNION
  SELECT upid FROM artscope_target_process
),
timeline AS (
  SELECT a.id, a.ts, a.dur, a.jank_type, a.layer_name
  FROM actual_frame_timeline_slice a
  WHERE a.upid IN (SELECT upid FROM target_upid)
),
main_thread AS (
  SELECT th.utid FROM thread th
  JOIN artscope_target_thread t USING (utid)
  JOIN process p USING (upid)
  WHERE th.tid = p.pid
),
choreographer AS (
  SELECT s.id, s.ts, s.dur
  FROM slice s JOIN thread_track tt ON tt.id = s.track_id
  WHERE tt.utid IN (SELECT utid FROM main_thread)
    AND s.depth = 0
    AND (s.name = 'Choreographer#doFrame' OR s.name GLOB 'Choreographer#doFrame *')
),
frame AS (
  SELECT 'frame_timeline' AS source, id, ts, dur, jank_type, layer_name FROM timeline
  UNION ALL
  SELECT 'choreographer', id, ts, dur, NULL, NULL FROM choreographer
  WHERE NOT EXISTS (SELECT 1 FROM timeline)
)
SELECT r.run, f.source, f.id AS frame_id, f.ts,
  iif(f.dur = -1, NULL, f.dur) AS dur,
  iif(f.dur = -1, 1, 0) AS unfinished,
  f.jank_type,
  iif(f.jank_type GLOB '*App Deadline Missed*'
      OR f.jank_type GLOB '*App Resynced Jitter*'
      OR f.jank_type GLOB '*SurfaceFlinger CPU Deadline Missed*'
      OR f.jank_type GLOB '*SurfaceFlinger GPU Deadline Missed*'
      OR f.jank_type GLOB '*SurfaceFlinger Scheduling*'
      OR f.jank_type GLOB '*Prediction Error*'
      OR f.jank_type GLOB '*Display HAL*'
      OR f.jank_type GLOB '*Dropped Frame*', 1, 0) AS is_missed,
  iif(f.jank_type GLOB '*App Deadline Missed*'
      OR f.jank_type GLOB '*App Resynced Jitter*', 1, 0) AS is_app_jank,
  f.layer_name
FROM frame f
JOIN artscope_run r ON f.ts >= r.start_ts AND f.ts < r.end_ts
ORDER BY r.run, f.ts, f.id
