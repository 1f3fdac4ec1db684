SELECT
  t.name,
  c.ts,
  c.value,
  m.raw_id as raw_machine_id
FROM
  counter AS c
JOIN
  counter_track AS t
  ON c.track_id = t.id
JOIN machine as m on t.machine_id = m.id
WHERE
  t.name GLOB "Cpu ? Cap" OR t.name GLOB "Cpu ? Util" OR t.name GLOB "Cpu ? Nr Running"
ORDER BY ts;
