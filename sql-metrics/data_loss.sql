-- data_loss: what the capture itself lost, from the stats the tracing
-- service and the kernel recorded into the trace.
--
-- Kinds (trace_processor's stats, value > 0):
--   ftrace_cpu_overrun       events the kernel's per-CPU ring buffer
--                            overwrote before traced_probes read them
--   ftrace_cpu_commit_overrun  events lost while being written
--   ftrace_cpu_dropped_events  events the kernel dropped (buffer full)
--     each per CPU (idx): the `_delta` stat (end of trace minus start) when
--     the trace has start-of-trace ftrace stats for that CPU, else the
--     `_end` stat (Perfetto clears the ring buffers when tracing starts, so
--     the end count is this trace's)
--   ftrace_cpu_has_data_loss   the kernel flagged lost events on that CPU
--   traced_buf_chunks_overwritten  a RING_BUFFER buffer (idx) wrapped:
--                            its oldest chunks were overwritten unread
--   traced_buf_chunks_discarded    a DISCARD buffer (idx) was full: chunks
--                            written after that were dropped
--   traced_buf_patches_failed, traced_buf_abi_violations,
--   traced_buf_trace_writer_packet_loss, traced_buf_sequence_packet_loss,
--   traced_buf_incremental_sequences_dropped, traced_buf_data_loss_*
--                            packets lost or cut inside buffer idx
--   traced_final_flush_failed, traced_flushes_failed
--                            flushes that did not complete: the data still
--                            in the producers at that point is missing
-- Not listed: traced_chunks_discarded and traced_patches_discarded count
-- since the tracing service started (every session of every app on the
-- device), not this trace.
--
-- Output columns:
--   name         the kind (the stat's name without its _delta/_end suffix)
--   idx          its CPU (ftrace_cpu_*) or buffer (traced_buf_*), else NULL
--   value        how many (events, chunks, packets, flushes)
--   buffer_size  for a buffer kind: the buffer's size in bytes, else NULL
--
-- Column types: name STRING, idx LONG, value LONG, buffer_size LONG
WITH
ftrace_cpu AS (
  SELECT s.name, s.idx, s.value
  FROM stats s
  WHERE s.name IN ('ftrace_cpu_overrun_delta', 'ftrace_cpu_commit_overrun_delta',
                   'ftrace_cpu_dropped_events_delta')
  UNION ALL
  SELECT e.name, e.idx, e.value
  FROM stats e
  WHERE e.name IN ('ftrace_cpu_overrun_end', 'ftrace_cpu_commit_overrun_end',
                   'ftrace_cpu_dropped_events_end')
    AND NOT EXISTS (
      SELECT 1 FROM stats b
      WHERE b.name = replace(e.name, '_end', '_begin') AND b.idx = e.idx)
),
lost AS (
  SELECT iif(name GLOB '*_delta', substr(name, 1, length(name) - 6),
             substr(name, 1, length(name) - 4)) AS name,
         idx, value
  FROM ftrace_cpu
  UNION ALL
  SELECT s.name, s.idx, s.value
  FROM stats s
  WHERE s.name IN ('ftrace_cpu_has_data_loss',
                   'traced_buf_chunks_overwritten', 'traced_buf_chunks_discarded',
                   'traced_buf_patches_failed', 'traced_buf_abi_violations',
                   'traced_buf_trace_writer_packet_loss', 'traced_buf_sequence_packet_loss',
                   'traced_buf_incremental_sequences_dropped',
                   'traced_final_flush_failed', 'traced_flushes_failed')
     OR s.name GLOB 'traced_buf_data_loss_*'
)
SELECT l.name, l.idx, l.value,
  iif(l.name GLOB 'traced_buf_*',
      (SELECT b.value FROM stats b
       WHERE b.name = 'traced_buf_buffer_size' AND b.idx = l.idx), NULL) AS buffer_size
FROM lost l
WHERE l.value > 0
ORDER BY l.name, l.idx
