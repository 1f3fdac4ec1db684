SELECT ts, cpu, dur FROM sched
WHERE
  cpu = 1
  AND dur > 50
  AND dur <= 100
  AND ts >= 100
  AND ts <= 400;
