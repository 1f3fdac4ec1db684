"""Many traces, in parallel: expand paths, analyse each in a worker, collect.

One per-trace function, ``artscope.worker.analyze_trace``, runs on every
backend: inline (``jobs=1``), a local process pool (``jobs=N``) or a Dask
cluster (``cluster=ADDRESS``, artscope.cluster). One bad trace becomes a row
with ``error`` set; it never stops the batch.
"""

from __future__ import annotations

import concurrent.futures as cf
import glob
import multiprocessing
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from artscope import sources
from artscope.errors import TraceError
from artscope.metrics.options import AnalysisOptions
from artscope.worker import (TraceResult, analyze_one, analyze_trace,  # noqa: F401 - batch API
                             internal_error)

#: File endings picked up when a directory is given.
TRACE_SUFFIXES = (".pftrace", ".perfetto-trace", ".perfetto", ".trace", ".pb",
                  ".gz", ".zip", ".html", ".htm", ".ctrace", ".txt", ".systrace")


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files as given, directories (recursively, by TRACE_SUFFIXES) and globs;
    URLs (``file://``, ``s3://``...) likewise through fsspec."""
    out: list[str] = []
    for p in paths:
        if sources.is_url(p):
            out += sources.expand_url(p, TRACE_SUFFIXES)
        elif os.path.isdir(p):
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


def iter_results(traces: list[str], opts: AnalysisOptions, engine: str = "auto",
                 tp_bin: str | None = None, jobs: int | None = None,
                 cluster: str | None = None) -> Iterator[tuple[int, TraceResult]]:
    """``(position in traces, result)`` of every trace, as each finishes.

    ``cluster`` (a Dask scheduler address or ``local:N``) sends the work to
    Dask workers (artscope.cluster); otherwise ``jobs`` worker processes
    (default: all cores) run it here.
    """
    if cluster:
        from artscope.cluster import iter_cluster_results

        yield from iter_cluster_results(cluster, traces, opts, engine, tp_bin)
        return
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(traces) == 1:
        for i, t in enumerate(traces):
            yield i, analyze_trace(t, opts, engine, tp_bin)
        return
    # spawn, not fork: polars' thread pool does not survive a fork.
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(jobs, len(traces)), mp_context=ctx) as pool:
        # (the workers keep the cores busy: each runs its queries one at a time)
        futs = {pool.submit(analyze_trace, t, opts, engine, tp_bin, concurrent_queries=False): i
                for i, t in enumerate(traces)}
        try:
            for fut in cf.as_completed(futs):
                # (dropped once read: a finished future holds its result)
                i = futs.pop(fut)
                try:
                    res = fut.result()
                except Exception as e:  # a worker crash must not stop the batch
                    res = TraceResult(traces[i], [{"trace": traces[i], "error": internal_error(e)}],
                                      None)
                yield i, res
        finally:
            # The consumer stopped early (interrupt, error): do not start the rest.
            pool.shutdown(wait=True, cancel_futures=True)


def analyze_many(paths: list[str], opts: AnalysisOptions, engine: str = "auto",
                 tp_bin: str | None = None, jobs: int | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 cluster: str | None = None) -> list[dict[str, Any]]:
    """Analyse ``paths`` with ``jobs`` worker processes (default: all cores)
    or on a Dask ``cluster``.

    Results keep the order of ``paths``; ``progress(done, total)`` is called
    as traces finish.
    """
    total = len(paths)
    results: list[list[dict[str, Any]]] = [[] for _ in paths]
    for done, (i, res) in enumerate(iter_results(paths, opts, engine, tp_bin, jobs, cluster), 1):
        results[i] = res.rows
        if progress:
            progress(done, total)
    return [row for rs in results for row in rs]
