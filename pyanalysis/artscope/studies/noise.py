"""Why do repeated runs disagree? Spread, outliers and the run factors that
track a metric within groups of runs (``artscope noise``).

Per group (default: benchmark, config, x -- the labels present; runs from
more than one device are grouped by ``device`` first):

* n, mean, sample standard deviation, CV = sd / mean, and ``ci95_pct`` =
  100 * t(0.975, n-1) * sd / sqrt(n) / mean (as in ``lbo``);
* outlier runs: modified z-score 0.6745 * |v - median| / MAD > 3.5
  (Iglewicz & Hoaglin; MAD = median absolute deviation; with MAD = 0 every
  run off the median is an outlier);
* the difference between healthy and unhealthy (verdict ``fail``) runs;
* every run factor artscope measures (:data:`FACTORS`), ranked by how strongly
  it tracks the metric: |Spearman rank correlation| (null when the factor is
  constant in the group), then the difference between the runs the factor
  affects (value above the group's minimum) and the others;
* one sentence naming the top factor, how many runs it affected and what the
  CI would be without them.

Unhealthy runs are kept: they are usually the explanation. Runs whose
analysis failed or that lack the metric are left out and counted.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Sequence

import polars as pl

from artscope.errors import UsageError
from artscope.studies.labels import ROLES
from artscope.studies.stats import ci_half, rank_correlation

#: --metric shorthands -> analyze columns.
METRIC_ALIASES = {"task_clock": "gc_app_cpu_ns", "distilled": "gc_mutator_cpu_ns",
                  "gc_cpu": "gc_gc_cpu_ns", "gc_share": "gc_gc_cpu_share",
                  # counted, or estimated where the run has no counters (dvfs_cycles_source)
                  "cycles": "dvfs_cycles_app_cycles"}
MAD_OUTLIER = 3.5
#: a factor "tracks" the metric when |rho| reaches this.
TRACKS_RHO = 0.5
#: the columns of NoiseResult.warnings
WARNING_COLUMNS = ("check", "severity", "trace", "run", "detail")


def _col(name: str) -> Callable[[pl.DataFrame], pl.Expr]:
    return lambda df: (pl.col(name).cast(pl.Float64, strict=False) if name in df.columns
                       else pl.lit(None, pl.Float64))


@dataclasses.dataclass(frozen=True)
class Factor:
    name: str
    #: "<k of n runs> ..." -- completes the sentence
    phrase: str
    value: Callable[[pl.DataFrame], pl.Expr]


#: The run factors artscope measures, in the order used to break exact ties.
FACTORS = (
    Factor("memfreq_transitions", "had the memory controller changing frequency",
           _col("memfreq_transitions")),
    Factor("cpufreq_transitions", "had an allowed CPU changing frequency",
           _col("cpufreq_transitions")),
    Factor("cpufreq_throttled", "had a throttled CPU", _col("cpufreq_throttled")),
    Factor("off_mask_share", "ran app threads outside the allowed CPUs",
           _col("pinning_off_mask_share")),
    Factor("migrations", "had more migrations between the app's CPUs",
           _col("pinning_migrations")),
    Factor("interference_share", "shared the allowed CPUs with more other threads",
           _col("pinning_interference_share")),
    Factor("gc_count", "ran more GCs", _col("gc_gc_count")),
    Factor("direct_reclaim", "spent more time in direct reclaim",
           _col("mem_direct_reclaim_ns")),
    Factor("kswapd_allowed", "had kswapd running on the allowed CPUs",
           _col("mem_kswapd_allowed_cpu_ns")),
    Factor("kswapd", "had kswapd busier", _col("mem_kswapd_cpu_ns")),
    Factor("io_wait", "waited longer on I/O", _col("mem_io_wait_ns")),
    Factor("memory_kills", "saw processes killed for memory", _col("mem_kills")),
    Factor("rss_peak", "reached a higher peak RSS", _col("mem_rss_peak_kb")),
    Factor("major_faults", "had more major page faults", _col("mem_major_faults")),
    Factor("refaults", "had more refaults", _col("mem_refaults")),
    Factor("data_loss", "lost trace data", _col("partial")),
    # 1 for a run held at another frequency level than the study's on its device
    Factor("condition_drift", "were held at another frequency level than the study's",
           _col("_condition_drift")),
    # rank correlation with the window's UTC start: drift over the study's time
    Factor("run_order", "started later than the group's first run",
           _col("cond_started_at_unix_ns")),
    # the run's place in its invocation: warm-up (JIT, caches) shows here
    Factor("iteration", "were not their invocation's first iteration", _col("iteration")),
    Factor("jit_share", "spent more of their CPU in ART's JIT compiler",
           _col("validity_jit_cpu_share")),
)


def metric_column(runs: pl.DataFrame, metric: str) -> str:
    col = METRIC_ALIASES.get(metric, metric)
    if col not in runs.columns:
        raise UsageError(f"no metric {metric!r} in the runs (use an analyze column such as "
                         f"gc_app_cpu_ns, or {', '.join(METRIC_ALIASES)})")
    if not runs.schema[col].is_numeric():
        raise UsageError(f"metric {metric!r} ({col}) is not numeric")
    return col


def ci95_pct(values: Sequence[float]) -> float | None:
    """Half-width of the 95% CI of the mean of ``values``, % of the mean."""
    half = ci_half(list(values))
    mean = sum(values) / len(values) if values else None
    return None if half is None or not mean else 100 * half / mean


def _fmt_ci(v: float | None) -> str:
    if v is None:
        return "—"
    return f"±{v:.1f}%" if v >= 1 else f"±{v:.2f}%"


@dataclasses.dataclass
class NoiseResult:
    metric: str
    column: str
    group_by: list[str]
    #: one row per group: keys, n, mean, sd, cv, ci95_pct, n_outliers,
    #: healthy/unhealthy means, top_factor, top_rho, sentence
    groups: pl.DataFrame
    #: one row per group and factor, ranked (rank 1 = tracks the metric best)
    factors: pl.DataFrame
    #: one row per run: keys, trace, run, invocation, value, mad_score, outlier, factors
    runs: pl.DataFrame
    #: runs left out (analysis error or no value for the metric)
    excluded: pl.DataFrame
    #: study checks over the runs (artscope.studies.checks): drifted levels,
    #: mixed devices, runs below the maximum, x-by-x order
    warnings: pl.DataFrame = dataclasses.field(default_factory=pl.DataFrame)

    def sentences(self) -> list[str]:
        return self.groups["sentence"].to_list()


def _label(keys: dict[str, object]) -> str:
    return " / ".join(f"{v:g}x" if k == "x" and isinstance(v, float) else str(v)
                      for k, v in keys.items()) or "all runs"


def _diagnose_group(g: pl.DataFrame, metric: str) -> tuple[dict, list[dict]]:
    # a group is a handful of runs: plain Python on its columns beats a
    # DataFrame operation per factor
    cols = g.select("_value", "_outlier", "_name", *[f"factor_{f.name}" for f in FACTORS],
                    *(["health_verdict"] if "health_verdict" in g.columns else [])
                    ).to_dict(as_series=False)
    values = cols["_value"]
    n = len(values)
    ci_all = ci95_pct(values)
    varies = len(set(values)) > 1
    rows = []
    for f in FACTORS:
        fv = cols[f"factor_{f.name}"]
        present = [v for v in fv if v is not None]
        lo = min(present) if present else None
        affected = [v is not None and lo is not None and v > lo for v in fv]
        k = sum(affected)
        rho = None
        if len(present) == n and varies and len(set(present)) > 1:
            rho = rank_correlation(fv, values)
        vals_a = [v for v, a in zip(values, affected) if a]
        vals_u = [v for v, a in zip(values, affected) if not a]
        mean_a = sum(vals_a) / len(vals_a) if vals_a else None
        mean_u = sum(vals_u) / len(vals_u) if vals_u else None
        rows.append({"factor": f.name, "runs_affected": k, "rho": rho,
                     "affected_mean": mean_a, "unaffected_mean": mean_u,
                     "diff_pct": (100 * (mean_a - mean_u) / mean_u
                                  if mean_a is not None and mean_u else None),
                     "ci95_pct_without": ci95_pct(vals_u) if k else ci_all})
    order = sorted(range(len(rows)), key=lambda i: (
        rows[i]["rho"] is None, -abs(rows[i]["rho"] or 0), -abs(rows[i]["diff_pct"] or 0), i))
    for rank, i in enumerate(order, 1):
        rows[i]["rank"] = rank
    ranked = [rows[i] for i in order]

    unhealthy = [v == "fail" for v in cols.get("health_verdict", [None] * n)]
    vh = [v for v, u in zip(values, unhealthy) if not u]
    vu = [v for v, u in zip(values, unhealthy) if u]
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    outliers = [name for name, o in zip(cols["_name"], cols["_outlier"]) if o]
    top = ranked[0]
    tracks = top["rho"] is not None and abs(top["rho"]) >= TRACKS_RHO and top["runs_affected"]
    phrase = {f.name: f.phrase for f in FACTORS}
    if n < 3:
        sentence = f"only {n} run{'s' if n != 1 else ''}: too few to say why they disagree"
    elif tracks:
        k = top["runs_affected"]
        sentence = f"{k} of {n} runs {phrase[top['factor']]}"
        without = top["ci95_pct_without"]
        if without is None:
            sentence += (f"; they cost {top['diff_pct']:+.1f}% against the others "
                         f"({metric} CI {_fmt_ci(ci_all)})")
        else:
            verb = "shrinks" if ci_all is not None and without < ci_all else "changes"
            sentence += f"; without them the CI {verb} from {_fmt_ci(ci_all)} to {_fmt_ci(without)}"
    elif outliers:
        rest = [v for v, o in zip(values, cols["_outlier"]) if not o]
        names = ", ".join(outliers[:5])
        sentence = (f"{len(outliers)} of {n} runs are outliers (MAD score > {MAD_OUTLIER:g}) "
                    f"that no measured factor explains ({names}); without them the CI is "
                    f"{_fmt_ci(ci95_pct(rest))} instead of {_fmt_ci(ci_all)}")
    else:
        sentence = (f"no measured factor (pinning, CPU or memory frequency, GC count, memory "
                    f"pressure, run order, iteration, JIT, data loss) tracks {metric} across "
                    f"these {n} runs; "
                    f"CI {_fmt_ci(ci_all)}")
    summary = {"n": n, "mean": mean, "sd": sd, "cv": (sd / mean if sd is not None and mean else None),
               "ci95_pct": ci_all, "n_outliers": len(outliers),
               "n_unhealthy": len(vu),
               "healthy_mean": sum(vh) / len(vh) if vh else None,
               "unhealthy_mean": sum(vu) / len(vu) if vu else None,
               "top_factor": top["factor"] if tracks else None,
               "top_rho": top["rho"] if tracks else None, "sentence": sentence}
    if summary["healthy_mean"] and summary["unhealthy_mean"] is not None:
        summary["unhealthy_diff_pct"] = 100 * (summary["unhealthy_mean"] / summary["healthy_mean"] - 1)
    else:
        summary["unhealthy_diff_pct"] = None
    return summary, ranked


def diagnose_noise(runs: pl.DataFrame, metric: str = "task_clock",
                   group_by: Sequence[str] | None = None) -> NoiseResult:
    """Spread, outliers and ranked factors of ``metric`` per group of runs."""
    from artscope.studies import checks

    col = metric_column(runs, metric)
    if group_by is None:
        group_by = [r for r in ROLES[:3] if r in runs.columns]
        if checks.n_devices(runs) > 1:
            group_by = ["device", *group_by]
    if "device" in group_by:
        runs = checks.with_device(runs)
    drift = checks.condition_drift(runs)
    runs = runs.with_columns(_condition_drift=pl.struct("trace", "run").is_in(
        drift.select(pl.struct("trace", "run")).to_series().implode()).cast(pl.Int64))
    group_by = list(group_by)
    missing = [k for k in group_by if k not in runs.columns]
    if missing:
        raise UsageError(f"cannot group by {', '.join(missing)}: no such label or column "
                         "(label the runs with --meta or --name-pattern)")
    if "error" not in runs.columns:
        runs = runs.with_columns(error=pl.lit(None, pl.String))
    bad = (pl.col("error").is_not_null() | pl.col(col).is_null())
    excluded = runs.filter(bad).select(
        "trace", "run", reason=pl.when(pl.col("error").is_not_null())
        .then(pl.lit("error: ") + pl.col("error")).otherwise(pl.lit(f"no {col}")))
    ok = runs.filter(~bad)
    if ok.is_empty():
        raise UsageError(f"no runs with a value for {metric!r}")
    name = (pl.col("invocation").cast(pl.String) if "invocation" in ok.columns
            else pl.col("trace").str.split("/").list.last() + "#" + pl.col("run").cast(pl.String))
    ok = ok.with_columns(_value=pl.col(col).cast(pl.Float64), _name=name,
                         **{f"factor_{f.name}": f.value(ok) for f in FACTORS})
    med = pl.col("_value").median()
    mad = (pl.col("_value") - med).abs().median()
    over = group_by or None
    score = 0.6745 * (pl.col("_value") - med.over(over)).abs() / mad.over(over) if over else \
        0.6745 * (pl.col("_value") - med).abs() / mad
    ok = ok.with_columns(mad_score=pl.when(score.is_finite()).then(score).otherwise(None),
                         _dev=(pl.col("_value") - (med.over(over) if over else med)).abs())
    ok = ok.with_columns(_outlier=pl.when(pl.col("mad_score").is_not_null())
                         .then(pl.col("mad_score") > MAD_OUTLIER)
                         .otherwise(pl.col("_dev") > 0))
    groups, factors = [], []
    parts = ok.partition_by(group_by, as_dict=True, maintain_order=True) if group_by else {(): ok}
    for key, g in parts.items():
        keys = dict(zip(group_by, key))
        summary, ranked = _diagnose_group(g, metric)
        summary["sentence"] = f"{_label(keys)}: {summary['sentence']}" if group_by else summary["sentence"]
        groups.append({**keys, **summary})
        factors += [{**keys, **r} for r in ranked]
    key_schema = {k: ok.schema[k] for k in group_by}
    groups_df = pl.DataFrame(groups, schema_overrides=key_schema, infer_schema_length=None)
    groups_df = groups_df.sort("ci95_pct", descending=True, nulls_last=True)
    factor_schema = {**key_schema, "factor": pl.String, "rank": pl.Int64, "runs_affected": pl.Int64,
                     "rho": pl.Float64, "affected_mean": pl.Float64,
                     "unaffected_mean": pl.Float64, "diff_pct": pl.Float64,
                     "ci95_pct_without": pl.Float64}
    factors_df = pl.DataFrame(factors, schema=factor_schema)
    run_cols = [*group_by, "trace", "run"] + (["invocation"] if "invocation" in ok.columns
                                               and "invocation" not in group_by else [])
    runs_df = ok.select(*run_cols, pl.col("_value").alias("value"), "mad_score",
                        pl.col("_outlier").alias("outlier"),
                        *(["health_verdict"] if "health_verdict" in ok.columns else []),
                        *[pl.col(f"factor_{f.name}").alias(f.name) for f in FACTORS])
    warnings = pl.concat([
        drift.select(pl.col("reason").alias("check"), pl.lit("warn").alias("severity"),
                     "trace", "run", "detail"),
        checks.study_warnings(runs).select(*WARNING_COLUMNS)])
    return NoiseResult(metric=metric, column=col, group_by=group_by, groups=groups_df,
                       factors=factors_df, runs=runs_df, excluded=excluded, warnings=warnings)
