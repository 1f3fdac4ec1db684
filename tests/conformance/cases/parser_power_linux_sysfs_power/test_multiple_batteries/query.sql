SELECT name, value FROM counters WHERE name like "batt.%" ORDER BY name
