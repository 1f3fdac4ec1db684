SELECT
  EXTRACT_ARG(dimension_arg_set_id, 'uid') AS uid,
  name
FROM track
WHERE type = 'android_energy_estimation_breakdown_per_uid'
  AND machine_id IS NOT NULL;
