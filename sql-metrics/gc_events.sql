-- gc_events: one row per GC of the target app, with the CPU it cost and the
-- heap it freed.
--
-- The GCs are artscope_target_gc (gc_slices.sql: the outermost GC slice at any depth
-- on any target thread, extended by a following CompactionPhase; an
-- unfinished one runs to trace_end()). A GC belongs to the run whose window
-- contains its start.
--
-- Heap: ART's "Heap size (KB)" counter of the GC's process (atrace category
-- dalvik). As in Perfetto's android.garbage_collection module, the heap
-- after a GC is the first sample at or after its end, and what it reclaimed
-- is the largest minus the smallest of that sample and the samples holding
-- during the GC (the one holding at its start and those inside), in
-- Perfetto's MB (KB / 1000); NULL without a sample after the GC.
--
-- Output columns:
--   run             run id (artscope_run.run)
--   gc_id           slice id of the GC slice
--   ts              GC start (absolute trace ns)
--   dur             GC duration incl. a following CompactionPhase (ns)
--   name            GC slice name
--   cause           why ART collected, from the name's first word: alloc |
--                   native_alloc | background | explicit |
--                   collector_transition | other
--   kind            what it collected, from the collector name: young
--                   (young / sticky) | partial | full
--   foreground      run by a mutator that stopped for it (not HeapTaskDaemon
--                   or a GC worker)
--   depth           the GC slice's depth (> 0: inside another slice of its
--                   thread, e.g. Choreographer#doFrame)
--   unfinished      the GC slice or its CompactionPhase was still open at the
--                   trace end
--   has_phases      the GC slice holds nested phase slices (ART's
--                   TimingLogger phases: without them pause times cannot be
--                   known)
--   utid, tid       the thread that ran the GC
--   thread_name     its name
--   is_main_thread  that thread is its process's main thread (tid = pid)
--   cpu_ns          CPU time of that thread inside [ts, ts + dur) ∩ W
--   runnable_ns     time it was runnable (thread_state R / R+) inside
--                   [ts, ts + dur) ∩ W
--   heap_before_kb  the heap counter's sample holding at the GC's start
--   heap_after_kb   its first sample at or after the GC's end
--   reclaimed_mb    heap reclaimed as Perfetto's module counts it (MB)
--
-- Column types: run LONG, gc_id LONG, ts TIMESTAMP, dur DURATION, name STRING,
--   cause STRING, kind STRING, foreground BOOL, depth LONG, unfinished BOOL,
--   has_phases BOOL, utid LONG, tid LONG, thread_name STRING,
--   is_main_thread BOOL, cpu_ns DURATION, runnable_ns DURATION,
--   heap_before_kb DOUBLE, heap_after_kb DOUBLE, reclaimed_mb DOUBLE
WITH
gc_in_run AS MATERIALIZED (
  SELECT r.run, g.gc_id, g.utid, g.upid, g.ts, g.end_ts, g.name, g.foreground,
    g.is_main_thread, g.depth, g.unfinished, g.has_phases,
    max(g.ts, r.start_ts) AS c_start, min(g.end_ts, r.end_ts) AS c_end
  FROM artscope_target_gc g JOIN artscope_run r ON g.ts >= r.start_ts AND g.ts < r.end_ts
),
-- Sched slices with their end (an open slice, dur -1, ends at the next slice
-- on its CPU, else at its CPU's last recorded event). Not materialized and
-- not filtered: it is inlined into the per-GC subquery below, whose `utid =`
-- and ts bounds then reach sched (trace_processor: its sorted ts column;
-- embedded: its index).
sched_end AS NOT MATERIALIZED (
  SELECT s.utid, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- The longest sched slice and R / R+ interval of the GC threads: an interval
-- overlapping [a, b) starts after a - max_dur, a lower ts bound for every
-- per-GC lookup (no range join, no scan of the thread's whole history).
bound AS MATERIALIZED (
  SELECT
    (SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0)
     FROM sched s WHERE s.utid IN (SELECT DISTINCT utid FROM gc_in_run)) AS sched_max_dur,
    (SELECT coalesce(max(iif(st.dur = -1, trace_end() - st.ts, st.dur)), 0)
     FROM thread_state st
     WHERE st.utid IN (SELECT DISTINCT utid FROM gc_in_run) AND st.state IN ('R', 'R+')) AS runnable_max_dur
),
gc_cost AS MATERIALIZED (
  SELECT g.run, g.gc_id,
    (SELECT sum(max(0, min(s.end_ts, g.c_end) - max(s.ts, g.c_start)))
     FROM sched_end s
     WHERE s.utid = g.utid
       AND s.ts < g.c_end AND s.ts > g.c_start - b.sched_max_dur
       AND s.end_ts > g.c_start) AS cpu_ns,
    (SELECT sum(max(0, min(iif(st.dur = -1, trace_end(), st.ts + st.dur), g.c_end)
                       - max(st.ts, g.c_start)))
     FROM thread_state st
     WHERE st.utid = g.utid
       AND st.ts < g.c_end AND st.ts > g.c_start - b.runnable_max_dur
       AND st.state IN ('R', 'R+')
       AND iif(st.dur = -1, trace_end(), st.ts + st.dur) > g.c_start) AS runnable_ns
  FROM gc_in_run g CROSS JOIN bound b
),
-- ART's heap counter of the processes that ran a GC: its tracks, then one
-- pass over their samples (found by the counter table alone: track IN),
-- numbered in time order per process.
heap_track AS MATERIALIZED (
  SELECT t.id AS track_id, t.upid
  FROM process_counter_track t
  WHERE t.name = 'Heap size (KB)' AND t.upid IN (SELECT DISTINCT upid FROM gc_in_run)
),
heap_sample_row AS MATERIALIZED (
  SELECT c.track_id, c.ts, c.value
  FROM counter c
  WHERE c.track_id IN (SELECT track_id FROM heap_track)
),
heap_sample AS MATERIALIZED (
  SELECT h.upid, s.ts, s.value, row_number() OVER (PARTITION BY h.upid ORDER BY s.ts) AS n
  FROM heap_sample_row s JOIN heap_track h USING (track_id)
),
-- One sweep over each process's samples and its GCs' edges counts the
-- samples at or before each GC's start (ord 1 sorts after a sample at the
-- same ts) and before its end (ord -1 sorts before): the sample holding at
-- the start is number before_n, the first at or after the end lt_end + 1.
heap_edge AS (
  SELECT upid, ts, 0 AS ord, NULL AS run, NULL AS gc_id FROM heap_sample
  UNION ALL
  SELECT upid, ts, 1, run, gc_id FROM gc_in_run WHERE upid IN (SELECT upid FROM heap_track)
  UNION ALL
  SELECT upid, end_ts, -1, run, gc_id FROM gc_in_run WHERE upid IN (SELECT upid FROM heap_track)
),
heap_count AS MATERIALIZED (
  SELECT upid, ord, run, gc_id,
    sum(ord = 0) OVER (PARTITION BY upid ORDER BY ts, ord
                       ROWS UNBOUNDED PRECEDING) AS samples_so_far
  FROM heap_edge
),
gc_heap_n AS MATERIALIZED (
  SELECT s.run, s.gc_id, s.upid, s.samples_so_far AS before_n, e.samples_so_far AS lt_end
  FROM heap_count s JOIN heap_count e ON e.gc_id = s.gc_id AND e.run = s.run AND e.ord = -1
  WHERE s.ord = 1
),
-- The samples a reclaim is read from: numbers max(before_n, 1) .. lt_end + 1
-- (the one holding at the start, those inside, the first after), when one
-- holds during the GC (lt_end >= 1); a few per GC.
reclaim_sample(run, gc_id, upid, n, last_n) AS (
  SELECT run, gc_id, upid, max(before_n, 1), lt_end + 1 FROM gc_heap_n WHERE lt_end >= 1
  UNION ALL
  SELECT run, gc_id, upid, n + 1, last_n FROM reclaim_sample WHERE n < last_n
),
gc_heap AS (
  SELECT n.run, n.gc_id, b.value AS before_kb, a.value AS after_kb,
    iif(a.value IS NULL, NULL,
        (SELECT (max(h.value) - min(h.value)) / 1e3
         FROM reclaim_sample r JOIN heap_sample h ON h.upid = r.upid AND h.n = r.n
         WHERE r.run = n.run AND r.gc_id = n.gc_id)) AS reclaimed_mb
  FROM gc_heap_n n
  LEFT JOIN heap_sample b ON b.upid = n.upid AND b.n = n.before_n
  LEFT JOIN heap_sample a ON a.upid = n.upid AND a.n = n.lt_end + 1
)
SELECT g.run, g.gc_id, g.ts, g.end_ts - g.ts AS dur, g.name,
  CASE
    WHEN g.name GLOB 'Alloc *' THEN 'alloc'
    WHEN g.name GLOB 'NativeAlloc *' THEN 'native_alloc'
    WHEN g.name GLOB 'Background *' THEN 'background'
    WHEN g.name GLOB 'Explicit *' THEN 'explicit'
    WHEN g.name GLOB 'CollectorTransition *' THEN 'collector_transition'
    ELSE 'other'
  END AS cause,
  CASE
    WHEN g.name GLOB '*[Yy]oung *' OR g.name GLOB '*[Ss]ticky *' THEN 'young'
    WHEN g.name GLOB '*[Pp]artial *' THEN 'partial'
    ELSE 'full'
  END AS kind,
  g.foreground, g.depth, g.unfinished, g.has_phases,
  g.utid, th.tid, th.name AS thread_name,
  g.is_main_thread,
  coalesce(c.cpu_ns, 0) AS cpu_ns,
  coalesce(c.runnable_ns, 0) AS runnable_ns,
  h.before_kb AS heap_before_kb,
  h.after_kb AS heap_after_kb,
  h.reclaimed_mb
FROM gc_in_run g
JOIN thread th USING (utid)
LEFT JOIN gc_cost c ON c.run = g.run AND c.gc_id = g.gc_id
LEFT JOIN gc_heap h ON h.run = g.run AND h.gc_id = g.gc_id
ORDER BY g.run, g.ts, g.gc_id
