-- pinning_phases: the target's CPU time on and off its allowed CPUs over the
-- course of each run, in 100 equal bins of W, to tell when pinning held
-- (artscope/metrics/compute.py classifies: never pinned, pinned late, mask
-- lost mid-run). Read only for runs with off-mask time.
--
-- A sched slice counts in the bin where its clipped start falls, with its
-- clipped length; an open slice (dur -1) ends at the next slice on its CPU,
-- else at trace_end(). CPUs are judged against the allowed set of the
-- thread's role (artscope_allowed_cpu), as pinning.sql does; roles without
-- allowed CPUs are left out, and so is the --pin-grace period (slices
-- starting before grace_end_ts), whose off-mask time is forgiven.
--
-- Output columns (one row per run and bin with target CPU time):
--   run                run id
--   bin                0..99: which hundredth of W
--   allowed_ns         CPU time of slices on allowed CPUs starting there
--   off_mask_ns        CPU time of slices on other CPUs starting there
--   first_off_ts       clipped start of the first off-mask slice there (NULL if none)
--   last_off_end_ts    clipped end of the last off-mask slice there (NULL if none)
WITH
target AS MATERIALIZED (
  SELECT t.utid, t.role FROM artscope_target_thread t
  WHERE EXISTS (SELECT 1 FROM artscope_allowed_cpu a WHERE a.role = t.role)
),
target_sched AS (
  SELECT t.role, s.cpu, s.ts,
    CASE WHEN s.dur = -1 THEN coalesce(
      (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts), trace_end())
    ELSE s.ts + s.dur END AS end_ts
  FROM target t
  CROSS JOIN sched s ON s.utid = t.utid
),
clipped AS (
  SELECT r.run, s.role, s.cpu,
    max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end,
    r.start_ts, r.end_ts - r.start_ts AS w_len
  FROM target_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
  WHERE max(s.ts, r.start_ts) >= r.grace_end_ts
),
judged AS (
  SELECT c.run, (c.c_start - c.start_ts) * 100 / c.w_len AS bin,
    c.c_start, c.c_end, c.c_end - c.c_start AS dur,
    EXISTS (SELECT 1 FROM artscope_allowed_cpu a WHERE a.role = c.role AND a.cpu = c.cpu)
      AS allowed
  FROM clipped c
)
SELECT run, bin,
  sum(iif(allowed, dur, 0)) AS allowed_ns,
  sum(iif(allowed, 0, dur)) AS off_mask_ns,
  min(iif(allowed, NULL, c_start)) AS first_off_ts,
  max(iif(allowed, NULL, c_end)) AS last_off_end_ts
FROM judged
WHERE dur > 0
GROUP BY run, bin
ORDER BY run, bin
