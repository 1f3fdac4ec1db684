SELECT
  (SELECT count(*) FROM slice) AS slice_count,
  (SELECT name FROM slice) AS slice_name,
  (SELECT ts FROM slice) AS slice_ts,
  (SELECT value FROM stats
   WHERE name = 'track_event_invalid_timestamp') AS errors;
