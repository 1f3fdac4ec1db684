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


def _dev(result: LboResult, device: str | None) -> str:
    """' on <device>' when the study has several devices, else ''."""
    return f" on {device}" if device and len(result.devices) > 1 else ""


def failure_lines(failures: pl.DataFrame) -> list[str]:
    """One line per (device, benchmark, config, x) with a failed run."""
    kinds = (("out_of_memory_error", "OutOfMemoryError"), ("killed", "killed"),
             ("memory_kill", "killed for memory"), ("exited", "exited"),
             ("reused", "reused a running process"))
    out = []
    for r in failures.filter(pl.col("failed") > 0).iter_rows(named=True):
        how = ", ".join(f"{r[k]} {what}" for k, what in kinds if r[k])
        out.append(f"{r['benchmark']} / {r['config']} / {_f(r['x'], 'g')}x on {r['device']}: "
                   f"{r['failed']} of {r['runs']} runs failed ({how})")
    return out


def covers_lines(result: LboResult) -> list[str]:
    """Which benchmarks the summary rows cover, and which they leave out why."""
    t = result.table
    bm = t.filter(pl.col("kind") == "benchmark")
    out = []
    for device in result.devices:
        rows = bm.filter(pl.col("device") == device)
        names = sorted(set(rows["benchmark"].to_list()))
        left = sorted(set(rows.filter(~pl.col("in_summary"))["benchmark"].to_list()))
        by_name = [b for b in left if b in result.options.exclude_benchmarks]
        flagged = [b for b in left if b not in by_name]
        line = (f"summary rows{_dev(result, device)} cover {len(names) - len(left)} of "
                f"{len(names)} benchmarks: "
                + ", ".join(b for b in names if b not in left))
        if by_name:
            line += f"; left out by name: {', '.join(by_name)}"
        if flagged:
            line += f"; left out as flagged (--drop-flagged): {', '.join(flagged)}"
        out.append(line)
    return out


def _notes(console: Any, result: LboResult) -> None:
    for line in covers_lines(result):
        console.print(line, soft_wrap=True)
    for r in result.flags.iter_rows(named=True):
        console.print(f"flagged {r['benchmark']}{_dev(result, r['device'])} ({r['flag']}): "
                      f"{r['detail']}", soft_wrap=True, style=GREY)
    if result.flags.height and not result.options.drop_flagged:
        console.print("flags never change a summary row: --exclude-benchmark NAME leaves a "
                      "benchmark out, --drop-flagged every flagged one", soft_wrap=True)
    if result.excluded.height:
        hints = []
        if not result.options.include_unhealthy and (
                result.excluded["reason"].is_in(["app_died", "process_reused"]).any()
                or result.excluded["reason"].str.starts_with("unhealthy").any()):
            hints.append("--include-unhealthy keeps runs whose app died, that reused a "
                         "process or that failed their health check")
        hint = f" ({'; '.join(hints)})" if hints else ""
        console.print(f"excluded {result.excluded.height} run(s){hint}:", soft_wrap=True)
        for line in excluded_lines(result.excluded):
            console.print(f"  {line}", soft_wrap=True)
    failed = failure_lines(result.failures)
    if failed:
        console.print("failed runs per benchmark, config and x:", soft_wrap=True)
        for line in failed:
            console.print(f"  {line}", soft_wrap=True)
    for line in warning_lines(result.warnings):
        console.print(line, soft_wrap=True)


def _ci_title(result: LboResult) -> str:
    o = result.options
    warm = f", first {o.drop_warmup} iteration(s) dropped" if o.drop_warmup else ""
    return f"{o.measure.what}; mean ± {o.ci_level}% CI over invocations{warm}"


def lbo_text(result: LboResult, at: float | None = None) -> str:
    """The long LBO table, or with ``at`` the Table-5 view at that heap
    multiple (one table per device when the study has several)."""
    from rich.table import Table

    several = len(result.devices) > 1

    def long_table(console: Any) -> None:
        t = Table(pad_edge=False, title=f"GC lower-bound overhead ({_ci_title(result)})")
        cols = (["device"] if several else []) + [
            "benchmark", "config", "x", "n", "cost ms", "distilled ms", "baseline ms", "LBO",
            "CI", "flags"]
        for col in cols:
            t.add_column(col, justify="left" if col in ("device", "benchmark", "config", "flags")
                         else "right")
        rows = result.table.to_dicts()
        for i, r in enumerate(rows):
            flagged = r["flags"] or ""
            if r["kind"] == "benchmark" and not r["in_summary"]:
                flagged = f"{flagged} (not summarised)".strip()
            last_benchmark = (r["kind"] == "benchmark" and i + 1 < len(rows)
                              and rows[i + 1]["kind"] == "summary")
            t.add_row(*([r["device"]] if several else []), r["benchmark"], r["config"],
                      _f(r["x"], "g"), str(r["n"]), _ms(r["cost_mean_ns"]),
                      _ms(r["distilled_mean_ns"]), _ms(r["baseline_ns"]), _f(r["lbo"], ".3f"),
                      _ci(r["ci_pct"]), flagged,
                      style=GREY if r["flags"] or r["in_summary"] is False else None,
                      end_section=last_benchmark)
        console.print(t)

    def at_tables(console: Any) -> None:
        wide = result.at(at)  # type: ignore[arg-type]
        configs = [c.removesuffix("_lbo") for c in wide.columns if c.endswith("_lbo")]
        for device in result.devices:
            rows = wide.filter(pl.col("device") == device).to_dicts()
            if not rows:
                continue
            t = Table(pad_edge=False, title=f"GC lower-bound overhead at {at:g}x heap"
                      f"{_dev(result, device)} ({_ci_title(result)})")
            t.add_column("benchmark")
            for c in configs:
                t.add_column(c, justify="right")
            t.add_column("flags")
            for i, r in enumerate(rows):
                cells = []
                for c in configs:
                    lbo, ci = r[f"{c}_lbo"], r[f"{c}_ci_pct"]
                    cells.append(_f(lbo, ".3f") + ("" if ci is None else f" {_ci(ci)}"))
                name = r["benchmark"] + (", excluded" if r["in_summary"] is False else "")
                t.add_row(name, *cells, r["flags"] or "",
                          style=GREY if r["flags"] or r["in_summary"] is False else None,
                          end_section=(r["kind"] == "benchmark" and i + 1 < len(rows)
                                       and rows[i + 1]["kind"] == "summary"))
            console.print(t)

    def build(console: Any) -> None:
        (long_table if at is None else at_tables)(console)
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
        o = result.options
        doc = {"cost": o.cost, "ci_level": o.ci_level, "drop_warmup": o.drop_warmup,
               "exclude_benchmarks": list(o.exclude_benchmarks), "drop_flagged": o.drop_flagged,
               "rows": _json_safe(table.to_dicts()), "flags": result.flags.to_dicts(),
               "excluded": result.excluded.to_dicts(),
               "warnings": result.warnings.to_dicts(),
               "failures": result.failures.to_dicts(),
               "sweeps": _json_safe(result.sweeps.to_dicts())}
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
            console.print(line, soft_wrap=True)

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
