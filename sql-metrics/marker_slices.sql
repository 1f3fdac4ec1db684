-- marker_slices: the slices that delimit runs (--marker NAME, or the
-- android-benchmark-runner harness slice "App Benchmark").
--
-- Output columns:
--   id, ts, dur   the slice (dur -1 when still open at trace end)
--   utid          its thread when on a thread track, else NULL
--   upid          its process (thread's process or process track's)
--
-- Column types: id LONG, ts TIMESTAMP, dur DURATION, utid LONG, upid LONG
SELECT s.id, s.ts, s.dur, tt.utid,
  coalesce(th.upid, pt.upid) AS upid
FROM slice s
LEFT JOIN thread_track tt ON tt.id = s.track_id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN process_track pt ON pt.id = s.track_id
WHERE s.name IN (SELECT name FROM artscope_marker)
ORDER BY s.ts, s.id
