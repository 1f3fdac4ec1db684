SELECT utid, tid, name from thread where tid = 0
