"""virtio GPU command queues and virtio video in the compiled core, as
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


# --- virtio video ---------------------------------------------------------------

def _video_trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def resource(ts, done, resource_id, queue_type=0x100, size=0):
        r = getattr(events.add(timestamp=ts, pid=0),
                    "virtio_video_resource_queue_done" if done else "virtio_video_resource_queue")
        r.stream_id, r.resource_id, r.queue_type, r.data_size0 = 4, resource_id, queue_type, size
        if done:
            r.timestamp = 33_000

    def cmd(ts, done, type_):
        c = getattr(events.add(timestamp=ts, pid=0), "virtio_video_cmd_done" if done else "virtio_video_cmd")
        c.stream_id, c.type = 4, type_

    resource(1_000, False, 11)
    resource(1_100, False, 12, queue_type=0x101)
    resource(1_500, True, 11, size=4_096)
    cmd(2_000, False, 0x105)  # RESOURCE_QUEUE
    cmd(50_000, False, 0x101)  # overlaps the first: a second lane
    cmd(60_000, True, 0x999)  # no such command: Unknown
    return trace.SerializeToString()


VIDEO_SLICES = """
SELECT s.ts, s.dur, s.name, t.name, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx')
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_VIDEO_SLICES = [
    (1_000, 500, "Resource #11", "virtio_video stream #4 INPUT", 0),
    (1_100, -1, "Resource #12", "virtio_video stream #4 OUTPUT", 0),
    (2_000, 100_000, "RESOURCE_QUEUE", "virtio_video stream #4 Requests", 0),
    (50_000, 100_000, "STREAM_CREATE", "virtio_video stream #4 Requests", 1),
    (60_000, 100_000, "Unknown", "virtio_video stream #4 Responses", 0),
]
VIDEO_ARGS = """
SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY a.key
"""
EXPECTED_VIDEO_ARGS = [
    ("data_size0", "4096"), ("data_size1", "0"), ("data_size2", "0"), ("data_size3", "0"),
    ("queue_type", "INPUT"), ("resource_id", "11"), ("stream_id", "4"), ("timestamp", "33000"),
]


def test_video(load_embedded):
    e = load_embedded(_video_trace())
    assert e.query(VIDEO_SLICES).rows() == EXPECTED_VIDEO_SLICES
    assert e.query(VIDEO_ARGS).rows() == EXPECTED_VIDEO_ARGS


@pytest.mark.tp
def test_video_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_video_trace(), VIDEO_SLICES) == EXPECTED_VIDEO_SLICES
    assert tp_rows(_video_trace(), VIDEO_ARGS) == EXPECTED_VIDEO_ARGS
    assert tp_diffs(_video_trace())[0] == {}
