"""The Engine interface: a trace loaded into trace_processor-shaped tables.

Both engines expose the same public tables, trace_processor's (the tables and
columns the metric SQL reads: docs/trace-processor-contract.md), so that one
metric SQL file runs unchanged on either. Inputs reach metric SQL only through small temp tables
created with :meth:`Engine.create_table`.
"""

from __future__ import annotations

import abc
import dataclasses
from pathlib import Path
from typing import Any, Sequence

import polars as pl


@dataclasses.dataclass
class LoadInfo:
    """What an engine learned while loading, beyond the tables themselves."""

    engine: str
    path: str
    #: True when the trace was truncated or otherwise only partly imported.
    partial: bool = False
    #: One-line, user-facing warnings raised during import.
    warnings: list[str] = dataclasses.field(default_factory=list)


class Engine(abc.ABC):
    """A loaded trace that answers SQL with polars DataFrames."""

    #: 'embedded' or 'trace_processor'; recorded in every result.
    name: str = ""
    #: Whether query_many may run queries concurrently (on another core); a
    #: batch whose workers keep every core busy turns it off.
    concurrent_queries: bool = True

    def __init__(self) -> None:
        self.info: LoadInfo | None = None

    @abc.abstractmethod
    def load(self, path: str | Path) -> LoadInfo:
        """Import the trace at ``path``. Raises TraceError for bad input."""

    @abc.abstractmethod
    def query(self, sql: str) -> pl.DataFrame:
        """Run SQL (one or more statements; the last one's rows are returned)."""

    def query_many(self, queries: Sequence[str]) -> list[pl.DataFrame]:
        """Run independent read-only queries (over the trace's tables and
        :meth:`create_table`'s); their results in order. An engine may run
        them concurrently; this one runs them one after another."""
        return [self.query(sql) for sql in queries]

    @property
    def runs_queries_concurrently(self) -> bool:
        """Whether :meth:`query_many` runs its queries beside one another
        (then one more in a batch costs no wall time while another still
        runs)."""
        return False

    @abc.abstractmethod
    def create_table(
        self, name: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """(Re)create temp table ``name`` holding ``rows`` (ints, floats, str, None)."""

    def close(self) -> None:
        """Release the engine's resources."""

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def unique_column_names(cols: list[str]) -> list[str]:
    """SQL allows a result to repeat a column name (``SELECT t.name, p.name``);
    a DataFrame does not. Later repeats get polars' join suffix: ``name``,
    ``name_right``, ``name_right_2``, ... (never clashing with another column)."""
    taken = set(cols)
    seen: set[str] = set()
    out = []
    for name in cols:
        if name in seen:
            candidate, n = f"{name}_right", 2
            while candidate in taken:
                candidate, n = f"{name}_right_{n}", n + 1
            taken.add(candidate)
            name = candidate
        seen.add(name)
        out.append(name)
    return out


def rows_to_frame(cols: list[str], rows: list[tuple[Any, ...]]) -> pl.DataFrame:
    """Build a DataFrame from DB-API rows (see columns_to_frame)."""
    if not cols:
        return pl.DataFrame()
    return columns_to_frame(cols, list(zip(*rows)) if rows else [[] for _ in cols])


def columns_to_frame(cols: list[str], columns: list[Sequence[Any]]) -> pl.DataFrame:
    """Build a DataFrame from per-column values; mixed int/float columns become
    float, other mixed columns strings; repeated column names are suffixed
    (unique_column_names)."""
    if not cols:
        return pl.DataFrame()
    cols = unique_column_names(list(cols))
    series = []
    for name, values in zip(cols, columns):
        values = list(values)
        kinds = {type(v) for v in values if v is not None}
        if kinds == {int, float}:
            values = [None if v is None else float(v) for v in values]
        elif len(kinds) > 1:
            values = [None if v is None else str(v) for v in values]
        series.append(pl.Series(name, values, strict=False))
    return pl.DataFrame(series)
