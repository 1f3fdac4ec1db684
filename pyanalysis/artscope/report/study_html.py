"""The study page of ``artscope report`` (labels given): one offline HTML
file with the Table-5 view at every heap multiple, LBO curves, what was
flagged or excluded and why, the conditions the runs held (frequency level
per device and run, drifted runs marked; study warnings) and the noise
diagnosis.

It shares the run report's inline Vega bundle, chart loader and atomic
write (artscope.report.html), so the browser test reads the same
``data-charts-rendered`` / ``data-charts-failed`` markers.
"""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from artscope.report.html import CSS, LOADER, _Charts, _e, vega_javascript, write_atomic

if TYPE_CHECKING:
    from artscope.studies import Study

STUDY_CSS = """
tr.flagged td{color:#999}tr.summary td{background:#fafafa;font-weight:600}
tr.drifted td{background:#fff0f0}
.formula{font-family:ui-monospace,monospace;font-size:13px;background:#f7f7f7;padding:8px 12px;
  white-space:pre;display:block;margin:6px 0}
"""

METHOD = """cost(run)      = app CPU in the run window (task clock)
distilled(run) = cost − GC CPU
baseline(b)    = min over (config, x) of mean distilled cost
LBO(b, c, x)   = mean cost / baseline(b)
±CI            = 100 · t(0.975, n−1) · s / √n / mean cost"""


def _lbo_cell(lbo: float | None, ci: float | None) -> str:
    if lbo is None or (isinstance(lbo, float) and math.isnan(lbo)):
        return "—"
    return f"{lbo:.3f}" + ("" if ci is None else f" ±{ci:.2f}%")


def _table5(study: "Study", x: float) -> str:
    wide = study.at(x)
    configs = [c.removesuffix("_lbo") for c in wide.columns if c.endswith("_lbo")]
    head = "".join(f"<th>{_e(c)}</th>" for c in ["benchmark", *configs, "flags"])
    rows = []
    for r in wide.iter_rows(named=True):
        cls = "summary" if r["kind"] == "summary" else ("flagged" if r["flags"] else "")
        cells = "".join(f'<td class="num">{_e(_lbo_cell(r[f"{c}_lbo"], r[f"{c}_ci95_pct"]))}</td>'
                        for c in configs)
        rows.append(f'<tr class="{cls}"><td>{_e(r["benchmark"])}</td>{cells}'
                    f'<td>{_e(r["flags"] or "")}</td></tr>')
    return f'<table class="table5" data-x="{x:g}"><tr>{head}</tr>{"".join(rows)}</table>'


def _frame_table(df: pl.DataFrame, cls_col: str | None = None) -> str:
    if df.is_empty():
        return '<p class="meta">none</p>'
    head = "".join(f"<th>{_e(c)}</th>" for c in df.columns)
    body = []
    for r in df.iter_rows(named=True):
        cls = ' class="flagged"' if cls_col and r.get(cls_col) else ""
        cells = "".join(
            f'<td class="num">{v:.6g}</td>' if isinstance(v, float)
            else f"<td>{_e('' if v is None else v)}</td>" for v in r.values())
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _level(v: float | None, unit: str | None) -> str:
    if v is None:
        return "—"
    n = int(v) if float(v).is_integer() else v
    return f"{n} {unit or ''}".strip()


def _conditions(study: "Study") -> str:
    """The conditions table: one row per device and run, one column per
    level series (the run's dominant level; "below max" when its trace shows
    a higher one, "unsteady" when it changed), the study's level in the
    header; a drifted run's row is marked (class ``drifted``)."""
    long = study.conditions()
    if long.is_empty():
        return ('<p class="meta">no frequency levels recorded (no allowed CPUs given, no '
                "memory-controller series in the traces)</p>")
    series = sorted(set(long["series"].to_list()))
    study_level = {}
    for r in long.iter_rows(named=True):
        study_level.setdefault((r["device"], r["series"]), _level(r["study_level"], r["unit"]))
    head = "".join(f"<th>{_e(c)}</th>" for c in ["device", "trace", "run", *series, "drifted"])
    body = []
    for (device, trace, run), g in long.group_by("device", "trace", "run", maintain_order=True):
        cells = {}
        drifted = []
        for r in g.iter_rows(named=True):
            note = ("" if r["stable"] is not False else " unsteady") + (
                " below max" if r["at_max"] is False else "")
            cells[r["series"]] = _level(r["level"], r["unit"]) + note
            if r["drifted"]:
                drifted.append(f"{r['series']} (study: {study_level[(device, r['series'])]})")
        cls = ' class="drifted"' if drifted else ""
        tds = "".join(f"<td>{_e(cells.get(sr, '—'))}</td>" for sr in series)
        body.append(f"<tr{cls}><td>{_e(device)}</td><td>{_e(trace)}</td>"
                    f'<td class="num">{run}</td>{tds}<td>{_e("; ".join(drifted))}</td></tr>')
    levels = "; ".join(f"{d}, {sr}: {lv}" for (d, sr), lv in sorted(study_level.items()))
    return (f'<p class="meta">the study\'s levels (mode of the stable levels per device): '
            f"{_e(levels)}</p>"
            f'<table class="conditions"><tr>{head}</tr>{"".join(body)}</table>')


def _noise_sentences(noise: Any, quiet_ci_pct: float) -> str:
    """The sentence of every group that is noisy or has a factor tracking the
    metric; the quiet rest in one line."""
    g = noise.groups
    loud = g.filter((pl.col("ci95_pct") > quiet_ci_pct).fill_null(True)
                    | pl.col("top_factor").is_not_null())
    items = [f"<li>{_e(s)}</li>" for s in loud["sentence"].to_list()]
    quiet = g.height - loud.height
    if quiet:
        items.append(f'<li class="meta">{quiet} other group(s) agree within ±{quiet_ci_pct:g}% '
                     "with no factor tracking the metric</li>")
    return "<ul>" + "".join(items) + "</ul>"


def render_study(study: "Study", title: str | None = None, noise_metric: str = "task_clock") -> str:
    """The study page as one self-contained HTML string."""
    from artscope.report import study_charts

    res = study.lbo_result
    charts_ = _Charts()
    xs = sorted({x for x in res.table["x"].to_list() if x is not None})
    kept_runs = study.runs.height - res.excluded.height
    n_bm = res.table.filter(pl.col("kind") == "benchmark")["benchmark"].n_unique()
    flagged = sorted(set(res.flags["benchmark"].to_list()))
    body = [
        f'<p class="meta">{study.runs.height} runs, {kept_runs} counted, '
        f"{res.excluded.height} excluded; {n_bm} benchmarks, "
        f"{len(flagged)} flagged ({_e(', '.join(flagged) or 'none')}); "
        f"heap multiples {_e(', '.join(f'{x:g}' for x in xs) or '—')}</p>",
        "<h2>Method</h2>",
        "<p>Lower-bound overhead (Cai et al., ISPASS'22) on the task clock, per benchmark b, "
        "config c and heap multiple x over n invocations:</p>",
        f'<span class="formula">{_e(METHOD)}</span>',
        f"<p>Runs with a <code>fail</code> verdict are "
        f"{'kept' if res.options.include_unhealthy else 'excluded'}; chaotic benchmarks (a larger "
        "heap costing significantly more, non-overlapping CIs) and noisy ones (CI above "
        f"±{res.options.noisy_ci_pct:g}%) are greyed and "
        f"{'kept in' if res.options.keep_flagged else 'left out of'} the summary rows, and so "
        "are benchmarks whose work (allocated KB, frames, distilled cost) trends with x. Runs "
        "held at another frequency level than the study's on their device (the mode of the "
        "stable levels) are "
        f"{'kept' if res.options.include_drifted else 'excluded'}, and so are runs whose heap "
        "peaked more than 5% above their heap label.</p>",
    ]
    for x in xs:
        body += [f'<h2 id="at-{x:g}">LBO at {x:g}× heap (mean ± 95% CI)</h2>', _table5(study, x)]
    body += ["<h2>LBO curves</h2>", charts_.add("LBO curves", lambda: study_charts.lbo_curves(res))]
    body += ["<h2>Conditions</h2>",
             "<p>Dominant frequency level of each allowed cluster and memory controller per "
             "run, the study's level on that device, and whether the run held the highest "
             "level its trace shows; drifted runs are marked.</p>",
             _conditions(study),
             "<h2>Study warnings</h2>",
             _frame_table(res.warnings.with_columns(
                 trace=pl.col("trace").str.split("/").list.last()))]
    body += ["<h2>Flagged benchmarks</h2>", _frame_table(res.flags),
             "<h2>Excluded runs</h2>",
             _frame_table(res.excluded.with_columns(
                 trace=pl.col("trace").str.split("/").list.last()))]
    body += ["<h2>All rows</h2>", "<details><summary>show the long LBO table</summary>",
             _frame_table(res.table, cls_col="flags"), "</details>"]
    noise = study.noise(noise_metric)
    body += [f"<h2>Noise of {_e(noise_metric)}</h2>",
             _noise_sentences(noise, res.options.noisy_ci_pct),
             _frame_table(noise.groups.drop("sentence")),
             charts_.add("noise factors", lambda: study_charts.noise_factors(noise))]
    title = title or "artscope study"
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>{_e(title)}</title><style>{CSS}{STUDY_CSS}</style>",
        f"<script>{vega_javascript()}</script></head><body>",
        f'<h1>{_e(title)}</h1><p class="meta">generated {stamp} by artscope</p>',
        '<pre id="artscope-errors" hidden></pre>',
        *body,
        f"<script>{LOADER}</script></body></html>\n",
    ])


def write_study_report(study: "Study", output: str | Path, title: str | None = None,
                       noise_metric: str = "task_clock") -> Path:
    """Render the study page and write it to ``output`` atomically."""
    return write_atomic(output, render_study(study, title=title, noise_metric=noise_metric))


__all__ = ["render_study", "write_study_report"]
