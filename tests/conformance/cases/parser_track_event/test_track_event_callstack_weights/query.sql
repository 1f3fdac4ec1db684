SELECT
  slice.name,
  iif(callsite_id IS NOT NULL, 'begin', 'end') AS event_type,
  weight
FROM __intrinsic_track_event_callstacks
JOIN slice USING (slice_id)
ORDER BY slice.name, event_type;
