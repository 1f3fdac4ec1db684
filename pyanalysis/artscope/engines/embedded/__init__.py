"""The embedded engine: artscope's own offline importer over SQLite.

bytes --formats--> proto.py / text.py --EventSink--> tables.py --> store.py
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path
from typing import Any, Sequence

import polars as pl

from artscope.engines.base import Engine, LoadInfo
from artscope.engines.embedded import coverage
from artscope.engines.embedded.core import CoreStore
from artscope.engines.embedded.events import EventSink
from artscope.engines.embedded.store import Store
from artscope.engines.embedded.tables import build_tables
from artscope.errors import TraceError


def decode_bytes(kind: str, data: bytes, path: str = "") -> EventSink:
    """Decode trace bytes of a detected ``kind`` ('proto' | 'systrace')."""
    sink = EventSink()
    if kind == "systrace":
        from artscope.engines.embedded.text import decode_systrace
        decode_systrace(data, sink)
        if not (len(sink.switches) or sink.ftrace or sink.packets or len(sink.wakings)):
            raise TraceError(f"no trace events found in systrace file: {path}")
    else:
        from artscope.engines.embedded.proto import decode_proto
        if decode_proto(data, sink) == 0:
            raise TraceError(f"not a Perfetto or systrace trace: {path}")
    return sink


class EmbeddedEngine(Engine):
    """Imports the trace itself (no trace_processor binary needed)."""

    name = "embedded"

    def __init__(self, ingest_ftrace_in_raw: bool = True) -> None:
        super().__init__()
        self.ingest_ftrace_in_raw = ingest_ftrace_in_raw
        self.store: Store | CoreStore | None = None
        self._said_skipped = False

    def load(self, path: str | Path) -> LoadInfo:
        from artscope.engines.embedded import core
        from artscope.engines.embedded.formats import read_file, read_trace_bytes

        self._said_skipped = False
        if core.enabled():
            # The compiled core, for every input kind (containers, protobuf,
            # systrace): same tables as the Python importer below
            # (tools/compare_core.py), built and queried in Rust.
            imported = core.open_trace(read_file(path), str(path),
                                       self.ingest_ftrace_in_raw)
            self.store = imported.store
            self.info = LoadInfo(engine=self.name, path=str(path),
                                 partial=imported.partial, warnings=imported.warnings)
            return self.info
        tb = read_trace_bytes(path)
        sink = decode_bytes(tb.kind, tb.data, str(path))
        sink.warnings[:0] = list(tb.warnings)
        # trace_processor's systrace reader does no raw ftrace ingestion (no
        # ftrace_event rows, and no bounds/thread/cpu rows from them).
        raw = self.ingest_ftrace_in_raw and tb.kind != "systrace"
        return self.load_sink(sink, str(path), partial=tb.partial, ingest_ftrace_in_raw=raw)

    def load_sink(self, sink: EventSink, path: str = "<memory>",
                  partial: bool = False,
                  ingest_ftrace_in_raw: bool | None = None) -> LoadInfo:
        raw = self.ingest_ftrace_in_raw if ingest_ftrace_in_raw is None else ingest_ftrace_in_raw
        tables = build_tables(sink, raw)
        self.store = Store(tables)
        self._said_skipped = False
        self.info = LoadInfo(engine=self.name, path=path,
                             partial=sink.partial or partial,
                             warnings=list(sink.warnings))
        return self.info

    def query(self, sql: str) -> pl.DataFrame:
        if self.store is None:
            raise RuntimeError("no trace loaded")
        if not self._said_skipped and not coverage.called_from_artscope():
            self._warn_skipped_data()
        try:
            return self.store.frame(sql)
        except sqlite3.Error as e:  # one line naming what is not served
            raise coverage.query_error(e, self.name) from None

    def _warn_skipped_data(self) -> None:
        """Once per trace: which tables lack the data the importer skipped."""
        self._said_skipped = True
        assert self.store is not None
        _, rows = self.store.execute_script(
            f"SELECT name, value FROM stats WHERE name LIKE '{coverage.SKIPPED_STAT_PREFIX}%'")
        message = coverage.skipped_data_message(rows)
        if message:
            warnings.warn(message, coverage.SkippedDataWarning, stacklevel=3)

    def create_table(self, name: str, columns: Sequence[str],
                     rows: Sequence[Sequence[Any]]) -> None:
        if self.store is None:
            raise RuntimeError("no trace loaded")
        self.store.create_table(name, columns, rows)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
