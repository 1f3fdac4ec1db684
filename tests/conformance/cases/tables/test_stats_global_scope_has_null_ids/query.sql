SELECT name, machine_id, trace_id
FROM stats
WHERE name = 'parse_trace_duration_ns';
