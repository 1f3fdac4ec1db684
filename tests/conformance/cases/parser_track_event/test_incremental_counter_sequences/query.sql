SELECT
  ts,
  value
FROM counter
JOIN track ON counter.track_id = track.id
WHERE
  track.name = 'MyIncrementalCounter'
ORDER BY ts;
