-- cpufreq_change: every change of each CPU's frequency over the whole trace
-- (frequency.sql's 'cpufreq' series; a sample repeating the previous value
-- changes nothing), with the next change and a key that orders the changes
-- and carries the value. A shared CTE (runner.SHARED_CTES): the files that
-- name cpufreq_change read it inlined, as the GC-under-DVFS files do.
--
-- Output columns (one row per change, per CPU in time order):
--   cpu        the CPU
--   ts         when the value took effect (absolute trace ns)
--   khz        the new frequency, kHz (0: unknown, as a polled 0 is)
--   prev_khz   the previous sample's value (NULL for the CPU's first)
--   next_ts    the CPU's next change (NULL for its last)
--   key        ordinal of the change on its CPU * 2^24 + kHz: max(key)
--              over a sweep is the last change, key % 2^24 its value
--
-- Column types: cpu LONG, ts TIMESTAMP, khz DOUBLE, prev_khz DOUBLE, next_ts
--   TIMESTAMP, key LONG
WITH
freq_sample AS (
  SELECT t.cpu, c.ts, c.id, c.value AS khz, lag(c.value) OVER w AS prev_khz
  FROM counter c JOIN cpu_counter_track t ON t.id = c.track_id
  WHERE t.name = 'cpufreq'
  WINDOW w AS (PARTITION BY t.cpu ORDER BY c.ts, c.id)
)
SELECT cpu, ts, khz, prev_khz, lead(ts) OVER w AS next_ts,
  row_number() OVER w * 16777216 + khz AS key
FROM freq_sample
WHERE prev_khz IS NULL OR khz != prev_khz
WINDOW w AS (PARTITION BY cpu ORDER BY ts, id)
