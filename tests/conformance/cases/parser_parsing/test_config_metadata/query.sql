SELECT name, str_value, int_value FROM metadata WHERE str_value IS NOT NULL OR int_value IS NOT NULL ORDER BY name;
