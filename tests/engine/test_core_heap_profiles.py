"""heapprofd's allocation dumps (ProfilePacket) as trace_processor v58.2's
ProfileModule::ParseProfilePacket and ProfilePacketSequenceState import them:
`heap_profile` (one row per process, dump time and heap) and
`heap_profile_allocation` (per process and callsite, the change since the
previous dump), the callstacks as `stack_profile_*` rows, heapprofd_* stats,
and ModuleSymbols naming the frames of a module's mappings;
the rows derived by hand from the schedule, and the tables compared with
the real trace_processor's.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

PID = 10


def _intern(pp: pb.ProfilePacket) -> None:
    """Strings 1 'libc.so', 2 'malloc', 3 'main', 4 'bid'; mapping 1
    (/libc.so, build id 'bid'); frames 1 main @0x10, 2 malloc @0x20;
    callstack 1 = main -> malloc, callstack 2 = main."""
    for iid, s in enumerate(["libc.so", "malloc", "main", "bid"], start=1):
        pp.strings.add(iid=iid, str=s.encode())
    pp.mappings.add(iid=1, path_string_ids=[1], build_id=4, start=0x1000, end=0x2000)
    pp.frames.add(iid=1, function_name_id=3, mapping_id=1, rel_pc=0x10)
    pp.frames.add(iid=2, function_name_id=2, mapping_id=1, rel_pc=0x20)
    pp.callstacks.add(iid=1, frame_ids=[1, 2])
    pp.callstacks.add(iid=2, frame_ids=[1])


def _dump(pp: pb.ProfilePacket, coarse_ts: int, heap: str, samples: list[tuple],
          start: int | None = None) -> None:
    d = pp.process_dumps.add(pid=PID, timestamp=coarse_ts, heap_name=heap,
                             sampling_interval_bytes=4096, orig_sampling_interval_bytes=4096)
    if start is not None:
        d.start_timestamp = start
    for cs, count, size, freed, freed_size in samples:
        d.samples.add(callstack_id=cs, alloc_count=count, self_allocated=size,
                      free_count=freed, self_freed=freed_size)


def _heap_trace() -> bytes:
    """Trace time = MONOTONIC_COARSE - 100. Sequence 7:
    ts 300 (index 0): libc.malloc dump at 250 (window from 200): callstack
      1 allocated 3 / 300 B and freed 1 / 100 B, callstack 2 allocated 1 / 50 B;
    ts 400 (index 1, continued): the dump at 350, callstack 1 at 5 / 500
      allocated, 4 / 400 freed;
    ts 410 (index 2): the same dump's end: callstack 2 at 1 / 50 allocated
      and 1 / 50 freed;
    ts 500 (index 4: one packet missing): ART's heap at 450, callstack 1
      allocated 2 / 16 (ART reports no frees);
    ts 600 (index 5): libc.malloc at 550, callstack 1 allocated 1 / 100:
      below the previous dump, a malformed dump;
    ts 700, 701: module symbols (below)."""
    t = pb.Trace()
    t.packet.add(timestamp=1).clock_snapshot.clocks.extend(
        [pb.ClockSnapshot.Clock(clock_id=6, timestamp=0),
         pb.ClockSnapshot.Clock(clock_id=4, timestamp=100)])
    t.packet.add(timestamp=2).process_tree.processes.add(pid=PID, ppid=1).cmdline.append("app")

    def packet(ts: int, index: int, continued: bool = False, intern: bool = True):
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=7)
        if ts == 300:
            p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
        p.profile_packet.index, p.profile_packet.continued = index, continued
        if intern:
            _intern(p.profile_packet)
        return p.profile_packet

    _dump(packet(300, 0), 250, "libc.malloc", [(1, 3, 300, 1, 100), (2, 1, 50, 0, 0)], start=200)
    _dump(packet(400, 1, continued=True), 350, "libc.malloc", [(1, 5, 500, 4, 400)])
    _dump(packet(410, 2, intern=False), 350, "libc.malloc", [(2, 1, 50, 1, 50)])
    _dump(packet(500, 4), 450, "com.android.art", [(1, 2, 16, 0, 0)])
    _dump(packet(600, 5), 550, "libc.malloc", [(1, 1, 100, 0, 0)])
    # symbols: /libc.so's 0x20 (malloc) has two lines, one set; 0x99 has no
    # frame; /other.so is no mapping
    m = t.packet.add(timestamp=700).module_symbols
    m.path, m.build_id = "/libc.so", b"bid"
    a = m.address_symbols.add(address=0x20)
    a.lines.add(function_name="malloc", source_file_name="malloc.c", line_number=12)
    a.lines.add(function_name="inlined_helper", line_number=7)
    m.address_symbols.add(address=0x99).lines.add(function_name="nothing")
    t.packet.add(timestamp=701).module_symbols.path = "/other.so"
    return t.SerializeToString()


def test_heap_profiles(load_embedded) -> None:
    eng = load_embedded(_heap_trace())
    profiles = eng.query("SELECT h.ts, h.ts_end, h.dur, p.pid, h.heap_name FROM heap_profile h "
                         "JOIN process p USING (upid) ORDER BY h.id").rows()
    assert profiles == [(100, 150, 50, PID, "libc.malloc"), (250, 250, 0, PID, "libc.malloc"),
                        (350, 350, 0, PID, "com.android.art"), (450, 450, 0, PID, "libc.malloc")]
    # callstack 1 (main -> malloc) ends at malloc, depth 1; callstack 2 is main
    allocations = eng.query(
        "SELECT a.ts, a.heap_name, f.name, c.depth, a.count, a.size "
        "FROM heap_profile_allocation a JOIN stack_profile_callsite c ON c.id = a.callsite_id "
        "JOIN stack_profile_frame f ON f.id = c.frame_id ORDER BY a.id").rows()
    assert allocations == [
        (150, "libc.malloc", "malloc", 1, 3, 300), (150, "libc.malloc", "malloc", 1, -1, -100),
        (150, "libc.malloc", "main", 0, 1, 50),
        (250, "libc.malloc", "malloc", 1, 2, 200), (250, "libc.malloc", "malloc", 1, -3, -300),
        (250, "libc.malloc", "main", 0, -1, -50),
        (350, "com.android.art", "malloc", 1, 2, 16),
    ]
    assert eng.query("SELECT name, build_id FROM stack_profile_mapping").rows() == [
        ("/libc.so", "626964")]
    # a line number only with a source file; a set's id is the row count
    # when it is made
    assert eng.query("SELECT symbol_set_id, name, source_file, line_number "
                     "FROM stack_profile_symbol ORDER BY id").rows() == [
        (0, "malloc", "malloc.c", 12), (0, "inlined_helper", None, None), (2, "nothing", None, None)]
    assert eng.query("SELECT name, symbol_set_id FROM stack_profile_frame ORDER BY id").rows() == [
        ("main", None), ("malloc", 0)]
    assert eng.query("SELECT name, value FROM stats WHERE name IN ('stackprofile_invalid_frame_id', "
                     "'stackprofile_invalid_mapping_id') ORDER BY name").rows() == [
        ("stackprofile_invalid_frame_id", 1), ("stackprofile_invalid_mapping_id", 1)]
    stats = eng.query("SELECT name, idx, value FROM stats WHERE name IN "
                      "('heapprofd_missing_packet', 'heapprofd_malformed_packet', "
                      "'heapprofd_last_profile_timestamp') AND value != 0 ORDER BY name").rows()
    upid = eng.query(f"SELECT upid FROM process WHERE pid = {PID}").rows()[0][0]
    assert stats == [("heapprofd_last_profile_timestamp", PID, 600),
                     ("heapprofd_malformed_packet", upid, 1),
                     ("heapprofd_missing_packet", None, 1)]
    # the allocations bound the trace (not the heap_profile windows, not the
    # snapshot and process tree packets)
    assert eng.query("SELECT * FROM trace_bounds").rows() == [(150, 350)]


def test_heap_profiles_are_no_longer_skipped(load_embedded) -> None:
    eng = load_embedded(_heap_trace())
    assert eng.query("SELECT count(*) FROM stats WHERE name GLOB 'artscope_skipped_*'"
                     ).rows() == [(0,)]


@pytest.mark.tp
def test_heap_profile_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_heap_trace())
    assert {"heap_profile", "heap_profile_allocation", "stack_profile_callsite",
            "stack_profile_frame", "stack_profile_mapping", "stats", "trace_bounds"} <= compared
    assert diffs == {}


def _smaps_trace() -> bytes:
    """Process 10's mappings: at 100 two entries (libc.so: 40 kB, 4 private
    dirty, 1 swapped, no file name; a deleted ashmem region); at 200 a
    packed, aggregated table (a: 2 mappings, 10 kB, rss 5; 'b (deleted)':
    3, 20 kB, rss 6); at 300 a packed table whose name ids outnumber its
    sizes (one row, then a parser error). A heapprofd mapping pushed to
    /data/local/tmp without a build id."""
    t = pb.Trace()
    s = t.packet.add(timestamp=100).smaps_packet
    s.pid = PID
    s.entries.add(path="/system/lib64/libc.so", size_kb=40, private_dirty_kb=4, swap_kb=1)
    s.entries.add(path="/dev/ashmem/x (deleted)", size_kb=8)
    s = t.packet.add(timestamp=200).smaps_packet
    s.pid = PID
    s.packed_entries.string_table.extend(["a", "b (deleted)"])
    s.packed_entries.aggregate_count.extend([2, 3])
    s.packed_entries.size_kb.extend([10, 20])
    s.packed_entries.rss_kb.extend([5, 6])
    s = t.packet.add(timestamp=300).smaps_packet
    s.pid = PID
    s.packed_entries.string_table.append("c")
    s.packed_entries.name_id.extend([0, 0])
    s.packed_entries.size_kb.append(1)
    p = t.packet.add(timestamp=400, trusted_packet_sequence_id=7)
    p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    p.profile_packet.strings.add(iid=1, str=b"data/local/tmp/app.so")
    p.profile_packet.mappings.add(iid=1, path_string_ids=[1], start=0x1000, end=0x2000)
    return t.SerializeToString()


def test_smaps(load_embedded) -> None:
    eng = load_embedded(_smaps_trace())
    rows = eng.query(
        "SELECT ts, path, path_trimmed, is_deleted, aggregate_count, size_kb, private_dirty_kb, "
        "swap_kb, rss_kb, file_name FROM profiler_smaps ORDER BY id").rows()
    assert rows == [
        (100, "/system/lib64/libc.so", "/system/lib64/libc.so", 0, 1, 40, 4, 1, 0, None),
        (100, "/dev/ashmem/x (deleted)", "/dev/ashmem/x", 1, 1, 8, 0, 0, 0, None),
        (200, "a", "a", 0, 2, 10, 0, 0, 5, None),
        (200, "b (deleted)", "b", 1, 3, 20, 0, 0, 6, None),
        (300, "c", "c", 0, 1, 1, 0, 0, 0, None),
    ]
    assert {r[0] for r in eng.query("SELECT p.pid FROM profiler_smaps s "
                                    "JOIN process p USING (upid)").rows()} == {PID}
    stats = eng.query("SELECT name, value FROM stats WHERE name IN ('smaps_parser_errors', "
                      "'symbolization_tmp_build_id_not_found') ORDER BY name").rows()
    assert stats == [("smaps_parser_errors", 1), ("symbolization_tmp_build_id_not_found", 1)]
    # smaps rows bound the trace
    assert eng.query("SELECT * FROM trace_bounds").rows() == [(100, 300)]


@pytest.mark.tp
def test_smaps_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_smaps_trace())
    assert {"profiler_smaps", "process", "stats", "trace_bounds"} <= compared
    assert diffs == {}
