"""The compiled engine core (engine-core/, a Rust extension ``artscope._core``):
the embedded engine's importer.

It unwraps containers (gzip, zip, ctrace), decodes Perfetto protobuf and
systrace HTML / text, and replays them with trace_processor's import
semantics into tables. They stay in Rust as columns, served to the core's
own SQLite as virtual tables (trace_processor's design); queries run there
and their results cross into Python as Arrow arrays per column, through the
Arrow C data interface that polars reads directly (``CoreStore``). ``import_proto`` / ``import_trace`` give the same tables as
one serialized SQLite database (``sqlite3.Connection.deserialize``), which
tests use as an oracle for the virtual tables. The extension is always built
by ``pip install`` (maturin), or in place by ``python3 tools/build_core.py``.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Callable, NamedTuple, Sequence

import polars as pl

from artscope import _core  # type: ignore[attr-defined]
from artscope.errors import TraceError


class Inspection(NamedTuple):
    """What a trace file is, checked without importing it."""

    kind: str  # "proto" | "systrace"
    partial: bool
    warnings: list[str]


def inspect(data: bytes, path: str = "") -> Inspection:
    """Unwrap containers, detect the kind and check a protobuf trace's packet
    framing, with the same one-line errors (TraceError naming ``path``) and
    warnings as an import; for engines that import the file themselves."""
    try:
        kind, partial, warnings = _core.inspect(data, path)
    except _core.CoreError as e:  # the core's messages name the input
        raise TraceError(str(e)) from None
    return Inspection(kind, partial, list(warnings))


def _trace_config_text(imported: Any) -> str | None:
    """The last recorded TraceConfig that parses, as text proto (what
    trace_processor shows as metadata.trace_config_pbtxt). The core does not
    know TraceConfig's nested layout: a config that does not parse here makes
    its packet corrupt, as a whole-packet protobuf parse would."""
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    text, bad = None, 0
    for raw in imported.trace_configs():
        try:
            pb.TraceConfig.FromString(raw)
            # trace_processor prints the top-level fields in the order they
            # were written, without a final newline (text_format: in field
            # number order, with one): each run of one field is printed alone
            text = "".join(text_format.MessageToString(pb.TraceConfig.FromString(part))
                           for part in _field_runs(raw)).rstrip("\n")
        except (DecodeError, ValueError):
            bad += 1
    imported.reject_packets(bad)
    return text


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        shift += 7
        if not b & 0x80:
            return value, pos


def _field_runs(raw: bytes) -> list[bytes]:
    """``raw`` (a parsed message's bytes) cut into runs of consecutive
    occurrences of one top-level field, in wire order."""
    runs: list[bytes] = []
    pos, run_start, run_field = 0, 0, None
    while pos < len(raw):
        start = pos
        key, pos = _varint(raw, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(raw, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            n, pos = _varint(raw, pos)
            pos += n
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"wire type {wire}")
        if field != run_field:
            if run_field is not None:
                runs.append(raw[run_start:start])
            run_start, run_field = start, field
    if run_field is not None:
        runs.append(raw[run_start:])
    return runs


class CoreImport(NamedTuple):
    """What one import gives: the tables and the load's flags."""

    conn: sqlite3.Connection
    partial: bool
    warnings: list[str]
    packets: int


def import_proto(data: bytes, path: str = "",
                 ingest_ftrace_in_raw: bool = True) -> CoreImport:
    """Import Perfetto protobuf ``data`` into a connection holding every table,
    view and index; TraceError naming ``path`` for bad input."""
    return _to_connection(_import_proto(data, path, ingest_ftrace_in_raw), path)


def import_trace(data: bytes, path: str = "",
                 ingest_ftrace_in_raw: bool = True) -> CoreImport:
    """Import a trace file's bytes of any kind the embedded engine reads
    (gzip / zip / ctrace containers around Perfetto protobuf or systrace HTML
    / text, detected from the content) into a connection
    holding every table, view and index; TraceError naming ``path`` for bad
    input. Systrace never fills ftrace_event (as trace_processor's text
    reader)."""
    return _to_connection(_import_trace(data, path, ingest_ftrace_in_raw), path)


class CoreSession(NamedTuple):
    """What one import gives when the core serves the tables itself."""

    store: "CoreStore"
    partial: bool
    warnings: list[str]
    packets: int


def open_trace(data: bytes, path: str = "",
               ingest_ftrace_in_raw: bool = True) -> CoreSession:
    """As :func:`import_trace`, into a core session (virtual tables over the
    core's columns): what the embedded engine uses."""
    return _to_session(_import_trace(data, path, ingest_ftrace_in_raw), path)


def open_file(path: str, ingest_ftrace_in_raw: bool = True) -> CoreSession:
    """As :func:`open_trace` for the file at ``path``, read by the core
    itself: its bytes are freed as soon as they are decoded (peak memory)."""
    try:
        imported = _core.import_file(path, ingest_ftrace_in_raw)
    except _core.CoreError as e:  # the core's messages name the input
        raise TraceError(str(e)) from None
    return _to_session(imported, path)


def _import_proto(data: bytes, path: str, ingest_ftrace_in_raw: bool) -> Any:
    try:
        return _core.import_proto(data, ingest_ftrace_in_raw)
    except _core.CoreError as e:
        raise TraceError(f"{e}: {path}") from None


def _import_trace(data: bytes, path: str, ingest_ftrace_in_raw: bool) -> Any:
    try:
        return _core.import_trace(data, path, ingest_ftrace_in_raw)
    except _core.CoreError as e:  # the core's messages name the input
        raise TraceError(str(e)) from None


def _spend(imported: Any, path: str,
           build: Callable[[str | None], Any]) -> tuple[Any, bool, list[str], int]:
    """The import's flags, then its tables from ``build`` (its ``to_sqlite``
    or ``open_session``, which use the import up); TraceError naming ``path``."""
    try:
        config = _trace_config_text(imported)
        partial, warnings, packets = imported.partial, list(imported.warnings), imported.packets
        return build(config), partial, warnings, packets
    except _core.CoreError as e:
        raise TraceError(f"{e}: {path}") from None


def _to_connection(imported: Any, path: str) -> CoreImport:
    blob, partial, warnings, packets = _spend(imported, path, imported.to_sqlite)
    out = CoreImport(sqlite3.connect(":memory:", check_same_thread=False),
                     partial, warnings, packets)
    out.conn.deserialize(blob)
    return out


def _to_session(imported: Any, path: str) -> CoreSession:
    session, partial, warnings, packets = _spend(imported, path, imported.open_session)
    return CoreSession(CoreStore(session), partial, warnings, packets)


def _series(name: str, spec: tuple[Any, ...]) -> pl.Series:
    """One result column from the core (see lib.rs column_to_py): an Arrow
    array polars takes as it is, or a list of Python values."""
    kind, values = spec
    if kind == "object":  # blobs or mixed types: base.columns_to_frame's rules
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1:
            values = [None if v is None else str(v) for v in values]
        return pl.Series(name, values, strict=False)
    return pl.Series(values).alias(name)


def _frame(names: list[str], columns: list[tuple[Any, ...]]) -> pl.DataFrame:
    """A result's columns (Arrow buffers from the core) as a DataFrame."""
    from artscope.engines.base import unique_column_names
    if not names:
        return pl.DataFrame()
    names = unique_column_names(list(names))
    return pl.DataFrame([_series(n, c) for n, c in zip(names, columns)])


class CoreStore:
    """The embedded engine's store: frame / execute_script / create_table /
    close, with queries run in the core's SQLite over its virtual tables. SQL
    errors are ``sqlite3.OperationalError`` with SQLite's message."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def frame(self, sql: str) -> pl.DataFrame:
        """The last statement's result as a DataFrame (columns from Arrow
        arrays: no per-row Python objects)."""
        return _frame(*self.session.execute(sql))

    def frames(self, queries: list[str]) -> list[pl.DataFrame]:
        """Each query's result as :meth:`frame` gives it, the queries run
        two at a time by the core (read-only queries only)."""
        return [_frame(names, columns) for names, columns in self.session.execute_many(queries)]

    def execute_script(self, sql: str, unique_names: bool = True
                       ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one or more statements; the last one's columns and rows, each
        value of SQLite's own type (a column mixing types keeps them, where
        :meth:`frame` must make it one type). Repeated column names are
        suffixed as :meth:`frame` does unless ``unique_names`` is False (the
        names exactly as SQL gives them)."""
        from artscope.engines.base import unique_column_names
        names, columns = self.session.execute(sql, exact_types=True)
        if not names:
            return [], []
        values = [list(spec[1]) if spec[0] == "object" else _series(name, spec).to_list()
                  for name, spec in zip(names, columns)]
        names = unique_column_names(list(names)) if unique_names else list(names)
        return names, list(zip(*values))

    def create_table(self, name: str, columns: Sequence[str],
                     rows: Sequence[Sequence[Any]]) -> None:
        self.session.create_table(name, list(columns), [list(r) for r in rows])

    def close(self) -> None:
        self.session.close()
