"""The rows behind the charts: data shaping only, no drawing.

Each function turns one analysed trace (a RunSet, see :class:`Runs`) or a
batch's flat rows into the polars rows a chart in artscope.report.charts
draws: clipped to the run window, merged or binned to at most ``max_rows``
(default :data:`MAX_ROWS`) so charts of large traces stay responsive. Useful
on their own in a notebook (e.g. ``timeline_rows(runs)``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

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


def _clean(v: Any) -> Any:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def _result(runset: "Runs", run: int) -> dict[str, Any]:
    for r in runset.results:
        if r["run"] == run:
            return r
    raise UsageError(f"no run {run} in {runset.analysis.trace} "
                     f"(runs: {', '.join(str(r['run']) for r in runset.results)})")


def _window(result: dict[str, Any]) -> tuple[int, int]:
    return result["window"]["start_ts"], result["window"]["end_ts"]


def _by_run(df: pl.DataFrame, run: int) -> pl.DataFrame:
    if df.is_empty() or "run" not in df.columns:
        return df.clear() if "run" in df.columns else df
    return df.filter(pl.col("run") == run)


def _metric_rows(runset: "Runs", name: str) -> pl.DataFrame:
    """Rows of sql-metrics/<name>.sql for the run set's selection."""
    return runset.analysis.runner.run(name)


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


#: Steps of two CPUs closer than this (ns) count as the same step.
COINCIDE_NS = 1_000_000


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


def frame_rows(runset: "Runs", run: int = 0, max_rows: int = MAX_ROWS,
               deadline_ns: int = DEFAULT_FRAME_DEADLINE_NS) -> pl.DataFrame:
    """Finished frames of the run sorted by duration with their percentile
    (rank / n · 100) and jank class; over ``max_rows`` every janky frame is
    kept plus evenly spaced ranks of the others. Choreographer frames are
    judged against the deadline the run's jank used (``deadline_ns`` when
    it has none)."""
    result = _result(runset, run)
    deadline_ns = result["jank"].get("frame_deadline_ns") or deadline_ns
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


def mmu_rows(runset: "Runs", run: int = 0) -> pl.DataFrame:
    """(curve, window_ns, window_ms, mmu) of the run's ``gc.mmu`` (the
    mutator is unavailable during GC pauses and foreground GCs) and
    ``gc.main_thread_mmu`` (GC pauses plus the main thread's GC waits and own
    GCs); empty when pauses are unknown."""
    g = _result(runset, run)["gc"]
    rows = [{"curve": label, "window_ns": p["window_ns"], "mmu": p["mmu"]}
            for key, label in (("mmu", "app (GC pauses + foreground GCs)"),
                               ("main_thread_mmu", "main thread (pauses + GC waits + own GCs)"))
            for p in g.get(key) or []]
    schema = {"curve": pl.String, "window_ns": pl.Int64, "mmu": pl.Float64}
    return pl.DataFrame(rows, schema=schema).with_columns(
        window_ms=pl.col("window_ns") / 1e6)


def pause_rows(runset: "Runs", run: int = 0) -> pl.DataFrame:
    """Bars of the pause timeline: the run's GCs (foreground ones apart), GC
    pauses, other suspend-alls and mutator GC waits, clipped to W (lane,
    start/end in s since W's start)."""
    result = _result(runset, run)
    start, end = _window(result)
    rows = []

    def add(lane: str, s: int, e: int, what: str) -> None:
        s, e = max(s, start), min(e, end)
        if e > s:
            rows.append({"lane": lane, "t0": (s - start) / 1e9, "t1": (e - start) / 1e9,
                         "dur_ms": (e - s) / 1e6, "what": what})

    for e in result["gc"].get("events") or []:
        # a foreground GC stops the thread that runs it: a lane of its own
        lane = "foreground GC" if e.get("foreground") else "GC"
        add(lane, e["ts"], e["ts"] + e["dur"], f"{e['name']} on {e['thread']}")
    tables = runset.analysis.tables
    for r in _by_run(tables.get("gc_pause", pl.DataFrame()), run).iter_rows(named=True):
        lane = "GC pause" if r["gc_id"] is not None else "other suspend-all"
        bound = "" if r["bound"] == "exact" else f", {r['bound']} bound"
        add(lane, r["ts"], r["ts"] + r["dur"],
            f"{r['source']} on {r['thread_name']} to the end of {r['end_slice']}{bound}")
    for r in _by_run(tables.get("gc_wait", pl.DataFrame()), run).iter_rows(named=True):
        lane = "main thread waits" if r["is_main_thread"] else "other mutator waits"
        add(lane, r["ts"], r["ts"] + r["dur"], f"GC: Wait For Completion on {r['thread_name']}")
    return pl.DataFrame(rows, schema={"lane": pl.String, "t0": pl.Float64, "t1": pl.Float64,
                                      "dur_ms": pl.Float64, "what": pl.String})


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
