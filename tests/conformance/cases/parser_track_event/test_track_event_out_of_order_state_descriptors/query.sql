SELECT state.id, ts, value, track.name AS track_name
FROM state
JOIN track ON track.id = state.track_id
ORDER BY ts;
