select c.ts, c.value, pct.name, p.pid, p.start_ts, p.cmdline
from counter c
  join process_counter_track pct on (c.track_id = pct.id)
  join process p using (upid)
where pct.name in ("runtime.user_ns", "runtime.kernel_ns")
  and p.pid = 9301
order by ts asc, pct.name asc
