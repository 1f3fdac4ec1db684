SELECT to_ftrace(id) AS line
FROM ftrace_event;
