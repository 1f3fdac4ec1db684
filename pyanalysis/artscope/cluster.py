"""The Dask distributed backend of a batch (``--cluster`` / ARTSCOPE_CLUSTER).

The same per-trace function as the local pool (batch.analyze_trace) runs on
the cluster's workers; results come back to the client as they finish.
Resilience is Dask's: the scheduler reruns the tasks of a worker that dies
on another worker (up to ``distributed.scheduler.allowed-failures`` times,
then the trace is an error row). A bad trace is an error row, as locally.

Dask is an optional extra (``pip install 'artscope[cluster]'``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import uuid
from typing import TYPE_CHECKING, Any, Iterator

from artscope.errors import ArtscopeError, UsageError
from artscope.metrics.options import AnalysisOptions

if TYPE_CHECKING:
    from artscope.worker import TraceResult

_LOCAL = re.compile(r"^local:(\d+)$")
#: How long to wait for a remote scheduler before giving up.
CONNECT_TIMEOUT = "20s"


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask distributed: pip install 'artscope[cluster]'") from None
    return distributed


def check_address(address: str) -> None:
    """Reject a malformed --cluster value before any work starts."""
    m = _LOCAL.match(address)
    if m:
        if int(m.group(1)) < 1:
            raise UsageError(f"bad --cluster {address!r}: local:N needs N >= 1 workers")
        return
    if re.fullmatch(r"local(:.*)?", address):
        raise UsageError(f"bad --cluster {address!r}: use local:N (N worker processes)")
    # Dask reads a bare HOST:PORT as tcp://HOST:PORT.
    if "://" not in address and not re.fullmatch(r"[\w.\-\[\]:]+:\d+", address):
        raise UsageError(f"bad --cluster {address!r}: use tcp://HOST:PORT or local:N")


@contextlib.contextmanager
def connect(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address``: a scheduler (``tcp://HOST:8786``)
    or ``local:N``, a LocalCluster of N single-threaded worker processes on
    loopback that lives as long as the client."""
    check_address(address)
    distributed = _distributed()
    quiet = logging.CRITICAL if not os.environ.get("ARTSCOPE_DEBUG") else logging.INFO
    m = _LOCAL.match(address)
    if m:
        # Analysis is CPU-bound Python: one thread per process, like --jobs.
        # No memory limit: the nanny would otherwise kill a worker that
        # analyses one large trace (an engine holds the whole trace).
        # The workers' statistical profiler samples the running task's stack
        # every 10 ms: measurable CPU on hours of pure-Python analysis, and
        # nobody reads it without a dashboard. (Nannies hand this config on.)
        import dask

        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = distributed.LocalCluster(
                n_workers=int(m.group(1)), threads_per_worker=1, processes=True,
                host="127.0.0.1", dashboard_address=None, memory_limit=0, silence_logs=quiet)
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    for name in ("distributed", "distributed.client"):
        logging.getLogger(name).setLevel(quiet)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ArtscopeError(f"cannot reach the Dask scheduler at {address}: {first}") from None
    with client:
        _check_workers(client, address)
        yield client


def _worker_version() -> str:
    from artscope._version import __version__

    return __version__


def _check_workers(client: Any, address: str) -> None:
    """Workers must run the same artscope (results are keyed by its version)."""
    from artscope._version import __version__

    try:
        versions = client.run(_worker_version)
    except Exception as e:  # noqa: BLE001 - e.g. artscope not installed on a worker
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ArtscopeError(f"workers of {address} cannot run artscope: {first}") from None
    if not versions:
        raise ArtscopeError(f"the Dask cluster at {address} has no workers")
    other = {v for v in versions.values() if v != __version__}
    if other:
        raise ArtscopeError(f"workers of {address} run artscope {', '.join(sorted(other))}, "
                            f"this client {__version__}: install the same version")


def iter_cluster_results(address: str, traces: list[str], opts: AnalysisOptions,
                         engine: str, tp_bin: str | None
                         ) -> Iterator[tuple[int, "TraceResult"]]:
    """``(position, result)`` of every trace as the cluster finishes it."""
    from artscope.worker import TraceResult, analyze_trace

    distributed = _distributed()
    with connect(address) as client:
        # Unique keys: the same trace given twice is analysed twice, as locally,
        # and a rerun never picks up a stale result from the scheduler.
        run = uuid.uuid4().hex[:12]
        # (the workers keep their cores busy: each runs its queries one at a time)
        futures = client.map(analyze_trace, traces, opts=opts, engine=engine, tp_bin=tp_bin,
                             concurrent_queries=False,
                             key=[f"artscope-{run}-{i}" for i in range(len(traces))])
        position = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in distributed.as_completed(futures):
                i = position[fut.key]
                try:
                    res = fut.result()
                except distributed.KilledWorker:
                    res = TraceResult(traces[i], [{"trace": traces[i], "error": (
                        "the Dask workers analysing this trace died repeatedly "
                        "(out of memory?)")}], None)
                except Exception as e:  # noqa: BLE001
                    if _is_cancelled(e):
                        raise ArtscopeError(
                            f"the Dask cluster at {address} cancelled the batch (scheduler "
                            "lost?); finished traces are kept with -o DIR/, rerun to resume"
                        ) from None
                    from artscope.worker import internal_error

                    res = TraceResult(traces[i], [{"trace": traces[i], "error": internal_error(e)}],
                                      None)
                fut.release()
                yield i, res
        finally:
            client.cancel(futures)


def _is_cancelled(e: BaseException) -> bool:
    import asyncio
    import concurrent.futures as cf

    return isinstance(e, (asyncio.CancelledError, cf.CancelledError)) or \
        type(e).__name__ in ("FutureCancelledError", "CancelledError")
