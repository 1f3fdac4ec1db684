"""The memory and start-up metric files on the 60 s bench trace, with and
without memory data, on both engines.

    python3 bench/bench_memory.py [--repeat 3]

The bench trace (gen_trace.py) records no memory events, so it times these
files' cost when there is nothing to find. The second trace is the same file
with memory data appended at a rate a busy phone reaches: rss_stat of the
app's main thread every 5 ms (12,000 events, 8,000 of them RSS parts), a 0.3
ms direct reclaim slice on it every 20 ms (3,000), an lmkd kill_one_process
kill every second (60) and a sys_stats vmstat poll every 100 ms (600). Each
file is timed in the engine after artscope's selection (app
com.example.bench, CPUs 6,7) binds the inputs; best of --repeat.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_trace  # noqa: E402
from bench_metrics import tp_binary  # noqa: E402
from run_bench import APP, CPUS, _cpu_s  # noqa: E402

FILES = ("direct_reclaim", "memory_pressure", "memory_kills", "memory_rss", "memory_vmstat",
         "startups")
APP_PID = 10000  # the bench app's pid and main thread (gen_trace.py)


def with_memory_data(src: Path) -> Path:
    """``src`` plus the memory events described above (cached beside it)."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    out = src.with_name(src.stem + "-memory.pftrace")
    if out.exists():
        return out
    t0 = 3_600_000_000_000  # gen_trace.py's first timestamp
    trace = pb.Trace()
    packet = trace.packet.add()
    packet.trusted_packet_sequence_id = 31
    bundle = packet.ftrace_events
    bundle.cpu = 0
    events = [(t0 + 1000 + i * 5_000_000, "rss", i) for i in range(12_000)]
    for i in range(3000):
        events += [(t0 + 2000 + i * 20_000_000, "begin", i),
                   (t0 + 2000 + i * 20_000_000 + 300_000, "end", i)]
    events += [(t0 + 3000 + i * 1_000_000_000, "kill", i) for i in range(60)]
    for ts, kind, i in sorted(events):
        e = bundle.event.add()
        e.timestamp = ts
        e.pid = APP_PID
        if kind == "rss":  # members 0 file, 1 anon, 2 swap
            e.rss_stat.member = i % 3
            e.rss_stat.size = (100_000 + i) * 1024
            e.rss_stat.curr = 1
            e.rss_stat.mm_id = 5
        elif kind == "begin":
            e.mm_vmscan_direct_reclaim_begin.order = 0
        elif kind == "end":
            e.mm_vmscan_direct_reclaim_end.nr_reclaimed = 10
        else:
            e.print.ip = 1
            e.print.buf = f"C|999|kill_one_process|{20_000 + i}\n"
    for i in range(600):
        poll = trace.packet.add()
        poll.timestamp = t0 + i * 100_000_000
        poll.trusted_packet_sequence_id = 32
        v = poll.sys_stats.vmstat.add()
        v.key = pb.VMSTAT_PGMAJFAULT
        v.value = 1000 + i * 7
    out.write_bytes(src.read_bytes() + trace.SerializeToString())
    return out


def time_files(path: Path, engine: str, repeat: int) -> dict[str, tuple[float, float, int]]:
    """{file: (best wall s, its CPU s, rows)} after the selection binds the inputs."""
    from artscope.engines import load_trace
    from artscope.metrics.options import AnalysisOptions
    from artscope.metrics.runner import MetricRunner
    from artscope.metrics.selection import select

    eng = load_trace(str(path), engine=engine, tp_bin=tp_binary())
    runner = MetricRunner(eng)
    select(runner, AnalysisOptions(app=APP, cpus=CPUS))
    best: dict[str, tuple[float, float, int]] = {}
    for _ in range(repeat):
        for name in FILES:
            w0, c0 = time.perf_counter(), _cpu_s()
            rows = runner.run(name).height
            wall, cpu = time.perf_counter() - w0, _cpu_s() - c0
            if name not in best or wall < best[name][0]:
                best[name] = (wall, cpu, rows)
    eng.close()
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if tp_binary():
        os.environ["ARTSCOPE_TP_BIN"] = tp_binary()
    base = gen_trace.ensure(60, 2_000_000, encodings=("compact",))["compact"]
    engines = ["trace_processor", "embedded"] if tp_binary() else ["embedded"]
    for path in (base, with_memory_data(base)):
        results = {e: time_files(path, e, a.repeat) for e in engines}
        print(f"trace: {path.name}")
        print("| metric file | rows | " + " | ".join(f"{e} wall / CPU" for e in engines) + " |")
        print("|---|---:|" + "---|" * len(engines))
        for n in FILES:
            rows = results[engines[0]][n][2]
            print(f"| {n}.sql | {rows:,} | " + " | ".join(
                "{:.3f} / {:.3f} s".format(*results[e][n][:2]) for e in engines) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
