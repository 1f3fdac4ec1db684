SELECT count(*) AS stat_rows
FROM stats
WHERE name = 'long_trace_mode_bytes_overwritten';
