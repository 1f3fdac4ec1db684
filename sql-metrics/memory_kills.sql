-- memory_kills: processes killed to free memory, anywhere in the trace.
--
-- Three kinds of record, each a kill of one process:
--   'lmkd'      Android's low-memory killer daemon. lmkd writes the killed
--               pid as the atrace counter kill_one_process (reset to 0 after
--               the kill; trace_processor also adds an "mem.lmk" instant for
--               it), and newer lmkd versions write a slice named
--               "lmk,<pid>,<kill reason>,<oom_score_adj>,..." (an instant on
--               the lowmemorykiller track, or a slice on lmkd's thread).
--   'oom_kill'  the kernel OOM killer's choice (ftrace oom/mark_victim):
--               trace_processor's "mem.oom_kill" instant on the victim's
--               thread track.
-- One kill reported by both lmkd records (same pid, same ts) is one row.
-- The process is the last one with that pid that started at or before the
-- kill (pids are reused).
--
-- Output columns (one row per kill):
--   ts            when the kill was recorded
--   pid           the killed process's pid
--   upid          its process (NULL when the trace does not know it)
--   process_name  its name
--   source        'lmkd' | 'oom_kill'
--   is_target     1 when it is a target process
--
-- Column types: ts TIMESTAMP, pid LONG, upid LONG, process_name STRING, source
--   STRING, is_target BOOL
WITH
lmkd_counter AS (
  SELECT c.ts, CAST(c.value AS INT) AS pid, 'lmkd' AS source
  FROM counter c
  JOIN counter_track ct ON c.track_id = ct.id
  WHERE ct.name = 'kill_one_process' AND c.value > 0
),
-- 'lmk,<pid>,...': the pid is the text between the first and second comma
lmkd_slice AS (
  SELECT s.ts,
    CAST(substr(s.name, 5, instr(substr(s.name, 5) || ',', ',') - 1) AS INT) AS pid,
    'lmkd' AS source
  FROM slice s
  WHERE s.name GLOB 'lmk,[0-9]*'
),
oom_kill AS (
  SELECT s.ts, p.pid, 'oom_kill' AS source
  FROM slice s
  JOIN thread_track tt ON s.track_id = tt.id
  JOIN thread th USING (utid)
  JOIN process p USING (upid)
  WHERE s.name = 'mem.oom_kill'
),
kill AS MATERIALIZED (
  SELECT ts, pid, source FROM lmkd_counter
  UNION
  SELECT ts, pid, source FROM lmkd_slice
  UNION
  SELECT ts, pid, source FROM oom_kill
),
kill_process AS (
  SELECT k.ts, k.pid, k.source,
    (SELECT p.upid FROM process p
     WHERE p.pid = k.pid AND (p.start_ts IS NULL OR p.start_ts <= k.ts)
     ORDER BY coalesce(p.start_ts, 0) DESC, p.upid DESC LIMIT 1) AS upid
  FROM kill k
)
SELECT k.ts, k.pid, k.upid, p.name AS process_name, k.source,
  coalesce(k.upid IN (SELECT upid FROM artscope_target_process), 0) AS is_target
FROM kill_process k
LEFT JOIN process p USING (upid)
ORDER BY k.ts, k.pid
