"""GPU work periods in the compiled core, as trace_processor's
FtraceTokenizer and GpuWorkPeriodTracker make them: each period is a slice
at its start (a CLOCK_MONOTONIC_RAW time, converted to trace time through
the clock snapshots) lasting the period, on the (ugpu, gpu, uid) track, named by the
share of it the GPU was active (`%25.00`), with the active time as its
thread_dur; a period that ends before it starts is logged in
`_trace_import_logs` and dropped, and so is one that starts inside an
earlier period of the track and outlasts it (SliceTracker's overlap check,
`slice_drop_overlapping_complete_event`). The event keeps its
`ftrace_event` row at its own time, unless it has no start
(ftrace_bundle_tokenizer_errors): then nothing is kept. Expected rows are derived by
hand from the schedule below and checked against the real
trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

APP_UID, SYSTEM_UID = 10123, 1000


OFFSET = 100_000  # trace time (BOOTTIME) - CLOCK_MONOTONIC_RAW


def _trace() -> bytes:
    trace = pb.Trace()
    snap = trace.packet.add(trusted_packet_sequence_id=1).clock_snapshot
    snap.clocks.add(clock_id=6, timestamp=OFFSET)  # BOOTTIME
    snap.clocks.add(clock_id=5, timestamp=0)  # MONOTONIC_RAW
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def period(gpu, uid, start, end, active):
        # the event itself is stamped later (at its period's end, here after)
        g = events.add(timestamp=200_000 + len(events), pid=0).gpu_work_period
        g.gpu_id, g.uid, g.end_time_ns = gpu, uid, end
        g.total_active_duration_ns = active
        if start is not None:
            g.start_time_ns = start

    period(0, APP_UID, 1_000, 2_000, 250)
    # [1500, 2100) starts inside [1000, 2000) and outlasts it: dropped
    period(0, APP_UID, 1_500, 2_100, 600)
    # starts where the first ends: not an overlap
    period(0, APP_UID, 2_000, 2_400, 400)
    # ends before it starts: logged, no slice (its track is made first)
    period(1, SYSTEM_UID, 5_000, 4_000, 0)
    # an empty period: 0 / 0 active is printed as C prints NaN
    period(0, APP_UID, 8_000, 8_000, 0)
    # a period inside another nests under it
    period(0, APP_UID, 9_000, 10_000, 333)
    period(0, APP_UID, 9_100, 9_300, 50)
    # no start: dropped whole, raw row included
    period(0, APP_UID, None, 9_500, 10)
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, s.depth, s.thread_ts, s.thread_dur,
  extract_arg(t.dimension_arg_set_id, 'gpu') AS gpu,
  extract_arg(t.dimension_arg_set_id, 'uid') AS uid
FROM slice s JOIN track t ON s.track_id = t.id
WHERE t.type = 'android_gpu_work_period' ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (101_000, 1_000, "%25.00", 0, 101_000, 250, 0, APP_UID),
    (102_000, 400, "%100.00", 0, 102_000, 400, 0, APP_UID),
    (108_000, 0, "%-nan", 0, 108_000, 0, 0, APP_UID),
    (109_000, 1_000, "%33.30", 0, 109_000, 333, 0, APP_UID),
    (109_100, 200, "%25.00", 1, 109_100, 50, 0, APP_UID),
]
TRACKS = """
SELECT extract_arg(dimension_arg_set_id, 'ugpu'), extract_arg(dimension_arg_set_id, 'gpu'),
  extract_arg(dimension_arg_set_id, 'uid') FROM track
WHERE type = 'android_gpu_work_period' ORDER BY 1, 3
"""
# ugpu: the gpus in order of first appearance
EXPECTED_TRACKS = [(0, 0, APP_UID), (1, 1, SYSTEM_UID)]
LOGS = """
SELECT ts, name, severity,
  extract_arg(arg_set_id, 'overlap_start'), extract_arg(arg_set_id, 'overlap_end'),
  extract_arg(arg_set_id, 'conflicting_slice_name'),
  extract_arg(arg_set_id, 'conflicting_slice_ts'),
  extract_arg(arg_set_id, 'conflicting_slice_dur'),
  extract_arg(arg_set_id, 'start_time_ns'), extract_arg(arg_set_id, 'end_time_ns'),
  extract_arg(arg_set_id, 'gpu_id')
FROM _trace_import_logs ORDER BY ts
"""
EXPECTED_LOGS = [
    (101_500, "slice_drop_overlapping_complete_event", "error",
     101_500, 102_000, "%25.00", 101_000, 1_000, None, None, None),
    (105_000, "gpu_work_period_negative_duration", "error",
     None, None, None, None, None, 5_000, 4_000, 1),
]
RAW = "SELECT count(*) FROM ftrace_event WHERE name = 'gpu_work_period'"
TOKENIZER_ERRORS = "SELECT value FROM stats WHERE name = 'ftrace_bundle_tokenizer_errors'"


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_tracks(load_embedded):
    assert load_embedded(_trace()).query(TRACKS).rows() == EXPECTED_TRACKS


def test_dropped_periods_logged(load_embedded):
    assert load_embedded(_trace()).query(LOGS).rows() == EXPECTED_LOGS


def test_raw_rows_and_dropped_event(load_embedded):
    e = load_embedded(_trace())
    assert e.query(RAW).item() == 7
    assert e.query(TOKENIZER_ERRORS).item() == 1


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), TRACKS) == EXPECTED_TRACKS
    assert tp_rows(_trace(), LOGS) == EXPECTED_LOGS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "track", "args", "stats", "ftrace_event"} <= compared
    assert diffs == {}
