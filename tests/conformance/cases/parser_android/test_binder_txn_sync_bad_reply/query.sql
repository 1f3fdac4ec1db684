SELECT
  dur
FROM slice
ORDER BY dur;
