-- frame_source: which frame source the target app has anywhere in the
-- trace, whether it draws on threads of its own, and the display's refresh
-- period and the apps' frame deadline as the trace shows them (one row).
--
-- source: 'frame_timeline' when the target process has actual frame
-- timeline rows; else 'choreographer' when its main thread has depth-0
-- Choreographer#doFrame slices; else NULL.
--
-- draws_on: an engine that draws the app's frames on threads of its own,
-- which Choreographer#doFrame on the main thread does not time: 'flutter'
-- (the engine's "<n>.ui" and "<n>.raster" / "<n>.gpu" threads), 'unity'
-- ("UnityMain", "UnityGfxDeviceW..."), 'unreal' ("GameThread" with
-- "RHIThread"), 'gl_thread' (a GLSurfaceView's "GLThread <n>"); NULL else.
--
-- The refresh period is the shorter of two readings, each the most common
-- value (in 0.1 ms steps, seen at least 3 times; ties: the shorter): the
-- spacing of SurfaceFlinger's expected display
-- frames (it composes on vsync; several vsyncs apart when nothing changed)
-- and the expected duration of apps' surface frames (an app's deadline, one
-- vsync or more). Without a frame timeline: the spacing of SurfaceFlinger's
-- VSYNC-app / VSYNC-sf counter toggles (one per vsync while it listens).
-- Spacings outside 4-50 ms (250-20 Hz) are gaps, not vsyncs.
--
-- Output columns (one row):
--   source            'frame_timeline' | 'choreographer' | NULL
--   draws_on          'flutter' | 'unity' | 'unreal' | 'gl_thread' | NULL
--   refresh_period_ns  the vsync period read from the trace (NULL: none)
--   refresh_source    'frame_timeline' | 'vsync' | NULL
--   app_deadline_ns   the most common expected duration of apps' surface
--                     frames (NULL without a frame timeline)
--
-- Column types: source STRING, draws_on STRING, refresh_period_ns DURATION,
--   refresh_source STRING, app_deadline_ns DURATION
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
),
target_name AS (
  SELECT th.name FROM thread th JOIN artscope_target_thread t USING (utid)
  WHERE th.name IS NOT NULL
),
display_gap AS (
  SELECT ts - lag(ts) OVER (ORDER BY ts) AS gap
  FROM expected_frame_timeline_slice WHERE layer_name IS NULL
),
vsync_gap AS (
  SELECT c.ts - lag(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts) AS gap
  FROM counter c JOIN counter_track t ON t.id = c.track_id
  WHERE t.name IN ('VSYNC-app', 'VSYNC-sf')
),
-- most common values: in 0.1 ms steps, their mean as the value, seen at
-- least 3 times (a few frames tell nothing)
display_period AS (
  SELECT avg(gap) AS ns FROM display_gap WHERE gap BETWEEN 4000000 AND 50000000
  GROUP BY gap / 100000 HAVING count(*) >= 3
  ORDER BY count(*) DESC, gap / 100000 LIMIT 1
),
app_deadline AS (
  SELECT avg(dur) AS ns FROM expected_frame_timeline_slice
  WHERE layer_name IS NOT NULL AND dur BETWEEN 4000000 AND 50000000
  GROUP BY dur / 100000 HAVING count(*) >= 3
  ORDER BY count(*) DESC, dur / 100000 LIMIT 1
),
vsync_period AS (
  SELECT avg(gap) AS ns FROM vsync_gap WHERE gap BETWEEN 4000000 AND 50000000
  GROUP BY gap / 100000 HAVING count(*) >= 3
  ORDER BY count(*) DESC, gap / 100000 LIMIT 1
),
timeline_period AS (
  SELECT CAST(min(ns) AS INT) AS ns FROM (
    SELECT ns FROM display_period UNION ALL SELECT ns FROM app_deadline)
)
SELECT
  CASE
    WHEN EXISTS (SELECT 1 FROM actual_frame_timeline_slice a
                 WHERE a.upid IN (SELECT upid FROM target_upid)) THEN 'frame_timeline'
    WHEN EXISTS (SELECT 1 FROM slice s JOIN thread_track tt ON tt.id = s.track_id
                 WHERE tt.utid IN (SELECT utid FROM main_thread) AND s.depth = 0
                   AND (s.name = 'Choreographer#doFrame'
                        OR s.name GLOB 'Choreographer#doFrame *')) THEN 'choreographer'
  END AS source,
  CASE
    WHEN EXISTS (SELECT 1 FROM target_name WHERE name GLOB '[0-9]*.ui')
         AND EXISTS (SELECT 1 FROM target_name
                     WHERE name GLOB '[0-9]*.raster' OR name GLOB '[0-9]*.gpu') THEN 'flutter'
    WHEN EXISTS (SELECT 1 FROM target_name
                 WHERE name = 'UnityMain' OR name GLOB 'UnityGfxDevice*') THEN 'unity'
    WHEN EXISTS (SELECT 1 FROM target_name WHERE name = 'GameThread')
         AND EXISTS (SELECT 1 FROM target_name WHERE name GLOB 'RHIThread*') THEN 'unreal'
    WHEN EXISTS (SELECT 1 FROM target_name WHERE name GLOB 'GLThread *') THEN 'gl_thread'
  END AS draws_on,
  coalesce((SELECT ns FROM timeline_period), CAST((SELECT ns FROM vsync_period) AS INT))
    AS refresh_period_ns,
  CASE WHEN (SELECT ns FROM timeline_period) IS NOT NULL THEN 'frame_timeline'
       WHEN (SELECT ns FROM vsync_period) IS NOT NULL THEN 'vsync' END AS refresh_source,
  CAST((SELECT ns FROM app_deadline) AS INT) AS app_deadline_ns
