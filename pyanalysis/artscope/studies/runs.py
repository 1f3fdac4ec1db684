"""A study's runs: traces (analysed here) and/or saved analyze output, as one
flat polars frame -- one row per run, the columns ``artscope analyze --format
csv`` writes.

:func:`load_runs` is the single entry point every study command goes
through, so new input kinds (e.g. a results dataset directory) plug in here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

import polars as pl

from artscope.errors import TraceError, UsageError
from artscope.metrics.options import AnalysisOptions

if TYPE_CHECKING:
    from artscope.results import DatasetRun

#: Files read as saved ``artscope analyze --format json|csv|parquet`` output.
ANALYZE_OUTPUT_SUFFIXES = (".json", ".csv", ".parquet")


def is_analyze_output(path: str) -> bool:
    """Saved analyze output: a .json/.csv/.parquet file or a results dataset
    directory (``-o DIR/``)."""
    from artscope.results import is_results_dir

    return ((path.lower().endswith(ANALYZE_OUTPUT_SUFFIXES) and os.path.isfile(path))
            or is_results_dir(path))


def read_analyze_output(path: str) -> pl.DataFrame:
    """One saved analyze output file -> flat per-run rows."""
    from artscope.flatschema import flat_frame, flatten

    try:
        if os.path.isdir(path):
            from artscope.results import load_results

            df = load_results(path)
        elif path.lower().endswith(".json"):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
                raise UsageError(f"{path} is not artscope analyze JSON output (expected an array of runs)")
            df = flat_frame([flatten(r) for r in data])
        elif path.lower().endswith(".csv"):
            df = pl.read_csv(path, infer_schema_length=None)
        else:
            df = pl.read_parquet(path)
    except UsageError:
        raise
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UsageError(f"cannot read analyze output {path}: {first}") from None
    if df.is_empty() or "trace" not in df.columns:
        raise UsageError(f"{path} is not artscope analyze output (no runs with a 'trace' column)")
    return df


def load_runs(inputs: Iterable[str | Path], opts: AnalysisOptions | None = None, *,
              engine: str = "auto", tp_bin: str | None = None, jobs: int | None = None,
              progress: Callable[[int, int], None] | None = None,
              cluster: str | None = None, output: str | None = None,
              resume: bool = True,
              on_dataset: Callable[[DatasetRun], None] | None = None) -> pl.DataFrame:
    """Every run of ``inputs`` as one flat frame (one row per run).

    ``inputs`` are trace files, directories or globs (analysed with ``opts``
    in ``jobs`` processes or on a Dask ``cluster``, as ``artscope analyze``
    does; kept in the results dataset ``output`` when given, which a rerun
    resumes, ``on_dataset`` receiving what that run did) and saved analyze
    output: ``.json``/``.csv``/``.parquet`` files and results dataset
    directories. A trace that cannot be analysed is a
    row with ``error`` set (the study reports it as excluded).
    """
    from artscope.batch import analyze_many, expand_paths
    from artscope.flatschema import flat_frame, flatten

    inputs = [str(p) for p in inputs]
    if not inputs:
        raise UsageError("no study inputs given")
    saved = [p for p in inputs if is_analyze_output(p)]
    traces = [p for p in inputs if p not in saved]
    frames = [read_analyze_output(p) for p in saved]
    if traces:
        if opts is None:
            raise UsageError("traces need the analysis selectors: name the app with --app NAME")
        paths = expand_paths(traces)
        if not paths:
            raise TraceError("no traces found in " + ", ".join(traces))
        if output is not None:
            from artscope.results import analyze_to_dataset

            run = analyze_to_dataset(output, paths, opts, engine=engine, tp_bin=tp_bin,
                                     jobs=jobs, cluster=cluster, resume=resume,
                                     progress=progress)
            if on_dataset:
                on_dataset(run)
            frames.append(run.frame())
        else:
            rows = analyze_many(paths, opts, engine=engine, tp_bin=tp_bin, jobs=jobs,
                                progress=progress, cluster=cluster)
            frames.append(flat_frame([flatten(r) for r in rows]))
    df = pl.concat(frames, how="diagonal_relaxed")
    if "error" not in df.columns:
        df = df.with_columns(error=pl.lit(None, pl.String))
    if "run" not in df.columns:
        df = df.with_columns(run=pl.lit(0, pl.Int64))
    df = df.with_columns(pl.col("run").fill_null(0))
    # The same run twice (a trace and its saved output, overlapping globs)
    # would silently weigh double in every mean.
    twice = df.filter(pl.struct("trace", "run").is_duplicated()).select("trace", "run").unique(
        maintain_order=True)
    if twice.height:
        names = [f"{os.path.basename(t)} run {r}" for t, r in twice.iter_rows()]
        raise UsageError(f"{twice.height} run(s) given more than once: " + ", ".join(names[:5])
                         + (f" and {len(names) - 5} more" if len(names) > 5 else ""))
    return df
