"""Per-metric SQL timings on both engines, and scaling on trace_processor.

    python3 bench/bench_metrics.py                    # 60 s bench trace, both engines
    python3 bench/bench_metrics.py --scale            # + 1x/2x/4x curve on trace_processor
    (whole-run times are the best of --repeat interleaved rounds, default 3)
    python3 bench/bench_metrics.py --seconds 6 --switches 200000 --engines trace_processor

For each engine: load the trace, bind the inputs exactly as `artscope.open`
does (app com.example.bench, CPUs 6,7), then time every sql-metrics file
once. With the trace_processor engine it also reports trace_processor's own
load time (the target is analyze <= 1.5x of it) and the same metric SQL run
through the PerfettoSQL package inside `trace_processor_shell` (the table
functions `artscope_<metric>(...)`). trace_processor needs a binary:
ARTSCOPE_TP_BIN, else trace_processor_shell on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_trace  # noqa: E402
from run_bench import APP, CPUS, run_child  # noqa: E402  (fresh-process children)

def tp_binary() -> str | None:
    """ARTSCOPE_TP_BIN, else trace_processor_shell on PATH (as the engine finds it)."""
    return os.environ.get("ARTSCOPE_TP_BIN") or shutil.which("trace_processor_shell")


def tp_load_s(path: str, repeat: int = 3) -> float:
    """trace_processor_shell's own load + a trivial query (best of ``repeat``)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([tp_binary(), "-Q", "select count(*) from sched", path],
                       check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best


#: Values for the package functions' arguments (same selection as the engines).
PACKAGE_ARGS = {"app": f"'{APP}'", "start_ts": "trace_start()", "end_ts": "trace_end()",
                "cpus": f"'{CPUS}'", "gc_cpus": "''", "pin_grace_ns": "0",
                "marker": "'App Benchmark'"}


def package_query() -> str:
    """What analyze computes, through the package: INCLUDE each module that
    analyze runs and count its function's rows."""
    from artscope.metrics.analysis import ANALYZE_METRICS
    from artscope.sqlpackage import build_modules

    wanted = set(ANALYZE_METRICS) | {"affinity_evidence"}
    lines = []
    for m in build_modules():
        if m.metric not in wanted:
            continue
        args = ", ".join(PACKAGE_ARGS[a.name] for a in m.arguments)
        lines.append(f"INCLUDE PERFETTO MODULE {m.include_key};")
        lines.append(f"SELECT '{m.function}', count(*) FROM {m.function}({args});")
    return "\n".join(lines) + "\n"


def package_s(path: str) -> float:
    """Wall time of trace_processor_shell loading the trace and running the
    package functions analyze needs (its own load is measured by tp_load_s)."""
    from artscope.sqlpackage import write_sql_package

    with tempfile.TemporaryDirectory() as d:
        write_sql_package(d)
        q = Path(d) / "q.sql"
        q.write_text(package_query())
        t0 = time.perf_counter()
        subprocess.run([tp_binary(), "--add-sql-package", str(Path(d) / "artscope"),
                        "-q", str(q), path], check=True, capture_output=True)
        return time.perf_counter() - t0


def interleaved_ratio(path: str, repeat: int, package: bool = True) -> tuple[float, float, float]:
    """Best of ``repeat`` rounds of: the shell's own load, analyze on the
    trace_processor engine (a fresh process), and (``package``) the SQL
    package in the shell. One round runs the three back to back, so a
    change in the machine's load reaches all of them, not just the ones
    measured last."""
    load = an = pkg = float("inf")
    for _ in range(repeat):
        load = min(load, tp_load_s(path, 1))
        an = min(an, run_child("analyze", path, "trace_processor")["seconds"])
        if package:
            pkg = min(pkg, package_s(path))
    return load, an, pkg


def main() -> int:
    ap = argparse.ArgumentParser(description="per-metric SQL timings")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--switches", type=int, default=2_000_000)
    ap.add_argument("--engines", default="trace_processor,embedded")
    ap.add_argument("--scale", action="store_true", help="1x/2x/4x curve on trace_processor")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each whole-run measurement (best is kept)")
    a = ap.parse_args()
    if tp_binary():  # run_bench's children read it from the environment
        os.environ["ARTSCOPE_TP_BIN"] = tp_binary()
    path = str(gen_trace.ensure(a.seconds, a.switches, encodings=("compact",))["compact"])
    engines = [e for e in a.engines.split(",") if e != "trace_processor" or tp_binary()]
    results = {e: run_child("metrics", path, e) for e in engines}
    names = sorted(next(iter(results.values()))["metrics"])
    print(f"trace: {Path(path).name}")
    print("| metric file | " + " | ".join(f"{e} wall / CPU" for e in engines) + " |")
    print("|---|" + "---|" * len(engines))
    for n in names:
        print(f"| {n}.sql | " + " | ".join(
            "{:.3f} / {:.3f} s".format(*results[e]["metrics"][n][:2]) for e in engines) + " |")
    for e in engines:
        r = results[e]
        print(f"{e}: load {r['load_s']:.2f} s, select {r['select_s']:.2f} s, "
              f"metrics {sum(v[0] for v in r['metrics'].values()):.2f} s")
    if "trace_processor" in engines:
        load, an, pkg = interleaved_ratio(path, a.repeat)
        print(f"trace_processor_shell load: {load:.2f} s; artscope analyze --engine "
              f"trace_processor: {an:.2f} s ({an / load:.2f}x); SQL package in the shell, load + "
              f"analyze's functions: {pkg:.2f} s ({pkg / load:.2f}x)")
    if a.scale and tp_binary():
        print("| size | switches | tp load | analyze (tp) | ratio | analyze / 1x |")
        print("|---|---|---|---|---|---|")
        base = None
        for k in (1, 2, 4):
            p = str(gen_trace.ensure(a.seconds * k, a.switches * k, encodings=("compact",))["compact"])
            load, an, _ = interleaved_ratio(p, a.repeat, package=False)
            base = base or an
            print(f"| {k}x | {a.switches * k:,} | {load:.2f} s | {an:.2f} s | "
                  f"{an / load:.2f}x | {an / base:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
