select p.pid, EXTRACT_ARG(arg_set_id, 'is_kthread') as is_kthread, p.cmdline
from process p
where pid in (618, 710)
order by pid asc;
