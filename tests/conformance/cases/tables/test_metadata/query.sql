SELECT name, COALESCE(str_value, int_value) as val
FROM metadata
WHERE name IN (
    "system_name", "system_version", "system_machine",
    "system_release", "timezone_off_mins")
ORDER BY name
