-- Plain-SQL rewrite of INCLUDE PERFETTO MODULE linux.cpu.idle_stats;
-- SELECT * FROM cpu_idle_stats;
-- Idle intervals: each cpuidle sample lasts until the next one on its track;
-- 4294967295 means "exit idle". State is reported 1-based; idle_percent is
-- the idle time over the trace duration.
WITH idle AS (
  SELECT
    t.cpu,
    c.value,
    LEAD(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts) - c.ts AS dur
  FROM counter c
  JOIN cpu_counter_track t ON c.track_id = t.id
  WHERE t.name = 'cpuidle'
)
SELECT
  cpu,
  CAST(value AS INT) + 1 AS state,
  COUNT(*) AS count,
  SUM(dur) AS dur,
  SUM(dur) / COUNT(*) AS avg_dur,
  SUM(dur) * 100.0 / (trace_end() - trace_start()) AS idle_percent
FROM idle
WHERE value != 4294967295 AND dur IS NOT NULL
GROUP BY cpu, value
ORDER BY cpu, value;
