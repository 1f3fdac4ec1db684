SELECT
  p.pid,
  p.name,
  parent.pid AS parent_pid
FROM process p
LEFT JOIN process parent ON p.parent_upid = parent.upid
WHERE p.pid IN (200, 300)
ORDER BY p.pid, p.name;
