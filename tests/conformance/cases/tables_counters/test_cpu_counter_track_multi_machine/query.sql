SELECT id, name, machine_id, cpu
FROM cpu_counter_track;
