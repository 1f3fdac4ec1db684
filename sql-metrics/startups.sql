-- startups: app launches (cold / warm / hot) and where their time went.
--
-- A launch is what Perfetto's android_startups (stdlib
-- android.startup.startups) calls one, found from public tables with the
-- same rules, chosen by the device's Android version (metadata
-- android_sdk_version; without it, by which markers the trace has):
--   Android 13+ (SDK 33): system_server's async slice "launchingActivity#<id>"
--     (dur > 0) is the launch, from the intent to the first frame drawn;
--     its instant "launchingActivity#<id>:completed[-<type>]:<package>"
--     names the package and, on newer builds, the type.
--   SDK 29-32: from each "MetricsLogger:launchObserverNotifyIntentStarted"
--     to the end of system_server's "launching: <package>" slice, when
--     that span holds exactly one such slice and a
--     "MetricsLogger:launchObserverNotifyActivityLaunchFinished".
--   SDK <= 28: system_server's "launching: <package>" slice (cold and warm
--     launches only; Perfetto's hot launches there need its frame table).
-- A launch without a type in its name is typed from the main thread of the
-- package's processes (package_list uid, else a process named like the
-- package): bindApplication, activityStart and activityResume inside it
-- make it cold; activityStart and activityResume warm; activityResume alone
-- hot (processes without activityResume do not count; with several, the
-- greatest type name wins, as in Perfetto).
--
-- Breakdown, on the main thread of the process that resumed the activity
-- (slices starting inside the launch; NULL where the slice is absent):
-- process start = launch start to bindApplication's start (fork, zygote
-- specialisation, attach); then bindApplication, activityStart and
-- activityResume durations; first frame = the first Choreographer#doFrame
-- starting after activityResume ends.
--
-- Output columns (one row per launch):
--   startup_id           Perfetto's id (SDK 33+) or the launch's rank by ts
--   ts                   launch start
--   ts_end               first frame drawn (the launch's end)
--   dur                  ts_end - ts
--   package              the launched package
--   startup_type         'cold' | 'warm' | 'hot' (NULL: not known)
--   upid                 the process that resumed the activity (NULL: none)
--   pid                  its pid
--   process_start_ns     launch start -> bindApplication start
--   bind_application_ns  bindApplication duration
--   activity_start_ns    activityStart duration
--   activity_resume_ns   activityResume duration
--   first_frame_ns       duration of the first frame after activityResume
--
-- Column types: startup_id LONG, ts TIMESTAMP, ts_end TIMESTAMP, dur DURATION,
--   package STRING, startup_type STRING, upid LONG, pid LONG, process_start_ns
--   DURATION, bind_application_ns DURATION, activity_start_ns DURATION,
--   activity_resume_ns DURATION, first_frame_ns DURATION
WITH
version AS MATERIALIZED (
  SELECT CASE
    WHEN v >= 33 THEN 33
    WHEN v >= 29 THEN 29
    WHEN v IS NOT NULL THEN 28
    WHEN EXISTS (SELECT 1 FROM slice WHERE name GLOB 'launchingActivity#*:*') THEN 33
    WHEN EXISTS (SELECT 1 FROM slice WHERE name GLOB 'MetricsLogger:*') THEN 29
    ELSE 28 END AS v
  FROM (SELECT (SELECT int_value FROM metadata WHERE name = 'android_sdk_version'
                LIMIT 1) AS v)
),
-- SDK 33+ ------------------------------------------------------------------
launching_activity AS (
  SELECT ts, dur, CAST(substr(name, 19) AS INT) AS startup_id
  FROM slice
  WHERE name GLOB 'launchingActivity#*' AND dur > 0 AND instr(name, ':') = 0
),
-- "<id>:completed[-<type>]:<package>[:...]" split at its colons
completed_text AS (
  SELECT ts, substr(name, 19) AS completed
  FROM slice
  WHERE dur = 0
    AND name GLOB 'launchingActivity#*:completed*:*'
    AND NOT name GLOB '*:completed-same-process:*'
),
completed_parts AS (
  SELECT ts, CAST(substr(completed, 1, instr(completed, ':') - 1) AS INT) AS startup_id,
    substr(completed, instr(completed, ':') + 1) AS rest
  FROM completed_text
),
completed_event AS (
  SELECT startup_id,
    iif(instr(substr(rest, instr(rest, ':') + 1), ':') > 0,
        substr(substr(rest, instr(rest, ':') + 1), 1,
               instr(substr(rest, instr(rest, ':') + 1), ':') - 1),
        substr(rest, instr(rest, ':') + 1)) AS package,
    CASE substr(rest, 1, instr(rest, ':') - 1)
      WHEN 'completed-hot' THEN 'hot'
      WHEN 'completed-warm' THEN 'warm'
      WHEN 'completed-cold' THEN 'cold'
    END AS startup_type,
    min(ts) AS ts
  FROM completed_parts
  GROUP BY 1, 2, 3
),
startup_sdk33 AS (
  SELECT a.startup_id, a.ts, a.ts + a.dur AS ts_end, c.package, c.startup_type
  FROM launching_activity a JOIN completed_event c USING (startup_id)
),
-- SDK <= 32: system_server's "launching: <package>" ---------------------------
launching AS MATERIALIZED (
  SELECT s.ts, s.ts + s.dur AS ts_end,
    iif(instr(substr(s.name, instr(s.name, ': ') + 2), ': ') > 0,
        substr(substr(s.name, instr(s.name, ': ') + 2), 1,
               instr(substr(s.name, instr(s.name, ': ') + 2), ': ') - 1),
        substr(s.name, instr(s.name, ': ') + 2)) AS package
  FROM slice s
  JOIN process_track pt ON s.track_id = pt.id
  LEFT JOIN process p ON pt.upid = p.upid
  WHERE s.name GLOB 'launching: *'
    AND (p.name IS NULL OR p.name = 'system_server')
    AND (SELECT v FROM version) < 33
),
intent_span AS MATERIALIZED (
  SELECT ts, lead(ts, 1, trace_end()) OVER (ORDER BY ts) - ts AS dur
  FROM slice
  WHERE name = 'MetricsLogger:launchObserverNotifyIntentStarted'
    AND (SELECT v FROM version) = 29
),
launch_finished AS (
  SELECT ts FROM slice
  WHERE name = 'MetricsLogger:launchObserverNotifyActivityLaunchFinished'
    AND (SELECT v FROM version) = 29
),
startup_sdk29 AS (
  SELECT sp.ts, le.ts_end, le.package
  FROM intent_span sp
  JOIN launching le
    ON le.ts BETWEEN sp.ts AND sp.ts + sp.dur
    AND le.ts_end BETWEEN sp.ts AND sp.ts + sp.dur
  WHERE (SELECT count(1) FROM launching l
         WHERE l.ts BETWEEN sp.ts AND sp.ts + sp.dur) = 1
    AND EXISTS (SELECT 1 FROM launch_finished f
                WHERE f.ts BETWEEN sp.ts AND sp.ts + sp.dur)
),
startup_raw AS MATERIALIZED (
  SELECT startup_id, ts, ts_end, package, startup_type
  FROM startup_sdk33 WHERE (SELECT v FROM version) = 33
  UNION ALL
  SELECT row_number() OVER (ORDER BY ts) - 1, ts, ts_end, package, NULL
  FROM startup_sdk29 WHERE (SELECT v FROM version) = 29
  UNION ALL
  SELECT row_number() OVER (ORDER BY ts) - 1, ts, ts_end, package, NULL
  FROM launching WHERE (SELECT v FROM version) = 28
),
-- the package's processes and their main threads' tracks ------------------
package_count AS (
  SELECT uid, count(1) AS n FROM package_list GROUP BY uid
),
launch_process AS MATERIALIZED (
  SELECT r.startup_id, r.ts, p.upid, p.pid, tt.id AS track_id
  FROM startup_raw r
  JOIN process p
    ON EXISTS (
        SELECT 1 FROM package_list pl JOIN package_count pc USING (uid)
        WHERE pl.package_name = r.package
          AND pl.uid = CASE WHEN p.android_appid < 20000 THEN p.android_appid
                            WHEN p.android_appid < 30000 THEN p.android_appid - 10000
                            WHEN p.android_appid < 40000 THEN p.android_appid - 20000
                            ELSE p.android_appid END
          AND (pc.n = 1 OR p.name GLOB pl.package_name || '*'))
      OR (NOT EXISTS (SELECT 1 FROM package_list)
          AND CASE WHEN length(p.name) = 15
                    AND (p.cmdline IN ('zygote', 'zygote64', '<pre-initialized>')
                         OR p.cmdline GLOB '*' || p.name) THEN p.cmdline
                   ELSE p.name END GLOB r.package || '*')
  JOIN thread th ON th.upid = p.upid AND th.is_main_thread
  JOIN thread_track tt ON tt.utid = th.utid
),
launch_counts AS MATERIALIZED (
  SELECT lp.startup_id, lp.upid, lp.pid, lp.track_id, r.ts, r.ts_end,
    (SELECT count(1) FROM slice s WHERE s.track_id = lp.track_id
       AND s.ts >= r.ts AND s.ts < r.ts_end AND s.name = 'bindApplication') AS bind_app,
    (SELECT count(1) FROM slice s WHERE s.track_id = lp.track_id
       AND s.ts >= r.ts AND s.ts < r.ts_end AND s.name = 'activityStart') AS a_start,
    (SELECT count(1) FROM slice s WHERE s.track_id = lp.track_id
       AND s.ts >= r.ts AND s.ts < r.ts_end AND s.name = 'activityResume') AS a_resume
  FROM launch_process lp
  JOIN startup_raw r ON r.startup_id = lp.startup_id AND r.ts = lp.ts
),
resumed AS MATERIALIZED (
  SELECT startup_id, ts, upid, pid, track_id, ts_end,
    CASE WHEN bind_app > 0 AND a_start > 0 THEN 'cold'
         WHEN a_start > 0 THEN 'warm'
         ELSE 'hot' END AS startup_type
  FROM launch_counts
  WHERE a_resume > 0
),
typed AS (
  SELECT r.startup_id, r.ts, r.ts_end, r.package,
    coalesce(r.startup_type, (SELECT max(x.startup_type) FROM resumed x
                              WHERE x.startup_id = r.startup_id AND x.ts = r.ts))
      AS startup_type,
    (SELECT x.track_id FROM resumed x WHERE x.startup_id = r.startup_id AND x.ts = r.ts
     ORDER BY x.upid LIMIT 1) AS track_id,
    (SELECT x.upid FROM resumed x WHERE x.startup_id = r.startup_id AND x.ts = r.ts
     ORDER BY x.upid LIMIT 1) AS upid
  FROM startup_raw r
),
-- the breakdown's slices on that main thread, inside the launch
phase AS (
  SELECT t.*,
    (SELECT min(s.ts) FROM slice s WHERE s.track_id = t.track_id AND s.ts >= t.ts
       AND s.ts < t.ts_end AND s.name = 'bindApplication') AS bind_ts,
    (SELECT sum(s.dur) FROM slice s WHERE s.track_id = t.track_id AND s.ts >= t.ts
       AND s.ts < t.ts_end AND s.name = 'bindApplication' AND s.dur >= 0) AS bind_application_ns,
    (SELECT sum(s.dur) FROM slice s WHERE s.track_id = t.track_id AND s.ts >= t.ts
       AND s.ts < t.ts_end AND s.name = 'activityStart' AND s.dur >= 0) AS activity_start_ns,
    (SELECT sum(s.dur) FROM slice s WHERE s.track_id = t.track_id AND s.ts >= t.ts
       AND s.ts < t.ts_end AND s.name = 'activityResume' AND s.dur >= 0) AS activity_resume_ns,
    (SELECT max(s.ts + s.dur) FROM slice s WHERE s.track_id = t.track_id AND s.ts >= t.ts
       AND s.ts < t.ts_end AND s.name = 'activityResume' AND s.dur >= 0) AS resume_end_ts
  FROM typed t
)
SELECT ph.startup_id, ph.ts, ph.ts_end, ph.ts_end - ph.ts AS dur, ph.package,
  ph.startup_type, ph.upid, p.pid,
  ph.bind_ts - ph.ts AS process_start_ns,
  ph.bind_application_ns, ph.activity_start_ns, ph.activity_resume_ns,
  (SELECT s.dur FROM slice s WHERE s.track_id = ph.track_id
     AND s.ts >= ph.resume_end_ts AND s.ts < ph.ts_end AND s.dur >= 0
     AND s.name GLOB 'Choreographer#doFrame*'
   ORDER BY s.ts LIMIT 1) AS first_frame_ns
FROM phase ph
LEFT JOIN process p USING (upid)
ORDER BY ph.ts, ph.startup_id
