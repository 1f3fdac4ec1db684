SELECT to_ftrace(id)
FROM ftrace_event;
