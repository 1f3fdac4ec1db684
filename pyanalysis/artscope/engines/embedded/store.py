"""Tables -> an in-memory SQLite database that answers trace_processor SQL.

Creates the base tables, the public views trace_processor exposes over them
(sched_slice, thread_track, process_track, counter_track, cpu_counter_track,
...), registers trace_processor's prelude functions (trace_start(),
trace_end(), trace_dur()) and materialises deferred tables (ftrace_event,
thread_state) the first time a statement names them.
"""

from __future__ import annotations

import gc
import itertools
import re
import sqlite3
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from artscope.engines.embedded.tables import RowBlocks, Table

if TYPE_CHECKING:
    import polars as pl

# Public views over the internal track table (see contract section 1.6).
_VIEWS = {
    "sched_slice": "SELECT * FROM sched",
    "track": ("SELECT id, name, type, parent_id, dimension_arg_set_id, "
              "source_arg_set_id, machine_id, event_type, counter_unit FROM __track"),
    "thread_track": ("SELECT id, name, type, parent_id, source_arg_set_id, machine_id, "
                     "_utid AS utid FROM __track "
                     "WHERE event_type = 'slice' AND _utid IS NOT NULL"),
    "process_track": ("SELECT id, name, type, parent_id, source_arg_set_id, machine_id, "
                      "_upid AS upid FROM __track "
                      "WHERE event_type = 'slice' AND _upid IS NOT NULL"),
    "counter_track": ("SELECT id, name, type, parent_id, dimension_arg_set_id, "
                      "machine_id, counter_unit AS unit, NULL AS description "
                      "FROM __track WHERE event_type = 'counter'"),
    "cpu_counter_track": ("SELECT id, name, type, parent_id, machine_id, "
                          "counter_unit AS unit, NULL AS description, _cpu AS cpu, "
                          "_cpu AS ucpu FROM __track "
                          "WHERE event_type = 'counter' AND _cpu IS NOT NULL"),
    "process_counter_track": ("SELECT id, name, type, parent_id, machine_id, "
                              "counter_unit AS unit, NULL AS description, _upid AS upid "
                              "FROM __track WHERE event_type = 'counter' "
                              "AND _upid IS NOT NULL"),
    "thread_counter_track": ("SELECT id, name, type, parent_id, machine_id, "
                             "counter_unit AS unit, NULL AS description, _utid AS utid "
                             "FROM __track WHERE event_type = 'counter' "
                             "AND _utid IS NOT NULL"),
}

_INDEXES = (
    "CREATE INDEX sched_utid ON sched(utid, ts)",
    "CREATE INDEX sched_cpu ON sched(cpu, ts)",
    "CREATE INDEX slice_track ON slice(track_id, ts)",
    "CREATE INDEX counter_track_ts ON counter(track_id, ts)",
    "CREATE INDEX args_set ON args(arg_set_id)",
)

# Deferred tables and the names that trigger them.
_DEFERRED_ALIASES = {"ftrace_event": ("ftrace_event", "raw"),
                     "thread_state": ("thread_state",)}


class Store:
    """An SQLite connection holding one trace's tables."""

    def __init__(self, tables: dict[str, Table]) -> None:
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        # Temp storage (the sorter's spill runs for CREATE INDEX, big GROUP
        # BY / window sorts) stays in files when a temp dir is writable:
        # with temp_store = MEMORY, SQLite's sorter merges through in-memory
        # journals and index builds on large tables are ~3x slower (bench/:
        # 2M-row sched indexes 5.0 s -> 1.6 s). The files are deleted on close.
        if not _temp_dir_writable():
            self.conn.execute("PRAGMA temp_store = MEMORY")
        self._deferred: dict[str, Table] = {}
        for name, table in tables.items():
            if callable(table.rows):
                self._deferred[name] = table
                continue
            self._create(name, table)
        for name, sql in _VIEWS.items():
            self.conn.execute(f"CREATE VIEW {name} AS {sql}")
        for stmt in _INDEXES:
            self.conn.execute(stmt)
        self._register_functions()
        self._trigger = {
            alias: name for name in self._deferred
            for alias in _DEFERRED_ALIASES.get(name, (name,))}
        self._trigger_re = re.compile(
            r"\b(" + "|".join(map(re.escape, self._trigger)) + r")\b", re.I
        ) if self._trigger else None

    @classmethod
    def from_connection(cls, conn: sqlite3.Connection) -> "Store":
        """A store over a database that already holds every table, view and
        index (the compiled core's, deserialized): nothing deferred."""
        self = cls.__new__(cls)
        self.conn = conn
        self.conn.execute("PRAGMA synchronous = OFF")
        if not _temp_dir_writable():
            self.conn.execute("PRAGMA temp_store = MEMORY")
        self._deferred = {}
        self._register_functions()
        self._trigger = {}
        self._trigger_re = None
        return self

    def _register_functions(self) -> None:
        start, end = self.conn.execute(
            "SELECT start_ts, end_ts FROM trace_bounds").fetchone()
        self.conn.create_function("trace_start", 0, lambda: start, deterministic=True)
        self.conn.create_function("trace_end", 0, lambda: end, deterministic=True)
        self.conn.create_function("trace_dur", 0, lambda: end - start, deterministic=True)
        # EXTRACT_ARG(arg_set_id, key) as trace_processor's prelude defines it
        # (typed value of one arg), backed by a dict built on first use so a
        # query never re-enters SQLite from inside a UDF.
        self._arg_index: dict[tuple[int, str], Any] | None = None
        self.conn.create_function("extract_arg", 2, self._extract_arg,
                                  deterministic=True)
        self.conn.commit()

    def _extract_arg(self, arg_set_id: int | None, key: str | None) -> Any:
        if arg_set_id is None or key is None:
            return None
        if self._arg_index is None:
            index: dict[tuple[int, str], Any] = {}
            for set_id, k, iv, sv, rv in self.conn.execute(
                    "SELECT arg_set_id, key, int_value, string_value, real_value "
                    "FROM args"):
                index[(set_id, k)] = iv if iv is not None else (
                    sv if sv is not None else rv)
            self._arg_index = index
        return self._arg_index.get((arg_set_id, key))

    def _create(self, name: str, table: Table) -> None:
        real = "__track" if name == "track" else name
        gen = table.generated
        defs = []
        for i, (c, t) in enumerate(table.columns):
            if c in gen:
                defs.append(f"{c} {t} AS ({gen[c]})")
            elif i == 0 and c == "id" and t == "INTEGER":
                # ids are unique non-null integers (row numbers): as the rowid
                # alias they cost no separate column, and inserts and index
                # builds are ~1/3 faster (bench/: 2M sched rows). Values and
                # SELECT * are unchanged.
                defs.append("id INTEGER PRIMARY KEY")
            else:
                defs.append(f"{c} {t}")
        self.conn.execute(f"CREATE TABLE {real} ({', '.join(defs)})")
        rows = table.rows() if callable(table.rows) else table.rows
        if rows is not None:
            stored = [c for c, _ in table.columns if c not in gen]
            if table.auto_id:
                assert stored[0] == "id"
                stored = stored[1:]
            _insert(self.conn, real, stored, rows, table.auto_id)

    def ensure_tables_for(self, sql: str) -> None:
        """Materialise the deferred tables ``sql`` mentions."""
        if self._trigger_re is None:
            return
        for m in set(x.lower() for x in self._trigger_re.findall(sql)):
            name = self._trigger.get(m)
            if name is None or name not in self._deferred:
                continue
            table = self._deferred.pop(name)
            # Millions of short-lived row tuples: the cyclic GC paused (its
            # gen-2 passes rescan every live container of the trace).
            was_enabled = gc.isenabled()
            gc.disable()
            try:
                self._create(name, table)
            finally:
                if was_enabled:
                    gc.enable()
            if name == "ftrace_event":
                # No index on name: the metric files that read it
                # (frequency*.sql, affinity_evidence.sql) scan it once each
                # (~0.1-0.2 s on bench/'s 2.45M rows); building the index cost
                # more (0.6-1.1 s) than the scans it would save.
                self.conn.execute("CREATE VIEW raw AS SELECT * FROM ftrace_event")
            if name == "thread_state":
                self.conn.execute("CREATE INDEX thread_state_utid ON thread_state(utid, ts)")
            self.conn.commit()
        self._trigger = {a: n for a, n in self._trigger.items() if n in self._deferred}
        self._trigger_re = re.compile(
            r"\b(" + "|".join(map(re.escape, self._trigger)) + r")\b", re.I
        ) if self._trigger else None

    def execute_script(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one or more statements; return the last one's columns and rows."""
        self.ensure_tables_for(sql)
        statements = split_statements(sql)
        cols: list[str] = []
        rows: list[tuple[Any, ...]] = []
        for stmt in statements:
            cur = self.conn.execute(stmt)
            if cur.description is not None:
                cols = [d[0] for d in cur.description]
                rows = cur.fetchall()
            else:
                cols, rows = [], []
        return cols, rows

    def frame(self, sql: str) -> "pl.DataFrame":
        """The last statement's result as a DataFrame."""
        from artscope.engines.base import rows_to_frame
        return rows_to_frame(*self.execute_script(sql))

    def create_table(self, name: str, columns: Sequence[str],
                     rows: Sequence[Sequence[Any]]) -> None:
        self.conn.execute(f"DROP TABLE IF EXISTS {name}")
        self.conn.execute(f"CREATE TEMP TABLE {name} ({', '.join(columns)})")
        if rows:
            marks = ", ".join("?" * len(columns))
            self.conn.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)

    def close(self) -> None:
        self.conn.close()


# Rows per multi-row INSERT: one statement step binds and inserts this many
# rows (bench/: 1M 9-column rows 1.8 s -> 1.1 s with 64 rows per statement).
_BATCH = 64


def _insert(conn: sqlite3.Connection, table: str, columns: Sequence[str],
            rows: Iterable[Sequence[Any]], auto_id: bool = False) -> None:
    """INSERT ``rows`` (tuples of ``columns``) in multi-row statements.

    With ``auto_id`` the rows lack the leading INTEGER PRIMARY KEY ``id``:
    the first row gets id 0 and SQLite numbers the others max(id) + 1, i.e.
    0, 1, 2, ... in row order (the table is empty before).
    """
    one = "(" + ", ".join("?" * len(columns)) + ")"
    cols = ", ".join(columns)
    first_stmt = f"INSERT INTO {table} (id, {cols}) VALUES (0, {one[1:]}"
    many = f"INSERT INTO {table} ({cols}) VALUES " + ", ".join([one] * _BATCH)
    if isinstance(rows, RowBlocks):
        # values already laid out row-major: batches are slices of one list
        width = len(columns) * _BATCH
        for block in rows.blocks:
            if auto_id and len(block):
                conn.execute(first_stmt, block[0].tolist())
                block = block[1:]
                auto_id = False
            full = len(block) // _BATCH * _BATCH
            flat = block[:full].ravel().tolist()
            conn.executemany(many, (tuple(flat[i:i + width])
                                    for i in range(0, len(flat), width)))
            if full < len(block):
                conn.executemany(f"INSERT INTO {table} ({cols}) VALUES {one}",
                                 map(tuple, block[full:].tolist()))
        return
    it = iter(rows)
    if auto_id:
        first = next(it, None)
        if first is None:
            return
        conn.execute(first_stmt, first)
    rest: list[Sequence[Any]] = []
    chain, islice = itertools.chain.from_iterable, itertools.islice

    def batches() -> Iterator[tuple[Any, ...]]:
        while True:
            batch = tuple(islice(it, _BATCH))
            if len(batch) < _BATCH:
                rest.extend(batch)
                return
            yield tuple(chain(batch))

    conn.executemany(many, batches())
    if rest:
        conn.executemany(f"INSERT INTO {table} ({cols}) VALUES {one}", rest)


def _temp_dir_writable() -> bool:
    import os
    import tempfile
    try:
        return os.access(tempfile.gettempdir(), os.W_OK)
    except OSError:
        return False


def split_statements(sql: str) -> list[str]:
    """Split SQL text into complete statements (comments and strings aware)."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf)
            buf = ""
    if buf.strip() and _strip_comments(buf).strip():
        out.append(buf)
    return [s for s in out if _strip_comments(s).strip().rstrip(";").strip()]


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)
