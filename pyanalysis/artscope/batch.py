"""Many traces, in parallel: expand paths, analyse each in a worker, collect.

One bad trace becomes a row with ``error`` set; it never stops the batch.
"""

from __future__ import annotations

import concurrent.futures as cf
import glob
import multiprocessing
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from artscope.errors import ArtscopeError, TraceError
from artscope.metrics.options import AnalysisOptions

#: File endings picked up when a directory is given.
TRACE_SUFFIXES = (".pftrace", ".perfetto-trace", ".perfetto", ".trace", ".pb",
                  ".gz", ".zip", ".html", ".htm", ".ctrace", ".txt", ".systrace")


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files as given, directories (recursively, by TRACE_SUFFIXES) and globs."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob("*")
                           if f.is_file() and not f.name.startswith(".")
                           and f.name.lower().endswith(TRACE_SUFFIXES))
            if not found:
                raise TraceError(f"no trace files in directory: {p}")
            out += found
        elif any(ch in p for ch in "*?[") and not os.path.exists(p):
            found = sorted(glob.glob(p, recursive=True))
            if not found:
                raise TraceError(f"no files match: {p}")
            out += found
        else:
            out.append(p)
    return out


def analyze_one(path: str, opts: AnalysisOptions, engine: str = "auto",
                tp_bin: str | None = None) -> list[dict[str, Any]]:
    """Results of every run of one trace, or one error row."""
    from artscope.engines import load_trace
    from artscope.metrics.analysis import analyze_engine

    try:
        eng = load_trace(path, engine=engine, tp_bin=tp_bin)
    except ArtscopeError as e:
        return [{"trace": path, "error": str(e)}]
    except Exception as e:  # noqa: BLE001 - one odd trace must not stop a batch
        if os.environ.get("ARTSCOPE_DEBUG"):
            raise
        return [{"trace": path, "error": _internal(e)}]
    try:
        return analyze_engine(eng, opts, path).results
    except ArtscopeError as e:
        return [{"trace": path, "engine": eng.name, "error": str(e)}]
    except Exception as e:  # noqa: BLE001
        if os.environ.get("ARTSCOPE_DEBUG"):
            raise
        return [{"trace": path, "engine": eng.name, "error": _internal(e)}]
    finally:
        eng.close()


def _internal(e: Exception) -> str:
    first = str(e).splitlines()[0] if str(e) else ""
    return (f"internal error ({type(e).__name__}: {first}); "
            "rerun with ARTSCOPE_DEBUG=1 for the traceback and report it")


def analyze_many(paths: list[str], opts: AnalysisOptions, engine: str = "auto",
                 tp_bin: str | None = None, jobs: int | None = None,
                 progress: Callable[[int, int], None] | None = None
                 ) -> list[dict[str, Any]]:
    """Analyse ``paths`` with ``jobs`` worker processes (default: all cores).

    Results keep the order of ``paths``; ``progress(done, total)`` is called
    as traces finish.
    """
    jobs = jobs or os.cpu_count() or 1
    total = len(paths)
    results: list[list[dict[str, Any]] | None] = [None] * total
    if jobs == 1 or total == 1:
        for i, p in enumerate(paths):
            results[i] = analyze_one(p, opts, engine, tp_bin)
            if progress:
                progress(i + 1, total)
    else:
        # spawn, not fork: polars' thread pool does not survive a fork.
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=min(jobs, total), mp_context=ctx) as pool:
            futs = {pool.submit(analyze_one, p, opts, engine, tp_bin): i
                    for i, p in enumerate(paths)}
            done = 0
            for fut in cf.as_completed(futs):
                i = futs[fut]
                try:
                    results[i] = fut.result()
                except Exception as e:  # a worker crash must not stop the batch
                    results[i] = [{"trace": paths[i], "error": _internal(e)}]
                done += 1
                if progress:
                    progress(done, total)
    return [row for rs in results for row in (rs or [])]
