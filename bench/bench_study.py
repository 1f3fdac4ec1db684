"""Study benchmark: how long `lbo` / `noise` take beyond the analysis itself.

    python3 bench/bench_study.py              # synthetic 10,000-run study + 50 traces
    python3 bench/bench_study.py --runs 2000  # a smaller synthetic study

1. Synthetic saved analyze output (Parquet): B benchmarks x 4 configs x 5 heap
   multiples x 10 invocations named as running-ng names its results, costs
   drawn from a seeded generator, with every column the study's checks read
   (``--no-checks``: only cost columns); measures reading + labelling +
   compute_lbo with every check and table, responsiveness and
   diagnose_noise (the study math alone).
2. The 50 traces of fixtures/study_sets.py (clean + flagged + noisy_memfreq),
   `artscope lbo` end to end with --jobs 1 and --jobs 2 (analysis dominates).

Not part of the test run; numbers go to docs/studies.md "Cost".
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


def synthetic(n_runs: int, path: Path, checks: bool = True) -> None:
    """B benchmarks x 4 configs x 5 heap multiples x 10 invocations, named as
    running-ng names its results; with ``checks``, every column the study's
    checks and tables read: frequency levels (a tenth of the runs at another
    memory level), start times (benchmark by benchmark), heap peaks, run
    validity, frames."""
    import json

    import polars as pl

    rng = random.Random(12)
    configs, xs, invs = ("cmc", "cc", "ss", "gss"), (1.5, 2.0, 3.0, 4.0, 6.0), 10
    n_bm = max(1, n_runs // (len(configs) * len(xs) * invs))
    cpus = json.dumps([{"cpus": [6, 7], "unit": "kHz", "dominant": 2400000.0, "stable": True,
                        "highest": 2850000.0, "at_max": False}])
    rows = []
    t = 0
    for b in range(n_bm):
        base = rng.uniform(50e6, 500e6)
        for c in configs:
            for x in xs:
                gc = base * rng.uniform(0.05, 0.4) / x
                for i in range(invs):
                    mut = base * rng.gauss(1.0, 0.01)
                    row = {"trace": f"bm{b}.{int(x * 1000)}.512.{c}.android-apps.{i}.pftrace",
                           "run": 0, "gc_app_cpu_ns": int(mut + gc), "gc_gc_cpu_ns": int(gc),
                           "health_verdict": "pass", "pinning_migrations": rng.randint(0, 3),
                           "memfreq_transitions": rng.choice([0, 0, 0, 2]), "gc_gc_count": 1}
                    if checks:
                        mif = 3172000.0 if rng.random() > 0.1 else 2730000.0
                        t += 60 * 10**9
                        row.update(
                            cond_clusters=cpus,
                            cond_memory=json.dumps([{"device": "17000010.devfreq_mif",
                                                     "source": "clock", "unit": "Hz",
                                                     "dominant": mif, "stable": True,
                                                     "highest": 3172000.0,
                                                     "at_max": mif == 3172000.0}]),
                            cond_device_model="cheetah", cond_started_at_unix_ns=t,
                            heap_peak_kb=rng.uniform(100_000, 500_000),
                            heap_allocated_kb=rng.uniform(1e6, 2e6),
                            validity_cold_start=True, validity_first_run_of_process=True,
                            validity_app_died=rng.random() < 0.01,
                            validity_jit_cpu_share=rng.uniform(0, 0.05),
                            jank_frames=rng.randint(1000, 1100),
                            jank_janky_pct=rng.uniform(1, 10),
                            **{f"jank_frame_dur_ms_p{p}": rng.uniform(5, 30)
                               for p in (50, 90, 95, 99)})
                        if row["validity_app_died"]:
                            row.update(validity_died_how="out_of_memory_error",
                                       validity_died_detail="thread 1 threw OutOfMemoryError")
                    rows.append(row)
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
    ap.add_argument("--no-checks", action="store_true",
                    help="only the columns LBO and noise read (no levels, times, validity)")
    args = ap.parse_args()
    from artscope.studies import Labels, Study, apply_labels, load_runs

    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "runs.parquet"
        synthetic(args.runs, saved, checks=not args.no_checks)
        holder = {}

        def study() -> None:
            runs = apply_labels(load_runs([saved]), Labels(name_pattern="running-ng"))
            holder["st"] = Study(runs)
            holder["st"].lbo()

        timed(f"synthetic {args.runs} runs: read + label + LBO with every check", study)
        timed(f"synthetic {args.runs} runs: responsiveness",
              lambda: holder["st"].responsiveness())
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
                   "running-ng", "--engine", "embedded", "--jobs", str(jobs),
                   "--format", "json", "-o", str(Path(tmp) / "lbo.json")]
            env_path = {"PYTHONPATH": str(REPO / "pyanalysis")}
            timed(f"artscope lbo, 50 traces, --jobs {jobs}",
                  lambda: subprocess.run(cmd, check=True, capture_output=True,
                                         env={**__import__("os").environ, **env_path}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
