SELECT EXTRACT_ARG(s.arg_set_id, 'debug.key') AS value
FROM slice s;
