SELECT
  t.name AS track_name,
  s.ts,
  s.dur,
  s.value,
  extract_arg(s.arg_set_id, 'consumer_uid') AS consumer_uid,
  extract_arg(s.arg_set_id, 'num_data_sources') AS num_data_sources
FROM state s
JOIN track t ON s.track_id = t.id
WHERE t.type = 'concurrent_tracing_sessions'
ORDER BY t.name, s.ts;
