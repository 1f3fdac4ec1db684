WITH inline_slices AS (
  SELECT
    callsite_id
  FROM slice
  JOIN __intrinsic_track_event_callstacks USING (slice_id)
  WHERE name GLOB 'Inline Slice *'
),
inline_stats AS (
  SELECT
    COUNT(DISTINCT callsite_id) AS inline_unique_callstacks
  FROM inline_slices
  WHERE callsite_id IS NOT NULL
)
SELECT
  slice.name,
  COALESCE(spf.name, '[NULL]') AS leaf_frame,
  COALESCE(sps.source_file, '[NULL]') AS source_file,
  COALESCE(sps.line_number, 0) AS line_number,
  inline_stats.inline_unique_callstacks
FROM slice
CROSS JOIN inline_stats
LEFT JOIN __intrinsic_track_event_callstacks tec
  ON tec.slice_id = slice.id AND tec.callsite_id IS NOT NULL
LEFT JOIN stack_profile_callsite spc
  ON spc.id = tec.callsite_id
LEFT JOIN stack_profile_frame spf
  ON spf.id = spc.frame_id
LEFT JOIN stack_profile_symbol sps
  ON sps.symbol_set_id = spf.symbol_set_id AND sps.id = spf.symbol_set_id
WHERE slice.name IN ('Inline Slice 1', 'Inline Slice 2', 'Interned Slice')
ORDER BY slice.name;
