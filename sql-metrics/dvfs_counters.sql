-- dvfs_counters: cycles and instructions of the target's CPU time in each
-- run window, from hardware counters read at every context switch.
--
-- Perfetto's linux.perf data source with a sched/sched_switch tracepoint
-- timebase and cpu-cycles / instructions followers takes one sample per
-- context switch on each CPU; trace_processor imports each sample's running
-- counts as counter rows on per-CPU perf_counter_track rows (one track per
-- CPU and counter, named as perf names the event: 'sched/sched_switch', the
-- timebase, and 'cpu-cycles', 'instructions', with a ':uk'-style suffix for
-- modifiers; ProfileModule / PerfSampleTracker). Only sessions whose
-- timebase is that tracepoint are read: other timebases do not sample at
-- switches.
--
-- A sched slice's counts are the difference of the samples taken at its
-- two switches: the switch-in (its start) and the switch-out (its end) on
-- its CPU. The sample of a switch is the one on that CPU nearest to it
-- within 10 µs (the tracepoint's ftrace event and its perf sample are taken
-- microseconds apart); a slice without a sample at a switch, or whose two
-- switches found the same sample, is 'missing'; a slice whose cycle count
-- went down is 'wrapped' (the counter wrapped or was reset): neither is
-- guessed. An open slice ends where artscope_cpu_data_end says (as
-- gc.sql); with no switch-out there, it has no sample: missing.
--
-- Time is split as gc.sql and dvfs_gc_time.sql split it (the app: its slices ∩
-- W; the GC: each GC thread's slices inside its own GCs ∩ W, and dedicated
-- GC workers' slices ∩ W). A piece that is only part of its slice (cut by
-- W's or a GC's edge) gets the slice's counts in proportion to its time:
-- its prorated_ns says how much time that was.
--
-- Shape: read only when a switch-sampled session exists. Slices are found
-- by `utid =` lookups (as gc.sql); their switches are matched to samples in
-- one ordered pass per CPU over slice edges and samples.
--
-- Output columns (one row per run, scope, GC, thread and CPU):
--   run, scope, gc_id, utid, cpu   as in dvfs_gc_time.sql ('app', 'gc', 'cpu')
--   ns               CPU time of these pieces
--   counted_ns       the part of it whose slices have counts
--   cycles           cycles over counted_ns (prorated pieces: their share)
--   instructions     instructions over counted_ns; NULL without an
--                    instructions follower
--   missing_ns       time of slices lacking a switch sample
--   wrapped_ns       time of slices whose cycle count went down
--   missing_slices, wrapped_slices  how many such pieces
--   prorated_ns      time of pieces counted in proportion (part of a slice)
--   tid, thread_name  the thread (NULL for scope 'cpu')
-- Scope 'cpu' rows: all that the CPU counted in W, whatever ran (the
-- increases between its consecutive samples inside W; ns is W's length,
-- missing_ns the time before its first and after its last sample in W,
-- wrapped_ns / wrapped_slices the steps whose cycle count went down).
--
-- Column types: run LONG, scope STRING, gc_id LONG, utid LONG, cpu LONG,
--   ns DURATION, counted_ns DURATION, cycles DOUBLE, instructions DOUBLE,
--   missing_ns DURATION, wrapped_ns DURATION, missing_slices LONG,
--   wrapped_slices LONG, prorated_ns DURATION, tid LONG, thread_name STRING
WITH
switch_session AS MATERIALIZED (
  SELECT DISTINCT perf_session_id FROM perf_counter_track
  WHERE is_timebase AND (name GLOB 'sched?sched_switch' OR name GLOB 'sched?sched_switch:*')
),
counter_kind AS MATERIALIZED (
  SELECT t.id AS track_id, t.cpu,
    iif(t.name = 'cpu-cycles' OR t.name GLOB 'cpu-cycles:*', 'cycles', 'instructions') AS kind
  FROM perf_counter_track t
  WHERE t.perf_session_id IN (SELECT perf_session_id FROM switch_session)
    AND NOT t.is_timebase
    AND (t.name = 'cpu-cycles' OR t.name GLOB 'cpu-cycles:*'
         OR t.name = 'instructions' OR t.name GLOB 'instructions:*')
),
-- One row per sample: its CPU, time and counts, numbered per CPU.
switch_sample AS MATERIALIZED (
  SELECT cpu, ts, cycles, instructions,
    row_number() OVER (PARTITION BY cpu ORDER BY ts) AS ord
  FROM (SELECT k.cpu, c.ts,
          max(iif(k.kind = 'cycles', c.value, NULL)) AS cycles,
          max(iif(k.kind = 'instructions', c.value, NULL)) AS instructions
        FROM counter c JOIN counter_kind k USING (track_id)
        GROUP BY k.cpu, c.ts)
  WHERE cycles IS NOT NULL
),
counted AS MATERIALIZED (
  SELECT EXISTS (SELECT 1 FROM switch_sample) AS yes,
    EXISTS (SELECT 1 FROM counter_kind WHERE kind = 'instructions') AS has_instructions
),
target AS MATERIALIZED (
  SELECT t.utid,
    (t.role = 'gc' AND coalesce(th.name, '') != 'HeapTaskDaemon') AS is_worker
  FROM artscope_target_thread t JOIN thread th USING (utid)
  WHERE (SELECT yes FROM counted)
),
-- Where each open sched slice ends, read once (the SQL package inlines
-- artscope_cpu_data_end's own query where it is named).
open_end AS MATERIALIZED (
  SELECT cpu, ts, end_ts FROM artscope_cpu_data_end
),
-- Sched slices with their end (an open slice ends where artscope_cpu_data_end
-- says); inlined into the lookups below.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.cpu, s.ts, s.dur,
    iif(s.dur = -1, (SELECT o.end_ts FROM open_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- The longest slice of a target thread: a slice overlapping [a, b) starts
-- after a - max_dur (a lower ts bound).
thread_bound AS MATERIALIZED (
  SELECT coalesce(max(iif(s.dur = -1, trace_end() - s.ts, s.dur)), 0) AS max_dur
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM target)
),
gc_in_run AS MATERIALIZED (
  SELECT r.run, g.gc_id, g.utid, max(g.ts, r.start_ts) AS c_start,
    min(g.end_ts, r.end_ts) AS c_end
  FROM artscope_target_gc g
  JOIN artscope_run r ON g.ts < r.end_ts AND g.end_ts > r.start_ts
  JOIN target t ON t.utid = g.utid AND NOT t.is_worker
),
-- Pieces of time with the slice they are part of (CROSS JOIN: sched is looked
-- up per run and thread / per GC, never scanned first).
piece AS MATERIALIZED (
  SELECT r.run, 'app' AS scope, NULL AS gc_id, s.utid, s.cpu, s.id AS slice_id,
    s.ts AS slice_ts, s.end_ts AS slice_end,
    max(s.ts, r.start_ts) AS p_start, min(s.end_ts, r.end_ts) AS p_end
  FROM artscope_run r
  CROSS JOIN target t
  CROSS JOIN thread_bound b
  CROSS JOIN sched_end s ON s.utid = t.utid
    AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur AND s.end_ts > r.start_ts
  UNION ALL
  SELECT r.run, 'gc', NULL, s.utid, s.cpu, s.id, s.ts, s.end_ts,
    max(s.ts, r.start_ts), min(s.end_ts, r.end_ts)
  FROM artscope_run r
  CROSS JOIN target t
  CROSS JOIN thread_bound b
  CROSS JOIN sched_end s ON s.utid = t.utid
    AND s.ts < r.end_ts AND s.ts > r.start_ts - b.max_dur AND s.end_ts > r.start_ts
  WHERE t.is_worker
  UNION ALL
  SELECT g.run, 'gc', g.gc_id, g.utid, s.cpu, s.id, s.ts, s.end_ts,
    max(s.ts, g.c_start), min(s.end_ts, g.c_end)
  FROM gc_in_run g
  CROSS JOIN thread_bound b
  CROSS JOIN sched_end s ON s.utid = g.utid
    AND s.ts < g.c_end AND s.ts > g.c_start - b.max_dur AND s.end_ts > g.c_start
),
slice_edge AS (
  SELECT DISTINCT slice_id, cpu, slice_ts, slice_end FROM piece
),
-- Slice edges (kind 1: switch-in, 2: switch-out) and samples (kind 0) in
-- time order per CPU: each edge learns the last sample at or before it.
edge_event AS (
  SELECT cpu, slice_ts AS ts, 1 AS kind, slice_id, NULL AS ord FROM slice_edge
  UNION ALL
  SELECT cpu, slice_end, 2, slice_id, NULL FROM slice_edge
  UNION ALL
  SELECT cpu, ts, 0, NULL, ord FROM switch_sample
  WHERE cpu IN (SELECT cpu FROM slice_edge)
),
edge_swept AS (
  SELECT cpu, ts, kind, slice_id,
    max(ord) OVER (PARTITION BY cpu ORDER BY ts, kind ROWS UNBOUNDED PRECEDING) AS prev_ord
  FROM edge_event
),
-- The sample of each edge: the nearer of the last one at or before it and
-- the next one, within 10 µs.
edge_sample AS (
  SELECT e.slice_id, e.cpu, e.kind,
    CASE
      WHEN p.ts IS NOT NULL AND e.ts - p.ts <= 10000
           AND (n.ts IS NULL OR e.ts - p.ts <= n.ts - e.ts) THEN p.ord
      WHEN n.ts IS NOT NULL AND n.ts - e.ts <= 10000 THEN n.ord
    END AS ord
  FROM edge_swept e
  LEFT JOIN switch_sample p ON p.cpu = e.cpu AND p.ord = e.prev_ord
  LEFT JOIN switch_sample n ON n.cpu = e.cpu AND n.ord = coalesce(e.prev_ord, 0) + 1
  WHERE e.kind > 0
),
slice_count AS MATERIALIZED (
  SELECT x.slice_id,
    CASE WHEN x.in_ord IS NULL OR x.out_ord IS NULL OR x.in_ord = x.out_ord THEN 'missing'
         WHEN o.cycles < i.cycles THEN 'wrapped'
         ELSE 'counted' END AS status,
    o.cycles - i.cycles AS cycles,
    o.instructions - i.instructions AS instructions
  FROM (SELECT slice_id, cpu, max(iif(kind = 1, ord, NULL)) AS in_ord,
          max(iif(kind = 2, ord, NULL)) AS out_ord
        FROM edge_sample GROUP BY slice_id, cpu) x
  LEFT JOIN switch_sample i ON i.cpu = x.cpu AND i.ord = x.in_ord
  LEFT JOIN switch_sample o ON o.cpu = x.cpu AND o.ord = x.out_ord
),
-- Per run and CPU, everything the CPU counted in W (scope 'cpu'): the
-- increases between consecutive samples inside W (a decrease: wrapped);
-- the time before the first and after the last sample in W is missing.
cpu_step AS (
  SELECT r.run, x.cpu, r.start_ts, r.end_ts, x.ts,
    x.cycles - lag(x.cycles) OVER w AS cycles,
    x.instructions - lag(x.instructions) OVER w AS instructions,
    x.ts - lag(x.ts) OVER w AS ns
  FROM artscope_run r
  JOIN switch_sample x ON x.ts >= r.start_ts AND x.ts <= r.end_ts
  WINDOW w AS (PARTITION BY r.run, x.cpu ORDER BY x.ts)
),
cpu_total AS (
  SELECT run, 'cpu' AS scope, NULL AS gc_id, NULL AS utid, cpu,
    max(end_ts) - min(start_ts) AS ns,
    sum(iif(cycles >= 0, ns, 0)) AS counted_ns,
    sum(iif(cycles >= 0, cycles, 0)) AS cycles,
    iif((SELECT has_instructions FROM counted), sum(iif(cycles >= 0, instructions, 0)), NULL)
      AS instructions,
    max(end_ts) - min(start_ts) - sum(coalesce(ns, 0)) AS missing_ns,
    sum(iif(cycles < 0, ns, 0)) AS wrapped_ns,
    0 AS missing_slices,
    coalesce(sum(cycles < 0), 0) AS wrapped_slices,
    0 AS prorated_ns
  FROM cpu_step
  GROUP BY run, cpu
),
per_piece AS (
SELECT p.run, p.scope, p.gc_id, p.utid, p.cpu,
  sum(p.p_end - p.p_start) AS ns,
  sum(iif(c.status = 'counted', p.p_end - p.p_start, 0)) AS counted_ns,
  sum(iif(c.status = 'counted',
          c.cycles * (p.p_end - p.p_start) / (p.slice_end - p.slice_ts), 0)) AS cycles,
  iif((SELECT has_instructions FROM counted),
      sum(iif(c.status = 'counted',
              c.instructions * (p.p_end - p.p_start) / (p.slice_end - p.slice_ts), 0)),
      NULL) AS instructions,
  sum(iif(c.status = 'missing', p.p_end - p.p_start, 0)) AS missing_ns,
  sum(iif(c.status = 'wrapped', p.p_end - p.p_start, 0)) AS wrapped_ns,
  sum(c.status = 'missing') AS missing_slices,
  sum(c.status = 'wrapped') AS wrapped_slices,
  sum(iif(p.p_end - p.p_start < p.slice_end - p.slice_ts, p.p_end - p.p_start, 0)) AS prorated_ns
FROM piece p
JOIN slice_count c USING (slice_id)
WHERE p.p_end > p.p_start
GROUP BY p.run, p.scope, p.gc_id, p.utid, p.cpu
)
SELECT x.*, th.tid, th.name AS thread_name
FROM (SELECT * FROM per_piece UNION ALL SELECT * FROM cpu_total) x
LEFT JOIN thread th USING (utid)
ORDER BY x.run, x.scope, x.gc_id, x.utid, x.cpu
