"""F2FS events in the compiled core, as trace_processor's
IostatTracker and FtraceParser make them: every I/O counter of f2fs_iostat
and f2fs_iostat_latency on its own per-device track, and checkpoints as
slices on the writing process's track with their reasons. Expected rows are
derived by hand from the schedule below and checked against the real
trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

DEV = (254 << 8) | 48  # 254:48


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event
    io = events.add(timestamp=1_000, pid=0).f2fs_iostat
    io.dev, io.app_wio, io.app_rio, io.fs_discard = DEV, 4_096, 8_192, 3
    lat = events.add(timestamp=1_100, pid=0).f2fs_iostat_latency
    lat.dev, lat.d_rd_peak, lat.m_wr_as_cnt = DEV, 70, 5

    def checkpoint(ts, phase, reason=0):
        cp = events.add(timestamp=ts, pid=600).f2fs_write_checkpoint
        cp.dev, cp.phase, cp.reason = DEV, phase, reason

    checkpoint(2_000, 0, reason=0b101)  # Umount | Sync
    checkpoint(2_100, 1)  # blocks finished: nothing
    checkpoint(2_300, 2)
    checkpoint(3_000, 0)  # no reason: Unknown; open at the end
    return trace.SerializeToString()


COUNTERS = """
SELECT t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
WHERE c.value != 0 ORDER BY t.name
"""
EXPECTED_COUNTERS = [
    ("f2fs_iostat.[254:48].other_fs_discard", 3.0),
    ("f2fs_iostat.[254:48].read_app_total", 8_192.0),
    ("f2fs_iostat.[254:48].write_app_total", 4_096.0),
    ("f2fs_iostat_latency.[254:48].read_data_peak", 70.0),
    ("f2fs_iostat_latency.[254:48].write_async_meta_cnt", 5.0),
]
# every counter of each event, 0 or not
TRACK_COUNT = "SELECT count(*) FROM counter_track WHERE type GLOB 'f2fs_iostat*'"
SLICES = """
SELECT s.ts, s.dur, s.name, t.name AS track, a.key, a.display_value FROM slice s
JOIN track t ON s.track_id = t.id JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key
"""
EXPECTED_SLICES = [
    (2_000, 300, "F2fs Write Checkpoint", "f2fs_ckpt 600", "dev", str(DEV)),
    (2_000, 300, "F2fs Write Checkpoint", "f2fs_ckpt 600", "reason_int", "5"),
    (2_000, 300, "F2fs Write Checkpoint", "f2fs_ckpt 600", "reason_str[0]", "Umount"),
    (2_000, 300, "F2fs Write Checkpoint", "f2fs_ckpt 600", "reason_str[1]", "Sync"),
    (3_000, -1, "F2fs Write Checkpoint", "f2fs_ckpt 600", "dev", str(DEV)),
    (3_000, -1, "F2fs Write Checkpoint", "f2fs_ckpt 600", "reason_int", "0"),
    (3_000, -1, "F2fs Write Checkpoint", "f2fs_ckpt 600", "reason_str", "Unknown"),
]


def test_iostat_counters(load_embedded):
    e = load_embedded(_trace())
    assert e.query(COUNTERS).rows() == EXPECTED_COUNTERS
    assert e.query(TRACK_COUNT).item() == 22 + 27


def test_checkpoints(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), COUNTERS) == EXPECTED_COUNTERS
    assert tp_rows(_trace(), TRACK_COUNT) == [(22 + 27,)]
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "counter", "track", "args", "process"} <= compared
    assert diffs == {}
