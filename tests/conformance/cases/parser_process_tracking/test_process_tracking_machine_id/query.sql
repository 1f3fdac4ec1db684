SELECT tid, pid, process.name AS pname, thread.name AS tname,
       thread.machine_id as tmachine, process.machine_id as pmachine
FROM thread
LEFT JOIN process USING(upid)
WHERE tid > 0
ORDER BY tid;
