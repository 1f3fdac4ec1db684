-- pinning_phases: the target's CPU time on and off its allowed CPUs over the
-- course of each run, in 100 equal bins of W, to tell when pinning held
-- (artscope/metrics/compute.py classifies: never pinned, pinned late, mask
-- lost mid-run). Read only for runs with off-mask time.
--
-- A sched slice counts, whole, in the bin where it starts: the bins say
-- when pinning held, not how much CPU there was (pinning.sql says that), so
-- slices reaching in from before W, open ones (dur -1) and a slice's part
-- past W's end are left out. CPUs are judged against the allowed set of the
-- thread's role (artscope_allowed_cpu), as pinning.sql does; roles without
-- allowed CPUs are left out, and so is the --pin-grace period (slices
-- starting before grace_end_ts), whose off-mask time is forgiven.
--
-- Shape (as pinning.sql's interior): per run and target thread, one scalar
-- subquery reads the thread's slices by `utid =` and a ts range (the engines
-- filter those constraints natively) and sums them by bin, testing the CPU
-- against the role's allowed set as a bit mask; packed as one JSON array,
-- unpacked and summed over threads below.
--
-- Output columns (one row per run and bin with target CPU time):
--   run                run id
--   bin                0..99: which hundredth of W
--   allowed_ns         CPU time of slices on allowed CPUs starting there
--   off_mask_ns        CPU time of slices on other CPUs starting there
--   first_off_ts       start of the first off-mask slice there (NULL if none)
--   last_off_end_ts    end of the last off-mask slice there (NULL if none)
--
-- Column types: run LONG, bin LONG, allowed_ns DURATION, off_mask_ns DURATION,
--   first_off_ts TIMESTAMP, last_off_end_ts TIMESTAMP
WITH
-- the target threads whose role has allowed CPUs, each with its allowed set
-- as a bit mask (bit c: CPU c allowed), tested per slice without a lookup
target AS MATERIALIZED (
  SELECT t.utid,
    (SELECT sum(1 << a.cpu) FROM (SELECT DISTINCT cpu, role FROM artscope_allowed_cpu) a
     WHERE a.role = t.role) AS allowed_mask
  FROM artscope_target_thread t
  WHERE EXISTS (SELECT 1 FROM artscope_allowed_cpu a WHERE a.role = t.role)
),
per_thread AS MATERIALIZED (
  SELECT r.run,
    (SELECT json_group_array(json_array(bin, allowed_ns, off_mask_ns, first_off_ts,
                                        last_off_end_ts))
     FROM (
       SELECT (s.ts - r.start_ts) * 100 / (r.end_ts - r.start_ts) AS bin,
         sum(iif((t.allowed_mask >> s.cpu) & 1, s.dur, 0)) AS allowed_ns,
         sum(iif((t.allowed_mask >> s.cpu) & 1, 0, s.dur)) AS off_mask_ns,
         min(iif((t.allowed_mask >> s.cpu) & 1, NULL, s.ts)) AS first_off_ts,
         max(iif((t.allowed_mask >> s.cpu) & 1, NULL, s.ts + s.dur)) AS last_off_end_ts
       FROM sched s
       WHERE s.utid = t.utid AND s.ts >= r.grace_end_ts AND s.ts < r.end_ts
         AND s.dur > 0
       GROUP BY bin)) AS packed
  FROM artscope_run r
  CROSS JOIN target t
)
SELECT p.run, g.value ->> 0 AS bin,
  sum(g.value ->> 1) AS allowed_ns,
  sum(g.value ->> 2) AS off_mask_ns,
  min(g.value ->> 3) AS first_off_ts,
  max(g.value ->> 4) AS last_off_end_ts
FROM per_thread p, json_each(p.packed) g
GROUP BY p.run, bin
ORDER BY p.run, bin
