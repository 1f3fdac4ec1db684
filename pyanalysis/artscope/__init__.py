"""artscope: trustworthy per-run numbers from Perfetto traces of Android benchmarks.

    import artscope
    runs = artscope.open("run.pftrace", app="com.example.bench", cpus="big")
    runs.gc(); runs.pinning(); runs.health(); runs.plot_timeline()

    df = artscope.analyze(["traces/"], app="com.example.bench", cpus="6,7")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import polars as pl

from artscope.errors import (ArtscopeError, EngineUnavailable, SelectionError,
                             TraceError, UsageError)
from artscope.metrics.options import AnalysisOptions, HealthThresholds
from artscope.runset import RunSet

__version__ = "0.1.0"


def open(path: str | Path, app: str | None = None, *, pid: int | None = None,  # noqa: A001
         cpus: str | None = None, marker: str | None = None,
         engine: str = "auto", tp_bin: str | None = None, **options: Any) -> RunSet:
    """Load one trace and compute every metric of every run.

    ``options`` are the other AnalysisOptions fields (gc_cpus, window,
    gc_threads, gc_patterns, pin_grace_ns, frame_deadline_ns, mem_device,
    thresholds).
    """
    from artscope.engines import load_trace
    from artscope.metrics.analysis import analyze_engine

    opts = AnalysisOptions(app=app, pid=pid, cpus=cpus, marker=marker, **options)
    eng = load_trace(path, engine=engine, tp_bin=tp_bin)
    try:
        return RunSet(analyze_engine(eng, opts, str(path)), eng)
    except BaseException:
        eng.close()
        raise


def analyze(paths: str | Path | Iterable[str | Path], app: str | None = None, *,
            pid: int | None = None, cpus: str | None = None, marker: str | None = None,
            engine: str = "auto", tp_bin: str | None = None, jobs: int | None = None,
            **options: Any) -> pl.DataFrame:
    """Analyse many traces (files, directories, globs) in parallel.

    Returns the flat per-run DataFrame (one row per run; an ``error`` column
    names traces that could not be analysed).
    """
    from artscope.batch import analyze_many, expand_paths
    from artscope.runset import flat_frame, flatten

    if isinstance(paths, (str, Path)):
        paths = [paths]
    opts = AnalysisOptions(app=app, pid=pid, cpus=cpus, marker=marker, **options)
    rows = analyze_many(expand_paths([str(p) for p in paths]), opts, engine=engine,
                        tp_bin=tp_bin, jobs=jobs)
    return flat_frame([flatten(r) for r in rows])


__all__ = ["open", "analyze", "RunSet", "AnalysisOptions", "HealthThresholds",
           "ArtscopeError", "TraceError", "SelectionError", "UsageError",
           "EngineUnavailable"]
