select
  c.ts,
  c.value,
  pct.cpu,
  pct.perf_session_id,
  pct.is_timebase
from
  counter c join perf_counter_track pct on c.track_id = pct.id
order by ts, c.id
