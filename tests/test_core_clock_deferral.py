"""Packets stamped in a clock no snapshot converts yet, as trace_processor's
ProtoTraceReader (ResolveTimestampToTraceTime) handles them: deferred to
the end of the file while no event was pushed to the sorter, else dropped
with two import logs at the packet's offset (the conversion error, with
the clock's args, and clock_sync_failure_undeferrable_packet_loss).

Three traces, each an instant "e" stamped in MONOTONIC (clock 3) at 100 and
one in the trace's clock at 200, on a global track (uuid 5):
- never:  the MONOTONIC packet comes first, no snapshot ever relates the
          clocks: deferred, still unconvertible at the end: dropped, its
          error's target the trace-file clock (11: no snapshot was seen).
- later:  the MONOTONIC packet comes first and a snapshot (MONOTONIC 50 =
          BOOTTIME 1050) follows: deferred, converted at the end: 1100.
- after:  the track's descriptor comes first (an event pushed): the
          MONOTONIC packet cannot wait: dropped at once.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace(case: str) -> bytes:
    t = pb.Trace()

    def descriptor() -> None:
        d = t.packet.add(trusted_packet_sequence_id=1, timestamp=1).track_descriptor
        d.uuid, d.name = 5, "g"

    def instant(ts: int, clock: int | None) -> None:
        p = t.packet.add(trusted_packet_sequence_id=1, timestamp=ts)
        if clock:
            p.timestamp_clock_id = clock
        e = p.track_event
        e.type, e.track_uuid, e.name = pb.TrackEvent.TYPE_INSTANT, 5, "e"

    if case == "after":
        descriptor()
    instant(100, 3)
    if case == "later":
        s = t.packet.add().clock_snapshot
        s.clocks.add(clock_id=3, timestamp=50)
        s.clocks.add(clock_id=6, timestamp=1050)
    if case != "after":
        descriptor()
    instant(200, None)
    return t.SerializeToString()


SLICES = "SELECT ts, name FROM slice ORDER BY ts"
LOGS = ("SELECT l.name, l.byte_offset, a.key, a.int_value FROM _trace_import_logs l "
        "LEFT JOIN args a USING (arg_set_id) ORDER BY l.id, a.id")
STATS = ("SELECT name, value FROM stats WHERE name GLOB 'clock_sync_failure*' AND value > 0 "
         "ORDER BY name")

# the MONOTONIC packet's offset: the first packet's payload (after its tag
# and length byte) in never / later; after the descriptor packet in after
OFFSET = {"never": 2, "later": 2, "after": 16}


def _dropped(case: str) -> tuple[list, list]:
    offset = OFFSET[case]
    logs = [("clock_sync_failure_unknown_source_clock", offset, "source_clock_id", 3),
            ("clock_sync_failure_unknown_source_clock", offset, "source_timestamp", 100),
            ("clock_sync_failure_unknown_source_clock", offset, "target_clock_id", 11),
            ("clock_sync_failure_undeferrable_packet_loss", offset, None, None)]
    stats = [("clock_sync_failure_undeferrable_packet_loss", 1),
             ("clock_sync_failure_unknown_source_clock", 1)]
    return logs, stats


EXPECTED = {
    "never": ([(200, "e")], *_dropped("never")),
    "later": ([(200, "e"), (1100, "e")], [], []),
    "after": ([(200, "e")], *_dropped("after")),
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
