-- gc_events: one row per GC of the target app, with the CPU it cost.
--
-- A GC is a depth-0 slice on a target thread whose name GLOBs one of
-- artscope_gc_pattern (ART names them "<cause> <collector> GC"). As in
-- Perfetto's android.garbage_collection module, a directly following depth-0
-- `CompactionPhase` slice on the same thread extends it: gc_dur = dur +
-- the CompactionPhase's dur. A GC still running at the trace end is counted
-- as that module counts it: an open GC slice (dur -1) runs to trace_end(),
-- and an open CompactionPhase adds its recorded dur, -1 (the GC then ends
-- 1 ns before its own slice's end). A GC belongs to the run whose window
-- contains its start.
--
-- Output columns:
--   run           run id (artscope_run.run)
--   gc_id         slice id of the GC slice
--   ts            GC start (absolute trace ns)
--   dur           GC duration incl. a following CompactionPhase (ns)
--   name          GC slice name
--   cause         why ART collected, from the name's first word: alloc |
--                 native_alloc | background | explicit |
--                 collector_transition | other
--   kind          what it collected, from the collector name: young
--                 (young / sticky) | partial | full
--   unfinished    the GC slice or its CompactionPhase was still open at the
--                 trace end
--   has_phases    the GC slice holds nested phase slices (ART's TimingLogger
--                 phases: without them pause times cannot be known)
--   utid, tid     the thread that ran the GC
--   thread_name   its name
--   cpu_ns        CPU time of that thread inside [ts, ts + dur) ∩ W
--   runnable_ns   time it was runnable (thread_state R / R+) inside
--                 [ts, ts + dur) ∩ W
--
-- Column types: run LONG, gc_id LONG, ts TIMESTAMP, dur DURATION, name STRING,
--   cause STRING, kind STRING, unfinished BOOL, has_phases BOOL, utid LONG,
--   tid LONG, thread_name STRING, cpu_ns DURATION, runnable_ns DURATION
WITH
-- GC slices: depth-0 slices of target threads whose name GLOBs a pattern,
-- each extended by a directly following depth-0 CompactionPhase on the same
-- track (the next slice in (ts, id) order: one seek per GC, no window over
-- every slice of the app); has_phases: one seek for a depth-1 slice inside it.
gc_slice AS (
  SELECT s.id AS gc_id, s.ts, s.name, tt.utid, s.dur AS slice_dur,
    (SELECT iif(n.name = 'CompactionPhase', n.dur, NULL)
     FROM slice n
     WHERE n.track_id = s.track_id AND n.depth = 0
       AND n.ts >= s.ts AND (n.ts > s.ts OR n.id > s.id)
     ORDER BY n.ts, n.id
     LIMIT 1) AS compaction_dur,
    EXISTS (SELECT 1 FROM slice c
            WHERE c.track_id = s.track_id AND c.depth = 1
              AND c.ts >= s.ts
              AND c.ts < iif(s.dur = -1, trace_end(), s.ts + s.dur)) AS has_phases
  FROM slice s
  JOIN thread_track tt ON tt.id = s.track_id
  JOIN artscope_target_thread t ON t.utid = tt.utid
  WHERE s.depth = 0
    AND EXISTS (SELECT 1 FROM artscope_gc_pattern p WHERE s.name GLOB p.pattern)
),
gc AS (
  SELECT gc_id, ts, name, utid, has_phases,
    iif(slice_dur = -1, trace_end() - ts, slice_dur) + coalesce(compaction_dur, 0) AS dur,
    (slice_dur = -1 OR coalesce(compaction_dur, 0) = -1) AS unfinished
  FROM gc_slice
),
gc_in_run AS MATERIALIZED (
  SELECT r.run, r.start_ts AS w_start, r.end_ts AS w_end, gc.*,
    max(gc.ts, r.start_ts) AS c_start, min(gc.ts + gc.dur, r.end_ts) AS c_end
  FROM gc JOIN artscope_run r ON gc.ts >= r.start_ts AND gc.ts < r.end_ts
),
-- Sched slices with their end (an open slice, dur -1, ends at the next slice
-- on its CPU, else at trace_end()). Not materialized and not filtered: it is
-- inlined into the per-GC subquery below, whose `utid =` and ts bounds then
-- reach sched (trace_processor: its sorted ts column; embedded: its index).
sched_end AS NOT MATERIALIZED (
  SELECT s.utid, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts
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
)
SELECT g.run, g.gc_id, g.ts, g.dur, g.name,
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
  g.unfinished, g.has_phases,
  g.utid, th.tid, th.name AS thread_name,
  coalesce(c.cpu_ns, 0) AS cpu_ns,
  coalesce(c.runnable_ns, 0) AS runnable_ns
FROM gc_in_run g
JOIN thread th USING (utid)
LEFT JOIN gc_cost c ON c.run = g.run AND c.gc_id = g.gc_id
ORDER BY g.run, g.ts, g.gc_id
