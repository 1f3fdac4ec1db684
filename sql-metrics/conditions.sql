-- conditions: when each run ran and on what device and build -- the
-- conditions a study compares across runs besides the frequency series.
--
-- Wall-clock time comes from the trace's clock snapshots: REALTIME is
-- clock_id 1 (BUILTIN_CLOCK_REALTIME) in clock_snapshot. Between snapshots
-- trace time and REALTIME advance together, so W's start in REALTIME is a
-- snapshot's REALTIME value plus W's start minus the snapshot's trace time,
-- using the last snapshot at or before W's start (else the first after it).
-- Device and build are the trace's metadata (SystemInfo / utsname).
--
-- Output columns (one row per run):
--   run
--   started_at_unix_ns   W's start as REALTIME (ns since the UNIX epoch, UTC);
--                        NULL when the trace has no REALTIME snapshot
--   build_fingerprint    metadata android_build_fingerprint
--   device_manufacturer  metadata android_device_manufacturer
--   soc_model            metadata android_soc_model
--   sdk_version          metadata android_sdk_version
--   kernel_release       metadata system_release (uname -r)
--   machine              metadata system_machine (uname -m)
--
-- Column types: run LONG, started_at_unix_ns LONG, build_fingerprint STRING,
--   device_manufacturer STRING, soc_model STRING, sdk_version LONG,
--   kernel_release STRING, machine STRING
WITH
realtime_snapshot AS MATERIALIZED (
  SELECT ts, clock_value FROM clock_snapshot WHERE clock_id = 1
),
device AS MATERIALIZED (
  SELECT
    (SELECT str_value FROM metadata WHERE name = 'android_build_fingerprint')
      AS build_fingerprint,
    (SELECT str_value FROM metadata WHERE name = 'android_device_manufacturer')
      AS device_manufacturer,
    (SELECT str_value FROM metadata WHERE name = 'android_soc_model') AS soc_model,
    (SELECT int_value FROM metadata WHERE name = 'android_sdk_version') AS sdk_version,
    (SELECT str_value FROM metadata WHERE name = 'system_release') AS kernel_release,
    (SELECT str_value FROM metadata WHERE name = 'system_machine') AS machine
)
SELECT r.run,
  coalesce(
    (SELECT s.clock_value + r.start_ts - s.ts FROM realtime_snapshot s
     WHERE s.ts <= r.start_ts ORDER BY s.ts DESC LIMIT 1),
    (SELECT s.clock_value + r.start_ts - s.ts FROM realtime_snapshot s
     WHERE s.ts > r.start_ts ORDER BY s.ts LIMIT 1)) AS started_at_unix_ns,
  d.build_fingerprint, d.device_manufacturer, d.soc_model, d.sdk_version,
  d.kernel_release, d.machine
FROM artscope_run r CROSS JOIN device d
ORDER BY r.run
