"""Small packet kinds the embedded engine imports as trace_processor does:
tracing sessions' state tracks, the import log (aflags errors,
session events of an unknown state), game intervention lists, Chrome
metadata / triggers and service-event times in a non-BOOTTIME trace clock.
Expected values are derived by hand from the traces built here; the
conformance cases pin the simple paths, these the edges they leave out."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

Session = pb.ConcurrentSessionEvent


def _open(tmp_path, trace: pb.Trace) -> EmbeddedEngine:
    path = tmp_path / "t.pftrace"
    path.write_bytes(trace.SerializeToString())
    eng = EmbeddedEngine()
    eng.load(path)
    return eng


def _session(t: pb.Trace, ts: int, state: int, sid: int, name: str = "", uid: int = 0) -> None:
    p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1)
    e = p.concurrent_session_event
    e.state = state
    e.session_id = sid
    e.consumer_uid = uid
    if name:
        e.session_name = name


@pytest.fixture
def engine(tmp_path):
    t = pb.Trace()
    # session 4: STARTED twice (one state), then still open at the end
    _session(t, 100, Session.STATE_STARTED, 4, "a", uid=7)
    _session(t, 150, Session.STATE_STARTED, 4, "a", uid=7)
    # an unspecified state: an import log row, no state (the track's open
    # state goes on)
    _session(t, 200, Session.STATE_UNSPECIFIED, 4, "a")
    # session 5: its later name does not rename the track
    _session(t, 300, Session.STATE_CONFIGURED, 5, "first")
    _session(t, 400, Session.STATE_DISABLED, 5, "second")
    p = t.packet.add(timestamp=500, trusted_packet_sequence_id=1)
    p.android_aflags.error = "boom"
    p = t.packet.add(timestamp=600, trusted_packet_sequence_id=1)
    gl = p.android_game_intervention_list
    gl.read_error = True
    g = gl.game_packages.add(name="g", uid=10, current_mode=2)
    # performance mode listed twice: the last entry wins; no standard mode
    g.game_mode_info.add(mode=2, use_angle=True, resolution_downscale=0.5, fps=30)
    g.game_mode_info.add(mode=2, use_angle=False, resolution_downscale=0.25, fps=90)
    g.game_mode_info.add(mode=3, use_angle=True, resolution_downscale=1.0, fps=0)
    # two Chrome metadata packets and a named trigger
    for version in (7, 8):
        p = t.packet.add(timestamp=700, trusted_packet_sequence_id=1)
        cm = p.chrome_metadata
        cm.chrome_version_code = version
        for n in range(5 if version == 7 else 0):
            cm.field_trial_hashes.add(name=n, group=10 * n)
    p = t.packet.add(timestamp=800, trusted_packet_sequence_id=1)
    p.chrome_trigger.trigger_name = "rule"
    p.chrome_trigger.trigger_name_hash = 99
    eng = _open(tmp_path, t)
    yield eng
    eng.close()


def test_session_states(engine):
    rows = engine.query(
        "SELECT t.name, extract_arg(t.dimension_arg_set_id, 'session_id'), s.ts, s.dur, s.value, "
        "extract_arg(s.arg_set_id, 'consumer_uid') FROM state s JOIN track t ON s.track_id = t.id "
        "WHERE t.type = 'concurrent_tracing_sessions' ORDER BY s.ts").rows()
    assert rows == [
        ("a", 4, 100, -1, "STARTED", 7),  # open at the end: pending duration
        ("first", 5, 300, 100, "CONFIGURED", 0),
        ("first", 5, 400, 0, "DISABLED", 0),
    ]


def test_import_logs_count_their_stat(engine):
    rows = engine.query(
        "SELECT l.ts, l.severity, l.name, a.key, a.display_value FROM _trace_import_logs l "
        "JOIN args a USING (arg_set_id) ORDER BY l.ts").rows()
    assert rows == [
        (200, "error", "concurrent_session_event_unknown_state", "state", "0"),
        (500, "error", "android_aflags_errors", "error", "boom"),
    ]
    stats = dict(engine.query(
        "SELECT name, value FROM stats WHERE name IN ('android_aflags_errors', "
        "'concurrent_session_event_unknown_state', 'game_intervention_has_read_errors', "
        "'game_intervention_has_parse_errors')").rows())
    assert stats == {"android_aflags_errors": 1, "concurrent_session_event_unknown_state": 1,
                     "game_intervention_has_read_errors": 1,
                     "game_intervention_has_parse_errors": 0}


def test_game_intervention_modes(engine):
    rows = engine.query("SELECT * FROM android_game_intervention_list").rows()
    assert rows == [(0, "g", 10, 2,
                     0, None, None, None,
                     1, 0.25, 0, 90.0,
                     1, 1.0, 1, 0.0)]


def test_chrome_metadata_and_trigger(engine):
    rows = engine.query("SELECT name, int_value, str_value FROM metadata "
                        "WHERE name GLOB 'cr-*' ORDER BY name").rows()
    trials = ("{ name: 0, group: 0 } { name: 1, group: 10 } \n"
              "{ name: 2, group: 20 } { name: 3, group: 30 } \n"
              "{ name: 4, group: 40 } ")
    assert rows == [
        ("cr-a-field_trial_hashes", None, trials),
        ("cr-a-playstore_version_code", 7, None),
        ("cr-b-playstore_version_code", 8, None),
        ("cr-triggered_rule_name_hash", 99, None),
    ]
    sl = engine.query(
        "SELECT s.ts, s.dur, s.name, t.name, extract_arg(s.arg_set_id, 'chrome_trigger.name'), "
        "extract_arg(s.arg_set_id, 'chrome_trigger.name_hash') FROM slice s "
        "JOIN track t ON s.track_id = t.id").rows()
    assert sl == [(800, 0, "rule", "Trace Triggers", "rule", 99)]


def test_service_event_times_in_the_trace_clock(tmp_path):
    # MONOTONIC (3) is the trace clock; BOOTTIME runs 1000 ahead until the
    # second snapshot (a suspend of 500 ns: 1500 ahead)
    t = pb.Trace()
    for boot, mono in ((2000, 1000), (4500, 3000)):
        p = t.packet.add(trusted_packet_sequence_id=1)
        p.clock_snapshot.primary_trace_clock = 3
        p.clock_snapshot.clocks.add(clock_id=6, timestamp=boot)
        p.clock_snapshot.clocks.add(clock_id=3, timestamp=mono)
    p = t.packet.add(timestamp=2100, trusted_packet_sequence_id=1)
    p.service_event.tracing_started = True
    p = t.packet.add(timestamp=5000, trusted_packet_sequence_id=1)
    p.service_event.tracing_disabled = True
    eng = _open(tmp_path, t)
    try:
        rows = dict(eng.query("SELECT name, int_value FROM metadata WHERE name IN "
                              "('tracing_started_ns', 'tracing_disabled_ns')").rows())
    finally:
        eng.close()
    assert rows == {"tracing_started_ns": 1100, "tracing_disabled_ns": 3500}


def test_packets_skipped_for_invalid_incremental_state_are_logged(tmp_path):
    # sequence 3: a packet that needs incremental state before any packet
    # cleared it (skipped), then one that clears it (kept); sequence 4: one
    # skipped packet. Each skipped packet is logged at its payload's offset
    # in the file: tag and length are 1 byte each here, so a packet starts
    # 2 bytes after the previous one ends.
    t = pb.Trace()
    needs = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
    t.packet.add(timestamp=10, trusted_packet_sequence_id=3, sequence_flags=needs)
    t.packet.add(timestamp=20, trusted_packet_sequence_id=3,
                 sequence_flags=needs | pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED)
    t.packet.add(timestamp=30, trusted_packet_sequence_id=4, sequence_flags=needs)
    sizes = [p.ByteSize() for p in t.packet]
    starts = [2, 2 + sizes[0] + 2, 2 + sizes[0] + 2 + sizes[1] + 2]
    eng = _open(tmp_path, t)
    try:
        rows = eng.query(
            "SELECT l.ts, l.byte_offset, l.severity, l.name, a.key, a.int_value, a.value_type "
            "FROM _trace_import_logs l JOIN args a USING (arg_set_id) ORDER BY l.id").rows()
    finally:
        eng.close()
    name = "packet_skipped_seq_needs_incremental_state_invalid"
    assert rows == [(None, starts[0], "notice", name, "packet_sequence_id", 3, "uint"),
                    (None, starts[2], "notice", name, "packet_sequence_id", 4, "uint")]


def _nameless_game_trace() -> pb.Trace:
    t = pb.Trace()
    gl = t.packet.add(timestamp=100, trusted_packet_sequence_id=1).android_game_intervention_list
    gl.game_packages.add(uid=11, current_mode=1)
    gl.game_packages.add(name="g", uid=12, current_mode=1)
    return t


GAMES = "SELECT package_name, uid FROM android_game_intervention_list ORDER BY id"


def test_a_game_without_a_name(tmp_path):
    """A game package without a name: a row with a NULL package_name (the
    null string), as trace_processor interns the absent field."""
    eng = _open(tmp_path, _nameless_game_trace())
    try:
        assert eng.query(GAMES).rows() == [(None, 11), ("g", 12)]
    finally:
        eng.close()


@pytest.mark.tp
def test_a_game_without_a_name_as_trace_processor(tp_rows):
    assert tp_rows(_nameless_game_trace().SerializeToString(), GAMES) == [(None, 11), ("g", 12)]
