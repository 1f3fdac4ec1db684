"""What the capture asked for and the kernel or atrace refused: the
ftrace_setup_errors of a trace, read once for the verdict (data_loss
reasons) and for the capture check.

trace_processor names them in its import logs (sql-metrics/
ftrace_setup_errors.sql); one older than its import logs kept them as one
metadata text, a message a line; else only the stat's count is known.
"""

from __future__ import annotations

from typing import Any

from artscope.engines.base import Engine
from artscope.metrics.runner import metric_sql

#: Message prefixes -> kind (as ftrace_setup_errors.sql names them).
_KINDS = (("Ftrace event failed: ", "failed"), ("Ftrace event unknown: ", "unknown"),
          ("Atrace failures: ", "atrace"), ("Ftrace exclusive feature error: ", "exclusive"))


def _row(message: str) -> dict[str, Any]:
    for prefix, kind in _KINDS:
        if message.startswith(prefix):
            return {"kind": kind, "what": message[len(prefix):].strip(), "message": message}
    return {"kind": "other", "what": message.strip(), "message": message}


def setup_errors(engine: Engine) -> tuple[list[dict[str, Any]], int]:
    """(the named errors as {kind, what, message}, how many more the trace
    counts without naming them)."""
    try:
        rows = engine.query(metric_sql("ftrace_setup_errors")).to_dicts()
    except Exception:  # noqa: BLE001 - a trace_processor without import logs
        rows = []
    if rows:
        return rows, 0
    n = engine.query("SELECT coalesce(sum(value), 0) AS n FROM stats "
                     "WHERE name = 'ftrace_setup_errors'").item(0, 0)
    if not n:
        return [], 0
    try:
        text = engine.query("SELECT str_value FROM metadata "
                            "WHERE name = 'ftrace_setup_errors'")["str_value"].to_list()
    except Exception:  # noqa: BLE001 - no such metadata
        text = []
    named = [_row(line) for t in text if t for line in t.splitlines() if line.strip()]
    return (named, 0) if named else ([], int(n))
