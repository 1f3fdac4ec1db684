SELECT idx, value
FROM stats
WHERE name = 'traced_buf_incremental_sequences_dropped'
ORDER BY idx;
