"""Benchmark the track event import on a synthetic Perfetto SDK trace.

    python3 bench/bench_track_events.py [--events 1000000]

A trace like an app instrumented with the Perfetto SDK writes: 16 threads
(one sequence each, state cleared, a thread track descriptor, interned event
names / categories / annotation names, TracePacketDefaults naming the
thread's track), each emitting nested begin / end pairs, the inner slice
with one debug annotation. Times the compiled core's import and first query
(CPU, wall, peak RSS) in a fresh process, and with ARTSCOPE_TP_BIN set,
trace_processor_shell's load of the same file (wall, peak RSS).

The synthetic trace goes to a temporary file, removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def synth(events: int, seed: int = 1) -> bytes:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    rng = random.Random(seed)
    trace = pb.Trace()
    threads = 16
    for t in range(threads):
        p = trace.packet.add(trusted_packet_sequence_id=t + 1, timestamp=0)
        p.sequence_flags = 1  # SEQ_INCREMENTAL_STATE_CLEARED
        d = p.track_descriptor
        d.uuid, d.thread.pid, d.thread.tid, d.thread.thread_name = 1000 + t, 100, 200 + t, f"w{t}"
        p.interned_data.event_names.add(iid=1, name="Outer")
        p.interned_data.event_names.add(iid=2, name="Inner")
        p.interned_data.event_categories.add(iid=1, name="app")
        p.interned_data.debug_annotation_names.add(iid=1, name="arg")
        p.trace_packet_defaults.track_event_defaults.track_uuid = 1000 + t
    ts = [1000] * threads
    written = 0
    while written < events:
        t = rng.randrange(threads)
        for name_iid, begin in ((1, True), (2, True), (2, False), (1, False)):
            ts[t] += rng.randrange(100, 2000)
            p = trace.packet.add(trusted_packet_sequence_id=t + 1, timestamp=ts[t],
                                 sequence_flags=2)  # SEQ_NEEDS_INCREMENTAL_STATE
            e = p.track_event
            e.type = pb.TrackEvent.TYPE_SLICE_BEGIN if begin else pb.TrackEvent.TYPE_SLICE_END
            if begin:
                e.name_iid = name_iid
                e.category_iids.append(1)
                if name_iid == 2:
                    e.debug_annotations.add(name_iid=1, int_value=written)
            written += 1
    return trace.SerializeToString()


CHILD = """
import sys, time
sys.path.insert(0, {pyanalysis!r})
from artscope.engines.embedded import EmbeddedEngine
c0, w0 = time.process_time(), time.perf_counter()
eng = EmbeddedEngine()
eng.load({path!r})
n = eng.query("SELECT count(*) AS n FROM slice")["n"][0]
c1, w1 = time.process_time(), time.perf_counter()
# VmHWM: this process's own peak (ru_maxrss would keep the forking
# parent's, which held the synthetic trace, across the exec)
rss = next(int(line.split()[1]) for line in open("/proc/self/status")
           if line.startswith("VmHWM:")) / 1024
print(f"{{w1 - w0:.2f}} {{c1 - c0:.2f}} {{rss:.0f}} {{n}}")
"""


def embedded(path: str) -> tuple[float, float, float, int]:
    code = CHILD.format(pyanalysis=str(REPO / "pyanalysis"), path=path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), int(out[3])


def trace_processor(tp_bin: str, path: str) -> tuple[float, float]:
    """Wall time and peak RSS (GNU time's %M: this process's own memory,
    the synthetic trace, must not count) of trace_processor_shell."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as q:
        q.write("SELECT count(*) FROM slice;\n")
    try:
        t0 = time.perf_counter()
        run = subprocess.run(["/usr/bin/time", "-f", "MAXRSS=%M", tp_bin, "-q", q.name, path],
                             capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
        rss_kb = int(run.stderr.rsplit("MAXRSS=", 1)[1].split()[0])
        return wall, rss_kb / 1024
    finally:
        os.unlink(q.name)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    a = ap.parse_args()
    data = synth(a.events)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "track_events.pftrace")
        Path(path).write_bytes(data)
        tp_bin = os.environ.get("ARTSCOPE_TP_BIN")
        tp = trace_processor(tp_bin, path) if tp_bin else None
        wall, cpu, rss, slices = embedded(path)
        print(f"synthetic SDK trace: {a.events:,} track events, {len(data) / 1e6:.1f} MB, "
              f"{slices:,} slices")
        print("| engine | load + first query (wall) | CPU | events/s (CPU) | peak RSS |")
        print("|---|---:|---:|---:|---:|")
        print(f"| embedded (compiled core) | {wall:.2f} s | {cpu:.2f} s | "
              f"{a.events / cpu / 1e6:.2f}M | {rss:,.0f} MB |")
        if tp:
            print(f"| trace_processor_shell | {tp[0]:.2f} s | | | {tp[1]:,.0f} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
