-- expected_frame_timeline_events_test.sql is not in the stored snapshot;
-- this is actual_frame_timeline_events_test.sql with the expected table and
-- the columns of the expected output.
SELECT ts, dur, process.pid AS pid, display_frame_token, surface_frame_token, layer_name
FROM
  (SELECT t.*, process_track.name AS track_name FROM
    process_track LEFT JOIN expected_frame_timeline_slice t
    ON process_track.id = t.track_id) s
JOIN process USING(upid)
WHERE s.track_name = 'Expected Timeline'
ORDER BY ts;
