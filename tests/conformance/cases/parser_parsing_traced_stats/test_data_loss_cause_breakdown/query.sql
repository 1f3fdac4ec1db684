SELECT name, idx, value
FROM stats
WHERE name GLOB 'traced_buf_data_loss_*' AND value > 0
ORDER BY name;
