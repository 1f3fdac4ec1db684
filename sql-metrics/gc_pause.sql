-- gc_pause: the intervals in which the target app's mutators were suspended.
--
-- ART traces its pauses as slices on the thread that holds the mutators
-- suspended (docs/gc-pauses.md shows where in ART they come from):
--   * `ThreadListFlip`: a thread flip (CC's flip, CMC's compaction pause);
--     the slice spans the suspension, the flip callback and the resumption;
--   * a suspend-all: from the start of `Suspending mutator threads` to the
--     end of the next `Resuming mutator threads` on the same thread (between
--     them `Mutator threads suspended for <cause>`); an unmatched one runs to
--     trace_end();
--   * a `(Paused)…` phase: counts on its own where it lies inside neither.
-- Open slices (dur -1) run to trace_end(). Pieces of positive length that
-- overlap or touch within one process merge into one pause. A pause belongs
-- to the GC of the same process whose interval contains its start (the
-- latest such GC): the GC slice plus a directly following CompactionPhase,
-- to trace_end() for a GC still running there (gc_events.sql). Other pauses
-- (heap trim, debugger, JIT ...) have no gc_id.
--
-- One row per run and pause that overlaps W or belongs to a GC starting in
-- W (a GC's pauses are listed with it even past W's end).
--
-- Output columns:
--   run           run id
--   gc_id         slice id of the GC the pause belongs to (NULL: outside any GC)
--   ts            pause start (absolute trace ns)
--   dur           pause length (ns)
--   dur_in_run    its overlap with W (ns)
--   source        thread_list_flip | suspend_all | paused_phase: the kind of
--                 its strongest piece, in that order
--   unfinished    a piece was still open at the trace end
--   utid, tid     the thread that held the mutators suspended (its first piece)
--   thread_name   its name
--
-- Column types: run LONG, gc_id LONG, ts TIMESTAMP, dur DURATION, dur_in_run
--   DURATION, source STRING, unfinished BOOL, utid LONG, tid LONG, thread_name
--   STRING
WITH
target_track AS MATERIALIZED (
  SELECT tt.id AS track_id, tt.utid, th.upid
  FROM thread_track tt JOIN thread th USING (utid)
  WHERE tt.utid IN (SELECT utid FROM artscope_target_thread)
),
-- The slices pauses are made of, on target threads (a few per GC): found
-- by the slice table alone (track IN, names), then given their thread (a
-- join in the same step would make the embedded engine walk every slice).
pause_slice_row AS MATERIALIZED (
  SELECT s.id, s.ts, s.dur, s.name, s.track_id
  FROM slice s
  WHERE s.track_id IN (SELECT track_id FROM target_track)
    AND (s.name IN ('ThreadListFlip', 'Suspending mutator threads',
                    'Resuming mutator threads')
         OR s.name GLOB '(Paused)*')
),
pause_slice AS MATERIALIZED (
  SELECT p.*, tk.utid, tk.upid
  FROM pause_slice_row p JOIN target_track tk USING (track_id)
),
-- A suspend-all: its Suspending slice and the end of the next Resuming
-- slice on the same track (NULL: none, or still open).
suspend_all AS (
  SELECT s.upid, s.utid, s.ts,
    (SELECT iif(r.dur = -1, NULL, r.ts + r.dur)
     FROM pause_slice r
     WHERE r.track_id = s.track_id AND r.name = 'Resuming mutator threads'
       AND r.ts >= s.ts + s.dur
     ORDER BY r.ts, r.id
     LIMIT 1) AS end_ts
  FROM pause_slice s
  WHERE s.name = 'Suspending mutator threads' AND s.dur != -1
),
piece AS MATERIALIZED (
  SELECT upid, utid, ts AS start_ts,
    iif(dur = -1, trace_end(), ts + dur) AS end_ts,
    iif(name = 'ThreadListFlip', 1, 3) AS source_rank,
    (dur = -1) AS unfinished
  FROM pause_slice
  WHERE name = 'ThreadListFlip' OR name GLOB '(Paused)*'
  UNION ALL
  SELECT upid, utid, ts, coalesce(end_ts, trace_end()), 2, (end_ts IS NULL)
  FROM suspend_all
  UNION ALL
  SELECT upid, utid, ts, trace_end(), 2, 1
  FROM pause_slice
  WHERE name = 'Suspending mutator threads' AND dur = -1
),
-- Merge overlapping or touching pieces of a process (islands in start order).
piece_ordered AS (
  SELECT *,
    max(end_ts) OVER (PARTITION BY upid ORDER BY start_ts, end_ts
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_end
  FROM piece
  WHERE end_ts > start_ts
),
piece_island AS MATERIALIZED (
  SELECT *,
    sum(iif(prev_max_end IS NULL OR start_ts > prev_max_end, 1, 0))
      OVER (PARTITION BY upid ORDER BY start_ts, end_ts ROWS UNBOUNDED PRECEDING) AS island
  FROM piece_ordered
),
pause AS MATERIALIZED (
  SELECT upid, island, min(start_ts) AS ts, max(end_ts) AS end_ts,
    min(source_rank) AS source_rank, max(unfinished) AS unfinished
  FROM piece_island
  GROUP BY upid, island
),
-- GCs of the target (as gc_events.sql), with the end that owns pauses.
gc_slice AS MATERIALIZED (
  SELECT s.id, s.ts, s.dur, s.track_id
  FROM slice s
  WHERE s.depth = 0 AND s.track_id IN (SELECT track_id FROM target_track)
    AND EXISTS (SELECT 1 FROM artscope_gc_pattern p WHERE s.name GLOB p.pattern)
),
gc AS MATERIALIZED (
  SELECT s.id AS gc_id, s.ts, tk.upid,
    iif(s.dur = -1, trace_end(),
      s.ts + s.dur + coalesce((
        SELECT iif(n.name = 'CompactionPhase', iif(n.dur = -1, trace_end() - n.ts, n.dur), 0)
        FROM slice n
        WHERE n.track_id = s.track_id AND n.depth = 0
          AND n.ts >= s.ts AND (n.ts > s.ts OR n.id > s.id)
        ORDER BY n.ts, n.id
        LIMIT 1), 0)) AS end_ts
  FROM gc_slice s
  JOIN target_track tk USING (track_id)
),
pause_gc AS MATERIALIZED (
  SELECT p.*,
    (SELECT g.gc_id FROM gc g
     WHERE g.upid = p.upid AND g.ts <= p.ts AND p.ts < g.end_ts
     ORDER BY g.ts DESC, g.gc_id DESC
     LIMIT 1) AS gc_id,
    (SELECT i.utid FROM piece_island i
     WHERE i.upid = p.upid AND i.island = p.island
     ORDER BY i.start_ts, i.end_ts
     LIMIT 1) AS utid
  FROM pause p
)
SELECT r.run, p.gc_id, p.ts, p.end_ts - p.ts AS dur,
  max(0, min(p.end_ts, r.end_ts) - max(p.ts, r.start_ts)) AS dur_in_run,
  CASE p.source_rank WHEN 1 THEN 'thread_list_flip' WHEN 2 THEN 'suspend_all'
    ELSE 'paused_phase' END AS source,
  p.unfinished, p.utid, th.tid, th.name AS thread_name
FROM pause_gc p
LEFT JOIN gc g ON g.gc_id = p.gc_id
JOIN artscope_run r
  ON (p.ts < r.end_ts AND p.end_ts > r.start_ts)
  OR (g.ts >= r.start_ts AND g.ts < r.end_ts)
JOIN thread th ON th.utid = p.utid
ORDER BY r.run, p.ts, p.upid
