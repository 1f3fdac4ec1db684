"""Lower-bound overhead (LBO) of garbage collection over a study's runs.

The method of Cai et al., "Distilling the Real Cost of Production Garbage
Collectors" (ISPASS'22), as the ISMM'24 study of ART's collectors applies it,
with one of two cost measures (``--cost``):

* ``task_clock``: cost(run) = app CPU in the run window (``gc_app_cpu_ns``);
  distilled(run) = cost - GC CPU (``gc_gc_cpu_ns``)
* ``wall``: cost(run) = the length of the run window W; distilled(run) =
  cost - the run's GC pause time in W (``gc_pause_total_ns``): only the time
  the collector held the app's mutators suspended is removed, since a
  concurrent collector's other work overlaps the app's

In both, distilled(run) is the cost with GC removed -- an over-estimate of
the cost of an ideal zero-cost collector, hence a *lower bound* on the
overhead:
* baseline(b)      = min over (config, x) of mean distilled cost of b
* LBO(b, config, x) = mean cost / baseline(b)
* ci95_pct         = 100 * t(0.975, n-1) * s / sqrt(n) / mean cost, the
  half-width of the 95% CI of the mean cost over the n invocations

Which runs count (every exclusion is reported): runs that failed analysis,
runs without app CPU, -- unless ``include_unhealthy`` -- runs whose health
verdict is ``fail``, runs whose heap peaked above their heap label
(``heap_over_limit``) and -- unless ``include_drifted`` -- runs held at
another frequency level than the study's on their device
(``condition_drift``; see artscope.studies.checks). Benchmarks are flagged
``chaotic`` when, for some config, a larger heap costs significantly more
than a smaller one (non-overlapping 95% CIs), ``noisy`` when some (config,
x) has a CI above ``noisy_ci_pct`` and ``workload_varies`` when their work
trends with x; flagged benchmarks stay in the table but leave the summary
rows (min/max/mean/geomean per config and x) unless ``keep_flagged``.
Study warnings (mixed devices or builds, runs below the maximum level,
heap multiples recorded one after another) are listed, not excluded.
"""

from __future__ import annotations

import dataclasses
import json
import os

import polars as pl

from artscope.errors import UsageError
from artscope.studies.stats import t975

#: --cost choices -> the analyze column holding that cost (``window_ns``:
#: W's length, derived from the window columns).
COSTS = {"task_clock": "gc_app_cpu_ns", "wall": "window_ns"}
#: --cost choices -> the analyze column holding the GC part of that cost.
GC_COLUMNS = {"task_clock": "gc_gc_cpu_ns", "wall": "gc_pause_total_ns"}
#: the task clock's GC column (the default cost)
GC_COLUMN = GC_COLUMNS["task_clock"]
SUMMARY_STATS = ("min", "max", "mean", "geomean")
#: Heap multiples closer than this are the same x (they come from text).
X_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True)
class StudyOptions:
    """Which runs and benchmarks a study counts, and how it measures cost."""

    #: the cost measure: ``task_clock`` (app CPU in W, GC CPU removed) or
    #: ``wall`` (W's length, GC pause time removed).
    cost: str = "task_clock"
    #: keep runs whose health verdict is ``fail``.
    include_unhealthy: bool = False
    #: keep chaotic/noisy benchmarks in the summary rows.
    keep_flagged: bool = False
    #: keep runs whose frequency level drifted from the study's.
    include_drifted: bool = False
    #: a benchmark is ``noisy`` when some (config, x) CI exceeds this (± %).
    noisy_ci_pct: float = 5.0

    def __post_init__(self) -> None:
        if self.cost not in COSTS:
            raise UsageError(f"unknown --cost {self.cost!r} (choose from {', '.join(COSTS)})")
        if not self.noisy_ci_pct > 0:
            raise UsageError("--noisy-ci must be a positive percentage")


def _reason_text(verdict: str | None, reasons_json: str | None) -> tuple[str, str]:
    """(ids of the failing checks, their messages) of one run's health."""
    try:
        reasons = json.loads(reasons_json) if reasons_json else []
    except (TypeError, ValueError):
        reasons = []
    bad = [r for r in reasons if isinstance(r, dict) and r.get("severity") == "fail"]
    ids = ", ".join(dict.fromkeys(r.get("id", "?") for r in bad)) or (verdict or "?")
    return ids, "; ".join(r.get("message", "") for r in bad)


NO_COST_DETAIL = {
    "task_clock": "no app or GC CPU time (the trace has no scheduling data)",
    "wall": "no GC pause times (the trace has GC slices without ART's phase slices)",
}


def with_cost_columns(runs: pl.DataFrame, cost: str) -> pl.DataFrame:
    """``runs`` with the columns ``cost`` needs that are derived (W's length)."""
    if cost == "wall" and "window_ns" not in runs.columns \
            and {"window_start_ts", "window_end_ts"} <= set(runs.columns):
        runs = runs.with_columns(
            window_ns=pl.col("window_end_ts") - pl.col("window_start_ts"))
    return runs


def split_runs(runs: pl.DataFrame, opts: StudyOptions) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept runs, excluded runs with ``reason`` and ``detail``)."""
    cost_col, gc_col = COSTS[opts.cost], GC_COLUMNS[opts.cost]
    runs = with_cost_columns(runs, opts.cost)
    for col, dtype in (("error", pl.String), ("health_verdict", pl.String),
                       ("health_reasons", pl.String), (cost_col, pl.Int64), (gc_col, pl.Int64)):
        if col not in runs.columns:
            runs = runs.with_columns(pl.lit(None, dtype).alias(col))
    failed = pl.col("error").is_not_null()
    unhealthy = (pl.col("health_verdict") == "fail").fill_null(False)
    no_cost = pl.col(cost_col).is_null() | pl.col(gc_col).is_null()
    why = (pl.when(failed).then(pl.lit("error"))
           .when(no_cost).then(pl.lit("no_cost"))
           .when(unhealthy & pl.lit(not opts.include_unhealthy)).then(pl.lit("unhealthy"))
           .otherwise(None))
    marked = runs.with_columns(_why=why)
    # study checks: a run's heap over its label, its level off the study's
    from artscope.studies import checks

    study_ex = [checks.heap_over_limit(runs)]
    if not opts.include_drifted:
        study_ex.append(checks.condition_drift(runs))
    study_ex = pl.concat(study_ex).unique(["trace", "run"], keep="first", maintain_order=True)
    if study_ex.height:
        marked = (marked.join(study_ex.rename({"reason": "_study_why", "detail": "_study_detail"}),
                              on=["trace", "run"], how="left")
                  .with_columns(_why=pl.coalesce("_why", "_study_why")))
    kept = marked.filter(pl.col("_why").is_null()).drop("_why", "_study_why", "_study_detail",
                                                        strict=False)
    ex = marked.filter(pl.col("_why").is_not_null())
    rows = []
    for r in ex.iter_rows(named=True):
        if r["_why"] in ("condition_drift", "heap_over_limit"):
            reason, detail = r["_why"], r["_study_detail"]
        elif r["_why"] == "error":
            reason, detail = "error", r["error"]
        elif r["_why"] == "no_cost":
            reason, detail = "no_cost", NO_COST_DETAIL[opts.cost]
        else:
            ids, detail = _reason_text(r["health_verdict"], r["health_reasons"])
            reason = f"unhealthy: {ids}"
        rows.append({"trace": r["trace"], "run": r["run"], "benchmark": r.get("benchmark"),
                     "config": r.get("config"), "x": r.get("x"),
                     "invocation": r.get("invocation"), "reason": reason, "detail": detail})
    excluded = pl.DataFrame(rows, schema={
        "trace": pl.String, "run": pl.Int64, "benchmark": pl.String, "config": pl.String,
        "x": pl.Float64, "invocation": pl.String, "reason": pl.String, "detail": pl.String})
    return kept, excluded


def group_stats(kept: pl.DataFrame, cost_col: str, gc_col: str = GC_COLUMN) -> pl.DataFrame:
    """Per (benchmark, config, x): n, mean/sd of cost, mean GC and distilled
    cost, baseline, LBO and the 95% CI (``ci95_half_ns``, ``ci95_pct``)."""
    cost = pl.col(cost_col).cast(pl.Float64)
    gc = pl.col(gc_col).cast(pl.Float64)
    g = (kept.group_by("benchmark", "config", "x")
         .agg(n=pl.len().cast(pl.Int64), cost_mean_ns=cost.mean(), cost_sd_ns=cost.std(),
              gc_mean_ns=gc.mean(), distilled_mean_ns=(cost - gc).mean()))
    return (g.with_columns(ci95_half_ns=t975(pl.col("n")) * pl.col("cost_sd_ns")
                           / pl.col("n").cast(pl.Float64).sqrt())
            .with_columns(ci95_pct=100 * pl.col("ci95_half_ns") / pl.col("cost_mean_ns"),
                          baseline_ns=pl.col("distilled_mean_ns").min().over("benchmark"))
            .with_columns(lbo=pl.col("cost_mean_ns") / pl.col("baseline_ns"))
            .with_columns(lbo_ci95=pl.col("lbo") * pl.col("ci95_pct") / 100)
            .sort("benchmark", "config", "x", nulls_last=True))


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"


def find_flags(stats: pl.DataFrame, noisy_ci_pct: float) -> pl.DataFrame:
    """One row per flagged (benchmark, flag, config, x) with a readable detail."""
    lo = pl.col("cost_mean_ns") - pl.col("ci95_half_ns")
    hi = pl.col("cost_mean_ns") + pl.col("ci95_half_ns")
    with_ci = stats.filter(pl.col("ci95_half_ns").is_not_null() & pl.col("x").is_not_null())
    small = with_ci.select("benchmark", "config", x_small="x", cost_small="cost_mean_ns",
                           ci_small="ci95_pct", hi_small=hi)
    large = with_ci.select("benchmark", "config", "x", cost_large="cost_mean_ns",
                           ci_large="ci95_pct", lo_large=lo)
    chaotic = (small.join(large, on=["benchmark", "config"])
               .filter((pl.col("x") > pl.col("x_small") + X_TOLERANCE)
                       & (pl.col("lo_large") > pl.col("hi_small"))))
    rows = [{"benchmark": r["benchmark"], "flag": "chaotic", "config": r["config"], "x": r["x"],
             "detail": (f"{r['config']} at {r['x']:g}x costs {_ms(r['cost_large'])} "
                        f"±{r['ci_large']:.2f}%, more than at {r['x_small']:g}x "
                        f"({_ms(r['cost_small'])} ±{r['ci_small']:.2f}%; the 95% CIs do not overlap)")}
            for r in chaotic.sort("benchmark", "config", "x", "x_small").iter_rows(named=True)]
    noisy = stats.filter(pl.col("ci95_pct") > noisy_ci_pct)
    rows += [{"benchmark": r["benchmark"], "flag": "noisy", "config": r["config"], "x": r["x"],
              "detail": (f"{r['config']} at {_x(r['x'])}: 95% CI ±{r['ci95_pct']:.2f}% of the mean "
                         f"over {r['n']} runs exceeds ±{noisy_ci_pct:g}%")}
             for r in noisy.sort("benchmark", "config", "x").iter_rows(named=True)]
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "flag": pl.String,
                                      "config": pl.String, "x": pl.Float64, "detail": pl.String})


def _x(x: float | None) -> str:
    return "x=?" if x is None else f"{x:g}x"


def summary_rows(stats: pl.DataFrame) -> pl.DataFrame:
    """min/max/mean/geomean of LBO per (config, x) over the rows given."""
    agg = (stats.group_by("config", "x")
           .agg(n=pl.len(), min=pl.col("lbo").min(), max=pl.col("lbo").max(),
                mean=pl.col("lbo").mean(), geomean=pl.col("lbo").log().mean().exp()))
    long = agg.unpivot(index=["config", "x", "n"], on=list(SUMMARY_STATS),
                       variable_name="benchmark", value_name="lbo")
    order = pl.col("benchmark").replace_strict({s: i for i, s in enumerate(SUMMARY_STATS)})
    return long.sort("config", "x", order, nulls_last=True)


#: Columns of the LBO table, in order (documented in README "Studies").
TABLE_COLUMNS = ("kind", "benchmark", "config", "x", "n", "cost_mean_ns", "cost_sd_ns",
                 "gc_mean_ns", "distilled_mean_ns", "baseline_ns", "lbo", "lbo_ci95",
                 "ci95_pct", "flags")


@dataclasses.dataclass
class LboResult:
    """The LBO table plus what was left out and why."""

    #: one row per (benchmark, config, x) (``kind`` benchmark) then the
    #: summary rows (``kind`` summary, ``benchmark`` = min|max|mean|geomean,
    #: ``n`` = benchmarks summarised); columns :data:`TABLE_COLUMNS`.
    table: pl.DataFrame
    #: flagged benchmarks: benchmark, flag (chaotic|noisy|workload_varies),
    #: config, x, detail
    flags: pl.DataFrame
    #: runs left out: trace, run, labels, reason, detail
    excluded: pl.DataFrame
    options: StudyOptions
    #: study warnings over the counted runs (artscope.studies.checks):
    #: check, benchmark, config, x, trace, run, detail
    warnings: pl.DataFrame = dataclasses.field(
        default_factory=lambda: pl.DataFrame(schema=_warning_schema()))

    def at(self, x: float) -> pl.DataFrame:
        """The Table-5 view at heap multiple ``x``: one row per benchmark (then
        the summary rows), LBO and ± CI % per config as columns."""
        rows = self.table.filter((pl.col("x") - x).abs() < X_TOLERANCE)
        if rows.is_empty():
            xs = sorted({v for v in self.table["x"].to_list() if v is not None})
            raise UsageError(f"no runs at x={x:g} (heap multiples in the study: "
                             f"{', '.join(f'{v:g}' for v in xs) or 'none'})")
        configs = list(dict.fromkeys(rows.sort("config")["config"].to_list()))
        keys = rows.select("kind", "benchmark", "flags").unique(maintain_order=True)
        wide = keys
        for c in configs:
            part = rows.filter(pl.col("config") == c).select(
                "kind", "benchmark", pl.col("lbo").alias(f"{c}_lbo"),
                pl.col("ci95_pct").alias(f"{c}_ci95_pct"))
            wide = wide.join(part, on=["kind", "benchmark"], how="left")
        return wide.select("kind", "benchmark",
                           *[col for c in configs for col in (f"{c}_lbo", f"{c}_ci95_pct")],
                           "flags")


def _warning_schema() -> dict[str, pl.DataType]:
    from artscope.studies.checks import WARNING_SCHEMA

    return WARNING_SCHEMA


def compute_lbo(runs: pl.DataFrame, opts: StudyOptions = StudyOptions()) -> LboResult:
    """LBO per (benchmark, config, x) from labelled runs (see module doc)."""
    if "benchmark" not in runs.columns:
        raise UsageError("the runs have no labels: give --meta or --name-pattern")
    kept, excluded = split_runs(runs, opts)
    if kept.is_empty():
        raise UsageError(f"no runs left to study ({excluded.height} excluded: "
                         + ", ".join(sorted(set(excluded["reason"].to_list()))) + ")")
    from artscope.studies import checks

    stats = group_stats(kept, COSTS[opts.cost], GC_COLUMNS[opts.cost])
    flags = pl.concat([find_flags(stats, opts.noisy_ci_pct), checks.workload_varies(kept)])
    warnings = pl.concat([checks.mixed_devices(runs), checks.below_max(kept),
                          checks.not_interleaved(kept)])
    per_bm = flags.group_by("benchmark").agg(
        flags=pl.col("flag").unique().sort().str.join(","))
    stats = stats.join(per_bm, on="benchmark", how="left")
    counted = stats if opts.keep_flagged else stats.filter(pl.col("flags").is_null())
    summary = summary_rows(counted).with_columns(kind=pl.lit("summary"))
    table = pl.concat([stats.with_columns(kind=pl.lit("benchmark")), summary],
                      how="diagonal_relaxed")
    return LboResult(table=table.select(TABLE_COLUMNS), flags=flags, excluded=excluded,
                     options=opts, warnings=warnings)


def excluded_lines(excluded: pl.DataFrame) -> list[str]:
    """One line per excluded run, for stderr and the text table."""
    return [f"{os.path.basename(r['trace'])} run {r['run']}: {r['reason']}"
            + (f" — {r['detail']}" if r["detail"] else "")
            for r in excluded.iter_rows(named=True)]
