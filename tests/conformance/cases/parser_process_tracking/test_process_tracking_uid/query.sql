SELECT pid, uid
FROM process
ORDER BY pid;
