"""The PerfettoSQL package generated from sql-metrics (artscope sql-package).

Structure and round trip (each module is its sql-metrics file plus the input
CTEs), execution on the embedded engine through a tiny test-only "PerfettoSQL
lite" (table functions expanded by substituting their arguments), results
equal to artscope's own runner on the fixtures, and, when ARTSCOPE_TP_BIN
names a trace_processor binary, the real thing end to end.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

import artscope
from artscope.cli import main
from artscope.engines import load_trace
from artscope.metrics.options import parse_cpu_list
from artscope.metrics.runner import metric_names, metric_sql
from artscope.sqlpackage import (BANNER, INPUTS_BEGIN, INPUTS_END, PACKAGE,
                                 SqlPackageError, build_module, write_sql_package)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
#: Argument types trace_processor's sql_argument::ParseType accepts (non-deprecated).
PERFETTO_TYPES = {"LONG", "TIMESTAMP", "DURATION", "DOUBLE", "STRING", "BOOL", "BYTES"}
APP = "com.example.bench"


# --- PerfettoSQL lite: just enough PerfettoSQL for the generated modules ------


def _skip_space(s: str, i: int) -> int:
    """Index of the next token after whitespace and comments."""
    while i < len(s):
        if s[i].isspace():
            i += 1
        elif s.startswith("--", i):
            j = s.find("\n", i)
            i = len(s) if j < 0 else j + 1
        elif s.startswith("/*", i):
            i = s.index("*/", i) + 2
        else:
            break
    return i


def _group(s: str, i: int) -> tuple[list[str], int]:
    """s[i] == '(' -> (top-level comma-separated items, comments dropped; index after ')')."""
    assert s[i] == "("
    items, cur, depth = [], "", 0
    i += 1
    while True:
        j = _skip_space(s, i)
        if j > i:
            cur += " "
            i = j
        c = s[i]
        if c == "'":
            k = s.index("'", i + 1)
            while s.startswith("''", k):
                k = s.index("'", k + 2)
            cur += s[i:k + 1]
            i = k + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                items.append(cur.strip())
                return [x for x in items if x], i + 1
            depth -= 1
        elif c == "," and depth == 0:
            items.append(cur.strip())
            cur, i = "", i + 1
            continue
        cur += c
        i += 1


class PerfettoSqlLite:
    """CREATE PERFETTO FUNCTION f(args) RETURNS TABLE(cols) AS body on SQLite.

    A call ``f(e1, e2)`` in a query becomes the subquery ``(body)`` with each
    ``$arg`` replaced by ``(e_i)``. Like trace_processor, creating a function
    checks that the body prepares, uses only declared ``$args`` and returns
    exactly the declared columns in order.
    """

    CREATE = re.compile(r"CREATE\s+PERFETTO\s+FUNCTION\s+(\w+)\s*", re.IGNORECASE)

    def __init__(self, engine) -> None:
        self.engine = engine
        #: name -> (args [(name, TYPE)], columns [(name, TYPE)], body)
        self.functions: dict[str, tuple[list, list, str]] = {}

    def execute(self, text: str) -> None:
        stmt = ""
        for line in text.splitlines(keepends=True):
            stmt += line
            if sqlite3.complete_statement(stmt):
                self._statement(stmt)
                stmt = ""
        assert not stmt.strip(" \n"), f"incomplete statement: {stmt!r}"

    @staticmethod
    def parse_create(stmt: str) -> tuple[str, list, list, str]:
        i = _skip_space(stmt, 0)
        m = PerfettoSqlLite.CREATE.match(stmt, i)
        assert m, f"not a CREATE PERFETTO FUNCTION: {stmt[:80]!r}"
        args, i = _group(stmt, m.end())
        i = _skip_space(stmt, i)
        r = re.compile(r"RETURNS\s+TABLE\s*", re.IGNORECASE).match(stmt, i)
        assert r, "only table functions are supported"
        cols, i = _group(stmt, r.end())
        i = _skip_space(stmt, i)
        assert stmt[i:i + 2].upper() == "AS"
        body = stmt[i + 2:].rstrip().rstrip(";")
        split = [tuple(x.split()) for x in args], [tuple(x.split()) for x in cols]
        for item in split[0] + split[1]:
            assert len(item) == 2, f"expected `name TYPE`, got {item}"
        return m.group(1), split[0], split[1], body

    def _statement(self, stmt: str) -> None:
        i = _skip_space(stmt, 0)
        if i >= len(stmt.rstrip(" \n;")):
            return
        if not self.CREATE.match(stmt, i):
            self.engine.query(stmt)
            return
        name, args, cols, body = self.parse_create(stmt)
        used = set(re.findall(r"\$(\w+)", body))
        assert used <= {a for a, _ in args}, f"{name}: undeclared parameters {used}"
        self.functions[name] = (args, cols, body)
        # Prepare with NULL arguments: the columns must be the declared ones.
        probe = self.engine.query(
            "SELECT * FROM (" + self._substitute(name, ["NULL"] * len(args)) + ") LIMIT 0")
        assert probe.columns == [c for c, _ in cols], (name, probe.columns)

    def _substitute(self, name: str, values: list[str]) -> str:
        args, _, body = self.functions[name]
        assert len(values) == len(args), f"{name}: {len(args)} arguments, got {len(values)}"
        by_name = {a: f"({v})" for (a, _), v in zip(args, values)}
        return re.sub(r"\$(\w+)", lambda m: by_name[m.group(1)], body)

    def expand(self, sql: str) -> str:
        for name in self.functions:
            while (m := re.search(rf"\b{name}\s*\(", sql)) is not None:
                values, end = _group(sql, m.end() - 1)
                sql = sql[:m.start()] + "(" + self._substitute(name, values) + ")" + sql[end:]
        return sql

    def query(self, sql: str) -> pl.DataFrame:
        return self.engine.query(self.expand(sql))


def _lit(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(int(v))


# --- structure ----------------------------------------------------------------


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pkg")
    paths = write_sql_package(out)
    assert all(p.parent == out / PACKAGE for p in paths)
    return out / PACKAGE


def test_one_module_per_metric_with_valid_include_names(package):
    files = sorted(package.iterdir())
    assert [p.name for p in files] == [f"{n}.sql" for n in metric_names()]
    for p in files:
        assert re.fullmatch(r"[a-z][a-z0-9_]*\.sql", p.name), p.name
        text = p.read_text()
        assert text.splitlines()[0] == BANNER.format(name=p.stem)
        assert text.count("CREATE PERFETTO FUNCTION") == 1
        name, args, cols, body = PerfettoSqlLite.parse_create(
            text[text.index("CREATE PERFETTO FUNCTION"):])
        assert name == f"{PACKAGE}_{p.stem}"
        for n, t in args + cols:
            assert re.fullmatch(r"[a-z][a-z0-9_]*", n) and t in PERFETTO_TYPES, (p.name, n, t)
        assert {a for a, _ in args} == set(re.findall(r"\$(\w+)", body)), p.name
        assert "INCLUDE PERFETTO MODULE" not in body  # self-contained: pasteable


def test_every_function_argument_and_column_is_documented(package):
    for p in package.iterdir():
        lines = p.read_text().splitlines()
        start = next(i for i, ln in enumerate(lines) if ln.startswith("CREATE PERFETTO FUNCTION"))
        assert lines[start - 1].startswith("-- "), f"{p.name}: function has no doc comment"
        end = next(i for i, ln in enumerate(lines) if ln == ") AS")
        for i in range(start + 1, end):
            ln = lines[i]
            if re.fullmatch(r"  [a-z_0-9]+ [A-Z]+,?", ln):
                assert lines[i - 1].startswith("  -- ") and lines[i - 1][5:].strip(), \
                    f"{p.name}: {ln.strip()} is not documented"


def test_bodies_are_the_sql_metrics_files_plus_input_ctes(package):
    """Deleting the generated input block gives the sql-metrics body back."""
    for p in package.iterdir():
        source = metric_sql(p.stem)
        header = []
        for ln in source.splitlines():
            if not ln.startswith("--"):
                break
            header.append(ln)
        body = source.split("\n", len(header))[-1]
        text = p.read_text()
        fn_body = text[text.index("\n) AS\n") + len("\n) AS\n"):]
        if INPUTS_BEGIN in fn_body:
            a = fn_body.index(INPUTS_BEGIN)
            b = fn_body.index(INPUTS_END + "\n") + len(INPUTS_END) + 1
            block, fn_body = fn_body[a:b], fn_body[:a] + fn_body[b:]
            # only input tables are defined there, nothing the body defines
            defined = set(re.findall(r"^(\w+)\(", block, re.MULTILINE))
            assert all(d.startswith("artscope_") for d in defined), defined
            assert not any(re.search(rf"\b{d}\s+AS\s*\(", body) for d in defined)
        assert fn_body.rstrip().rstrip(";") == body.rstrip().rstrip(";"), p.name
        # the description is the file's header (up to its Output columns list)
        for ln in header:
            if "Output columns" in ln:
                break
            doc = text[:text.index("CREATE PERFETTO")].splitlines()
            assert ln.rstrip() in doc or ln.strip() == "--"
        # every documented output column is declared, in order
        cols = PerfettoSqlLite.parse_create(text[text.index("CREATE PERFETTO"):])[2]
        out_doc = "\n".join(header[next(i for i, ln in enumerate(header)
                                        if "Output columns" in ln):])
        out_doc = out_doc.split("-- Column types:")[0]
        listed = [n for ln in re.findall(
                  r"^--   ([a-z][a-z_0-9]*(?:, [a-z][a-z_0-9]*)*)(?:\s{2,}|$)", out_doc, re.M)
                  for n in ln.split(", ")]
        assert [c for c, _ in cols] == listed, p.name


def test_module_name_and_missing_types_fail_loudly():
    with pytest.raises(SqlPackageError, match="not a valid PerfettoSQL module name"):
        build_module("my-metric", "-- x\n-- Output columns:\n--   a  b\nSELECT 1 AS a")
    with pytest.raises(SqlPackageError, match="no type for output column"):
        build_module("new_metric", "-- x\n--\n-- Output columns:\n--   weird  what\nSELECT 1 AS weird")
    with pytest.raises(SqlPackageError, match="unknown types"):
        build_module("new_metric", "-- x\n--\n-- Output columns:\n--   weird  what\n--\n"
                                   "-- Column types: weird INTEGER\nSELECT 1 AS weird")
    with pytest.raises(SqlPackageError, match="differ from its Column types"):
        build_module("new_metric", "-- x\n--\n-- Output columns:\n--   a  what\n--\n"
                                   "-- Column types: b LONG\nSELECT 1 AS a")
    m = build_module("new_metric", "-- x\n--\n-- Output columns:\n--   run  run id\n"
                                   "--   cpu_ns  CPU\n--\n-- Column types: run LONG,\n"
                                   "--   cpu_ns DURATION\nSELECT run, 1 AS cpu_ns FROM artscope_run")
    assert m.columns == [("run", "LONG", "Run id"), ("cpu_ns", "DURATION", "CPU")]
    assert [a.name for a in m.arguments] == ["start_ts", "end_ts"]


def test_write_is_atomic_and_refuses_foreign_directories(tmp_path, monkeypatch):
    first = write_sql_package(tmp_path)
    again = write_sql_package(tmp_path)  # an earlier output is replaced
    assert first == again and sorted(os.listdir(tmp_path)) == [PACKAGE]
    (tmp_path / PACKAGE / "mine.sql").write_text("SELECT 1;")
    with pytest.raises(SqlPackageError, match="not a package written by"):
        write_sql_package(tmp_path)
    # a failure while writing leaves the previous package untouched
    (tmp_path / PACKAGE / "mine.sql").unlink()
    before = {p.name: p.read_text() for p in (tmp_path / PACKAGE).iterdir()}
    import artscope.sqlpackage as sp

    def boom(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(sp.os, "rename", boom)
    with pytest.raises(SqlPackageError, match="No space left"):
        write_sql_package(tmp_path)
    assert {p.name: p.read_text() for p in (tmp_path / PACKAGE).iterdir()} == before
    assert sorted(os.listdir(tmp_path)) == [PACKAGE]


def test_cli_sql_package(tmp_path):
    res = CliRunner().invoke(main, ["sql-package", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / PACKAGE / "gc.sql").is_file()
    assert str(tmp_path / "out" / PACKAGE / "gc.sql") in res.output
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / PACKAGE).write_text("not a dir")
    res = CliRunner().invoke(main, ["sql-package", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert res.output.startswith("artscope: error: ") and len(res.output.splitlines()) == 1


# --- execution on the embedded engine ---------------------------------------


@pytest.fixture(scope="module")
def lite_engine():
    eng = load_trace(FIXTURES / "pinned_late.pftrace", engine="embedded")
    yield eng
    eng.close()


@pytest.mark.parametrize("spec", ["6,7", "4-7", "0-3,6", " 1 , 2 ", "7,6,6", "3-3", "big", "",
                                  "5-2", "1-2-3", "x", "6,", ",7"])
def test_cpu_list_parsed_in_sql_like_cli(lite_engine, package, spec):
    text = (package / "interference.sql").read_text()
    block = text[text.index(INPUTS_BEGIN):text.index(INPUTS_END)]
    sql = ("WITH " + block.split("\n", 1)[1].rstrip().rstrip(",")
           + "\nSELECT cpu, role FROM artscope_allowed_cpu ORDER BY role, cpu")
    for gc_spec in ("", "2"):
        sql_i = sql.replace("$gc_cpus", _lit(gc_spec)).replace("$cpus", _lit(spec))
        sql_i = re.sub(r"\$\w+", "NULL", sql_i)  # the other inputs' arguments
        got = lite_engine.query(sql_i)
        rows = list(got.iter_rows()) if got.height else []
        try:
            want = parse_cpu_list(spec)
            want = [] if isinstance(want, str) else want  # keywords: not in SQL
        except artscope.UsageError:
            want = None
        if want is None:  # invalid as a whole for the CLI: SQL keeps the valid items
            assert all(isinstance(c, int) for c, _ in rows)
            continue
        gc_want = want if gc_spec == "" else [2]
        assert rows == [(c, "gc") for c in gc_want] + [(c, "mutator") for c in want]


CASES = [
    ("pinned_late.pftrace", APP, {"cpus": "6,7"}),
    ("pinned_late.pftrace", APP, {"cpus": "6-7", "gc_cpus": "4-7",
                                  "pin_grace_ns": 300_000_000}),
    ("pinned_clean.pftrace", APP, {"cpus": "6,7"}),
    ("frames.pftrace", APP, {"cpus": "6,7"}),
    ("choreographer_only.pftrace", APP, {}),
    ("freq.pftrace", APP, {"cpus": "big"}),
    ("open_at_end.pftrace", APP, {"cpus": "0"}),
    ("tid_reuse.pftrace", "com.new.app", {}),
]


def _call(module, app, run, opts, sel) -> str:
    """The SQL call of ``module``'s function for one run of an analysis."""
    values = {
        "app": app, "start_ts": run["window"]["start_ts"], "end_ts": run["window"]["end_ts"],
        # the CPU sets artscope resolved (keywords become explicit lists)
        "cpus": ",".join(map(str, sel.allowed_cpus or [])),
        "gc_cpus": ",".join(map(str, sel.gc_allowed_cpus or [])),
        "pin_grace_ns": opts.get("pin_grace_ns", 0), "marker": "App Benchmark",
    }
    return (f"SELECT * FROM {module.function}("
            + ", ".join(_lit(values[a.name]) for a in module.arguments) + ")")


def _reference(rs, metric: str, run: int) -> pl.DataFrame:
    """What artscope's runner gives for ``metric`` (the inputs selection set)."""
    if metric == "marker_slices":
        rs.engine.create_table("artscope_marker", ("name",), [("App Benchmark",)])
    df = rs.engine.query(metric_sql(metric))
    if metric in rs.analysis.tables:
        assert_frame_equal(df, rs.analysis.tables[metric], check_dtypes=False)
    if "run" in df.columns:
        df = df.filter(pl.col("run") == run)
    return df


def _compare(got: pl.DataFrame, want: pl.DataFrame, run: int, what: str) -> None:
    if "run" in got.columns:
        assert got["run"].to_list() == [0] * got.height, what
        got = got.with_columns(pl.lit(run, dtype=pl.Int64).alias("run"))
    if want.height == 0 and got.height == 0:
        assert got.columns == want.columns, what
        return
    try:
        assert_frame_equal(got, want, check_dtypes=False)
    except AssertionError as e:
        raise AssertionError(f"{what}: {e}") from None


def _headlines(result: dict, out: dict[str, pl.DataFrame]) -> None:
    """The package's rows give the numbers `artscope analyze` reports."""
    gc = out["gc"].row(0, named=True)
    for k in ("app_cpu_ns", "gc_cpu_ns", "gc_count", "gc_wall_ns", "gc_daemon_cpu_ns"):
        assert result["gc"][k] == gc[k], k
    assert result["gc"]["by_cause"] and len(result["gc"]["events"]) == out["gc_events"].height
    pin = result["pinning"]
    if pin.get("off_mask_cpu_ns") is not None:
        assert pin["off_mask_cpu_ns"] == out["pinning"]["off_mask_ns"].sum()
        assert pin["grace_off_mask_cpu_ns"] == out["pinning"]["grace_off_mask_ns"].sum()
        assert pin["violation_slices"] == out["pinning"]["violation_slices"].sum()
        assert pin["interference_cpu_ns"] == (out["interference"]["cpu_ns"].sum()
                                              if out["interference"].height else 0)
    assert pin["migrations"] == (out["migrations"]["migrations"].sum()
                                 if out["migrations"].height else 0)


@pytest.mark.parametrize("trace,app,opts", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_functions_equal_artscope_runner_on_fixtures(package, trace, app, opts):
    rs = artscope.open(FIXTURES / trace, app=app, engine="embedded", **opts)
    sel = rs.analysis.selection
    # A fresh engine without artscope's input tables: the functions must
    # compute them from their arguments alone.
    fresh = load_trace(FIXTURES / trace, engine="embedded")
    try:
        lite = PerfettoSqlLite(fresh)
        modules = {m: build_module(m) for m in metric_names()}
        for m in modules:
            lite.execute((package / f"{m}.sql").read_text())
        assert fresh.query("SELECT count(*) AS n FROM sqlite_temp_master "
                           "WHERE name GLOB 'artscope_*'")["n"][0] == 0
        for result in rs.results:
            run = result["run"]
            out = {}
            for m, module in modules.items():
                out[m] = lite.query(_call(module, app, result, opts, sel))
                _compare(out[m], _reference(rs, m, run), run, f"{trace} run {run} {m}")
            _headlines(result, out)
    finally:
        fresh.close()
        rs.engine.close()


# --- the real trace_processor -------------------------------------------------


@pytest.mark.skipif(not os.environ.get("ARTSCOPE_TP_BIN"),
                    reason="needs a trace_processor_shell binary: set ARTSCOPE_TP_BIN")
@pytest.mark.parametrize("trace,app,opts", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_trace_processor_loads_package_and_matches_analyze(package, trace, app, opts):
    from artscope.engines.trace_processor import TraceProcessorEngine

    rs = artscope.open(FIXTURES / trace, app=app, engine="trace_processor", **opts)
    sel = rs.analysis.selection
    eng = TraceProcessorEngine(extra_sql_packages=[str(package)])
    try:
        eng.load(FIXTURES / trace)
        modules = {m: build_module(m) for m in metric_names()}
        for m in modules:
            eng.query(f"INCLUDE PERFETTO MODULE {PACKAGE}.{m}")
        for result in rs.results:
            run = result["run"]
            out = {}
            for m, module in modules.items():
                out[m] = eng.query(_call(module, app, result, opts, sel))
                _compare(out[m], _reference(rs, m, run), run, f"tp {trace} run {run} {m}")
            _headlines(result, out)
        # the documented one-liner form works too
        whole = eng.query(f"SELECT * FROM {PACKAGE}_gc('{app}', trace_start(), trace_end())")
        assert whole.height == 1
    finally:
        eng.close()
        rs.engine.close()
