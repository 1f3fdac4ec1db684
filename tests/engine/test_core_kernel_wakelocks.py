"""Kernel wakelocks (KernelWakelockData, the `android.kernel_wakelocks` data
source) as trace_processor v58.2's AndroidKernelWakelocksModule imports them:
per sequence, each wakelock name's time held summed from the
packets' deltas, pushed after every packet as an `android_kernel_wakelock`
counter (ms in ns: value x 1e6) through SparseCounterTracker, which writes a
value when it changes (and the previous value at its last time, if that was
not written). The rows are derived by hand from the schedule; track and
counter ids (the reference's hash map order) are checked against the real
trace_processor.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

WL = pb.KernelWakelockData.Wakelock
KERNEL, NATIVE = WL.WAKELOCK_TYPE_KERNEL, WL.WAKELOCK_TYPE_NATIVE


def _wakelock_trace() -> bytes:
    """Sequence 1 (cleared at 100):
    100: wakelocks 1 'alarm' (kernel), 2 'wlan' (native); alarm +10 ms, wlan +0;
    200: wlan +5, unknown id 9 +1;
    300: alarm +0, error flags zero value | non-monotonic;
    400: id 1 named again (reused), alarm +7;
    500 (cleared again): 1 'alarm' (kernel), alarm +2: a new total of 2.
    Sequence 2 (cleared at 150): 1 'alarm' (native: another track) +3."""
    t = pb.Trace()

    def packet(ts, seq, wakelocks=(), deltas=(), errors=0, cleared=False):
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=seq)
        if cleared:
            p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
        d = p.kernel_wakelock_data
        for wid, name, kind in wakelocks:
            d.wakelock.add(wakelock_id=wid, wakelock_name=name, wakelock_type=kind)
        d.wakelock_id.extend(w for w, _ in deltas)
        d.time_held_millis.extend(ms for _, ms in deltas)
        if errors:
            d.error_flags = errors

    packet(100, 1, [(1, "alarm", KERNEL), (2, "wlan", NATIVE)], [(1, 10), (2, 0)], cleared=True)
    packet(150, 2, [(1, "alarm", NATIVE)], [(1, 3)], cleared=True)
    packet(200, 1, deltas=[(2, 5), (9, 1)])
    packet(300, 1, deltas=[(1, 0)], errors=3)
    packet(400, 1, [(1, "alarm", KERNEL)], [(1, 7)])
    packet(500, 1, [(1, "alarm", KERNEL)], [(1, 2)], cleared=True)
    return t.SerializeToString()


def test_kernel_wakelocks(load_embedded) -> None:
    eng = load_embedded(_wakelock_trace())
    tracks = eng.query("SELECT name, type, unit, extract_arg(dimension_arg_set_id, 'wakelock_type') "
                       "FROM counter_track ORDER BY name, 4").rows()
    assert tracks == [("alarm", "android_kernel_wakelock", "ms", "kernel"),
                      ("alarm", "android_kernel_wakelock", "ms", "native"),
                      ("wlan", "android_kernel_wakelock", "ms", "native")]
    counters = eng.query(
        "SELECT t.name, extract_arg(t.dimension_arg_set_id, 'wakelock_type'), c.ts, c.value "
        "FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY 1, 2, c.ts").rows()
    assert counters == [
        # 200 and 300 repeat 10 ms (not written); 400's change writes 300's
        # value first; the cleared state restarts the total at 2 ms
        ("alarm", "kernel", 100, 1e7), ("alarm", "kernel", 300, 1e7),
        ("alarm", "kernel", 400, 1.7e7), ("alarm", "kernel", 500, 2e6),
        ("alarm", "native", 150, 3e6),
        # 300 and 400 repeat 5 ms, never written
        ("wlan", "native", 100, 0.0), ("wlan", "native", 200, 5e6),
    ]
    stats = eng.query("SELECT name, value FROM stats WHERE name GLOB 'kernel_wakelock_*' "
                      "AND value != 0 ORDER BY name").rows()
    assert stats == [("kernel_wakelock_non_monotonic_value_reported", 1),
                     ("kernel_wakelock_reused_id", 1), ("kernel_wakelock_unknown_id", 1),
                     ("kernel_wakelock_zero_value_reported", 1)]


def _rows(engine, sql: str) -> list[tuple]:
    return engine.query(sql).rows()


@pytest.mark.tp
@pytest.mark.parametrize("seed", [None, 1, 3])
def test_kernel_wakelock_ids_equal_trace_processor(tmp_path, tp_bin, load_embedded, seed) -> None:
    """Track and counter ids, and the args' order, as the reference gives
    them: its hash map's iteration order (seeds 1 and 3 of
    tools/packet_fuzz.py hold over 1,000 wakelock names: past the map's
    first growth)."""
    from artscope.engines.trace_processor import TraceProcessorEngine

    if seed is None:
        data = _wakelock_trace()
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
        import packet_fuzz

        data = packet_fuzz.generate("kernel_wakelock_data", seed)
    path = tmp_path / "wakelocks.pftrace"
    path.write_bytes(data)
    ours = load_embedded(data)
    ref = TraceProcessorEngine(tp_bin=tp_bin)
    ref.load(path)
    try:
        for sql in ["SELECT id, name, type, unit FROM counter_track ORDER BY id",
                    "SELECT id, ts, track_id, value FROM counter ORDER BY id",
                    "SELECT key, display_value FROM args ORDER BY id"]:
            assert _rows(ours, sql) == _rows(ref, sql), sql
    finally:
        ref.close()
