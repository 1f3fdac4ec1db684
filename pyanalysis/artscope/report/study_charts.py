"""altair charts of a study (artscope.studies): LBO curves, frame-duration
percentiles and janky frames across invocations, noise factors.

Like artscope.report.charts, every chart carries its data inline so it renders
the same in a notebook, the study page of ``artscope report`` and vl-convert.
Flagged benchmarks are drawn in grey.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import polars as pl

from artscope.report.charts import WIDTH, _data, placeholder

if TYPE_CHECKING:
    from artscope.studies.lbo import LboResult
    from artscope.studies.noise import NoiseResult

FLAGGED_COLOR = "#b0b0b0"
#: the facet of the summary curve (geomean over the benchmarks summarised)
GEOMEAN_PANEL = "geomean (summary)"


def _panel(df: pl.DataFrame, several_devices: bool) -> pl.Expr:
    """A facet per benchmark, named with its device when the study has several."""
    return (pl.format("{} ({})", "benchmark", "device") if several_devices
            else pl.col("benchmark"))


def lbo_rows(result: "LboResult") -> pl.DataFrame:
    """One row per device, benchmark (and the geomean summary), config and x,
    with the error-bar ends lo/hi = LBO ∓ its CI half-width."""
    t = result.table.filter(pl.col("x").is_not_null())
    bench = t.filter(pl.col("kind") == "benchmark")
    geo = t.filter((pl.col("kind") == "summary") & (pl.col("benchmark") == "geomean")).with_columns(
        benchmark=pl.lit(GEOMEAN_PANEL))
    rows = pl.concat([bench, geo], how="diagonal_relaxed")
    return rows.select(
        "device", _panel(rows, len(result.devices) > 1).alias("benchmark"), "config", "x", "n",
        "lbo", "ci_pct", "flags",
        lo=pl.col("lbo") - pl.col("lbo_ci").fill_null(0),
        hi=pl.col("lbo") + pl.col("lbo_ci").fill_null(0),
        flagged=pl.col("flags").is_not_null() | (pl.col("in_summary") == False))  # noqa: E712


def lbo_curves(result: "LboResult", columns: int = 3) -> alt.TopLevelMixin:
    """LBO over heap multiple x per benchmark (one panel each, plus the geomean
    of the summarised benchmarks), one line per config, CI error bars;
    flagged or unsummarised benchmarks in grey."""
    title = (f"GC lower-bound overhead over heap size ({result.options.measure.what}; "
             f"mean ± {result.options.ci_level}% CI)")
    rows = lbo_rows(result)
    if rows.is_empty():
        return placeholder(title, "no (benchmark, config, x) with a numeric heap multiple x")
    geo = [b for b in dict.fromkeys(rows["benchmark"].to_list()) if b.startswith(GEOMEAN_PANEL)]
    order = sorted(set(rows["benchmark"].to_list()) - set(geo)) + sorted(geo)
    color = alt.condition("datum.flagged", alt.value(FLAGGED_COLOR),
                          alt.Color("config:N", title="config"))
    base = alt.Chart().encode(
        x=alt.X("x:Q", title="heap multiple x", scale=alt.Scale(zero=False)),
        color=color, detail="config:N")
    tooltip = ["benchmark:N", "config:N", "x:Q", "n:Q", alt.Tooltip("lbo:Q", format=".4f"),
               alt.Tooltip("ci_pct:Q", format=".2f", title="±CI %"), "flags:N"]
    line = base.mark_line().encode(y=alt.Y("lbo:Q", title="LBO", scale=alt.Scale(zero=False)))
    points = base.mark_point(filled=True, size=50).encode(y="lbo:Q", tooltip=tooltip)
    bars = base.mark_errorbar(ticks=True).encode(y=alt.Y("lo:Q", title="LBO"), y2="hi:Q")
    return (alt.layer(line, bars, points, data=_data(rows))
            .properties(width=max(160, WIDTH // columns - 40), height=160)
            .facet(facet=alt.Facet("benchmark:N", sort=order, title=None), columns=columns,
                   title=title)
            .resolve_scale(y="independent"))


def frame_percentiles(resp: pl.DataFrame, columns: int = 3) -> alt.TopLevelMixin:
    """Frame-duration percentiles per benchmark (one panel each) and config
    at every heap multiple: the mean of the invocations' percentile, with a
    bar from the lowest to the highest invocation (ISMM'24 Fig. 3)."""
    from artscope.studies.responsiveness import PERCENTILES

    title = "Frame duration percentiles across invocations (mean, min–max)"
    if resp.is_empty():
        return placeholder(title, "no run drew frames (no frame timeline or Choreographer slices)")
    several = resp["device"].n_unique() > 1
    long = pl.concat([resp.select(
        _panel(resp, several).alias("benchmark"), "config", "x", "n",
        percentile=pl.lit(f"p{p}"), ms=pl.col(f"p{p}_ms"), lo=pl.col(f"p{p}_min_ms"),
        hi=pl.col(f"p{p}_max_ms")) for p in PERCENTILES]).with_columns(
        series=pl.format("{} {}x", "config", pl.col("x").round(3)))
    base = alt.Chart().encode(
        x=alt.X("percentile:N", title="percentile", sort=[f"p{p}" for p in PERCENTILES]),
        xOffset="series:N", color=alt.Color("series:N", title="config, x"))
    tooltip = ["benchmark:N", "config:N", "x:Q", "percentile:N", "n:Q",
               alt.Tooltip("ms:Q", format=".2f"), alt.Tooltip("lo:Q", format=".2f", title="min"),
               alt.Tooltip("hi:Q", format=".2f", title="max")]
    points = base.mark_point(filled=True).encode(y=alt.Y("ms:Q", title="frame duration (ms)"),
                                                 tooltip=tooltip)
    bars = base.mark_rule().encode(y="lo:Q", y2="hi:Q")
    return (alt.layer(bars, points, data=_data(long))
            .properties(width=max(160, WIDTH // columns - 40), height=160)
            .facet(facet=alt.Facet("benchmark:N", title=None), columns=columns, title=title)
            .resolve_scale(y="independent"))


def janky_curves(resp: pl.DataFrame, ci_level: int = 95, columns: int = 3) -> alt.TopLevelMixin:
    """Janky frames (% of frames, the mean over invocations) against heap
    multiple x per benchmark, one line per config, CI error bars (ISMM'24 Fig. 4)."""
    title = f"Janky frames over heap size (mean ± {ci_level}% CI over invocations)"
    rows = resp.filter(pl.col("x").is_not_null() & pl.col("janky_pct").is_not_null())
    if rows.is_empty():
        return placeholder(title, "no run drew frames at a numeric heap multiple x")
    several = rows["device"].n_unique() > 1
    rows = rows.select(_panel(rows, several).alias("benchmark"), "config", "x", "n",
                       "janky_pct", "janky_pct_pooled",
                       lo=pl.col("janky_pct") - pl.col("janky_pct_ci").fill_null(0),
                       hi=pl.col("janky_pct") + pl.col("janky_pct_ci").fill_null(0))
    base = alt.Chart().encode(x=alt.X("x:Q", title="heap multiple x", scale=alt.Scale(zero=False)),
                              color=alt.Color("config:N", title="config"))
    tooltip = ["benchmark:N", "config:N", "x:Q", "n:Q",
               alt.Tooltip("janky_pct:Q", format=".2f", title="janky %"),
               alt.Tooltip("janky_pct_pooled:Q", format=".2f", title="pooled janky %")]
    line = base.mark_line().encode(y=alt.Y("janky_pct:Q", title="janky frames (%)"))
    points = base.mark_point(filled=True).encode(y="janky_pct:Q", tooltip=tooltip)
    bars = base.mark_errorbar(ticks=True).encode(y=alt.Y("lo:Q", title="janky frames (%)"),
                                                 y2="hi:Q")
    return (alt.layer(line, bars, points, data=_data(rows))
            .properties(width=max(160, WIDTH // columns - 40), height=160)
            .facet(facet=alt.Facet("benchmark:N", title=None), columns=columns, title=title)
            .resolve_scale(y="independent"))


def noise_factors(result: "NoiseResult", max_groups: int = 6) -> alt.TopLevelMixin:
    """Per group (noisiest first): the metric of every run, colored by whether
    the group's top factor affected it (outliers as crosses), beside the
    factors' |rank correlation| with the metric."""
    title = f"Noise of {result.metric}: runs and the factors that track them"
    if result.runs.is_empty():
        return placeholder(title, "no runs")
    keys = result.group_by
    label = (pl.concat_str([pl.col(k).cast(pl.String) for k in keys], separator=" / ")
             if keys else pl.lit("all runs"))
    groups = result.groups.head(max_groups).with_columns(group=label)
    top = groups.select(*keys, "group", "top_factor", "ci95_pct") if keys else \
        groups.select("group", "top_factor", "ci95_pct")
    runs = (result.runs.join(top, on=keys, how="inner") if keys
            else result.runs.with_columns(group=pl.lit("all runs"),
                                          top_factor=groups["top_factor"][0]))
    factor_names = [c for c in runs.columns if c in set(result.factors["factor"].to_list())]
    affected = pl.lit(False)
    for f in factor_names:
        lo = pl.col(f).min().over(keys) if keys else pl.col(f).min()
        affected = pl.when(pl.col("top_factor") == f).then(pl.col(f) > lo).otherwise(affected)
    runs = runs.with_columns(
        affected=pl.when(pl.col("top_factor").is_null()).then(pl.lit("no factor tracks it"))
        .when(affected.fill_null(False)).then(pl.lit("affected by the top factor"))
        .otherwise(pl.lit("not affected")),
        name=pl.col("trace").str.split("/").list.last())
    runs = runs.select("group", "name", "run", "value", "mad_score", "outlier", "affected",
                       "top_factor")
    order = groups["group"].to_list()
    dots = (alt.Chart(_data(runs), title=f"{result.metric} per run")
            .mark_point(size=70, filled=True)
            .encode(x=alt.X("value:Q", title=f"{result.metric} ({result.column})",
                            scale=alt.Scale(zero=False)),
                    y=alt.Y("group:N", sort=order, title=None),
                    color=alt.Color("affected:N", title=None, scale=alt.Scale(
                        domain=["affected by the top factor", "not affected", "no factor tracks it"],
                        range=["#d62728", "#1f77b4", "#7f7f7f"])),
                    shape=alt.Shape("outlier:N", title="MAD outlier",
                                    scale=alt.Scale(domain=[False, True], range=["circle", "cross"])),
                    tooltip=["group:N", "name:N", "run:O", alt.Tooltip("value:Q", format=".6g"),
                             alt.Tooltip("mad_score:Q", format=".2f"), "affected:N"])
            .properties(width=WIDTH // 2, height=max(60, 28 * len(order))))
    f = result.factors.with_columns(group=label).filter(
        pl.col("group").is_in(order) & pl.col("rho").is_not_null()).with_columns(
        abs_rho=pl.col("rho").abs())
    if f.is_empty():
        return alt.vconcat(dots, placeholder("factors", "no measured factor varies within these groups"),
                           title=title)
    bars = (alt.Chart(_data(f.select("group", "factor", "rho", "abs_rho", "runs_affected",
                                     "diff_pct", "ci95_pct_without")),
                      title="|Spearman rho| with the metric")
            .mark_bar(color="#d62728")
            .encode(x=alt.X("abs_rho:Q", title="|rho|", scale=alt.Scale(domain=[0, 1])),
                    y=alt.Y("factor:N", title=None),
                    row=alt.Row("group:N", sort=order, title=None,
                                header=alt.Header(labelAngle=0, labelAlign="left")),
                    tooltip=["group:N", "factor:N", alt.Tooltip("rho:Q", format=".3f"),
                             "runs_affected:Q", alt.Tooltip("diff_pct:Q", format="+.2f"),
                             alt.Tooltip("ci95_pct_without:Q", format=".2f")])
            .properties(width=WIDTH // 3, height=60))
    return alt.hconcat(dots, bars, title=title).resolve_scale(color="independent",
                                                              shape="independent")
