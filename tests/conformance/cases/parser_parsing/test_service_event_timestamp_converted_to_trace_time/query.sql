SELECT name, int_value FROM metadata WHERE name = 'tracing_started_ns'
