SELECT cpu
FROM cpu_track
ORDER BY cpu;
