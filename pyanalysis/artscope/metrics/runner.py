"""Runs sql-metrics/*.sql on an engine: creates the input temp tables, loads
the SQL text from the package data, returns polars DataFrames.

The SQL is never formatted: inputs reach it only through the temp tables
described in sql-metrics/README.md.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import polars as pl

from artscope._resources import resource_dir
from artscope.engines.base import Engine

#: Input tables and their columns (see sql-metrics/README.md).
INPUT_TABLES: dict[str, tuple[str, ...]] = {
    "artscope_run": ("run", "start_ts", "end_ts", "grace_end_ts"),
    "artscope_target_thread": ("utid", "role"),
    "artscope_target_process": ("upid",),
    "artscope_allowed_cpu": ("cpu", "role"),
    "artscope_gc_pattern": ("pattern",),
    "artscope_marker": ("name",),
}


@functools.lru_cache(maxsize=None)
def metric_sql(name: str) -> str:
    """The text of sql-metrics/<name>.sql."""
    return (resource_dir("sql_metrics") / f"{name}.sql").read_text()


def metric_names() -> list[str]:
    return sorted(p.stem for p in resource_dir("sql_metrics").glob("*.sql"))


class MetricRunner:
    """Binds inputs on one engine and runs metric files against them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        for name, cols in INPUT_TABLES.items():
            engine.create_table(name, cols, [])

    def set_input(self, name: str, rows: Sequence[Sequence[Any]]) -> None:
        self.engine.create_table(name, INPUT_TABLES[name], rows)

    def run(self, name: str) -> pl.DataFrame:
        return self.engine.query(metric_sql(name))

    @staticmethod
    def empty(name: str) -> pl.DataFrame:
        """What ``run(name)`` returns when nothing matches: its declared
        columns (the file's header), no rows."""
        from artscope.sqlheader import empty_frame

        return empty_frame(metric_sql(name))

    def run_many(self, names: Sequence[str]) -> dict[str, pl.DataFrame]:
        """Several metric files (independent queries: the engine may run
        them concurrently), by name."""
        frames = self.engine.query_many([metric_sql(n) for n in names])
        return dict(zip(names, frames))
