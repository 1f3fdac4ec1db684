-- sched_open_end: where each open sched slice ends -- at the last event the
-- trace recorded on its CPU, never past it.
--
-- A sched slice still open when the trace ends (dur -1: the last one on its
-- CPU; one that is not, ends where the next one on its CPU starts) ran at
-- most until that CPU's recording stopped. Per-CPU ftrace ring
-- buffers fill and stop at different times, so trace_end() (the last event
-- of any CPU) would count time nobody saw, and counting nothing (Perfetto's
-- android.garbage_collection module) drops time the trace does show. The
-- slice ends at the latest of: its own start; the last ftrace event recorded
-- on its CPU (any event: ftrace_event holds them all with raw ingestion, a
-- systrace only its sched_switch lines); the last begin or end of a slice
-- on the thread's own tracks that began after the switch-in (its trace
-- markers: a thread that was never switched out wrote them on that CPU).
--
-- The runner computes this once per selection and hands it to the metric
-- files as the input table artscope_cpu_data_end; a file reads a sched
-- slice's end as
--   iif(s.dur = -1, (SELECT o.end_ts FROM artscope_cpu_data_end o
--                    WHERE o.cpu = s.cpu AND o.ts = s.ts), s.ts + s.dur)
--
-- Output columns:
--   cpu      the CPU
--   utid     the thread of its open sched slice
--   ts       that slice's start (absolute trace ns)
--   end_ts   where it ends (absolute trace ns)
--
-- Column types: cpu LONG, utid LONG, ts TIMESTAMP, end_ts TIMESTAMP
WITH
open_slice AS MATERIALIZED (
  SELECT s.cpu, s.utid, s.ts
  FROM sched s
  WHERE s.dur = -1
),
last_evidence AS (
  SELECT o.cpu, o.utid, o.ts,
    (SELECT min(n.ts) FROM sched n WHERE n.cpu = o.cpu AND n.ts > o.ts) AS next_ts,
    (SELECT max(f.ts) FROM ftrace_event f
     WHERE f.ts >= o.ts AND f.cpu = o.cpu) AS last_cpu_event_ts,
    (SELECT max(iif(sl.dur > 0, sl.ts + sl.dur, sl.ts)) FROM slice sl
     WHERE sl.ts >= o.ts
       AND sl.track_id IN (SELECT tt.id FROM thread_track tt WHERE tt.utid = o.utid))
      AS last_marker_ts
  FROM open_slice o
)
SELECT cpu, utid, ts,
  coalesce(next_ts,
    min(max(ts, coalesce(last_cpu_event_ts, ts), coalesce(last_marker_ts, ts)), trace_end()))
    AS end_ts
FROM last_evidence
ORDER BY cpu
