"""Pixel firmware counters and slices and the ChromeOS EC sensor hub in the
compiled core, as trace_processor makes them. param_set_value_cpm,
fwtp_perfetto_counter and fwtp_perfetto_slice carry their own `timestamp`
(FtraceTokenizer): their ftrace_event row stays at the event's time, their
counter / slice is at that timestamp, and one without it is dropped whole
(ftrace_bundle_tokenizer_errors). The firmware slices share one
`pixel_fwtp_slices` track, named by the first slice (the reference keys the
track by its blueprint alone). Expected rows are derived by hand from the
schedule below and checked against the real trace_processor where it is
available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def ev(ts):
        return events.add(timestamp=ts, pid=0)

    # stamped later than the event is: counters at their own time
    p = ev(10_000).param_set_value_cpm
    p.body, p.value, p.timestamp = "cpm_vdd_cpu", 750, 1_000
    f = ev(10_100).fwtp_perfetto_counter
    f.name, f.value, f.timestamp = "fw_temp", 41, 1_500
    # the slice events come in file order, stamped out of order
    s = ev(10_200).fwtp_perfetto_slice
    s.name, s.category, s.begin, s.timestamp = "boot", "fw", 1, 2_000
    s = ev(10_300).fwtp_perfetto_slice
    s.name, s.category, s.begin, s.timestamp = "idle", "pm", 1, 2_600
    s = ev(10_250).fwtp_perfetto_slice
    s.name, s.begin, s.timestamp = "boot", 0, 2_400
    # no timestamp: dropped, row and all
    ev(10_400).param_set_value_cpm.body = "lost"
    c = ev(3_000).cros_ec_sensorhub_data
    c.ec_sensor_num, c.current_time, c.current_timestamp, c.fifo_timestamp = 2, 900, 700, 750
    return trace.SerializeToString()


COUNTERS = """
SELECT c.ts, c.value, t.type, t.name, extract_arg(c.arg_set_id, 'ec_delta'),
  extract_arg(c.arg_set_id, 'sample_ts')
FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts
"""
EXPECTED_COUNTERS = [
    (1_000, 750.0, "pixel_cpm_counters", "cpm_vdd_cpu", None, None),
    (1_500, 41.0, "pixel_fwtp_counters", "fw_temp", None, None),
    # latency 900 - 700, FIFO delay 750 - 700
    (3_000, 200.0, "cros_ec_sensorhub_data", "cros_ec.cros_ec_sensorhub_data.2", 50, 700),
]
SLICES = """
SELECT s.ts, s.dur, s.category, s.name, t.name FROM slice s JOIN track t
ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (2_000, 400, "fw", "boot", "boot"),
    # on the same track, named by the first slice
    (2_600, -1, "pm", "idle", "boot"),
]
RAW = """
SELECT name, ts FROM ftrace_event ORDER BY ts
"""
EXPECTED_RAW = [
    ("cros_ec_sensorhub_data", 3_000),
    ("param_set_value_cpm", 10_000),
    ("fwtp_perfetto_counter", 10_100),
    ("fwtp_perfetto_slice", 10_200),
    ("fwtp_perfetto_slice", 10_250),
    ("fwtp_perfetto_slice", 10_300),
]
TOKENIZER_ERRORS = "SELECT value FROM stats WHERE name = 'ftrace_bundle_tokenizer_errors'"


def test_counters(load_embedded):
    assert load_embedded(_trace()).query(COUNTERS).rows() == EXPECTED_COUNTERS


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_raw_rows_at_event_time(load_embedded):
    e = load_embedded(_trace())
    assert e.query(RAW).rows() == EXPECTED_RAW
    assert e.query(TOKENIZER_ERRORS).item() == 1


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), COUNTERS) == EXPECTED_COUNTERS
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), RAW) == EXPECTED_RAW
    assert tp_rows(_trace(), TOKENIZER_ERRORS) == [(1,)]
    diffs, compared = tp_diffs(_trace())
    assert {"counter", "slice", "track", "ftrace_event", "stats"} <= compared
    assert diffs == {}


def _trace_after_tracing_started() -> bytes:
    """Tracing starts at 10_000 (TracingServiceEvent). A stamped event's
    drop window compares the event's own time, not its stamp's
    (FtraceData::raw_ts):
    - at 9_000, stamped 12_000: before the start, so its row and its
      counter are dropped (two ftrace_packet_before_tracing_start);
    - at 11_000, stamped 5_000: after the start, so its row and its counter
      (at 5_000) are kept."""
    trace = pb.Trace()
    trace.packet.add(timestamp=10_000, trusted_packet_sequence_id=1
                     ).service_event.tracing_started = True
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    for ts, stamp, value in ((9_000, 12_000, 1), (11_000, 5_000, 2)):
        f = pkt.ftrace_events.event.add(timestamp=ts, pid=0).fwtp_perfetto_counter
        f.name, f.value, f.timestamp = "fw_temp", value, stamp
    return trace.SerializeToString()


STARTED_COUNTERS = "SELECT c.ts, c.value FROM counter c ORDER BY c.ts"
BEFORE_START = "SELECT value FROM stats WHERE name = 'ftrace_packet_before_tracing_start'"


def test_stamped_events_drop_by_their_own_time(load_embedded):
    e = load_embedded(_trace_after_tracing_started())
    assert e.query(STARTED_COUNTERS).rows() == [(5_000, 2.0)]
    assert e.query(RAW).rows() == [("fwtp_perfetto_counter", 11_000)]
    assert e.query(BEFORE_START).item() == 2


@pytest.mark.tp
def test_stamped_events_drop_as_trace_processor(tp_rows, tp_diffs):
    trace = _trace_after_tracing_started()
    assert tp_rows(trace, STARTED_COUNTERS) == [(5_000, 2.0)]
    assert tp_rows(trace, RAW) == [("fwtp_perfetto_counter", 11_000)]
    assert tp_rows(trace, BEFORE_START) == [(2,)]
    diffs, _ = tp_diffs(trace)
    assert diffs == {}
