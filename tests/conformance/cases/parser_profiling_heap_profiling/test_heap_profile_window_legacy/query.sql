SELECT ts, ts_end, dur FROM heap_profile;
