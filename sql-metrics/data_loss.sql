-- data_loss: what the trace itself records as lost.
--
-- trace_processor's stats that mean events are missing from the trace:
-- ftrace ring-buffer overruns and dropped events during the trace, CPUs whose
-- kernel buffer lost data, and tracing-service packet loss. (Ring-buffer
-- chunks overwritten at the start of a long trace are not data loss inside
-- the kept time range and are not listed.)
--
-- Output columns:
--   name, idx, value   the stat, its index (CPU or buffer), its value (> 0)
SELECT name, idx, value
FROM stats
WHERE value > 0 AND name IN (
  'ftrace_cpu_overrun_delta',
  'ftrace_cpu_dropped_events_delta',
  'ftrace_cpu_has_data_loss',
  'traced_buf_trace_writer_packet_loss',
  'traced_buf_patches_failed',
  'traced_buf_abi_violations'
)
ORDER BY name, idx
