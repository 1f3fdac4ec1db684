"""Perf samples (traced_perf, the `linux.perf` data source) as trace_processor
v58.2's ProfileModule::ParsePerfSample and PerfSampleTracker import them:
`perf_sample`, `perf_session`, the sampling streams' counter
tracks (`perf_counter_track`) and their stats; each schedule's rows derived
by hand, and its tables compared with the real trace_processor's.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

PE = pb.PerfEvents
SAMPLE_FIELDS = ("ts, utid, cpu, cpu_mode, callsite_id, unwind_error, perf_session_id")


def _interned() -> pb.InternedData:
    """Mapping 1 (/lib/libart.so, 0x1000-0x2000); frames 1 'art::gc::Heap::
    CollectGarbage' (pc 0x10) and 2 'art::Thread::Run' (pc 0x20); callstack
    1 = [2, 1] (root first), callstack 2 = [2]."""
    d = pb.InternedData()
    d.mapping_paths.add(iid=1, str=b"/lib")
    d.mapping_paths.add(iid=2, str=b"libart.so")
    d.mappings.add(iid=1, start=0x1000, end=0x2000, path_string_ids=[1, 2])
    d.function_names.add(iid=1, str=b"art::gc::Heap::CollectGarbage")
    d.function_names.add(iid=2, str=b"art::Thread::Run")
    d.frames.add(iid=1, function_name_id=1, mapping_id=1, rel_pc=0x10)
    d.frames.add(iid=2, function_name_id=2, mapping_id=1, rel_pc=0x20)
    d.callstacks.add(iid=1, frame_ids=[2, 1])
    d.callstacks.add(iid=2, frame_ids=[2])
    return d


def _perf_trace() -> bytes:
    """Sequence 1 (session 0): defaults with a cpu-cycles:uk timebase, an
    `instructions` follower and a tracepoint follower, process sharding 4 /
    chosen 1. Its samples: ts 100 cpu 2 thread 11 of process 10, user
    mode, callstack 1, counts 1000 / 5 / 6; ts 200 cpu 3 thread 12, kernel
    mode, callstack 2 with an unwind error (max frames), count 2000; ts 300
    cpu 2 lost 7 kernel records (no row); ts 400 cpu 2 thread 11, skipped
    at the unwind stage, unknown mode, no callstack; ts 500 a guardrail
    stop (no row). Sequence 2 (session 1, no defaults: a cpu-clock
    timebase): ts 150 cpu 0 thread 20 of process 20 with callstack 9 (never
    interned: no callsite); ts 600 without a cpu (the cpu 0 stream, cpu
    NULL)."""
    t = pb.Trace()
    p = t.packet.add(timestamp=1, trusted_packet_sequence_id=1)
    p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    d = p.trace_packet_defaults.perf_sample_defaults
    d.timebase.frequency = 100
    d.timebase.counter = PE.HW_CPU_CYCLES
    d.timebase.modifiers.extend([PE.EVENT_MODIFIER_COUNT_USERSPACE, PE.EVENT_MODIFIER_COUNT_KERNEL])
    d.followers.add(counter=PE.HW_INSTRUCTIONS)
    d.followers.add().tracepoint.name = "sched:sched_switch"
    d.process_shard_count, d.chosen_process_shard = 4, 1
    p.interned_data.CopyFrom(_interned())

    def sample(ts: int, seq: int, **fields) -> pb.PerfSample:
        q = t.packet.add(timestamp=ts, trusted_packet_sequence_id=seq)
        if seq == 1:
            q.sequence_flags = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
        q.perf_sample.MergeFrom(pb.PerfSample(**fields))
        return q.perf_sample

    sample(100, 1, cpu=2, pid=10, tid=11, cpu_mode=pb.Profiling.MODE_USER, callstack_iid=1,
           timebase_count=1000, follower_counts=[5, 6])
    sample(150, 2, cpu=0, pid=20, tid=20, callstack_iid=9, timebase_count=10)
    sample(200, 1, cpu=3, pid=10, tid=12, cpu_mode=pb.Profiling.MODE_KERNEL, callstack_iid=2,
           unwind_error=pb.Profiling.UNWIND_ERROR_MAX_FRAMES_EXCEEDED, timebase_count=2000)
    sample(300, 1, cpu=2, kernel_records_lost=7)
    sample(400, 1, cpu=2, pid=10, tid=11,
           sample_skipped_reason=pb.PerfSample.PROFILER_SKIP_UNWIND_STAGE)
    sample(500, 1, cpu=2).producer_event.source_stop_reason = \
        pb.PerfSample.ProducerEvent.PROFILER_STOP_GUARDRAIL
    sample(600, 2, pid=20, tid=20, timebase_count=20)
    return t.SerializeToString()


def test_perf_samples(load_embedded) -> None:
    eng = load_embedded(_perf_trace())
    rows = eng.query(
        "SELECT s.ts, t.tid, s.cpu, s.cpu_mode, "
        "(SELECT f.name FROM stack_profile_callsite c JOIN stack_profile_frame f "
        " ON f.id = c.frame_id WHERE c.id = s.callsite_id), "
        "(SELECT depth FROM stack_profile_callsite c WHERE c.id = s.callsite_id), "
        "s.unwind_error, s.perf_session_id "
        "FROM perf_sample s JOIN thread t USING (utid) ORDER BY s.ts").rows()
    assert rows == [
        (100, 11, 2, "user", "art::gc::Heap::CollectGarbage", 1, None, 0),
        (150, 20, 0, "unknown", None, None, None, 1),
        (200, 12, 3, "kernel", "art::Thread::Run", 0, "max_frames_exceeded", 0),
        (400, 11, 2, "unknown", None, None, None, 0),
        (600, 20, None, "unknown", None, None, None, 1),
    ]
    # a sample's thread is in its process
    assert eng.query("SELECT DISTINCT p.pid FROM perf_sample s JOIN thread USING (utid) "
                     "JOIN process p USING (upid) WHERE s.ts IN (100, 200)").rows() == [(10,)]
    assert eng.query("SELECT id, perf_session_id, cmdline FROM perf_session").rows() == [
        (0, 0, None), (1, 1, None)]
    tracks = eng.query("SELECT name, cpu, perf_session_id, is_timebase FROM perf_counter_track "
                       "ORDER BY id").rows()
    # made when each stream's first sample is read: (seq 1, cpu 2), (seq 2,
    # cpu 0), (seq 1, cpu 3)
    assert tracks == [
        ("cpu-cycles:uk", 2, 0, 1), ("instructions", 2, 0, 0), ("sched:sched_switch", 2, 0, 0),
        ("cpu-clock", 0, 1, 1),
        ("cpu-cycles:uk", 3, 0, 1), ("instructions", 3, 0, 0), ("sched:sched_switch", 3, 0, 0),
    ]
    values = eng.query("SELECT t.name, t.cpu, c.ts, c.value FROM counter c "
                       "JOIN perf_counter_track t ON t.id = c.track_id ORDER BY c.ts, t.id").rows()
    assert values == [
        ("cpu-cycles:uk", 2, 100, 1000.0), ("instructions", 2, 100, 5.0),
        ("sched:sched_switch", 2, 100, 6.0), ("cpu-clock", 0, 150, 10.0),
        ("cpu-cycles:uk", 3, 200, 2000.0), ("cpu-clock", 0, 600, 20.0),
    ]
    stats = eng.query("SELECT name, idx, value FROM stats WHERE name GLOB 'perf_*' AND value != 0 "
                      "ORDER BY name, idx").rows()
    assert stats == [
        ("perf_chosen_process_shard", 0, 1), ("perf_cpu_lost_records", 2, 7),
        ("perf_guardrail_stop_ts", 0, 500), ("perf_process_shard_count", 0, 4),
        ("perf_samples_skipped", None, 1),
    ]
    # the never-interned callstack 9 is counted
    assert eng.query("SELECT value FROM stats WHERE name = 'stackprofile_invalid_callstack_id'"
                     ).rows() == [(1,)]


def test_perf_samples_are_no_longer_skipped(load_embedded) -> None:
    eng = load_embedded(_perf_trace())
    assert eng.query("SELECT count(*) FROM stats WHERE name GLOB 'artscope_skipped_*'"
                     ).rows() == [(0,)]


@pytest.mark.tp
def test_perf_sample_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_perf_trace())
    assert {"perf_sample", "perf_session", "perf_counter_track", "counter", "cpu",
            "stack_profile_callsite", "stats", "thread", "process"} <= compared
    assert diffs == {}
