SELECT name
FROM track
ORDER BY name;
