SELECT ts, name, dur
FROM slice
WHERE name = 'test_slice';
