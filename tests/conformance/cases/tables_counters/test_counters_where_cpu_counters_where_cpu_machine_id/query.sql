SELECT
  ts,
  lead(ts, 1, ts) OVER (PARTITION BY track_id ORDER BY ts) - ts AS dur,
  value
FROM counter c
JOIN cpu_counter_track t ON c.track_id = t.id
WHERE t.cpu = 1;
