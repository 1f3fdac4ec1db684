SELECT
  cpu,
  cluster_id,
  processor
FROM cpu;
