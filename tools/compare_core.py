"""Compare the compiled core's tables with the Python importer's, table by table.

    python3 tools/compare_core.py TRACE [TRACE ...]     # exit 1 on any difference

Both importers load each trace file, whatever its kind (Perfetto protobuf,
systrace HTML / text, inside gzip / zip / ctrace or not): the Python importer
through formats.py + proto.py / text.py + tables.py, the core from the file's
bytes (its own container unwrapping and detection). Every table and view of
the database (deferred tables materialised) is hashed row by row with typed
values (1 and 1.0 differ), in rowid / view order, but for the rows listed in
CORE_BEYOND_PYTHON (data the core imports and the retired Python importer
does not); the load's partial flag and warnings are compared too. Prints one
line per trace, and for a
differing table its row counts and the first differing row.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "pyanalysis"))

from artscope.engines.embedded import core  # noqa: E402
from artscope.engines.embedded.formats import read_trace_bytes  # noqa: E402


def python_tables(data: bytes, name: str = "", kind: str = "proto") -> sqlite3.Connection:
    return python_import(data, name, kind)[0]


def python_import(data: bytes, name: str = "", kind: str = "proto"
                  ) -> tuple[sqlite3.Connection, Any]:
    """The Python importer's tables and LoadInfo for decoded ``data`` of
    ``kind`` (as EmbeddedEngine.load does without the core)."""
    from artscope.engines.embedded import EmbeddedEngine, decode_bytes
    eng = EmbeddedEngine()
    # systrace: no raw ftrace ingestion (trace_processor's text reader)
    info = eng.load_sink(decode_bytes(kind, data, name), name,
                         ingest_ftrace_in_raw=kind != "systrace")
    store = eng.store
    assert store is not None
    store.ensure_tables_for("select * from ftrace_event, thread_state")
    return store.conn, info


@contextlib.contextmanager
def python_parity() -> Iterator[None]:
    """The core in Python-parity mode: the importers the retired Python
    importer does not get (binder, dma_fence, kernel atrace from `zero` /
    `dpu_tracing_mark_write`; see engine-core/src/decoder/proto.rs) stay
    off, since they shift every id assigned after them; they are checked
    against trace_processor instead (tests/test_tp_tables.py,
    tests/test_core_kernel_atrace.py, tests/test_core_binder_fence.py)."""
    old = os.environ.get(PARITY_ENV)
    os.environ[PARITY_ENV] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ[PARITY_ENV]
        else:
            os.environ[PARITY_ENV] = old


def core_tables(data: bytes, name: str = "") -> sqlite3.Connection:
    with python_parity():
        return core.import_proto(data, name).conn


def names(conn: sqlite3.Connection) -> list[str]:
    return sorted(n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"))


PARITY_ENV = "ARTSCOPE_CORE_PYTHON_PARITY"

#: Where the core deliberately goes beyond the Python importer (which is
#: retired and gets no new importers): rows left out of the comparison on
#: both sides, per table, as a WHERE clause, with why. tests/test_tp_tables.py
#: (the core against the real trace_processor) is the reference for them.
CORE_BEYOND_PYTHON: dict[str, tuple[str, str]] = {
    "stats": ("name NOT LIKE 'artscope\\_skipped\\_%' ESCAPE '\\'",
              "one row per TracePacket data kind the core skips (issue 18); the "
              "Python importer does not count them"),
}


#: Columns left out of the comparison for the same reason: (table, column)
#: -> why.
CORE_BEYOND_PYTHON_COLUMNS: dict[tuple[str, str], str] = {
    **{view_column: "trace_processor v58's views lack it; the core's follow them"
       for view_column in (("sched_slice", "ts_end"), ("cpu_counter_track", "ucpu"),
                           ("track", "event_type"), ("track", "counter_unit"))},
    ("thread_state", "io_wait"): (
        "sched_blocked_reason sets io_wait on the thread's last blocked row even "
        "after a waking opened R (trace_processor's last_blocked_row); the Python "
        "importer only on a blocked last row"),
}


def rows(conn: sqlite3.Connection, name: str) -> Iterator[tuple[Any, ...]]:
    where = CORE_BEYOND_PYTHON.get(name, ("1",))[0]
    cols = [d[0] for d in conn.execute(f"SELECT * FROM {name} LIMIT 0").description]
    keep = ", ".join(c for c in cols if (name, c) not in CORE_BEYOND_PYTHON_COLUMNS)
    cur = conn.execute(f"SELECT {keep} FROM {name} WHERE {where}")
    yield tuple(d[0] for d in cur.description)
    for row in cur:
        yield tuple((type(v).__name__, v) for v in row)


def digest(conn: sqlite3.Connection, name: str) -> tuple[str, int]:
    h = hashlib.sha256()
    n = -1
    for n, row in enumerate(rows(conn, name)):
        h.update(repr(row).encode())
    return h.hexdigest(), n


def first_difference(a: sqlite3.Connection, b: sqlite3.Connection, name: str) -> str:
    for i, (ra, rb) in enumerate(zip(rows(a, name), rows(b, name))):
        if ra != rb:
            return f"row {i - 1}: python {ra} != core {rb}"
    return "one is a prefix of the other"


def compare(path: str, check_warnings: bool = True) -> list[str]:
    """Differences between the two importers for the file ``path`` ([] =
    identical): tables, partial flag and (unless told not to) warnings.
    Both raising TraceError with the same message is identical too.
    ``check_warnings=False`` for damaged compressed input: a corrupt-gzip
    warning quotes the decompressor's own message."""
    return compare_file_bytes(Path(path).read_bytes(), path, check_warnings)


def compare_file_bytes(raw: bytes, path: str, check_warnings: bool = True) -> list[str]:
    """As :func:`compare` for a file's bytes ``raw`` (named ``path``)."""
    import tempfile

    from artscope.errors import TraceError
    p_err = c_err = None
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "trace"
        f.write_bytes(raw)
        try:
            tb = read_trace_bytes(f)
            p, info = python_import(tb.data, path, tb.kind)
            p_partial = info.partial or tb.partial
            # invalid UTF-8 in an ignored event's name: Python keeps it as
            # surrogate escapes, the core as U+FFFD
            p_warn = [w.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                      for w in list(tb.warnings) + list(info.warnings)]
        except TraceError as e:
            p_err = str(e).replace(str(f), path)
    try:
        with python_parity():
            ci = core.import_trace(raw, path)
    except TraceError as e:
        c_err = str(e)
    if p_err is not None or c_err is not None:
        # the decompressors' own wording (zlib / zipfile vs flate2 / zip) in
        # parentheses is not reproduced; the rest of the message is
        if p_err and c_err and re.sub(r"\(.*\)", "", p_err) == re.sub(r"\(.*\)", "", c_err):
            return []
        return [f"errors differ: python {p_err!r}, core {c_err!r}"]
    diffs = compare_conns(p, ci.conn)
    if p_partial != ci.partial:
        diffs.append(f"partial: python {p_partial}, core {ci.partial}")
    if check_warnings and p_warn != ci.warnings:
        diffs.append(f"warnings: python {p_warn}, core {ci.warnings}")
    return diffs


def compare_bytes(data: bytes, name: str = "") -> list[str]:
    """Differences for protobuf trace bytes ([] = identical)."""
    return compare_conns(python_tables(data, name), core_tables(data, name))


def compare_conns(p: sqlite3.Connection, c: sqlite3.Connection) -> list[str]:
    """Differences between the Python importer's tables ``p`` and the core's
    ``c`` ([] = identical)."""
    diffs = []
    pn, cn = names(p), names(c)
    if pn != cn:
        diffs.append(f"table sets differ: python-only {sorted(set(pn) - set(cn))}, "
                     f"core-only {sorted(set(cn) - set(pn))}")
    for name in sorted(set(pn) & set(cn)):
        (hp, np_), (hc, nc) = digest(p, name), digest(c, name)
        if hp != hc:
            diffs.append(f"{name}: python {np_} rows, core {nc} rows; "
                         + first_difference(p, c, name))
    return diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()
    if not core.available():
        print("compiled core not built: python3 tools/build_core.py", file=sys.stderr)
        return 2
    bad = 0
    for t in args.traces:
        diffs = compare(t)
        print(("DIFF " if diffs else "SAME ") + t)
        for d in diffs:
            print("    " + d[:600])
        bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
