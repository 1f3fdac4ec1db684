"""The embedded engine: artscope's own offline importer, the compiled core.

file (or bytes) --core (engine-core/: reading, containers, decoding,
replay, tables)--> virtual tables in the core's SQLite --> Arrow --> polars
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import polars as pl

from artscope.engines import truncation
from artscope.engines.base import Engine, LoadInfo
from artscope.engines.embedded import coverage
from artscope.engines.embedded.core import CoreStore

T = TypeVar("T")


class EmbeddedEngine(Engine):
    """Imports the trace itself (no trace_processor binary needed)."""

    name = "embedded"

    def __init__(self, ingest_ftrace_in_raw: bool = True) -> None:
        super().__init__()
        self.ingest_ftrace_in_raw = ingest_ftrace_in_raw
        self.store: CoreStore | None = None
        self._said_skipped = False

    def load(self, path: str | Path) -> LoadInfo:
        from artscope.engines.embedded import core
        from artscope.engines.embedded.formats import check_file

        # the core reads the file: it frees the bytes once decoded
        check_file(path)
        info = self._adopt(core.open_file(str(path), self.ingest_ftrace_in_raw), str(path))
        # a systrace file cut before its end, which the core imports silently
        return truncation.mark(info, truncation.file_truncation(path))

    def load_bytes(self, data: bytes, path: str = "<memory>") -> LoadInfo:
        """Import a trace file's ``data`` (any kind :meth:`load` reads);
        ``path`` names it in errors and in the LoadInfo."""
        from artscope.engines.embedded import core

        info = self._adopt(core.open_trace(data, path, self.ingest_ftrace_in_raw), path)
        return truncation.mark(info, truncation.truncation(data))

    def _adopt(self, imported: Any, path: str) -> LoadInfo:
        # The compiled core, for every input kind (containers, protobuf,
        # systrace): built and queried in Rust.
        self._said_skipped = False
        self.store = imported.store
        self.info = LoadInfo(engine=self.name, path=path,
                             partial=imported.partial, warnings=imported.warnings)
        return self.info

    def query(self, sql: str) -> pl.DataFrame:
        return self._served(lambda store: store.frame(sql), sql)

    def query_many(self, queries: Sequence[str]) -> list[pl.DataFrame]:
        """As :meth:`query` for each, run two at a time by the core (the
        second on a connection of its own over the same tables) unless
        :attr:`concurrent_queries` is off or the trace is small."""
        if not self.concurrent_queries:
            return super().query_many(queries)
        return self._served(lambda store: store.frames(list(queries)), "\n".join(queries))

    @property
    def runs_queries_concurrently(self) -> bool:
        return self.concurrent_queries

    def _served(self, run: Callable[[Any], T], sql: str) -> T:
        """`run` on the store, for :meth:`query` / :meth:`query_many`: the
        user's first query says which data was skipped."""
        if self.store is None:
            raise RuntimeError("no trace loaded")
        # (the user is the caller of query / query_many: three frames up)
        if not self._said_skipped and not coverage.called_from_artscope(depth=3):
            self._warn_skipped_data()
        try:
            return run(self.store)
        except sqlite3.Error as e:  # one line naming what is not served
            raise coverage.query_error(e, self.name, sql) from None

    def _warn_skipped_data(self) -> None:
        """Once per trace: which tables lack the data the importer skipped."""
        self._said_skipped = True
        assert self.store is not None
        _, rows = self.store.execute_script(
            f"SELECT name, value FROM stats WHERE name LIKE '{coverage.SKIPPED_STAT_PREFIX}%'")
        message = coverage.skipped_data_message(rows)
        if message:
            # (stacklevel: the user, the caller of query / query_many)
            warnings.warn(message, coverage.SkippedDataWarning, stacklevel=4)

    def create_table(self, name: str, columns: Sequence[str],
                     rows: Sequence[Sequence[Any]]) -> None:
        if self.store is None:
            raise RuntimeError("no trace loaded")
        self.store.create_table(name, columns, rows)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
