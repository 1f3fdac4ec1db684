SELECT
  t.name AS track_name,
  c.ts,
  c.value,
  t.type AS track_type
FROM counter c
JOIN counter_track t ON c.track_id = t.id
ORDER BY t.name, c.ts;
