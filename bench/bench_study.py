"""Study benchmark: how long `lbo` / `noise` take beyond the analysis itself.

    python3 bench/bench_study.py              # synthetic 10,000-run study + 50 traces
    python3 bench/bench_study.py --runs 2000  # a smaller synthetic study

1. Synthetic saved analyze output (Parquet): B benchmarks x 4 configs x 5 heap
   multiples x 10 invocations, costs drawn from a seeded generator; measures
   reading + labelling + compute_lbo + diagnose_noise (the study math alone).
2. The 50 traces of fixtures/study_sets.py (clean + flagged + noisy_memfreq),
   `artscope lbo` end to end with --jobs 1 and --jobs 2 (analysis dominates).

Not part of the test run; numbers go to README "Studies".
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "pyanalysis"), str(REPO / "fixtures")]


def synthetic(n_runs: int, path: Path) -> None:
    import polars as pl

    rng = random.Random(12)
    configs, xs, invs = ("cmc", "cc", "ss", "gss"), (1.5, 2.0, 3.0, 4.0, 6.0), 10
    n_bm = max(1, n_runs // (len(configs) * len(xs) * invs))
    rows = []
    for b in range(n_bm):
        base = rng.uniform(50e6, 500e6)
        for c in configs:
            for x in xs:
                gc = base * rng.uniform(0.05, 0.4) / x
                for i in range(invs):
                    mut = base * rng.gauss(1.0, 0.01)
                    rows.append({"trace": f"bm{b}.{x:g}.512M.{c}.{i}.pftrace", "run": 0,
                                 "gc_app_cpu_ns": int(mut + gc), "gc_gc_cpu_ns": int(gc),
                                 "health_verdict": "pass", "pinning_migrations": rng.randint(0, 3),
                                 "memfreq_transitions": rng.choice([0, 0, 0, 2]),
                                 "gc_gc_count": 1})
    pl.DataFrame(rows).write_parquet(path)


def timed(label: str, fn) -> float:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    print(f"{label}: {dt:.2f} s")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--no-traces", action="store_true")
    args = ap.parse_args()
    from artscope.studies import Labels, Study, apply_labels, load_runs

    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "runs.parquet"
        synthetic(args.runs, saved)
        holder = {}

        def study() -> None:
            runs = apply_labels(load_runs([saved]), Labels(name_pattern="android-benchmark-runner"))
            holder["st"] = Study(runs)
            holder["st"].lbo()

        timed(f"synthetic {args.runs} runs: read + label + LBO", study)
        timed(f"synthetic {args.runs} runs: noise", lambda: holder["st"].noise("task_clock"))
        if args.no_traces:
            return 0
        import study_sets

        folder = Path(tmp) / "traces"
        for name in ("clean", "flagged", "noisy_memfreq"):
            study_sets.write_set(study_sets.SETS[name](), folder)
        for jobs in (1, 2):
            cmd = [sys.executable, "-m", "artscope.cli", "lbo", str(folder), "--app",
                   "com.example.bench", "--cpus", "6,7", "--name-pattern",
                   "android-benchmark-runner", "--engine", "embedded", "--jobs", str(jobs),
                   "--format", "json", "-o", str(Path(tmp) / "lbo.json")]
            env_path = {"PYTHONPATH": str(REPO / "pyanalysis")}
            timed(f"artscope lbo, 50 traces, --jobs {jobs}",
                  lambda: subprocess.run(cmd, check=True, capture_output=True,
                                         env={**__import__("os").environ, **env_path}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
