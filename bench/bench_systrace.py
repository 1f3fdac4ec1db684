"""Benchmark the systrace text import on a synthetic ~30 MB ftrace text.

    python3 bench/bench_systrace.py [--mb 30]

Times (wall and CPU) the compiled core's import (decode + replay, then the
tables as the embedded engine gets them) and a first query, in one process.

Writes nothing to the repository; the synthetic trace lives in memory. The
mix resembles a real Android systrace: ~45% sched_switch, ~20% sched_waking,
~15% atrace (B/E/C), ~10% cpu_idle, ~5% cpu_frequency, ~5% ignored events.
"""

from __future__ import annotations

import argparse
import random
import time


def synth(target_bytes: int, seed: int = 1) -> bytes:
    rnd = random.Random(seed)
    tasks = [(f"Thread-{i}", 1000 + i, 900 + i // 8) for i in range(200)]
    tasks += [("RenderThread", 5000, 4990), ("HeapTaskDaemon", 5001, 4990),
              ("kworker/u16:1", 77, 77), ("surface flinger", 600, 600),
              ("<...>", 7952, 7952)]
    out = [
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:8\n#\n"
        "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
        "#              | |        |      |   ||||       |         |\n"
    ]
    size = len(out[0])
    ts_us = 538_000_000
    cur = {cpu: tasks[cpu] for cpu in range(8)}
    depth: dict[int, int] = {}
    while size < target_bytes:
        parts = []
        for _ in range(2000):
            ts_us += rnd.randint(1, 40)
            cpu = rnd.randrange(8)
            name, pid, tgid = cur[cpu]
            head = f"{name:>16}-{pid:<5} ({tgid:>5}) [{cpu:03d}] d..3 {ts_us // 1_000_000:5d}.{ts_us % 1_000_000:06d}: "
            r = rnd.random()
            if r < 0.45:
                nxt = rnd.choice(tasks)
                st = rnd.choice(("S", "R", "R+", "D", "D|K"))
                line = (f"sched_switch: prev_comm={name} prev_pid={pid} prev_prio=120 "
                        f"prev_state={st} ==> next_comm={nxt[0]} next_pid={nxt[1]} next_prio=120")
                cur[cpu] = nxt
            elif r < 0.65:
                w = rnd.choice(tasks)
                line = f"sched_waking: comm={w[0]} pid={w[1]} prio=120 target_cpu={rnd.randrange(8):03d}"
            elif r < 0.80:
                d = depth.get(pid, 0)
                if d and rnd.random() < 0.5:
                    line = f"tracing_mark_write: E|{tgid}"
                    depth[pid] = d - 1
                elif rnd.random() < 0.2:
                    line = f"tracing_mark_write: C|{tgid}|Heap size (KB)|{rnd.randint(1000, 9000)}"
                else:
                    line = f"tracing_mark_write: B|{tgid}|Choreographer#doFrame {ts_us}"
                    depth[pid] = d + 1
            elif r < 0.90:
                line = f"cpu_idle: state={rnd.choice((0, 1, 4294967295))} cpu_id={cpu}"
            elif r < 0.95:
                line = f"cpu_frequency: state={rnd.choice((300000, 1200000, 2400000))} cpu_id={cpu}"
            else:
                line = f"sched_wakeup: comm={name} pid={pid} prio=120 target_cpu=00{cpu}"
            parts.append(head + line + "\n")
        chunk = "".join(parts)
        out.append(chunk)
        size += len(chunk)
    return "".join(out).encode()


def _cpu() -> float:
    return time.process_time()


def bench_core(data: bytes) -> None:
    """The compiled core: detection, decoding and replay, then the whole load
    as the embedded engine does it (+ the tables as a core session)."""
    from artscope.engines.embedded import core

    w0, c0 = time.perf_counter(), _cpu()
    imported = core._core.import_trace(data, "<bench>", False)
    w1, c1 = time.perf_counter(), _cpu()
    print(f"core decode + replay: {w1 - w0:.2f} s wall, {c1 - c0:.2f} s CPU "
          f"({len(data) / 1e6 / (w1 - w0):.1f} MB/s, {imported.events} events)")
    del imported
    w1, c1 = time.perf_counter(), _cpu()
    session = core.open_trace(data, "<bench>")
    w2, c2 = time.perf_counter(), _cpu()
    print(f"core import (open_trace: + tables as a session): {w2 - w1:.2f} s wall, "
          f"{c2 - c1:.2f} s CPU")
    n = session.store.frame("SELECT count(*) AS n FROM thread_state")["n"][0]
    w3, c3 = time.perf_counter(), _cpu()
    print(f"  first query (thread_state, {n} rows): {w3 - w2:.2f} s wall, {c3 - c2:.2f} s CPU")
    for w in session.warnings:
        print("  warning:", w)
    session.store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=30.0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    data = synth(int(a.mb * 1e6))
    t1 = time.perf_counter()
    n_lines = data.count(b"\n")
    print(f"synthesised {len(data) / 1e6:.1f} MB, {n_lines} lines in {t1 - t0:.1f} s")
    bench_core(data)


if __name__ == "__main__":
    main()
