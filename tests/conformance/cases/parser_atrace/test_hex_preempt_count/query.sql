SELECT ts, name
FROM slice
WHERE name = 'hex_preempt';
