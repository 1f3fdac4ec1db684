SELECT pid, name, extract_arg(arg_set_id, 'process_sort_index_hint') AS sort_index FROM process WHERE pid = 100
UNION ALL
SELECT tid, name, extract_arg(arg_set_id, 'thread_sort_index_hint') AS sort_index FROM thread WHERE tid = 101;
