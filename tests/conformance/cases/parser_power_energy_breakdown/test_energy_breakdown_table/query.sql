SELECT
  EXTRACT_ARG(
    dimension_arg_set_id,
    'energy_consumer_id'
  ) AS consumer_id,
  name,
  EXTRACT_ARG(source_arg_set_id, 'consumer_type') AS consumer_type,
  EXTRACT_ARG(source_arg_set_id, 'ordinal') AS ordinal
FROM track
WHERE type = 'android_energy_estimation_breakdown';
