-- dvfs_cpu_busy: each CPU's busy time in each run window (any thread but
-- the idle task), at the CPU's time-weighted mean frequency over the
-- window: what an estimate of all the cycles a CPU ran is made of (the
-- denominator of the GC's estimated share of a CPU rail's energy, where no
-- perf counters count them).
--
-- Busy time: sched slices with utid > 0 ∩ W (an open slice ends where
-- artscope_cpu_data_end says). The mean frequency: the
-- cpufreq series of frequency.sql weighted by time over W, over the part of
-- W where it is known; the busy time × the share of W at an unknown
-- frequency is a row of its own (freq_khz NULL).
--
-- Shape: one lookup per run and CPU (`cpu =`, a ts range, `utid >`, `dur
-- >`, summing dur alone), one seek per run and CPU for each slice crossing
-- an edge of W (as gc.sql).
--
-- Output columns (one row per run, CPU and known / unknown part):
--   run        run id
--   scope      'cpu'
--   gc_id      NULL (the columns of dvfs_gc_time.sql)
--   utid       NULL
--   cpu        the CPU
--   freq_khz   its time-weighted mean frequency over W (kHz); NULL: the
--              part at an unknown frequency
--   ns         busy time
--
-- Column types: run LONG, scope STRING, gc_id LONG, utid LONG, cpu LONG,
--   freq_khz DOUBLE, ns DURATION
WITH
-- Where each open sched slice ends, read once (the SQL package inlines
-- artscope_cpu_data_end's own query where it is named).
open_end AS MATERIALIZED (
  SELECT cpu, utid, ts, end_ts FROM artscope_cpu_data_end
),
-- Sched slices with their end (an open slice ends where artscope_cpu_data_end
-- says); inlined into the lookups below.
sched_end AS NOT MATERIALIZED (
  SELECT s.id, s.utid, s.cpu, s.ts,
    iif(s.dur = -1, (SELECT o.end_ts FROM open_end o
                     WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur) AS end_ts
  FROM sched s
),
-- Per run and CPU, the last sched slice starting before W (the only one of
-- that CPU that can reach into W; one seek each, as gc.sql), and whether it
-- is busy.
slice_before_run AS MATERIALIZED (
  SELECT b.run, b.cpu, s.end_ts, s.utid != 0 AS is_busy
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
-- Each CPU's busy time in W (slices of any thread but the idle task, ∩ W),
-- at its time-weighted mean frequency over W.
-- Busy time per run and CPU: its closed slices starting in W (read from
-- sched itself: the filters reach trace_processor, and only dur is read
-- per row), less the part after W's end of the one running past it (the
-- CPU's last slice starting before W's end: one seek), its open slices
-- (artscope_cpu_data_end) and the slice crossing W's start.
cpu_busy AS MATERIALIZED (
  SELECT r.run, c.cpu,
    coalesce((SELECT sum(s.dur) FROM sched s
              WHERE s.cpu = c.cpu AND s.ts >= r.start_ts AND s.ts < r.end_ts
                AND s.utid > 0 AND s.dur > 0), 0)
    - coalesce((SELECT max(0, s.ts + s.dur - r.end_ts) FROM sched s
                WHERE s.cpu = c.cpu AND s.ts >= r.start_ts AND s.ts < r.end_ts
                  AND s.utid > 0 AND s.dur > 0
                ORDER BY s.ts DESC LIMIT 1), 0)
    + coalesce((SELECT sum(min(o.end_ts, r.end_ts) - o.ts) FROM open_end o
                WHERE o.cpu = c.cpu AND o.ts >= r.start_ts AND o.ts < r.end_ts
                  AND o.utid > 0), 0)
    + coalesce((SELECT iif(w.is_busy, max(0, min(w.end_ts, r.end_ts) - r.start_ts), 0)
                FROM slice_before_run w WHERE w.run = r.run AND w.cpu = c.cpu), 0) AS busy_ns
  FROM artscope_run r
  CROSS JOIN (SELECT DISTINCT cpu FROM cpu WHERE cpu IS NOT NULL) c
),
cpu_mean AS MATERIALIZED (
  SELECT run, cpu,
    sum(iif(khz > 0, khz * (b - a), 0)) / nullif(sum(iif(khz > 0, b - a, 0)), 0) AS khz,
    sum(iif(khz > 0, b - a, 0)) * 1.0 / sum(b - a) AS known_share
  FROM cpufreq_interval GROUP BY run, cpu
)
SELECT b.run, 'cpu' AS scope, NULL AS gc_id, NULL AS utid, b.cpu, m.khz AS freq_khz,
  cast(round(b.busy_ns * coalesce(m.known_share, 0)) AS INT) AS ns
FROM cpu_busy b JOIN cpu_mean m USING (run, cpu)
UNION ALL
SELECT b.run, 'cpu', NULL, NULL, b.cpu, NULL,
  b.busy_ns - cast(round(b.busy_ns * coalesce(m.known_share, 0)) AS INT)
FROM cpu_busy b JOIN cpu_mean m USING (run, cpu)
ORDER BY 1, 5, 6
