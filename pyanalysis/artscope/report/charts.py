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

import math
import re
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

import altair as alt
import polars as pl

from artscope.errors import UsageError
from artscope.metrics.options import DEFAULT_FRAME_DEADLINE_NS

if TYPE_CHECKING:
    from artscope.metrics.analysis import Analysis


class Runs(Protocol):
    """What the per-trace charts read: one analysed trace (an artscope.RunSet
    is one). Charts name this protocol rather than importing artscope.runset,
    so the dependency runs one way: runset (plot_* methods) -> charts."""

    results: list[dict[str, Any]]
    analysis: "Analysis"

    def gc(self) -> pl.DataFrame: ...

    def gc_events(self) -> pl.DataFrame: ...

    def residency(self) -> pl.DataFrame: ...

    def frames(self) -> pl.DataFrame: ...


#: Most data rows any one chart embeds (per layer that can grow with the trace).
MAX_ROWS = 20_000
#: Threads drawn individually in the timeline; the rest become "(other)".
TOP_THREADS = 12
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


def _clean(v: Any) -> Any:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def _data(df: pl.DataFrame | Sequence[dict[str, Any]]) -> alt.Data:
    """Inline values (JSON-safe: NaN/inf -> null)."""
    rows = df.to_dicts() if isinstance(df, pl.DataFrame) else list(df)
    return alt.Data(values=[{k: _clean(v) for k, v in r.items()} for r in rows])


def _result(runset: "Runs", run: int) -> dict[str, Any]:
    for r in runset.results:
        if r["run"] == run:
            return r
    raise UsageError(f"no run {run} in {runset.analysis.trace} "
                     f"(runs: {', '.join(str(r['run']) for r in runset.results)})")


def _window(result: dict[str, Any]) -> tuple[int, int]:
    return result["window"]["start_ts"], result["window"]["end_ts"]


def placeholder(title: str, message: str) -> alt.Chart:
    """A small chart saying why there is nothing to plot."""
    return alt.Chart(_data([{"message": message}]), title=title).mark_text(
        align="left", x=5, y=15, fontSize=12, color="#666").encode(
        text="message:N").properties(width=WIDTH, height=30)


def _by_run(df: pl.DataFrame, run: int) -> pl.DataFrame:
    if df.is_empty() or "run" not in df.columns:
        return df.clear() if "run" in df.columns else df
    return df.filter(pl.col("run") == run)


def _metric_rows(runset: "Runs", name: str) -> pl.DataFrame:
    """Rows of sql-metrics/<name>.sql for the run set's selection."""
    return runset.analysis.runner.run(name)


# -- timeline ------------------------------------------------------------------

def merge_slices(df: pl.DataFrame, keys: Sequence[str], gap_ns: float) -> pl.DataFrame:
    """Merge slices (ts, end_ts) of the same ``keys`` closer than ``gap_ns``.

    Returns keys + ts, end_ts, busy_ns (sum of merged durations) and slices
    (how many were merged).
    """
    if df.is_empty():
        return df.select(*keys, "ts", "end_ts").with_columns(
            busy_ns=pl.lit(0, pl.Int64), slices=pl.lit(0, pl.UInt32))
    has_busy = "busy_ns" in df.columns
    d = df.sort([*keys, "ts"]).with_columns(
        prev_end=pl.col("end_ts").cum_max().shift(1).over(list(keys)))
    d = d.with_columns(
        grp=(pl.col("prev_end").is_null() | ((pl.col("ts") - pl.col("prev_end")) > gap_ns))
        .cast(pl.UInt32).cum_sum())
    busy = pl.col("busy_ns").sum() if has_busy else (pl.col("end_ts") - pl.col("ts")).sum()
    n = pl.col("slices").sum() if "slices" in df.columns else pl.len()
    return (d.group_by([*keys, "grp"], maintain_order=True)
            .agg(pl.col("ts").min(), pl.col("end_ts").max(), busy.alias("busy_ns"),
                 n.cast(pl.UInt32).alias("slices"))
            .drop("grp"))


def downsample_slices(df: pl.DataFrame, keys: Sequence[str], span_ns: int,
                      max_rows: int = MAX_ROWS) -> tuple[pl.DataFrame, float]:
    """At most ``max_rows`` rows: merge gaps of growing size until they fit.

    Gaps of 0 (touching slices) are always merged. Then the gap tolerance
    starts at span/4000 (below a pixel at chart widths) and doubles. Returns
    the rows and the tolerance used (ns). If even one row per key is too many,
    the rows with the most busy time are kept.
    """
    out = merge_slices(df, keys, 0)
    tol = 0.0
    step = max(span_ns / 4000.0, 1.0)
    while out.height > max_rows and tol < span_ns:
        tol = step if tol == 0 else tol * 2
        out = merge_slices(out, keys, tol)
    if out.height > max_rows:
        out = out.sort("busy_ns", descending=True).head(max_rows).sort([*keys, "ts"])
    return out, tol


def timeline_rows(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
                  top_threads: int = TOP_THREADS,
                  time_range: tuple[int, int] | None = None) -> tuple[pl.DataFrame, float]:
    """The timeline's slice rows for ``run`` (thread_timeline.sql, downsampled).

    ``time_range`` (absolute trace ns) keeps only the slices overlapping it,
    clipped to it; t0/t1 stay seconds since the run start.
    """
    result = _result(runset, run)
    start, end = _window(result)
    raw = _by_run(_metric_rows(runset, "thread_timeline"), run)
    span_start, span_end = start, end
    if time_range is not None and not raw.is_empty():
        span_start, span_end = time_range
        raw = raw.filter((pl.col("end_ts") > span_start) & (pl.col("ts") < span_end)).with_columns(
            ts=pl.max_horizontal("ts", pl.lit(span_start)),
            end_ts=pl.min_horizontal("end_ts", pl.lit(span_end)))
    if raw.is_empty():
        return raw, 0.0
    # Top threads by CPU keep their own row; the rest share "(other)".
    cpu = raw.group_by("utid").agg(pl.col("dur").sum()).sort(["dur", "utid"],
                                                              descending=[True, False])
    keep = set(cpu["utid"].head(top_threads).to_list())
    raw = raw.with_columns(
        thread=pl.when(pl.col("utid").is_in(list(keep)))
        .then(pl.col("thread_name").fill_null("?") + " (" + pl.col("tid").cast(pl.String) + ")")
        .otherwise(pl.lit("(other threads)")),
        allowed=pl.col("allowed").fill_null(-1))
    rows, tol = downsample_slices(
        raw.select("thread", "role", "cpu", "allowed", "ts", "end_ts"),
        ["thread", "role", "cpu", "allowed"], span_end - span_start, max_rows)
    rows = rows.with_columns(
        t0=(pl.col("ts") - start) / 1e9, t1=(pl.col("end_ts") - start) / 1e9,
        busy_ms=pl.col("busy_ns") / 1e6,
        status=pl.when(pl.col("allowed") == 0).then(pl.lit("off-mask"))
        .when(pl.col("allowed") == 1).then(pl.lit("allowed")).otherwise(pl.lit("no mask")))
    return rows, tol


def zoom_range(result: dict[str, Any], time_range: Sequence[int],
               pad: float = 0.03) -> tuple[int, int]:
    """``time_range`` (absolute ns) widened by ``pad`` of its length on each
    side (at least 1 ms) and clipped to the run window: the view a chart
    zoomed on a health reason's evidence shows."""
    start, end = _window(result)
    lo, hi = int(time_range[0]), int(time_range[1])
    margin = max(int((hi - lo) * pad), 1_000_000)
    return max(start, lo - margin), min(end, hi + margin)


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


def gc_intervals(runset: "Runs", run: int = 0) -> list[tuple[int, int]]:
    """(start, end) of every GC of the target threads in the run, clipped to W."""
    result = _result(runset, run)
    start, end = _window(result)
    ev = _by_run(runset.gc_events(), run)
    out = []
    for ts, dur in ev.select("ts", "dur").iter_rows():
        s, e = max(ts, start), min(ts + dur, end)
        if e > s:
            out.append((s, e))
    return out


# -- frequency -----------------------------------------------------------------

def _series_label(source: str, cpu: Any, device: Any) -> str:
    if source == "cpufreq":
        return f"cpu{cpu}"
    if source == "cpu_max_limit":
        return f"cpu{cpu} max limit"
    return f"{device} ({source})"


def frequency_rows(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
                   cpus: Iterable[int] | None = None, devices: Iterable[str] | None = None,
                   all_clocks: bool = False) -> pl.DataFrame:
    """Step points (series, kind, cpu, line, unit, t, value, ts) of the run's
    frequency series.

    CPUs: ``cpus``, by default those the run's cpufreq results cover (the
    allowed CPUs, else all), each with its max-frequency limit (line "max
    limit"). Devices: ``devices`` by name, by default the memory controllers
    (memfreq ``is_memory``) — with ``all_clocks`` every other clock the run
    set holds too (opened with ``all_clocks=True``). The value at W's start is the last sample before it;
    consecutive repeats are dropped; a closing point at W's end holds the last
    value. Over ``max_rows``, each series is binned in time keeping each bin's
    min and max.
    """
    result = _result(runset, run)
    start, end = _window(result)
    freq = _by_run(runset.analysis.tables["frequency"], run)
    schema = {"series": pl.String, "kind": pl.String, "cpu": pl.Int64, "line": pl.String,
              "unit": pl.String, "t": pl.Float64, "value": pl.Float64, "ts": pl.Int64}
    if freq.is_empty():
        return pl.DataFrame(schema=schema)
    cpu_set = {c["cpu"] for c in result["cpufreq"]} if cpus is None else set(cpus)
    units = {("cpufreq", c["cpu"]): c.get("unit") for c in result["cpufreq"]}
    wanted = None if devices is None else set(devices)
    dev_units = {(m["source"], m["device"]): m.get("unit") for m in result["memfreq"]
                 if (m["device"] in wanted if wanted is not None
                     else all_clocks or m["is_memory"])}
    series = []
    for track_id, source, cpu, device in freq.select(
            "track_id", "source", "cpu", "device").unique().sort("track_id", "source").iter_rows():
        if source in ("cpufreq", "cpu_max_limit") and cpu in cpu_set:
            unit = units.get(("cpufreq", cpu)) or "kHz"
            kind = "cpu"
        elif (source, device) in dev_units:
            unit = dev_units[(source, device)]
            kind = "device"
            cpu = None
        else:
            continue
        line = "max limit" if source == "cpu_max_limit" else "frequency"
        series.append((track_id, source, _series_label(source, cpu, device), kind, cpu, line,
                       unit))
    if not series:
        return pl.DataFrame(schema=schema)
    # frequency.sql: the carried-in sample and every sample in W
    samples = freq.filter(pl.col("ts").is_not_null())
    meta = pl.DataFrame(series, orient="row", schema={
        "track_id": pl.Int64, "source": pl.String, "series": pl.String, "kind": pl.String,
        "cpu": pl.Int64, "line": pl.String, "unit": pl.String})
    out = []
    per_series = max(4, max_rows // max(1, len(series)))
    for (track_id, source), s in samples.group_by(["track_id", "source"], maintain_order=True):
        before = s.filter(pl.col("ts") < start).tail(1).with_columns(ts=pl.lit(start))
        inside = s.filter((pl.col("ts") >= start) & (pl.col("ts") < end))
        pts = pl.concat([before, inside]).select("ts", pl.col("value").cast(pl.Float64))
        if pts.is_empty():
            continue
        pts = pts.filter(pl.col("value") != pl.col("value").shift(1).fill_null(float("nan")))
        pts = pl.concat([pts, pts.tail(1).with_columns(ts=pl.lit(end))])
        if pts.height > per_series:
            nbins = max(1, per_series // 2)
            width = (end - start) / nbins
            pts = (pts.with_columns(bin=((pl.col("ts") - start) / width).floor().cast(pl.Int64))
                   .group_by("bin").agg(pl.col("value").min().alias("lo"),
                                        pl.col("value").max().alias("hi"))
                   .sort("bin"))
            pts = pl.concat([
                pts.select(ts=(start + pl.col("bin") * width).cast(pl.Int64), value=pl.col("lo")),
                pts.select(ts=(start + (pl.col("bin") + 0.5) * width).cast(pl.Int64),
                           value=pl.col("hi")),
            ]).sort("ts")
        out.append(pts.with_columns(track_id=pl.lit(track_id), source=pl.lit(source)))
    if not out:
        return pl.DataFrame(schema=schema)
    return (pl.concat(out).join(meta, on=["track_id", "source"])
            .with_columns(t=(pl.col("ts") - start) / 1e9)
            .select(*schema))


#: One colour per CPU (index = CPU number modulo its length; no grey, which
#: reads as "disabled").
CPU_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#17becf", "#bcbd22", "#393b79")
#: Steps of two CPUs closer than this (ns) count as the same step.
COINCIDE_NS = 1_000_000


def _series_color(series: str) -> str:
    """A CPU's colour (as in the frequency chart) for "cpuN (...)", else blue."""
    m = re.match(r"cpu(\d+) \(", series)
    return CPU_COLORS[int(m.group(1)) % len(CPU_COLORS)] if m else "#4c78a8"


def coinciding_cpus(rows: pl.DataFrame, tol_ns: int = COINCIDE_NS) -> list[list[int]]:
    """Groups (2+) of CPUs of ``frequency_rows`` whose frequency steps are the
    same values at times within ``tol_ns`` — CPUs of a cluster share a clock,
    so their lines lie on top of each other."""
    f = rows.filter((pl.col("kind") == "cpu") & (pl.col("line") == "frequency"))
    if f.is_empty():
        return []
    sig = (f.sort("cpu", "ts").group_by("cpu", maintain_order=True)
           .agg(pl.col("ts"), pl.col("value")))
    groups: list[tuple[list[int], list[float], list[int]]] = []
    for cpu, ts, value in sig.iter_rows():
        for members, g_value, g_ts in groups:
            if g_value == value and all(abs(a - b) <= tol_ns for a, b in zip(g_ts, ts)):
                members.append(cpu)
                break
        else:
            groups.append(([cpu], value, ts))
    return sorted(members for members, _, _ in groups if len(members) > 1)


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
    rows = rows.with_columns(  # cpufreq is kHz by definition; MHz reads better
        shown=pl.when(pl.col("kind") == "cpu").then(pl.col("value") / 1e3)
        .otherwise(pl.col("value")),
        shown_unit=pl.when(pl.col("kind") == "cpu").then(pl.lit("MHz"))
        .otherwise(pl.col("unit").fill_null("(unit unknown)")))
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
        # Device values as recorded, in the unit the tables give (clock
        # events are nominally Hz, but some kernels report kHz).
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
    res = res.with_columns(
        share=pl.col("ns") / (end - start), ms=pl.col("ns") / 1e6,
        label=pl.col("value").map_elements(
            lambda v: str(int(v)) if float(v).is_integer() else f"{v:g}",
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

def frame_rows(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
               deadline_ns: int = DEFAULT_FRAME_DEADLINE_NS) -> pl.DataFrame:
    """Finished frames of the run sorted by duration with their percentile
    (rank / n · 100) and jank class; over ``max_rows`` every janky frame is
    kept plus evenly spaced ranks of the others."""
    result = _result(runset, run)
    start, _ = _window(result)
    f = _by_run(runset.frames(), run)
    if f.is_empty():
        return f
    f = f.filter((pl.col("unfinished") == 0) & pl.col("dur").is_not_null()).sort("dur")
    n = f.height
    if n == 0:
        return f
    if f["source"][0] == "frame_timeline":
        jank = (pl.when(pl.col("is_app_jank") == 1).then(pl.lit("app jank"))
                .when(pl.col("is_missed") == 1).then(pl.lit("other jank"))
                .otherwise(pl.lit("on time")))
    else:
        jank = pl.when(pl.col("dur") > deadline_ns).then(pl.lit("app jank")).otherwise(
            pl.lit("on time"))
    f = f.with_row_index("rank", offset=1).with_columns(
        pct=pl.col("rank") * 100.0 / n, dur_ms=pl.col("dur") / 1e6, jank=jank,
        t=(pl.col("ts") - start) / 1e9)
    if n > max_rows:
        janky = f.filter(pl.col("jank") != "on time")
        rest = f.filter(pl.col("jank") == "on time")
        k = max(2, max_rows - janky.height)
        step = max(1, math.ceil(rest.height / k))
        rest = rest.gather_every(step)
        f = pl.concat([janky, rest]).sort("rank").head(max_rows)
    return f.select("rank", "pct", "dur_ms", "jank", "jank_type", "t", "ts", "frame_id")


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


def mmu_rows(runset: "Runs", run: int = 0) -> pl.DataFrame:
    """(curve, window_ns, window_ms, mmu) of the run's ``gc.mmu`` (the
    mutator is unavailable during GC pauses) and ``gc.main_thread_mmu`` (GC
    pauses plus the main thread's GC waits); empty when pauses are unknown."""
    g = _result(runset, run)["gc"]
    rows = [{"curve": label, "window_ns": p["window_ns"], "mmu": p["mmu"]}
            for key, label in (("mmu", "app (GC pauses)"),
                               ("main_thread_mmu", "main thread (pauses + GC waits)"))
            for p in g.get(key) or []]
    schema = {"curve": pl.String, "window_ns": pl.Int64, "mmu": pl.Float64}
    return pl.DataFrame(rows, schema=schema).with_columns(
        window_ms=pl.col("window_ns") / 1e6)


def mmu(runset: "Runs", run: int = 0) -> alt.TopLevelMixin:
    """Minimum mutator utilisation over GC pauses at 1 ms .. 1 s windows."""
    title = f"Run {run}: minimum mutator utilisation over GC pauses"
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


def pause_rows(runset: "Runs", run: int = 0) -> pl.DataFrame:
    """Bars of the pause timeline: the run's GCs, GC pauses, other suspend-alls
    and mutator GC waits, clipped to W (lane, start/end in s since W's start)."""
    result = _result(runset, run)
    start, end = _window(result)
    rows = []

    def add(lane: str, s: int, e: int, what: str) -> None:
        s, e = max(s, start), min(e, end)
        if e > s:
            rows.append({"lane": lane, "t0": (s - start) / 1e9, "t1": (e - start) / 1e9,
                         "dur_ms": (e - s) / 1e6, "what": what})

    for e in result["gc"].get("events") or []:
        add("GC", e["ts"], e["ts"] + e["dur"], e["name"])
    tables = runset.analysis.tables
    for r in _by_run(tables.get("gc_pause", pl.DataFrame()), run).iter_rows(named=True):
        lane = "GC pause" if r["gc_id"] is not None else "other suspend-all"
        add(lane, r["ts"], r["ts"] + r["dur"], f"{r['source']} on {r['thread_name']}")
    for r in _by_run(tables.get("gc_wait", pl.DataFrame()), run).iter_rows(named=True):
        lane = "main thread waits" if r["is_main_thread"] else "other mutator waits"
        add(lane, r["ts"], r["ts"] + r["dur"], f"GC: Wait For Completion on {r['thread_name']}")
    return pl.DataFrame(rows, schema={"lane": pl.String, "t0": pl.Float64, "t1": pl.Float64,
                                      "dur_ms": pl.Float64, "what": pl.String})


def gc_pauses(runset: "Runs", run: int = 0) -> alt.TopLevelMixin:
    """GC slices, the pauses inside them and what the app waited for, over W."""
    title = f"Run {run}: GC pauses"
    g = _result(runset, run)["gc"]
    rows = pause_rows(runset, run)
    if rows.is_empty():
        return placeholder(title, "no GC, pause or GC wait in the run window")
    lanes = ["GC", "GC pause", "other suspend-all", "main thread waits", "other mutator waits"]
    colors = alt.Scale(domain=lanes, range=[GC_COLOR, PAUSE_COLOR, "#9467bd", "#8c564b",
                                            "#7f7f7f"])
    sub = ("pauses unknown (no GC phase slices)" if g.get("pause_count") is None else
           f"{g['pause_count']} pause(s), {(g['pause_total_ns'] or 0) / 1e6:.3f} ms in all, "
           f"max {(g['pause_max_ns'] or 0) / 1e6:.3f} ms; main thread waited "
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

#: Flat analyze() columns the strip plot shows by default (those present).
STRIP_METRICS = (
    "gc_app_cpu_ns", "gc_mutator_cpu_ns", "gc_gc_cpu_share", "gc_count",
    "pinning_off_mask_share", "pinning_migrations", "pinning_interference_share",
    "jank_janky_pct", "jank_frame_dur_ms_p95",
)


def strip_rows(df: pl.DataFrame, metrics: Sequence[str] | None = None) -> pl.DataFrame:
    """Long form (trace, run, label, verdict, metric, value) of numeric metrics."""
    if df.is_empty():
        return pl.DataFrame(schema={"trace": pl.String, "run": pl.Int64, "label": pl.String,
                                    "verdict": pl.String, "metric": pl.String,
                                    "value": pl.Float64})
    if "error" in df.columns:
        df = df.filter(pl.col("error").is_null())
    if metrics is None:
        metrics = [m for m in STRIP_METRICS if m in df.columns]
    else:
        missing = [m for m in metrics if m not in df.columns]
        if missing:
            raise UsageError(f"no such column(s) in the runs table: {', '.join(missing)}")
    verdict = (pl.col("health_verdict") if "health_verdict" in df.columns
               else pl.lit(None, pl.String))
    run = pl.col("run") if "run" in df.columns else pl.lit(0)
    trace = pl.col("trace") if "trace" in df.columns else pl.lit("")
    base = df.select(
        trace=trace.cast(pl.String), run=run.cast(pl.Int64), verdict=verdict,
        label=trace.cast(pl.String).str.split("/").list.last() + " #" + run.cast(pl.String),
        **{m: pl.col(m).cast(pl.Float64, strict=False) for m in metrics})
    long = base.unpivot(index=["trace", "run", "label", "verdict"], on=list(metrics),
                        variable_name="metric", value_name="value")
    return long.filter(pl.col("value").is_not_null() & pl.col("value").is_finite())


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
