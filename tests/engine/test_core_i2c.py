"""I2C transfers in the compiled core, as trace_processor's
I2cTracker makes them: a thread's transfer is an `i2c-<adapter>` slice from
its first message to the i2c_result reporting that adapter and its message
count; a result that does not match is ignored, as are adapters past 255.
Also each event's TO_FTRACE line (trace_processor's i2c layouts: `i2c-N #m
a=addr f=flags l=len [buf]`). Expected rows are derived by hand from the
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

    def msg(ts, pid, kind, adapter, nr, **fields):
        m = getattr(events.add(timestamp=ts, pid=pid), kind)
        m.adapter_nr = adapter
        if kind == "i2c_result":
            m.nr_msgs = nr
        else:
            m.msg_nr = nr
        for k, v in fields.items():
            setattr(m, k, v)

    # every field set: to_ftrace finds a field at its position in the first
    # event of the name (to_ftrace.rs)
    msg(100, 900, "i2c_write", 3, 0, addr=0x36, flags=0, len=2, buf=b"\x01\x1f")
    msg(110, 900, "i2c_read", 3, 1, addr=0x36, flags=1, len=4)
    msg(150, 900, "i2c_result", 3, 1, ret=1)  # 1 message: not this transfer's 2
    msg(200, 900, "i2c_result", 3, 2, ret=2)
    msg(400, 901, "i2c_write", 0, 0, addr=0x50, flags=0, len=1, buf=b"\x07")  # open at the end
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, th.tid FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread th USING (utid) ORDER BY s.ts
"""
EXPECTED_SLICES = [(100, 100, "i2c-3", 900), (400, -1, "i2c-0", 901)]
LINES = "SELECT to_ftrace(id) FROM ftrace_event ORDER BY ts"
PREFIX = "       <unknown>-{tid}   (-----) [000] .... 0.000000: "
EXPECTED_LINES = [
    PREFIX.format(tid=900) + "i2c_write: i2c-3 #0 a=036 f=0000 l=2 [01-1f]",
    PREFIX.format(tid=900) + "i2c_read: i2c-3 #1 a=036 f=0001 l=4",
    PREFIX.format(tid=900) + "i2c_result: i2c-3 n=1 ret=1",
    PREFIX.format(tid=900) + "i2c_result: i2c-3 n=2 ret=2",
    PREFIX.format(tid=901) + "i2c_write: i2c-0 #0 a=050 f=0000 l=1 [07]",
]


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_adapter_past_255_ignored(load_embedded):
    trace = pb.Trace.FromString(_trace())
    m = trace.packet[0].ftrace_events.event.add(timestamp=300, pid=900).i2c_read
    m.adapter_nr, m.msg_nr = 300, 0
    e = load_embedded(trace.SerializeToString())
    assert e.query(SLICES).rows() == EXPECTED_SLICES


def test_ftrace_lines(load_embedded):
    assert [r[0] for r in load_embedded(_trace()).query(LINES).rows()] == EXPECTED_LINES


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert [r[0] for r in tp_rows(_trace(), LINES)] == EXPECTED_LINES
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "thread_track", "ftrace_event", "to_ftrace"} <= compared
    assert diffs == {}
