SELECT t.name AS track_name, s.ts, s.dur, s.value
FROM state s
JOIN track t ON s.track_id = t.id
WHERE t.type = 'concurrent_tracing_sessions'
ORDER BY t.name, s.ts;
