"""Engine parity: every metric file gives the same rows on both engines.

Two engines, one SQL: on the same trace both engines give identical
metric values — integers equal, floats within 1e-9 relative.

``assert_parity(sql_or_metric, trace, **options)`` loads ``trace`` on each
engine, binds the same inputs on both (``selection.select`` with the same
AnalysisOptions), runs the metric file (a name from sql-metrics/, e.g.
``"gc"``), or a raw SQL text, or ``"results"`` (the whole per-run result
dicts of ``analyze_engine``), and compares.

The real comparison needs a trace_processor binary that is available without
any download: ``ARTSCOPE_TP_BIN`` or ``trace_processor_shell`` on PATH (or the
perfetto package's already-cached prebuilt), exactly what
``artscope.engines.trace_processor.find_local_binary`` resolves. Without one
those tests skip and say why; an ``ARTSCOPE_TP_BIN`` that is not an
executable fails them (the user asked for it by name). The harness itself is
exercised on every run by comparing the embedded engine with itself and by
unit tests of the comparison.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable

import polars as pl
import pytest

from artscope.engines.embedded import EmbeddedEngine
from artscope.engines.trace_processor import ENV_VAR, TraceProcessorEngine, find_local_binary
from artscope.errors import EngineUnavailable
from artscope.metrics.analysis import analyze_engine
from artscope.metrics.options import AnalysisOptions
from artscope.metrics.runner import MetricRunner, metric_names
from artscope.metrics.selection import select

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
APP = "com.example.bench"
REL_TOL = 1e-9
ENGINES = ("embedded", "trace_processor")

#: Row ids that each engine numbers on its own (utid, upid, slice/track ids).
#: They join tables inside one engine but are not metric values; rows are
#: compared on every other column. Pass ``ignore=()`` to compare them too.
ID_COLUMNS = frozenset({"id", "utid", "upid", "track_id", "gc_id", "frame_id", "slice_id",
                        "arg_set_id"})
#: Result keys that name the engine or the input rather than a metric value.
RESULT_SKIP_KEYS = frozenset({"engine", "trace"})

#: (trace, AnalysisOptions kwargs) the parity tests run on.
PARITY_CASES: dict[str, dict[str, Any]] = {
    "pinned_clean": dict(app=APP, cpus="6,7"),
    "pinned_late": dict(app=APP, cpus="6,7", pin_grace_ns=100_000_000),
    "pinned_late_compact": dict(app=APP, cpus="big", gc_cpus="little"),
    "freq": dict(app=APP),
    "frames": dict(app=APP, cpus="6,7"),
    "choreographer_only": dict(app=APP),
    "no_sched": dict(app=APP),
    "open_at_end": dict(app=APP, window="+100ms:+450ms"),
    "tid_reuse": dict(app="com.new.app"),
}


# ---------------------------------------------------------------------------
# binary resolution
# ---------------------------------------------------------------------------


def tp_binary() -> tuple[str | None, str]:
    """(path, "") when a trace_processor binary is available locally, else (None, why).

    Raises EngineUnavailable when ARTSCOPE_TP_BIN names something unusable.
    """
    path = find_local_binary()
    if path:
        return path, ""
    return None, (f"no trace_processor binary available locally: set {ENV_VAR} or put "
                  "trace_processor_shell on PATH to run the engine parity tests")


@pytest.fixture(scope="session")
def tp_bin() -> str:
    try:
        path, why = tp_binary()
    except EngineUnavailable as e:  # ARTSCOPE_TP_BIN set but unusable: say so loudly
        pytest.fail(str(e))
    if path is None:
        pytest.skip(why)
    return path


# ---------------------------------------------------------------------------
# the harness
# ---------------------------------------------------------------------------


class _Loaded:
    """Engines loaded once per (engine, trace) for the whole session."""

    def __init__(self) -> None:
        self.engines: dict[tuple[str, str, str | None], Any] = {}

    def get(self, kind: str, trace: str | Path, tp_bin: str | None):
        key = (kind, str(trace), tp_bin if kind == "trace_processor" else None)
        if key not in self.engines:
            if kind == "embedded":
                eng = EmbeddedEngine()
            elif kind == "trace_processor":
                eng = TraceProcessorEngine(tp_bin=tp_bin)
            else:
                raise ValueError(f"unknown engine {kind!r}")
            eng.load(str(trace))
            self.engines[key] = eng
        return self.engines[key]

    def close(self) -> None:
        for eng in self.engines.values():
            eng.close()
        self.engines.clear()


_LOADED = _Loaded()


@pytest.fixture(scope="session", autouse=True)
def _close_engines():
    yield
    _LOADED.close()


def run_on(kind: str, sql_or_metric: str, trace: str | Path, opts: AnalysisOptions,
           tp_bin: str | None = None) -> Any:
    """The rows (DataFrame) or, for "results", the per-run result dicts on one engine."""
    eng = _LOADED.get(kind, trace, tp_bin)
    if sql_or_metric == "results":
        return analyze_engine(eng, opts, str(trace)).results
    runner = MetricRunner(eng)
    select(runner, opts)  # binds artscope_run / _target_thread / _allowed_cpu / ...
    if sql_or_metric in metric_names():
        return runner.run(sql_or_metric)  # with the derived input tables it reads
    return eng.query(sql_or_metric)


def values_equal(a: Any, b: Any, rel: float = REL_TOL) -> bool:
    """Integers (and bools) exactly, floats within ``rel`` relative, everything else ==."""
    if a is None or b is None:
        return a is None and b is None
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, str):
        if isinstance(a, float) or isinstance(b, float):
            fa, fb = float(a), float(b)
            if math.isnan(fa) or math.isnan(fb):
                return math.isnan(fa) and math.isnan(fb)
            if fa == fb:
                return True
            return abs(fa - fb) <= rel * max(abs(fa), abs(fb))
        return int(a) == int(b)
    return a == b


def _sort_key(row: tuple) -> tuple:
    out = []
    for v in row:
        if v is None:
            out.append((0, 0))
        elif isinstance(v, (int, float)):
            out.append((1, float(f"{float(v):.9g}")))
        else:
            out.append((2, str(v)))
    return tuple(out)


def frame_differences(a: pl.DataFrame, b: pl.DataFrame, *, ignore: Iterable[str] = ID_COLUMNS,
                      rel: float = REL_TOL, limit: int = 10) -> list[str]:
    """Human-readable differences between two query results (empty when at parity)."""
    if a.columns != b.columns:
        return [f"columns differ: {a.columns} vs {b.columns}"]
    cols = [c for c in a.columns if c not in set(ignore)]
    if a.height != b.height:
        return [f"row count differs: {a.height} vs {b.height}"]
    ra = sorted(a.select(cols).rows(), key=_sort_key) if cols else []
    rb = sorted(b.select(cols).rows(), key=_sort_key) if cols else []
    diffs = []
    for i, (x, y) in enumerate(zip(ra, rb)):
        bad = [f"{c}: {u!r} != {v!r}" for c, u, v in zip(cols, x, y) if not values_equal(u, v, rel)]
        if bad:
            diffs.append(f"row {i}: " + "; ".join(bad))
            if len(diffs) >= limit:
                break
    return diffs


def result_differences(a: Any, b: Any, path: str = "", rel: float = REL_TOL,
                       skip: frozenset[str] = RESULT_SKIP_KEYS) -> list[str]:
    """Differences between two JSON-shaped values (result dicts), recursively."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        keys_a, keys_b = set(a) - skip, set(b) - skip
        if keys_a != keys_b:
            out.append(f"{path or '.'}: keys differ: {sorted(keys_a ^ keys_b)}")
        for k in sorted(keys_a & keys_b):
            out += result_differences(a[k], b[k], f"{path}.{k}", rel, skip)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += result_differences(x, y, f"{path}[{i}]", rel, skip)
        return out
    return [] if values_equal(a, b, rel) else [f"{path}: {a!r} != {b!r}"]


def assert_parity(sql_or_metric: str, trace: str | Path, *, tp_bin: str | None = None,
                  engines: tuple[str, str] = ENGINES, ignore: Iterable[str] = ID_COLUMNS,
                  **options: Any) -> None:
    """Run a metric file / SQL / "results" on two engines and assert identical values."""
    opts = AnalysisOptions(**{"app": APP, **options})
    left = run_on(engines[0], sql_or_metric, trace, opts, tp_bin)
    right = run_on(engines[1], sql_or_metric, trace, opts, tp_bin)
    if sql_or_metric == "results":
        diffs = result_differences(left, right)
    else:
        diffs = frame_differences(left, right, ignore=ignore)
    label = sql_or_metric if sql_or_metric in metric_names() or sql_or_metric == "results" \
        else "<sql>"
    assert not diffs, (f"{label} on {Path(trace).name}: {engines[0]} vs {engines[1]}:\n  "
                       + "\n  ".join(diffs))


# ---------------------------------------------------------------------------
# real parity (needs a trace_processor binary)
# ---------------------------------------------------------------------------

METRICS = metric_names()


@pytest.mark.parametrize("trace", sorted(PARITY_CASES))
@pytest.mark.parametrize("metric", METRICS)
def test_metric_file_parity(tp_bin, trace, metric):
    assert_parity(metric, FIXTURES / f"{trace}.pftrace", tp_bin=tp_bin, **PARITY_CASES[trace])


@pytest.mark.parametrize("trace", sorted(PARITY_CASES))
def test_results_parity(tp_bin, trace):
    assert_parity("results", FIXTURES / f"{trace}.pftrace", tp_bin=tp_bin, **PARITY_CASES[trace])


def test_marker_runs_parity(tp_bin, tmp_path):
    import metric_traces as MT
    from test_metrics_jank import marker_schedule

    path = MT.write(marker_schedule(), tmp_path)
    assert_parity("results", path, tp_bin=tp_bin, marker="Iter")


# ---------------------------------------------------------------------------
# the harness itself (always runs)
# ---------------------------------------------------------------------------


def test_skip_reason_names_the_way_to_enable(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    import artscope.engines.trace_processor as tpmod

    monkeypatch.setattr(tpmod, "_cached_pinned_binary", lambda: None)
    path, why = tp_binary()
    assert path is None and ENV_VAR in why and "trace_processor_shell" in why


def test_bad_tp_bin_env_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(EngineUnavailable):
        tp_binary()


def test_values_equal():
    assert values_equal(3, 3) and not values_equal(3, 4)
    assert values_equal(True, 1)
    assert values_equal(1.0, 1.0 + 5e-10) and not values_equal(1.0, 1.0 + 2e-9)
    assert values_equal(0.0, 0.0) and not values_equal(0.0, 1e-300)
    assert values_equal(None, None) and not values_equal(None, 0) and not values_equal(0, None)
    assert values_equal("a", "a") and not values_equal("a", "b")
    assert values_equal(2, 2.0)  # an integral float compares by value
    assert not values_equal(10**18 + 1, 10**18)  # integers never get a tolerance


def test_frame_differences():
    a = pl.DataFrame({"run": [0, 1], "utid": [5, 6], "v": [1.0, 2.0]})
    b = pl.DataFrame({"run": [1, 0], "utid": [9, 7], "v": [2.0 * (1 + 1e-12), 1.0]})
    assert frame_differences(a, b) == []                    # order and ids do not matter
    assert frame_differences(a, b, ignore=()) != []         # ... unless asked
    c = pl.DataFrame({"run": [0, 1], "utid": [5, 6], "v": [1.0, 2.1]})
    assert frame_differences(a, c) == ["row 1: v: 2.0 != 2.1"]
    assert frame_differences(a, a.head(1))[0].startswith("row count")
    assert frame_differences(a, a.rename({"v": "w"}))[0].startswith("columns")


def test_result_differences():
    a = {"engine": "embedded", "gc": {"app_cpu_ns": 5, "share": 0.5}, "cpufreq": [{"cpu": 6}]}
    b = {"engine": "trace_processor", "gc": {"app_cpu_ns": 5, "share": 0.5 + 1e-12},
         "cpufreq": [{"cpu": 6}]}
    assert result_differences(a, b) == []
    b["gc"]["app_cpu_ns"] = 6
    assert result_differences(a, b) == [".gc.app_cpu_ns: 5 != 6"]


@pytest.mark.parametrize("metric", ["frames", "frequency", "gc", "pinning", "results"])
def test_harness_embedded_against_itself(metric):
    # The same code path as the real parity tests, with the embedded engine on both sides.
    assert_parity(metric, FIXTURES / "frames.pftrace", engines=("embedded", "embedded"),
                  cpus="6,7")


def test_harness_runs_raw_sql():
    assert_parity("SELECT run, start_ts, end_ts FROM artscope_run",
                  FIXTURES / "frames.pftrace", engines=("embedded", "embedded"))
