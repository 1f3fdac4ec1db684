SELECT name, AVG(value), COUNT(*)
FROM counters
WHERE name GLOB "power.*"
GROUP BY name
LIMIT 20;
