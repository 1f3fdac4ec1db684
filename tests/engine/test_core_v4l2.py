"""Video4Linux2 buffer events in the compiled core, as
trace_processor's V4l2Tracker makes them: each an instant of category
`Video 4 Linux 2` on the thread's track, named by the event and its
buffer, the buffer's fields as args with the kernel's names for its type,
field order, flags and timecode; a buffer's dequeue has a flow from its
queueing. Expected rows are derived by hand from the schedule below and
checked against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

CAMERA = 1_200


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def buf(ts, kind, **fields):
        b = getattr(events.add(timestamp=ts, pid=CAMERA), kind)
        for k, v in fields.items():
            setattr(b, k, v)

    common = dict(minor=3, sequence=17, field=1, timecode_type=3, timecode_flags=0x5)
    buf(100, "v4l2_qbuf", type=9, index=2, bytesused=4096, flags=0x2003, timestamp=99, **common)
    buf(150, "vb2_v4l2_buf_queue", flags=0, **common)
    buf(200, "vb2_v4l2_buf_done", flags=0x4, **common)
    buf(250, "vb2_v4l2_dqbuf", flags=0x4, **common)
    buf(300, "v4l2_dqbuf", type=9, index=2, bytesused=4096, flags=0x2005, timestamp=99, **common)
    # another buffer's dequeue: no flow
    buf(400, "v4l2_dqbuf", type=0x80, index=3, minor=3, sequence=18, field=12, timecode_type=0)
    return trace.SerializeToString()


SLICES = "SELECT ts, dur, category, name FROM slice ORDER BY ts"
EXPECTED_SLICES = [
    (100, 0, "Video 4 Linux 2", "VIDIOC_QBUF minor=3 seq=17 type=9 index=2"),
    (150, 0, "Video 4 Linux 2", "vb2_v4l2_buf_queue minor=3 seq=17 type=0 index=0"),
    (200, 0, "Video 4 Linux 2", "vb2_v4l2_buf_done minor=3 seq=17 type=0 index=0"),
    # as the reference names it
    (250, 0, "Video 4 Linux 2", "vb2_v4l2_qbuf minor=3 seq=17 type=0 index=0"),
    (300, 0, "Video 4 Linux 2", "VIDIOC_DQBUF minor=3 seq=17 type=9 index=2"),
    (400, 0, "Video 4 Linux 2", "VIDIOC_DQBUF minor=3 seq=18 type=128 index=3"),
]
ARGS = """
SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
WHERE s.ts = {ts} ORDER BY a.key
"""
EXPECTED_QBUF_ARGS = [
    ("bytesused", "4096"), ("field", "NONE"),
    ("flags", "MAPPED|QUEUED|TIMESTAMP_MASK|TIMESTAMP_MONOTONIC"), ("index", "2"),
    ("minor", "3"), ("sequence", "17"), ("timecode_flags", "FLAG_DROPFRAME|USERBITS_field(01)"),
    ("timecode_frames", "0"), ("timecode_hours", "0"), ("timecode_minutes", "0"),
    ("timecode_seconds", "0"), ("timecode_type", "30FPS"), ("timecode_userbits0", "0"),
    ("timecode_userbits1", "0"), ("timecode_userbits2", "0"), ("timecode_userbits3", "0"),
    ("timestamp", "99"), ("type", "VIDEO_CAPTURE_MPLANE"),
]
# no flags at all: both "unknown" / "EOF" names; an unknown field or
# timecode type is a NULL string
EXPECTED_LAST_FLAGS = [("field", None), ("flags", "TIMESTAMP_UNKNOWN|TSTAMP_SRC_EOF"),
                       ("timecode_flags", "USERBITS_USERDEFINED"), ("timecode_type", None),
                       ("type", "PRIVATE")]
FLOWS = """
SELECT o.ts, i.ts FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in
"""


def test_instants(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_args(load_embedded):
    e = load_embedded(_trace())
    assert e.query(ARGS.format(ts=100)).rows() == EXPECTED_QBUF_ARGS
    last = dict(e.query(ARGS.format(ts=400)).rows())
    assert [(k, last[k]) for k, _ in EXPECTED_LAST_FLAGS] == EXPECTED_LAST_FLAGS


def test_dequeue_flows_from_queue(load_embedded):
    assert load_embedded(_trace()).query(FLOWS).rows() == [(100, 300)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), ARGS.format(ts=100)) == EXPECTED_QBUF_ARGS
    assert tp_rows(_trace(), FLOWS) == [(100, 300)]
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "args", "flow", "thread_track"} <= compared
    assert diffs == {}
