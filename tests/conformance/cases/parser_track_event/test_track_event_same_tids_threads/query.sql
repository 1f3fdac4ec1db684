SELECT tid, pid, process.name AS pname, thread.name AS tname
FROM thread
LEFT JOIN process USING(upid)
WHERE tid > 0
ORDER BY tid;
