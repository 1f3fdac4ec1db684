SELECT
  t.name,
  c.ts,
  c.value,
  t.machine_id
FROM counter c
JOIN counter_track t ON t.id = c.track_id
WHERE t.name GLOB "power.*"
ORDER BY t.name, t.machine_id, c.ts;
