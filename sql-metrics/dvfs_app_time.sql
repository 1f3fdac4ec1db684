-- dvfs_app_time: the target's CPU time in each run window (the task
-- clock, gc.sql's app_cpu_ns) by the frequency its CPU ran at, per CPU.
--
-- The app's time is its threads' sched slices ∩ W (an open slice ends
-- where artscope_cpu_data_end says). It is split at each
-- CPU's frequency changes (the cpufreq series of frequency.sql,
-- cpu_counter_track 'cpufreq'): a value holds until the next change on that
-- CPU; before a CPU's first sample, or while it reads 0 (a polled node it
-- could not read), the frequency is unknown. The mutators' time is this
-- minus the GC's (dvfs_gc_time.sql).
--
-- Shape: sched is never range-joined. Each CPU is read one of two ways,
-- whichever reads less:
-- * per frequency interval (a CPU where the target runs often): one lookup
--   by `cpu =`, the interval's ts range and a utid range per interval (the
--   target's utids in at most 4 ranges, target_utid_range), so
--   trace_processor hands back little more than the target's slices. The slice crossing an interval's
--   start is the latest target slice of the earlier intervals (a CPU's
--   slices follow one another), or for W's start one seek per CPU. One
--   interval per run and CPU, the longest, is not read at all: its time is
--   the target's CPU time on that CPU in W (artscope_target_cpu, the
--   runner's pass over the target's rows) less that of the CPU's other
--   intervals, and the slice crossing its end is the CPU's last slice
--   before that end (one seek). A pinned app mostly runs on CPUs whose
--   frequency rarely changes, so most of its slices are never read twice.
-- * in one pass (a CPU whose frequency changes more often than the target
--   runs there): the target's slices on it, by `utid =` and `cpu =`, in
--   time order with the intervals' starts; the time of an interval is the
--   difference of the target's running CPU time at its two ends.
--
-- Output columns (one row per run, CPU and frequency):
--   run        run id
--   scope      'app'
--   gc_id      NULL (the columns of dvfs_gc_time.sql)
--   utid       NULL
--   cpu        the CPU
--   freq_khz   the CPU's frequency (kHz, cpufreq); NULL: unknown
--   ns         the target's CPU time at that frequency
--
-- Column types: run LONG, scope STRING, gc_id LONG, utid LONG, cpu LONG,
--   freq_khz DOUBLE, ns DURATION
WITH
target AS MATERIALIZED (
  SELECT DISTINCT utid FROM artscope_target_thread
),
-- Where each open sched slice ends, read once (the SQL package inlines
-- artscope_cpu_data_end's own query where it is named).
open_end AS MATERIALIZED (
  SELECT cpu, ts, end_ts FROM artscope_cpu_data_end
),
-- Sched slices with their end (an open slice ends where artscope_cpu_data_end
-- says); inlined into the lookups below.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM open_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- Each CPU's frequency intervals in W (cpufreq_interval). `skip`: the
-- longest of a CPU's intervals, where they cover W, is read by difference
-- (below).
freq_interval AS MATERIALIZED (
  SELECT i.run, i.cpu, i.a, i.b, i.khz, i.idx,
    row_number() OVER (PARTITION BY i.run, i.cpu ORDER BY i.b - i.a DESC, i.a) = 1
      AND sum(i.b - i.a) OVER (PARTITION BY i.run, i.cpu) = r.end_ts - r.start_ts AS skip
  FROM cpufreq_interval i JOIN artscope_run r USING (run)
),
-- The CPUs (per run) read in one pass instead of per interval: those where
-- the target has at most 4 slices per lookup the intervals would take (on
-- trace_processor a lookup costs ~9 us, a slice read in one pass ~2 us).
-- The target's slices there are artscope_target_cpu's.
scan_cpu AS MATERIALIZED (
  SELECT i.run, i.cpu
  FROM freq_interval i
  GROUP BY i.run, i.cpu
  HAVING coalesce((SELECT sum(c.slices) FROM artscope_target_cpu c
                   WHERE c.run = i.run AND c.cpu = i.cpu), 0)
    <= 4 * sum(NOT i.skip) * (SELECT count(*) FROM target_utid_range)
),
-- The intervals read by lookups: those of the other CPUs.
lookup_interval AS MATERIALIZED (
  SELECT i.* FROM freq_interval i
  WHERE NOT EXISTS (SELECT 1 FROM scan_cpu c WHERE c.run = i.run AND c.cpu = i.cpu)
),
-- Per interval and utid range, one lookup: the target's time of the slices
-- starting in the interval (clipped at its end) and the latest end among
-- them ('ns,end'; target slices of one CPU never overlap, so that is the
-- end of the last one).
interval_scan AS (
  SELECT i.run, i.cpu, i.idx,
    (SELECT sum(CASE WHEN u.pure OR s.utid IN (SELECT utid FROM target)
                     THEN min(s.end_ts, i.b) - s.ts END)
            || ',' || max(CASE WHEN u.pure OR s.utid IN (SELECT utid FROM target)
                          THEN s.end_ts END)
     FROM sched_end s
     WHERE s.cpu = i.cpu AND s.ts >= i.a AND s.ts < i.b
       AND s.utid >= u.lo AND s.utid <= u.hi) AS scan
  FROM lookup_interval i CROSS JOIN target_utid_range u
  WHERE NOT i.skip
),
interval_app AS MATERIALIZED (
  SELECT i.run, i.cpu, i.idx, i.a, i.b, i.khz, i.skip,
    coalesce(sum(cast(substr(x.scan, 1, instr(x.scan, ',') - 1) AS INT)), 0) AS ns,
    max(cast(substr(x.scan, instr(x.scan, ',') + 1) AS INT)) AS last_end
  FROM lookup_interval i
  LEFT JOIN interval_scan x ON x.run = i.run AND x.cpu = i.cpu AND x.idx = i.idx
  WHERE NOT i.skip
  GROUP BY i.run, i.cpu, i.idx
  UNION ALL
  -- the interval read by difference: the end of the target slice crossing
  -- its end, if the CPU's last slice before that end is the target's and
  -- starts in it (that is the latest end of the target slices starting in
  -- it); one seek, as for W's start below
  SELECT i.run, i.cpu, i.idx, i.a, i.b, i.khz, 1, 0,
    iif(s.ts >= i.a AND s.utid IN (SELECT utid FROM target),
        iif(s.dur = -1, (SELECT o.end_ts FROM open_end o WHERE o.cpu = s.cpu AND o.ts = s.ts),
            s.ts + s.dur), NULL)
  FROM (SELECT i.*, coalesce(
          (SELECT s.id FROM sched s
           WHERE s.cpu = i.cpu AND s.ts < i.b AND s.ts >= i.b - 100000000
           ORDER BY s.ts DESC, s.id DESC LIMIT 1),
          (SELECT s.id FROM sched s
           WHERE s.cpu = i.cpu AND s.ts < i.b - 100000000
           ORDER BY s.ts DESC, s.id DESC LIMIT 1)) AS id
        FROM lookup_interval i WHERE i.skip) i
  -- (sched itself: a LEFT JOIN to sched_end would not look the id up)
  LEFT JOIN sched s ON s.id = i.id
),
-- Per run and CPU, the last sched slice starting before W (the only one of
-- that CPU that can reach into W; one seek each, as gc.sql), and whether it
-- is the target's.
slice_before_run AS MATERIALIZED (
  SELECT b.run, b.cpu, s.ts, s.end_ts, s.utid IN (SELECT utid FROM target) AS is_target
  FROM (SELECT r.run, r.start_ts, c.cpu, coalesce(
          (SELECT s.id FROM sched s
           WHERE s.cpu = c.cpu AND s.ts < r.start_ts AND s.ts >= r.start_ts - 100000000
           ORDER BY s.ts DESC, s.id DESC LIMIT 1),
          (SELECT s.id FROM sched s
           WHERE s.cpu = c.cpu AND s.ts < r.start_ts - 100000000
           ORDER BY s.ts DESC, s.id DESC LIMIT 1)) AS id
        FROM artscope_run r
        CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c) b
  JOIN sched_end s ON s.id = b.id
),
-- The target slice crossing an interval's start: the last of the latest
-- earlier interval that has one (it crosses when it ends after the start),
-- else the one crossing W's start.
app_in_interval AS MATERIALIZED (
  SELECT i.run, i.cpu, i.khz, i.skip,
    i.ns + max(0, min(coalesce(
      max(i.last_end) OVER (PARTITION BY i.run, i.cpu ORDER BY i.idx
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
      iif(w.is_target, w.end_ts, NULL), i.a), i.b) - i.a) AS ns
  FROM interval_app i
  LEFT JOIN slice_before_run w ON w.run = i.run AND w.cpu = i.cpu
),
-- The skipped interval's time: the target's time on its CPU in W less that
-- of the CPU's other intervals (they cover W together).
lookup_time AS (
  SELECT run, cpu, khz, ns FROM app_in_interval WHERE NOT skip
  UNION ALL
  SELECT i.run, i.cpu, i.khz,
    coalesce((SELECT sum(c.cpu_ns) FROM artscope_target_cpu c
              WHERE c.run = i.run AND c.cpu = i.cpu), 0)
      - coalesce((SELECT sum(o.ns) FROM app_in_interval o
                  WHERE o.run = i.run AND o.cpu = i.cpu AND NOT o.skip), 0)
  FROM app_in_interval i WHERE i.skip
),
-- On the CPUs read in one pass: the target's slices that can overlap W
-- (starting in it, or the one crossing its start) ...
scan_slice AS (
  SELECT c.run, c.cpu, s.ts, s.end_ts
  FROM scan_cpu c
  CROSS JOIN artscope_run r
  CROSS JOIN target t
  CROSS JOIN sched_end s
  WHERE r.run = c.run AND s.utid = t.utid AND s.cpu = c.cpu
    AND s.ts >= r.start_ts AND s.ts < r.end_ts
  UNION ALL
  SELECT w.run, w.cpu, w.ts, w.end_ts
  FROM slice_before_run w JOIN scan_cpu c USING (run, cpu)
  WHERE w.is_target
),
-- ... and each interval's start and W's end, in time order: the target's
-- CPU time on the CPU up to a point t is the time of the slices starting
-- before t less what the last of them runs past t (a CPU's slices follow
-- one another), and an interval's time the difference at its two ends.
scan_point AS (
  SELECT run, cpu, ts, end_ts, NULL AS khz FROM scan_slice
  UNION ALL
  SELECT i.run, i.cpu, i.a, NULL, i.khz FROM freq_interval i JOIN scan_cpu c USING (run, cpu)
  UNION ALL
  SELECT c.run, c.cpu, r.end_ts, NULL, NULL FROM scan_cpu c JOIN artscope_run r USING (run)
),
time_until_point AS (
  SELECT run, cpu, khz, ts, end_ts IS NULL AS is_edge,
    coalesce(sum(end_ts - ts) OVER until_here, 0)
      - max(0, coalesce(max(end_ts) OVER until_here, ts) - ts) AS ns_before
  FROM scan_point
  -- an edge sorts before a slice starting at the same time
  WINDOW until_here AS (PARTITION BY run, cpu ORDER BY ts, end_ts IS NOT NULL
                        ROWS UNBOUNDED PRECEDING)
),
scan_time AS (
  SELECT run, cpu, khz, ns
  FROM (SELECT run, cpu, khz,
          lead(ns_before) OVER (PARTITION BY run, cpu ORDER BY ts) - ns_before AS ns
        FROM time_until_point WHERE is_edge)
  WHERE ns IS NOT NULL  -- W's end
),
app_time AS (
  SELECT * FROM lookup_time
  UNION ALL
  SELECT * FROM scan_time
)
SELECT run, 'app' AS scope, NULL AS gc_id, NULL AS utid, cpu, iif(khz > 0, khz, NULL) AS freq_khz,
  sum(ns) AS ns
FROM app_time
GROUP BY run, cpu, iif(khz > 0, khz, NULL)
HAVING sum(ns) != 0
ORDER BY run, cpu, freq_khz
