"""Callstacks in the compiled core: track events' callstacks
(`__intrinsic_track_event_callstacks`) and streaming profile samples
(`cpu_profile_stack_sample`) with the `stack_profile_*` tables they make, as
trace_processor v58.2's StackProfileSequenceState, MappingTracker and
StackProfileTracker make them.

Expected rows are derived by hand from the schedules below and checked
against the real trace_processor where it is available.

Callstack schedule. Sequence 1 interns function names "main" / "work", a
mapping (/system/lib.so, build id 01ab, [0x1000, 0x2000), exact offset
0x10), frame 1 ("main" in that mapping at 0x10, kind native), frame 2
("work" without a mapping: work.cc line 7) and callstacks 1 = [1, 2],
2 = [1], 3 = [] and 4 = [1, 9] (frame 9 never interned). Threads 11
(pid 10) and 21 (pid 20) have descriptor tracks.
- "A" begins on thread 11 with callstack 1 (weight 1.5): a user mapping of
  pid 10 (mapping 0), its frame (frame 0), the sequence's dummy mapping
  for frames without one (mapping 1) with "work" and its symbol (frame 1,
  symbol 0); callsites 0 (main) and 1 (work under main).
- "A" ends with callstack 2: cached frame, callsite 0 as its end callsite.
- "B" on thread 21 (pid 20), callstack 1: a user mapping per process
  (mapping 2, frame 2, callsite 2), but the dummy frame is shared
  (frame 1): callsite 3.
- "C" (empty callstack), "D" (a missing frame), "E" (callstack 77 never
  interned): no row; each a track_event_parser_errors, with
  stackprofile_empty_callstack, stackprofile_invalid_frame_id (and an
  interned lookup error) and an interned lookup error.
- "F" and "G" carry the same inline callstack (main; inl at a.cc:3): the
  track_event_inline dummy mapping (3), frames 3, 4 with symbols 1, 2,
  callsites 4, 5 — once.
- A clear of sequence 1 starts a new stack profile state: "H" with the
  same interned callstack [1] makes a new user mapping (4), frame (5),
  callsite (6).
- Sequences 2 and 3 intern the same mapping (/libg.so, no build id) and
  frame; "I" and "J" on a global track (no process): one interned mapping
  (5), frame (6), callsite (7).

Packet loss schedule (sequence 1, thread 11 of pid 10): frame 2 ("work",
no mapping) and callstack 1 = [2] interned; "K" with callstack 1; a
packet with previous_packet_dropped starts a new incremental state that
keeps the interned data but has its own stack profile state (trace_processor
makes that state when it parses the sorted events, after the loss is
tokenized): "L" with callstack 1 makes a second dummy mapping (1), its own
"work" frame (1, symbol set 1) and callsite (1).

Streaming profile schedule (sequence 1; CLOCK_MONOTONIC is BOOTTIME - 1 us):
thread 31 of pid 30 with reference time 10 us; callstacks 1 = [f1],
2 = [f1, f2] on frames without a mapping.
- samples [1, 2, 1] with deltas [5, 1, 2] us, priority 3: at 16, 17, 19 us
  (trace time);
- samples [2, 5] with deltas [1, 1, 4]: 2 at 20 us; 5 was never interned
  (a stackprofile_parser_error import log at 21 us); the trailing delta
  advances the time to 24 us (monotonic);
- samples [1, 1] with deltas [1]: one at 26 us, the second has no delta
  (a stackprofile_parser_error at tokenization);
- an instant with a delta of 0 us: at 26 us too (the deltas are shared
  with track events)."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

TE = pb.TrackEvent


def _intern_lib(d: pb.InternedData) -> None:
    d.function_names.add(iid=1, str=b"main")
    d.function_names.add(iid=2, str=b"work")
    d.mapping_paths.add(iid=1, str=b"system")
    d.mapping_paths.add(iid=2, str=b"lib.so")
    d.build_ids.add(iid=1, str=b"\x01\xab")
    d.source_paths.add(iid=1, str=b"work.cc")
    d.mappings.add(iid=1, build_id=1, start=0x1000, end=0x2000, exact_offset=0x10,
                   path_string_ids=[1, 2])
    d.frames.add(iid=1, function_name_id=1, mapping_id=1, rel_pc=0x10,
                 kind=pb.Frame.KIND_NATIVE)
    d.frames.add(iid=2, function_name_id=2, source_path_iid=1, line_number=7)


def _intern_libg(d: pb.InternedData) -> None:
    d.function_names.add(iid=1, str=b"g")
    d.mapping_paths.add(iid=1, str=b"libg.so")
    d.mappings.add(iid=1, start=0x3000, end=0x4000, path_string_ids=[1])
    d.frames.add(iid=1, function_name_id=1, mapping_id=1, rel_pc=0x20)
    d.callstacks.add(iid=1, frame_ids=[1])


def _callstack_trace() -> bytes:
    trace = pb.Trace()

    def packet(ts, seq=1):
        return trace.packet.add(trusted_packet_sequence_id=seq, timestamp=ts)

    p = packet(1)
    p.incremental_state_cleared = True
    for uuid, pid, tid in ((101, 10, 11), (201, 20, 21)):
        d = packet(1).track_descriptor
        d.uuid, d.thread.pid, d.thread.tid = uuid, pid, tid
    d = packet(1).track_descriptor
    d.uuid, d.name = 300, "global"
    p = packet(1)
    _intern_lib(p.interned_data)
    for iid, frames in ((1, [1, 2]), (2, [1]), (3, []), (4, [1, 9])):
        p.interned_data.callstacks.add(iid=iid, frame_ids=frames)

    def event(ts, kind, uuid, name=None, seq=1):
        e = packet(ts, seq).track_event
        e.type, e.track_uuid = kind, uuid
        if name:
            e.name = name
        return e

    e = event(100, TE.TYPE_SLICE_BEGIN, 101, "A")
    e.callstack_iid, e.callstack_weight = 1, 1.5
    event(200, TE.TYPE_SLICE_END, 101).callstack_iid = 2
    event(300, TE.TYPE_SLICE_BEGIN, 201, "B").callstack_iid = 1
    event(400, TE.TYPE_SLICE_END, 201)
    for ts, name, iid in ((500, "C", 3), (600, "D", 4), (700, "E", 77)):
        event(ts, TE.TYPE_INSTANT, 101, name).callstack_iid = iid
    for ts, name in ((800, "F"), (900, "G")):
        frames = event(ts, TE.TYPE_INSTANT, 101, name).callstack.frames
        frames.add(function_name="main")
        frames.add(function_name="inl", source_file="a.cc", line_number=3)
    p = packet(1000)
    p.incremental_state_cleared = True
    _intern_lib(p.interned_data)
    p.interned_data.callstacks.add(iid=1, frame_ids=[1])
    event(1000, TE.TYPE_INSTANT, 101, "H").callstack_iid = 1
    for ts, seq, name in ((1100, 2, "I"), (1200, 3, "J")):
        p = packet(ts, seq)
        p.incremental_state_cleared = True
        _intern_libg(p.interned_data)
        event(ts, TE.TYPE_INSTANT, 300, name, seq).callstack_iid = 1
    return trace.SerializeToString()


MAPPINGS = """SELECT id, build_id, exact_offset, start_offset, start, "end", load_bias, name
FROM stack_profile_mapping ORDER BY id"""
LIB = ("01ab", 16, 0, 4096, 8192, 0, "/system/lib.so")
DUMMY = ("", 0, 0, 0, -1, 0)
CALLSTACK_MAPPINGS = [
    (0, *LIB),
    (1, *DUMMY, ""),
    (2, *LIB),
    (3, *DUMMY, "track_event_inline"),
    (4, *LIB),
    (5, "", 0, 0, 0x3000, 0x4000, 0, "/libg.so"),
]
FRAMES = """SELECT id, name, mapping, rel_pc, symbol_set_id, deobfuscated_name, type
FROM stack_profile_frame ORDER BY id"""
CALLSTACK_FRAMES = [
    (0, "main", 0, 16, None, None, "native"),
    (1, "work", 1, 0, 0, None, None),
    (2, "main", 2, 16, None, None, "native"),
    (3, "main", 3, 0, 1, None, None),
    (4, "inl", 3, 0, 2, None, None),
    (5, "main", 4, 16, None, None, "native"),
    (6, "g", 5, 32, None, None, None),
]
SYMBOLS = """SELECT id, symbol_set_id, name, source_file, line_number, inlined
FROM stack_profile_symbol ORDER BY id"""
CALLSTACK_SYMBOLS = [
    (0, 0, "work", "work.cc", 7, None),
    (1, 1, "main", None, None, None),
    (2, 2, "inl", "a.cc", 3, None),
]
CALLSITES = "SELECT id, depth, parent_id, frame_id FROM stack_profile_callsite ORDER BY id"
CALLSTACK_CALLSITES = [
    (0, 0, None, 0),
    (1, 1, 0, 1),
    (2, 0, None, 2),
    (3, 1, 2, 1),
    (4, 0, None, 3),
    (5, 1, 4, 4),
    (6, 0, None, 5),
    (7, 0, None, 6),
]
EVENT_CALLSTACKS = """SELECT s.name, c.callsite_id, c.end_callsite_id, c.weight,
       c.track_id = s.track_id
FROM __intrinsic_track_event_callstacks c JOIN slice s ON s.id = c.slice_id ORDER BY c.id"""
CALLSTACK_EVENTS = [
    ("A", 1, None, 1.5, 1),
    ("A", None, 0, None, 1),
    ("B", 3, None, None, 1),
    ("F", 5, None, None, 1),
    ("G", 5, None, None, 1),
    ("H", 6, None, None, 1),
    ("I", 7, None, None, 1),
    ("J", 7, None, None, 1),
]
STATS = """SELECT name, value FROM stats
WHERE value <> 0 AND (name GLOB 'stackprofile_*' OR name GLOB 'interned_data_*'
                      OR name GLOB 'track_event_*' OR name GLOB 'streaming_profile_*')
ORDER BY name"""
CALLSTACK_STATS = [
    ("interned_data_tokenizer_errors", 2),
    ("stackprofile_empty_callstack", 1),
    ("stackprofile_invalid_frame_id", 1),
    ("track_event_parser_errors", 3),
]


def _streaming_trace() -> bytes:
    trace = pb.Trace()

    def packet(seq=1):
        return trace.packet.add(trusted_packet_sequence_id=seq)

    snap = packet(9)
    snap.timestamp = 0
    snap.clock_snapshot.clocks.add(clock_id=3, timestamp=0)
    snap.clock_snapshot.clocks.add(clock_id=6, timestamp=1_000)
    p = packet()
    p.incremental_state_cleared = True
    t = p.thread_descriptor
    t.pid, t.tid, t.reference_timestamp_us = 30, 31, 10
    d = packet().interned_data
    d.function_names.add(iid=1, str=b"f1")
    d.function_names.add(iid=2, str=b"f2")
    d.frames.add(iid=1, function_name_id=1)
    d.frames.add(iid=2, function_name_id=2)
    d.callstacks.add(iid=1, frame_ids=[1])
    d.callstacks.add(iid=2, frame_ids=[1, 2])
    for iids, deltas, priority in (([1, 2, 1], [5, 1, 2], 3), ([2, 5], [1, 1, 4], 0),
                                   ([1, 1], [1], 0)):
        s = packet().streaming_profile_packet
        s.callstack_iid.extend(iids)
        s.timestamp_delta_us.extend(deltas)
        if priority:
            s.process_priority = priority
    e = packet().track_event
    e.timestamp_delta_us, e.type, e.name = 0, TE.TYPE_INSTANT, "after"
    return trace.SerializeToString()


def _loss_trace() -> bytes:
    trace = pb.Trace()

    def packet(ts):
        return trace.packet.add(trusted_packet_sequence_id=1, timestamp=ts)

    p = packet(1)
    p.incremental_state_cleared = True
    d = p.track_descriptor
    d.uuid, d.thread.pid, d.thread.tid = 101, 10, 11
    d = packet(1).interned_data
    d.function_names.add(iid=2, str=b"work")
    d.source_paths.add(iid=1, str=b"work.cc")
    d.frames.add(iid=2, function_name_id=2, source_path_iid=1, line_number=7)
    d.callstacks.add(iid=1, frame_ids=[2])
    for ts, name, lost in ((100, "K", 0), (200, "L", 1)):
        p = packet(ts)
        p.previous_packet_dropped = lost
        e = p.track_event
        e.type, e.track_uuid, e.name, e.callstack_iid = TE.TYPE_INSTANT, 101, name, 1
    return trace.SerializeToString()


LOSS_MAPPINGS = [(0, *DUMMY, ""), (1, *DUMMY, "")]
LOSS_FRAMES = [(0, "work", 0, 0, 0, None, None), (1, "work", 1, 0, 1, None, None)]
LOSS_SYMBOLS = [(0, 0, "work", "work.cc", 7, None), (1, 1, "work", "work.cc", 7, None)]
LOSS_CALLSITES = [(0, 0, None, 0), (1, 0, None, 1)]
LOSS_EVENTS = [("K", 0, None, None, 1), ("L", 1, None, None, 1)]

SAMPLES = """SELECT s.ts, s.callsite_id, t.tid, p.pid, s.process_priority
FROM cpu_profile_stack_sample s JOIN thread t USING (utid) JOIN process p USING (upid)
ORDER BY s.id"""
STREAMING_SAMPLES = [
    (16_000, 0, 31, 30, 3),
    (17_000, 1, 31, 30, 3),
    (19_000, 0, 31, 30, 3),
    (20_000, 1, 31, 30, 0),
    (26_000, 0, 31, 30, 0),
]
STREAMING_CALLSITES = [(0, 0, None, 0), (1, 1, 0, 1)]
STREAMING_STATS = [
    ("interned_data_tokenizer_errors", 1),
    ("stackprofile_invalid_callstack_id", 1),
    ("stackprofile_parser_error", 2),
]
LOGS = """SELECT l.ts, l.byte_offset IS NOT NULL, l.name, EXTRACT_ARG(l.arg_set_id, 'callstack_iid')
FROM _trace_import_logs l WHERE l.name GLOB 'stackprofile_*' ORDER BY l.ts"""
# the tokenization log first (no ts), then the parser log at the sample's time
STREAMING_LOGS = [(None, 1, "stackprofile_parser_error", None),
                  (21_000, 0, "stackprofile_parser_error", 5)]
AFTER = "SELECT ts FROM slice WHERE name = 'after'"


def test_track_event_callstacks(load_embedded):
    eng = load_embedded(_callstack_trace())
    assert eng.query(MAPPINGS).rows() == CALLSTACK_MAPPINGS
    assert eng.query(FRAMES).rows() == CALLSTACK_FRAMES
    assert eng.query(SYMBOLS).rows() == CALLSTACK_SYMBOLS
    assert eng.query(CALLSITES).rows() == CALLSTACK_CALLSITES
    assert eng.query(EVENT_CALLSTACKS).rows() == CALLSTACK_EVENTS
    assert eng.query(STATS).rows() == CALLSTACK_STATS


def test_callstacks_after_packet_loss(load_embedded):
    eng = load_embedded(_loss_trace())
    assert eng.query(MAPPINGS).rows() == LOSS_MAPPINGS
    assert eng.query(FRAMES).rows() == LOSS_FRAMES
    assert eng.query(SYMBOLS).rows() == LOSS_SYMBOLS
    assert eng.query(CALLSITES).rows() == LOSS_CALLSITES
    assert eng.query(EVENT_CALLSTACKS).rows() == LOSS_EVENTS


def test_streaming_profile_samples(load_embedded):
    eng = load_embedded(_streaming_trace())
    assert eng.query(SAMPLES).rows() == STREAMING_SAMPLES
    assert eng.query(CALLSITES).rows() == STREAMING_CALLSITES
    assert eng.query(STATS).rows() == STREAMING_STATS
    assert eng.query(LOGS).rows() == STREAMING_LOGS
    assert eng.query(AFTER).rows() == [(26_000,)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    callstacks, streaming, loss = _callstack_trace(), _streaming_trace(), _loss_trace()
    assert tp_rows(callstacks, MAPPINGS) == CALLSTACK_MAPPINGS
    assert tp_rows(callstacks, FRAMES) == CALLSTACK_FRAMES
    assert tp_rows(callstacks, SYMBOLS) == CALLSTACK_SYMBOLS
    assert tp_rows(callstacks, CALLSITES) == CALLSTACK_CALLSITES
    assert tp_rows(callstacks, EVENT_CALLSTACKS) == CALLSTACK_EVENTS
    assert tp_rows(callstacks, STATS) == CALLSTACK_STATS
    assert tp_rows(streaming, SAMPLES) == STREAMING_SAMPLES
    assert tp_rows(streaming, CALLSITES) == STREAMING_CALLSITES
    assert tp_rows(streaming, STATS) == STREAMING_STATS
    assert tp_rows(streaming, LOGS) == STREAMING_LOGS
    assert tp_rows(streaming, AFTER) == [(26_000,)]
    assert tp_rows(loss, MAPPINGS) == LOSS_MAPPINGS
    assert tp_rows(loss, FRAMES) == LOSS_FRAMES
    assert tp_rows(loss, SYMBOLS) == LOSS_SYMBOLS
    assert tp_rows(loss, CALLSITES) == LOSS_CALLSITES
    assert tp_rows(loss, EVENT_CALLSTACKS) == LOSS_EVENTS
    for trace in (callstacks, streaming, loss):
        diffs, compared = tp_diffs(trace)
        assert {"stack_profile_mapping", "stack_profile_frame", "stack_profile_callsite",
                "stack_profile_symbol", "cpu_profile_stack_sample"} <= compared
        assert diffs == {}
