-- heap: the target app's Java heap in each run window, from ART's
-- "Heap size (KB)" counter (atrace category dalvik: a C event on the app's
-- pid whenever the heap's allocated bytes are reported, around each GC).
--
-- A sample holds until the next one. The run reads the sample holding at
-- W's start (the last at or before it) and every sample inside W; the
-- counter's rises between consecutive read samples estimate what the app
-- allocated (allocations between two samples that a GC freed again before
-- the next sample are not seen), its falls what the collector freed.
--
-- Output columns (one row per run and target process with such a counter;
-- the numbers are NULL when no sample reaches W):
--   run, upid, pid
--   start_kb      the sample holding at W's start (NULL: none before W)
--   end_kb        the last sample before W's end
--   peak_kb       the highest read sample (NULL: no sample before W's end)
--   allocated_kb  sum of rises between consecutive read samples
--   freed_kb      sum of falls between consecutive read samples
--   samples       samples inside W (after W's start, before its end)
--
-- Column types: run LONG, upid LONG, pid LONG, start_kb DOUBLE, end_kb DOUBLE,
--   peak_kb DOUBLE, allocated_kb DOUBLE, freed_kb DOUBLE, samples LONG
WITH
heap_track AS MATERIALIZED (
  SELECT t.id AS track_id, t.upid
  FROM process_counter_track t
  JOIN artscope_target_process p ON p.upid = t.upid
  WHERE t.name = 'Heap size (KB)'
),
heap_sample AS MATERIALIZED (
  SELECT h.upid, c.id, c.ts, c.value,
    lead(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts, c.id) AS next_ts
  FROM heap_track h JOIN counter c ON c.track_id = h.track_id
),
sample_in_run AS MATERIALIZED (
  SELECT r.run, s.upid, s.id, s.ts, s.value, iif(s.ts > r.start_ts, 1, 0) AS inside,
    s.value - lag(s.value) OVER (PARTITION BY r.run, s.upid ORDER BY s.ts, s.id) AS change
  FROM artscope_run r
  JOIN heap_sample s
    ON s.ts < r.end_ts AND coalesce(s.next_ts, r.end_ts) > r.start_ts
),
run_heap AS (
  SELECT run, upid,
    max(iif(inside = 0, value, NULL)) AS start_kb,
    max(value) AS peak_kb,
    sum(iif(change > 0, change, 0)) AS allocated_kb,
    sum(iif(change < 0, -change, 0)) AS freed_kb,
    sum(inside) AS samples,
    max(ts) AS last_ts
  FROM sample_in_run
  GROUP BY run, upid
)
SELECT r.run, t.upid, p.pid, h.start_kb,
  (SELECT s.value FROM sample_in_run s
   WHERE s.run = h.run AND s.upid = h.upid AND s.ts = h.last_ts
   ORDER BY s.id DESC LIMIT 1) AS end_kb,
  h.peak_kb, h.allocated_kb, h.freed_kb, coalesce(h.samples, 0) AS samples
FROM artscope_run r
CROSS JOIN heap_track t
JOIN process p ON p.upid = t.upid
LEFT JOIN run_heap h ON h.run = r.run AND h.upid = t.upid
ORDER BY r.run, t.upid
