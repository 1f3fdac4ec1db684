-- rail_energy: the energy each power rail used over each run window, and
-- the battery's power as the fallback where no rail was recorded.
--
-- Rails: the android.power data source's ODPM samples (Pixel's on-device
-- power monitor), which trace_processor imports as one counter track per
-- rail, type 'power_rails', named 'power.rails.<friendly name>' for the
-- rails it knows (cpu.little, cpu.mid, cpu.big, memory.interface, ddr.a,
-- gpu, display ...) and 'power.<raw name>_uws' otherwise. A value is the
-- rail's cumulative energy in µWs (= µJ) since the monitor started. The
-- energy at a time t between two samples is interpolated linearly; a rail's
-- energy over W is E(W end) - E(W start), known only when W lies within
-- its samples (one at or before W's start, one at or after its end). The
-- part of W its samples span (covered) has its energy either way: from
-- E(max(W start, first sample)) to E(min(W end, last sample)). A rail
-- whose value goes down between two of the samples spanning W (the power
-- monitor reset, or its counter wrapped: at a value that differs between
-- devices) has no energy over W: neither energy_j nor covered_j is known
-- (trace_processor's power_drain_in_watts metric counts only the value
-- after such a drop, an undercount), and resets says how many drops there
-- were.
--
-- Battery: trace_processor's 'batt.power_mw' (|current × voltage| of each
-- battery sample, named 'batt.<battery>.power_mw' for a named battery). A
-- sample holds until the next one; the energy over W is the sum of power ×
-- time over W, known when a sample holds at W's start.
--
-- Shape: a few seeks per run and series (`track_id =` and a ts bound).
--
-- Output columns (one row per run and series):
--   run             run id
--   source          'rail' | 'battery'
--   name            the counter track's name
--   energy_j        energy over W in joules; NULL when the samples do not
--                   cover W
--   covered_ns      the part of W the series' samples span (battery: from
--                   the first sample holding in W to W's end)
--   covered_j       the energy over that part, joules
--   first_ts        the series' first sample (absolute trace ns)
--   last_ts         its last sample
--   samples_in_run  samples inside W
--   resets          rails: drops of the value between the samples spanning
--                   the covered part of W (energy unknown when above 0);
--                   battery: NULL
--
-- Column types: run LONG, source STRING, name STRING, energy_j DOUBLE,
--   covered_ns DURATION, covered_j DOUBLE, first_ts TIMESTAMP, last_ts TIMESTAMP,
--   samples_in_run LONG, resets LONG
WITH
series AS MATERIALIZED (
  SELECT t.id AS track_id, 'rail' AS source, t.name
  FROM counter_track t WHERE t.type = 'power_rails'
  UNION ALL
  SELECT t.id, 'battery', t.name
  FROM counter_track t
  WHERE t.name = 'batt.power_mw' OR t.name GLOB 'batt.*.power_mw'
),
-- Per run and series: the samples around each edge of W.
edge AS (
  SELECT r.run, r.start_ts, r.end_ts, s.track_id, s.source, s.name,
    (SELECT c.ts || ',' || c.value FROM counter c
     WHERE c.track_id = s.track_id AND c.ts <= r.start_ts ORDER BY c.ts DESC LIMIT 1) AS before_start,
    (SELECT c.ts || ',' || c.value FROM counter c
     WHERE c.track_id = s.track_id AND c.ts >= r.start_ts ORDER BY c.ts LIMIT 1) AS after_start,
    (SELECT c.ts || ',' || c.value FROM counter c
     WHERE c.track_id = s.track_id AND c.ts <= r.end_ts ORDER BY c.ts DESC LIMIT 1) AS before_end,
    (SELECT c.ts || ',' || c.value FROM counter c
     WHERE c.track_id = s.track_id AND c.ts >= r.end_ts ORDER BY c.ts LIMIT 1) AS after_end,
    (SELECT min(c.ts) FROM counter c WHERE c.track_id = s.track_id) AS first_ts,
    (SELECT max(c.ts) FROM counter c WHERE c.track_id = s.track_id) AS last_ts,
    (SELECT count(*) FROM counter c
     WHERE c.track_id = s.track_id AND c.ts >= r.start_ts AND c.ts < r.end_ts) AS samples_in_run
  FROM artscope_run r CROSS JOIN series s
),
-- 'ts,value' texts taken apart
edge_value AS (
  SELECT run, start_ts, end_ts, track_id, source, name, first_ts, last_ts, samples_in_run,
    cast(substr(before_start, 1, instr(before_start, ',') - 1) AS INT) AS t0,
    cast(substr(before_start, instr(before_start, ',') + 1) AS REAL) AS v0,
    cast(substr(after_start, 1, instr(after_start, ',') - 1) AS INT) AS t1,
    cast(substr(after_start, instr(after_start, ',') + 1) AS REAL) AS v1,
    cast(substr(before_end, 1, instr(before_end, ',') - 1) AS INT) AS t2,
    cast(substr(before_end, instr(before_end, ',') + 1) AS REAL) AS v2,
    cast(substr(after_end, 1, instr(after_end, ',') - 1) AS INT) AS t3,
    cast(substr(after_end, instr(after_end, ',') + 1) AS REAL) AS v3
  FROM edge
),
-- Each rail's cumulative energy (µWs) where its samples' span meets W's
-- edges: interpolated inside the span, the first / last sample outside.
rail_edge AS (
  SELECT run, track_id,
    (SELECT count(*) FROM (
       SELECT c.value < lag(c.value) OVER (ORDER BY c.ts, c.id) AS down
       FROM counter c
       WHERE c.track_id = e.track_id
         AND c.ts >= coalesce(e.t0, e.t1) AND c.ts <= coalesce(e.t3, e.t2))
     WHERE down) AS resets,
    CASE WHEN t0 IS NULL THEN v1
         WHEN t1 IS NULL OR t1 = t0 THEN v0
         ELSE v0 + (v1 - v0) * (start_ts - t0) / (t1 - t0) END AS e_start,
    CASE WHEN t3 IS NULL THEN v2
         WHEN t2 IS NULL OR t3 = t2 THEN v3
         ELSE v2 + (v3 - v2) * (end_ts - t2) / (t3 - t2) END AS e_end,
    max(0, min(end_ts, last_ts) - max(start_ts, first_ts)) AS covered_ns,
    t0 IS NOT NULL AND t3 IS NOT NULL AS covers
  FROM edge_value e
  WHERE source = 'rail'
),
-- The battery's power samples holding in W (the one at or before W's
-- start, then those inside): power (mW) × time (ns) summed, in joules.
battery_energy AS (
  SELECT e.run, e.track_id,
    e.end_ts - max(e.start_ts, coalesce(e.t0, e.t1)) AS covered_ns,
    (SELECT sum(c.value * (coalesce(
                 (SELECT min(n.ts) FROM counter n WHERE n.track_id = c.track_id AND n.ts > c.ts),
                 e.end_ts) - max(c.ts, e.start_ts)))
     FROM counter c
     WHERE c.track_id = e.track_id AND c.ts >= coalesce(e.t0, e.start_ts) AND c.ts < e.end_ts)
      / 1e12 AS covered_j,
    e.t0 IS NOT NULL AS covers
  FROM edge_value e
  WHERE e.source = 'battery'
)
SELECT e.run, e.source, e.name,
  iif(coalesce(x.covers, b.covers) AND coalesce(x.resets, 0) = 0,
      coalesce((x.e_end - x.e_start) / 1e6, b.covered_j), NULL) AS energy_j,
  coalesce(x.covered_ns, b.covered_ns, 0) AS covered_ns,
  iif(coalesce(x.resets, 0) = 0, coalesce((x.e_end - x.e_start) / 1e6, b.covered_j), NULL)
    AS covered_j,
  e.first_ts, e.last_ts, e.samples_in_run, x.resets
FROM edge_value e
LEFT JOIN rail_edge x ON x.run = e.run AND x.track_id = e.track_id
LEFT JOIN battery_energy b ON b.run = e.run AND b.track_id = e.track_id
ORDER BY e.run, e.source, e.name
