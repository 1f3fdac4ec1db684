SELECT t.name, c.ts, c.value
FROM counter_track t JOIN counter c ON t.id = c.track_id
WHERE type = 'android_cpu_per_uid'
ORDER BY 1, 2;
