-- memory_rss: the target's resident memory samples.
--
-- Per-process memory counters of the target processes, in kB: 'rss' is the
-- whole resident set as process_stats polls it (/proc/<pid>/status VmRSS);
-- 'rss.anon', 'rss.file' and 'rss.shmem' are its parts, pushed by the
-- kernel's rss_stat event whenever one changes (and also polled). Every
-- sample from the last one at or before a run's start to its end, so each
-- run knows its value at the start. trace_processor keeps these on
-- process_counter_track named "mem.<key>".
--
-- Output columns (one row per run, series and sample):
--   run, upid
--   series        'rss' | 'rss.anon' | 'rss.file' | 'rss.shmem'
--   ts            sample time (may be before the run's start)
--   value_kb      the value in kB
--
-- Column types: run LONG, upid LONG, series STRING, ts TIMESTAMP, value_kb
--   DOUBLE
WITH
rss_track AS MATERIALIZED (
  SELECT t.id AS track_id, t.upid, substr(t.name, 5) AS series
  FROM process_counter_track t
  WHERE t.upid IN (SELECT upid FROM artscope_target_process)
    AND t.name IN ('mem.rss', 'mem.rss.anon', 'mem.rss.file', 'mem.rss.shmem')
),
-- per run and series, the last sample at or before the run's start
run_start_sample AS MATERIALIZED (
  SELECT r.run, k.track_id, coalesce(
    (SELECT max(c.ts) FROM counter c
     WHERE c.track_id = k.track_id AND c.ts <= r.start_ts), r.start_ts) AS from_ts,
    r.end_ts
  FROM artscope_run r CROSS JOIN rss_track k
)
SELECT b.run, k.upid, k.series, c.ts, c.value / 1024 AS value_kb
FROM run_start_sample b
JOIN rss_track k USING (track_id)
JOIN counter c ON c.track_id = b.track_id AND c.ts >= b.from_ts AND c.ts < b.end_ts
ORDER BY b.run, k.series, k.upid, c.ts
