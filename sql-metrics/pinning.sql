-- pinning: where the target threads ran, per run, thread and CPU.
--
-- A violation is a sched slice of a target thread, overlapping W, on a CPU
-- outside the allowed set of the thread's role (artscope_allowed_cpu).
-- Violating time before grace_end_ts (the --pin-grace period at the start of
-- W) is reported separately and excluded from everything else.
--
-- The CPU time per run, thread and CPU comes from artscope_target_cpu (the
-- runner's one pass over the target's sched rows, target_cpu_time.sql); here it
-- is classified by the allowed set of the thread's role and given the
-- thread's identity.
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
--
-- Column types: run LONG, utid LONG, tid LONG, thread_name STRING, role
--   STRING, upid LONG, pid LONG, cpu LONG, allowed BOOL, cpu_ns DURATION,
--   grace_off_mask_ns DURATION, off_mask_ns DURATION, violation_slices LONG,
--   first_violation_ts TIMESTAMP, last_violation_end_ts TIMESTAMP
WITH
target AS MATERIALIZED (
  SELECT t.utid, t.role, th.tid, th.name AS thread_name, th.upid, p.pid
  FROM artscope_target_thread t
  JOIN thread th USING (utid)
  LEFT JOIN process p USING (upid)
),
classified AS (
  SELECT c.*, t.role,
    EXISTS (SELECT 1 FROM artscope_allowed_cpu a
            WHERE a.cpu = c.cpu AND a.role = t.role) AS allowed
  FROM artscope_target_cpu c JOIN target t USING (utid)
)
SELECT c.run, c.utid, t.tid, t.thread_name, c.role, t.upid, t.pid, c.cpu,
  c.allowed,
  c.cpu_ns,
  iif(c.allowed, 0, c.grace_ns) AS grace_off_mask_ns,
  iif(c.allowed, 0, c.post_ns) AS off_mask_ns,
  iif(c.allowed, 0, c.post_slices) AS violation_slices,
  iif(c.allowed, NULL, c.first_post_ts) AS first_violation_ts,
  iif(c.allowed, NULL, c.last_post_end_ts) AS last_violation_end_ts
FROM classified c JOIN target t USING (utid)
ORDER BY c.run, c.utid, c.cpu
