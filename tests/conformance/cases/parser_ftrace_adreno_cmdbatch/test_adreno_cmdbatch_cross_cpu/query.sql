SELECT
  slice.name as name,
  slice.ts as ts,
  slice.dur as dur,
  track.name as track_name
FROM slice
JOIN track ON slice.track_id = track.id
WHERE track.type = 'adreno_gpu_cmdbatch'
