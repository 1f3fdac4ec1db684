SELECT
  counter_track.name AS counter_name,
  process.name AS process,
  thread.name AS thread,
  thread_process.name AS thread_process,
  counter_track.unit AS unit,
  counter.ts,
  counter.value
FROM counter
LEFT JOIN counter_track ON counter.track_id = counter_track.id
LEFT JOIN process_counter_track ON counter.track_id = process_counter_track.id
LEFT JOIN process ON process_counter_track.upid = process.upid
LEFT JOIN thread_counter_track ON counter.track_id = thread_counter_track.id
LEFT JOIN thread ON thread_counter_track.utid = thread.utid
LEFT JOIN process thread_process ON thread.upid = thread_process.upid
ORDER BY ts ASC;
