"""Compare the compiled core's tables with the Python importer's, table by table.

    python3 tools/compare_core.py TRACE [TRACE ...]     # exit 1 on any difference

Both importers load each trace; every table and view of the database (deferred
tables materialised) is hashed row by row with typed values (1 and 1.0
differ), in rowid / view order. Prints one line per trace, and for a
differing table its row counts and the first differing row.
Only Perfetto protobuf traces go through the core so far (systrace text is
reported as skipped).
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "pyanalysis"))

from artscope.engines.embedded import core  # noqa: E402
from artscope.engines.embedded.formats import read_trace_bytes  # noqa: E402


def python_tables(data: bytes, name: str = "") -> sqlite3.Connection:
    from artscope.engines.embedded import EmbeddedEngine, decode_bytes
    eng = EmbeddedEngine()
    eng.load_sink(decode_bytes("proto", data, name), name)  # the Python importer
    store = eng.store
    assert store is not None
    store.ensure_tables_for("select * from ftrace_event, thread_state")
    return store.conn


def core_tables(data: bytes, name: str = "") -> sqlite3.Connection:
    return core.import_proto(data, name).conn


def names(conn: sqlite3.Connection) -> list[str]:
    return sorted(n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"))


def rows(conn: sqlite3.Connection, name: str) -> Iterator[tuple[Any, ...]]:
    cur = conn.execute(f"SELECT * FROM {name}")
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


def compare(path: str) -> list[str]:
    """Differences between the two importers' tables for ``path`` ([] = identical)."""
    tb = read_trace_bytes(path)
    if tb.kind != "proto":
        return ["skipped: not a protobuf trace"]
    return compare_bytes(tb.data, path)


def compare_bytes(data: bytes, name: str = "") -> list[str]:
    """Differences for protobuf trace bytes ([] = identical)."""
    c = core_tables(data, name)
    p = python_tables(data, name)
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
        if diffs and diffs[0].startswith("skipped"):
            print(f"SKIP {t}: {diffs[0]}")
            continue
        print(("DIFF " if diffs else "SAME ") + t)
        for d in diffs:
            print("    " + d[:600])
        bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
