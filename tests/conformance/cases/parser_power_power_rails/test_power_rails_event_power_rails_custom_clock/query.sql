SELECT ts, value
FROM counters
WHERE name GLOB "power.*"
LIMIT 20;
