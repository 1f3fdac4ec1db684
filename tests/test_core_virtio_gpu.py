"""virtio GPU command queues in the compiled core (issue 18), as
trace_processor's VirtioGpuTracker makes them (an emulator's or a VM guest's
GPU commands): each command a slice named by its type on its queue's lanes
(one per command in flight, keyed by seqno) until its response, the free
descriptors of the queue as a counter, and the latency of each command
without a fence. Expected rows are derived by hand from the schedule below
and checked against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def cmd(ts, kind, queue, seqno, type_=0, fence=0, free=60):
        c = getattr(events.add(timestamp=ts, pid=0), kind)
        c.name, c.seqno, c.type, c.fence_id, c.num_free = queue, seqno, type_, fence, free

    cmd(100, "virtio_gpu_cmd_queue", "control", 1, type_=0x0207)  # SUBMIT_3D
    cmd(110, "virtio_gpu_cmd_queue", "control", 2, type_=0x0104, fence=9, free=58)
    cmd(150, "virtio_gpu_cmd_response", "control", 1, free=59)
    cmd(180, "virtio_gpu_cmd_response", "control", 2, free=60)
    cmd(200, "virtio_gpu_cmd_queue", "cursor", 7, type_=0x0301)  # MOVE_CURSOR
    cmd(210, "virtio_gpu_cmd_queue", "other", 8, type_=0x0301)  # not a queue it knows
    cmd(300, "virtio_gpu_cmd_queue", "control", 3, type_=0x0999)  # no such type: ""
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, t.name, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx')
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (100, 50, "SUBMIT_3D", "Virtgpu Control Queue", 0),
    # in flight with seqno 1: the next lane
    (110, 70, "RESOURCE_FLUSH", "Virtgpu Control Queue", 1),
    (200, -1, "MOVE_CURSOR", "Virtgpu Cursor Queue", 0),
    (300, -1, "", "Virtgpu Control Queue", 0),
]
COUNTERS = """
SELECT c.ts, t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name
"""
EXPECTED_COUNTERS = [
    (100, "Virtgpu Control Free", 60.0),
    (110, "Virtgpu Control Free", 58.0),
    (150, "Virtgpu Control Free", 59.0),
    # seqno 1 had no fence: 50 ns from queue to response
    (150, "Virtgpu Control Latency", 50.0),
    (180, "Virtgpu Control Free", 60.0),
    (200, "Virtgpu Cursor Free", 60.0),
    (300, "Virtgpu Control Free", 60.0),
]


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_counters(load_embedded):
    assert load_embedded(_trace()).query(COUNTERS).rows() == EXPECTED_COUNTERS


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), COUNTERS) == EXPECTED_COUNTERS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "counter", "track"} <= compared
    assert diffs == {}
