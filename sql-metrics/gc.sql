-- gc: per run, how much of the app's CPU went to garbage collection.
--
-- CPU time of a thread = sum over its sched slices of their overlap with W.
-- GC CPU = CPU of target threads inside their own GC slices (see
-- gc_events.sql for what a GC slice is; every GC overlapping W counts, as the
-- quantity is CPU time in W), plus all CPU of dedicated GC worker threads:
-- 'gc'-role threads other than HeapTaskDaemon (ART's "Heap thread pool
-- worker" threads do nothing else).
--
-- Output columns:
--   run               run id
--   app_cpu_ns        CPU time of all target threads in W (the task clock)
--   gc_cpu_ns         CPU time attributable to GC in W
--   gc_worker_cpu_ns  the part of gc_cpu_ns from dedicated GC workers
--   gc_count          GC slices starting in W
--   gc_wall_ns        length of the union of all GC intervals ∩ W
--   gc_daemon_cpu_ns  all CPU time of HeapTaskDaemon in W
WITH
target AS (
  SELECT t.utid, t.role, th.name,
    (t.role = 'gc' AND coalesce(th.name, '') != 'HeapTaskDaemon') AS is_worker,
    (coalesce(th.name, '') = 'HeapTaskDaemon') AS is_daemon
  FROM artscope_target_thread t JOIN thread th USING (utid)
),
target_sched AS (
  SELECT s.utid, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM target)
),
sched_in_run AS (
  SELECT r.run, s.utid, max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end
  FROM target_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
),
gc_slice AS (
  SELECT s.id, s.ts, s.dur, s.name, tt.utid,
    lead(s.name) OVER (PARTITION BY s.track_id ORDER BY s.ts, s.id) AS next_name,
    lead(s.dur) OVER (PARTITION BY s.track_id ORDER BY s.ts, s.id) AS next_dur,
    lead(s.ts) OVER (PARTITION BY s.track_id ORDER BY s.ts, s.id) AS next_ts
  FROM slice s
  JOIN thread_track tt ON tt.id = s.track_id
  WHERE s.depth = 0 AND tt.utid IN (SELECT utid FROM target)
),
gc AS (
  SELECT utid, ts,
    ts + iif(dur = -1, trace_end() - ts, dur)
       + iif(next_name = 'CompactionPhase', iif(next_dur = -1, trace_end() - next_ts, next_dur), 0) AS end_ts
  FROM gc_slice
  WHERE EXISTS (SELECT 1 FROM artscope_gc_pattern p WHERE gc_slice.name GLOB p.pattern)
),
gc_in_run AS (
  SELECT r.run, gc.utid, gc.ts, max(gc.ts, r.start_ts) AS c_start,
    min(gc.end_ts, r.end_ts) AS c_end,
    (gc.ts >= r.start_ts) AS starts_in_run
  FROM gc JOIN artscope_run r ON gc.ts < r.end_ts AND gc.end_ts > r.start_ts
),
cpu_per_run AS (
  SELECT s.run,
    sum(s.c_end - s.c_start) AS app_cpu_ns,
    sum(iif(t.is_worker, s.c_end - s.c_start, 0)) AS gc_worker_cpu_ns,
    sum(iif(t.is_daemon, s.c_end - s.c_start, 0)) AS gc_daemon_cpu_ns
  FROM sched_in_run s JOIN target t USING (utid)
  GROUP BY s.run
),
cpu_in_own_gc AS (
  SELECT g.run, sum(max(0, min(s.c_end, g.c_end) - max(s.c_start, g.c_start))) AS ns
  FROM gc_in_run g
  JOIN target t ON t.utid = g.utid AND NOT t.is_worker
  JOIN sched_in_run s ON s.run = g.run AND s.utid = g.utid
    AND s.c_start < g.c_end AND s.c_end > g.c_start
  GROUP BY g.run
),
gc_ordered AS (
  SELECT run, c_start, c_end,
    max(c_end) OVER (PARTITION BY run ORDER BY c_start, c_end
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_end
  FROM gc_in_run WHERE c_end > c_start
),
gc_island AS (
  SELECT run, c_start, c_end,
    sum(iif(prev_max_end IS NULL OR c_start > prev_max_end, 1, 0))
      OVER (PARTITION BY run ORDER BY c_start, c_end ROWS UNBOUNDED PRECEDING) AS island
  FROM gc_ordered
),
gc_wall AS (
  SELECT run, sum(island_end - island_start) AS gc_wall_ns
  FROM (SELECT run, island, min(c_start) AS island_start, max(c_end) AS island_end
        FROM gc_island GROUP BY run, island)
  GROUP BY run
),
gc_counts AS (
  SELECT run, sum(starts_in_run) AS gc_count FROM gc_in_run GROUP BY run
)
SELECT r.run,
  coalesce(c.app_cpu_ns, 0) AS app_cpu_ns,
  coalesce(c.gc_worker_cpu_ns, 0) + coalesce(o.ns, 0) AS gc_cpu_ns,
  coalesce(c.gc_worker_cpu_ns, 0) AS gc_worker_cpu_ns,
  coalesce(n.gc_count, 0) AS gc_count,
  coalesce(w.gc_wall_ns, 0) AS gc_wall_ns,
  coalesce(c.gc_daemon_cpu_ns, 0) AS gc_daemon_cpu_ns
FROM artscope_run r
LEFT JOIN cpu_per_run c USING (run)
LEFT JOIN cpu_in_own_gc o USING (run)
LEFT JOIN gc_wall w USING (run)
LEFT JOIN gc_counts n USING (run)
ORDER BY r.run
