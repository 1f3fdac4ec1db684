SELECT
  t.name,
  c.ts,
  c.value,
  extract_arg(t.dimension_arg_set_id, 'session_uuid') as session_uuid
FROM counter c JOIN counter_track t ON t.id = c.track_id
WHERE t.name GLOB "power.*"
ORDER BY session_uuid, ts;
