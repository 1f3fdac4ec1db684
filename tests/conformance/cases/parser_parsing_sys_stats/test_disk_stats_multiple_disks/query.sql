SELECT
  c.ts,
  EXTRACT_ARG(t.dimension_arg_set_id, 'device_name') as device_name,
  t.name,
  c.value,
  t.unit
FROM counter c
JOIN counter_track t ON c.track_id = t.id
WHERE t.name GLOB 'diskstat.*'
ORDER BY c.ts, device_name, t.name;
