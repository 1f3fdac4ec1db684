select tid, pid, t.name as thread_name, p.name as process_name
from thread t join process p using (upid)
where pid = 100;
