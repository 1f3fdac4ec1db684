"""Compare the embedded engine's tables with the real trace_processor's.

    python3 tools/compare_tp.py [TRACE ...] [--fixtures] [--shared] [--conformance]
                                [--tp-bin PATH] [--markdown]

For every table and view the embedded engine serves (its public SQLite
names: engine-core/src/tables.rs schema() and VIEWS), both engines load the
trace and the table is compared with trace_processor's
(``trace_processor_shell``: --tp-bin, ARTSCOPE_TP_BIN or PATH):

* row counts, and every row as a multiset in a canonical order (sorted by
  every compared column), on the columns both engines serve;
* ids are assigned in import order, so they may legitimately differ. They are
  compared by what they point to, never by value: ``utid`` / ``waker_utid``
  -> the thread's tid, ``upid`` / ``parent_upid`` -> the process's pid,
  ``track_id`` (and a track's ``parent_id``) -> the track's name, type and
  dimensions, ``*arg_set_id`` -> the set's sorted (key, value) pairs (utid /
  upid values inside translated as above), a slice's ``parent_id`` and a
  flow's ``slice_out`` / ``slice_in`` -> that slice's (ts, name), ``machine_id`` -> the machine's raw id (NULL stays
  NULL: a global metadata or stats row). Left out entirely: each table's own row id (``id``,
  ``thread.utid``, ``process.upid``), ``thread_state.waker_id`` (a
  thread_state row id) and ``args.arg_set_id`` (a set's id; sets are
  compared through the columns that reference them);
* numbers compare by value (an integral REAL equals the INTEGER);
* ``stats``: the embedded engine's own rows (``artscope_*``: packet kinds it
  skipped, corrupt packets; trace_processor has no such stats) are left out,
  and the values of the stats about trace_processor's own run, not the trace
  (RUN_STATS: its parse timings and its clock-conversion cache's misses) are
  compared as present, not by value.

Besides the tables, TO_FTRACE (each ftrace_event row as a line of text
ftrace) is compared as if it were a table of one column, ``to_ftrace``.

A table differs in "aspects": ``rows`` when the row counts differ, else the
names of the columns whose sorted values differ (``row pairing`` when every
column's values agree but not the rows), plus any column only the embedded
engine serves (``<column> (embedded only)``). Columns trace_processor serves and the embedded engine does not
are listed apart ("not served"): a query naming one fails with a one-line
error saying so. tests/engine/test_tp_tables.py runs this over every fixture,
real trace and conformance input against a list of known gaps, each with its reason.

Prints one line per (trace, table) that differs plus a coverage summary per
table; ``--markdown`` prints the summary as engine-core/docs/coverage.md's coverage table.
Exit status 1 when any table differs.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "pyanalysis"))
SHARED_TRACES = REPO.parent / "shared" / "traces"
#: The real trace_processor beside the checkout (used when no --tp-bin,
#: ARTSCOPE_TP_BIN or trace_processor_shell on PATH names one).
SHARED_TP_BIN = REPO.parent / "shared" / "bin" / "trace_processor_shell"
FIXTURES = REPO / "fixtures"
CONFORMANCE = REPO / "tests" / "conformance"

#: Each table's own row id: left out (import order).
OWN_ID = {"thread": ("id", "utid"), "process": ("id", "upid")}
#: Left out everywhere, with why (see the module docstring).
DROPPED = {
    ("thread_state", "waker_id"): "a thread_state row id",
    ("args", "arg_set_id"): "the set's own id; compared via the referencing columns",
    ("args", "id"): "row id",
}
#: stats that measure the engine's run, not the trace: compared as present.
RUN_STATS = frozenset({"guess_trace_type_duration_ns", "parse_trace_duration_ns",
                       "clock_sync_cache_miss"})
#: stats only the embedded engine keeps (its own prefix): left out.
OWN_STATS_PREFIX = "artscope_"
THREAD_REFS = frozenset({"utid", "waker_utid"})
PROCESS_REFS = frozenset({"upid", "parent_upid"})
ARG_SET_REFS = frozenset({"arg_set_id", "dimension_arg_set_id", "source_arg_set_id"})
SLICE_TABLES = frozenset({"slice", "slices", "expected_frame_timeline_slice",
                          "actual_frame_timeline_slice"})
TRACK_TABLES = frozenset({"track", "thread_track", "process_track", "cpu_track",
                          "counter_track", "cpu_counter_track", "process_counter_track",
                          "thread_counter_track"})
#: Functions compared as tables: name -> the query giving their values
#: (rows trace_processor refuses to print, chrome_event / track_event ones,
#: left out).
FUNCTION_TABLES = {
    # (a workqueue_queue_work line is compared up to its workqueue: there
    # trace_processor prints its own string pool id, the embedded engine
    # the workqueue's name; a known difference, engine-core/README.md)
    "to_ftrace": ("SELECT CASE WHEN name = 'workqueue_queue_work' "
                  "THEN substr(to_ftrace(id), 1, instr(to_ftrace(id), ' workqueue=')) "
                  "ELSE to_ftrace(id) END AS line FROM ftrace_event "
                  "WHERE name NOT GLOB 'chrome_event.*' AND name NOT GLOB 'track_event.*'"),
}


@dataclasses.dataclass
class TableDiff:
    """One table on one trace: identical when ``aspects`` is empty."""

    table: str
    embedded_rows: int
    tp_rows: int
    aspects: frozenset[str]
    not_served: tuple[str, ...] = ()
    example: str = ""


@dataclasses.dataclass
class TraceInput:
    """A trace to compare: an id for reports and the file to load."""

    id: str
    path: Path


def served_tables(eng: Any) -> list[str]:
    """The public tables and views of the embedded engine (internal names,
    starting with '_', are not served)."""
    df = eng.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                   "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' "
                   "ORDER BY name")
    return df["name"].to_list()


def _num(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _fetch(eng: Any, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    df = eng.query(sql)
    return df.columns, [tuple(_num(v) for v in r) for r in df.iter_rows()]


class Resolver:
    """What the ids of one engine's tables point to."""

    def __init__(self, eng: Any) -> None:
        self.eng = eng
        self.tid = dict(_fetch(eng, "SELECT utid, tid FROM thread")[1])
        self.pid = dict(_fetch(eng, "SELECT upid, pid FROM process")[1])
        sets: dict[int, list[tuple[str, Any]]] = collections.defaultdict(list)
        for set_id, key, i, s, r in _fetch(
                eng, "SELECT arg_set_id, key, int_value, string_value, real_value "
                "FROM args")[1]:
            value = i if i is not None else s if s is not None else r
            sets[set_id].append((key, self.arg_value(key, value)))
        self.arg_sets = {k: tuple(sorted(v, key=repr)) for k, v in sets.items()}
        tracks = _fetch(eng, "SELECT id, name, type, dimension_arg_set_id FROM track")[1]
        self.tracks = {i: (name, type_, self.arg_sets.get(dims, ()))
                       for i, name, type_, dims in tracks}
        self._slices: dict[int, tuple[Any, Any]] | None = None
        self.machines = dict(_fetch(eng, "SELECT id, raw_id FROM machine")[1])

    def machine(self, v: Any) -> tuple[str, Any] | None:
        """The machine a machine_id names: its raw id (None: no machine)."""
        return None if v is None else ("machine", self.machines.get(v, ("?", v)))

    def arg_value(self, key: str, value: Any) -> Any:
        if key == "utid" or key.endswith(".utid"):
            return ("tid", self.tid.get(value, value))
        if key == "upid" or key.endswith(".upid"):
            return ("pid", self.pid.get(value, value))
        return value

    @property
    def slices(self) -> dict[int, tuple[Any, Any]]:
        if self._slices is None:
            self._slices = {i: (ts, name) for i, ts, name in
                            _fetch(self.eng, "SELECT id, ts, name FROM slice")[1]}
        return self._slices

    def column(self, table: str, col: str) -> Callable[[Any], Any] | None:
        """How to compare ``col`` of ``table``: a mapping, or None to drop it."""
        if col in OWN_ID.get(table, ("id",)) or (table, col) in DROPPED:
            return None
        if col == "machine_id":
            return self.machine
        if col in THREAD_REFS:
            return lambda v: ("tid", self.tid.get(v, v)) if v is not None else None
        if col in PROCESS_REFS:
            return lambda v: ("pid", self.pid.get(v, v)) if v is not None else None
        if col in ARG_SET_REFS:
            return lambda v: self.arg_sets.get(v, ()) if v is not None else None
        if col == "track_id" or (col == "parent_id" and table in TRACK_TABLES):
            return lambda v: self.tracks.get(v, ("?", v)) if v is not None else None
        if (col == "parent_id" and table in SLICE_TABLES) or (
                table == "flow" and col in ("slice_out", "slice_in")):
            return lambda v: self.slices.get(v, ("?", v)) if v is not None else None
        if table == "args" and col in ("int_value", "display_value"):
            return None  # replaced by a translated value below (see rows())
        return lambda v: v

    def rows(self, table: str, cols: list[str],
             rows: list[tuple[Any, ...]]) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The compared columns and the rows with ids replaced."""
        if table == "stats":
            ni, vi = cols.index("name"), cols.index("value")
            rows = [r[:vi] + (("run stat",) if r[ni] in RUN_STATS else (r[vi],)) + r[vi + 1:]
                    for r in rows if not str(r[ni]).startswith(OWN_STATS_PREFIX)]
        keep = [(i, c, f) for i, c in enumerate(cols)
                if (f := self.column(table, c)) is not None]
        out_cols = [c for _, c, _ in keep]
        out = [tuple(f(r[i]) for i, _, f in keep) for r in rows]
        if table == "args":  # an arg holding a utid / upid: what it points to
            ki, ii, di = cols.index("key"), cols.index("int_value"), cols.index("display_value")
            out_cols += ["int_value", "display_value"]
            out = [o + ((self.arg_value(r[ki], r[ii]), r[di]) if r[ii] is None
                        or self.arg_value(r[ki], r[ii]) == r[ii]
                        else (self.arg_value(r[ki], r[ii]),) * 2)
                   for o, r in zip(out, rows)]
        return out_cols, out


def _sort_key(v: Any) -> tuple[int, Any]:
    if v is None:
        return (0, 0)
    if isinstance(v, (int, float)):
        return (1, v)
    return (2, repr(v))


def canonical(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows sorted by every column (None first, numbers, then the rest by repr)."""
    return sorted(rows, key=lambda r: tuple(_sort_key(v) for v in r))


def compare_table(table: str, er: Resolver, tr: Resolver, sql: str | None = None) -> TableDiff:
    """``table`` on both engines (embedded ``er``, trace_processor ``tr``);
    ``sql`` gives its rows when it is not a table (FUNCTION_TABLES)."""
    sql = sql or f"SELECT * FROM {table}"
    e_cols, e_raw = _fetch(er.eng, sql)
    t_cols, t_raw = _fetch(tr.eng, sql)
    aspects = {f"{c} (embedded only)" for c in e_cols if c not in t_cols}
    not_served = tuple(c for c in t_cols if c not in e_cols)
    ec, e_rows = er.rows(table, e_cols, e_raw)
    tc, t_rows = tr.rows(table, t_cols, t_raw)
    compared = [c for c in ec if c in tc]
    e_at, t_at = [ec.index(c) for c in compared], [tc.index(c) for c in compared]
    # Multisets of rows: equal exactly when the rows sorted by every
    # compared column are equal (the canonical order), without the sort.
    e_count = collections.Counter(tuple(r[i] for i in e_at) for r in e_rows)
    t_count = collections.Counter(tuple(r[i] for i in t_at) for r in t_rows)
    if len(e_rows) != len(t_rows):
        aspects.add("rows")
    for j, c in enumerate(compared if "rows" not in aspects else ()):
        e_col, t_col = collections.Counter(), collections.Counter()
        for r, n in e_count.items():
            e_col[r[j]] += n
        for r, n in t_count.items():
            t_col[r[j]] += n
        if e_col != t_col:
            aspects.add(c)
    example = ""
    if e_count != t_count:
        only_e, only_t = e_count - t_count, t_count - e_count
        if len(e_rows) == len(t_rows) and not aspects:
            aspects.add("row pairing")  # same values per column, combined differently
        first_e, first_t = canonical(only_e)[:1], canonical(only_t)[:1]
        example = (f"{only_e.total()} rows only embedded, {only_t.total()} only "
                   f"trace_processor; ({', '.join(compared)}) e.g. embedded {first_e} "
                   f"tp {first_t}")
    return TableDiff(table, len(e_raw), len(t_raw), frozenset(aspects), not_served, example)


def _engines(path: Path, tp_bin: str | None) -> tuple[Any, Any]:
    from artscope.engines.embedded import EmbeddedEngine
    from artscope.engines.trace_processor import TraceProcessorEngine

    emb = EmbeddedEngine()
    emb.load(path)
    tp = TraceProcessorEngine(tp_bin=tp_bin)
    try:
        tp.load(path)
    except BaseException:
        emb.close()
        raise
    return emb, tp


def compare_trace(path: Path, tp_bin: str | None = None) -> list[TableDiff]:
    """Every served table of ``path`` on both engines."""
    emb, tp = _engines(path, tp_bin)
    try:
        tables = served_tables(emb)
        er, tr = Resolver(emb), Resolver(tp)
        functions = [compare_table(name, er, tr, sql) for name, sql in FUNCTION_TABLES.items()
                     if "ftrace_event" in tables]
        return [compare_table(t, er, tr) for t in tables] + functions
    finally:
        emb.close()
        tp.close()


def report_generated(make: Callable[[int], bytes], seeds: Iterable[int],
                     tp_bin: str | None = None) -> int:
    """For each seed, the trace ``make(seed)`` builds, compared: prints the
    tables that differ (or why the reference could not load it) and returns
    how many traces differ (the random generators of tools/*_fuzz.py)."""
    differing = 0
    with tempfile.TemporaryDirectory() as d:
        for seed in seeds:
            path = Path(d) / f"seed-{seed}.pftrace"
            path.write_bytes(make(seed))
            try:
                diffs = [x for x in compare_trace(path, tp_bin) if x.aspects]
            except Exception as e:  # noqa: BLE001 (the reference binary crashed on it)
                print(f"seed {seed}: not compared: {str(e).splitlines()[0][:120]}")
                continue
            if diffs:
                differing += 1
                print(f"seed {seed}: " + "; ".join(f"{x.table} {sorted(x.aspects)}" for x in diffs))
    return differing


def generator_main(ap: argparse.ArgumentParser,
                   maker: Callable[[argparse.Namespace], Callable[[int], bytes]]) -> int:
    """The command line of the random-trace tools (tools/*_fuzz.py): their
    own options in ``ap`` plus --first / --count / --tp-bin; compares the
    trace ``maker(args)(seed)`` of each seed and prints how many differ."""
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--tp-bin", default=str(SHARED_TP_BIN))
    a = ap.parse_args()
    seeds = range(a.first, a.first + a.count)
    differing = report_generated(maker(a), seeds, a.tp_bin)
    print(f"{differing} of {a.count} traces differ")
    return 0


def differing_tables(path: Path, tables: Iterable[str], tp_bin: str | None = None
                     ) -> dict[str, str]:
    """Of ``tables``, those that differ from trace_processor's on ``path``:
    table -> what differs."""
    wanted = set(tables)
    return {d.table: f"{sorted(d.aspects)}: {d.example}"
            for d in compare_trace(path, tp_bin) if d.table in wanted and d.aspects}


# --------------------------------------------------------------------------
# the traces compared by tests/engine/test_tp_tables.py
# --------------------------------------------------------------------------

def fixture_inputs() -> list[TraceInput]:
    return [TraceInput(f"fixtures/{p.name}", p) for p in sorted(FIXTURES.iterdir())
            if p.name.endswith((".pftrace", ".pftrace.gz"))]


def shared_inputs() -> list[TraceInput]:
    if not SHARED_TRACES.is_dir():
        return []
    return [TraceInput(f"shared/{p.name}", p) for p in sorted(SHARED_TRACES.iterdir())
            if p.suffix != ".md"]


def conformance_inputs(workdir: Path, known_failures: bool = True) -> list[TraceInput]:
    """Each distinct input of the ported diff tests, named after its first
    case, written to ``workdir``. ``known_failures=False`` leaves out the
    inputs of cases the embedded engine is known to fail (their
    embedded_fails.txt already says what it does not import)."""
    sys.path.insert(0, str(CONFORMANCE))
    import conformance_runner as cr

    seen: dict[bytes, str] = {}
    for case in cr.discover():
        if not known_failures and case.embedded_fails:
            continue
        kind, data = cr.build_trace(case.path)
        seen.setdefault(data, case.id)
    out = []
    for i, (data, case_id) in enumerate(seen.items()):
        p = workdir / f"conformance-{i}.trace"
        p.write_bytes(data)
        out.append(TraceInput(f"conformance/{case_id}", p))
    return out


def compare_inputs(inputs: Iterable[TraceInput],
                   tp_bin: str | None = None) -> Iterator[tuple[TraceInput, list[TableDiff]]]:
    for t in inputs:
        yield t, compare_trace(t.path, tp_bin)


def coverage(results: list[tuple[TraceInput, list[TableDiff]]]) -> list[str]:
    """A markdown table: per table, on how many traces it is identical, which
    aspects differ on how many traces, and the columns it does not serve."""
    per: dict[str, list[TableDiff]] = collections.defaultdict(list)
    for _, diffs in results:
        for d in diffs:
            per[d.table].append(d)
    lines = ["| table | identical on | differs in (on how many traces) | "
             "trace_processor columns not served |", "|---|---|---|---|"]
    for table in sorted(per):
        entries = per[table]
        same = sum(1 for d in entries if not d.aspects)
        counts = collections.Counter(a for d in entries for a in d.aspects)
        differ = ", ".join(f"{a} ({n})" for a, n in sorted(counts.items()))
        missing = sorted({c for d in entries for c in d.not_served})
        lines.append(f"| `{table}` | {same} of {len(entries)} | {differ or '-'} "
                     f"| {', '.join(missing) or '-'} |")
    return lines


def find_tp_bin(explicit: str | None = None) -> str | None:
    """The trace_processor to compare with: the engine's own resolution
    (--tp-bin, ARTSCOPE_TP_BIN, PATH, cached prebuilt), else the binary beside
    the checkout (SHARED_TP_BIN)."""
    from artscope.engines.trace_processor import find_local_binary

    found = find_local_binary(explicit)
    if found is None and os.access(SHARED_TP_BIN, os.X_OK):
        found = str(SHARED_TP_BIN)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="*", type=Path)
    ap.add_argument("--fixtures", action="store_true", help="every fixtures/ trace")
    ap.add_argument("--shared", action="store_true", help="every ../shared/traces trace")
    ap.add_argument("--conformance", action="store_true",
                    help="every distinct input of tests/conformance")
    ap.add_argument("--tp-bin", default=None)
    ap.add_argument("--markdown", action="store_true", help="only the coverage table")
    ap.add_argument("--json", type=Path, help="also write {trace: {table: [aspects]}} here")
    args = ap.parse_args()

    tp_bin = find_tp_bin(args.tp_bin)
    if tp_bin is None:
        print("no trace_processor_shell: --tp-bin, ARTSCOPE_TP_BIN or PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        inputs = [TraceInput(str(p), p) for p in args.traces]
        if args.fixtures:
            inputs += fixture_inputs()
        if args.shared:
            inputs += shared_inputs()
        if args.conformance:
            inputs += conformance_inputs(Path(d))
        results = []
        for t, diffs in compare_inputs(inputs, tp_bin):
            results.append((t, diffs))
            if args.markdown:
                continue
            bad = [d for d in diffs if d.aspects]
            print(f"{'DIFF' if bad else 'SAME'} {t.id}: {len(diffs) - len(bad)} of "
                  f"{len(diffs)} tables identical")
            for d in bad:
                print(f"    {d.table}: {d.embedded_rows} vs {d.tp_rows} rows; "
                      f"{', '.join(sorted(d.aspects))}; {d.example[:300]}")
    print("\n".join(coverage(results)))
    if args.json:
        import json
        args.json.write_text(json.dumps(
            {t.id: {d.table: sorted(d.aspects) for d in ds if d.aspects}
             for t, ds in results}, indent=1))
    return 1 if any(d.aspects for _, ds in results for d in ds) else 0


if __name__ == "__main__":
    sys.exit(main())
