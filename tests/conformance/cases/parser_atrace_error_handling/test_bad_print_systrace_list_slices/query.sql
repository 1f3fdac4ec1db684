SELECT ts, dur, name
FROM slice;
