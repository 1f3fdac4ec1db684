-- pinning_phases: the stretches of each run in which the target ran on its
-- allowed CPUs only, to tell whether and when a mask held
-- (artscope/metrics/compute.py: pinning_diagnosis). Read only for runs with
-- off-mask time.
--
-- An off-mask slice is a sched slice of a target thread on a CPU outside
-- the allowed set of its role (artscope_allowed_cpu, as pinning.sql judges
-- it), starting in W after the --pin-grace period; one still open at the
-- trace's end (dur -1) runs to W's end, so a trace cut while the app runs
-- off-mask does not look clean. A clean stretch runs from the end of the
-- off-mask time before it (or the grace period's end) to the start of the
-- next off-mask slice (or W's end). Every boundary is a timestamp of the
-- trace and the CPU sums start at W's start, so a trace and a prefix of it
-- see the same stretches up to the prefix's end. Roles without allowed CPUs
-- are left out.
--
-- A stretch shorter than 0.5 s (artscope's PINNED_STRETCH_MIN_NS) cannot
-- show pinning by its CPU alone, so only longer ones get CPU sums: the
-- target's CPU time of slices starting in the stretch (all on allowed CPUs)
-- and of slices starting between the previous such stretch's end (or W's
-- start) and this one's start, whose running sum is the app's CPU time so
-- far (an open slice counting until its CPU's data ends: the last event
-- recorded on that CPU, artscope_cpu_data_end; an open slice is always its
-- CPU's last, so none starts before a stretch).
--
-- Shape: the CPUs each target thread ran on in W are known
-- (artscope_target_cpu, the runner's pass over the target's sched rows, and
-- artscope_cpu_data_end's open slices): per run, thread and CPU outside its
-- allowed set, one scalar subquery reads that thread's slices on that CPU by
-- `utid =`, `cpu =` and a ts range, packed as JSON (only the off-mask
-- slices are read); the off-mask slices, few when the app was pinned, are
-- merged in ts order; the CPU sums are one lookup per long stretch and
-- thread.
--
-- Output columns (one row per run and clean stretch, in time order; the
-- first stretch, from the grace period's end, is there even when empty):
--   run            run id
--   start_ts       where the stretch begins (absolute trace ns)
--   end_ts         where it ends: the next off-mask slice's start, or W's end
--   cpu_ns         target CPU time in it (NULL: shorter than 0.5 s)
--   cpu_before_ns  target CPU time since the previous long stretch (or W's
--                  start) up to this one's start (NULL with cpu_ns)
--
-- Column types: run LONG, start_ts TIMESTAMP, end_ts TIMESTAMP, cpu_ns
--   DURATION, cpu_before_ns DURATION
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
-- per run, the target threads' CPUs outside their allowed sets: those they
-- ran on in W (artscope_target_cpu), and that of an open slice starting in
-- W (one that ends where it starts has no time in W, but is off-mask time
-- to end a stretch at)
off_mask_cpu AS MATERIALIZED (
  SELECT DISTINCT u.run, u.utid, u.cpu
  FROM (SELECT c.run, c.utid, c.cpu FROM artscope_target_cpu c
        UNION ALL
        SELECT r.run, o.utid, o.cpu FROM artscope_cpu_data_end o
        JOIN artscope_run r ON o.ts >= r.grace_end_ts AND o.ts < r.end_ts) u
  JOIN target t USING (utid)
  WHERE NOT ((t.allowed_mask >> u.cpu) & 1)
),
off_packed AS MATERIALIZED (
  SELECT r.run,
    (SELECT json_group_array(json_array(
              s.ts, min(iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                                         WHERE o.cpu = s.cpu AND o.ts = s.ts),
                            s.ts + s.dur), r.end_ts)))
     FROM sched s
     WHERE s.utid = c.utid AND s.cpu = c.cpu AND s.ts >= r.grace_end_ts AND s.ts < r.end_ts
       AND s.dur != 0) AS packed
  FROM off_mask_cpu c
  JOIN artscope_run r USING (run)
),
off_slice AS MATERIALIZED (
  SELECT p.run, o.value ->> 0 AS ts, o.value ->> 1 AS end_ts
  FROM off_packed p, json_each(p.packed) o
),
-- in ts order: how far off-mask time reaches so far, and the next start
off_reach AS (
  SELECT run,
    max(end_ts) OVER (PARTITION BY run ORDER BY ts, end_ts ROWS UNBOUNDED PRECEDING) AS reach,
    lead(ts) OVER (PARTITION BY run ORDER BY ts, end_ts) AS next_ts
  FROM off_slice
),
stretch AS MATERIALIZED (
  SELECT r.run, r.grace_end_ts AS start_ts,
    coalesce((SELECT min(o.ts) FROM off_slice o WHERE o.run = r.run), r.end_ts) AS end_ts
  FROM artscope_run r
  UNION ALL
  SELECT o.run, o.reach, coalesce(o.next_ts, r.end_ts)
  FROM off_reach o JOIN artscope_run r USING (run)
  WHERE coalesce(o.next_ts, r.end_ts) > o.reach
),
long_stretch AS MATERIALIZED (
  SELECT s.run, s.start_ts, s.end_ts, r.end_ts AS w_end,
    coalesce(lag(s.end_ts) OVER (PARTITION BY s.run ORDER BY s.start_ts), r.start_ts)
      AS since_ts
  FROM stretch s JOIN artscope_run r USING (run)
  WHERE s.end_ts - s.start_ts >= 500000000
),
-- a slice still open at the trace's end runs until its CPU's data ends
-- (artscope_cpu_data_end, as every CPU sum of artscope's), within W
long_cpu AS (
  SELECT l.run, l.start_ts,
    sum((SELECT coalesce(sum(iif(s.dur = -1, max(0, min(l.w_end,
                  (SELECT o.end_ts FROM artscope_cpu_data_end o
                   WHERE o.cpu = s.cpu AND o.ts = s.ts)) - s.ts), s.dur)), 0)
         FROM sched s
         WHERE s.utid = t.utid AND s.ts >= l.start_ts AND s.ts < l.end_ts
           AND s.dur != 0)) AS cpu_ns,
    sum((SELECT coalesce(sum(s.dur), 0) FROM sched s
         WHERE s.utid = t.utid AND s.ts >= l.since_ts AND s.ts < l.start_ts
           AND s.dur > 0)) AS cpu_before_ns
  FROM long_stretch l CROSS JOIN target t
  GROUP BY l.run, l.start_ts
)
SELECT s.run, s.start_ts, s.end_ts, c.cpu_ns, c.cpu_before_ns
FROM stretch s
LEFT JOIN long_cpu c ON c.run = s.run AND c.start_ts = s.start_ts
ORDER BY s.run, s.start_ts, s.end_ts
