SELECT name, value FROM stats
WHERE name like 'filter_%' OR name = 'traced_buf_bytes_filtered_out'
ORDER by name ASC
