SELECT t.name, c.id, c.ts, c.value
FROM counter_track t JOIN counter c ON t.id = c.track_id
WHERE name = 'ScreenState'
  AND t.machine_id IS NOT NULL;
