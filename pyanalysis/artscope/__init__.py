"""artscope: trustworthy per-run numbers from Perfetto traces of Android benchmarks.

    import artscope
    runs = artscope.open("run.pftrace", app="com.example.bench", cpus="big")
    runs.gc(); runs.pinning(); runs.health(); runs.plot_timeline()

    df = artscope.analyze(["traces/"], app="com.example.bench", cpus="6,7")
    artscope.apps("run.pftrace")  # which process is the benchmark? best first

    st = artscope.study("traces/", app="com.example.bench", cpus="6,7",
                        name_pattern="running-ng")
    st.lbo(); st.at(2.0); st.noise("task_clock").groups
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import polars as pl

from artscope.errors import (ArtscopeError, EngineUnavailable, SelectionError,
                             TraceError, UsageError)
from artscope.metrics.options import AnalysisOptions, HealthThresholds
from artscope.runset import RunSet

# (imported eagerly: the function `artscope.apps` stands where the module's
# name would otherwise be bound)
from artscope.apps import apps  # noqa: E402

if TYPE_CHECKING:
    from artscope.studies import Labels, Study

from artscope._version import __version__  # noqa: E402,F401


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
            cluster: str | None = None, output: str | Path | None = None,
            resume: bool = True, **options: Any) -> pl.DataFrame:
    """Analyse many traces (files, directories, globs, fsspec URLs) in parallel.

    Returns the flat per-run DataFrame (one row per run; an ``error`` column
    names traces that could not be analysed). ``cluster`` runs the batch on a
    Dask cluster (``"tcp://HOST:8786"`` or ``"local:N"``); ``output`` keeps
    the results in a resumable Parquet dataset directory (see
    ``load_results``), reusing finished traces unless ``resume=False``.
    """
    from artscope.batch import analyze_many, expand_paths
    from artscope.flatschema import flat_frame, flatten

    if isinstance(paths, (str, Path)):
        paths = [paths]
    opts = AnalysisOptions(app=app, pid=pid, cpus=cpus, marker=marker, **options)
    traces = expand_paths([str(p) for p in paths])
    if output is not None:
        from artscope.results import analyze_to_dataset, load_results

        analyze_to_dataset(str(output), traces, opts, engine=engine, tp_bin=tp_bin,
                           jobs=jobs, cluster=cluster, resume=resume)
        return load_results(output)
    rows = analyze_many(traces, opts, engine=engine, tp_bin=tp_bin, jobs=jobs, cluster=cluster)
    return flat_frame([flatten(r) for r in rows])


def load_results(directory: str | Path) -> pl.DataFrame:
    """The per-run rows of a results dataset written with ``-o DIR/`` (or
    ``analyze(..., output=DIR)``): exactly the DataFrame a single run gives."""
    from artscope.results import load_results as _load

    return _load(directory)


def study(inputs: str | Path | Iterable[str | Path], app: str | None = None, *,
          meta: str | Path | None = None, name_pattern: str | None = None,
          labels: "Labels | None" = None, pid: int | None = None, cpus: str | None = None,
          marker: str | None = None, engine: str = "auto", tp_bin: str | None = None,
          jobs: int | None = None, study_options: "StudyOptions | None" = None,
          **options: Any) -> "Study":
    """A study over many runs: traces (analysed in parallel with the same
    options as :func:`analyze`) and/or saved analyze output (.json/.csv/.parquet).

    Label the runs with ``meta`` (CSV with a ``trace`` column), ``name_pattern``
    (a preset, ``"running-ng"``, or a pattern such as
    ``"{benchmark}.{x}.{heap}.{config}.{invocation}"``) or an explicit
    :class:`Labels`. Which runs and benchmarks count: ``study_options`` or
    its fields as keywords (``cost``, ``ci_level``, ``drop_warmup``,
    ``exclude_benchmarks``, ``drop_flagged``, ``include_unhealthy``,
    ``exclude_drifted``, ``noisy_ci_pct``: :class:`StudyOptions`); other
    keywords are analysis options. Returns a :class:`Study` whose methods
    return polars frames (``lbo()``, ``at(x)``, ``flags()``, ``excluded()``,
    ``failures()``, ``warnings()``, ``sweeps()``, ``conditions()``,
    ``responsiveness()``, ``noise(metric)``) and altair charts.
    """
    import dataclasses

    from artscope.studies import Labels, Study, StudyOptions, apply_labels, load_runs

    if isinstance(inputs, (str, Path)):
        inputs = [inputs]
    if labels is None:
        labels = Labels(meta=meta, name_pattern=name_pattern)
    fields = {f.name for f in dataclasses.fields(StudyOptions)}
    chosen = {k: options.pop(k) for k in list(options) if k in fields}
    if study_options is None:
        study_options = StudyOptions(**chosen)
    elif chosen:
        study_options = dataclasses.replace(study_options, **chosen)
    opts = (AnalysisOptions(app=app, pid=pid, cpus=cpus, marker=marker, **options)
            if app is not None or pid is not None else None)
    runs = load_runs(inputs, opts, engine=engine, tp_bin=tp_bin, jobs=jobs)
    return Study(apply_labels(runs, labels), study_options)


def __getattr__(name: str) -> Any:
    # What study() takes and returns, exported without importing the study
    # stack (scipy) until it is used.
    if name in ("Study", "Labels", "StudyOptions"):
        from artscope import studies

        return getattr(studies, name)
    raise AttributeError(f"module 'artscope' has no attribute {name!r}")


__all__ = ["open", "analyze", "apps", "load_results", "study", "RunSet", "Study", "Labels",
           "StudyOptions", "AnalysisOptions", "HealthThresholds", "ArtscopeError",
           "TraceError", "SelectionError", "UsageError", "EngineUnavailable"]
