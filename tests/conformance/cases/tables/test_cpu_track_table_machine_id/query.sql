SELECT
  c.ucpu,
  ct.cpu,
  c.machine_id
FROM cpu_track AS ct
JOIN cpu AS c ON ct.machine_id IS c.machine_id AND ct.cpu = c.cpu
ORDER BY ct.cpu
