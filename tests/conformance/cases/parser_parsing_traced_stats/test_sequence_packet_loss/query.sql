SELECT idx, value
FROM stats
WHERE name = 'traced_buf_sequence_packet_loss'
ORDER BY idx;
