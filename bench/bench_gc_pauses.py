"""GC pause and wait SQL on the 60 s bench trace, on both engines and in the shell.

    python3 bench/bench_gc_pauses.py [--repeat 3]

The bench trace's GCs carry no phase slices, so besides it this times a copy
with ART's pause structure added (cached in bench/out/): every GC of the
app's HeapTaskDaemon gets a CC thread flip (`ThreadListFlip` holding
`(Paused)FlipCallback` > `(Paused)SetFromSpace`) and a suspend-all
(`Suspending mutator threads`, `Mutator threads suspended for ScopedPause`
holding `(Paused)MarkingPause`, `Resuming mutator threads`), and every third
GC a `GC: Wait For Completion Alloc` on the main thread. The extra atrace
lines are appended as ftrace bundles (a Perfetto trace is a packet stream;
both engines sort events by time).

Times: each GC metric file through the trace_processor engine (the real
trace_processor_shell) and the embedded engine (best of --repeat, inputs
bound as `artscope.open` does), and each file's PerfettoSQL package function
run inside trace_processor_shell (its "Query execution time").
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_trace  # noqa: E402
from bench_metrics import PACKAGE_ARGS, tp_binary  # noqa: E402
from run_bench import APP, CPUS  # noqa: E402

METRICS = ("gc", "gc_events", "gc_pause", "gc_wait")
US = 1_000


def with_pauses(src: Path) -> Path:
    """A copy of ``src`` with ART's pause slices inside every GC of the app."""
    out = src.with_name(src.stem + "-pauses.pftrace")
    if out.exists() and out.stat().st_mtime >= src.stat().st_mtime:
        return out
    import artscope
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    with artscope.open(str(src), app=APP, engine="embedded") as rs:
        ev = rs.analysis.tables["gc_events"]
        pid = rs.analysis.selection.pids[0]
    lines: list[tuple[int, int, str]] = []  # (ts, tid, buf)

    def sl(tid: int, name: str, a: int, b: int) -> None:
        lines.append((a, tid, f"B|{pid}|{name}\n"))
        lines.append((b, tid, f"E|{pid}\n"))

    for k, r in enumerate(ev.iter_rows(named=True)):
        ts, dur, tid = r["ts"], r["dur"], r["tid"]
        if dur < 2_000 * US:
            continue
        f0 = ts + dur // 10
        sl(tid, "ThreadListFlip", f0, f0 + 300 * US)
        sl(tid, "(Paused)FlipCallback", f0 + 20 * US, f0 + 220 * US)
        sl(tid, "(Paused)SetFromSpace", f0 + 30 * US, f0 + 80 * US)
        s0 = ts + dur * 6 // 10
        sl(tid, "Suspending mutator threads", s0, s0 + 50 * US)
        sl(tid, "Mutator threads suspended for ScopedPause", s0 + 50 * US, s0 + 250 * US)
        sl(tid, "(Paused)MarkingPause", s0 + 60 * US, s0 + 240 * US)
        sl(tid, "Resuming mutator threads", s0 + 250 * US, s0 + 270 * US)
        if k % 3 == 0:
            sl(pid, "GC: Wait For Completion Alloc", ts + dur // 5, ts + dur // 2)
    # stable sort: an E listed before a B at the same ts stays before it
    lines.sort(key=lambda x: x[0])
    trace = pb.Trace()
    for i in range(0, len(lines), 500):
        pkt = trace.packet.add()
        pkt.trusted_packet_sequence_id = 4242
        bundle = pkt.ftrace_events
        bundle.cpu = 7
        for ts, tid, buf in lines[i:i + 500]:
            fe = bundle.event.add()
            fe.timestamp = ts
            fe.pid = tid
            fe.print.ip = 0
            fe.print.buf = buf
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes(src.read_bytes() + trace.SerializeToString())
    os.replace(tmp, out)
    return out


def engine_times(path: Path, engine: str, repeat: int) -> dict[str, float]:
    """Best wall time of each GC metric file on one loaded engine."""
    from artscope.engines import load_trace
    from artscope.metrics.analysis import analyze_engine
    from artscope.metrics.options import AnalysisOptions

    eng = load_trace(str(path), engine=engine, tp_bin=tp_binary())
    try:
        a = analyze_engine(eng, AnalysisOptions(app=APP, cpus=CPUS), str(path))
        out = {}
        for m in METRICS:
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                a.runner.run(m)
                best = min(best, time.perf_counter() - t0)
            out[m] = best
        g = a.results[0]["gc"]
        out["_rows"] = {m: a.tables[m].height for m in METRICS}
        out["_gc"] = {k: g[k] for k in ("gc_count", "pause_count", "pause_max_ns",
                                          "mutator_wait_ns")}
        return out
    finally:
        eng.close()


def shell_times(path: Path, repeat: int) -> dict[str, float]:
    """Each file's package function inside trace_processor_shell: the best
    'Query execution time' of ``repeat`` runs."""
    from artscope.sqlpackage import build_module

    out = {}
    with tempfile.TemporaryDirectory() as d:
        pkg = Path(d) / "artscope"
        pkg.mkdir()
        for m in METRICS:
            mod = build_module(m)
            (pkg / f"{m}.sql").write_text(mod.text)
            args = ", ".join(PACKAGE_ARGS[a.name] for a in mod.arguments)
            q = Path(d) / f"{m}.q.sql"
            q.write_text(f"INCLUDE PERFETTO MODULE {mod.include_key};\n"
                         f"SELECT count(*) FROM {mod.function}({args});\n")
            best = float("inf")
            for _ in range(repeat):
                r = subprocess.run([tp_binary(), "--add-sql-package", str(pkg), "-q", str(q),
                                    str(path)], capture_output=True, text=True, check=True)
                ms = re.findall(r"Query execution time: (\d+) ms", r.stdout + r.stderr)
                best = min(best, sum(int(x) for x in ms) / 1e3)
            out[m] = best
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description="GC pause SQL timings")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if not tp_binary():
        print("needs trace_processor_shell (ARTSCOPE_TP_BIN, or on PATH)")
        return 2
    base = gen_trace.ensure(60, 2_000_000, encodings=("compact",))["compact"]
    for path in (Path(base), with_pauses(Path(base))):
        print(f"trace: {path.name}")
        tp = engine_times(path, "trace_processor", a.repeat)
        emb = engine_times(path, "embedded", a.repeat)
        sh = shell_times(path, a.repeat)
        print(f"  rows {tp['_rows']}; gc {tp['_gc']}")
        assert tp["_rows"] == emb["_rows"] and tp["_gc"] == emb["_gc"], (tp, emb)
        print("| metric file | trace_processor engine | embedded | package in the shell |")
        print("|---|---|---|---|")
        for m in METRICS:
            print(f"| {m}.sql | {tp[m]:.3f} s | {emb[m]:.3f} s | {sh[m]:.3f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
