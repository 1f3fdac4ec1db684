-- Plain-SQL rewrite of INCLUDE PERFETTO MODULE android.cpu.cluster_type;
-- SELECT ucpu, cpu, cluster_type FROM android_cpu_cluster_mapping;
WITH cores(cluster_id, cluster_type, cluster_count) AS (
  VALUES (0, 'little', 2), (1, 'big', 2),
         (0, 'little', 3), (1, 'medium', 3), (2, 'big', 3),
         (0, 'little', 4), (1, 'medium', 4), (2, 'medium', 4), (3, 'big', 4)
)
SELECT
  ucpu,
  cpu,
  cores.cluster_type AS cluster_type
FROM
  cpu
  LEFT JOIN cores
    ON cores.cluster_id = cpu.cluster_id
    AND cores.cluster_count = (SELECT COUNT(DISTINCT cluster_id) FROM cpu)
ORDER BY ucpu;
