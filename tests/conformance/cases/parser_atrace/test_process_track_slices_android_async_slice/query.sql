SELECT
  ts,
  dur,
  pid,
  slice.name AS slice_name,
  process_track.name AS track_name
FROM slice
JOIN process_track ON slice.track_id = process_track.id
JOIN process USING (upid);
