select cpu, ts, dur, tid, thread.name
from sched join thread using (utid)
order by cpu asc, ts asc
