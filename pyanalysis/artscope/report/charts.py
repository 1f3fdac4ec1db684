"""altair charts of one analysed trace (a RunSet, see :class:`Runs`) or of a batch (analyze()).

Every function returns an altair chart whose data is inline (``alt.Data``
values), so it renders the same in a notebook, in ``artscope report`` and
through vl-convert, and never trips altair's 5000-row guard. Large traces stay
responsive because every chart caps its rows (``max_rows``, default
:data:`MAX_ROWS`) by merging or binning before plotting.

Times a person reads (axes, tooltips) are seconds since the run window's
start, as the health messages give them; the inline data rows still carry the
absolute trace ns (``ts``) for scripts and the Perfetto UI.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import altair as alt
import polars as pl

from artscope.metrics.options import DEFAULT_FRAME_DEADLINE_NS
from artscope.report.chart_data import (  # noqa: F401 - also the API of the rows
    MAX_ROWS, TOP_THREADS, Runs, _by_run, _clean, _result, _window, coinciding_cpus,
    downsample_slices, frame_rows, frequency_rows, gc_intervals, mmu_rows, pause_rows,
    strip_rows, timeline_rows, zoom_range)
from artscope.units import format_frequency


VERDICT_COLORS = {"pass": "#2ca02c", "warn": "#ff7f0e", "fail": "#d62728"}
OFF_MASK_COLOR = "#d62728"
GC_COLOR = "#ff7f0e"
WIDTH = 720


# -- helpers -------------------------------------------------------------------

def enable_notebook_charts() -> None:
    """Show charts in notebooks both live (Vega-Embed HTML) and as a PNG
    beside it, so a notebook saved with its outputs shows its charts where
    no JavaScript runs (a repository browser, a diff)."""
    alt.renderers.enable("html")
    html = alt.renderers.get()
    alt.renderers.enable("png")
    png = alt.renderers.get()

    def html_and_png(spec: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        bundle, meta = png(spec, **kw)
        return {**bundle, **html(spec, **kw)}, meta

    alt.renderers.register("artscope", html_and_png)
    alt.renderers.enable("artscope")


def _data(df: pl.DataFrame | Sequence[dict[str, Any]]) -> alt.Data:
    """Inline values (JSON-safe: NaN/inf -> null)."""
    rows = df.to_dicts() if isinstance(df, pl.DataFrame) else list(df)
    return alt.Data(values=[{k: _clean(v) for k, v in r.items()} for r in rows])


def placeholder(title: str, message: str) -> alt.Chart:
    """A small chart saying why there is nothing to plot (long messages wrap
    within the chart's width)."""
    import textwrap

    lines = textwrap.wrap(message, width=WIDTH // 7) or [""]
    return alt.Chart(_data([{"message": "\n".join(lines)}]), title=title).mark_text(
        align="left", baseline="top", x=5, y=8, fontSize=12, color="#666",
        lineBreak="\n").encode(text="message:N").properties(
        width=WIDTH, height=16 * len(lines) + 14)


# -- timeline ------------------------------------------------------------------


def timeline(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
             top_threads: int = TOP_THREADS, time_range: tuple[int, int] | None = None,
             width: int = WIDTH) -> alt.TopLevelMixin:
    """Target threads per CPU over the run: lanes = CPUs (allowed ones shaded
    green), one sub-row per thread, off-mask slices outlined red, GC slices as
    orange bands over all lanes. ``time_range`` (absolute trace ns) zooms the
    chart to that part of the run."""
    result = _result(runset, run)
    start, end = _window(result)
    title = f"Run {run}: target threads per CPU"
    if time_range is not None:
        time_range = (max(start, int(time_range[0])), min(end, int(time_range[1])))
        lo_s, hi_s = ((t - start) / 1e9 for t in time_range)
        title += f", +{lo_s:.3f} s to +{hi_s:.3f} s"
    rows, tol = timeline_rows(runset, run, max_rows, top_threads, time_range)
    if rows.is_empty():
        return placeholder(title, "no sched data for the target threads in this run "
                                  "(record sched/sched_switch)")
    sel = runset.analysis.selection
    allowed = sorted(set(sel.allowed_cpus or []) | set(sel.gc_allowed_cpus or []))
    cpus = sorted(set(rows["cpu"].to_list()) | set(allowed))
    view0, view1 = time_range or (start, end)
    x0_s, x1_s = (view0 - start) / 1e9, (view1 - start) / 1e9
    sub = title + (f" (gaps < {tol / 1e6:.3g} ms merged)" if tol else "")
    y = alt.Y("cpu:O", title="CPU", scale=alt.Scale(domain=cpus))
    threads = rows["thread"].unique().sort().to_list()
    lane_h = max(24, min(72, 5 * len(threads)))
    base_props = dict(width=width, height=lane_h * len(cpus))
    x_scale = alt.Scale(domain=[x0_s, x1_s], nice=False)

    layers = []
    if allowed:
        layers.append(alt.Chart(_data([{"cpu": c, "x0": x0_s, "x1": x1_s} for c in allowed]))
                      .mark_rect(color="#2ca02c", opacity=0.12)
                      .encode(x=alt.X("x0:Q", scale=x_scale), x2="x1:Q", y=y,
                              tooltip=[alt.Tooltip("cpu:O", title="allowed CPU")]))
    layers.append(alt.Chart(_data(rows.select(
        "thread", "role", "cpu", "status", "t0", "t1", "busy_ms", "slices", "ts", "end_ts")))
        .mark_bar(strokeWidth=1.5)
        .encode(
            x=alt.X("t0:Q", title="time since run start (s)", scale=x_scale),
            x2="t1:Q", y=y,
            yOffset=alt.YOffset("thread:N", scale=alt.Scale(domain=threads)),
            color=alt.Color("thread:N", title="thread", scale=alt.Scale(domain=threads),
                            legend=alt.Legend(labelLimit=150)),
            stroke=alt.condition("datum.status === 'off-mask'", alt.value(OFF_MASK_COLOR),
                                 alt.value(None)),
            tooltip=["thread:N", "role:N", "cpu:O", "status:N",
                     alt.Tooltip("t0:Q", format=".4f", title="start (s)"),
                     alt.Tooltip("t1:Q", format=".4f", title="end (s)"),
                     alt.Tooltip("busy_ms:Q", format=".3f", title="running (ms)"),
                     "slices:Q"]))
    gcs = [(max(s, view0), min(e, view1)) for s, e in gc_intervals(runset, run)
           if e > view0 and s < view1]
    if gcs:
        g = pl.DataFrame(gcs, schema=["ts", "end_ts"], orient="row").with_columns(
            kind=pl.lit("gc"))
        g, _ = downsample_slices(g, ["kind"], view1 - view0, max(1, max_rows // 4))
        g = g.with_columns(t0=(pl.col("ts") - start) / 1e9, t1=(pl.col("end_ts") - start) / 1e9,
                           gc_ms=pl.col("busy_ns") / 1e6)
        layers.append(alt.Chart(_data(g.select("t0", "t1", "gc_ms", "slices", "ts", "end_ts")))
                      .mark_rect(color=GC_COLOR, opacity=0.25)
                      .encode(x=alt.X("t0:Q", scale=x_scale), x2="t1:Q",
                              tooltip=[alt.Tooltip("t0:Q", format=".4f", title="GC start (s)"),
                                       alt.Tooltip("gc_ms:Q", format=".3f", title="GC (ms)"),
                                       alt.Tooltip("slices:Q", title="GCs")]))
    off = rows.filter(pl.col("status") == "off-mask")
    note = (f"red outline: off-mask ({off['busy_ns'].sum() / 1e6:.1f} ms)" if off.height
            else "no off-mask slices") + "; green lanes: allowed CPUs; orange: GC"
    return alt.layer(*layers).properties(
        title=alt.Title(sub, subtitle=note), **base_props)


# -- frequency -----------------------------------------------------------------


#: One colour per CPU (index = CPU number modulo its length; no grey, which
#: reads as "disabled").
CPU_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#17becf", "#bcbd22", "#393b79")


def _series_color(series: str) -> str:
    """A CPU's colour (as in the frequency chart) for "cpuN (...)", else blue."""
    m = re.match(r"cpu(\d+) \(", series)
    return CPU_COLORS[int(m.group(1)) % len(CPU_COLORS)] if m else "#4c78a8"


def frequency(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
              cpus: Iterable[int] | None = None, devices: Iterable[str] | None = None,
              all_clocks: bool = False, width: int = WIDTH) -> alt.TopLevelMixin:
    """Frequency over the run as step lines in MHz: the CPUs on one panel (one
    colour per CPU; its max-frequency limit dashed), then one panel per device
    — the memory controllers unless ``devices`` names others or
    ``all_clocks`` asks for every clock (see :func:`frequency_rows`)."""
    result = _result(runset, run)
    start, end = _window(result)
    rows = frequency_rows(runset, run, max_rows, cpus, devices, all_clocks)
    title = f"Run {run}: frequency over time"
    if rows.is_empty():
        return placeholder(title, "no frequency samples for these CPUs / devices in this run "
                                  "(record power/cpu_frequency and devfreq/clock events)")
    # every series of known unit in MHz, as the reasons beside the chart
    # write frequencies (cpufreq is kHz by definition); a value of unknown
    # unit as recorded
    khz = (pl.col("kind") == "cpu") | (pl.col("unit") == "kHz")
    rows = rows.with_columns(
        shown=pl.when(khz).then(pl.col("value") / 1e3)
        .when(pl.col("unit") == "Hz").then(pl.col("value") / 1e6)
        .otherwise(pl.col("value")),
        shown_unit=pl.when(khz | (pl.col("unit") == "Hz")).then(pl.lit("MHz"))
        .otherwise(pl.lit("(unit unknown)")))
    x = alt.X("t:Q", title="time since run start (s)",
              scale=alt.Scale(domain=[0, (end - start) / 1e9], nice=False))
    tooltip = ["series:N", alt.Tooltip("t:Q", format=".4f", title="from (s since run start)"),
               alt.Tooltip("shown:Q", format=",.6~g", title="frequency"),
               alt.Tooltip("shown_unit:N", title="unit")]
    charts = []
    cpu = rows.filter(pl.col("kind") == "cpu").with_columns(
        cpu_label=pl.lit("cpu") + pl.col("cpu").cast(pl.String))
    if cpu.height:
        order = sorted(set(cpu["cpu"].to_list()))
        labels = [f"cpu{c}" for c in order]
        same = coinciding_cpus(rows)
        note = "; ".join(f"CPUs {', '.join(map(str, g))} share one clock: their lines coincide"
                         for g in same)
        color = alt.Color("cpu_label:N", title="CPU", scale=alt.Scale(
            domain=labels, range=[CPU_COLORS[c % len(CPU_COLORS)] for c in order]))
        enc: dict[str, Any] = dict(x=x, y=alt.Y("shown:Q", title="MHz",
                                                 scale=alt.Scale(zero=False)),
                                   color=color, detail="series:N", tooltip=tooltip)
        if cpu["line"].n_unique() > 1:  # a dash legend only when there is a limit to tell
            enc["strokeDash"] = alt.StrokeDash("line:N", title="line", scale=alt.Scale(
                domain=["frequency", "max limit"], range=[[1, 0], [5, 3]]))
        # One layer per CPU, lower CPUs drawn wider and first: coinciding
        # lines stay visible as a coloured edge around the next one.
        layers = [alt.Chart(_data(cpu.filter(pl.col("cpu") == c).drop("value")))
                  .mark_line(interpolate="step-after",
                             strokeWidth=2.0 + (1.8 * (len(order) - 1 - k) if same else 0))
                  .encode(**enc) for k, c in enumerate(order)]
        charts.append(alt.layer(*layers).properties(
            title=alt.Title(f"{title}: CPUs", subtitle=note or []), width=width, height=160))
    dev = rows.filter(pl.col("kind") == "device")
    if dev.height:
        memory = {m["device"] for m in result["memfreq"] if m["is_memory"]}
        # memory controllers first, then by name (as in the tables)
        names = sorted(dev["series"].unique().to_list(),
                       key=lambda n: (n.rsplit(" (", 1)[0] not in memory, n))
        what = ("memory controller" if {n.rsplit(" (", 1)[0] for n in names} <= memory
                else "device")
        unit = dev["shown_unit"].unique().to_list()
        chart = (alt.Chart(_data(dev.drop("value")))
                 .mark_line(interpolate="step-after", point=True, color="#4c78a8")
                 .encode(x=x, y=alt.Y("shown:Q", title=unit[0] if len(unit) == 1 else "value",
                                      scale=alt.Scale(zero=False)), tooltip=tooltip)
                 .properties(width=width, height=90))
        if len(names) == 1:
            charts.append(chart.properties(title=f"{title}: {what} {names[0]}"))
        else:  # one panel per device, its name above it (no width taken)
            charts.append(chart.facet(
                row=alt.Row("series:N", title=None, sort=names, header=alt.Header(
                    labelAngle=0, labelOrient="top", labelAnchor="start", labelLimit=width)),
                title=f"{title}: {what}s").resolve_scale(y="independent"))
    return charts[0] if len(charts) == 1 else alt.vconcat(*charts)


def residency(runset: "Runs", run: int = 0, all_clocks: bool = False) -> alt.TopLevelMixin:
    """Share of the run window spent at each frequency, one panel per series:
    the CPUs and the memory controllers (every clock with ``all_clocks``)."""
    result = _result(runset, run)
    start, end = _window(result)
    title = f"Run {run}: frequency residency"
    res = _by_run(runset.residency(), run)
    if not all_clocks:
        other = [m["device"] for m in result["memfreq"] if not m["is_memory"]]
        res = res.filter(~(pl.col("source").is_in(["devfreq", "clock", "sys_stats"])
                           & pl.col("series").is_in(other)))
    if res.is_empty():
        return placeholder(title, "no frequency residency in this run")
    units = {f"cpu{c['cpu']}": c.get("unit") for c in result["cpufreq"]}
    units |= {m["device"]: m.get("unit") for m in result["memfreq"]}
    res = res.with_columns(
        share=pl.col("ns") / (end - start), ms=pl.col("ns") / 1e6,
        label=pl.struct("series", "value").map_elements(
            lambda r: format_frequency(r["value"], units.get(r["series"])),
            return_dtype=pl.String),
        series=pl.col("series") + " (" + pl.col("source") + ")")
    names = res["series"].unique(maintain_order=True).to_list()
    return (alt.Chart(_data(res))
            .mark_bar()
            .encode(x=alt.X("share:Q", title="share of the run window",
                            axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
                    y=alt.Y("label:N", title="value",
                            sort=alt.EncodingSortField("value", order="descending")),
                    color=alt.Color("series:N", legend=None, scale=alt.Scale(
                        domain=names, range=[_series_color(n) for n in names])),
                    tooltip=["series:N", alt.Tooltip("value:Q", title="value"),
                             alt.Tooltip("ms:Q", format=".1f", title="ms"),
                             alt.Tooltip("share:Q", format=".2%")])
            .properties(width=WIDTH - 160)
            .facet(row=alt.Row("series:N", title=None,
                               header=alt.Header(labelAngle=0, labelAlign="left")),
                   title=title)
            .resolve_scale(y="independent"))


# -- frames --------------------------------------------------------------------


def frame_durations(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
                    deadline_ns: int = DEFAULT_FRAME_DEADLINE_NS) -> alt.TopLevelMixin:
    """Frame duration percentile curve (x: percentile of frames, y: duration),
    janky frames marked, p50/p90/p95/p99 as rules."""
    result = _result(runset, run)
    jank = result["jank"]
    title = f"Run {run}: frame durations ({jank['source']})"
    f = frame_rows(runset, run, max_rows, deadline_ns)
    if f.is_empty():
        return placeholder(title, "no finished frames in this run (record the frame "
                                  "timeline or atrace gfx/view)")
    enc_x = alt.X("pct:Q", title="percentile of frames", scale=alt.Scale(domain=[0, 100]))
    enc_y = alt.Y("dur_ms:Q", title="frame duration (ms)")
    colors = alt.Scale(domain=["on time", "app jank", "other jank"],
                       range=["#4c78a8", OFF_MASK_COLOR, GC_COLOR])
    tooltip = [alt.Tooltip("dur_ms:Q", format=".3f", title="ms"),
               alt.Tooltip("pct:Q", format=".1f", title="percentile"),
               "jank:N", "jank_type:N",
               alt.Tooltip("t:Q", format=".4f", title="at (s since run start)")]
    line = alt.Chart(_data(f)).mark_line(interpolate="step-before", color="#999").encode(
        x=enc_x, y=enc_y)
    pts = alt.Chart(_data(f)).mark_circle(size=40).encode(
        x=enc_x, y=enc_y, color=alt.Color("jank:N", scale=colors, title="frame"),
        tooltip=tooltip)
    layers = [line, pts]
    pcts = [{"p": k, "ms": v} for k, v in jank["frame_dur_ms"].items() if v is not None]
    if pcts:
        layers.append(alt.Chart(_data(pcts)).mark_rule(strokeDash=[4, 3], color="#555").encode(
            y="ms:Q", tooltip=["p:N", alt.Tooltip("ms:Q", format=".3f")]))
    sub = (f"{jank['frames']} frames, {jank['janky_frames']} janky "
           f"({(jank['janky_pct'] or 0):.1f}%); dashed: p50/p90/p95/p99")
    return alt.layer(*layers).properties(title=alt.Title(title, subtitle=sub),
                                         width=WIDTH, height=220)


# -- GC --------------------------------------------------------------------------

def gc_cpu(runset: "Runs", max_rows: int = MAX_ROWS) -> alt.TopLevelMixin:
    """CPU of every GC (by start time, colored by cause) and GC share per run."""
    ev = runset.gc_events()
    starts = {r["run"]: r["window"]["start_ts"] for r in runset.results}
    per_run = runset.gc()
    title = "GC CPU"
    if per_run.is_empty():
        return placeholder(title, "no runs")
    share = per_run.with_columns(
        share=pl.col("gc_cpu_share"), gc_ms=pl.col("gc_cpu_ns") / 1e6,
        app_ms=pl.col("app_cpu_ns") / 1e6)
    right = (alt.Chart(_data(share), title="GC share of app CPU per run")
             .mark_bar(color=GC_COLOR)
             .encode(x=alt.X("run:O"), y=alt.Y("share:Q", title="gc_cpu_share",
                                                axis=alt.Axis(format="%")),
                     tooltip=["run:O", alt.Tooltip("share:Q", format=".3%"),
                              alt.Tooltip("gc_ms:Q", format=".1f", title="GC CPU (ms)"),
                              alt.Tooltip("app_ms:Q", format=".1f", title="app CPU (ms)"),
                              "gc_count:Q"])
             .properties(width=max(80, 40 * per_run.height), height=220))
    if ev.is_empty():
        left = placeholder("CPU per GC", "no GC slices in the run windows")
        return left if per_run.height == 1 else alt.hconcat(left, right)
    ev = ev.with_columns(
        t=(pl.col("ts") - pl.col("run").replace_strict(starts, default=0)) / 1e9,
        cpu_ms=pl.col("cpu_ns") / 1e6, dur_ms=pl.col("dur") / 1e6,
        runnable_ms=pl.col("runnable_ns") / 1e6)
    if ev.height > max_rows:
        ev = ev.sort("cpu_ns", descending=True).head(max_rows)
    left = (alt.Chart(_data(ev.select("run", "t", "cpu_ms", "dur_ms", "runnable_ms",
                                      "cause", "kind", "name", "thread_name", "ts")),
                      title="CPU per GC")
            .mark_point(size=70, opacity=0.85, filled=True)
            .encode(x=alt.X("t:Q", title="GC start, since its run's start (s)"),
                    y=alt.Y("cpu_ms:Q", title="GC CPU (ms)"),
                    color=alt.Color("cause:N", title="GC cause"),
                    shape=alt.Shape("run:N"),
                    tooltip=["run:O", "name:N", "thread_name:N", "cause:N", "kind:N",
                             alt.Tooltip("t:Q", format=".4f", title="start (s since run start)"),
                             alt.Tooltip("cpu_ms:Q", format=".3f"),
                             alt.Tooltip("dur_ms:Q", format=".3f"),
                             alt.Tooltip("runnable_ms:Q", format=".3f")])
            .properties(width=WIDTH - 200, height=220))
    # One run: its share is a number in the tables, not worth a lone bar.
    return left if per_run.height == 1 else alt.hconcat(left, right)


def mmu(runset: "Runs", run: int = 0) -> alt.TopLevelMixin:
    """Minimum mutator utilisation over GC pauses and foreground GCs at 1 ms ..
    1 s windows."""
    title = f"Run {run}: minimum mutator utilisation over GC pauses and foreground GCs"
    rows = mmu_rows(runset, run)
    g = _result(runset, run)["gc"]
    if rows.is_empty():
        why = ("pause times unknown (no GC phase slices in the trace)"
               if g.get("pause_count") is None else "run window shorter than 1 ms")
        return placeholder(title, why)
    sub = (f"{g['pause_count']} GC pause(s) in the run, longest "
           f"{(g['pause_max_ns'] or 0) / 1e6:.3f} ms: MMU(w) is the smallest share of "
           "any w-long window in which mutators could run")
    return (alt.Chart(_data(rows))
            .mark_line(point=True)
            .encode(x=alt.X("window_ms:Q", title="window w (ms)", scale=alt.Scale(type="log")),
                    y=alt.Y("mmu:Q", title="MMU (share of the window free of pauses)",
                            scale=alt.Scale(domain=[0, 1])),
                    color=alt.Color("curve:N", title="unavailable during"),
                    tooltip=["curve:N", alt.Tooltip("window_ms:Q", format=".0f"),
                             alt.Tooltip("mmu:Q", format=".4f")])
            .properties(title=alt.Title(title, subtitle=sub), width=WIDTH, height=200))


PAUSE_COLOR = "#d62728"


def gc_pauses(runset: "Runs", run: int = 0) -> alt.TopLevelMixin:
    """GC slices, the pauses inside them and what the app waited for, over W."""
    title = f"Run {run}: GC pauses"
    g = _result(runset, run)["gc"]
    rows = pause_rows(runset, run)
    if rows.is_empty():
        return placeholder(title, "no GC, pause or GC wait in the run window")
    lanes = ["GC", "foreground GC", "GC pause", "other suspend-all", "main thread waits",
             "other mutator waits"]
    colors = alt.Scale(domain=lanes, range=[GC_COLOR, "#bcbd22", PAUSE_COLOR, "#9467bd",
                                            "#8c564b", "#7f7f7f"])
    sub = ("pauses unknown (no GC phase slices)" if g.get("pause_count") is None else
           f"{g['pause_count']} pause(s), {(g['pause_total_ns'] or 0) / 1e6:.3f} ms in all, "
           f"max {(g['pause_max_ns'] or 0) / 1e6:.3f} ms; "
           f"{g.get('foreground_count') or 0} foreground GC(s) "
           f"{(g.get('foreground_ns') or 0) / 1e6:.3f} ms; main thread waited "
           f"{(g.get('main_thread_wait_ns') or 0) / 1e6:.3f} ms")
    return (alt.Chart(_data(rows))
            # the stroke keeps sub-pixel pauses visible
            .mark_bar(strokeWidth=1.5)
            .encode(x=alt.X("t0:Q", title="time since run start (s)"), x2="t1:Q",
                    y=alt.Y("lane:N", sort=lanes, title=None),
                    color=alt.Color("lane:N", scale=colors, legend=None),
                    stroke=alt.Stroke("lane:N", scale=colors, legend=None),
                    tooltip=["lane:N", "what:N", alt.Tooltip("t0:Q", format=".4f"),
                             alt.Tooltip("dur_ms:Q", format=".3f", title="ms")])
            .properties(title=alt.Title(title, subtitle=sub), width=WIDTH,
                        height=30 * rows["lane"].n_unique() + 20))


# -- across runs -------------------------------------------------------------------


def runs_strip(df: pl.DataFrame, metrics: Sequence[str] | None = None) -> alt.TopLevelMixin:
    """One strip per metric, one dot per run colored by verdict, from the flat
    DataFrame of artscope.analyze: outliers are the noisy runs."""
    title = "Runs by metric (colored by verdict)"
    long = strip_rows(df, metrics)
    if long.is_empty():
        return placeholder(title, "no analysed runs with these metrics")
    order = list(dict.fromkeys(long["metric"].to_list()))
    return (alt.Chart(_data(long))
            .mark_circle(size=70, opacity=0.8)
            .encode(x=alt.X("value:Q", title=None, scale=alt.Scale(zero=False)),
                    y=alt.Y("jitter:Q", title=None, axis=None, scale=alt.Scale(domain=[-1, 1])),
                    color=alt.Color("verdict:N", scale=alt.Scale(
                        domain=list(VERDICT_COLORS), range=list(VERDICT_COLORS.values()))),
                    tooltip=["label:N", "trace:N", "run:O", "verdict:N", "metric:N",
                             alt.Tooltip("value:Q", format=".6g")])
            .transform_calculate(jitter="(random() - 0.5) * 1.2")
            .properties(width=WIDTH - 120, height=40)
            .facet(row=alt.Row("metric:N", title=None, sort=order,
                               header=alt.Header(labelAngle=0, labelAlign="left")),
                   title=title)
            .resolve_scale(x="independent"))


# -- health reasons ------------------------------------------------------------------

#: Plot width of a chart shown beside a health reason's text.
REASON_WIDTH = 540


def interferers(runset: "Runs", run: int = 0, width: int = WIDTH) -> alt.TopLevelMixin:
    """CPU time of the other processes on the allowed CPUs (the run's top
    interferers), largest first."""
    result = _result(runset, run)
    title = f"Run {run}: other processes on the allowed CPUs"
    top = result["pinning"].get("top_interferers") or []
    if not top:
        return placeholder(title, "no other process ran on the allowed CPUs")
    rows = [{"who": f"{t['name']} ({t['pid'] if t.get('pid') is not None else t.get('tid')})",
             "cpu_ms": t["cpu_ns"] / 1e6} for t in top]
    return (alt.Chart(_data(rows), title=title)
            .mark_bar(color="#9467bd")
            .encode(x=alt.X("cpu_ms:Q", title="CPU time on the allowed CPUs (ms)"),
                    y=alt.Y("who:N", title=None, sort="-x", axis=alt.Axis(labelLimit=200)),
                    tooltip=["who:N", alt.Tooltip("cpu_ms:Q", format=".2f", title="ms")])
            .properties(width=width, height=max(60, 18 * len(rows))))


def reason_chart(runset: "Runs", run: int, reason: dict[str, Any], all_clocks: bool = False,
                 width: int = REASON_WIDTH) -> alt.TopLevelMixin | None:
    """The chart that shows one health reason (see artscope.metrics.health),
    or None when a chart would add nothing (missing data, data loss):

    - off_mask_cpu: the thread/CPU timeline zoomed to the violations' range;
    - cpufreq_unstable / cpufreq_throttled: that CPU's frequency curve;
    - memfreq_unstable: that device's frequency curve;
    - interference: the other processes' CPU time on the allowed CPUs.
    """
    result = _result(runset, run)
    ev = reason.get("evidence") or {}
    rid = reason.get("id")
    ranges = ev.get("time_ranges") or (
        [[reason["start_ts"], reason["end_ts"]]] if reason.get("start_ts") is not None
        and reason.get("end_ts") is not None else [])
    if rid == "off_mask_cpu" and ranges:
        lo = min(r[0] for r in ranges)
        hi = max(r[1] for r in ranges)
        return timeline(runset, run, time_range=zoom_range(result, (lo, hi)), width=width)
    if rid in ("cpufreq_unstable", "cpufreq_throttled") and ev.get("cpus"):
        return frequency(runset, run, cpus=ev["cpus"], devices=[], width=width)
    if rid == "memfreq_unstable" and ev.get("devices"):
        return frequency(runset, run, cpus=[], devices=ev["devices"], all_clocks=all_clocks,
                         width=width)
    if rid == "interference":
        return interferers(runset, run, width=width)
    return None
