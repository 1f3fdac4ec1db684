SELECT
  cpu,
  EXTRACT_ARG(arg_set_id, 'cpu_features.mte') AS mte,
  EXTRACT_ARG(arg_set_id, 'cpu_features.mte3') AS mte3,
  EXTRACT_ARG(arg_set_id, 'cpu_features.raw_bitmap') AS raw_bitmap,
  EXTRACT_ARG(arg_set_id, 'arm_cpu_part') AS arm_cpu_part
FROM cpu;
