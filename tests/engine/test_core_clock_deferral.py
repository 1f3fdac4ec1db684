"""Packets stamped in a clock no snapshot converts yet, as the reference
trace_processor handles them (ProtoTraceReader::ResolveTimestampToTraceTime
and OnPushDataToSorter): deferred to the end of the file, then read again
with their sequence's state as it is then; a clock that still does not
convert drops the packet, with two import logs at its offset (the
conversion error with the clock's args, and
clock_sync_failure_undeferrable_packet_loss).

Traces of instants "e" on a global track (uuid 5), one stamped in MONOTONIC
(clock 3) at 100, one in the trace's clock at 200:
- never:   the MONOTONIC packet first, no snapshot ever relates the clocks:
           dropped at the end, its error's target the trace-file clock (11:
           no snapshot was seen).
- later:   the MONOTONIC packet first, then a snapshot (MONOTONIC 50 =
           BOOTTIME 1050): converted at the end: 1100.
- pushed:  the track's descriptor first (an event already in the sorter),
           then the MONOTONIC packet, then the snapshot: deferred all the
           same, 1100.
- cleared: sequence 1's TracePacketDefaults stamp its packets in MONOTONIC,
           and a packet holding only those defaults (at 1003) cannot be
           converted; a clear then drops the defaults, so at the end that
           packet is read again without a clock: no error. The instant
           after the clear (at 200, trace clock) is on the track.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace(case: str) -> bytes:
    t = pb.Trace()

    def descriptor() -> None:
        d = t.packet.add(trusted_packet_sequence_id=9, timestamp=1).track_descriptor
        d.uuid, d.name = 5, "g"

    def instant(ts: int, clock: int | None) -> pb.TracePacket:
        p = t.packet.add(trusted_packet_sequence_id=1, timestamp=ts)
        if clock:
            p.timestamp_clock_id = clock
        e = p.track_event
        e.type, e.track_uuid, e.name = pb.TrackEvent.TYPE_INSTANT, 5, "e"
        return p

    def snapshot() -> None:
        s = t.packet.add().clock_snapshot
        s.clocks.add(clock_id=3, timestamp=50)
        s.clocks.add(clock_id=6, timestamp=1050)

    if case == "cleared":
        descriptor()
        p = t.packet.add(trusted_packet_sequence_id=1, timestamp=1003, sequence_flags=1)
        p.trace_packet_defaults.timestamp_clock_id = 3
        cleared = instant(200, None)
        cleared.sequence_flags, cleared.incremental_state_cleared = 1, True
        return t.SerializeToString()
    if case == "pushed":
        descriptor()
    instant(100, 3)
    if case in ("later", "pushed"):
        snapshot()
    if case != "pushed":
        descriptor()
    instant(200, None)
    return t.SerializeToString()


SLICES = "SELECT ts, name FROM slice ORDER BY ts"
LOGS = ("SELECT l.name, l.byte_offset, a.key, a.int_value FROM _trace_import_logs l "
        "LEFT JOIN args a USING (arg_set_id) ORDER BY l.id, a.id")
STATS = ("SELECT name, value FROM stats WHERE name GLOB 'clock_sync_failure*' AND value > 0 "
         "ORDER BY name")

def _dropped(offset: int) -> tuple[list, list]:
    """The logs and stats of the MONOTONIC packet at `offset` (its payload's
    offset: after its tag and length byte), dropped."""
    logs = [("clock_sync_failure_unknown_source_clock", offset, "source_clock_id", 3),
            ("clock_sync_failure_unknown_source_clock", offset, "source_timestamp", 100),
            ("clock_sync_failure_unknown_source_clock", offset, "target_clock_id", 11),
            ("clock_sync_failure_undeferrable_packet_loss", offset, None, None)]
    stats = [("clock_sync_failure_undeferrable_packet_loss", 1),
             ("clock_sync_failure_unknown_source_clock", 1)]
    return logs, stats


EXPECTED = {
    "never": ([(200, "e")], *_dropped(2)),
    "later": ([(200, "e"), (1100, "e")], [], []),
    "pushed": ([(200, "e"), (1100, "e")], [], []),
    "cleared": ([(200, "e")], [], []),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_unconvertible_packets_deferred_or_dropped(case, load_embedded):
    eng = load_embedded(_trace(case))
    slices, logs, stats = EXPECTED[case]
    assert eng.query(SLICES).rows() == slices
    assert eng.query(LOGS).rows() == logs
    assert eng.query(STATS).rows() == stats


@pytest.mark.tp
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_same_as_trace_processor(case, tp_rows, tp_diffs):
    slices, logs, stats = EXPECTED[case]
    trace = _trace(case)
    assert tp_rows(trace, SLICES) == slices
    assert tp_rows(trace, LOGS) == logs
    assert tp_rows(trace, STATS) == stats
    diffs, compared = tp_diffs(trace)
    assert {"slice", "stats", "args"} <= compared
    assert diffs == {}
