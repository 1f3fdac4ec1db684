"""Runs trace_processor's diff tests (ported as data) on the embedded engine.

A case is a directory ``cases/<suite>/<test_name>/`` holding

* the input trace: ``trace.textproto`` (a ``Trace`` in text format),
  ``trace.py`` (a synthetic-trace script using :mod:`conformance_synth`; it
  must leave a module-level ``trace``) or ``trace.systrace`` (systrace text);
  or ``trace.ref`` naming one of those in ``inputs/`` when several diff
  tests share an input (as trace_processor's share synth_1.py);
* ``query.sql``: the test's query (stdlib INCLUDEs rewritten in plain SQL),
  or ``query.ref`` naming a query in ``inputs/`` shared by several tests;
* ``expected.csv``: the test's expected output, verbatim;
* optionally ``trace_modifier.json``: the test's ``TraceInjector`` (fields,
  e.g. machine_id, set on the packets holding given data types);
* optionally ``embedded_fails.txt``: one line saying why the embedded engine
  is known to fail the case (it runs as a strict xfail there, so it turns
  red once fixed; trace_processor must pass it regardless).

The query's result is rendered the way trace_processor's diff-test runner
prints it (a header of quoted column names; strings double-quoted; NULL as
"[NULL]"; doubles with %f; integers plain) and compared line by line.
"""

from __future__ import annotations

import json
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

CASES_DIR = Path(__file__).resolve().parent / "cases"
INPUTS_DIR = Path(__file__).resolve().parent / "inputs"


@dataclass
class Case:
    suite: str
    name: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.suite}/{self.name}"

    @property
    def embedded_fails(self) -> str | None:
        """Why the embedded engine fails this case (``embedded_fails.txt``),
        or None: it must pass. The real trace_processor must pass it either way."""
        p = self.path / "embedded_fails.txt"
        return p.read_text().strip() if p.exists() else None


def discover(root: Path = CASES_DIR) -> list[Case]:
    cases = []
    dirs = {q.parent for pattern in ("*/*/query.sql", "*/*/query.ref")
            for q in root.glob(pattern)}
    return [Case(d.parent.name, d.name, d) for d in sorted(dirs)]


def query_text(case_dir: Path) -> str:
    ref = case_dir / "query.ref"
    if ref.exists():
        return (INPUTS_DIR / ref.read_text().strip()).read_text()
    return (case_dir / "query.sql").read_text()


def parse_textproto(text: str) -> bytes:
    """Text-format Trace -> serialized bytes.

    Fields unknown to the protos shipped by the ``perfetto`` package are
    skipped, and so is a scalar line whose type differs there (e.g.
    ``previous_packet_dropped`` on some package versions): these are
    packet bookkeeping fields the importer under test does not read.
    """
    lines = text.splitlines()
    for _ in range(50):
        msg = pb.Trace()
        try:
            text_format.Parse("\n".join(lines), msg, allow_unknown_field=True)
            return msg.SerializeToString()
        except text_format.ParseError as exc:
            line = getattr(exc, "GetLine", lambda: None)()
            if not line or "{" in lines[line - 1] or "}" in lines[line - 1]:
                raise
            del lines[line - 1]
    raise ValueError("textproto does not parse")


def _input_file(case_dir: Path, suffix: str) -> Path:
    ref = case_dir / "trace.ref"
    if ref.exists():
        shared = INPUTS_DIR / ref.read_text().strip()
        return shared if shared.suffix == suffix else case_dir / "-"
    return case_dir / f"trace{suffix}"


def build_trace(case_dir: Path) -> tuple[str, bytes]:
    """Returns (kind: 'proto' | 'systrace', trace bytes)."""
    kind, data = _build_input(case_dir)
    modifier = case_dir / "trace_modifier.json"
    if kind == "proto" and modifier.exists():
        data = inject_fields(data, json.loads(modifier.read_text()))
    return kind, data


def inject_fields(data: bytes, modifier: dict) -> bytes:
    """The diff tests' TraceInjector: sets ``injected_fields`` (e.g.
    machine_id) on every packet holding one of ``packet_data_types``."""
    trace = pb.Trace()
    trace.ParseFromString(data)
    for packet in trace.packet:
        if any(packet.HasField(t) for t in modifier["packet_data_types"]):
            for name, value in modifier["injected_fields"].items():
                setattr(packet, name, value)
    return trace.SerializeToString()


def _build_input(case_dir: Path) -> tuple[str, bytes]:
    p = _input_file(case_dir, ".textproto")
    if p.exists():
        return "proto", parse_textproto(p.read_text())
    p = _input_file(case_dir, ".py")
    if p.exists():
        here = str(Path(__file__).resolve().parent)
        if here not in sys.path:
            sys.path.insert(0, here)
        ns = runpy.run_path(str(p))
        return "proto", ns["trace"].serialize()
    p = _input_file(case_dir, ".systrace")
    if p.exists():
        return "systrace", p.read_bytes()
    raise FileNotFoundError(f"no trace input in {case_dir}")


def format_value(v: object) -> str:
    if v is None:
        return '"[NULL]"'
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "%f" % v
    if isinstance(v, bytes):
        return '"' + v.decode("utf-8", "replace") + '"'
    return f'"{v}"'


def format_csv(columns: list[str], rows: list[tuple]) -> list[str]:
    lines = [",".join(f'"{c}"' for c in columns)]
    for r in rows:
        lines.append(",".join(format_value(v) for v in r))
    return lines


def normalise_expected(text: str) -> list[str]:
    return [ln.strip() for ln in text.strip().splitlines() if ln.strip()]


def run_case(case: Case, engine: str = "embedded",
             tp_bin: str | None = None) -> tuple[list[str], list[str]]:
    """Returns (actual lines, expected lines) on ``engine`` ('embedded' or
    'trace_processor', the real one at ``tp_bin``)."""
    kind, data = build_trace(case.path)
    if engine == "trace_processor":
        cols, rows = _run_on_trace_processor(data, query_text(case.path), tp_bin)
    else:
        emb = EmbeddedEngine(ingest_ftrace_in_raw=True)
        emb.load_bytes(data, case.id)
        try:
            # the header as SQL gives it (repeated names too), as the diff
            # tests' runner prints it
            cols, rows = emb.store.execute_script(query_text(case.path), unique_names=False)
        finally:
            emb.close()
    # A string cell may span lines (e.g. a config's text): compare per line.
    actual = normalise_expected("\n".join(format_csv(cols, rows)))
    expected = normalise_expected((case.path / "expected.csv").read_text())
    return actual, expected


def _run_on_trace_processor(data: bytes, sql: str,
                            tp_bin: str | None) -> tuple[list[str], list[tuple]]:
    """The diff test's query on Perfetto's own trace_processor (the reference)."""
    import tempfile

    from artscope.engines.trace_processor import TraceProcessorEngine, _py

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "trace"
        path.write_bytes(data)
        tp = TraceProcessorEngine(tp_bin=tp_bin)
        try:
            tp.load(path)
            # Raw cells, not a DataFrame: a diff test's column may mix types
            # (COALESCE(str_value, int_value)), as SQLite allows.
            qr = tp.tp.query(sql)
            cols = list(qr.column_names)
            cells = [_py(v) for v in qr.cells]
        finally:
            tp.close()
    n = len(cols)
    return cols, [tuple(cells[i:i + n]) for i in range(0, len(cells), n)]


def main(argv: list[str]) -> int:
    failed = 0
    cases = discover()
    for case in cases:
        if argv and not any(a in case.id for a in argv):
            continue
        try:
            actual, expected = run_case(case)
        except Exception as exc:  # report and continue
            if case.embedded_fails:
                print(f"xfail {case.id}: {case.embedded_fails}")
            else:
                print(f"ERROR {case.id}: {exc!r}")
                failed += 1
            continue
        if actual == expected:
            print(f"ok    {case.id}" + ("  (XPASS: remove embedded_fails.txt)"
                                        if case.embedded_fails else ""))
        elif case.embedded_fails:
            print(f"xfail {case.id}: {case.embedded_fails}")
        else:
            failed += 1
            print(f"FAIL  {case.id}")
            print("  expected:\n    " + "\n    ".join(expected))
            print("  actual:\n    " + "\n    ".join(actual))
    print(f"{len(cases) - failed}/{len(cases)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
