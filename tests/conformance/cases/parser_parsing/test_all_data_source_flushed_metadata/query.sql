SELECT name, int_value FROM metadata WHERE name = 'all_data_source_flushed_ns'
