SELECT hp.ts, hp.ts_end, hp.dur, a.ts AS alloc_ts, a.size
FROM heap_profile AS hp
JOIN heap_profile_allocation AS a
  ON hp.upid = a.upid AND a.ts = hp.ts_end;
