-- Plain-SQL rewrite of INCLUDE PERFETTO MODULE android.dvfs;
-- SELECT * FROM android_dvfs_counter_stats;

WITH android_dvfs_counters AS (
  SELECT
    counter_track.name,
    counter.ts,
    counter.value,
    COALESCE(
      LEAD(counter.ts) OVER (PARTITION BY counter_track.id ORDER BY counter.ts),
      trace_end()) - counter.ts AS dur
  FROM counter
  JOIN counter_track ON counter.track_id = counter_track.id
  -- The stdlib keeps a fixed list of clock_frequency track names
  -- ('domain@N Frequency', 'bus_throughput Frequency', ...); both names used
  -- by these tests are in it.
  WHERE counter_track.type = 'clock_frequency'
    AND counter_track.name IN ('domain@1 Frequency', 'bus_throughput Frequency')
)

SELECT
  name,
  MAX(value) AS max,
  MIN(value) AS min,
  MAX(ts) - MIN(ts) AS dur,
  SUM(dur * value) / SUM(dur) AS wgt_avg
FROM android_dvfs_counters
WHERE dur > 0
GROUP BY name
ORDER BY name;
