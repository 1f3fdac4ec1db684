#!/usr/bin/env python3
"""Random ftrace events and system-probe packets: the embedded engine against
trace_processor.

    python3 tools/packet_fuzz.py [--kind ftrace | --kind sys_stats ...] [--first 0] [--count 50] [--tp-bin PATH]

Every field of a message is filled with a random value (`fill`: small
integers, sometimes an extreme one, a few words, every enum value, nested
messages and repeated fields), so a trace reaches each importer's handling
of each field, and prints, per seed, the tables that differ between the two
engines (tools/compare_tp.py):

* `--kind ftrace` (`gen_ftrace`): three bundles on cpus 0-1 of events of four
  kinds drawn from every FtraceEvent kind, by a few pids;
* `--kind perf_sample` (`gen_perf`): perf samples of two sequences with
  random defaults, interned callstacks and some fields left out;
* `--kind profile_packet` (`gen_heapprofd`): heapprofd dumps on one
  sequence, its interning partly broken on purpose;
* `--kind smaps_packet` (`gen_smaps`): plain and packed smaps tables,
  some malformed;
* `--kind gpu_counter_event` (`gen_gpu_counters`): interned and inline
  GPU counter descriptors and their samples;
* `--kind kernel_wakelock_data` (`gen_wakelocks`): kernel wakelocks on
  two sequences, sometimes hundreds of names;
* `--kind app_wakelock_bundle` (`gen_app_wakelocks`): app wakelock
  bundles (an extension the package's protos lack, encoded by hand);
* `--kind compact_sched` (`gen_compact_sched`): compact_sched bundles on
  four cpus, out of order and overlapping, with lost events and soft-cut
  timestamps, among plain switches and wakings;
* `--kind identity` (`gen_identity`): /proc dumps and ftrace events that
  disagree about which thread a tid is (tid reuse, threads moving process);
* `--kind frame_timeline_event` (`gen_frame_timeline`): random frame
  timeline events (extension 76) with colliding cookies, tokens and pids;
* `--kind atrace` (`gen_atrace`): atrace lines in ftrace `print` events,
  of every phase, balanced or not, some malformed;
* `--kind systrace` (`gen_systrace`): systrace text (not protobuf) of
  the events trace_processor's text reader handles, some malformed;
* `--kind machines` (`gen_machines`): two machines' ftrace events and
  process trees, the second's clock sometimes synced;
* any other kind (`gen_packets`): four packets of that TracePacket field
  (sys_stats, process_stats, process_tree, cpu_info, power_rails, battery,
  android_log, ...).

Every field is present: trace_processor's to_ftrace prints stale text for a
field an event lacks, which is its bug, not a difference to chase. The
differences it has found (system probes, pKVM, syscalls,
ion lanes, binder, uint32 pids...) are tested in tests/engine/test_core_system_probes.py,
tests/engine/test_core_kernel_parity.py and tests/engine/test_core_sys_stats.py;
tests/engine/test_core_kernel_parity.py also runs the first seeds of each generator.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from google.protobuf.descriptor import FieldDescriptor as FD
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

# the fixtures' protobuf encoder: for the TracePacket extensions the perfetto
# package's protos lack
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from make_fixtures import f_bytes, f_varint, varint  # noqa: E402

WORDS = ["a", "cpu", "com.app", "Normal", "x", "wlan0", "surfaceflinger"]
FTRACE_KINDS = [f for f in pb.FtraceEvent.DESCRIPTOR.fields if f.message_type is not None]
# `--ftrace-events`: the kinds `gen_ftrace` draws from instead of every kind
FTRACE_ONLY: list = []
INTS = {FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32, FD.TYPE_INT64, FD.TYPE_SINT64,
        FD.TYPE_SFIXED64}
UINTS = {FD.TYPE_UINT32, FD.TYPE_FIXED32, FD.TYPE_UINT64, FD.TYPE_FIXED64}


# how often an integer is an extreme one (-1, 2**31 - 1, 2**40, 2**32 - 1);
# `--extreme` raises it to aim at the importers' integer casts
EXTREME = 0.1
# how often a scalar field is left out (`--absent`): an absent field is not
# an empty or zero one to the importers (a NULL string names no thread)
ABSENT = 0.0


def value(f, rng: random.Random):
    """A random value of scalar field `f` (None: a type left out). A cpu
    stays small: trace_processor aborts on a cpu past its 4096 per machine."""
    extreme = rng.random() < EXTREME and "cpu" not in f.name
    if f.type == FD.TYPE_ENUM:
        return rng.choice(f.enum_type.values).number
    if f.type == FD.TYPE_STRING:
        return rng.choice(WORDS)
    if f.type == FD.TYPE_BYTES:
        return rng.choice(WORDS).encode()
    if f.type == FD.TYPE_BOOL:
        return rng.random() < 0.5
    if f.type in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return rng.choice([0.0, 1.5, 100.0])
    wide = f.type in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64, FD.TYPE_UINT64,
                      FD.TYPE_FIXED64)
    if f.type in INTS:
        return rng.choice([-1, 2**40 if wide else 2**31 - 1]) if extreme else rng.randint(0, 5)
    if f.type in UINTS:
        return (2**40 if wide else 2**32 - 1) if extreme else rng.randint(0, 5)
    return None


def fill(msg, rng: random.Random, depth: int = 0) -> None:
    """Every field of `msg` set (one member of each oneof), repeated ones
    1-3 times, messages down to depth 4."""
    oneofs_done: set[str] = set()
    for f in msg.DESCRIPTOR.fields:
        if f.containing_oneof is not None:
            if f.containing_oneof.name in oneofs_done or rng.random() < 0.5:
                continue
            oneofs_done.add(f.containing_oneof.name)
        for _ in range(rng.randint(1, 3) if f.is_repeated else 1):
            if f.type == FD.TYPE_MESSAGE:
                if depth >= 4:
                    break
                sub = getattr(msg, f.name).add() if f.is_repeated else getattr(msg, f.name)
                fill(sub, rng, depth + 1)
                sub.SetInParent()
                continue
            v = value(f, rng)
            if v is None or rng.random() < ABSENT:
                continue
            if f.is_repeated:
                getattr(msg, f.name).append(v)
            else:
                setattr(msg, f.name, v)


def _trace_with_system_info() -> pb.Trace:
    t = pb.Trace()
    u = t.packet.add().system_info.utsname
    u.sysname, u.release, u.machine = "Linux", "5.10.0", "aarch64"
    return t


def gen_ftrace(rng: random.Random, kinds: int = 4, events: int = 30) -> bytes:
    """Three bundles (cpus 0-1) of `events` events of `kinds` random kinds."""
    chosen = rng.sample(FTRACE_ONLY or FTRACE_KINDS, min(kinds, len(FTRACE_ONLY or FTRACE_KINDS)))
    t = _trace_with_system_info()
    ts = 1000
    for _ in range(3):
        bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
        bundle.cpu = rng.randint(0, 1)
        for _ in range(events // 3):
            ts += rng.randint(1, 100)
            ev = bundle.event.add(timestamp=ts, pid=rng.choice([10, 11, 20, 0]))
            msg = getattr(ev, rng.choice(chosen).name)
            fill(msg, rng, depth=1)
            msg.SetInParent()
    return t.SerializeToString()


def gen_packets(rng: random.Random, kind: str, packets: int = 4) -> bytes:
    """`packets` packets of TracePacket field `kind`, 1 us apart."""
    t = _trace_with_system_info()
    for i in range(packets):
        p = t.packet.add(timestamp=1000 * (i + 1), trusted_packet_sequence_id=1)
        msg = getattr(p, kind)
        fill(msg, rng)
        msg.SetInParent()
    return t.SerializeToString()


def gen_perf(rng: random.Random, samples: int = 20) -> bytes:
    """Two sequences of perf samples: each starts with cleared state, random
    PerfSampleDefaults (or none) and interned callstacks 1-3 over frames
    1-3 of mapping 1; each sample keeps each of its random fields with
    probability 1/2 (lost records and producer events, which make a sample
    no row, 0.15), its pid / tid / cpu / callstack iid small."""
    t = _trace_with_system_info()
    for seq in (1, 2):
        p = t.packet.add(timestamp=500 + seq, trusted_packet_sequence_id=seq)
        p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
        if rng.random() < 0.7:
            fill(p.trace_packet_defaults.perf_sample_defaults, rng, depth=1)
        d = p.interned_data
        d.mapping_paths.add(iid=1, str=b"libart.so")
        d.mappings.add(iid=1, start=0x1000, end=0x2000, path_string_ids=[1])
        for i in (1, 2, 3):
            d.function_names.add(iid=i, str=f"f{i}".encode())
            d.frames.add(iid=i, function_name_id=i, mapping_id=1, rel_pc=16 * i)
            d.callstacks.add(iid=i, frame_ids=rng.sample([1, 2, 3], rng.randint(1, 3)))
    for i in range(samples):
        seq = rng.choice((1, 2))
        p = t.packet.add(timestamp=1000 + 10 * i, trusted_packet_sequence_id=seq)
        p.sequence_flags = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
        full = pb.PerfSample()
        fill(full, rng, depth=1)
        full.cpu, full.pid, full.tid = rng.randint(0, 2), rng.choice((10, 20)), rng.randint(10, 12)
        full.callstack_iid = rng.randint(0, 4)
        for f in pb.PerfSample.DESCRIPTOR.fields:
            rare = f.name in ("kernel_records_lost", "producer_event")
            if rng.random() < (0.85 if rare else 0.5):
                full.ClearField(f.name)
        p.perf_sample.CopyFrom(full)
        p.perf_sample.SetInParent()
    return t.SerializeToString()


def gen_heapprofd(rng: random.Random, packets: int = 8) -> bytes:
    """heapprofd's ProfilePackets on one sequence (cleared at the start,
    sometimes again): a clock snapshot relating MONOTONIC_COARSE to
    BOOTTIME, then packets whose index sometimes skips, that are sometimes
    `continued`, with strings 1-6, mappings 1-2 (build ids and paths among
    them, sometimes an unknown one), frames 1-4 (sometimes an unknown
    mapping or name), callstacks 1-4 over frames 1-5, and dumps of pids 10
    / 20 on a few heaps whose counts mostly grow (sometimes shrink, a
    malformed dump), some at their max, with random flags; then module
    symbols for modules that may be among the mappings."""
    t = _trace_with_system_info()
    t.packet.add(timestamp=1).clock_snapshot.clocks.extend(
        [pb.ClockSnapshot.Clock(clock_id=6, timestamp=0),
         pb.ClockSnapshot.Clock(clock_id=4, timestamp=100)])
    index, counts = 0, {}
    for i in range(packets):
        p = t.packet.add(timestamp=200 + 10 * i, trusted_packet_sequence_id=7)
        if i == 0 or rng.random() < 0.1:
            p.incremental_state_cleared = True
            index = 0
        pp = p.profile_packet
        pp.index = index if rng.random() < 0.9 else index + 1
        index = pp.index + 1
        pp.continued = rng.random() < 0.3
        for iid in range(1, 7):
            if rng.random() < 0.9:
                pp.strings.add(iid=iid, str=rng.choice(WORDS).encode())
        if rng.random() < 0.2:
            # an app pushed to /data/local/tmp, no build id (string 0: "")
            pp.strings.add(iid=7, str=b"data/local/tmp/app.so")
            pp.mappings.add(iid=3, build_id=0, path_string_ids=[7], start=0x9000, end=0x9800)
        for iid in (1, 2):
            pp.mappings.add(iid=iid, build_id=rng.choice([1, 2, 2, 2, 9]),
                            path_string_ids=rng.sample(range(1, 8), rng.randint(1, 2)),
                            start=0x1000 * iid, end=0x1000 * iid + 0x800)
        for iid in range(1, 5):
            pp.frames.add(iid=iid, function_name_id=rng.choice([1, 2, 3, 4, 5, 6, 7]),
                          mapping_id=rng.choice([1, 2, 2, 1, 3]), rel_pc=rng.choice([16, 32, 48]))
        for iid in range(1, 5):
            frames = [rng.choice([1, 2, 3, 4, 1, 2, 3, 4, 5]) for _ in range(rng.randint(1, 3))]
            pp.callstacks.add(iid=iid, frame_ids=frames)
        for _ in range(rng.randint(1, 2)):
            pid = rng.choice((10, 20))
            d = pp.process_dumps.add(pid=pid, timestamp=150 + 10 * i,
                                     heap_name=rng.choice(["", "libc.malloc", "com.android.art"]))
            if rng.random() < 0.5:
                d.start_timestamp = 120 + 10 * i
            for flag in ("disconnected", "buffer_corrupted", "buffer_overran",
                         "rejected_concurrent", "hit_guardrail"):
                setattr(d, flag, rng.random() < 0.2)
            d.client_error = rng.choice([0, 0, 1, 2])
            d.sampling_interval_bytes = 4096
            d.orig_sampling_interval_bytes = rng.choice([0, 4096, 1024])
            d.stats.total_unwinding_time_us = rng.randint(0, 9)
            d.stats.heap_samples = rng.randint(0, 9)
            d.stats.client_spinlock_blocked_us = rng.randint(0, 9)
            for cs in rng.sample(range(1, 6), rng.randint(1, 3)):
                key = (pid, d.heap_name, cs)
                a, f = counts.get(key, (0, 0))
                a, f = a + rng.randint(-1, 5), f + rng.randint(-1, 5)
                counts[key] = (a, f)
                sample = d.samples.add(callstack_id=cs)
                if rng.random() < 0.2:
                    sample.self_max, sample.self_max_count = max(a, 0) * 8, max(a, 0)
                else:
                    sample.self_allocated, sample.alloc_count = max(a, 0) * 8, max(a, 0)
                    sample.self_freed, sample.free_count = max(f, 0) * 8, max(f, 0)
    for _ in range(rng.randint(0, 3)):
        # symbols for a module that may be one of the mappings
        m = t.packet.add(timestamp=300 + 10 * packets).module_symbols
        m.path = "/" + rng.choice(WORDS)
        m.build_id = rng.choice(WORDS + [""]).encode()
        for address in rng.sample([16, 32, 48, 64], rng.randint(1, 3)):
            a = m.address_symbols.add(address=address)
            for _ in range(rng.randint(0, 2)):
                line = a.lines.add(function_name=rng.choice(WORDS))
                if rng.random() < 0.7:
                    line.source_file_name = rng.choice(WORDS + [""])
                if rng.random() < 0.7:
                    line.line_number = rng.randint(1, 99)
    return t.SerializeToString()


def gen_wakelocks(rng: random.Random, packets: int = 10) -> bytes:
    """Kernel wakelock packets on two sequences (cleared at their start,
    sometimes again): wakelocks named from a pool (some names shared by
    two ids, some ids given twice), deltas for known and unknown ids (zeros
    included, so counters stay flat), error flags; sometimes hundreds of
    names (past the hash map's first growth at 768); some packets at the
    same time on both sequences."""
    t = _trace_with_system_info()
    many = rng.random() < 0.25
    pool = [f"wl{i}" for i in range(900 if many else 40)] + WORDS
    known: dict[int, set[int]] = {1: set(), 2: set()}
    ts = 1000
    for i in range(packets):
        seq = rng.choice((1, 2))
        if rng.random() < 0.7:
            ts += rng.randint(1, 50)
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=seq)
        if i < 2 or rng.random() < 0.1:
            p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
            known[seq] = set()
        d = p.kernel_wakelock_data
        for wid in rng.sample(range(1, len(pool) + 1), rng.randint(0, 900 if many else 6)):
            d.wakelock.add(wakelock_id=wid, wakelock_name=pool[wid - 1] if rng.random() < 0.9
                           else rng.choice(pool), wakelock_type=rng.choice([0, 1, 2]))
            known[seq].add(wid)
        ids = [rng.choice(sorted(known[seq])) if known[seq] and rng.random() < 0.9
               else rng.randint(1, 2000) for _ in range(rng.randint(0, 850 if many else 8))]
        d.wakelock_id.extend(ids)
        d.time_held_millis.extend(rng.choice([0, 0, 1, 5, 100]) for _ in ids)
        if rng.random() < 0.2:
            d.error_flags = rng.randint(1, 7)
    return t.SerializeToString()


def app_wakelock_info(iid: int, tag: str, flags: int, pid=None, uid=None, work_uid=None) -> bytes:
    """An AppWakelockInfo (FrameworksBaseInternedData.app_wakelock_info)."""
    msg = f_varint(1, iid) + f_bytes(2, tag.encode()) + f_varint(3, flags)
    for num, v in ((4, pid), (5, uid), (6, work_uid)):
        if v is not None:
            msg += f_varint(num, v)
    return msg


def app_wakelock_packet(ts: int, iids: list[int], encoded: list[int], interned: bytes = b"",
                        cleared: bool = False, seq: int = 1) -> bytes:
    """A Trace.packet with an AppWakelockBundle (TracePacket field 116:
    packed intern ids and encoded times, time << 1 | acquired) and,
    optionally, InternedData of AppWakelockInfos (field 42 each)."""
    p = pb.TracePacket(timestamp=ts, trusted_packet_sequence_id=seq)
    p.sequence_flags = (pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED if cleared
                        else pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE)
    raw = p.SerializeToString()
    if interned:
        raw += f_bytes(12, interned)
    bundle = (f_bytes(1, b"".join(varint(i) for i in iids))
              + f_bytes(2, b"".join(varint(e) for e in encoded)))
    return f_bytes(1, raw + f_bytes(116, bundle))


def gen_app_wakelocks(rng: random.Random, packets: int = 8) -> bytes:
    """App wakelock bundles on two sequences (cleared at their start,
    sometimes again): wakelocks 1-5 interned with random tags (some shared)
    and optional fields, acquires and releases of them and of unknown ids,
    the releases sometimes without an acquire, the times out of order
    within a bundle."""
    out = [_trace_with_system_info().SerializeToString()]
    for i in range(packets):
        seq = rng.choice((1, 2))
        cleared = i < 2 or rng.random() < 0.1
        interned = b""
        if cleared or rng.random() < 0.3:
            for iid in range(1, 6):
                opt = [rng.randint(1, 9) if rng.random() < 0.5 else None for _ in range(3)]
                interned += f_bytes(42, app_wakelock_info(iid, rng.choice(WORDS[:3]),
                                                        rng.randint(0, 2), *opt))
        n = rng.randint(1, 8)
        iids = [rng.choice([1, 2, 3, 4, 5, 9]) for _ in range(n)]
        encoded = [rng.randint(0, 40) << 1 | rng.randint(0, 1) for _ in range(n)]
        out.append(app_wakelock_packet(1000 + 100 * i, iids, encoded, interned, cleared, seq))
    return b"".join(out)


def gen_smaps(rng: random.Random, packets: int = 5) -> bytes:
    """SmapsPackets of pids 10 / 20: plain entries (some paths empty or
    " (deleted)"), or packed tables, aggregated (one row per string) or by
    name id, their columns mostly of one length (sometimes one short or
    long, or a name past the table: a parser error)."""
    t = _trace_with_system_info()
    paths = ["/system/lib64/libc.so", "/dev/ashmem/x (deleted)", "", "[anon:dalvik-main space]"]
    for i in range(packets):
        s = t.packet.add(timestamp=1000 + 10 * i).smaps_packet
        s.pid = rng.choice((10, 20))
        n = rng.randint(0, 4)
        if rng.random() < 0.4:
            for _ in range(n):
                e = s.entries.add()
                fill(e, rng, depth=1)
                e.path = rng.choice(paths)
                for f in pb.SmapsEntry.DESCRIPTOR.fields:
                    if rng.random() < 0.3:
                        e.ClearField(f.name)
            continue
        packed = s.packed_entries
        packed.SetInParent()
        packed.string_table.extend(rng.sample(paths, rng.randint(0, len(paths))))
        aggregated = rng.random() < 0.5
        rows = len(packed.string_table) if aggregated else n
        if aggregated:
            packed.aggregate_count.extend(rng.randint(1, 5) for _ in range(rows))
        else:
            top = len(packed.string_table) + (1 if rng.random() < 0.1 else 0)
            packed.name_id.extend(rng.randrange(max(top, 1)) for _ in range(rows))
        for f in pb.PackedSmaps.DESCRIPTOR.fields:
            if f.number >= 4 and rng.random() < 0.6:
                length = rows + (rng.choice([-1, 1]) if rng.random() < 0.1 else 0)
                getattr(packed, f.name).extend(rng.randint(0, 99) for _ in range(max(length, 0)))
    return t.SerializeToString()


def _gpu_descriptor(d: "pb.GpuCounterDescriptor", rng: random.Random) -> None:
    """Specs of counters 1-4 (sometimes without an id, a name or a
    description), random units and value directions."""
    G = pb.GpuCounterDescriptor
    for cid in rng.sample(range(1, 5), rng.randint(1, 4)):
        spec = d.specs.add()
        if rng.random() < 0.9:
            spec.counter_id = cid
        if rng.random() < 0.9:
            spec.name = rng.choice(["gpu_util", "shader_busy", "l2_hits", "freq"])
        if rng.random() < 0.6:
            spec.description = rng.choice(["", "busy %", "hits"])
        for units in (spec.numerator_units, spec.denominator_units):
            if rng.random() < 0.5:
                units.extend(rng.choice(G.MeasureUnit.DESCRIPTOR.values).number
                             for _ in range(rng.randint(1, 2)))
        spec.value_direction = rng.choice([0, 1, 2])


def gen_gpu_counters(rng: random.Random, packets: int = 10) -> bytes:
    """GPU counter packets: interned descriptors (iids 1-2 per sequence,
    gpus 0-1, sometimes never interned) and legacy inline ones, samples of
    counters 1-6 (ints or doubles), some packets without a timestamp."""
    t = _trace_with_system_info()
    for i in range(packets):
        seq = rng.choice((1, 2))
        p = t.packet.add(trusted_packet_sequence_id=seq)
        if rng.random() < 0.9:
            p.timestamp = 1000 + 10 * i
        e = p.gpu_counter_event
        if rng.random() < 0.5:
            p.sequence_flags = (pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED if i < 2 or
                                rng.random() < 0.2 else pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE)
            iid = rng.choice([1, 2, 3])
            if iid < 3 and rng.random() < 0.7:
                d = p.interned_data.gpu_counter_descriptors.add(iid=iid, gpu_id=rng.randint(0, 1))
                _gpu_descriptor(d.counter_descriptor, rng)
            e.counter_descriptor_iid = iid
        elif rng.random() < 0.5:
            e.gpu_id = rng.randint(0, 1)
            _gpu_descriptor(e.counter_descriptor, rng)
        for _ in range(rng.randint(0, 4)):
            c = e.counters.add(counter_id=rng.randint(1, 6))
            if rng.random() < 0.5:
                c.int_value = rng.randint(0, 100)
            elif rng.random() < 0.9:
                c.double_value = rng.choice([0.5, 12.25, 99.0])
    return t.SerializeToString()


def gen_machines(rng: random.Random, events: int = 30) -> bytes:
    """A host and a second machine (id 7), each a `gen_ftrace` trace with
    sched_switch and sched_waking among its kinds (the same pids on both)
    and a random process tree; the second machine's packets on sequences of
    their own, after a RemoteClockSync half the time (an offset of up to
    2 us)."""
    def one(seed: int) -> pb.Trace:
        sub = random.Random(seed)
        t = pb.Trace()
        t.ParseFromString(gen_ftrace(sub, kinds=4, events=events))
        for ev in (e for p in t.packet for e in p.ftrace_events.event):
            if sub.random() < 0.3:
                # (every field present, as `fill` gives them)
                fill(ev.sched_switch, sub)
                ev.sched_switch.next_pid = sub.choice([10, 11, 20])
                ev.sched_switch.prev_pid = ev.pid
                ev.sched_switch.prev_comm, ev.sched_switch.next_comm = "task", "task"
        tree = t.packet.add(timestamp=900, trusted_packet_sequence_id=1).process_tree
        fill(tree, sub)
        return t

    host, remote = one(rng.randrange(1 << 30)), one(rng.randrange(1 << 30))
    if rng.random() < 0.5:
        sync = remote.packet.add().remote_clock_sync
        client, offset = 10_000, rng.randint(-2000, 2000)
        for i in range(2):
            r = sync.synced_clocks.add()
            r.client_clocks.clocks.add(clock_id=6, timestamp=client + i * 10)
            r.host_clocks.clocks.add(clock_id=6, timestamp=client + i * 10 - offset)
        remote.packet.insert(0, remote.packet.pop())
    for p in remote.packet:
        q = host.packet.add()
        q.CopyFrom(p)
        q.machine_id = 7
        q.trusted_packet_sequence_id = p.trusted_packet_sequence_id + 10
    return host.SerializeToString()


def gen_compact_sched(rng: random.Random) -> bytes:
    """compact_sched bundles on cpus 0-3, in random order and overlapping in
    time: switches and wakings among a few pids (sometimes an extreme one),
    random task states (unknown bits too) and prios, comm indexes sometimes
    past the intern table, a bundle now and then with lost events or
    `last_read_event_timestamp` / `previous_bundle_end_timestamp` (the soft
    cut), and some plain sched_switch / sched_waking events among them, and
    now and then a /proc dump moving those pids between processes."""
    t = _trace_with_system_info()
    pids = [0, 10, 11, 12, 20]
    pid = lambda: rng.choice(pids) if rng.random() >= EXTREME else rng.choice([-1, 2**31 - 1])
    for _ in range(rng.randint(2, 7)):
        bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
        bundle.cpu = rng.randint(0, 3)
        if rng.random() < 0.15:
            bundle.lost_events = True
        if rng.random() < 0.2:
            bundle.last_read_event_timestamp = rng.randint(900, 1600)
        if rng.random() < 0.2:
            bundle.previous_bundle_end_timestamp = rng.randint(900, 1600)
        cs = bundle.compact_sched
        cs.intern_table.extend(rng.sample(WORDS, rng.randint(1, 4)))
        comm = lambda: rng.randint(0, len(cs.intern_table) - (rng.random() > 0.05))
        ts = rng.randint(1000, 1500)
        last = 0
        for _ in range(rng.randint(0, 12)):
            ts += rng.randint(0, 40)
            cs.switch_timestamp.append(ts - last)
            last = ts
            cs.switch_prev_state.append(rng.choice([0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512,
                                                    1024, 2048, 0x8000, 0x10000, 0x402]))
            cs.switch_next_pid.append(pid())
            cs.switch_next_prio.append(rng.choice([120, 100, 0, 139, -1]))
            cs.switch_next_comm_index.append(comm())
        ts, last = rng.randint(1000, 1500), 0
        for _ in range(rng.randint(0, 6)):
            ts += rng.randint(0, 40)
            cs.waking_timestamp.append(ts - last)
            last = ts
            cs.waking_pid.append(pid())
            cs.waking_target_cpu.append(rng.randint(0, 3))
            cs.waking_prio.append(rng.choice([120, 100]))
            cs.waking_comm_index.append(comm())
            if rng.random() < 0.5:
                cs.waking_common_flags.append(rng.choice([0, 1, 8, 16, 24]))
        for _ in range(rng.randint(0, 3) if rng.random() < 0.3 else 0):
            ev = bundle.event.add(timestamp=rng.randint(1000, 1600), pid=pid() & 0xFFFFFFFF)
            if rng.random() < 0.5:
                ev.sched_switch.SetInParent()
                sw = ev.sched_switch
                sw.prev_pid, sw.next_pid = pid(), pid()
                sw.prev_comm, sw.next_comm = rng.choice(WORDS), rng.choice(WORDS)
                sw.prev_state, sw.prev_prio, sw.next_prio = rng.choice([0, 1, 2]), 120, 120
            else:
                w = ev.sched_waking
                w.pid, w.comm, w.prio, w.success, w.target_cpu = pid(), rng.choice(WORDS), 120, 1, 0
    # a /proc dump now and then, among the same pids (threads move process)
    for _ in range(rng.choice([0, 0, 1, 2])):
        tree = t.packet.add(timestamp=rng.randint(1000, 1600),
                            trusted_packet_sequence_id=2).process_tree
        for tid in rng.sample(pids[1:], rng.randint(1, 3)):
            tree.threads.add(tid=tid, tgid=rng.choice(pids[1:]))
        for p in rng.sample(pids[1:], rng.randint(0, 2)):
            tree.processes.add(pid=p, ppid=1, cmdline=[rng.choice(WORDS)])
    return t.SerializeToString()


def gen_identity(rng: random.Random) -> bytes:
    """Process trees and ftrace events that disagree about who is who: a
    few packets, in time order, each either a /proc dump (processes with
    random parents, threads with random tgids, some main threads named) or
    a bundle of sched_switch / task_newtask / sched_process_free /
    task_rename / sched_waking / atrace print events, all among pids 1-6 (tid reuse,
    threads moving process, processes ending and coming back)."""
    t = _trace_with_system_info()
    ids = range(1, 7)
    ts = 1000
    for _ in range(rng.randint(3, 8)):
        ts += rng.randint(10, 100)
        if rng.random() < 0.4:
            tree = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1).process_tree
            for pid in rng.sample(ids, rng.randint(0, 3)):
                proc = tree.processes.add(pid=pid, ppid=rng.choice([0, 1, 2, *ids]),
                                          cmdline=[rng.choice(WORDS)])
                if rng.random() < 0.3:
                    proc.cmdline_is_comm = True
            for tid in rng.sample(ids, rng.randint(0, 4)):
                thread = tree.threads.add(tid=tid, tgid=rng.choice(ids))
                if rng.random() < 0.5:
                    thread.name = rng.choice(WORDS)
            continue
        bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
        bundle.cpu = rng.randint(0, 1)
        for _ in range(rng.randint(1, 6)):
            ts += rng.randint(1, 20)
            ev = bundle.event.add(timestamp=ts, pid=rng.choice(ids))
            kind = rng.choice(["sched_switch", "sched_switch", "task_newtask",
                               "sched_process_free", "task_rename", "sched_waking", "print"])
            if kind == "sched_switch":
                sw = ev.sched_switch
                sw.prev_pid, sw.prev_comm, sw.prev_state, sw.prev_prio = ev.pid, "p", 1, 120
                sw.next_pid, sw.next_comm, sw.next_prio = rng.choice(ids), rng.choice(WORDS), 120
            elif kind == "task_newtask":
                n = ev.task_newtask
                n.pid, n.comm = rng.choice(ids), rng.choice(WORDS)
                n.clone_flags = rng.choice([0, 0x10000])  # CLONE_THREAD or not
            elif kind == "sched_process_free":
                ev.sched_process_free.pid = rng.choice(ids)
            elif kind == "task_rename":
                ev.task_rename.pid, ev.task_rename.newcomm = rng.choice(ids), rng.choice(WORDS)
            elif kind == "print":
                # atrace: B / E / I tie the printing thread to the tgid
                # (UpdateThread), C / S only name the tgid's process
                phase, tgid = rng.choice("BEICS"), rng.choice([0, *ids])
                ev.print.buf = {"B": f"B|{tgid}|s", "E": f"E|{tgid}", "I": f"I|{tgid}|i",
                                "C": f"C|{tgid}|c|1", "S": f"S|{tgid}|a|1"}[phase] + "\n"
            else:
                w = ev.sched_waking
                w.pid, w.comm, w.prio, w.success, w.target_cpu = rng.choice(ids), "w", 120, 1, 0
    return t.SerializeToString()


def gen_frame_timeline(rng: random.Random, events: int = 16) -> bytes:
    """Random FrameTimelineEvents (TracePacket extension 76, encoded by hand):
    expected / actual display and surface frame starts and frame ends whose
    cookies, tokens, display tokens and pids collide (starts without an end,
    ends of nothing, a token's frames from two pids), every field present
    with probability 0.7, jank types as single bits, combinations and 0."""
    import struct

    def f_float(num: int, v: float) -> bytes:
        return varint(num << 3 | 5) + struct.pack("<f", v)

    def maybe(num: int, value, enc=f_varint) -> bytes:
        return enc(num, value) if rng.random() < 0.7 else b""

    jank = lambda: rng.choice([0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                               64 | 128, 2 | 32, 1024 | 64])
    t = _trace_with_system_info()
    ts = 1000
    for _ in range(events):
        ts += rng.choice([0, 1, 50, 400])
        kind = rng.choice([1, 2, 3, 4, 5, 5, 2, 4])
        cookie, token = rng.randint(1, 6), rng.randint(1, 5)
        pid, layer = rng.choice([10, 11, 12]), rng.choice(WORDS).encode()
        if kind == 1:
            body = f_varint(1, cookie) + f_varint(2, token) + maybe(3, pid)
        elif kind == 2:
            body = (f_varint(1, cookie) + f_varint(2, token) + maybe(3, pid)
                    + maybe(4, rng.randint(0, 5)) + maybe(5, rng.random() < 0.5)
                    + maybe(6, rng.random() < 0.5) + maybe(7, jank())
                    + maybe(8, rng.randint(0, 3)) + maybe(9, rng.randint(0, 3))
                    + maybe(10, rng.choice([0.0, 1.5, 16.6]), f_float)
                    + maybe(11, rng.choice([0.0, 0.5]), f_float)
                    + maybe(12, jank()) + maybe(13, rng.randint(0, 5)))
        elif kind == 3:
            body = (f_varint(1, cookie) + f_varint(2, token) + maybe(3, rng.randint(1, 5))
                    + maybe(4, pid) + maybe(5, layer, f_bytes))
        elif kind == 4:
            # (always a layer name: trace_processor leaves the name of an
            # actual surface frame without one uninitialized)
            body = (f_varint(1, cookie) + f_varint(2, token) + maybe(3, rng.randint(1, 5))
                    + maybe(4, pid) + f_bytes(5, layer) + maybe(6, rng.randint(0, 5))
                    + maybe(7, rng.random() < 0.5) + maybe(8, rng.random() < 0.5)
                    + maybe(9, jank()) + maybe(10, rng.randint(0, 3))
                    + maybe(11, rng.random() < 0.5) + maybe(12, rng.randint(0, 3))
                    + maybe(13, rng.choice([0.0, 2.25]), f_float)
                    + maybe(14, rng.choice([0.0, 1.0]), f_float)
                    + maybe(15, rng.choice([0.0, 0.75]), f_float)
                    + maybe(16, jank()) + maybe(17, rng.randint(0, 5)))
        else:
            body = f_varint(1, cookie)
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1)
        p.MergeFromString(f_bytes(76, f_bytes(kind, body)))
    return t.SerializeToString()


def gen_atrace(rng: random.Random, events: int = 30) -> bytes:
    """atrace through ftrace `print` events (how apps' and ART's trace
    sections reach a trace): begin / end / counter / async / instant /
    track-event-style lines (B E C S F I N G H U T) among a few pids and
    tids, with nested and unbalanced sections, missing or bad fields,
    negative and huge values, trailing newlines and junk, on two cpus."""
    pids, names = [10, 11, 20], ["GC", "Lock contention", "doFrame", "a|b", "x y", ""]
    num = lambda: rng.choice(["0", "1", "-1", "42", "4294967296", "1.5", "x", ""])

    def line() -> str:
        pid, name = rng.choice(pids), rng.choice(names)
        phase = rng.choice("BBBEEECSFINGHUT?")
        if phase == "B":
            parts = ["B", str(pid), name] + ([rng.choice(["", "k=v", "a|b"])]
                                             if rng.random() < 0.2 else [])
        elif phase == "E":
            parts = ["E", str(pid)] + ([name] if rng.random() < 0.5 else [])
        elif phase in "CSF":
            parts = [phase, str(pid), name, num()] + ([rng.choice(["trk", ""])]
                                                      if rng.random() < 0.3 else [])
        elif phase in "GH":
            parts = [phase, str(pid), rng.choice(["trk", "t2"]), name, num()]
        elif phase in "NUT":
            parts = [phase, str(pid), rng.choice(["trk", "t2"]), name]
        else:
            parts = [phase, str(pid), name]
        if rng.random() < 0.1:
            parts[1] = rng.choice(["", "-1", "abc", "99999999999"])
        if rng.random() < 0.1:
            parts = parts[: rng.randint(1, len(parts))]
        return "|".join(parts) + rng.choice(["", "", "\n", " ", "\n\n"])

    t = _trace_with_system_info()
    ts = 1000
    for cpu in (0, 1, 0):
        bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
        bundle.cpu = cpu
        for _ in range(events // 3):
            ts += rng.randint(0, 30)
            tid = rng.choice([10, 11, 12, 20, 21])
            ev = bundle.event.add(timestamp=ts, pid=tid)
            ev.print.buf = line()
    return t.SerializeToString()


def gen_systrace(rng: random.Random, lines: int = 40) -> bytes:
    """Systrace text (atrace's `TRACE:` dump): a header, then ftrace lines of
    the events trace_processor's text reader handles (sched_switch,
    sched_waking, tracing_mark_write, cpu_frequency / _limits, cpu_idle,
    sched_blocked_reason, workqueue_execute_*, clock_*) and some it ignores,
    by tasks with and without a tgid column, names with spaces and dashes,
    with and without irq flags, fields missing, duplicated or malformed."""
    tasks = [("surfaceflinger", 10), ("Binder:10_2", 11), ("<...>", 12), ("my app-x", 20),
             ("kworker/0:1", 3), ("<idle>", 0)]
    states = ["S", "R", "R+", "D", "DK", "x", "I", "T", "W", "Z", "P", "?", "D|K", ""]
    val = lambda: rng.choice(["0", "1", "42", "-1", "120", "abc", "", "4294967296"])

    def args(event: str) -> str:
        comm, pid = rng.choice(tasks)
        if event == "sched_switch":
            ncomm, npid = rng.choice(tasks)
            fields = [f"prev_comm={comm}", f"prev_pid={pid}", f"prev_prio={val()}",
                      f"prev_state={rng.choice(states)}", "==>", f"next_comm={ncomm}",
                      f"next_pid={npid}", f"next_prio={val()}"]
        elif event == "sched_waking":
            fields = [f"comm={comm}", f"pid={pid}", f"prio={val()}", f"target_cpu={val()}"]
        elif event == "tracing_mark_write":
            return rng.choice(["B|10|doFrame", "E|10", "C|10|cnt|5", "S|10|as|1", "F|10|as|1",
                               "I|10|inst", "B|x|bad", "trace_event_clock_sync: parent_ts=1.0"])
        elif event in ("cpu_frequency", "cpu_idle"):
            # (a state that is no number crashes trace_processor)
            state = rng.choice(["0", "1", "42", "-1", "4294967295"])
            fields = [f"state={state}", f"cpu_id={rng.choice(['0', '1', '7', 'x'])}"]
        elif event == "cpu_frequency_limits":
            # (a cpu past trace_processor's 4096 crashes it)
            cpu = rng.choice(["0", "1", "7", "x", ""])
            fields = [f"min_freq={val()}", f"max_freq={val()}", f"cpu_id={cpu}"]
        elif event == "sched_blocked_reason":
            fields = [f"pid={pid}", f"iowait={rng.choice(['0', '1'])}",
                      f"caller={rng.choice(['f+0x10/0x20', 'g'])}"]
        elif event.startswith("workqueue_execute"):
            work = f"work struct {rng.choice(['000000001', 'ffffff8012'])}"
            return work + (f": function {rng.choice(['fn_a', 'fn_b'])}"
                           if event.endswith("start") else "")
        elif event.startswith("clock_"):
            fields = [rng.choice(["clk0", "clk1"]), f"state={val()}", f"cpu_id={val()}"]
        else:
            fields = [f"pid={pid}", f"comm={comm}"]
        # (trace_processor crashes on a cpu_idle / cpu_frequency without a
        # state: those keep every field, numbers)
        if fields and rng.random() < 0.15 and event not in ("cpu_idle", "cpu_frequency"):
            fields.pop(rng.randrange(len(fields)))
        if fields and rng.random() < 0.1:
            fields.append(rng.choice(fields))
        return " ".join(fields)

    events = ["sched_switch"] * 4 + ["sched_waking", "tracing_mark_write", "tracing_mark_write",
              "cpu_frequency", "cpu_idle", "cpu_frequency_limits", "sched_blocked_reason",
              "workqueue_execute_start", "workqueue_execute_end", "clock_set_rate",
              "clock_enable", "sched_wakeup", "task_newtask"]
    out = ["TRACE:", "# tracer: nop", "#",
           "#                                      _-----=> irqs-off",
           "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION",
           "#              | |        |      |   ||||       |         |"]
    ts = 100.0
    for _ in range(lines):
        ts += rng.choice([0.0, 0.000001, 0.000013, 0.5])
        comm, pid = rng.choice(tasks)
        tgid = rng.choice(["(-----)", f"({pid:5d})", "( 10)", ""])
        flags = rng.choice(["d..2", "...1", "", "dNh3"])
        event = rng.choice(events)
        out.append(f"{comm:>16}-{pid:<5} {tgid} [{rng.randint(0, 1):03d}] {flags} "
                   f"{ts:.6f}: {event}: {args(event)}")
    return ("\n".join(out) + "\n").encode()


GENERATORS = {"ftrace": gen_ftrace, "compact_sched": gen_compact_sched, "identity": gen_identity,
              "systrace": gen_systrace,
              "atrace": gen_atrace,
              "frame_timeline_event": gen_frame_timeline, "machines": gen_machines, "perf_sample": gen_perf, "profile_packet": gen_heapprofd,
              "gpu_counter_event": gen_gpu_counters,
              "smaps_packet": gen_smaps,
              "kernel_wakelock_data": gen_wakelocks, "app_wakelock_bundle": gen_app_wakelocks}


def generate(kind: str, seed: int) -> bytes:
    rng = random.Random(seed)
    special = GENERATORS.get(kind)
    return special(rng) if special else gen_packets(rng, kind)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="ftrace",
                    help="ftrace, or a TracePacket field (sys_stats, process_stats, ...)")
    ap.add_argument("--ftrace-events", default="",
                    help="--kind ftrace: comma-separated FtraceEvent kinds to draw from")
    ap.add_argument("--extreme", type=float, default=EXTREME,
                    help="probability of an extreme integer value (default %(default)s)")
    ap.add_argument("--absent", type=float, default=ABSENT,
                    help="probability of leaving a scalar field out (default %(default)s)")
    import compare_tp

    def make(a):
        global EXTREME, ABSENT
        EXTREME, ABSENT = a.extreme, a.absent
        by_name = pb.FtraceEvent.DESCRIPTOR.fields_by_name
        FTRACE_ONLY[:] = [by_name[k] for k in a.ftrace_events.split(",") if k]
        return lambda seed: generate(a.kind, seed)

    return compare_tp.generator_main(ap, make)


if __name__ == "__main__":
    raise SystemExit(main())
