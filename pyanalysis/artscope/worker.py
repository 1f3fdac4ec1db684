"""What every batch backend runs per trace (the process pool in
artscope.batch and the Dask backend in artscope.cluster): fetch, hash,
analyse, and turn any failure into an error row.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from artscope import sources
from artscope.errors import ArtscopeError
from artscope.metrics.options import AnalysisOptions


@dataclasses.dataclass(frozen=True)
class TraceResult:
    """What analysing one trace gives back to the batch."""

    trace: str
    #: every run's result dict, or one error row
    rows: list[dict[str, Any]]
    #: sha256 of the trace's bytes; None when they could not be read
    content_hash: str | None


def analyze_trace(trace: str, opts: AnalysisOptions, engine: str = "auto",
                  tp_bin: str | None = None, *, concurrent_queries: bool = True) -> TraceResult:
    """The per-trace function of every backend: fetch (paths and fsspec URLs),
    hash, analyse. Never raises for a bad trace: that is an error row.
    ``concurrent_queries``: off where other traces keep every core busy
    (see Engine.concurrent_queries)."""
    try:
        with sources.fetched(trace) as (local, digest):
            rows = analyze_one(local, opts, engine, tp_bin, label=trace,
                               concurrent_queries=concurrent_queries)
    except ArtscopeError as e:
        return TraceResult(trace, [{"trace": trace, "error": str(e)}], None)
    return TraceResult(trace, rows, digest)


def analyze_one(path: str, opts: AnalysisOptions, engine: str = "auto",
                tp_bin: str | None = None, label: str | None = None, *,
                concurrent_queries: bool = True) -> list[dict[str, Any]]:
    """Results of every run of one local trace file, or one error row.

    ``label`` is the name rows carry in ``trace`` (default: ``path``).
    """
    from artscope.engines import load_trace
    from artscope.metrics.analysis import analyze_engine

    label = path if label is None else label
    try:
        eng = load_trace(path, engine=engine, tp_bin=tp_bin)
    except ArtscopeError as e:
        return [{"trace": label, "error": str(e)}]
    except Exception as e:  # noqa: BLE001 - one odd trace must not stop a batch
        if os.environ.get("ARTSCOPE_DEBUG"):
            raise
        return [{"trace": label, "error": internal_error(e)}]
    eng.concurrent_queries = concurrent_queries
    try:
        return analyze_engine(eng, opts, label).results
    except ArtscopeError as e:
        return [{"trace": label, "engine": eng.name, "error": str(e)}]
    except Exception as e:  # noqa: BLE001
        if os.environ.get("ARTSCOPE_DEBUG"):
            raise
        return [{"trace": label, "engine": eng.name, "error": internal_error(e)}]
    finally:
        eng.close()


def internal_error(e: Exception) -> str:
    """An unexpected exception as one line for an error row."""
    first = str(e).splitlines()[0] if str(e) else ""
    return (f"internal error ({type(e).__name__}: {first}); "
            "rerun with ARTSCOPE_DEBUG=1 for the traceback and report it")
