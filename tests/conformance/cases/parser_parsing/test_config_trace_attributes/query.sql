SELECT name, str_value, int_value FROM metadata
WHERE name GLOB 'trace_attribute.*' ORDER BY name;
