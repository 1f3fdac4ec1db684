SELECT
  name,
  ts,
  value
FROM counters
WHERE name GLOB "power.*"
ORDER BY name, ts;
