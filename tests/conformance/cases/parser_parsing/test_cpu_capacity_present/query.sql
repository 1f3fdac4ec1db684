SELECT
  cpu,
  cluster_id,
  capacity,
  processor
FROM cpu
ORDER BY cpu
