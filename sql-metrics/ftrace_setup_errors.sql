-- ftrace_setup_errors: what the capture asked for and the kernel or atrace
-- refused, as traced_probes reported it at the start of the trace.
--
-- trace_processor counts these in the stat `ftrace_setup_errors` and keeps
-- each message in its import logs (`_trace_import_logs`, the view behind the
-- UI's Notices tab; no public table names the events). A message is one of
--   'Ftrace event failed: <group>/<event>'   the kernel has the event but
--                                            refused to enable it
--   'Ftrace event unknown: <group>/<event>'  this kernel has no such event
--   'Atrace failures: <text>'                atrace categories or apps that
--                                            failed to enable
--   'Ftrace exclusive feature error: <text>' another session holds ftrace
--
-- Output columns:
--   kind     'failed' | 'unknown' | 'atrace' | 'exclusive' | 'other'
--   what     the event ('<group>/<event>') or the atrace / feature text
--   message  the message as recorded
--
-- Column types: kind STRING, what STRING, message STRING
WITH
setup_error AS (
  SELECT a.string_value AS message
  FROM _trace_import_logs l
  JOIN args a ON a.arg_set_id = l.arg_set_id AND a.key = 'message'
  WHERE l.name = 'ftrace_setup_errors'
)
SELECT
  CASE
    WHEN message GLOB 'Ftrace event failed: *' THEN 'failed'
    WHEN message GLOB 'Ftrace event unknown: *' THEN 'unknown'
    WHEN message GLOB 'Atrace failures: *' THEN 'atrace'
    WHEN message GLOB 'Ftrace exclusive feature error: *' THEN 'exclusive'
    ELSE 'other'
  END AS kind,
  trim(iif(instr(message, ': ') > 0, substr(message, instr(message, ': ') + 2), message)) AS what,
  message
FROM setup_error
ORDER BY kind, what
