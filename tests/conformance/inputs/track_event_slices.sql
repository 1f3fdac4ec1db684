SELECT
  track.name AS track,
  process.name AS process,
  thread.name AS thread,
  thread_process.name AS thread_process,
  slice.ts,
  slice.dur,
  slice.category,
  slice.name
FROM slice
LEFT JOIN track ON slice.track_id = track.id
LEFT JOIN process_track ON slice.track_id = process_track.id
LEFT JOIN process ON process_track.upid = process.upid
LEFT JOIN thread_track ON slice.track_id = thread_track.id
LEFT JOIN thread ON thread_track.utid = thread.utid
LEFT JOIN process thread_process ON thread.upid = thread_process.upid
ORDER BY ts ASC;
