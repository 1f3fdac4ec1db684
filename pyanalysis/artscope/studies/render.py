"""Study results for people (text tables) and machines (JSON, CSV, Parquet).

Flagged benchmarks are greyed (dim) on a terminal and always carry their
flags in a column; excluded runs and flags are listed after the table.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from artscope.studies.noise import NoiseResult

from artscope.output import _term_width, frame_bytes
from artscope.studies.checks import warning_lines
from artscope.studies.lbo import X_TOLERANCE, LboResult, excluded_lines

GREY = "bright_black"  # grey on light and dark terminals


def _rich_text(build: Any) -> str:
    """Text of a rich rendering; in colour (flagged rows grey) only when
    stdout is a terminal and NO_COLOR is unset, so files and pipes stay plain."""
    from rich.console import Console

    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    buf = io.StringIO()
    build(Console(file=buf, width=max(100, min(200, _term_width())), highlight=False,
                  color_system="standard" if color else None, force_terminal=color))
    return buf.getvalue()


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
        hints = []
        if not result.options.include_unhealthy:
            hints.append("--include-unhealthy keeps failing runs")
        if (not result.options.include_drifted
                and (result.excluded["reason"] == "condition_drift").any()):
            hints.append("--include-drifted keeps drifted runs")
        hint = f" ({'; '.join(hints)})" if hints else ""
        console.print(f"excluded {result.excluded.height} run(s){hint}:", soft_wrap=True)
        for line in excluded_lines(result.excluded):
            console.print(f"  {line}", soft_wrap=True)
    for line in warning_lines(result.warnings):
        console.print(f"warning: {line}", soft_wrap=True)


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
            rows = wide.to_dicts()
            for i, r in enumerate(rows):
                cells = []
                for c in configs:
                    lbo, ci = r[f"{c}_lbo"], r[f"{c}_ci95_pct"]
                    cells.append(_f(lbo, ".3f") + ("" if ci is None else f" {_ci(ci)}"))
                t.add_row(r["benchmark"], *cells, r["flags"] or "",
                          style=GREY if r["flags"] else None,
                          end_section=(r["kind"] == "benchmark" and i + 1 < len(rows)
                                       and rows[i + 1]["kind"] == "summary"))
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
               "flags": result.flags.to_dicts(), "excluded": result.excluded.to_dicts(),
               "warnings": result.warnings.to_dicts()}
        if at is not None:
            doc["at"] = at
            doc["table5"] = _json_safe(result.at(at).to_dicts())
        return (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode()
    return frame_bytes(table, fmt)


def _num(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:.6g}" if abs(v) < 1e6 else f"{v / 1e6:.3f}M"


def noise_text(result: "NoiseResult", top: int = 3) -> str:
    """Groups (noisiest first) with spread and outliers, each group's
    best-ranked factors, and one sentence per group."""
    from rich.table import Table

    keys = result.group_by

    def label(r: dict[str, Any]) -> str:
        return " / ".join(f"{r[k]:g}x" if k == "x" and isinstance(r[k], float) else str(r[k])
                          for k in keys) or "all runs"

    def build(console: Any) -> None:
        t = Table(pad_edge=False, title=f"Noise of {result.metric} ({result.column}) per "
                  + (", ".join(keys) or "study"))
        for col in ("group", "n", "mean", "CV", "95% CI", "outliers", "unhealthy", "top factor", "rho"):
            t.add_column(col, justify="left" if col in ("group", "top factor") else "right")
        for r in result.groups.iter_rows(named=True):
            t.add_row(label(r), str(r["n"]), _num(r["mean"]),
                      _f(None if r["cv"] is None else 100 * r["cv"], ".2f") + "%",
                      _ci(r["ci95_pct"]), str(r["n_outliers"]), str(r["n_unhealthy"]),
                      r["top_factor"] or "—", _f(r["top_rho"], ".2f"))
        console.print(t)
        for r in result.groups.iter_rows(named=True):
            g = result.factors
            for k in keys:
                g = g.filter(pl.col(k) == r[k])
            g = g.filter(pl.col("rho").is_not_null()).sort("rank").head(top)
            if g.height:
                ft = Table(pad_edge=False, title=f"{label(r)}: factors ranked")
                for col in ("factor", "rho", "runs affected", "affected vs others", "CI without"):
                    ft.add_column(col, justify="left" if col == "factor" else "right")
                for f in g.iter_rows(named=True):
                    ft.add_row(f["factor"], _f(f["rho"], ".3f"), str(f["runs_affected"]),
                               _f(f["diff_pct"], "+.2f") + "%", _ci(f["ci95_pct_without"]))
                console.print(ft)
            out = result.runs
            for k in keys:
                out = out.filter(pl.col(k) == r[k])
            out = out.filter(pl.col("outlier"))
            if out.height:
                console.print("outliers (MAD score > 3.5): " + ", ".join(
                    f"{o['trace'].rsplit('/', 1)[-1]} run {o['run']} ({_num(o['value'])}"
                    + (f", score {o['mad_score']:.1f})" if o["mad_score"] is not None else ")")
                    for o in out.iter_rows(named=True)), soft_wrap=True)
        console.print()
        for s in result.sentences():
            console.print(s, soft_wrap=True)
        if result.excluded.height:
            console.print(f"left out {result.excluded.height} run(s): " + "; ".join(
                f"{r['trace'].rsplit('/', 1)[-1]} run {r['run']}: {r['reason']}"
                for r in result.excluded.iter_rows(named=True)), soft_wrap=True)
        for line in warning_lines(result.warnings):
            console.print(f"warning: {line}", soft_wrap=True)

    return _rich_text(build)


def noise_bytes(result: "NoiseResult", fmt: str) -> bytes:
    if fmt == "table":
        return noise_text(result).encode()
    if fmt == "json":
        doc = {"metric": result.metric, "column": result.column, "group_by": result.group_by,
               "groups": _json_safe(result.groups.to_dicts()),
               "factors": _json_safe(result.factors.to_dicts()),
               "runs": _json_safe(result.runs.to_dicts()),
               "excluded": result.excluded.to_dicts(),
               "warnings": result.warnings.to_dicts()}
        return (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode()
    return frame_bytes(result.groups, fmt)
