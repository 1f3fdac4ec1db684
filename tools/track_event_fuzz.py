#!/usr/bin/env python3
"""Random track event traces: the embedded engine against trace_processor.

    python3 tools/track_event_fuzz.py [--first 0] [--count 50] [--tp-bin PATH]

Builds traces from a seeded generator of track event packets (descriptors
with random parents, threads, processes, counters and states; interned
data; defaults; events of every type and legacy phase with flows,
annotations, log messages, delta / absolute times, clocks, losses and
clears) and prints, per seed, the tables that differ between the two
engines (tools/compare_tp.py). A finding list, not a test: the generator
reaches error paths real traces rarely do. tests/test_core_decoder.py runs
the same generator to check that every trace imports.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

REPO = Path(__file__).resolve().parents[1]
TE = pb.TrackEvent


def gen(rng: random.Random) -> bytes:
    """One random trace of track event packets (sequences 1-3)."""
    t = pb.Trace()
    uuids = [0] + [rng.randrange(1, 20) for _ in range(6)]
    for _ in range(rng.randrange(1, 60)):
        p = t.packet.add(trusted_packet_sequence_id=rng.randrange(1, 4))
        if rng.random() < 0.8: p.timestamp = rng.randrange(0, 5000)
        if rng.random() < 0.2: p.sequence_flags = rng.choice([1, 2, 3])
        if rng.random() < 0.1: p.incremental_state_cleared = True
        if rng.random() < 0.05: p.previous_packet_dropped = rng.randrange(0, 3)
        if rng.random() < 0.1: p.timestamp_clock_id = rng.choice([3, 4, 6, 64, 99])
        r = rng.random()
        if r < 0.25:
            d = p.track_descriptor
            if rng.random() < 0.95: d.uuid = rng.choice(uuids)
            if rng.random() < 0.5: d.parent_uuid = rng.choice(uuids)
            k = rng.random()
            if k < 0.25: d.thread.pid = rng.randrange(0, 5); d.thread.tid = rng.randrange(0, 8)
            elif k < 0.45: d.process.pid = rng.randrange(0, 5)
            elif k < 0.6: d.counter.unit = rng.randrange(0, 4); d.counter.is_incremental = rng.random() < 0.5; d.counter.unit_multiplier = rng.randrange(-2, 3)
            elif k < 0.7: d.state.SetInParent()
            if rng.random() < 0.5: d.name = rng.choice(["a", "b", ""])
            if rng.random() < 0.2: d.sibling_merge_behavior = rng.randrange(0, 4)
            if rng.random() < 0.1: d.child_ordering = rng.randrange(0, 4)
            if rng.random() < 0.1: d.disallow_merging_with_system_tracks = True
        elif r < 0.3:
            p.thread_descriptor.pid = rng.randrange(0, 5); p.thread_descriptor.tid = rng.randrange(0, 8)
            p.thread_descriptor.reference_timestamp_us = rng.randrange(-10, 10)
        elif r < 0.35:
            p.interned_data.event_names.add(iid=rng.randrange(0, 4), name="n")
            p.interned_data.debug_annotation_names.add(iid=rng.randrange(0, 4), name="a.b[")
            p.interned_data.source_locations.add(iid=rng.randrange(0, 4), file_name="f", line_number=3)
            p.interned_data.log_message_body.add(iid=rng.randrange(0, 4), body="m")
        elif r < 0.4:
            p.trace_packet_defaults.track_event_defaults.track_uuid = rng.choice(uuids)
            if rng.random() < 0.5: p.trace_packet_defaults.track_event_defaults.extra_counter_track_uuids.append(rng.choice(uuids))
            if rng.random() < 0.3: p.trace_packet_defaults.timestamp_clock_id = rng.choice([3, 6])
        else:
            e = p.track_event
            if rng.random() < 0.8: e.type = rng.randrange(0, 6)
            if rng.random() < 0.8: e.track_uuid = rng.choice(uuids)
            if rng.random() < 0.5: e.name = rng.choice(["x", "y", ""])
            elif rng.random() < 0.5: e.name_iid = rng.randrange(0, 5)
            if rng.random() < 0.3: e.categories.append("c")
            if rng.random() < 0.3: e.category_iids.append(rng.randrange(0, 3))
            if rng.random() < 0.3: e.counter_value = rng.randrange(-5, 5)
            if rng.random() < 0.1: e.double_counter_value = rng.random()
            if rng.random() < 0.2: e.flow_ids.append(rng.randrange(0, 3))
            if rng.random() < 0.2: e.terminating_flow_ids.append(rng.randrange(0, 3))
            if rng.random() < 0.2: e.timestamp_delta_us = rng.randrange(-3, 3)
            if rng.random() < 0.1: e.timestamp_absolute_us = rng.randrange(-3, 3)
            if rng.random() < 0.1: e.thread_time_delta_us = rng.randrange(-3, 3)
            if rng.random() < 0.1: e.extra_counter_values.append(rng.randrange(0, 3))
            if rng.random() < 0.1: e.extra_counter_track_uuids.append(rng.choice(uuids))
            if rng.random() < 0.2:
                a = e.debug_annotations.add(name=rng.choice(["k", "", "a.b"]))
                c = rng.random()
                if c < 0.3: a.int_value = 1
                elif c < 0.5:
                    for _ in range(rng.randrange(0, 3)): a.array_values.add(string_value="s")
                elif c < 0.7:
                    a.nested_value.nested_type = rng.randrange(0, 3); a.nested_value.dict_keys.append("q")
                    if rng.random() < 0.5: a.nested_value.dict_values.add(int_value=2)
                else: a.string_value_iid = rng.randrange(0, 3)
            if rng.random() < 0.1: e.log_message.body_iid = rng.randrange(0, 4); e.log_message.source_location_iid = rng.randrange(0, 4)
            if rng.random() < 0.1: e.source_location_iid = rng.randrange(0, 4)
            if rng.random() < 0.3:
                l = e.legacy_event; l.phase = ord(rng.choice("BEXIiRMbenSTpFstfCO"))
                if rng.random() < 0.5: l.unscoped_id = rng.randrange(0, 3)
                if rng.random() < 0.2: l.local_id = rng.randrange(0, 3)
                if rng.random() < 0.2: l.duration_us = rng.randrange(-3, 5)
                if rng.random() < 0.2: l.instant_event_scope = rng.randrange(0, 4)
                if rng.random() < 0.1: l.pid_override = rng.randrange(0, 3)
                if rng.random() < 0.1: l.tid_override = rng.randrange(0, 3)
                if rng.random() < 0.1: l.bind_id = 1; l.flow_direction = rng.randrange(0, 4)
                if rng.random() < 0.1: l.bind_to_enclosing = True
                if rng.random() < 0.1: l.id_scope = "z"
    return t.SerializeToString()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--tp-bin", default=str(REPO.parent / "shared" / "bin" / "trace_processor_shell"))
    a = ap.parse_args()
    sys.path.insert(0, str(REPO / "pyanalysis"))
    sys.path.insert(0, str(REPO / "tools"))
    import compare_tp

    differing = 0
    with tempfile.TemporaryDirectory() as d:
        for seed in range(a.first, a.first + a.count):
            path = Path(d) / f"seed-{seed}.pftrace"
            path.write_bytes(gen(random.Random(seed)))
            diffs = [x for x in compare_tp.compare_trace(path, a.tp_bin) if x.aspects]
            if diffs:
                differing += 1
                print(f"seed {seed}: " + "; ".join(f"{x.table} {sorted(x.aspects)}" for x in diffs))
    print(f"{differing} of {a.count} traces differ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
