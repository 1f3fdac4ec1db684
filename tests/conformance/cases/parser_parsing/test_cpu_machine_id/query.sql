SELECT
  cpu,
  cluster_id,
  processor
FROM cpu
WHERE machine_id is not NULL;
