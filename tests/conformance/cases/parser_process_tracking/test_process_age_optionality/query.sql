select p.pid, p.start_ts, p.cmdline
from process p
where pid in (2, 68, 9301)
order by pid asc;
