SELECT idx, value
FROM stats
WHERE name = 'long_trace_mode_bytes_overwritten'
ORDER BY idx;
