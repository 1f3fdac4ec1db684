"""The compiled core's query path (engine-core/src/vtab.rs, session.rs)
answers exactly as SQLite's own tables do.

The oracle is the same import as a real SQLite database (``to_sqlite``, the
tables bulk-inserted), with trace_processor's prelude functions registered
here in Python: every table and view read whole, and queries that exercise each way the
virtual tables find rows (equality through an index, the row number, ts
ranges, IN lists, ORDER BY taken from the scan order) and each way they must
fall back to a scan (values of another type, NULL, other collations), give
the same typed DataFrame on both.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import polars as pl
import pytest

from artscope.engines.base import rows_to_frame
from artscope.engines.embedded import core

REPO = Path(__file__).resolve().parents[2]

FIXTURES = sorted(p for p in (REPO / "fixtures").iterdir()
                  if p.name.endswith((".pftrace", ".pftrace.gz")))


def _with_prelude(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Registers the reference trace_start() / trace_end() / trace_dur() and
    EXTRACT_ARG(arg_set_id, key) (trace_processor's prelude: the typed value
    of one arg) on ``conn``."""
    start, end = conn.execute("SELECT start_ts, end_ts FROM trace_bounds").fetchone()
    conn.create_function("trace_start", 0, lambda: start, deterministic=True)
    conn.create_function("trace_end", 0, lambda: end, deterministic=True)
    conn.create_function("trace_dur", 0, lambda: end - start, deterministic=True)
    args = {(set_id, key): iv if iv is not None else (sv if sv is not None else rv)
            for set_id, key, iv, sv, rv in conn.execute(
                "SELECT arg_set_id, key, int_value, string_value, real_value FROM args")}
    conn.create_function(
        "extract_arg", 2,
        lambda set_id, key: None if set_id is None or key is None else args.get((set_id, key)),
        deterministic=True)
    return conn


def _both(data: bytes) -> tuple[sqlite3.Connection, core.CoreStore]:
    """The oracle connection and the core's store for a trace file's bytes."""
    oracle = _with_prelude(core.import_trace(data, "oracle").conn)
    return oracle, core.open_trace(data, "core").store


def _oracle_frame(conn: sqlite3.Connection, sql: str) -> pl.DataFrame:
    cur = conn.execute(sql)
    return rows_to_frame([d[0] for d in cur.description], cur.fetchall())


def _tables(conn: sqlite3.Connection) -> list[str]:
    return sorted(n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"))


def _assert_same(conn, store, sql: str) -> None:
    want = _oracle_frame(conn, sql)
    got = store.frame(sql)
    assert got.schema == want.schema, sql
    assert got.rows() == want.rows(), sql


def _bench_trace() -> bytes:
    sys.path.insert(0, str(REPO / "bench"))
    import gen_trace
    return gen_trace.encode(gen_trace.simulate(2, 20_000, 3, 0.3), True)


def _whole(name: str) -> str:
    """A whole table; stats without the import's timings (two imports of
    the same bytes take different times)."""
    if name == "stats":
        return ("SELECT * FROM stats WHERE name NOT IN "
                "('guess_trace_type_duration_ns', 'parse_trace_duration_ns')")
    return f"SELECT * FROM {name}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_table_and_view_reads_whole(path):
    conn, store = _both(path.read_bytes())
    for name in _tables(conn):
        _assert_same(conn, store, _whole(name))


@pytest.mark.slow
def test_shared_traces_read_whole(shared_traces):
    for path in sorted(shared_traces.iterdir()):
        data = path.read_bytes() if path.suffix != ".md" else None
        if data is None or core.inspect(data, path.name).kind != "proto":
            continue
        conn, store = _both(data)
        for name in _tables(conn):
            _assert_same(conn, store, _whole(name))


# Each lookup the virtual tables serve, and each case where they must widen
# to a scan and leave the comparison to SQLite.
LOOKUPS = [
    # equality through an index; IN lists; with ts ranges of every operator
    "SELECT * FROM sched WHERE utid = 3 ORDER BY id",
    "SELECT * FROM sched WHERE utid IN (2, 3, 5) ORDER BY id",
    "SELECT id, ts FROM sched WHERE utid = 3 AND ts >= {mid} AND ts < {late} ORDER BY id",
    "SELECT id, ts FROM sched WHERE utid = 3 AND ts > {mid} AND ts <= {late} ORDER BY id",
    "SELECT id FROM sched WHERE utid = 3 AND ts > {late} AND ts < {mid}",
    "SELECT count(*), sum(dur) FROM thread_state WHERE utid = 3 AND state IN ('R', 'R+')",
    "SELECT * FROM sched WHERE cpu = 1 AND ts > {mid} ORDER BY ts LIMIT 5",
    "SELECT (SELECT min(n.ts) FROM sched n WHERE n.cpu = s.cpu AND n.ts > s.ts) "
    "FROM sched s WHERE s.utid = 3 ORDER BY s.id",
    # a second integer column's range checked by the cursor beside the
    # equality and ts range (reals, text and NULL compared as SQLite does)
    "SELECT id, utid FROM sched WHERE cpu = 1 AND ts >= {mid} AND ts < {late} "
    "AND utid >= 2 AND utid <= 4 ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1 AND utid > 0 ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1 AND utid > 2.5 AND utid <= 3.5 ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1 AND utid < 'a' ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1 AND utid > 'a'",
    "SELECT id FROM sched WHERE cpu = 1 AND utid > NULL",
    "SELECT id FROM sched WHERE ts >= {mid} AND utid < 3 ORDER BY id",
    "SELECT id, ts FROM sched WHERE cpu = 1 AND ts < {late} AND utid >= 3 "
    "ORDER BY ts DESC, id DESC LIMIT 2",
    # output order taken from the scan (index order, row order, sorted ts)
    "SELECT id, ts FROM sched WHERE utid = 3 ORDER BY ts",
    "SELECT id, ts FROM sched WHERE utid = 3 ORDER BY ts DESC",
    "SELECT id FROM sched WHERE ts >= {mid} ORDER BY id",
    "SELECT id, ts FROM sched WHERE ts >= {mid} AND ts < {late} ORDER BY ts, id",
    "SELECT id, ts FROM counter WHERE ts >= {mid} ORDER BY ts, id",
    "SELECT id FROM slice WHERE track_id = 1 ORDER BY ts, id",
    # the row number and id columns
    "SELECT * FROM sched WHERE id = 7",
    "SELECT * FROM sched WHERE rowid = 7",
    "SELECT * FROM sched WHERE id IN (0, 2, 99999999, -1) ORDER BY id",
    "SELECT * FROM sched WHERE id >= 5 AND id < 9 ORDER BY id",
    "SELECT * FROM sched WHERE id = 7.0",
    "SELECT * FROM sched WHERE id = 7.5",
    "SELECT t.utid, t.tid, p.pid FROM thread t LEFT JOIN process p USING (upid) ORDER BY t.utid",
    # text equality, other collations, LIKE / GLOB
    "SELECT * FROM sched WHERE end_state = 'S' ORDER BY id",
    "SELECT * FROM sched WHERE end_state = 's' COLLATE NOCASE ORDER BY id",
    "SELECT id FROM thread WHERE name GLOB '*' ORDER BY id",
    "SELECT name, count(*) FROM ftrace_event GROUP BY name ORDER BY name",
    "SELECT * FROM ftrace_event WHERE name > 'sched' ORDER BY id",
    # values of another type and NULL: widened to a scan, SQLite decides
    "SELECT id FROM sched WHERE utid = '3' ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1.0 ORDER BY id",
    "SELECT id FROM sched WHERE cpu = 1.5",
    "SELECT id FROM sched WHERE ts >= '0' ORDER BY id",
    "SELECT id FROM sched WHERE utid = NULL",
    "SELECT id FROM sched WHERE ts > NULL",
    "SELECT id FROM sched WHERE end_state = 0",
    # ... and the rows still come in the order the scan promised SQLite
    "SELECT id, state FROM thread_state WHERE state > 5 ORDER BY state, id",
    "SELECT id, ts FROM slice WHERE name = 5 ORDER BY ts, id",
    "SELECT id, ts FROM expected_frame_timeline_slice WHERE name = 5 ORDER BY ts, id",
    "SELECT id FROM thread_state WHERE cpu IS NULL ORDER BY id",
    # integer columns compared exactly (SQLite's own check omitted): numeric
    # text, other text, blobs, NULL and reals as operands, NULL column values
    "SELECT id FROM sched WHERE utid = ' 3 ' ORDER BY id",
    "SELECT id FROM sched WHERE utid = '3.0' ORDER BY id",
    "SELECT id FROM sched WHERE utid = '+3' ORDER BY id",
    "SELECT id FROM sched WHERE utid = 'abc'",
    "SELECT id FROM sched WHERE utid = x'03'",
    "SELECT id FROM sched WHERE utid IN (3, '5', NULL, 'x') ORDER BY id",
    "SELECT id FROM sched WHERE utid = 3 AND ts < 'abc' ORDER BY id",
    "SELECT id FROM sched WHERE utid = 3 AND ts > 'abc'",
    "SELECT id FROM sched WHERE utid = 3 AND ts >= '{mid}' ORDER BY id",
    "SELECT id FROM sched WHERE utid = 3 AND ts >= {mid}.5 ORDER BY id",
    "SELECT id FROM sched WHERE utid = 3 AND ts <= 1e30 ORDER BY id",
    "SELECT id FROM sched WHERE ts > '1e3' ORDER BY id",
    "SELECT id FROM sched WHERE id < '0x10' ORDER BY id",
    "SELECT id FROM sched WHERE id <= 'inf' ORDER BY id",
    "SELECT id FROM sched WHERE id > 3.5 AND id <= '6' ORDER BY id",
    "SELECT id FROM sched WHERE id = '7'",
    "SELECT id FROM sched WHERE rowid IN (2.0, 2.5, '4')",
    "SELECT id FROM thread_state WHERE cpu < 3 ORDER BY id",
    "SELECT id FROM thread_state WHERE cpu >= 0 AND cpu <= NULL",
    "SELECT id FROM thread_state WHERE waker_utid = 3 ORDER BY id",
    "SELECT id FROM thread_state WHERE io_wait < 5 ORDER BY id",
    "SELECT s.id FROM sched s JOIN thread t ON s.utid = t.utid AND t.tid > 0 "
    "WHERE s.cpu = '2' ORDER BY s.id",
    "SELECT id FROM thread_state WHERE io_wait IS NOT NULL ORDER BY id",
    # generated columns and views
    "SELECT id, ts_end, ucpu FROM sched WHERE ts_end > {mid} ORDER BY id",
    "SELECT * FROM thread_track WHERE utid = 3 ORDER BY id",
    "SELECT * FROM cpu_counter_track WHERE cpu = 0 ORDER BY id",
    "SELECT count(*) FROM raw",
    # joins the metric SQL writes
    "SELECT s.id, t.tid, t.name, p.name FROM sched s JOIN thread t USING (utid) "
    "LEFT JOIN process p USING (upid) WHERE s.cpu = 2 ORDER BY s.id",
    "SELECT c.ts, c.value, t.name FROM counter c JOIN counter_track t ON t.id = c.track_id "
    "ORDER BY c.id",
    # grouped: an equality's rows ordered by another integer column (no
    # sorter for GROUP BY / ORDER BY), ts bounds of every operand type checked
    # per row; NULL column values (thread_state.cpu) and the plans that must
    # not be grouped (text column, order not met) still answer the same
    "SELECT cpu, count(*), sum(dur), min(ts), max(ts) FROM sched WHERE utid = 3 GROUP BY cpu",
    "SELECT cpu, count(*), min(ts) FROM sched WHERE utid = 3 AND ts >= {mid} AND ts < {late} "
    "GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts > {mid}.5 AND ts <= 1e30 GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts > 9223372036854775807 GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts >= -9223372036854775808 "
    "AND ts < -1e30 GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts >= '{mid}' GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts < 'abc' GROUP BY cpu",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts > NULL GROUP BY cpu",
    "SELECT id, cpu, ts FROM sched WHERE utid = 3 ORDER BY cpu, ts, id",
    "SELECT id, cpu FROM sched WHERE utid = 3 ORDER BY cpu, id",
    "SELECT utid, count(*), sum(dur) FROM sched WHERE cpu = 1 AND ts < {late} GROUP BY utid",
    "SELECT cpu, count(*), sum(dur) FROM thread_state WHERE utid = 3 GROUP BY cpu",
    "SELECT state, count(*) FROM thread_state WHERE utid = 3 GROUP BY state",
    "SELECT t.utid, (SELECT group_concat(cpu || ':' || n) FROM (SELECT cpu, count(*) AS n "
    "FROM sched s WHERE s.utid = t.utid AND s.ts < {late} GROUP BY cpu)) FROM thread t "
    "ORDER BY t.utid",
    # two equalities on integer columns: both looked up at once, in ts order,
    # with ts bounds of every operand type; one on a text column, NULL and
    # text operands, a key no row has
    "SELECT id, ts FROM sched WHERE utid = 3 AND cpu = 1 ORDER BY ts, id",
    "SELECT id, ts FROM sched WHERE cpu = 1 AND utid = 3 AND ts >= {mid} AND ts < {late} "
    "ORDER BY ts, id",
    "SELECT id FROM sched WHERE utid = 3 AND cpu = 1 AND ts > {mid}.5 AND ts <= 1e30",
    "SELECT id FROM sched WHERE utid = 3 AND cpu = '1' AND ts < 'abc' ORDER BY ts DESC, id DESC",
    "SELECT id FROM sched WHERE utid = 3 AND cpu = NULL",
    "SELECT id FROM sched WHERE utid = 3 AND cpu = 'abc'",
    "SELECT id FROM sched WHERE utid = 3 AND cpu = 1.5",
    "SELECT id, ts FROM sched WHERE utid = 3 AND cpu = 1 AND ts > {mid} AND priority >= 0 "
    "ORDER BY ts DESC, id DESC",
    "SELECT id FROM thread_state WHERE io_wait = 1 AND utid >= 2 AND utid <= 4 ORDER BY id",
    "SELECT id FROM thread_state WHERE io_wait = 0 AND ts < {late} AND utid > 3 "
    "ORDER BY ts DESC, id DESC LIMIT 5",
    "SELECT id FROM sched WHERE utid = 99999 AND cpu = 1",
    "SELECT id FROM thread_state WHERE utid = 3 AND cpu = 1 ORDER BY id",
    "SELECT id FROM thread_state WHERE utid = 3 AND state = 'S' AND ts > {mid} ORDER BY id",
    "SELECT t.utid, c.cpu, (SELECT count(*) FROM sched s WHERE s.utid = t.utid "
    "AND s.cpu = c.cpu AND s.ts < {late}) FROM thread t, cpu c ORDER BY t.utid, c.cpu",
    # descending: every ORDER BY term DESC reads the scan order in reverse
    # (index ranges, grouped plans with their per-row ts window, row order);
    # mixed directions are sorted by SQLite
    "SELECT id, ts FROM sched WHERE cpu = 1 AND ts < {late} ORDER BY ts DESC, id DESC LIMIT 3",
    "SELECT id, ts, dur FROM sched WHERE utid = 3 AND ts <= {mid} ORDER BY ts DESC, id DESC "
    "LIMIT 1",
    "SELECT id, ts FROM sched WHERE utid = 3 ORDER BY ts DESC, id DESC",
    "SELECT id FROM sched WHERE ts < {late} ORDER BY ts DESC, id DESC LIMIT 4",
    "SELECT id FROM sched WHERE id < 20 ORDER BY id DESC",
    "SELECT id, ts FROM counter WHERE ts >= {mid} ORDER BY ts DESC, id DESC",
    "SELECT id, cpu, ts FROM sched WHERE utid = 3 ORDER BY cpu DESC, ts DESC, id DESC",
    "SELECT id, cpu, ts FROM sched WHERE utid = 3 AND ts > {mid} "
    "ORDER BY cpu DESC, ts DESC, id DESC",
    "SELECT cpu, count(*) FROM sched WHERE utid = 3 GROUP BY cpu ORDER BY cpu DESC",
    "SELECT id, ts FROM sched WHERE utid = 3 ORDER BY ts DESC, id",
    "SELECT id FROM sched WHERE utid = 3 AND ts < 'abc' ORDER BY ts DESC, id DESC",
    "SELECT c.cpu, (SELECT s.id FROM sched s WHERE s.cpu = c.cpu AND s.ts < {mid} "
    "ORDER BY s.ts DESC, s.id DESC LIMIT 1) FROM cpu c ORDER BY c.cpu",
    # ordered scans: with no equality or cheap range, ORDER BY / GROUP BY an
    # integer column reads its index whole (NULLs first; DESC in reverse); a
    # range on another column is then SQLite's to check
    "SELECT utid, count(*), sum(dur), min(ts) FROM sched GROUP BY utid",
    "SELECT utid, sum(dur) FROM sched WHERE dur > 0 AND utid != 0 GROUP BY utid",
    "SELECT id, utid, ts FROM sched ORDER BY utid, ts, id",
    "SELECT id, utid, ts FROM sched ORDER BY utid DESC, ts DESC, id DESC",
    "SELECT id, cpu FROM thread_state ORDER BY cpu, ts, id",
    "SELECT cpu, count(*) FROM thread_state GROUP BY cpu ORDER BY cpu DESC",
    "SELECT id, utid FROM sched WHERE ts > {mid} ORDER BY utid, id",
    "SELECT name, count(*) FROM thread GROUP BY name ORDER BY name",
    # prelude functions
    "SELECT trace_start() <= min(ts) FROM sched",
    "SELECT a.arg_set_id, a.key, extract_arg(a.arg_set_id, a.key) AS v FROM args a ORDER BY a.id",
]


def test_lookups_match_sqlite_tables():
    conn, store = _both(_bench_trace())
    lo, hi = conn.execute("SELECT min(ts), max(ts) FROM sched").fetchone()
    span = {"mid": lo + (hi - lo) // 3, "late": lo + 2 * (hi - lo) // 3}
    assert conn.execute("SELECT count(*) FROM sched WHERE utid = 3").fetchone()[0] > 10
    for sql in LOOKUPS:
        _assert_same(conn, store, sql.format(**span))


def test_grouped_lookups_need_no_sorter():
    """`WHERE utid = ? GROUP BY cpu` reads the rows grouped from a (utid,
    cpu, ts) index: SQLite's plan has no temporary B-tree for the grouping
    (the lookup tests above check the answers)."""
    _, store = _both(FIXTURES[0].read_bytes())

    def plan(sql: str) -> str:
        return " | ".join(store.frame("EXPLAIN QUERY PLAN " + sql)["detail"])

    grouped = plan("SELECT cpu, count(*) FROM sched WHERE utid = 3 AND ts > 5 GROUP BY cpu")
    assert "VIRTUAL TABLE" in grouped and "TEMP B-TREE" not in grouped, grouped
    # the latest slice before a time on a CPU: one seek, read in reverse
    latest = plan("SELECT id FROM sched WHERE cpu = 1 AND ts < 5 ORDER BY ts DESC, id DESC LIMIT 1")
    assert "VIRTUAL TABLE" in latest and "TEMP B-TREE" not in latest, latest
    # every row grouped by an integer column: its index read whole
    whole = plan("SELECT utid, sum(dur) FROM sched WHERE dur > 0 GROUP BY utid")
    assert "VIRTUAL TABLE" in whole and "TEMP B-TREE" not in whole, whole
    # a text column and an IN list (SQLite then never lets a table consume
    # the order) still sort
    for sql in ("SELECT state, count(*) FROM thread_state WHERE utid = 3 GROUP BY state",
                "SELECT cpu, count(*) FROM sched WHERE utid IN (3, 4) GROUP BY cpu"):
        assert "TEMP B-TREE" in plan(sql), sql


def test_results_keep_types_and_repeated_names():
    _, store = _both(FIXTURES[0].read_bytes())
    df = store.frame("SELECT 1 AS a, 1.5 AS b, 'x' AS c, NULL AS d, x'00ff' AS e, "
                     "1 AS a")
    assert df.columns == ["a", "b", "c", "d", "e", "a_right"]
    assert df.dtypes == [pl.Int64, pl.Float64, pl.String, pl.Null, pl.Binary, pl.Int64]
    assert df.row(0) == (1, 1.5, "x", None, b"\x00\xff", 1)
    mixed = store.frame("SELECT 1 AS v UNION ALL SELECT 2.5 UNION ALL SELECT NULL")
    assert mixed["v"].dtype == pl.Float64 and mixed["v"].to_list() == [1.0, 2.5, None]
    empty = store.frame("SELECT id, ts FROM sched WHERE 0")
    assert empty.shape == (0, 2)
    assert store.frame("CREATE TEMP TABLE z (a)").shape == (0, 0)


def test_queries_run_two_at_a_time_answer_as_one_at_a_time():
    """`frames` runs independent queries on two connections over the same
    tables (metric files, concurrently): each answers as `frame` does,
    with create_table's tables seen on both, before and after the second
    connection exists; the first failing query (in order) raises; after a
    statement other than a query, all run on the first connection."""
    conn, store = _both(_bench_trace())
    store.create_table("artscope_probe", ["utid"], [(3,), (4,)])
    lo, hi = conn.execute("SELECT min(ts), max(ts) FROM sched").fetchone()
    span = {"mid": lo + (hi - lo) // 3, "late": lo + 2 * (hi - lo) // 3}
    queries = [sql.format(**span) for sql in LOOKUPS] + [
        "SELECT utid, count(*) AS n FROM sched JOIN artscope_probe USING (utid) GROUP BY utid"]
    frames = store.frames(queries)
    assert len(frames) == len(queries)
    for sql, df in zip(queries, frames):
        assert df.equals(store.frame(sql)), sql
    probe = queries[-1]
    assert frames[-1]["utid"].to_list() == [3, 4]
    # replaced after the second connection was made: both see the new rows
    store.create_table("artscope_probe", ["utid"], [(4,)])
    again = store.frames([probe, "SELECT count(*) AS n FROM artscope_probe"] * 3)
    assert [df.height for df in again[::2]] == [1, 1, 1]
    assert [df.item() for df in again[1::2]] == [1, 1, 1]
    with pytest.raises(sqlite3.OperationalError, match="^no such table: nope$"):
        store.frames(["SELECT 1", "SELECT * FROM nope", "SELECT nope FROM sched"])
    assert [df.item() for df in store.frames(["SELECT 1", "SELECT 2"])] == [1, 2]
    # a view made through `frame` exists on its connection only: from then
    # on `frames` runs every query there
    store.frame("CREATE TEMP VIEW artscope_view AS SELECT utid FROM artscope_probe")
    assert [df.item() for df in store.frames(["SELECT utid FROM artscope_view"] * 4)] == [4] * 4


def test_temp_tables_and_errors():
    _, store = _both(FIXTURES[0].read_bytes())
    store.create_table("artscope_probe", ["a", "b", "c"],
                       [(1, "x", 2.5), (None, "y", True), (3, b"\x01", None)])
    assert store.frame("SELECT * FROM artscope_probe").rows() == [
        (1, "x", 2.5), (None, "y", 1.0), (3, "b'\\x01'", None)]
    store.create_table("artscope_probe", ["a"], [])  # replaced
    assert store.frame("SELECT count(*) AS n FROM artscope_probe").item() == 0
    with pytest.raises(sqlite3.OperationalError, match="^no such table: nope$"):
        store.frame("SELECT * FROM nope")
    with pytest.raises(sqlite3.OperationalError, match="no such column: nope"):
        store.frame("SELECT nope FROM sched")
    with pytest.raises(sqlite3.OperationalError):
        store.frame("DELETE FROM sched")  # read-only tables
    store.close()
    with pytest.raises(Exception, match="closed"):
        store.frame("SELECT 1")
