-- actual_frame_timeline_events_test.sql; jank_severity_type appended to the
-- select list as in the version of the test whose expected output is used.
SELECT ts, dur, process.pid AS pid, display_frame_token, surface_frame_token, layer_name,
  present_type, on_time_finish, gpu_composition, jank_type, prediction_type, jank_tag,
  jank_severity_type
FROM
  (SELECT t.*, process_track.name AS track_name FROM
    process_track LEFT JOIN actual_frame_timeline_slice t
    ON process_track.id = t.track_id) s
JOIN process USING(upid)
WHERE s.track_name = 'Actual Timeline'
ORDER BY ts;
