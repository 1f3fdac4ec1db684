"""Study results for people (text tables) and machines (JSON, CSV, Parquet).

Flagged benchmarks are greyed (dim) on a terminal and always carry their
flags in a column; excluded runs and flags are listed after the table.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import polars as pl

from artscope.errors import UsageError
from artscope.output import _rich_text
from artscope.studies.lbo import X_TOLERANCE, LboResult, excluded_lines

GREY = "grey50"


def _f(v: float | None, fmt: str) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def _ms(ns: float | None) -> str:
    return "—" if ns is None else f"{ns / 1e6:.3f}"


def _ci(v: float | None) -> str:
    return "—" if v is None else f"±{v:.2f}%"


def _notes(console: Any, result: LboResult) -> None:
    for r in result.flags.iter_rows(named=True):
        console.print(f"flagged {r['benchmark']} ({r['flag']}): {r['detail']}", soft_wrap=True,
                      style=GREY)
    if result.flags.height:
        left = "kept in" if result.options.keep_flagged else "left out of"
        console.print(f"flagged benchmarks are {left} the summary rows"
                      + ("" if result.options.keep_flagged else " (--keep-flagged keeps them)"),
                      soft_wrap=True)
    if result.excluded.height:
        hint = "" if result.options.include_unhealthy else " (--include-unhealthy keeps failing runs)"
        console.print(f"excluded {result.excluded.height} run(s){hint}:", soft_wrap=True)
        for line in excluded_lines(result.excluded):
            console.print(f"  {line}", soft_wrap=True)


def lbo_text(result: LboResult, at: float | None = None) -> str:
    """The long LBO table, or with ``at`` the Table-5 view at that heap multiple."""
    from rich.table import Table

    def build(console: Any) -> None:
        if at is None:
            t = Table(pad_edge=False, title=f"GC lower-bound overhead ({result.options.cost})")
            for col in ("benchmark", "config", "x", "n", "cost ms", "distilled ms",
                        "baseline ms", "LBO", "95% CI", "flags"):
                t.add_column(col, justify="left" if col in ("benchmark", "config", "flags") else "right")
            rows = result.table.to_dicts()
            for i, r in enumerate(rows):
                style = GREY if r["flags"] else None
                last_benchmark = (r["kind"] == "benchmark" and i + 1 < len(rows)
                                  and rows[i + 1]["kind"] == "summary")
                t.add_row(r["benchmark"], r["config"], _f(r["x"], "g"), str(r["n"]),
                          _ms(r["cost_mean_ns"]), _ms(r["distilled_mean_ns"]),
                          _ms(r["baseline_ns"]), _f(r["lbo"], ".3f"), _ci(r["ci95_pct"]),
                          r["flags"] or "", style=style, end_section=last_benchmark)
        else:
            wide = result.at(at)
            configs = [c.removesuffix("_lbo") for c in wide.columns if c.endswith("_lbo")]
            t = Table(pad_edge=False, title=f"GC lower-bound overhead at {at:g}x heap "
                      f"({result.options.cost}; mean ± 95% CI)")
            t.add_column("benchmark")
            for c in configs:
                t.add_column(c, justify="right")
            t.add_column("flags")
            for r in wide.iter_rows(named=True):
                cells = []
                for c in configs:
                    lbo, ci = r[f"{c}_lbo"], r[f"{c}_ci95_pct"]
                    cells.append(_f(lbo, ".3f") + ("" if ci is None else f" {_ci(ci)}"))
                t.add_row(r["benchmark"], *cells, r["flags"] or "",
                          style=GREY if r["flags"] else None)
        console.print(t)
        _notes(console, result)

    return _rich_text(build)


def _json_safe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
             for k, v in r.items()} for r in rows]


def lbo_bytes(result: LboResult, fmt: str, at: float | None = None) -> bytes:
    """``fmt`` = table | json | csv | parquet; ``at`` keeps one heap multiple."""
    if fmt == "table":
        return lbo_text(result, at).encode()
    table = result.table
    if at is not None:
        result.at(at)  # raises when the study has no such x
        table = table.filter((pl.col("x") - at).abs() < X_TOLERANCE)
    if fmt == "json":
        doc = {"cost": result.options.cost, "rows": _json_safe(table.to_dicts()),
               "flags": result.flags.to_dicts(), "excluded": result.excluded.to_dicts()}
        if at is not None:
            doc["at"] = at
            doc["table5"] = _json_safe(result.at(at).to_dicts())
        return (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode()
    buf = io.BytesIO()
    if fmt == "csv":
        table.write_csv(buf)
    elif fmt == "parquet":
        table.write_parquet(buf)
    else:
        raise UsageError(f"unknown format {fmt!r}")
    return buf.getvalue()
