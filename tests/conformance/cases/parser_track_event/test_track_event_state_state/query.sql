SELECT
  state_track.name AS state_name,
  process.name AS process,
  thread.name AS thread,
  thread_process.name AS thread_process,
  state.ts,
  state.value
FROM state
LEFT JOIN state_track ON state.track_id = state_track.id
LEFT JOIN process_state_track ON state.track_id = process_state_track.id
LEFT JOIN process ON process_state_track.upid = process.upid
LEFT JOIN thread_state_track ON state.track_id = thread_state_track.id
LEFT JOIN thread ON thread_state_track.utid = thread.utid
LEFT JOIN process thread_process ON thread.upid = thread_process.upid
ORDER BY ts ASC;
