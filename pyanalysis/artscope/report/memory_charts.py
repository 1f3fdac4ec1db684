"""Memory and start-up charts of one analysed trace, and their report sections.

``memory``: the target's RSS over the run (the total and its anon / file /
shmem parts, step lines in MB) with the run's direct reclaim marked as
shaded spans and every kill as a vertical rule (red when the target was
killed). ``startups``: each launch of the target as a bar split into its
phases. Times a person reads are seconds since the run window's start
(launches: since the trace's first launch), as everywhere in the report.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from artscope.metrics.memory import RSS_PARTS, _rss_sources, _step_total
from artscope.report.chart_data import Runs, _by_run, _result, _window
from artscope.report.charts import WIDTH, _data, placeholder

KILL_COLORS = {True: "#d62728", False: "#7f7f7f"}
RECLAIM_COLOR = "#ff7f0e"
PHASE_NAMES = {"process_start_ns": "process start", "bind_application_ns": "bindApplication",
               "activity_start_ns": "activityStart", "activity_resume_ns": "activityResume",
               "first_frame_ns": "first frame"}


def rss_rows(runset: Runs, run: int = 0) -> pl.DataFrame:
    """(series, ts, t_s, mb) of the run's RSS: 'total' (the sum of the
    parts, else the polled total; as memory.rss_metrics) and each part, from W's start (or the
    first sample) to its end; each step holds until the next sample."""
    rows = _by_run(runset.analysis.tables.get("memory_rss", pl.DataFrame()), run)
    schema = {"series": pl.String, "ts": pl.Int64, "t_s": pl.Float64, "mb": pl.Float64}
    if rows.is_empty():
        return pl.DataFrame(schema=schema)
    start, end = _window(_result(runset, run))
    polled, parts, use_parts = _rss_sources(rows)
    frames = [_step_total(parts if use_parts else polled).with_columns(
        series=pl.lit("total"))]
    for series, key in RSS_PARTS.items():
        one = parts.filter(pl.col("series") == series)
        if one.height:
            frames.append(_step_total(one).with_columns(series=pl.lit(key.replace("rss_", ""))))
    out = pl.concat([f.select("series", "ts", "value_kb") for f in frames])
    # the value in force at W's start is drawn from W's start; each series
    # ends with its last value held to W's end
    out = out.with_columns(ts=pl.max_horizontal(pl.col("ts"), pl.lit(start)))
    last = out.group_by("series", maintain_order=True).last().with_columns(ts=pl.lit(end))
    return (pl.concat([out, last]).sort("series", "ts")
            .select("series", "ts", t_s=(pl.col("ts") - start) / 1e9,
                    mb=pl.col("value_kb") / 1024))


def memory(runset: Runs, run: int = 0) -> alt.TopLevelMixin:
    """The target's RSS over the run with direct reclaim and kills marked."""
    title = f"Run {run}: the app's resident memory, direct reclaim and kills"
    result = _result(runset, run)
    mem = result.get("memory") or {}
    start, end = _window(result)
    rows = rss_rows(runset, run)
    reclaim = _by_run(runset.analysis.tables.get("direct_reclaim", pl.DataFrame()), run)
    kills = mem.get("kills") or []
    if rows.is_empty() and reclaim.is_empty() and not kills:
        why = "; ".join(mem.get("unavailable", {}).get(k, "") for k in
                        ("rss_start_kb", "direct_reclaim_ns", "kills")
                        if mem.get("unavailable", {}).get(k)) or "no RSS, reclaim or kill in the run"
        return placeholder(title, why)
    x = alt.X("t_s:Q", title="seconds since the window start",
              scale=alt.Scale(domain=[0, (end - start) / 1e9]))
    layers = []
    if rows.height:
        layers.append(alt.Chart(_data(rows)).mark_line(interpolate="step-after").encode(
            x=x, y=alt.Y("mb:Q", title="RSS (MB)"),
            color=alt.Color("series:N", title="RSS"),
            tooltip=["series:N", alt.Tooltip("t_s:Q", format=".3f"),
                     alt.Tooltip("mb:Q", format=".1f")]))
    if reclaim.height:
        spans = reclaim.select(
            "tid", "thread_name", t_s=(pl.col("ts") - start) / 1e9,
            t_end_s=(pl.col("end_ts") - start) / 1e9, ms=pl.col("dur") / 1e6)
        layers.append(alt.Chart(_data(spans)).mark_rect(opacity=0.3, color=RECLAIM_COLOR)
                      .encode(x=x, x2="t_end_s:Q",
                              tooltip=["thread_name:N", "tid:Q",
                                       alt.Tooltip("ms:Q", title="direct reclaim (ms)",
                                                   format=".2f")]))
    if kills:
        marks = [{"t_s": (k["ts"] - start) / 1e9, "process": k["process"] or "<unknown>",
                  "pid": k["pid"], "source": k["source"],
                  "killed": "the app" if k["is_target"] else "another process"} for k in kills]
        layers.append(alt.Chart(_data(marks)).mark_rule(strokeWidth=2).encode(
            x=x, color=alt.Color("killed:N", title="killed",
                                 scale=alt.Scale(domain=["the app", "another process"],
                                                 range=[KILL_COLORS[True], KILL_COLORS[False]])),
            tooltip=["process:N", "pid:Q", "source:N", alt.Tooltip("t_s:Q", format=".3f")]))
    sub = []
    if mem.get("direct_reclaim_ns") is not None:
        sub.append(f"direct reclaim {mem['direct_reclaim_ns'] / 1e6:.1f} ms (shaded)")
    if mem.get("kswapd_cpu_ns") is not None:
        sub.append(f"kswapd {mem['kswapd_cpu_ns'] / 1e6:.1f} ms CPU")
    if mem.get("kills") is not None:
        sub.append(f"{len(kills)} kill(s) (rules)")
    chart = alt.layer(*layers).resolve_scale(color="independent")
    return chart.properties(title=alt.Title(title, subtitle="; ".join(sub)),
                            width=WIDTH, height=220)


def startup_rows(result: dict[str, Any]) -> pl.DataFrame:
    """(launch, type, phase, start_ms, end_ms) of each launch's phases, laid
    end to end from its start; the rest of the launch is 'other'."""
    out = []
    for i, x in enumerate(result.get("startups") or []):
        label = f"launch {i} ({x['type'] or 'unknown'})"
        at = 0.0
        for key, name in PHASE_NAMES.items():
            ms = x["breakdown"].get(key)
            if ms is None:
                continue
            out.append({"launch": label, "phase": name, "start_ms": at, "end_ms": at + ms / 1e6})
            at += ms / 1e6
        total = x["dur"] / 1e6
        if total > at:
            out.append({"launch": label, "phase": "other", "start_ms": at, "end_ms": total})
    return pl.DataFrame(out, schema={"launch": pl.String, "phase": pl.String,
                                     "start_ms": pl.Float64, "end_ms": pl.Float64})


def startups(result: dict[str, Any]) -> alt.TopLevelMixin | None:
    """Each launch of the target as a bar of its phases; None without launches."""
    rows = startup_rows(result)
    if rows.is_empty():
        return None
    order = list(PHASE_NAMES.values()) + ["other"]
    return (alt.Chart(_data(rows)).mark_bar().encode(
        x=alt.X("start_ms:Q", title="ms since the launch's intent"), x2="end_ms:Q",
        y=alt.Y("launch:N", title=None),
        color=alt.Color("phase:N", sort=order, scale=alt.Scale(domain=order)),
        tooltip=["launch:N", "phase:N", alt.Tooltip("start_ms:Q", format=".1f"),
                 alt.Tooltip("end_ms:Q", format=".1f")])
        .properties(title="The app's launches: time to the first frame, by phase",
                    width=WIDTH, height=30 + 25 * rows["launch"].n_unique()))


def report_section(runset: Runs, result: dict[str, Any], add_chart, start: int) -> str:
    """The run's "Memory" and "Start-up" report sections (HTML); ``add_chart``
    turns a chart builder into its HTML (the report's chart collector)."""
    from artscope.report.html_tables import _kv_table, _rows_table

    run = result["run"]
    mem = result.get("memory") or {}
    scalar = {k: v for k, v in mem.items()
              if k not in ("kills", "direct_reclaim_threads", "unavailable")}
    out = ['<div data-section="memory"><h3>Memory</h3>', _kv_table(scalar, start)]
    if mem.get("direct_reclaim_threads"):
        out += ["<h4>Direct reclaim by thread</h4>", _rows_table(mem["direct_reclaim_threads"], start)]
    if mem.get("kills"):
        out += ["<h4>Processes killed for memory</h4>", _rows_table(mem["kills"], start)]
    if mem.get("unavailable"):
        out += ["<h4>Not captured</h4>",
                _rows_table([{"value": k, "why": v} for k, v in mem["unavailable"].items()])]
    out.append(add_chart(f"run {run} memory", lambda: memory(runset, run)))
    out.append("</div>")
    launches = result.get("startups") or []
    if launches:
        out += ['<div data-section="startups"><h3>Start-up</h3>',
                _rows_table([{"type": x["type"], "ts": x["ts"], "dur_ms": x["dur"] / 1e6,
                              "pid": x["pid"],
                              **{PHASE_NAMES[k]: (None if v is None else v / 1e6)
                                 for k, v in x["breakdown"].items()}} for x in launches],
                            start),
                add_chart(f"run {run} start-up", lambda: startups(result)), "</div>"]
    return "\n".join(out)
