"""Study benchmark: how long `lbo` / `noise` take beyond the analysis itself,
and a whole study from traces.

    python3 bench/bench_study.py              # synthetic 10,000-run study + 50 traces
    python3 bench/bench_study.py --runs 2000  # a smaller synthetic study
    python3 bench/bench_study.py --traces 5040 --jobs 2   # a study from 5,040 traces

1. Synthetic saved analyze output (Parquet): B benchmarks x 4 configs x 5 heap
   multiples x 10 invocations named as running-ng names its results, costs
   drawn from a seeded generator, with every column the study's checks read
   (``--no-checks``: only cost columns); measures reading + labelling +
   compute_lbo with every check and table, responsiveness and
   diagnose_noise (the study math alone).
2. The 50 traces of fixtures/study_sets.py (clean + flagged + noisy_memfreq),
   `artscope lbo` end to end with --jobs 1 and --jobs 2 (analysis dominates).
3. ``--traces N``: ISMM'24's design at about N traces -- 10 benchmarks x 4
   collectors x 9 heap multiples x N/360 invocations -- of small generated
   runs (fixtures/study_sets.py's StudyRun: one benchmark window, a GC
   slice, costs drawn from a seeded generator; cached under bench/out/),
   then `artscope lbo DIR --name-pattern running-ng -o RESULTS/` with
   ``--jobs``: wall and CPU time (the command and its workers) and peak
   RSS (the command; its largest worker). Then the same study into a new
   dataset, interrupted (SIGINT, as Ctrl-C) once about half the traces are
   in, and rerun: the traces the interrupted run finished (its index
   lines) against the traces the rerun analysed (its summary line).

Not part of the test run; numbers go to docs/studies.md "Cost" and
bench/README.md.
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


#: ISMM'24's design: benchmarks x collectors x heap multiples (x invocations).
STUDY_CONFIGS = ("cmc", "cc", "ss", "gss")
STUDY_XS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0)
STUDY_BENCHMARKS = 10


def study_traces(n: int, log=print) -> Path:
    """A folder of about ``n`` small study traces named as running-ng names
    its results (generated once, cached under bench/out/)."""
    import study_sets

    invocations = max(1, round(n / (STUDY_BENCHMARKS * len(STUDY_CONFIGS) * len(STUDY_XS))))
    total = STUDY_BENCHMARKS * len(STUDY_CONFIGS) * len(STUDY_XS) * invocations
    folder = REPO / "bench" / "out" / f"study-v1-{total}"
    if (folder / ".done").exists():
        return folder
    rng = random.Random(48)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for b in range(STUDY_BENCHMARKS):
        base = rng.uniform(80, 200)  # distilled (mutator) ms
        for c in STUDY_CONFIGS:
            share = rng.uniform(0.1, 0.4)
            for x in STUDY_XS:
                for i in range(invocations):
                    run = study_sets.StudyRun(f"bm{b}", c, x, i,
                                              mutator_ms=round(base * rng.gauss(1, 0.01), 3),
                                              gc_ms=round(base * share / x * rng.gauss(1, 0.05), 3))
                    (folder / run.file_name).write_bytes(study_sets.trace_bytes(run))
    (folder / ".done").write_text("")
    log(f"generated {total} study traces in {time.perf_counter() - t0:.1f} s")
    return folder


def run_lbo(folder: Path, results: Path, jobs: int, interrupt_at: int | None = None) -> dict:
    """`artscope lbo FOLDER ... -o RESULTS/` in a child process: wall time,
    CPU time and peak RSS of the command and its workers, its stderr; with
    ``interrupt_at``, SIGINT once that many traces are in the index."""
    import resource
    import signal

    cmd = [sys.executable, "-m", "artscope.cli", "lbo", str(folder), "--app",
           "com.example.bench", "--cpus", "6,7", "--name-pattern", "running-ng",
           "--engine", "embedded", "--jobs", str(jobs), "--format", "csv",
           "-o", f"{results}/"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "pyanalysis")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        # (its own session: the interrupt reaches the command and its
        # workers, as Ctrl-C reaches a terminal's foreground group)
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, start_new_session=True)
        if interrupt_at is not None:
            while proc.poll() is None and _index_lines(results) < interrupt_at:
                time.sleep(0.2)
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait()
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        err.seek(0)
        out.seek(0)
        stderr, stdout = err.read().decode(), out.read().decode()
    return {"wall": wall, "returncode": proc.returncode,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            # (the largest of the command and its workers, in MB)
            "max_rss_mb": after.ru_maxrss / 1024, "stderr": stderr, "stdout": stdout}


def _index_lines(results: Path) -> int:
    """Finished traces in a results dataset's index (one line each)."""
    try:
        return sum(1 for line in (results / "_index.jsonl").open() if line.strip())
    except FileNotFoundError:
        return 0


def study_from_traces(n: int, jobs: int) -> None:
    """The study of about ``n`` traces end to end, then interrupted and resumed."""
    import shutil

    folder = study_traces(n)
    total = sum(1 for _ in folder.glob("*.pftrace"))
    print(f"machine load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        r = run_lbo(folder, results, jobs)
        rows = max(0, r["stdout"].count("\n") - 1)
        print(f"artscope lbo, {total} traces, --jobs {jobs}, into a results dataset: "
              f"{r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU, peak RSS {r['max_rss_mb']:.0f} MB "
              f"(largest process), {rows} lbo rows, exit {r['returncode']}")
        last = [x for x in r["stderr"].splitlines() if "reused" in x]
        print(f"  {last[-1] if last else r['stderr'][-300:]}")
        r = run_lbo(folder, results, jobs)
        print(f"rerun on the finished dataset: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU")
        print(f"  {[x for x in r['stderr'].splitlines() if 'reused' in x][-1:]}")
        shutil.rmtree(results)
        r = run_lbo(folder, results, jobs, interrupt_at=total // 2)
        done = _index_lines(results)
        print(f"interrupted (SIGINT) after {r['wall']:.1f} s: exit {r['returncode']}, "
              f"{done} traces finished (index lines)")
        r = run_lbo(folder, results, jobs)
        print(f"resumed: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU, exit {r['returncode']}")
        print(f"  {[x for x in r['stderr'].splitlines() if 'reused' in x][-1:]} "
              f"(expected {total - done} analysed, {done} reused)")


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
    ap.add_argument("--traces", type=int, metavar="N",
                    help="only the study from about N generated traces, interrupted and resumed")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs of the study from traces")
    args = ap.parse_args()
    if args.traces:
        study_from_traces(args.traces, args.jobs)
        return 0
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
                                         env={**os.environ, **env_path}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
