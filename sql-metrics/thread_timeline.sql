-- thread_timeline: every sched slice of the target threads in each run, for
-- the thread-by-CPU timeline chart (artscope.report.charts.timeline).
--
-- A sched slice with dur = -1 ends at the next sched slice on the same CPU,
-- else where that CPU's data ends (artscope_cpu_data_end). Slices are clipped to W = [start_ts, end_ts); a slice
-- with no overlap with W is dropped. `allowed` uses the allowed set of the
-- thread's role (artscope_allowed_cpu), as pinning.sql does; it is NULL when
-- that role has no allowed CPUs (no --cpus given and none derivable).
-- The chart downsamples these rows in Python before plotting.
--
-- Rows come in no particular order: the chart sorts its own (polars), and
-- SQLite's sorter on these ~370k rows (a minute of a busy app) cost more
-- than the rest of the query. Add an ORDER BY where a query needs one.
--
-- Output columns (one row per run and sched slice):
--   run            run id (artscope_run.run)
--   utid, tid      the target thread
--   thread_name    its name
--   role           'mutator' or 'gc'
--   cpu            the CPU the slice ran on
--   ts             clipped slice start (absolute trace ns)
--   end_ts         clipped slice end (absolute trace ns)
--   dur            end_ts - ts (ns, > 0)
--   allowed        1 if cpu is in the allowed set of the thread's role,
--                  0 if not (an off-mask slice), NULL if the role has none
--
-- Column types: run LONG, utid LONG, tid LONG, thread_name STRING, role
--   STRING, cpu LONG, ts TIMESTAMP, end_ts TIMESTAMP, dur DURATION, allowed
--   BOOL
WITH
-- the target threads first, each sched slice then found by its utid (and
-- these few rows are not re-joined for every slice)
target AS MATERIALIZED (
  SELECT t.utid, t.role, th.tid, th.name AS thread_name,
    -- NULL when the role has no allowed CPUs, else 0 (a CPU outside them)
    CASE WHEN EXISTS (SELECT 1 FROM artscope_allowed_cpu a WHERE a.role = t.role)
      THEN 0 END AS off_mask
  FROM artscope_target_thread t
  JOIN thread th USING (utid)
),
target_sched AS (
  SELECT t.utid, t.tid, t.thread_name, t.role, t.off_mask, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM target t
  CROSS JOIN sched s ON s.utid = t.utid
),
sched_in_run AS (
  SELECT r.run, s.*,
    max(s.ts, r.start_ts) AS c_start, min(s.end_ts, r.end_ts) AS c_end
  FROM target_sched s
  JOIN artscope_run r ON s.ts < r.end_ts AND s.end_ts > r.start_ts
)
SELECT s.run, s.utid, s.tid, s.thread_name, s.role, s.cpu,
  s.c_start AS ts, s.c_end AS end_ts, s.c_end - s.c_start AS dur,
  CASE WHEN a.cpu IS NOT NULL THEN 1 ELSE s.off_mask END AS allowed
FROM sched_in_run s
LEFT JOIN artscope_allowed_cpu a ON a.role = s.role AND a.cpu = s.cpu
