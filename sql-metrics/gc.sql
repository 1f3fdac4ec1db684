-- gc: per run, how much of the app's CPU went to garbage collection.
--
-- CPU time of a thread = sum over its sched slices of their overlap with W
-- (an open last sched slice ends at its CPU's last recorded event:
-- artscope_cpu_data_end). GC CPU = CPU of target threads inside their own
-- GCs (artscope_target_gc: the outermost GC slice at any depth, on HeapTaskDaemon or
-- on a mutator that collects itself; every GC overlapping W counts, as the
-- quantity is CPU time in W), plus all CPU of dedicated GC worker threads:
-- 'gc'-role threads other than HeapTaskDaemon (ART's "Heap thread pool
-- worker" threads do nothing else). A GC nested in another slice is counted
-- once: GCs of one thread never overlap.
--
-- Shape (why it is fast on trace_processor, whose tables have no indexes of
-- ours): each target thread's CPU time in W comes from artscope_target_cpu
-- (the runner's one pass over the target's sched rows, target_cpu_time.sql).
-- sched is never joined by time range: the CPU inside each GC is a scalar
-- subquery per GC whose constraints are a thread and a ts range (utid =,
-- ts <, ts >=), which trace_processor answers from its sorted ts column and
-- the embedded engine from its (utid, ts) index; no sort over sched rows is
-- needed.
--
-- Output columns:
--   run               run id
--   app_cpu_ns        CPU time of all target threads in W (the task clock)
--   gc_cpu_ns         CPU time attributable to GC in W
--   gc_worker_cpu_ns  the part of gc_cpu_ns from dedicated GC workers
--   gc_count          GCs starting in W
--   gc_wall_ns        length of the union of all GC intervals ∩ W
--   gc_daemon_cpu_ns  all CPU time of HeapTaskDaemon in W
--   foreground_count  GCs run by a mutator (foreground) starting in W
--   foreground_ns     time foreground GCs held their threads ∩ W (GCs
--                     overlapping W)
--
-- Column types: run LONG, app_cpu_ns DURATION, gc_cpu_ns DURATION,
--   gc_worker_cpu_ns DURATION, gc_count LONG, gc_wall_ns DURATION,
--   gc_daemon_cpu_ns DURATION, foreground_count LONG, foreground_ns DURATION
WITH
target AS MATERIALIZED (
  SELECT t.utid,
    (t.role = 'gc' AND coalesce(th.name, '') != 'HeapTaskDaemon') AS is_worker,
    (coalesce(th.name, '') = 'HeapTaskDaemon') AS is_daemon
  FROM artscope_target_thread t JOIN thread th USING (utid)
),
-- Sched slices with their end (an open slice, dur -1, ends at the next slice
-- on its CPU, else at its CPU's last recorded event). Not materialized and
-- not filtered here: it is inlined into each subquery below, whose `utid =` /
-- `id =` and ts bounds then reach sched (an IN filter here would keep them
-- from it).
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- CPU time per run and target thread: its time on every CPU in W.
thread_cpu AS MATERIALIZED (
  SELECT r.run, t.utid, t.is_worker, t.is_daemon,
    coalesce((SELECT sum(c.cpu_ns) FROM artscope_target_cpu c
              WHERE c.run = r.run AND c.utid = t.utid), 0) AS cpu_ns
  FROM artscope_run r CROSS JOIN target t
),
cpu_per_run AS (
  SELECT run,
    sum(cpu_ns) AS app_cpu_ns,
    sum(iif(is_worker, cpu_ns, 0)) AS gc_worker_cpu_ns,
    sum(iif(is_daemon, cpu_ns, 0)) AS gc_daemon_cpu_ns
  FROM thread_cpu
  GROUP BY run
),
-- GCs (the GC set, artscope_target_gc: any depth, any target thread).
gc_in_run AS MATERIALIZED (
  SELECT r.run, g.utid, g.ts, g.foreground, max(g.ts, r.start_ts) AS c_start,
    min(g.end_ts, r.end_ts) AS c_end,
    (g.ts >= r.start_ts) AS starts_in_run
  FROM artscope_target_gc g JOIN artscope_run r ON g.ts < r.end_ts AND g.end_ts > r.start_ts
),
-- The longest sched slice of a thread that ran a GC: a slice overlapping
-- [a, b) starts after a - max_dur, a lower ts bound for the lookups below
-- (a pass over those threads' slices only).
gc_thread_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT DISTINCT utid FROM gc_in_run)
),
-- CPU of each GC's own thread inside the GC (∩ W); dedicated workers are
-- already counted whole.
cpu_in_own_gc AS (
  SELECT g.run,
    sum((SELECT sum(max(0, min(s.end_ts, g.c_end) - max(s.ts, g.c_start)))
         FROM sched_end s
         WHERE s.utid = g.utid
           AND s.ts < g.c_end AND s.ts > g.c_start - b.max_dur
           AND s.end_ts > g.c_start)) AS ns
  FROM gc_in_run g
  JOIN target t ON t.utid = g.utid AND NOT t.is_worker
  CROSS JOIN gc_thread_bound b
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
  SELECT run, sum(starts_in_run) AS gc_count,
    sum(iif(foreground, starts_in_run, 0)) AS foreground_count,
    sum(iif(foreground, max(0, c_end - c_start), 0)) AS foreground_ns
  FROM gc_in_run GROUP BY run
)
SELECT r.run,
  coalesce(c.app_cpu_ns, 0) AS app_cpu_ns,
  coalesce(c.gc_worker_cpu_ns, 0) + coalesce(o.ns, 0) AS gc_cpu_ns,
  coalesce(c.gc_worker_cpu_ns, 0) AS gc_worker_cpu_ns,
  coalesce(n.gc_count, 0) AS gc_count,
  coalesce(w.gc_wall_ns, 0) AS gc_wall_ns,
  coalesce(c.gc_daemon_cpu_ns, 0) AS gc_daemon_cpu_ns,
  coalesce(n.foreground_count, 0) AS foreground_count,
  coalesce(n.foreground_ns, 0) AS foreground_ns
FROM artscope_run r
LEFT JOIN cpu_per_run c USING (run)
LEFT JOIN cpu_in_own_gc o USING (run)
LEFT JOIN gc_wall w USING (run)
LEFT JOIN gc_counts n USING (run)
ORDER BY r.run
