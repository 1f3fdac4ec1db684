SELECT
  name,
  key_type,
  int_value,
  str_value,
  machine_id,
  trace_id
FROM metadata
WHERE name IN ('system_name', 'trace_type', 'ftrace_latest_data_start_ns')
ORDER BY name, machine_id
