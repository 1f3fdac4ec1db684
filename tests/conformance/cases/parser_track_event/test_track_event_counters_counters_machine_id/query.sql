SELECT name, machine_id
FROM thread_counter_track
WHERE machine_id IS NOT NULL
