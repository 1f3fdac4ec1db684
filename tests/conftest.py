"""Shared pytest fixtures, and the test lanes' import paths.

The suite is split in lanes, one folder each: engine/ (the importer and its
parity with trace_processor), metrics/ (metric values and verdicts), cli_report/
(command line, report, packaging, notebooks), studies/, cluster/ and
conformance/ (trace_processor's own diff tests). The fast lane for a
developer is `pytest -m "not slow and not tp" -n 2`; CI runs everything.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
# fixtures/schedules.py, truth.py and make_fixtures.py are plain modules; so
# are the trace builders here (metric_traces.py ...) and a lane's helpers that
# another lane reuses (test_cli's CLI runner, test_parity's harness ...).
TESTS = Path(__file__).resolve().parent
for _path in [FIXTURES, TESTS, *sorted(p.parent for p in TESTS.glob("*/test_*.py"))]:
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The directory holding the committed fixture traces (fixtures/*.pftrace)."""
    return FIXTURES


#: Real traces from real phones, beside the checkout where CI and developers
#: have them (never copied into the repository).
SHARED_TRACES = REPO.parent / "shared" / "traces"


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    """Real traces in ../shared/traces beside the checkout; skips when absent."""
    path = SHARED_TRACES
    if not path.is_dir() or not any(path.iterdir()):
        pytest.skip(f"shared traces not available at {path}")
    return path


@pytest.fixture(scope="session")
def generated_batch(tmp_path_factory) -> list[Path]:
    """tests/batch_traces.py's batch (tiny hand traces, small simulated
    phones, one non-trace), written once per session. Read-only: tests that
    change traces copy them first."""
    import batch_traces

    return batch_traces.make_batch(tmp_path_factory.mktemp("batch"))


@pytest.fixture(scope="session")
def generated_reference(generated_batch, tmp_path_factory):
    """`analyze --format parquet --jobs 1` of the generated batch, read back:
    what every dataset / cluster run of that batch must reproduce exactly."""
    import subprocess

    import polars as pl

    out = tmp_path_factory.mktemp("reference") / "single.parquet"
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze",
                        *map(str, generated_batch), "--app", "com.example.bench",
                        "--cpus", "6,7", "--jobs", "1", "--format", "parquet", "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "zz_bad.pftrace" in p.stderr, p.stderr  # the one bad trace
    return pl.read_parquet(out)


@pytest.fixture(scope="session")
def tp_bin() -> str:
    """The real trace_processor_shell (ARTSCOPE_TP_BIN, PATH or ../shared/bin);
    skips, saying why, where there is none (a user's clone)."""
    sys.path.insert(0, str(REPO / "tools"))
    import compare_tp

    path = compare_tp.find_tp_bin()
    if path is None:
        pytest.skip("no trace_processor_shell (ARTSCOPE_TP_BIN, PATH or ../shared/bin)")
    return path


@pytest.fixture
def tp_diffs(tmp_path, tp_bin):
    """Compares the tables of a trace (its bytes) on both engines: returns
    {table: aspects that differ} (tools/compare_tp.py) and the set of tables
    compared."""
    import compare_tp

    def diffs(trace: bytes) -> tuple[dict[str, set[str]], set[str]]:
        path = tmp_path / "compared.pftrace"
        path.write_bytes(trace)
        found = compare_tp.compare_trace(path, tp_bin)
        return ({d.table: set(d.aspects) for d in found if d.aspects},
                {d.table for d in found})

    return diffs


@pytest.fixture
def tp_rows(tmp_path, tp_bin):
    """Runs a query on a trace (its bytes) on the real trace_processor:
    returns its rows, to compare with the embedded engine's."""
    from artscope.engines.trace_processor import TraceProcessorEngine

    def rows(trace: bytes, sql: str) -> list[tuple]:
        path = tmp_path / "queried.pftrace"
        path.write_bytes(trace)
        tp = TraceProcessorEngine(tp_bin=tp_bin)
        tp.load(path)
        try:
            return tp.query(sql).rows()
        finally:
            tp.close()

    return rows


@pytest.fixture
def load_embedded():
    """Loads trace bytes into an embedded engine (closed after the test):
    ``load_embedded(data, name="trace")`` returns the engine."""
    from artscope.engines.embedded import EmbeddedEngine

    engines = []

    def load(data: bytes, name: str = "trace"):
        engine = EmbeddedEngine()
        engine.load_bytes(data, name)
        engines.append(engine)
        return engine

    yield load
    for engine in engines:
        engine.close()
