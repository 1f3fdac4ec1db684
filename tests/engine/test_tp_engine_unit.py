"""The trace_processor engine's own logic, without a trace_processor binary:
result conversion (the perfetto package's QueryResultIterator cells, numpy
object arrays) and the literal SQL it sends for input tables."""

from __future__ import annotations

import numpy as np

from artscope.engines.trace_processor import TraceProcessorEngine, _sql_literal


class _Result:
    def __init__(self, cols, rows):
        self.column_names = cols
        cells = np.empty(len(cols) * len(rows), dtype=object)
        cells[:] = [v for r in rows for v in r]
        self.cells = cells


class _FakeTP:
    def __init__(self, result=None):
        self.sql: list[str] = []
        self.result = result

    def query(self, sql):
        self.sql.append(sql)
        return self.result or _Result([], [])


def test_query_converts_cells_like_the_embedded_engine():
    eng = TraceProcessorEngine()
    eng.tp = _FakeTP(_Result(["ts", "name", "value", "n"], [
        (np.int64(10), "a", 1.5, None),
        (np.int64(20), None, np.float64(2.0), np.int64(3)),
    ]))
    df = eng.query("SELECT ...")
    assert df.columns == ["ts", "name", "value", "n"]
    assert df.rows() == [(10, "a", 1.5, None), (20, None, 2.0, 3)]
    assert str(df["ts"].dtype) == "Int64" and str(df["value"].dtype) == "Float64"


def test_create_table_sends_literal_rows_in_batches():
    eng = TraceProcessorEngine()
    eng.tp = _FakeTP()
    rows = [(i, "it's", None, 1.25) for i in range(401)]
    eng.create_table("artscope_x", ("a", "b", "c", "d"), rows)
    assert eng.tp.sql[0] == "DROP TABLE IF EXISTS artscope_x"
    assert eng.tp.sql[1] == "CREATE TEMP TABLE artscope_x (a, b, c, d)"
    inserts = eng.tp.sql[2:]
    assert len(inserts) == 2  # 400 + 1 rows (SQLite's compound-select limit is 500)
    assert inserts[1] == "INSERT INTO artscope_x VALUES (400, 'it''s', NULL, 1.25)"


def test_sql_literals():
    assert [_sql_literal(v) for v in (None, True, 7, 0.5, "a'b")] == [
        "NULL", "1", "7", "0.5", "'a''b'"]


class _SqliteBackedTP:
    """Stands in for perfetto's TraceProcessor: answers from an embedded
    store, returning cells the way its QueryResultIterator does (numpy
    object array; numpy ints and floats)."""

    def __init__(self, store):
        self.store = store

    def query(self, sql):
        cols, rows = self.store.execute_script(sql)
        res = _Result(cols, [])
        flat = [np.int64(v) if type(v) is int else np.float64(v) if type(v) is float else v
                for r in rows for v in r]
        res.cells = np.empty(len(flat), dtype=object)
        res.cells[:] = flat
        return res


def test_analysis_through_the_trace_processor_engine_code_path():
    """Everything artscope does on the trace_processor engine (input tables as
    SQL literals, result conversion) gives the embedded engine's results."""
    from pathlib import Path

    from artscope.engines.base import LoadInfo
    from artscope.engines.embedded import EmbeddedEngine
    from artscope.metrics.analysis import analyze_engine
    from artscope.metrics.options import AnalysisOptions

    trace = Path(__file__).resolve().parents[2] / "fixtures" / "pinned_late.pftrace"
    opts = AnalysisOptions(app="com.example.bench", cpus="big", pin_grace_ns=100_000_000)
    emb = EmbeddedEngine()
    emb.load(trace)
    expected = analyze_engine(emb, opts, str(trace)).results
    backing = EmbeddedEngine()
    backing.load(trace)
    tp = TraceProcessorEngine()
    tp.tp = _SqliteBackedTP(backing.store)
    tp.info = LoadInfo(engine="trace_processor", path=str(trace))
    got = analyze_engine(tp, opts, str(trace)).results
    for r in got:
        assert r.pop("engine") == "trace_processor"
    for r in expected:
        r.pop("engine")
    assert got == expected
