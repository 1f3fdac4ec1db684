SELECT ts, dur, name
FROM slices
LIMIT 10;
