SELECT ts, value
FROM counter
JOIN track ON counter.track_id = track.id
ORDER BY ts;
