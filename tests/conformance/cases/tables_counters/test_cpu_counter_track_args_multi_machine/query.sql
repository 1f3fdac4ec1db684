SELECT id, arg_set_id
FROM args
WHERE flat_key="cpustat_key" AND display_value="user_ns"
