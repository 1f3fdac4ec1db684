"""Lower-bound overhead (LBO) of garbage collection over a study's runs.

The method of Cai et al., "Distilling the Real Cost of Production Garbage
Collectors" (ISPASS'22), with the protocol of the ISMM'24 study of ART's
collectors (Sareen et al., "Memory Management on Mobile Devices"), on a
pluggable cost measure (:data:`COSTS`, ``--cost``):

* ``task_clock``: cost(run) = app CPU in the run window (``gc_app_cpu_ns``);
  distilled(run) = cost - GC CPU (``gc_gc_cpu_ns``)
* ``wall``: cost(run) = the length of the run window W; distilled(run) =
  cost - the run's GC pause time in W (``gc_pause_total_ns``)
* ``cycles``: cost(run) = the app's CPU cycles in W, distilled(run) = cost -
  the GC's; counted (perf counters at context switches) when every run has
  them, else the estimate (CPU time × frequency) for every run, said in a
  ``cost_source`` note
* ``energy``: cost(run) = the power rails' energy over W (µJ), distilled(run)
  = cost - the GC's estimated share of the CPU rails; a run without rails
  covering W has no cost

Per device (and build, when a device ran several), per benchmark b, config
c and heap multiple x:

* an invocation's cost is the mean over its iterations (after dropping the
  first ``drop_warmup`` of each); n counts invocations
* baseline(b)       = min over (c, x) of the mean distilled cost of b
* LBO(b, c, x)      = mean cost / baseline(b)
* ci_pct            = 100 * t((1 + level) / 2, n-1) * s / sqrt(n) / mean
  cost, the half-width of the CI of the mean cost over invocations (s their
  sample standard deviation; level 90, 95 or 99%)

Summary rows (min, max, mean, geomean of LBO per config and x) cover every
benchmark, except those excluded by name and, with ``drop_flagged``, the
flagged ones; flags (chaotic, noisy, workload_varies, drift, heap) are listed
and never change a summary row by themselves. Runs are left out, each with
its reason, when their analysis failed, they have no cost, and -- unless
``include_unhealthy`` -- when their app died or reused a running process or
their verdict is ``fail``; with ``exclude_drifted``, runs held at another
frequency level than the study's (artscope.studies.checks).
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable

import polars as pl

from artscope.errors import UsageError
from artscope.studies.stats import CI_LEVELS, t_quantiles

#: Heap multiples closer than this are the same x (they come from text).
X_TOLERANCE = 1e-9
SUMMARY_STATS = ("min", "max", "mean", "geomean")
#: The keys of one LBO row: device (and build), benchmark, config, heap multiple.
GROUP = ("device", "benchmark", "config", "x")
#: ... and of one invocation.
INVOCATION = (*GROUP, "invocation")


@dataclasses.dataclass(frozen=True)
class CostMeasure:
    """One ``--cost``: the per-run column holding the cost and the one
    holding its GC part (both ns), and what a run without them lacks."""

    name: str
    column: str
    gc_column: str
    #: why a run has no cost, for the exclusion list
    missing: str
    #: what the cost is, for titles
    what: str
    #: adds derived columns the measure needs to a run frame
    derive: Callable[[pl.DataFrame], pl.DataFrame] | None = None


def _window_length(runs: pl.DataFrame) -> pl.DataFrame:
    if "window_ns" not in runs.columns and {"window_start_ts", "window_end_ts"} <= set(runs.columns):
        runs = runs.with_columns(window_ns=pl.col("window_end_ts") - pl.col("window_start_ts"))
    return runs


def _cycles_cost(runs: pl.DataFrame) -> pl.DataFrame:
    """cycles_cost / cycles_gc_cost: counted where every analysed run
    counted its cycles, else every run's estimate; cost_source says which."""
    ok = runs.filter(pl.col("error").is_null()) if "error" in runs.columns else runs
    counted = ("dvfs_cycles_source" in ok.columns and ok.height > 0
               and (ok["dvfs_cycles_source"] == "counters").all())
    app, gc = (("dvfs_cycles_app_cycles", "dvfs_cycles_gc_cycles") if counted
               else ("dvfs_app_cycles_estimate", "dvfs_gc_cycles_estimate"))
    col = (lambda c: pl.col(c).cast(pl.Float64, strict=False).round(0)
           if c in runs.columns else pl.lit(None, pl.Float64))
    return runs.with_columns(cycles_cost=col(app), cycles_gc_cost=col(gc),
                             cost_source=pl.lit("counted" if counted else "estimate"))


def _energy_cost(runs: pl.DataFrame) -> pl.DataFrame:
    """energy_cost_uj / energy_gc_cost_uj from the power rails (µJ)."""
    def uj(c: str) -> pl.Expr:
        if c not in runs.columns or "dvfs_energy_source" not in runs.columns:
            return pl.lit(None, pl.Float64)
        return (pl.when(pl.col("dvfs_energy_source") == "rails")
                .then((pl.col(c).cast(pl.Float64, strict=False) * 1e6).round(0)))
    return runs.with_columns(energy_cost_uj=uj("dvfs_energy_total_j"),
                             energy_gc_cost_uj=uj("dvfs_energy_gc_cpu_j"))


def cost_source_note(runs: pl.DataFrame) -> pl.DataFrame:
    """A note saying whether the cycles were counted or estimated (runs
    prepared for ``--cost cycles``; none for the other measures)."""
    from artscope.studies.checks import WARNING_SCHEMA

    if "cost_source" not in runs.columns or not runs.height:
        return pl.DataFrame(schema=WARNING_SCHEMA)
    detail = ("cycles counted by perf counters at every context switch, in every run"
              if runs["cost_source"][0] == "counted" else
              "cycles estimated as CPU time × frequency: not every run has perf counters "
              "sampled at context switches (capture config artscope-dvfs)")
    return pl.DataFrame([{"check": "cost_source", "severity": "info", "detail": detail}],
                        schema=WARNING_SCHEMA)


#: The cost measures, by ``--cost`` name. A new measure is one entry here.
COSTS: dict[str, CostMeasure] = {
    "task_clock": CostMeasure(
        "task_clock", "gc_app_cpu_ns", "gc_gc_cpu_ns",
        "no app or GC CPU time (the trace has no scheduling data)", "task clock"),
    "wall": CostMeasure(
        "wall", "window_ns", "gc_pause_total_ns",
        "no GC pause times (the trace has GC slices without ART's phase slices)",
        "wall clock", derive=_window_length),
    "cycles": CostMeasure(
        "cycles", "cycles_cost", "cycles_gc_cost",
        "no cycles (no sched data, or its frequency or counts unknown beyond the tolerance)",
        "CPU cycles", derive=_cycles_cost),
    "energy": CostMeasure(
        "energy", "energy_cost_uj", "energy_gc_cost_uj",
        "no energy over the window (no power rails, or their samples do not cover it)",
        "energy (µJ, power rails)", derive=_energy_cost),
}


@dataclasses.dataclass(frozen=True)
class StudyOptions:
    """Which runs and benchmarks a study counts, and how it measures cost."""

    #: the cost measure, a key of :data:`COSTS`
    cost: str = "task_clock"
    #: keep runs whose app died, that reused a process or whose verdict is fail
    include_unhealthy: bool = False
    #: leave runs held at another frequency level than the study's out
    exclude_drifted: bool = False
    #: leave every flagged benchmark out of the summary rows
    drop_flagged: bool = False
    #: benchmarks left out of the summary rows by name
    exclude_benchmarks: tuple[str, ...] = ()
    #: a benchmark is ``noisy`` when some (config, x) CI exceeds this (± %)
    noisy_ci_pct: float = 5.0
    #: the confidence level of every CI, percent
    ci_level: int = 95
    #: iterations dropped at the start of each invocation (warm-up)
    drop_warmup: int = 0

    def __post_init__(self) -> None:
        if self.cost not in COSTS:
            raise UsageError(f"unknown --cost {self.cost!r} (choose from {', '.join(COSTS)})")
        if not self.noisy_ci_pct > 0:
            raise UsageError("--noisy-ci must be a positive percentage")
        if self.ci_level not in CI_LEVELS:
            raise UsageError(f"--ci must be one of {', '.join(map(str, CI_LEVELS))}")
        if self.drop_warmup < 0:
            raise UsageError("--drop-warmup must be 0 or more")
        if isinstance(self.exclude_benchmarks, str):
            object.__setattr__(self, "exclude_benchmarks", (self.exclude_benchmarks,))

    @property
    def measure(self) -> CostMeasure:
        return COSTS[self.cost]


EXCLUDED_SCHEMA = {
    "trace": pl.String, "run": pl.Int64, "device": pl.String, "benchmark": pl.String,
    "config": pl.String, "x": pl.Float64, "invocation": pl.String, "iteration": pl.Int64,
    "reason": pl.String, "detail": pl.String}


def _reason_text(verdict: str | None, reasons_json: str | None) -> tuple[str, str]:
    """(ids of the failing checks, their messages) of one run's health."""
    try:
        reasons = json.loads(reasons_json) if reasons_json else []
    except (TypeError, ValueError):
        reasons = []
    bad = [r for r in reasons if isinstance(r, dict) and r.get("severity") == "fail"]
    ids = ", ".join(dict.fromkeys(r.get("id", "?") for r in bad)) or (verdict or "?")
    return ids, "; ".join(r.get("message", "") for r in bad)


def _typed(runs: pl.DataFrame, col: str, dtype: pl.DataType) -> pl.Expr:
    """``col`` as ``dtype``: saved CSV output reads an all-null column as
    text, and true/false as text where a column has no other value."""
    if runs.schema[col] == pl.String and dtype == pl.Boolean:
        return pl.col(col).str.to_lowercase().replace_strict(
            {"true": True, "false": False}, default=None, return_dtype=pl.Boolean)
    return pl.col(col).cast(dtype, strict=False)


def prepare_runs(runs: pl.DataFrame, opts: StudyOptions) -> pl.DataFrame:
    """The labelled runs with the columns a study reads: the cost measure's,
    ``device`` (and build), the validity and health columns (null when the
    input is older analyze output) and ``reused_process``."""
    from artscope.studies.checks import with_device

    m = opts.measure
    if m.derive is not None:
        runs = m.derive(runs)
    wanted = {"error": pl.String, "health_verdict": pl.String, "health_reasons": pl.String,
              m.column: pl.Int64, m.gc_column: pl.Int64, "validity_app_died": pl.Boolean,
              "validity_died_how": pl.String, "validity_died_detail": pl.String,
              "validity_cold_start": pl.Boolean, "validity_first_run_of_process": pl.Boolean,
              "validity_process_start_lead_ns": pl.Int64,
              "iteration": pl.Int64, "invocation": pl.String}
    runs = runs.with_columns(pl.lit(None, t).alias(c) if c not in runs.columns
                             else _typed(runs, c, t) for c, t in wanted.items())
    if "run" in runs.columns:
        runs = runs.with_columns(iteration=pl.col("iteration").fill_null(pl.col("run")),
                                 invocation=pl.col("invocation").fill_null(pl.col("trace")))
    return with_device(runs).with_columns(reused_process=REUSED_PROCESS)


#: The first run of an invocation whose process was already running: not a
#: cold start (later iterations run in their invocation's process by design).
REUSED_PROCESS = ((pl.col("validity_cold_start") == False)  # noqa: E712
                  & pl.col("validity_first_run_of_process").fill_null(True)
                  & (pl.col("iteration") == pl.col("iteration").min().over(INVOCATION))
                  ).fill_null(False)


def split_runs(runs: pl.DataFrame, opts: StudyOptions) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept runs, excluded runs with ``reason`` and ``detail``) of prepared runs."""
    from artscope.studies import checks

    m = opts.measure
    keep_unhealthy = pl.lit(opts.include_unhealthy)
    died = pl.col("validity_app_died").fill_null(False)
    rank = pl.col("iteration").rank("ordinal").over(INVOCATION) - 1
    why = (pl.when(pl.col("error").is_not_null()).then(pl.lit("error"))
           .when(pl.col(m.column).is_null() | pl.col(m.gc_column).is_null())
           .then(pl.lit("no_cost"))
           .when(died & ~keep_unhealthy).then(pl.lit("app_died"))
           .when(pl.col("reused_process") & ~keep_unhealthy).then(pl.lit("process_reused"))
           .when((pl.col("health_verdict") == "fail").fill_null(False) & ~keep_unhealthy)
           .then(pl.lit("unhealthy"))
           .when(rank < opts.drop_warmup).then(pl.lit("warmup"))
           .otherwise(None))
    marked = runs.with_columns(_why=why)
    if opts.exclude_drifted:
        drift = checks.condition_drift(runs).rename({"reason": "_drift", "detail": "_drift_detail"})
        marked = (marked.join(drift, on=["trace", "run"], how="left")
                  .with_columns(_why=pl.coalesce("_why", "_drift")))
    kept = marked.filter(pl.col("_why").is_null())
    ex = marked.filter(pl.col("_why").is_not_null())
    rows = []
    for r in ex.iter_rows(named=True):
        reason, detail = r["_why"], None
        if reason == "error":
            detail = r["error"]
        elif reason == "no_cost":
            detail = m.missing
        elif reason == "app_died":
            detail = r["validity_died_detail"]
        elif reason == "process_reused":
            lead = r["validity_process_start_lead_ns"]
            detail = ("the app's process was running before the trace began" if lead is None
                      else f"the app's process started {lead / 1e9:.1f} s before the window")
        elif reason == "unhealthy":
            ids, detail = _reason_text(r["health_verdict"], r["health_reasons"])
            reason = f"unhealthy: {ids}"
        elif reason == "warmup":
            detail = f"iteration {r['iteration']}, one of the first {opts.drop_warmup} of its invocation"
        else:
            detail = r["_drift_detail"]
        rows.append({k: r.get(k) for k in EXCLUDED_SCHEMA if k not in ("reason", "detail")}
                    | {"reason": reason, "detail": detail})
    excluded = pl.DataFrame(rows, schema=EXCLUDED_SCHEMA)
    return kept.drop("_why", "_drift", "_drift_detail", strict=False), excluded


def per_invocation(kept: pl.DataFrame, cost_col: str, gc_col: str) -> pl.DataFrame:
    """One row per invocation: the mean cost and GC part over its iterations."""
    dup = kept.filter(pl.struct(*INVOCATION, "iteration").is_duplicated())
    if dup.height:
        names = [f"{os.path.basename(t)} run {r}" for t, r in
                 dup.select("trace", "run").head(4).iter_rows()]
        raise UsageError(f"{dup.height} runs share a benchmark, config, x, invocation and "
                         f"iteration ({', '.join(names)}): label the invocations or the "
                         "iterations (--invocation-col / --iteration-col)")
    return (kept.group_by(*INVOCATION)
            .agg(iterations=pl.len().cast(pl.Int64),
                 cost=pl.col(cost_col).cast(pl.Float64).mean(),
                 gc=pl.col(gc_col).cast(pl.Float64).mean()))


def group_stats(invocations: pl.DataFrame, ci_level: int = 95) -> pl.DataFrame:
    """Per (device, benchmark, config, x) over invocations: n, iterations,
    mean/sd of cost, mean GC and distilled cost, baseline, LBO and the CI
    (``ci_half_ns``, ``ci_pct``, ``lbo_ci``)."""
    g = (invocations.group_by(*GROUP)
         .agg(n=pl.len().cast(pl.Int64), iterations=pl.col("iterations").sum(),
              cost_mean_ns=pl.col("cost").mean(), cost_sd_ns=pl.col("cost").std(),
              gc_mean_ns=pl.col("gc").mean(),
              distilled_mean_ns=(pl.col("cost") - pl.col("gc")).mean()))
    return (g.with_columns(ci_half_ns=t_quantiles(pl.col("n"), ci_level) * pl.col("cost_sd_ns")
                           / pl.col("n").cast(pl.Float64).sqrt())
            .with_columns(ci_pct=100 * pl.col("ci_half_ns") / pl.col("cost_mean_ns"),
                          baseline_ns=pl.col("distilled_mean_ns").min().over("device", "benchmark"))
            .with_columns(lbo=pl.col("cost_mean_ns") / pl.col("baseline_ns"))
            .with_columns(lbo_ci=pl.col("lbo") * pl.col("ci_pct") / 100)
            .sort(*GROUP, nulls_last=True))


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"


def _x(x: float | None) -> str:
    return "x=?" if x is None else f"{x:g}x"


def find_flags(stats: pl.DataFrame, noisy_ci_pct: float, ci_level: int = 95) -> pl.DataFrame:
    """chaotic and noisy: one row per flagged (device, benchmark, flag,
    config, x) with the numbers behind it."""
    lo = pl.col("cost_mean_ns") - pl.col("ci_half_ns")
    hi = pl.col("cost_mean_ns") + pl.col("ci_half_ns")
    with_ci = stats.filter(pl.col("ci_half_ns").is_not_null() & pl.col("x").is_not_null())
    small = with_ci.select("device", "benchmark", "config", x_small="x",
                           cost_small="cost_mean_ns", ci_small="ci_pct", hi_small=hi)
    large = with_ci.select("device", "benchmark", "config", "x", cost_large="cost_mean_ns",
                           ci_large="ci_pct", lo_large=lo)
    chaotic = (small.join(large, on=["device", "benchmark", "config"])
               .filter((pl.col("x") > pl.col("x_small") + X_TOLERANCE)
                       & (pl.col("lo_large") > pl.col("hi_small"))))
    rows = [{"device": r["device"], "benchmark": r["benchmark"], "flag": "chaotic",
             "config": r["config"], "x": r["x"],
             "detail": (f"{r['config']} at {r['x']:g}x costs {_ms(r['cost_large'])} "
                        f"±{r['ci_large']:.2f}%, more than at {r['x_small']:g}x "
                        f"({_ms(r['cost_small'])} ±{r['ci_small']:.2f}%; the {ci_level}% CIs "
                        "do not overlap)")}
            for r in chaotic.sort("device", "benchmark", "config", "x", "x_small")
            .iter_rows(named=True)]
    noisy = stats.filter(pl.col("ci_pct") > noisy_ci_pct)
    rows += [{"device": r["device"], "benchmark": r["benchmark"], "flag": "noisy",
              "config": r["config"], "x": r["x"],
              "detail": (f"{r['config']} at {_x(r['x'])}: {ci_level}% CI ±{r['ci_pct']:.2f}% "
                         f"of the mean over {r['n']} invocations exceeds ±{noisy_ci_pct:g}%")}
             for r in noisy.sort(*GROUP).iter_rows(named=True)]
    from artscope.studies.checks import FLAG_SCHEMA

    return pl.DataFrame(rows, schema=FLAG_SCHEMA)


def summary_rows(stats: pl.DataFrame) -> pl.DataFrame:
    """min/max/mean/geomean of LBO per (device, config, x) over the rows
    given, with ``covers``: the benchmarks summarised."""
    agg = (stats.group_by("device", "config", "x")
           .agg(n=pl.len(), min=pl.col("lbo").min(), max=pl.col("lbo").max(),
                mean=pl.col("lbo").mean(), geomean=pl.col("lbo").log().mean().exp(),
                covers=pl.col("benchmark").sort().str.join(", ")))
    long = agg.unpivot(index=["device", "config", "x", "n", "covers"], on=list(SUMMARY_STATS),
                       variable_name="benchmark", value_name="lbo")
    order = pl.col("benchmark").replace_strict({s: i for i, s in enumerate(SUMMARY_STATS)})
    return long.sort("device", "config", "x", order, nulls_last=True)


#: Columns of the LBO table, in order (docs/studies.md "Output").
TABLE_COLUMNS = ("kind", "device", "benchmark", "config", "x", "n", "iterations",
                 "cost_mean_ns", "cost_sd_ns", "gc_mean_ns", "distilled_mean_ns", "baseline_ns",
                 "lbo", "lbo_ci", "ci_pct", "ci_level", "flags", "in_summary", "covers")


def _empty_warnings() -> pl.DataFrame:
    from artscope.studies.checks import WARNING_SCHEMA

    return pl.DataFrame(schema=WARNING_SCHEMA)


@dataclasses.dataclass
class LboResult:
    """The LBO table plus what was flagged, left out and why."""

    #: one row per (device, benchmark, config, x) (``kind`` benchmark) then
    #: the summary rows (``kind`` summary, ``benchmark`` = min|max|mean|geomean,
    #: ``n`` = benchmarks summarised, ``covers`` = which); columns
    #: :data:`TABLE_COLUMNS`
    table: pl.DataFrame
    #: flagged benchmarks: device, benchmark, flag (chaotic | noisy |
    #: workload_varies | drift | heap), config, x, detail
    flags: pl.DataFrame
    #: runs left out: trace, run, labels, reason, detail
    excluded: pl.DataFrame
    options: StudyOptions
    #: study warnings and notes (artscope.studies.checks): check, severity,
    #: device, benchmark, config, x, trace, run, detail
    warnings: pl.DataFrame = dataclasses.field(default_factory=_empty_warnings)
    #: runs whose app died or reused a process, per (device, benchmark,
    #: config, x) (artscope.studies.checks.failures)
    failures: pl.DataFrame = dataclasses.field(default_factory=pl.DataFrame)
    #: each (device, benchmark, config)'s sweep over x against the study's
    #: span (artscope.studies.checks.sweeps)
    sweeps: pl.DataFrame = dataclasses.field(default_factory=pl.DataFrame)

    @property
    def devices(self) -> list[str]:
        return sorted(set(self.table["device"].drop_nulls().to_list()))

    def at(self, x: float) -> pl.DataFrame:
        """The Table-5 view at heap multiple ``x``: one row per device and
        benchmark (then the summary rows), LBO and ± CI % per config as
        columns (``<config>_lbo``, ``<config>_ci_pct``)."""
        rows = self.table.filter((pl.col("x") - x).abs() < X_TOLERANCE)
        if rows.is_empty():
            xs = sorted({v for v in self.table["x"].to_list() if v is not None})
            raise UsageError(f"no runs at x={x:g} (heap multiples in the study: "
                             f"{', '.join(f'{v:g}' for v in xs) or 'none'})")
        configs = list(dict.fromkeys(rows.sort("config")["config"].to_list()))
        keys = rows.select("kind", "device", "benchmark", "flags", "in_summary").unique(
            ["kind", "device", "benchmark"], maintain_order=True)
        covers = rows.filter(pl.col("kind") == "summary").group_by("device", "benchmark").agg(
            covers=pl.col("covers").unique().sort().str.join(" | "))
        wide = keys.join(covers, on=["device", "benchmark"], how="left")
        for c in configs:
            part = rows.filter(pl.col("config") == c).select(
                "kind", "device", "benchmark", pl.col("lbo").alias(f"{c}_lbo"),
                pl.col("ci_pct").alias(f"{c}_ci_pct"))
            wide = wide.join(part, on=["kind", "device", "benchmark"], how="left")
        return wide.select("kind", "device", "benchmark",
                           *[col for c in configs for col in (f"{c}_lbo", f"{c}_ci_pct")],
                           "flags", "in_summary", "covers")


def _check_excluded_names(stats: pl.DataFrame, names: tuple[str, ...]) -> None:
    known = set(stats["benchmark"].to_list())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"--exclude-benchmark {', '.join(map(repr, unknown))}: no such "
                         f"benchmark (the study has {', '.join(sorted(known))})")


def compute_lbo(runs: pl.DataFrame, opts: StudyOptions = StudyOptions()) -> LboResult:
    """LBO per (device, benchmark, config, x) from labelled runs (see module doc)."""
    if "benchmark" not in runs.columns:
        raise UsageError("the runs have no labels: give --meta or --name-pattern")
    runs = prepare_runs(runs, opts)
    return lbo_of(runs, *split_runs(runs, opts), opts)


def lbo_of(runs: pl.DataFrame, kept: pl.DataFrame, excluded: pl.DataFrame,
           opts: StudyOptions) -> LboResult:
    """:func:`compute_lbo` of prepared runs already split into kept and excluded."""
    from artscope.studies import checks

    if kept.is_empty():
        raise UsageError(f"no runs left to study ({excluded.height} excluded: "
                         + ", ".join(sorted(set(excluded["reason"].to_list()))) + ")")
    m = opts.measure
    stats = group_stats(per_invocation(kept, m.column, m.gc_column), opts.ci_level)
    _check_excluded_names(stats, opts.exclude_benchmarks)
    flags = pl.concat([find_flags(stats, opts.noisy_ci_pct, opts.ci_level),
                       checks.workload_varies(kept, opts.ci_level),
                       checks.drift_flags(runs), checks.heap_flags(runs)])
    per_bm = flags.group_by("device", "benchmark").agg(
        flags=pl.col("flag").unique().sort().str.join(","))
    stats = stats.join(per_bm, on=["device", "benchmark"], how="left")
    in_summary = ~pl.col("benchmark").is_in(list(opts.exclude_benchmarks))
    if opts.drop_flagged:
        in_summary = in_summary & pl.col("flags").is_null()
    stats = stats.with_columns(in_summary=in_summary, ci_level=pl.lit(opts.ci_level))
    summary = summary_rows(stats.filter(pl.col("in_summary"))).with_columns(
        kind=pl.lit("summary"), ci_level=pl.lit(opts.ci_level))
    table = pl.concat([stats.with_columns(kind=pl.lit("benchmark")), summary],
                      how="diagonal_relaxed")
    sweeps = checks.sweeps(kept)
    warnings = pl.concat([checks.mixed_devices(runs), checks.below_max(kept),
                          checks.cpus_below_max(kept), checks.sweep_warnings(sweeps),
                          cost_source_note(kept)])
    return LboResult(table=table.select(TABLE_COLUMNS), flags=flags, excluded=excluded,
                     options=opts, warnings=warnings, failures=checks.failures(runs),
                     sweeps=sweeps)


def excluded_lines(excluded: pl.DataFrame) -> list[str]:
    """One line per excluded run, for stderr and the text table; warm-up
    iterations dropped on request are one line in all."""
    warm = excluded.filter(pl.col("reason") == "warmup")
    out = [f"{os.path.basename(r['trace'])} run {r['run']}: {r['reason']}"
           + (f" — {r['detail']}" if r["detail"] else "")
           for r in excluded.filter(pl.col("reason") != "warmup").iter_rows(named=True)]
    if warm.height:
        out.append(f"{warm.height} warm-up iteration(s) dropped (--drop-warmup)")
    return out
