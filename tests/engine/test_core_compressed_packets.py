"""TracePacket.compressed_packets (a deflated `Trace` of packets, what the
tracing service writes with TraceConfig.compression_type DEFLATE), read as
trace_processor's tokenizer reads it (v58.2 proto_trace_tokenizer.h): the
payload is a zlib or gzip stream inflated whole, its packets are decoded in
place of the outer packet (whose other fields are ignored) and keep their
sequences' state across compressed and plain packets. A payload that does
not inflate whole, or whose bytes stop being packets, makes the import
partial (trace_processor stops the import there); zstd payloads are not
read by the reference build either and are counted as skipped.
"""

from __future__ import annotations

import gzip
import zlib

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SEQ = 7


def _trace_of(*packets: pb.TracePacket) -> pb.Trace:
    t = pb.Trace()
    t.packet.extend(packets)
    return t


def _print_bundle(cpu: int, events: list[tuple[int, int, str]]) -> pb.TracePacket:
    p = pb.TracePacket()
    p.ftrace_events.cpu = cpu
    for ts, pid, buf in events:
        e = p.ftrace_events.event.add(timestamp=ts, pid=pid)
        e.print.buf = buf
    return p


def _interned_instant(ts: int, iid: int, name: str | None) -> pb.TracePacket:
    """A track event instant on thread 11 (pid 10) named by interned iid; the
    name is interned in this packet when given."""
    p = pb.TracePacket(timestamp=ts, trusted_packet_sequence_id=SEQ)
    if name is not None:
        p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
        p.interned_data.event_names.add(iid=iid, name=name)
    else:
        p.sequence_flags = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
    p.track_event.type = pb.TrackEvent.TYPE_INSTANT
    p.track_event.name_iid = iid
    return p


def _mixed_trace() -> bytes:
    """Plain: process 10 (cmdline "app") with thread 11, a track descriptor
    for thread 11 (uuid 5) as the sequence's default track. zlib: print
    B "outer" at 100 (pid 11) on cpu 0 and an instant interned as "tick"
    (iid 1) at 150. Plain: the same sequence's instant with iid 1 at 160
    (state from the compressed packet). gzip: print E at 300; the outer
    packet also has a timestamp and a print bundle of its own, both
    ignored."""
    plain = _trace_of(
        pb.TracePacket(timestamp=1, process_tree=pb.ProcessTree(
            processes=[pb.ProcessTree.Process(pid=10, ppid=1, cmdline=["app"])],
            threads=[pb.ProcessTree.Thread(tid=11, tgid=10)])),
        pb.TracePacket(timestamp=2, trusted_packet_sequence_id=SEQ,
                       sequence_flags=pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED,
                       track_descriptor=pb.TrackDescriptor(
                           uuid=5, thread=pb.ThreadDescriptor(pid=10, tid=11)),
                       trace_packet_defaults=pb.TracePacketDefaults(
                           track_event_defaults=pb.TrackEventDefaults(track_uuid=5))),
    )
    first = _trace_of(_print_bundle(0, [(100, 11, "B|10|outer\n")]),
                      _interned_instant(150, 1, "tick"))
    later_plain = _interned_instant(160, 1, None)
    last = _trace_of(_print_bundle(0, [(300, 11, "E|10\n")]))
    outer_ignored = _print_bundle(1, [(400, 11, "B|10|ignored\n")])
    outer_ignored.timestamp = 400
    outer_ignored.compressed_packets = gzip.compress(last.SerializeToString())

    t = pb.Trace()
    t.packet.extend(plain.packet)
    t.packet.add().compressed_packets = zlib.compress(first.SerializeToString())
    t.packet.append(later_plain)
    t.packet.append(outer_ignored)
    return t.SerializeToString()


def test_compressed_packets_are_read_in_place(load_embedded) -> None:
    eng = load_embedded(_mixed_trace())
    rows = eng.query("SELECT s.ts, s.dur, s.name, t.tid FROM slice s "
                     "JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) "
                     "ORDER BY s.ts").rows()
    # the print slice spans 100..300 on thread 11; the two instants are on
    # thread 11's track (the default track of the sequence)
    assert rows == [(100, 200, "outer", 11), (150, 0, "tick", 11), (160, 0, "tick", 11)]
    printed = eng.query("SELECT ts, cpu FROM ftrace_event WHERE name = 'print' ORDER BY ts").rows()
    assert printed == [(100, 0), (300, 0)]  # not the outer packet's own bundle at 400
    assert eng.query("SELECT name FROM process WHERE pid = 10").rows() == [("app",)]


def _load_info(data: bytes, tmp_path):
    from artscope.engines.embedded import EmbeddedEngine

    path = tmp_path / "t.pftrace"
    path.write_bytes(data)
    eng = EmbeddedEngine()
    info = eng.load(path)
    return eng, info


@pytest.mark.parametrize("damage", ["truncated", "trailing", "not_packets"])
def test_damaged_payload_makes_the_import_partial(tmp_path, damage) -> None:
    """Before it: a print at 10; the damaged payload holds prints at 20 and
    30 (for not_packets, a print at 20 then bytes that are not a packet);
    after it: a print at 40. What inflated and split whole is kept."""
    inner = _trace_of(_print_bundle(0, [(20, 5, "x")]), _print_bundle(0, [(30, 5, "y")]))
    payload = zlib.compress(inner.SerializeToString())
    kept = {"truncated": [], "trailing": [], "not_packets": [20]}[damage]
    if damage == "truncated":
        payload = payload[:-3]
    elif damage == "trailing":
        payload += b"\x00"
    else:
        one = _trace_of(_print_bundle(0, [(20, 5, "x")])).SerializeToString()
        payload = zlib.compress(one + b"\x12\x02ab")
    t = pb.Trace()
    t.packet.append(_print_bundle(0, [(10, 5, "a")]))
    t.packet.add().compressed_packets = payload
    t.packet.append(_print_bundle(0, [(40, 5, "b")]))
    eng, info = _load_info(t.SerializeToString(), tmp_path)
    try:
        assert info.partial
        assert any("corrupt packet" in w for w in info.warnings), info.warnings
        ts = [r[0] for r in eng.query("SELECT ts FROM ftrace_event ORDER BY ts").rows()]
        assert ts == [10, *kept, 40]
    finally:
        eng.close()


def test_zstd_payloads_are_counted_as_skipped(load_embedded) -> None:
    """The reference build has no zstd ("zstd is not enabled in this build"):
    the packet is counted as skipped, not read."""
    t = pb.Trace()
    t.packet.append(_print_bundle(0, [(10, 5, "a")]))
    t.packet.add().zstd_compressed_packets = b"\x28\xb5\x2f\xfd-not-read"
    eng = load_embedded(t.SerializeToString())
    with pytest.warns(UserWarning, match="zstd_compressed_packets"):
        rows = eng.query("SELECT name, value FROM stats "
                         "WHERE name = 'artscope_skipped_zstd_compressed_packets'").rows()
    assert rows == [("artscope_skipped_zstd_compressed_packets", 1)]
    assert eng.query("SELECT count(*) FROM ftrace_event").rows() == [(1,)]


@pytest.mark.tp
def test_compressed_packets_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_mixed_trace())
    assert {"slice", "ftrace_event", "process", "thread", "track"} <= compared
    assert diffs == {}
