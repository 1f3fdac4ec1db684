SELECT name, key_type, int_value, str_value
FROM metadata
ORDER BY name;
