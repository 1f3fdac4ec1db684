#!/usr/bin/env python3
"""Ports trace_processor's diff tests (inputs and expected rows, as data) into
tests/conformance/cases/.

Reads a google/perfetto git directory (bare is fine), finds every
``DiffTestBlueprint`` in the given suites and writes, per portable test,
``cases/<suite>/<test>/`` with the input (``trace.textproto`` |
``trace.systrace`` | ``trace.py``), ``query.sql``, ``expected.csv`` and,
where the test injects fields into packets (``TraceInjector``, e.g.
machine_id), ``trace_modifier.json``.
Synthetic-trace scripts are rewritten to import ``conformance_synth`` (the
project's own builder) instead of perfetto's ``synth_common``. No Perfetto
code is copied besides those scripts' builder calls.

A test is not portable when its input is a DataPath (cloud-stored trace),
JSON/zip/raw text, its query includes stdlib modules, or its output is a
metric / proto / error; the reason is printed. Existing case directories are
left untouched.

    python3 tools/port_tp_diff_tests.py --perfetto-git DIR [--out DIR] [--dry-run]
        [--rev REV] [--suite parser/track_event ...]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import textwrap
from pathlib import Path

SUITES = ["parser/sched", "parser/ftrace", "parser/atrace", "parser/process_tracking",
          "parser/parsing", "parser/power", "parser/android", "tables",
          "parser/track_event"]
# parser/android: winscope's suites are out of scope.
WINSCOPE = ("inputmethod", "shell_transitions", "surfaceflinger", "viewcapture",
            "windowmanager", "protolog", "protovm")
BASE = "test/trace_processor/diff_tests/"
#: The revision read (--rev): the reference binary's, so that the expected
#: rows are the ones it was tested against.
REV = "HEAD"
CASES = Path(__file__).resolve().parents[1] / "tests" / "conformance" / "cases"


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True,
                          text=True, check=False).stdout


def suite_name(path: str) -> str:
    d, f = path[len(BASE):].rsplit("/", 1)
    stem = f[:-3].replace("tests_", "").replace("_tests", "").replace("tests", "")
    last = d.rsplit("/", 1)[-1] + "_"
    stem = stem[len(last):] if stem.startswith(last) else stem  # ftrace/ftrace_crop
    return "_".join(p for p in (d.replace("/", "_"), stem) if p)


def _arg(node: ast.expr | None) -> tuple[str, str | None]:
    if node is None:
        return "?", None
    if isinstance(node, ast.Constant):
        return "str", node.value
    if isinstance(node, ast.Call):
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
        a = node.args[0] if node.args else None
        return name, a.value if isinstance(a, ast.Constant) else None
    return "expr", None


def blueprints(repo: str, path: str):
    try:
        tree = ast.parse(git(repo, "show", f"{REV}:{path}"))
    except SyntaxError:
        return
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
            continue
        call = next((n for n in ast.walk(fn) if isinstance(n, ast.Call)
                     and getattr(n.func, "id", "") == "DiffTestBlueprint"), None)
        if call is None:
            continue
        kw = {k.arg: k.value for k in call.keywords}
        yield (fn.name, _arg(kw.get("trace")), _arg(kw.get("query")), _arg(kw.get("out")),
               _modifier(kw.get("trace_modifier")))


def _modifier(node: ast.expr | None) -> dict | None:
    """TraceInjector(packet_data_types, injected_fields) as data."""
    if not isinstance(node, ast.Call):
        return None
    types, fields = (ast.literal_eval(a) for a in node.args[:2])
    return {"packet_data_types": list(types), "injected_fields": fields}


def synth_script(src: str) -> str:
    """perfetto's synth script -> one on conformance_synth."""
    out = ["import conformance_synth as synth_common  # noqa: F401",
           "from conformance_synth import *  # noqa: F401,F403"]
    body = False
    for line in src.splitlines():
        if not body and (line.startswith("#") or not line.strip()):
            continue  # licence header
        body = True
        if re.match(r"\s*(from os import|import synth_common|from synth_common|sys\.path)", line):
            continue
        if "sys.stdout.buffer.write" in line:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def port_one(repo: str, path: str, test: str, trace, query, out,
             modifier: dict | None) -> tuple[str | None, dict]:
    """(reason it is not portable or None, files to write)."""
    d = path.rsplit("/", 1)[0]
    files: dict[str, str] = {}
    if modifier:
        files["trace_modifier.json"] = json.dumps(modifier, indent=1) + "\n"
    kind, val = trace
    if kind == "TextProto" and val is not None:
        files["trace.textproto"] = textwrap.dedent(val).strip() + "\n"
    elif kind == "Systrace" and val is not None:
        files["trace.systrace"] = val  # verbatim, as perfetto's runner writes it
    elif kind == "Path" and val == "../common/synth_1.py":
        files["trace.ref"] = "synth_1.py\n"  # shared input, reproduced in inputs/
    elif kind == "Path" and val and val.endswith((".textproto", ".systrace", ".py")):
        text = git(repo, "show", f"{REV}:{d}/{val}")
        if not text:
            return f"input {val} not in the snapshot", {}
        suffix = Path(val).suffix
        files["trace" + suffix] = synth_script(text) if suffix == ".py" else text
    else:
        return f"input {kind} {val or ''}".strip(), {}
    kind, val = query
    if kind == "str" and val is not None:
        files["query.sql"] = textwrap.dedent(val).strip() + "\n"
    elif kind == "Path" and val:
        files["query.sql"] = git(repo, "show", f"{REV}:{d}/{val}")
    else:
        return f"query {kind}", {}
    if "INCLUDE PERFETTO MODULE" in files["query.sql"].upper():
        return "query includes stdlib modules", {}
    kind, val = out
    if kind == "Csv" and val is not None:
        files["expected.csv"] = textwrap.dedent(val).strip() + "\n"
    elif kind == "Path" and val and val.endswith(".out"):
        files["expected.csv"] = git(repo, "show", f"{REV}:{d}/{val}")
    else:
        return f"output {kind}", {}
    if not files["expected.csv"].strip():
        return "expected output not in the snapshot", {}
    return None, files


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfetto-git", required=True)
    ap.add_argument("--out", default=str(CASES))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--rev", default="HEAD", help="the perfetto revision to read (e.g. v58.2)")
    ap.add_argument("--suite", action="append", help="only these suites (repeatable)")
    a = ap.parse_args()
    global REV
    REV = a.rev
    existing = {p.name for p in CASES.glob("*/*") if p.is_dir()}
    for suite in a.suite or SUITES:
        for path in git(a.perfetto_git, "ls-tree", "--name-only", REV,
                        BASE + suite + "/").split():
            if not path.endswith(".py") or "tests" not in path.rsplit("/", 1)[1]:
                continue
            if any(w in path for w in WINSCOPE):
                continue
            for test, trace, query, out, modifier in blueprints(a.perfetto_git, path):
                reason, files = port_one(a.perfetto_git, path, test, trace, query, out,
                                         modifier)
                where = f"{path[len(BASE):]}\t{test}"
                if test in existing:
                    print(f"exists\t{where}")
                    continue
                if reason:
                    print(f"skip\t{where}\t{reason}")
                    continue
                print(f"port\t{where}\t{suite_name(path)}")
                if not a.dry_run:
                    dst = Path(a.out) / suite_name(path) / test
                    dst.mkdir(parents=True, exist_ok=True)
                    for name, text in files.items():
                        (dst / name).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
