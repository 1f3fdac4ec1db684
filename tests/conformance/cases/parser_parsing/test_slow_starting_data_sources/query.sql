SELECT str_value FROM metadata WHERE name = 'slow_start_data_source'
