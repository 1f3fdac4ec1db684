-- gc_pause: the target app's GC pauses as ART registers them -- from the
-- suspension of the mutators to the point where the collector calls
-- GarbageCollector::RegisterPause (docs/gc-pauses.md cites ART's source for
-- each layout).
--
--   * A thread flip (ThreadList::FlipThreadRoots: CC's flip, CMC's
--     compaction pause), one `ThreadListFlip` slice. The app runs again
--     before the slice ends, so the pause ends inside it:
--       - ART 15 and later: at the end of the `Resuming mutator threads`
--         inside the flip;
--       - ART 14: at the end of `ResumeRunnableThreads`;
--       - ART 13 and earlier: at the end of the flip callback
--         (`(Paused)FlipCallback`; CMC's `CompactionPause`).
--     The ART release is the platform's (metadata android_sdk_version, else
--     the build fingerprint's release); a mark-compact GC implies ART 14 or
--     later. Release unknown and both markers there: the callback's end,
--     `bound` 'lower' (ART 14 would add ResumeRunnableThreads). No inner
--     marker: the whole slice, `bound` 'upper'.
--   * A suspend-all (ThreadList::SuspendAll / ResumeAll, used by
--     GarbageCollector::ScopedPause: CMC's marking pause, CMS / MS / SS
--     pauses, CC's reference pause): from the start of `Suspending mutator
--     threads` to the end of the `Mutator threads suspended for <cause>` that
--     follows it (ScopedPause registers the pause before ResumeAll ends that
--     slice); without one, to the start of the next `Resuming mutator
--     threads`. Outside GCs (heap trim, debugger, ...) the same rule.
--   * A `(Paused)…` phase lying inside neither on any thread of the process
--     (its suspension was not traced): the phase, `bound` 'lower'.
-- A pause still open at the trace end runs to trace_end() (unfinished). A
-- pause belongs to the GC of the same process whose interval contains its
-- start (artscope_target_gc, the latest such GC); other pauses have no gc_id.
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
--   source        thread_list_flip | suspend_all | paused_phase
--   bound         exact | upper (a flip without inner markers: at most this)
--                 | lower (at least this)
--   end_slice     the slice whose end ends the pause (for a suspend-all
--                 without its `Mutator threads suspended for`, the
--                 `Resuming mutator threads` whose start does)
--   end_slice_id  that slice's id (NULL: still open at the trace end)
--   unfinished    the pause was still open at the trace end
--   utid, tid     the thread that held the mutators suspended
--   thread_name   its name
--
-- Column types: run LONG, gc_id LONG, ts TIMESTAMP, dur DURATION, dur_in_run
--   DURATION, source STRING, bound STRING, end_slice STRING, end_slice_id LONG,
--   unfinished BOOL, utid LONG, tid LONG, thread_name STRING
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
  SELECT s.id, s.ts, s.dur, s.depth, s.parent_id, s.name, s.track_id
  FROM slice s
  WHERE s.track_id IN (SELECT track_id FROM target_track)
    AND (s.name IN ('ThreadListFlip', 'ResumeRunnableThreads', 'CompactionPause',
                    'Suspending mutator threads', 'Resuming mutator threads')
         OR s.name GLOB 'Mutator threads suspended for *'
         OR s.name GLOB '(Paused)*')
),
pause_slice AS MATERIALIZED (
  SELECT p.*, iif(p.dur = -1, NULL, p.ts + p.dur) AS end_ts, tk.utid, tk.upid
  FROM pause_slice_row p JOIN target_track tk USING (track_id)
),
-- The GC each pause slice lies in: the latest GC of its process started at
-- or before it (one sweep per process over GC starts and slice starts, no
-- scan of the GCs per slice), if that GC is still running then.
gc_seq AS MATERIALIZED (
  SELECT gc_id, upid, ts, end_ts, name,
    row_number() OVER (PARTITION BY upid ORDER BY ts, gc_id) AS seq
  FROM artscope_target_gc
),
owner_sweep AS (
  SELECT upid, ts, 0 AS ord, seq, NULL AS id FROM gc_seq
  UNION ALL
  SELECT upid, ts, 1, NULL, id FROM pause_slice
  WHERE name IN ('ThreadListFlip', 'Suspending mutator threads') OR name GLOB '(Paused)*'
),
latest_gc AS MATERIALIZED (
  SELECT id, upid, ts,
    max(seq) OVER (PARTITION BY upid ORDER BY ts, ord ROWS UNBOUNDED PRECEDING) AS seq
  FROM owner_sweep
),
slice_gc AS MATERIALIZED (
  SELECT l.id, g.gc_id, g.name AS gc_name
  FROM latest_gc l JOIN gc_seq g ON g.upid = l.upid AND g.seq = l.seq
  WHERE l.id IS NOT NULL AND l.ts < g.end_ts
),
-- Whether ART registers a flip's pause after ResumeRunnableThreads (ART 14
-- and later): from the platform's SDK version, else its release in the
-- build fingerprint ("brand/product/device:14/..."); NULL when unknown.
art_release AS MATERIALIZED (
  SELECT coalesce(
    (SELECT int_value >= 34 FROM metadata WHERE name = 'android_sdk_version'),
    (SELECT CAST(substr(str_value, instr(str_value, ':') + 1) AS INTEGER) >= 14
     FROM metadata
     WHERE name = 'android_build_fingerprint' AND instr(str_value, ':') > 0))
    AS registers_after_resume
),
-- A flip's markers, from its children in one pass: the resumption inside it
-- (ART 15+), ResumeRunnableThreads, and the flip callback (a (Paused) child
-- or CMC's CompactionPause; the one ending last).
flip_child AS MATERIALIZED (
  SELECT c.parent_id AS flip_id, c.id, c.name, c.end_ts,
    row_number() OVER (PARTITION BY c.parent_id, c.name = 'Resuming mutator threads',
                                    c.name = 'ResumeRunnableThreads'
                       ORDER BY iif(c.name GLOB '(Paused)*' OR c.name = 'CompactionPause',
                                    -coalesce(c.end_ts, 0), c.ts), c.id) AS rank
  FROM pause_slice c
  WHERE c.parent_id IN (SELECT id FROM pause_slice WHERE name = 'ThreadListFlip')
    AND (c.name IN ('Resuming mutator threads', 'ResumeRunnableThreads')
         OR ((c.name GLOB '(Paused)*' OR c.name = 'CompactionPause')
             AND c.end_ts IS NOT NULL))
),
flip_marker AS (
  SELECT flip_id,
    max(iif(name = 'Resuming mutator threads', id, NULL)) AS resuming_id,
    max(iif(name = 'ResumeRunnableThreads', id, NULL)) AS resume_runnable_id,
    max(iif(name NOT IN ('Resuming mutator threads', 'ResumeRunnableThreads'), id, NULL))
      AS callback_id
  FROM flip_child
  WHERE rank = 1
  GROUP BY flip_id
),
flip AS MATERIALIZED (
  SELECT f.id, f.upid, f.utid, f.ts, f.end_ts, m.resuming_id, m.resume_runnable_id,
    m.callback_id, coalesce(o.gc_name GLOB '*mark compact*', 0) AS in_mark_compact
  FROM pause_slice f
  LEFT JOIN flip_marker m ON m.flip_id = f.id
  LEFT JOIN slice_gc o ON o.id = f.id
  WHERE f.name = 'ThreadListFlip'
),
flip_end AS (
  SELECT f.*,
    CASE
      WHEN f.resuming_id IS NOT NULL THEN f.resuming_id
      WHEN f.resume_runnable_id IS NOT NULL
           AND (coalesce(a.registers_after_resume, 0) OR f.in_mark_compact)
        THEN f.resume_runnable_id
      WHEN f.callback_id IS NOT NULL THEN f.callback_id
    END AS end_id,
    CASE
      WHEN f.resuming_id IS NOT NULL THEN 'exact'
      WHEN f.resume_runnable_id IS NOT NULL
           AND (coalesce(a.registers_after_resume, 0) OR f.in_mark_compact) THEN 'exact'
      WHEN f.callback_id IS NOT NULL AND f.resume_runnable_id IS NOT NULL
           AND a.registers_after_resume IS NULL THEN 'lower'
      WHEN f.callback_id IS NOT NULL THEN 'exact'
      ELSE 'upper'
    END AS bound
  FROM flip f CROSS JOIN art_release a
),
-- A suspend-all's end: the next `Mutator threads suspended for` and the next
-- `Resuming mutator threads` after its `Suspending mutator threads`, on the
-- same thread at its depth (a backward sweep per track and depth carries
-- the nearest later one of each).
sibling AS MATERIALIZED (
  SELECT id, track_id, depth, name,
    row_number() OVER (PARTITION BY track_id, depth ORDER BY ts, id) AS seq
  FROM pause_slice
  WHERE name IN ('Suspending mutator threads', 'Resuming mutator threads')
     OR name GLOB 'Mutator threads suspended for *'
),
next_sibling AS (
  SELECT id, track_id, depth, name,
    min(iif(name GLOB 'Mutator threads suspended for *', seq, NULL))
      OVER later AS suspended_seq,
    min(iif(name = 'Resuming mutator threads', seq, NULL)) OVER later AS resuming_seq
  FROM sibling
  WINDOW later AS (PARTITION BY track_id, depth ORDER BY seq DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
suspend_all AS (
  SELECT s.upid, s.utid, s.ts, s.id, m.id AS suspended_id, r.id AS resuming_id
  FROM next_sibling n
  JOIN pause_slice s ON s.id = n.id
  LEFT JOIN sibling m
    ON m.track_id = n.track_id AND m.depth = n.depth AND m.seq = n.suspended_seq
  LEFT JOIN sibling r
    ON r.track_id = n.track_id AND r.depth = n.depth AND r.seq = n.resuming_seq
  WHERE n.name = 'Suspending mutator threads'
),
piece AS MATERIALIZED (
  SELECT f.id AS start_id, f.upid, f.utid, f.ts,
    coalesce(e.end_ts, iif(f.bound = 'upper', f.end_ts, NULL)) AS end_ts,
    'thread_list_flip' AS source, f.bound,
    coalesce(e.name, iif(f.bound = 'upper', 'ThreadListFlip', NULL)) AS end_slice,
    coalesce(e.id, iif(f.bound = 'upper' AND f.end_ts IS NOT NULL, f.id, NULL)) AS end_slice_id
  FROM flip_end f LEFT JOIN pause_slice e ON e.id = f.end_id
  UNION ALL
  SELECT s.id, s.upid, s.utid, s.ts,
    coalesce(m.end_ts, iif(m.id IS NULL AND r.ts >= s.ts, r.ts, NULL)),
    'suspend_all', 'exact',
    coalesce(m.name, r.name), iif(m.end_ts IS NOT NULL, m.id, iif(m.id IS NULL, r.id, NULL))
  FROM suspend_all s
  LEFT JOIN pause_slice m ON m.id = s.suspended_id
  LEFT JOIN pause_slice r ON r.id = s.resuming_id
),
-- Pieces with their end (NULL: open at the trace end).
flip_or_suspend AS MATERIALIZED (
  SELECT start_id, upid, utid, ts, coalesce(end_ts, trace_end()) AS end_ts, source, bound,
    end_slice, iif(end_ts IS NULL, NULL, end_slice_id) AS end_slice_id,
    (end_ts IS NULL) AS unfinished
  FROM piece
),
-- (Paused) phases whose suspension is not in the trace: inside no flip or
-- suspend-all of their process (a sweep over the process's pieces and
-- phases: the latest piece started at or before the phase must end after it).
phase_sweep AS (
  SELECT upid, ts, 0 AS ord, coalesce(end_ts, trace_end()) AS covered_to, NULL AS id
  FROM pause_slice WHERE name = 'ThreadListFlip'
  UNION ALL
  SELECT upid, ts, 0, end_ts, NULL FROM flip_or_suspend WHERE source = 'suspend_all'
  UNION ALL
  SELECT upid, ts, 1, NULL, id FROM pause_slice WHERE name GLOB '(Paused)*'
),
phase_cover AS (
  SELECT id, ts,
    max(covered_to) OVER (PARTITION BY upid ORDER BY ts, ord ROWS UNBOUNDED PRECEDING)
      AS covered_to
  FROM phase_sweep
),
lone_phase AS (
  SELECT p.id AS start_id, p.upid, p.utid, p.ts, coalesce(p.end_ts, trace_end()) AS end_ts,
    'paused_phase' AS source, 'lower' AS bound, p.name AS end_slice,
    iif(p.end_ts IS NULL, NULL, p.id) AS end_slice_id, (p.end_ts IS NULL) AS unfinished
  FROM phase_cover c JOIN pause_slice p ON p.id = c.id
  WHERE c.id IS NOT NULL AND coalesce(c.covered_to, c.ts) <= c.ts
),
pause AS MATERIALIZED (
  SELECT * FROM flip_or_suspend WHERE end_ts > ts
  UNION ALL
  SELECT * FROM lone_phase WHERE end_ts > ts
),
pause_gc AS MATERIALIZED (
  SELECT p.*, o.gc_id FROM pause p LEFT JOIN slice_gc o ON o.id = p.start_id
)
SELECT r.run, p.gc_id, p.ts, p.end_ts - p.ts AS dur,
  max(0, min(p.end_ts, r.end_ts) - max(p.ts, r.start_ts)) AS dur_in_run,
  p.source, p.bound, p.end_slice, p.end_slice_id, p.unfinished,
  p.utid, th.tid, th.name AS thread_name
FROM pause_gc p
LEFT JOIN gc_seq g ON g.gc_id = p.gc_id
JOIN artscope_run r
  ON (p.ts < r.end_ts AND p.end_ts > r.start_ts)
  OR (g.ts >= r.start_ts AND g.ts < r.end_ts)
JOIN thread th ON th.utid = p.utid
ORDER BY r.run, p.ts, p.upid
