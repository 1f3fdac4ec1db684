"""Tracing sessions' states (TracePacket.concurrent_session_event) in the
`state` table, as trace_processor v58's ConcurrentSessionsModule imports
them.

The schedule, two sessions of the device's traced:
    session 7 "bench": CONFIGURED 100, STARTED 200, STARTED again 250
                       (the same state: no new row), DISABLED 900
    session 9 (unnamed, a clone): CLONED_READ_ONLY 300, still open at the end
    one event of an unknown state (0) at 400: counted, not imported
A state lasts until the next different one of its session; DISABLED is a
zero-length marker.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

EVENTS = [  # ts, state, name, session_id, consumer_uid, num_data_sources
    (100, 2, "bench", 7, 2000, 3),
    (200, 3, "bench", 7, 2000, 3),
    (250, 3, "bench", 7, 2000, 3),
    (300, 5, "", 9, 0, 1),
    (400, 0, "bench", 7, 2000, 3),
    (900, 1, "bench", 7, 2000, 3),
]


def _trace() -> bytes:
    trace = pb.Trace()
    for ts, state, name, sid, uid, n in EVENTS:
        p = trace.packet.add(timestamp=ts, trusted_packet_sequence_id=1)
        e = p.concurrent_session_event
        e.state, e.session_id, e.consumer_uid, e.num_data_sources = state, sid, uid, n
        if name:
            e.session_name = name
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def engine():
    e = EmbeddedEngine()
    e.load_bytes(_trace(), "sessions")
    yield e
    e.close()


def test_each_session_is_a_state_track_of_its_states(engine):
    assert engine.query(
        "SELECT t.name, s.ts, s.dur, s.value, "
        "extract_arg(s.arg_set_id, 'consumer_uid') AS uid, "
        "extract_arg(s.arg_set_id, 'num_data_sources') AS n, "
        "extract_arg(t.dimension_arg_set_id, 'session_id') AS sid "
        "FROM state s JOIN track t ON s.track_id = t.id "
        "WHERE t.type = 'concurrent_tracing_sessions' ORDER BY s.ts").rows() == [
        ("bench", 100, 100, "CONFIGURED", 2000, 3, 7),
        ("bench", 200, 700, "STARTED", 2000, 3, 7),
        ("Session 9 (clone)", 300, -1, "CLONED_READ_ONLY", 0, 1, 9),
        ("bench", 900, 0, "DISABLED", 2000, 3, 7)]


def test_an_unknown_state_is_counted_and_states_bound_the_trace(engine):
    assert engine.query("SELECT value FROM stats "
                        "WHERE name = 'concurrent_session_event_unknown_state'").rows() == [(1,)]
    assert engine.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [(100, 900)]
    # state tracks are neither slice nor counter tracks
    assert engine.query("SELECT count(*) FROM thread_track").rows() == [(0,)]
    assert engine.query("SELECT count(*) FROM counter_track").rows() == [(0,)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_trace())
    assert "state" in compared
    assert differ == {}
