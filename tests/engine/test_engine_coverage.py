"""What the embedded engine does not import, it says: a
query naming what it does not serve fails with one line pointing at
trace_processor, and data it skipped is counted in `stats` and named once,
at the user's first query."""

from __future__ import annotations

import warnings

import pytest
from make_fixtures import f_bytes, f_varint
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines import load_trace
from artscope.engines.embedded import EmbeddedEngine
from artscope.engines.embedded.coverage import SkippedDataWarning
from artscope.errors import ArtscopeError, QueryError



@pytest.fixture
def freq_engine(fixtures_dir):
    eng = load_trace(fixtures_dir / "freq.pftrace", engine="embedded")
    yield eng
    eng.close()


@pytest.mark.parametrize("sql, kind, name", [
    ("SELECT * FROM heap_graph_object", "table", "heap_graph_object"),
    ("SELECT track_group_id FROM track", "column", "track_group_id"),
    ("SELECT t.track_group_id FROM track t", "column", "t.track_group_id"),
    ("SELECT spans_overlapping_dur(1, 2)", "function", "spans_overlapping_dur"),
])
def test_unserved_names_fail_with_one_line_pointing_at_trace_processor(
        freq_engine, sql, kind, name):
    with pytest.raises(QueryError) as exc:
        freq_engine.query(sql)
    msg = str(exc.value)
    assert "\n" not in msg
    assert f"does not serve {kind} '{name}'" in msg
    assert "--engine trace_processor" in msg and "ARTSCOPE_TP_BIN" in msg
    assert isinstance(exc.value, ArtscopeError)  # the CLI's one line + exit 2


def test_other_sql_errors_are_one_line_query_errors(freq_engine):
    with pytest.raises(QueryError, match=r"^query failed on the embedded engine: .*syntax"):
        freq_engine.query("SELEC 1")
    # the engine still answers afterwards
    assert freq_engine.query("SELECT count(*) AS n FROM sched")["n"][0] > 0


def _trace_with_skipped_data() -> bytes:
    """Three legacy counter ('C') track events (Chrome's raw legacy events: not
    imported), two graphics_frame_event and one vulkan_memory_event packet
    beside one imported cpu_frequency event; one clock_snapshot (bookkeeping,
    not counted)."""
    trace = pb.Trace()
    p = trace.packet.add()
    p.clock_snapshot.clocks.add(clock_id=6, timestamp=1_000)
    p = trace.packet.add()
    bundle = p.ftrace_events
    bundle.cpu = 0
    ev = bundle.event.add(timestamp=1_000, pid=0)
    ev.cpu_frequency.state = 1_800_000
    ev.cpu_frequency.cpu_id = 0
    for i in range(3):
        p = trace.packet.add(timestamp=2_000 + i, trusted_packet_sequence_id=1)
        p.track_event.name = f"event {i}"
        p.track_event.legacy_event.phase = ord("C")
        p.track_event.legacy_event.unscoped_id = 7
    for i in range(2):
        p = trace.packet.add(timestamp=3_000 + i)
        p.graphics_frame_event.buffer_event.frame_number = i
    p = trace.packet.add(timestamp=4_000)
    p.vulkan_memory_event.memory_size = 4096
    return trace.SerializeToString()


def test_android_tree_extensions_are_counted_as_skipped(tmp_path):
    """TracePacket extensions the perfetto package's protos do not have as
    data fields (a Java heap dump, network packets) are counted and named
    like any other skipped kind, not dropped silently."""
    def packet(num: int, payload: bytes) -> bytes:
        return f_bytes(1, f_bytes(num, payload))  # Trace.packet holding field `num`
    data = (_trace_with_skipped_data() + packet(56, f_varint(1, 1))  # HeapGraph.pid = 1
            + packet(92, b"") + packet(92, b""))
    path = tmp_path / "extensions.pftrace"
    path.write_bytes(data)
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        with pytest.warns(SkippedDataWarning) as record:
            stats = eng.query("SELECT name, value FROM stats WHERE name IN "
                              "('artscope_skipped_heap_graph', "
                              "'artscope_skipped_network_packet_bundle') ORDER BY name")
        assert stats.rows() == [("artscope_skipped_heap_graph", 1),
                                ("artscope_skipped_network_packet_bundle", 2)]
        assert "1 heap_graph packet(s) (heap_graph_object" in str(record[0].message)
    finally:
        eng.close()


def test_kinds_the_reference_does_not_import_are_not_counted(tmp_path):
    """heapprofd's streaming allocations and frees: trace_processor v58.2
    imports them nowhere either, so no table lacks them: not counted, no
    warning."""
    trace = pb.Trace()
    trace.packet.add(timestamp=1).streaming_allocation.address.append(0x1000)
    trace.packet.add(timestamp=2).streaming_free.address.append(0x1000)
    path = tmp_path / "streaming.pftrace"
    path.write_bytes(trace.SerializeToString())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rows = eng.query("SELECT name FROM stats WHERE name LIKE 'artscope_skipped_%'")
        assert rows.rows() == []
    finally:
        eng.close()


def test_skipped_packets_are_counted_in_stats_and_named_once(tmp_path):
    path = tmp_path / "skipped.pftrace"
    path.write_bytes(_trace_with_skipped_data())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        with pytest.warns(SkippedDataWarning) as record:
            stats = eng.query("SELECT name, value, severity FROM stats "
                              "WHERE name LIKE 'artscope_skipped_%' ORDER BY name")
        assert stats.rows() == [("artscope_skipped_graphics_frame_event", 2, "info"),
                                ("artscope_skipped_track_event_fields", 3, "info"),
                                ("artscope_skipped_vulkan_memory_event", 1, "info")]
        assert len(record) == 1
        msg = str(record[0].message)
        assert "\n" not in msg
        assert "3 track event(s) with parts not imported (args, chrome_raw: " in msg
        assert "2 graphics_frame_event packet(s) (graphics_frame_slice)" in msg
        assert "1 vulkan_memory_event packet(s) (vulkan_memory_allocations)" in msg
        assert "clock_snapshot" not in msg and "--engine trace_processor" in msg
        # what it did import is there; and it is said once per trace
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert eng.query("SELECT count(*) AS n FROM counter")["n"][0] == 1
    finally:
        eng.close()


def test_metric_queries_do_not_use_up_the_warning(tmp_path, monkeypatch):
    """artscope's own queries (metrics) read only what is imported: they stay
    quiet and the user's first query still hears it."""
    path = tmp_path / "skipped.pftrace"
    path.write_bytes(_trace_with_skipped_data())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        from artscope.engines.embedded import coverage
        monkeypatch.setattr(coverage, "called_from_artscope", lambda depth=2: True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            eng.query("SELECT 1")
        monkeypatch.undo()
        with pytest.warns(SkippedDataWarning):
            eng.query("SELECT 1")
    finally:
        eng.close()


def test_a_trace_without_skipped_data_is_quiet(freq_engine):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        freq_engine.query("SELECT count(*) FROM sched")
