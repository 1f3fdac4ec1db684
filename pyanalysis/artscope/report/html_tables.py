"""Table cells of the HTML reports: values formatted by the meaning of their
key, key-value and row tables. Shared by the run report (html.py) and its
sections in other modules (memory_charts.py)."""

from __future__ import annotations

import html
import json
from typing import Any, Iterable, Sequence


# A person reads times relative to the run window's start ("+0.295 s", as the
# health messages say) and durations in ms; absolute trace ns stay in the JSON
# output (artscope analyze) and in the charts' inline data.

#: Frequency statistics: shown as whole numbers with thousands separators.
_FREQ_KEYS = {"min", "max", "mean", "dominant"}


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _rel(ts: int, start: int) -> str:
    """An absolute trace timestamp as seconds since the run start."""
    return f"+{(ts - start) / 1e9:.3f} s"


def _ms(ns: int | float) -> str:
    return f"{ns / 1e6:,.3f} ms"


def _is_time_key(key: str) -> bool:
    return key == "ts" or key.endswith("_ts")


def _fmt(key: str, v: Any, start: int | None = None) -> str:
    """One value for a table cell, by the meaning its key gives it."""
    if v is None:
        return '<span class="meta">—</span>'
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int) and start is not None and _is_time_key(key):
        return _rel(v, start)
    if isinstance(v, (int, float)) and key.endswith("_ns"):
        return _ms(v)
    if isinstance(v, (int, float)) and (key.endswith("share") or key.endswith("residency")):
        return f"{100 * v:.2f}%"
    if isinstance(v, (int, float)) and key in _FREQ_KEYS:
        return f"{v:,.0f}"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list) and all(isinstance(x, (int, float, str)) for x in v):
        return _e(", ".join(str(x) for x in v))
    if isinstance(v, dict):
        return "; ".join(f"{_e(k)} {_fmt(k, x, start)}" for k, x in v.items())
    if isinstance(v, list):
        return f"<pre>{_e(json.dumps(v, sort_keys=True))}</pre>"
    return _e(v)


def _num(v: Any) -> str:
    return ' class="num"' if isinstance(v, (int, float)) and not isinstance(v, bool) else ""


def _head(key: str) -> str:
    """A column or row header; long snake_case names may break at '_'."""
    return _e(key).replace("_", "_<wbr>")


def _kv_table(d: dict[str, Any], start: int | None = None, skip: Iterable[str] = ()) -> str:
    skip = set(skip)
    rows = "".join(f'<tr><th>{_head(k)}</th><td{_num(v)}>{_fmt(k, v, start)}</td></tr>'
                   for k, v in d.items() if k not in skip)
    return f"<table>{rows}</table>"


def _rows_table(rows: Sequence[dict[str, Any]], start: int | None = None,
                skip: Iterable[str] = ()) -> str:
    if not rows:
        return '<p class="meta">none</p>'
    skip = set(skip)
    cols = [c for c in rows[0] if c not in skip]
    head = "".join(f"<th>{_head(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f'<td{_num(r.get(c))}>{_fmt(c, r.get(c), start)}</td>'
                                    for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
