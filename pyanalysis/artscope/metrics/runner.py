"""Runs sql-metrics/*.sql on an engine: creates the input temp tables, loads
the SQL text from the package data, returns polars DataFrames.

The SQL is never formatted: inputs reach it only through the temp tables
described in sql-metrics/README.md. Three of them are derived: computed by a
metric file of their own from the trace and the other inputs (the ends of
open sched slices, the target's CPU time per thread and CPU, the GC set),
once, before the first file that reads them, so every file reads the same
rows and none recomputes them. A few cheap shared definitions are inlined
into the files that read them instead (SHARED_CTES).
"""

from __future__ import annotations

import functools
import re
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
    "artscope_cpu_data_end": ("cpu", "utid", "ts", "end_ts"),
    "artscope_target_cpu": ("run", "utid", "cpu", "cpu_ns", "slices", "grace_ns", "post_ns",
                            "post_slices", "first_post_ts", "last_post_end_ts"),
    "artscope_target_gc": ("gc_id", "utid", "upid", "track_id", "depth", "ts", "end_ts", "name",
                    "foreground", "is_main_thread", "unfinished", "has_phases"),
}
#: Derived input tables and the metric file computing each (its columns are
#: INPUT_TABLES' list), in dependency order.
DERIVED_INPUTS: dict[str, str] = {
    "artscope_cpu_data_end": "sched_open_end",
    "artscope_target_cpu": "target_cpu_time",
    "artscope_target_gc": "gc_slices",
}


#: Shared CTEs: sql-metrics files (each a metric file of its own) that other
#: files read by their name as if it were a table. metric_sql inlines the
#: defining file's query as a MATERIALIZED CTE of that name at the head of
#: each reader's WITH, so the text an engine runs is self-contained and one
#: file defines it. For definitions that are cheap to compute: a derived
#: input table would cost more to fill on trace_processor (its rows sent
#: back as SQL literals) than computing them again.
SHARED_CTES = ("cpufreq_change", "cpufreq_interval", "target_utid_range")


@functools.lru_cache(maxsize=None)
def metric_sql(name: str) -> str:
    """The text of sql-metrics/<name>.sql, with the shared CTEs it reads
    (SHARED_CTES) inlined."""
    return _with_shared_ctes(name, (resource_dir("sql_metrics") / f"{name}.sql").read_text())


def _with_shared_ctes(name: str, text: str) -> str:
    from artscope.sqlheader import split_header

    shared = [s for s in SHARED_CTES if s != name and s in _names_read(text)]
    if not shared:
        return text
    header, body = split_header(text)
    if not body.startswith("WITH\n"):
        raise ValueError(f"{name}.sql reads {shared[0]} but does not start with WITH")
    ctes = []
    for s in shared:
        query = split_header(metric_sql(s))[1].rstrip().rstrip(";")
        inner = "\n".join("  " + ln if ln else ln for ln in query.splitlines())
        ctes.append(f"{s} AS MATERIALIZED (\n{inner}\n),\n")
    return "".join(ln + "\n" for ln in header) + "WITH\n" + "".join(ctes) + body[len("WITH\n"):]


def metric_names() -> list[str]:
    return sorted(p.stem for p in resource_dir("sql_metrics").glob("*.sql"))


class MetricRunner:
    """Binds inputs on one engine and runs metric files against them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        for name, cols in INPUT_TABLES.items():
            engine.create_table(name, cols, [])
        #: derived inputs whose rows are current, and their rows
        self._derived_current: set[str] = set()
        self._derived_rows: dict[str, pl.DataFrame] = {}

    def set_input(self, name: str, rows: Sequence[Sequence[Any]]) -> None:
        self.engine.create_table(name, INPUT_TABLES[name], rows)
        # derived tables computed from this input are stale now
        self._derived_current -= {d for d in self._derived_current
                                  if reads(metric_sql(DERIVED_INPUTS[d]), name)}

    def _derive_inputs_for(self, sql: str) -> None:
        """Compute the derived input tables ``sql`` reads, directly or through
        another derived table, that are not current."""
        for table, metric in DERIVED_INPUTS.items():
            if table in self._derived_current or not reads(sql, table):
                continue
            body = metric_sql(metric)
            self._derive_inputs_for(body)
            self._set_derived(table, self.engine.query(body))

    def _set_derived(self, table: str, frame: pl.DataFrame) -> None:
        """A derived input table's rows, from its metric file's result."""
        frame = frame.select(INPUT_TABLES[table])
        self.engine.create_table(table, INPUT_TABLES[table], frame.rows())
        self._derived_rows[table] = frame
        self._derived_current.add(table)

    def _stale_reads(self, sql: str) -> set[str]:
        """The derived input tables ``sql`` reads that are not current."""
        return {t for t in DERIVED_INPUTS
                if t not in self._derived_current and reads(sql, t)}

    def derived(self, table: str) -> pl.DataFrame:
        """The current rows of a derived input table (computed if needed)."""
        self._derive_inputs_for(table)
        return self._derived_rows[table]

    def run(self, name: str) -> pl.DataFrame:
        sql = metric_sql(name)
        self._derive_inputs_for(sql)
        return self.engine.query(sql)

    @staticmethod
    def empty(name: str) -> pl.DataFrame:
        """What ``run(name)`` returns when nothing matches: its declared
        columns (the file's header), no rows."""
        from artscope.sqlheader import empty_frame

        return empty_frame(metric_sql(name))

    def run_many(self, names: Sequence[str]) -> dict[str, pl.DataFrame]:
        """Several metric files (independent queries: the engine may run
        them concurrently), by name. The derived input tables they read are
        computed in the same batches, beside the files that need none of
        them not yet computed: each batch holds every query whose inputs
        are ready."""
        pending = {n: metric_sql(n) for n in names}
        done: dict[str, pl.DataFrame] = {}
        while pending:
            stale = set().union(*map(self._stale_reads, pending.values()))
            while True:  # with the derived tables those read
                more = set().union(*(self._stale_reads(metric_sql(DERIVED_INPUTS[t]))
                                     for t in stale)) - stale
                if not more:
                    break
                stale |= more
            tables = [t for t in DERIVED_INPUTS if t in stale
                      and not self._stale_reads(metric_sql(DERIVED_INPUTS[t]))]
            ready = [n for n, sql in pending.items() if not self._stale_reads(sql)]
            frames = self.engine.query_many(
                [metric_sql(DERIVED_INPUTS[t]) for t in tables] + [pending[n] for n in ready])
            for table, frame in zip(tables, frames):
                self._set_derived(table, frame)
            for name, frame in zip(ready, frames[len(tables):]):
                done[name] = frame
                del pending[name]
        return {n: done[n] for n in names}


def reads(sql: str, name: str) -> bool:
    """Whether metric SQL names ``name`` (an input table, a shared CTE, a
    column) outside its comments."""
    return name in _names_read(sql)


@functools.lru_cache(maxsize=None)
def _names_read(sql: str) -> frozenset[str]:
    """Every word of metric SQL outside its comments (table and CTE names
    among them). Cached: the runner asks this of the same few texts
    hundreds of times per trace (a regex search over a whole file per
    question was ~10 ms a trace, a sixth of a small study trace's
    analysis)."""
    return frozenset(_WORD.findall(_COMMENT.sub("", sql)))


_COMMENT = re.compile(r"--[^\n]*")
_WORD = re.compile(r"\w+")
