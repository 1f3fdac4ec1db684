"""The trace_processor contract (docs/trace-processor-contract.md) is what the
metric SQL reads, and both engines serve it.

What the SQL reads is taken from SQLite itself, not from its text: each
sql-metrics file is run on the embedded engine's tables as a plain SQLite
database (the core's ``to_sqlite``, views made tables so a column read
through a view is reported as the view's), with an authorizer recording
every (table, column) read and every function called. That set must equal
the contract page's, so a metric that starts reading a new column fails
here until the page documents it, and the page lists nothing no metric
reads.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from artscope.engines import load_trace
from artscope.engines.embedded import core
from artscope.metrics.runner import INPUT_TABLES, metric_names, metric_sql

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / "docs" / "trace-processor-contract.md"
TRACE = REPO / "fixtures" / "pinned_late.pftrace"
#: SQLite's own tables and table-valued functions, not trace_processor's.
SQLITE_OWN = {"sqlite_master", "sqlite_temp_master", "json_each", "json_tree"}


def documented() -> tuple[set[tuple[str, str]], set[str]]:
    """The (table, column) pairs and the functions the contract page lists."""
    columns: set[tuple[str, str]] = set()
    functions: set[str] = set()
    section: list[str] = []
    for line in CONTRACT.read_text().splitlines():
        if line.startswith("### "):
            section = re.findall(r"`([^`]+)`", line)
        elif line.startswith("## "):
            section = []
        elif line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            names = [m.group(1) for c in cells if (m := re.fullmatch(r"`([^`]+)`", c))]
            if names and names[0].endswith("()"):
                functions.add(names[0][:-2])
            elif len(names) >= 2 and len(section) > 1:
                columns.add((names[0], names[1]))
            elif len(section) == 1:
                columns.add((section[0], names[0]))
            else:
                raise AssertionError(f"contract row without a table: {line}")
    return columns, functions


def _as_plain_sqlite(trace: Path) -> sqlite3.Connection:
    """The embedded engine's tables of ``trace`` in a real SQLite database,
    its views materialised as tables, trace_processor's prelude functions
    registered, artscope's empty input tables created."""
    conn = core.import_trace(trace.read_bytes(), trace.name).conn
    views = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'")]
    for v in views:
        conn.execute(f'CREATE TABLE "_table_{v}" AS SELECT * FROM "{v}"')
    for v in views:
        conn.execute(f'DROP VIEW "{v}"')
    for v in views:
        conn.execute(f'ALTER TABLE "_table_{v}" RENAME TO "{v}"')
    start, end = conn.execute("SELECT start_ts, end_ts FROM trace_bounds").fetchone()
    conn.create_function("trace_start", 0, lambda: start)
    conn.create_function("trace_end", 0, lambda: end)
    conn.create_function("trace_dur", 0, lambda: end - start)
    for name, cols in INPUT_TABLES.items():
        conn.execute(f"CREATE TEMP TABLE {name} ({', '.join(cols)})")
    return conn


def read_by_metric_sql() -> tuple[dict[tuple[str, str], set[str]], dict[str, set[str]]]:
    """{(table, column): metric files reading it}, {function: metric files
    calling it}: every trace_processor table column and non-SQLite function
    the sql-metrics files use."""
    conn = _as_plain_sqlite(TRACE)
    builtin = {r[0] for r in sqlite3.connect(":memory:").execute(
        "SELECT name FROM pragma_function_list")}
    reads: dict[tuple[str, str], set[str]] = {}
    calls: dict[str, set[str]] = {}
    current = [""]

    def authorize(action: int, arg1, arg2, db, _inner) -> int:
        if action == sqlite3.SQLITE_READ and db == "main" and arg1 not in SQLITE_OWN:
            reads.setdefault((arg1, arg2), set()).add(current[0])
        elif action == sqlite3.SQLITE_FUNCTION and arg2 not in builtin:
            calls.setdefault(arg2, set()).add(current[0])
        return sqlite3.SQLITE_OK

    conn.set_authorizer(authorize)
    for name in metric_names():
        current[0] = name
        conn.execute(metric_sql(name)).fetchall()
    conn.set_authorizer(None)
    return reads, calls


def test_the_metric_sql_reads_exactly_the_documented_columns() -> None:
    reads, calls = read_by_metric_sql()
    columns, functions = documented()
    undocumented = sorted(f"{t}.{c} (read by {', '.join(sorted(reads[(t, c)]))})"
                          for t, c in set(reads) - columns)
    assert not undocumented, "add to docs/trace-processor-contract.md: " + "; ".join(undocumented)
    unread = sorted(f"{t}.{c}" for t, c in columns - set(reads))
    assert not unread, "no metric file reads these any more: " + ", ".join(unread)
    assert set(calls) == functions, (
        f"functions called {sorted(calls)}, documented {sorted(functions)}")


@pytest.mark.parametrize("engine", ["embedded", pytest.param("trace_processor",
                                                             marks=pytest.mark.tp)])
def test_both_engines_serve_every_documented_column(engine, request) -> None:
    tp_bin = request.getfixturevalue("tp_bin") if engine == "trace_processor" else None
    columns, functions = documented()
    by_table: dict[str, list[str]] = {}
    for table, column in sorted(columns):
        by_table.setdefault(table, []).append(column)
    with load_trace(TRACE, engine=engine, tp_bin=tp_bin) as eng:
        for table, cols in by_table.items():
            got = eng.query(f"SELECT {', '.join(cols)} FROM {table} LIMIT 1")
            assert got.columns == cols, table
        for function in sorted(functions):
            value = eng.query(f"SELECT {function}() AS v")["v"][0]
            assert value is not None and value > 0, function
