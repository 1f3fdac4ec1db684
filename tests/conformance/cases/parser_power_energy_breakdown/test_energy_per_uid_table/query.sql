SELECT
  EXTRACT_ARG(
    dimension_arg_set_id,
    'energy_consumer_id'
  ) AS consumer_id,
  EXTRACT_ARG(dimension_arg_set_id, 'uid') AS uid
FROM track
WHERE type = 'android_energy_estimation_breakdown_per_uid';
