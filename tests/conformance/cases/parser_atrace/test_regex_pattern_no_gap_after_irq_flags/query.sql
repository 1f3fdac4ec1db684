SELECT name, COUNT(*) as count
FROM slice
WHERE name IN ('no_gap_after_dots', 'space_after_dots', 'no_gap_after_flags')
GROUP BY name
ORDER BY name;
