-- memory_vmstat: page-fault counters of the whole system around each run.
--
-- sys_stats polls /proc/vmstat (vmstat_period_ms); trace_processor keeps
-- each polled key on a counter track of type 'vmstat' named by the key. The
-- counters only grow, so what happened in W is bounded by two polls: the
-- last at or before W's start (else the first poll) and the first at or
-- after W's end (else the last poll). Keys read: pgmajfault (major faults:
-- a page read back from storage) and workingset_refault (kernels < 5.9),
-- workingset_refault_anon / _file (5.9+): a reclaimed page faulted back in.
--
-- Output columns (one row per run and key polled):
--   run
--   vmstat_key    the /proc/vmstat key
--   start_ts      the poll bounding W from below
--   start_value   its value
--   end_ts        the poll bounding W from above
--   end_value     its value
--
-- Column types: run LONG, vmstat_key STRING, start_ts TIMESTAMP, start_value
--   DOUBLE, end_ts TIMESTAMP, end_value DOUBLE
WITH
vmstat_track AS MATERIALIZED (
  SELECT t.id AS track_id, t.name AS vmstat_key
  FROM counter_track t
  WHERE t.type = 'vmstat'
    AND t.name IN ('pgmajfault', 'workingset_refault', 'workingset_refault_anon',
                   'workingset_refault_file')
),
bound AS MATERIALIZED (
  SELECT r.run, k.track_id, k.vmstat_key,
    coalesce(
      (SELECT max(c.ts) FROM counter c WHERE c.track_id = k.track_id AND c.ts <= r.start_ts),
      (SELECT min(c.ts) FROM counter c WHERE c.track_id = k.track_id)) AS start_ts,
    coalesce(
      (SELECT min(c.ts) FROM counter c WHERE c.track_id = k.track_id AND c.ts >= r.end_ts),
      (SELECT max(c.ts) FROM counter c WHERE c.track_id = k.track_id)) AS end_ts
  FROM artscope_run r CROSS JOIN vmstat_track k
)
SELECT b.run, b.vmstat_key,
  b.start_ts,
  (SELECT c.value FROM counter c WHERE c.track_id = b.track_id AND c.ts = b.start_ts
   ORDER BY c.id LIMIT 1) AS start_value,
  b.end_ts,
  (SELECT c.value FROM counter c WHERE c.track_id = b.track_id AND c.ts = b.end_ts
   ORDER BY c.id DESC LIMIT 1) AS end_value
FROM bound b
WHERE b.start_ts IS NOT NULL
ORDER BY b.run, b.vmstat_key
