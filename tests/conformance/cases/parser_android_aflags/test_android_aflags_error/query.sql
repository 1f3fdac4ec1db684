SELECT ts, name, severity, display_value
FROM _trace_import_logs
JOIN args USING (arg_set_id)
WHERE name = 'android_aflags_errors';
