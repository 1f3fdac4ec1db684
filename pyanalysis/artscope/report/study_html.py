"""The study page of ``artscope report`` (labels given): one offline HTML
file with the Table-5 view at every heap multiple (per device), LBO curves,
what was flagged, excluded or failed and why, responsiveness across
invocations (frame-duration percentiles, janky frames against x), the
conditions the runs held (frequency level per device and run, drifted runs
marked), each benchmark's sweep over x against the study's span, the study
warnings and the noise diagnosis.

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

METHOD = """cost(invocation) = mean over its iterations of the run's cost ({what})
distilled        = cost − its GC part
baseline(b)      = min over (config, x) of mean distilled cost      (per device)
LBO(b, c, x)     = mean cost / baseline(b)
±CI              = 100 · t(q, n−1) · s / √n / mean cost   (n invocations, {level}% CI)"""


def _lbo_cell(lbo: float | None, ci: float | None) -> str:
    if lbo is None or (isinstance(lbo, float) and math.isnan(lbo)):
        return "—"
    return f"{lbo:.3f}" + ("" if ci is None else f" ±{ci:.2f}%")


def _table5(study: "Study", x: float) -> str:
    """The Table-5 view at ``x``: one table per device, benchmarks left out
    of the summary rows marked "excluded", flagged ones grey."""
    res = study.lbo_result
    wide = study.at(x)
    configs = [c.removesuffix("_lbo") for c in wide.columns if c.endswith("_lbo")]
    head = "".join(f"<th>{_e(c)}</th>" for c in ["benchmark", *configs, "flags"])
    out = []
    for device in res.devices:
        rows = []
        for r in wide.filter(pl.col("device") == device).iter_rows(named=True):
            cls = ("summary" if r["kind"] == "summary"
                   else "flagged" if r["flags"] or r["in_summary"] is False else "")
            name = r["benchmark"] + (", excluded" if r["in_summary"] is False else "")
            cells = "".join(
                f'<td class="num">{_e(_lbo_cell(r[f"{c}_lbo"], r[f"{c}_ci_pct"]))}</td>'
                for c in configs)
            rows.append(f'<tr class="{cls}"><td>{_e(name)}</td>{cells}'
                        f'<td>{_e(r["flags"] or "")}</td></tr>')
        if rows:
            caption = f"<caption>{_e(device)}</caption>" if len(res.devices) > 1 else ""
            out.append(f'<table class="table5" data-x="{x:g}" data-device="{_e(device)}">'
                       f'{caption}<tr>{head}</tr>{"".join(rows)}</table>')
    return "".join(out)


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
    from artscope.studies.checks import warning_lines
    from artscope.studies.render import covers_lines, failure_lines

    res = study.lbo_result
    o = res.options
    charts_ = _Charts()
    xs = sorted({x for x in res.table["x"].to_list() if x is not None})
    kept_runs = study.runs.height - res.excluded.height
    n_bm = res.table.filter(pl.col("kind") == "benchmark")["benchmark"].n_unique()
    flagged = sorted(set(res.flags["benchmark"].to_list()))
    body = [
        f'<p class="meta">{study.runs.height} runs, {kept_runs} counted, '
        f"{res.excluded.height} excluded; {n_bm} benchmarks, "
        f"{len(flagged)} flagged ({_e(', '.join(flagged) or 'none')}); "
        f"heap multiples {_e(', '.join(f'{x:g}' for x in xs) or '—')}; "
        f"devices {_e(', '.join(res.devices))}</p>",
        "<h2>Method</h2>",
        "<p>Lower-bound overhead (Cai et al., ISPASS'22) with the ISMM'24 protocol, per device, "
        "benchmark b, config c and heap multiple x over n invocations:</p>",
        f'<span class="formula">{_e(METHOD.format(what=o.measure.what, level=o.ci_level))}</span>',
        f"<p>Runs whose app died, that reused a running process or whose verdict is "
        f"<code>fail</code> are {'kept' if o.include_unhealthy else 'excluded'}"
        + (f"; each invocation's first {o.drop_warmup} iteration(s) are dropped"
           if o.drop_warmup else "")
        + ". Summary rows cover every benchmark"
        + (f" except {_e(', '.join(o.exclude_benchmarks))} (excluded by name)"
           if o.exclude_benchmarks else "")
        + ("; flagged benchmarks are left out (--drop-flagged)" if o.drop_flagged else
           "; flags (chaotic, noisy above "
           f"±{o.noisy_ci_pct:g}%, workload_varies, drift, heap) are listed and never change "
           "a summary row")
        + ". Runs held at another frequency level than the study's on their device are "
        f"{'excluded' if o.exclude_drifted else 'kept and their benchmark flagged drift'}.</p>",
        "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in covers_lines(res)) + "</ul>",
    ]
    for x in xs:
        body += [f'<h2 id="at-{x:g}">LBO at {x:g}× heap (mean ± {o.ci_level}% CI)</h2>',
                 _table5(study, x)]
    body += ["<h2>LBO curves</h2>", charts_.add("LBO curves", lambda: study_charts.lbo_curves(res))]
    resp = study.responsiveness()
    body += ["<h2>Responsiveness across invocations</h2>",
             "<p>Frame-duration percentiles per config and heap multiple: the mean of the "
             "invocations' percentile with its lowest and highest invocation; janky frames "
             f"(% of frames) against x with {o.ci_level}% CIs over invocations.</p>",
             charts_.add("frame percentiles", lambda: study_charts.frame_percentiles(resp)),
             charts_.add("janky frames", lambda: study_charts.janky_curves(resp, o.ci_level)),
             _frame_table(resp)]
    body += ["<h2>Conditions</h2>",
             "<p>Dominant frequency level of each allowed cluster and memory controller per "
             "run, the study's level on that device, and whether the run held the highest "
             "level its trace shows (CPUs are held near, not at, their maximum in the ISMM'24 "
             "protocol; the memory controller at its maximum); drifted runs are marked.</p>",
             _conditions(study),
             "<h2>Loop order</h2>",
             "<p>Each benchmark's sweep over x (first to last start) against the span of its "
             "config's runs, and the rank correlation of start time with x inside it: "
             "recorded back to back (errata E.3.1) a sweep takes about its share of the "
             "runs.</p>",
             _frame_table(res.sweeps, cls_col="spread"),
             "<h2>Study warnings and notes</h2>",
             "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in warning_lines(res.warnings))
             + "</ul>" if res.warnings.height else '<p class="meta">none</p>']
    body += ["<h2>Flagged benchmarks</h2>", _frame_table(res.flags),
             "<h2>Failed runs</h2>",
             "<p>Runs whose app died (OutOfMemoryError, a kill, an exit) or that reused a "
             "running process, per benchmark, config and x: what a minimum-heap search "
             "reads.</p>",
             ("<ul>" + "".join(f"<li>{_e(line)}</li>" for line in failure_lines(res.failures))
              + "</ul>") if failure_lines(res.failures) else '<p class="meta">none</p>',
             "<h2>Excluded runs</h2>",
             _frame_table(res.excluded.with_columns(
                 trace=pl.col("trace").str.split("/").list.last()))]
    body += ["<h2>All rows</h2>", "<details><summary>show the long LBO table</summary>",
             _frame_table(res.table, cls_col="flags"), "</details>"]
    noise = study.noise(noise_metric)
    body += [f"<h2>Noise of {_e(noise_metric)}</h2>",
             _noise_sentences(noise, o.noisy_ci_pct),
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
