-- direct_reclaim: the target's time inside direct reclaim, slice by slice.
--
-- A thread that allocates when free memory is short reclaims pages itself,
-- synchronously, before its allocation returns. The kernel marks that with
-- mm_vmscan_direct_reclaim_begin / _end (ftrace vmscan/*), which
-- trace_processor imports as "mm_vmscan_direct_reclaim" slices on the
-- thread's own track. Every such slice of a target thread (GC threads
-- included) overlapping W, clipped to W; an unfinished slice (dur -1) ends
-- at trace_end(). Direct reclaim does not nest, so the slices of one thread
-- never overlap.
--
-- Output columns (one row per run and reclaim slice):
--   run, utid, tid, thread_name, role
--   ts                start of the slice's part in W
--   end_ts            end of the slice's part in W
--   dur               end_ts - ts: time in direct reclaim within W
--
-- Column types: run LONG, utid LONG, tid LONG, thread_name STRING, role
--   STRING, ts TIMESTAMP, end_ts TIMESTAMP, dur DURATION
WITH
target_track AS MATERIALIZED (
  SELECT tt.id AS track_id, t.utid, t.role
  FROM thread_track tt JOIN artscope_target_thread t USING (utid)
),
-- the IN (beside the join) lets the slice table filter by track itself
reclaim_slice AS MATERIALIZED (
  SELECT tk.utid, tk.role, s.ts,
    iif(s.dur = -1, trace_end(), s.ts + s.dur) AS end_ts
  FROM slice s
  JOIN target_track tk USING (track_id)
  WHERE s.name = 'mm_vmscan_direct_reclaim'
    AND s.track_id IN (SELECT track_id FROM target_track)
)
SELECT r.run, c.utid, th.tid, th.name AS thread_name, c.role,
  max(c.ts, r.start_ts) AS ts,
  min(c.end_ts, r.end_ts) AS end_ts,
  min(c.end_ts, r.end_ts) - max(c.ts, r.start_ts) AS dur
FROM reclaim_slice c
JOIN artscope_run r ON c.ts < r.end_ts AND c.end_ts > r.start_ts
JOIN thread th USING (utid)
ORDER BY r.run, ts, c.utid
