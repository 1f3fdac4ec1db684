SELECT COUNT(*) as slice_count
FROM slice
WHERE name = 'task_work';
