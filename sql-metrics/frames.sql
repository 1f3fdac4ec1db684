-- frames: the target app's frames per run, from the best source it has.
--
-- Source: 'frame_timeline' when the target process has actual frame
-- timeline rows anywhere in the trace (its surface frames: one row per layer
-- and frame); else 'choreographer': depth-0 slices on the target's main
-- thread named `Choreographer#doFrame` or GLOB `Choreographer#doFrame *`,
-- each with the RenderThread's draw it started: the first depth-0
-- `DrawFrame*` slice (`DrawFrame`, `DrawFrames <vsync id>`) on the target's
-- RenderThread that starts while the doFrame runs (HWUI's syncFrameState
-- hands the frame over from inside it); the frame lasts from the doFrame's
-- start to the later of the two ends.
-- A frame belongs to the run whose window contains its start. Unfinished
-- frames (dur = -1) are returned with unfinished = 1 and no duration.
--
-- Output columns:
--   run, source     run id; 'frame_timeline' | 'choreographer'
--   frame_id        slice id
--   ts, dur         frame start and duration (dur NULL when unfinished:
--                   a doFrame or its DrawFrame still open at the trace end)
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
do_frame AS MATERIALIZED (
  SELECT s.id, s.ts, s.dur
  FROM slice s JOIN thread_track tt ON tt.id = s.track_id
  WHERE tt.utid IN (SELECT utid FROM main_thread)
    AND s.depth = 0
    AND (s.name = 'Choreographer#doFrame' OR s.name GLOB 'Choreographer#doFrame *')
    AND NOT EXISTS (SELECT 1 FROM timeline)
),
draw_frame AS (
  SELECT s.ts, s.dur
  FROM slice s JOIN thread_track tt ON tt.id = s.track_id
  JOIN thread th ON th.utid = tt.utid
  WHERE tt.utid IN (SELECT utid FROM artscope_target_thread)
    AND th.name = 'RenderThread' AND s.depth = 0 AND s.name GLOB 'DrawFrame*'
    AND EXISTS (SELECT 1 FROM do_frame)
),
-- doFrames and DrawFrames in time order: each DrawFrame with the doFrame
-- running when it started (doFrames of one thread never overlap)
in_order AS (
  SELECT is_draw, ts, dur,
    max(iif(is_draw, NULL, ts)) OVER w AS do_ts,
    max(iif(is_draw, NULL, iif(dur = -1, trace_end(), ts + dur))) OVER w AS do_end
  FROM (SELECT 0 AS is_draw, ts, dur FROM do_frame
        UNION ALL SELECT 1, ts, dur FROM draw_frame)
  WINDOW w AS (ORDER BY ts, is_draw ROWS UNBOUNDED PRECEDING)
),
first_draw AS (
  SELECT do_ts, dur, min(ts) AS ts FROM in_order
  WHERE is_draw AND ts < do_end GROUP BY do_ts
),
choreographer AS (
  SELECT d.id, d.ts,
    CASE WHEN d.dur = -1 OR f.dur = -1 THEN -1
         ELSE max(d.ts + d.dur, coalesce(f.ts + f.dur, 0)) - d.ts END AS dur
  FROM do_frame d LEFT JOIN first_draw f ON f.do_ts = d.ts
),
frame AS (
  SELECT 'frame_timeline' AS source, id, ts, dur, jank_type, layer_name FROM timeline
  UNION ALL
  SELECT 'choreographer', id, ts, dur, NULL, NULL FROM choreographer
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
