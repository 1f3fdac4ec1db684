SELECT ts, extract_arg(arg_set_id,'packet_ts') as packet_ts, value, t.name AS name
FROM counter c JOIN counter_track t ON t.id = c.track_id
ORDER BY ts
LIMIT 20;
