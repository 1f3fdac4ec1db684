SELECT COUNT(*)
FROM counter
WHERE
  track_id = 0;
