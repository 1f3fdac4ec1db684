-- affinity_evidence: events that can explain pinning violations.
--
-- sched_setaffinity syscalls (syscall slices named sys_sched_setaffinity on
-- target threads, recorded with raw_syscalls) and cgroup moves of target
-- threads (ftrace cgroup_attach_task, whose `pid` arg is the moved task)
-- within each run window.
--
-- Output columns:
--   run, ts     run id and event time (absolute trace ns)
--   kind        'sched_setaffinity' | 'cgroup_attach_task'
--   utid, tid   the target thread concerned
--   detail      cgroup destination path (cgroup moves) or NULL
--
-- Column types: run LONG, ts TIMESTAMP, kind STRING, utid LONG, tid LONG,
--   detail STRING
WITH
setaffinity AS (
  SELECT s.ts, 'sched_setaffinity' AS kind, tt.utid, NULL AS detail
  FROM slice s JOIN thread_track tt ON tt.id = s.track_id
  WHERE s.name = 'sys_sched_setaffinity'
    AND tt.utid IN (SELECT utid FROM artscope_target_thread)
),
cgroup_move AS (
  SELECT e.ts, 'cgroup_attach_task' AS kind, th.utid,
    (SELECT a.string_value FROM args a
     WHERE a.arg_set_id = e.arg_set_id AND a.key = 'dst_path') AS detail
  FROM ftrace_event e
  JOIN args p ON p.arg_set_id = e.arg_set_id AND p.key = 'pid'
  JOIN thread th ON th.tid = p.int_value
  WHERE e.name = 'cgroup_attach_task'
    AND th.utid IN (SELECT utid FROM artscope_target_thread)
    AND (th.start_ts IS NULL OR th.start_ts <= e.ts)
    AND (th.end_ts IS NULL OR th.end_ts >= e.ts)
)
SELECT r.run, ev.ts, ev.kind, ev.utid, th.tid, ev.detail
FROM (SELECT * FROM setaffinity UNION ALL SELECT * FROM cgroup_move) ev
JOIN artscope_run r ON ev.ts >= r.start_ts AND ev.ts < r.end_ts
JOIN thread th ON th.utid = ev.utid
ORDER BY r.run, ev.ts, ev.kind, ev.utid
