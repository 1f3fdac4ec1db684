SELECT c.ts,
        t.name,
        c.value
FROM counter_track t
JOIN counter c ON t.id = c.track_id
