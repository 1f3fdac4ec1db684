SELECT 'ftrace_event' as source, ts
FROM ftrace_event
WHERE name = 'thermal_exynos_acpm_bulk'
UNION ALL
SELECT 'counter' as source, ts
FROM counter
JOIN track ON counter.track_id = track.id
WHERE track.name = 'BIG Temperature'
