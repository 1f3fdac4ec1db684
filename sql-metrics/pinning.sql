-- pinning: where the target threads ran, per run, thread and CPU.
--
-- A violation is a sched slice of a target thread, overlapping W, on a CPU
-- outside the allowed set of the thread's role (artscope_allowed_cpu).
-- Violating time before grace_end_ts (the --pin-grace period at the start of
-- W) is reported separately and excluded from everything else.
--
-- Output columns (one row per run, utid, cpu the thread ran on in W):
--   run, utid, tid, thread_name, role
--   upid, pid           the thread's process
--   cpu                 the CPU
--   allowed             1 if cpu is in the allowed set of the thread's role
--   cpu_ns              CPU time on that CPU in W
--   grace_off_mask_ns   off-mask CPU time before grace_end_ts (0 if allowed)
--   off_mask_ns         off-mask CPU time from grace_end_ts on (0 if allowed)
--   violation_slices    violating slices with time after grace_end_ts
--   first_violation_ts  clipped start of the first such slice (NULL if none)
--   last_violation_end_ts  clipped end of the last such slice (NULL if none)
WITH
target AS (
  SELECT t.utid, t.role, th.tid, th.name AS thread_name, th.upid, p.pid
  FROM artscope_target_thread t
  JOIN thread th USING (utid)
  LEFT JOIN process p USING (upid)
),
target_sched AS (
  SELECT s.utid, s.cpu, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts
  FROM sched s
  WHERE s.utid IN (SELECT utid FROM target)
),
sched_in_run AS (
  SELECT r.run, r.grace_end_ts, s.utid, s.cpu,
    max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end
  FROM target_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
),
classified AS (
  SELECT s.*, t.role,
    EXISTS (SELECT 1 FROM artscope_allowed_cpu a
            WHERE a.cpu = s.cpu AND a.role = t.role) AS allowed,
    -- Part of the slice after the grace period.
    max(s.c_start, s.grace_end_ts) AS post_start
  FROM sched_in_run s JOIN target t USING (utid)
)
SELECT c.run, c.utid, t.tid, t.thread_name, c.role, t.upid, t.pid, c.cpu,
  c.allowed,
  sum(c.c_end - c.c_start) AS cpu_ns,
  sum(iif(c.allowed, 0, max(0, min(c.c_end, c.grace_end_ts) - c.c_start))) AS grace_off_mask_ns,
  sum(iif(c.allowed, 0, max(0, c.c_end - c.post_start))) AS off_mask_ns,
  sum(iif(NOT c.allowed AND c.c_end > c.post_start, 1, 0)) AS violation_slices,
  min(iif(NOT c.allowed AND c.c_end > c.post_start, c.post_start, NULL)) AS first_violation_ts,
  max(iif(NOT c.allowed AND c.c_end > c.post_start, c.c_end, NULL)) AS last_violation_end_ts
FROM classified c JOIN target t USING (utid)
GROUP BY c.run, c.utid, c.cpu
ORDER BY c.run, c.utid, c.cpu
