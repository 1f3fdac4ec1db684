"""Study checks: are a study's runs comparable, and did they do the same work?

A per-run health check cannot see these faults, which the ISMM'24 study of
ART's collectors had to correct in its errata:

* ``condition_drift`` -- runs that each held a level steady, but a different
  one from the study's. Per device (and build), the study-wide mode of each
  series' stable dominant level -- an allowed cluster's CPU frequency, a
  memory controller's -- is the study's level (ties go to the higher level).
  The benchmark is flagged ``drift``; ``exclude_drifted`` leaves the runs out.
  A level changing inside a run is its health check's (``cpufreq_unstable``,
  ``memfreq_unstable``).
* ``below_max`` (warning) -- runs whose memory controller held a level below
  the highest its trace shows (errata E.1: the memory controller at its
  maximum). CPUs are held *near*, not at, their maximum on purpose (§5.2,
  Table 3), so a CPU below its maximum is one note per device and level
  (``cpus_below_max``, severity info); what matters for CPUs is drift.
* ``mixed_devices`` / ``mixed_builds`` -- runs from more than one device,
  build fingerprint or kernel release: LBO, flags and summary rows are per
  device (and build), ``noise`` groups by device first.
* ``sweep_spread`` -- errata E.3.1 moved from "every benchmark at one heap
  multiple, then the next multiple" to "every multiple of one benchmark,
  then the next benchmark". Per (benchmark, config), its sweep over x (first
  to last start) against the span of that config's runs: back to back it
  takes about its share of the runs; a warning when it takes more than half
  way from that share to the whole span (the old order). Needs ``started_at``.
* ``heap_over_limit`` -- a run whose ``Heap size (KB)`` peak exceeds its heap
  label (``heap``: ``512M``, ``300m``, ``1g``, ``65536k``) by more than 5%:
  the limit was not applied. The benchmark is flagged ``heap``.
* ``workload_varies`` -- per (benchmark, config), the allocated KB, frame
  count or distilled cost trends with x: |Spearman rho| >= 0.8 over its runs
  and the means at its smallest and largest x differ beyond their CIs.
* failures -- per (benchmark, config, x), the runs whose app died (exited,
  was killed, threw OutOfMemoryError) or reused a running process: what a
  minimum-heap search reads (ISMM'24 Tables 4 and 6).

Inputs are the flat per-run columns (``cond_…``, ``heap_…``, ``validity_…``,
labels); a check whose columns are absent (older saved output) finds nothing.
"""

from __future__ import annotations

import os
import re

import polars as pl

from artscope.studies.stats import ci_half, rank_correlation

#: A heap label's peak may exceed it by this share (ART's accounting and the
#: counter's timing are not exact).
HEAP_LIMIT_SLACK = 0.05
#: |Spearman rho| at or above which a workload trends with x.
WORKLOAD_RHO = 0.8
#: (flat column, what it measures) of the work a benchmark does per run.
WORKLOAD_MEASURES = (("heap_allocated_kb", "allocated KB"), ("jank_frames", "frame count"),
                     ("gc_mutator_cpu_ns", "distilled cost (ns)"))
UNKNOWN_DEVICE = "unknown device"

LEVEL_SCHEMA = pl.List(pl.Struct({"cpus": pl.List(pl.Int64), "device": pl.String,
                                  "source": pl.String, "unit": pl.String,
                                  "dominant": pl.Float64, "stable": pl.Boolean,
                                  "highest": pl.Float64, "at_max": pl.Boolean}))
WARNING_SCHEMA = {"check": pl.String, "severity": pl.String, "device": pl.String,
                  "benchmark": pl.String, "config": pl.String, "x": pl.Float64,
                  "trace": pl.String, "run": pl.Int64, "detail": pl.String}
EXCLUSION_SCHEMA = {"trace": pl.String, "run": pl.Int64, "reason": pl.String,
                    "detail": pl.String}
LEVELS_SCHEMA = {"trace": pl.String, "run": pl.Int64, "device": pl.String, "series": pl.String,
                 "unit": pl.String, "dominant": pl.Float64, "stable": pl.Boolean,
                 "highest": pl.Float64, "at_max": pl.Boolean, "study_level": pl.Float64,
                 "drifted": pl.Boolean}
FLAG_SCHEMA = {"device": pl.String, "benchmark": pl.String, "flag": pl.String,
               "config": pl.String, "x": pl.Float64, "detail": pl.String}
SWEEP_SCHEMA = {"device": pl.String, "benchmark": pl.String, "config": pl.String,
                "runs": pl.Int64, "xs": pl.Int64, "sweep_s": pl.Float64, "span_s": pl.Float64,
                "sweep_share": pl.Float64, "runs_share": pl.Float64, "x_rho": pl.Float64,
                "spread": pl.Boolean}
FAILURE_SCHEMA = {"device": pl.String, "benchmark": pl.String, "config": pl.String,
                  "x": pl.Float64, "runs": pl.Int64, "failed": pl.Int64, "died": pl.Int64,
                  "out_of_memory_error": pl.Int64, "killed": pl.Int64, "memory_kill": pl.Int64,
                  "exited": pl.Int64, "reused": pl.Int64}


def _has(runs: pl.DataFrame, *cols: str) -> bool:
    return all(c in runs.columns for c in cols)


def _ok(runs: pl.DataFrame) -> pl.DataFrame:
    """Runs that were analysed (no ``error``)."""
    return runs.filter(pl.col("error").is_null()) if "error" in runs.columns else runs


def device_expr(runs: pl.DataFrame) -> pl.Expr:
    """The device a run ran on: the ``device`` label when given, else the
    build fingerprint's device, else 'unknown device'."""
    if "device" in runs.columns:
        return pl.col("device").cast(pl.String).fill_null(UNKNOWN_DEVICE)
    if "cond_device_model" in runs.columns:
        return pl.col("cond_device_model").fill_null(UNKNOWN_DEVICE)
    return pl.lit(UNKNOWN_DEVICE)


def _build(fingerprint: pl.Expr) -> pl.Expr:
    """'google/bluejay/bluejay:13/TQ1A.220812.001.A1/8949995:user/release-keys'
    -> '13/TQ1A.220812.001.A1/8949995'."""
    return pl.coalesce(fingerprint.str.extract(r"^[^:]*:([^:]+):", 1), fingerprint)


def with_device(runs: pl.DataFrame) -> pl.DataFrame:
    """``runs`` with ``device``: the device a run ran on (:func:`device_expr`),
    followed by its build when that device ran more than one; and
    ``device_build`` (the build, null when not recorded). The key a study
    keeps apart: LBO, flags, summary rows and levels are per device."""
    if "device_build" in runs.columns:
        return runs
    fp = (pl.col("cond_device_build_fingerprint") if "cond_device_build_fingerprint" in runs.columns
          else pl.lit(None, pl.String))
    out = runs.with_columns(device=device_expr(runs), device_build=_build(fp))
    several = pl.col("device_build").n_unique().over("device") > 1
    return out.with_columns(device=pl.when(several & pl.col("device_build").is_not_null())
                            .then(pl.format("{} (build {})", "device", "device_build"))
                            .otherwise(pl.col("device")))


def _level_text(v: float | None, unit: str | None) -> str:
    if v is None:
        return "?"
    n = int(v) if float(v).is_integer() else v
    return f"{n} {unit}" if unit else f"{n}"


def _name(trace: str, run: int) -> str:
    return f"{os.path.basename(trace)} run {run}"


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def _labels(runs: pl.DataFrame) -> pl.DataFrame:
    """trace, run and the label columns a warning or flag names."""
    return runs.select("trace", "run", *[c for c in ("benchmark", "config", "x")
                                         if c in runs.columns])


# -- levels ----------------------------------------------------------------------

def run_levels(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per run and level series (allowed cluster "cpus 6,7", memory
    controller "memory <device> (<source>)"), with the study's level of that
    series on that device and whether the run drifted from it
    (columns :data:`LEVELS_SCHEMA`)."""
    ok = _ok(runs)
    if ok.is_empty() or not any(c in ok.columns for c in ("cond_clusters", "cond_memory")):
        return _empty(LEVELS_SCHEMA)
    base = with_device(ok).select(
        "trace", "run", pl.col("device").alias("_run_device"),
        *[c for c in ("cond_clusters", "cond_memory") if c in ok.columns])
    parts = []
    for col, kind in (("cond_clusters", "cpu"), ("cond_memory", "memory")):
        if col not in base.columns:
            continue
        long = (base.select("trace", "run", "_run_device",
                            lv=pl.col(col).cast(pl.String).str.json_decode(LEVEL_SCHEMA))
                .explode("lv").drop_nulls("lv").unnest("lv"))
        if long.is_empty():
            continue
        series = (pl.lit("cpus ") + pl.col("cpus").cast(pl.List(pl.String)).list.join(",")
                  if kind == "cpu" else
                  pl.format("memory {} ({})", pl.col("device"), pl.col("source")))
        parts.append(long.select("trace", "run", pl.col("_run_device").alias("device"),
                                 series.alias("series"), "unit",
                                 "dominant", "stable", "highest", "at_max"))
    if not parts:
        return _empty(LEVELS_SCHEMA)
    lv = pl.concat(parts)
    # the study's level: the mode of stable dominant levels per device and
    # series, ties to the higher level
    mode = (lv.filter(pl.col("stable").fill_null(False) & pl.col("dominant").is_not_null())
            .group_by("device", "series", "dominant").agg(n=pl.len())
            .sort(["n", "dominant"], descending=True)
            .group_by("device", "series", maintain_order=True).first()
            .select("device", "series", study_level="dominant"))
    lv = lv.join(mode, on=["device", "series"], how="left")
    drifted = (pl.col("stable").fill_null(False) & pl.col("study_level").is_not_null()
               & (pl.col("dominant") != pl.col("study_level")))
    return lv.with_columns(drifted=drifted).sort("device", "series", "trace", "run")


def condition_drift(runs: pl.DataFrame) -> pl.DataFrame:
    """Runs that held a stable level other than the study's on their
    device: trace, run, reason 'condition_drift', detail."""
    lv = run_levels(runs).filter(pl.col("drifted"))
    if lv.is_empty():
        return _empty(EXCLUSION_SCHEMA)
    rows = []
    for (trace, run), g in lv.group_by("trace", "run", maintain_order=True):
        parts = [f"on {r['device']}, {r['series']} held {_level_text(r['dominant'], r['unit'])}; "
                 f"the study's level there is {_level_text(r['study_level'], r['unit'])}"
                 for r in g.iter_rows(named=True)]
        rows.append({"trace": trace, "run": run, "reason": "condition_drift",
                     "detail": "; ".join(parts)})
    return pl.DataFrame(rows, schema=EXCLUSION_SCHEMA)


def drift_flags(runs: pl.DataFrame) -> pl.DataFrame:
    """Flags ``drift``: per device and benchmark, how many of its runs held
    a series at another level than the study's, and which levels."""
    lv = run_levels(runs)
    if lv.is_empty() or not lv["drifted"].any() or "benchmark" not in runs.columns:
        return _empty(FLAG_SCHEMA)
    lv = lv.join(_labels(runs), on=["trace", "run"], how="left")
    per_bm = _ok(with_device(runs)).group_by("device", "benchmark").agg(n=pl.len())
    rows = []
    drifted = lv.filter(pl.col("drifted")).join(per_bm, on=["device", "benchmark"], how="left")
    for (device, bm), g in drifted.group_by("device", "benchmark", maintain_order=True):
        levels = (g.group_by("series", "dominant", "study_level", "unit", maintain_order=True)
                  .agg(k=pl.len()))
        said = "; ".join(
            f"{r['k']} held {r['series']} at {_level_text(r['dominant'], r['unit'])} instead "
            f"of the study's {_level_text(r['study_level'], r['unit'])}"
            for r in levels.iter_rows(named=True))
        k = g.select("trace", "run").unique().height
        rows.append({"device": device, "benchmark": bm, "flag": "drift",
                     "detail": (f"{k} of {g['n'][0]} runs on {device} drifted: {said} "
                                "(--exclude-drifted leaves them out)")})
    return pl.DataFrame(rows, schema=FLAG_SCHEMA)


def below_max(runs: pl.DataFrame) -> pl.DataFrame:
    """Warnings: runs whose memory controller held a stable level below the
    highest level their trace shows for it (errata E.1)."""
    lv = run_levels(runs).filter(pl.col("stable").fill_null(False)
                                 & (pl.col("at_max") == False)  # noqa: E712
                                 & pl.col("series").str.starts_with("memory "))
    lv = lv.join(_labels(runs), on=["trace", "run"], how="left")
    rows = [{"check": "below_max", "severity": "warn", "device": r["device"],
             **{c: r.get(c) for c in ("benchmark", "config", "x")},
             "trace": r["trace"], "run": r["run"],
             "detail": (f"{_name(r['trace'], r['run'])} on {r['device']}: {r['series']} "
                        f"held {_level_text(r['dominant'], r['unit'])}, below the highest "
                        f"its trace shows ({_level_text(r['highest'], r['unit'])}); the "
                        "memory controller belongs at its maximum (ISMM'24 errata E.1)")}
            for r in lv.iter_rows(named=True)]
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


def cpus_below_max(runs: pl.DataFrame) -> pl.DataFrame:
    """Notes (severity info), one per device, CPU cluster and level: runs
    that held their CPUs steadily below the highest level the trace shows."""
    lv = run_levels(runs).filter(pl.col("stable").fill_null(False)
                                 & (pl.col("at_max") == False)  # noqa: E712
                                 & pl.col("series").str.starts_with("cpus "))
    total = lv.group_by("device", "series").agg(total=pl.len())
    g = (lv.group_by("device", "series", "dominant", "unit").agg(k=pl.len(),
                                                                 highest=pl.col("highest").max())
         .join(total, on=["device", "series"]).sort("device", "series", "dominant"))
    rows = [{"check": "cpus_below_max", "severity": "info", "device": r["device"],
             "detail": (f"on {r['device']}, {r['series']} held "
                        f"{_level_text(r['dominant'], r['unit'])} in {r['k']} of {r['total']} "
                        f"runs, below the highest their traces show "
                        f"({_level_text(r['highest'], r['unit'])}): the ISMM'24 protocol holds "
                        "CPUs near, not at, their maximum to avoid throttling (§5.2); what "
                        "matters is that every run held the same level (condition_drift)")}
            for r in g.iter_rows(named=True)]
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


# -- devices and builds -------------------------------------------------------------

def mixed_devices(runs: pl.DataFrame) -> pl.DataFrame:
    """Warnings ``mixed_devices`` / ``mixed_builds`` when the runs come from
    more than one device, build fingerprint or kernel release."""
    ok = _ok(runs)
    rows = []
    checks = [("mixed_devices", "devices", device_expr(ok))]
    if "cond_device_build_fingerprint" in ok.columns:
        checks.append(("mixed_builds", "builds", pl.col("cond_device_build_fingerprint")))
    if "cond_device_kernel_release" in ok.columns:
        checks.append(("mixed_builds", "kernel releases", pl.col("cond_device_kernel_release")))
    for check, what, expr in checks:
        counts = (ok.select(v=expr).drop_nulls().group_by("v").agg(n=pl.len()).sort("v"))
        if counts.height > 1:
            listed = ", ".join(f"{v} ({n} runs)" for v, n in counts.iter_rows())
            rows.append({"check": check, "severity": "warn", "detail": (
                f"runs from {counts.height} {what}: {listed}; LBO, flags, summary rows and "
                "levels are per device (and build), and noise groups runs by device first")})
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


def n_devices(runs: pl.DataFrame) -> int:
    ok = _ok(runs)
    return with_device(ok)["device"].n_unique() if ok.height else 0


# -- run order -----------------------------------------------------------------------

def sweeps(runs: pl.DataFrame) -> pl.DataFrame:
    """Per device, benchmark and config (with two or more heap multiples):
    its sweep over x -- first to last start -- against the span of its
    config's runs on that device, its share of those runs, and the rank
    correlation of start time with x inside it (columns :data:`SWEEP_SCHEMA`)."""
    if not _has(runs, "benchmark", "config", "x", "cond_started_at_unix_ns"):
        return _empty(SWEEP_SCHEMA)
    ok = (with_device(_ok(runs))
          .with_columns(_t=pl.col("cond_started_at_unix_ns").cast(pl.Int64, strict=False))
          .filter(pl.col("x").is_not_null() & pl.col("_t").is_not_null()))
    if ok.is_empty():
        return _empty(SWEEP_SCHEMA)
    span = ok.group_by("device", "config").agg(
        span_s=(pl.col("_t").max() - pl.col("_t").min()) / 1e9, config_runs=pl.len())
    g = (ok.group_by("device", "benchmark", "config")
         .agg(runs=pl.len(), xs=pl.col("x").n_unique(),
              sweep_s=(pl.col("_t").max() - pl.col("_t").min()) / 1e9,
              x_rho=pl.corr("_t", "x", method="spearman"))
         .filter(pl.col("xs") >= 2)
         .join(span, on=["device", "config"])
         .with_columns(sweep_share=pl.when(pl.col("span_s") > 0)
                       .then(pl.col("sweep_s") / pl.col("span_s")),
                       runs_share=pl.col("runs") / pl.col("config_runs"),
                       x_rho=pl.col("x_rho").fill_nan(None)))
    # back to back, a sweep takes about its share of the config's runs; in
    # the old order (x outermost) nearly the whole span
    spread = pl.col("sweep_share") > (pl.col("runs_share") + 1) / 2
    return (g.with_columns(spread=spread.fill_null(False))
            .select(list(SWEEP_SCHEMA)).cast(SWEEP_SCHEMA)
            .sort("device", "config", "benchmark"))


def sweep_warnings(sweep: pl.DataFrame) -> pl.DataFrame:
    """Warnings ``sweep_spread`` for the sweeps spread over their config's span."""
    rows = [{"check": "sweep_spread", "severity": "warn", "device": r["device"],
             "benchmark": r["benchmark"], "config": r["config"],
             "detail": (f"{r['benchmark']} / {r['config']} on {r['device']}: its sweep over "
                        f"{r['xs']} heap multiples took {r['sweep_s']:,.0f} s, "
                        f"{100 * r['sweep_share']:.0f}% of the {r['span_s']:,.0f} s its config's "
                        f"runs span, for {100 * r['runs_share']:.0f}% of the runs: other "
                        "benchmarks ran in between, so drift over the study is confounded "
                        "with x — run every heap multiple of one benchmark before the next "
                        "benchmark (ISMM'24 errata E.3.1)")}
            for r in sweep.filter(pl.col("spread")).iter_rows(named=True)]
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


# -- heap --------------------------------------------------------------------------

_HEAP_LABEL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*$")
_KB_PER = {"": 1 / 1024, "k": 1, "m": 1024, "g": 1024 * 1024}


def heap_label_kb(label: str | None) -> float | None:
    """'512M' -> 524288.0 KB (ART's -Xmx style: k/m/g suffix, bare = bytes);
    None when the label is not a size."""
    if label is None:
        return None
    m = _HEAP_LABEL.match(str(label))
    if not m:
        return None
    return float(m.group(1)) * _KB_PER[m.group(2).lower()]


def heap_over_limit(runs: pl.DataFrame) -> pl.DataFrame:
    """Runs whose heap peak exceeds their ``heap`` label by more than 5%."""
    if not _has(runs, "heap", "heap_peak_kb"):
        return _empty(EXCLUSION_SCHEMA)
    labels = runs["heap"].cast(pl.String).unique().drop_nulls().to_list()
    kb = pl.DataFrame({"heap": labels, "_limit": [heap_label_kb(v) for v in labels]},
                      schema={"heap": pl.String, "_limit": pl.Float64})
    # saved CSV output reads an all-null column as text
    over = (_ok(runs).with_columns(pl.col("heap").cast(pl.String),
                                   heap_peak_kb=pl.col("heap_peak_kb").cast(pl.Float64, strict=False))
            .join(kb, on="heap", how="inner")
            .filter(pl.col("_limit").is_not_null() & pl.col("heap_peak_kb").is_not_null()
                    & (pl.col("heap_peak_kb") > pl.col("_limit") * (1 + HEAP_LIMIT_SLACK))))
    rows = [{"trace": r["trace"], "run": r["run"], "reason": "heap_over_limit",
             "detail": (f"the heap peaked at {r['heap_peak_kb']:,.0f} KB, "
                        f"{100 * (r['heap_peak_kb'] / r['_limit'] - 1):.1f}% above its "
                        f"{r['heap']} label ({r['_limit']:,.0f} KB): the limit was not applied")}
            for r in over.iter_rows(named=True)]
    return pl.DataFrame(rows, schema=EXCLUSION_SCHEMA)


def heap_flags(runs: pl.DataFrame) -> pl.DataFrame:
    """Flags ``heap``: per device and benchmark, its runs whose heap peaked
    above their heap label."""
    over = heap_over_limit(runs)
    if over.is_empty() or "benchmark" not in runs.columns:
        return _empty(FLAG_SCHEMA)
    over = over.join(with_device(runs).select("trace", "run", "device", "benchmark", "config",
                                              "x"), on=["trace", "run"], how="left")
    rows = []
    for (device, bm), g in over.group_by("device", "benchmark", maintain_order=True):
        first = g.row(0, named=True)
        more = f" and {g.height - 1} more" if g.height > 1 else ""
        rows.append({"device": device, "benchmark": bm, "flag": "heap",
                     "detail": (f"{g.height} run(s) ignored their heap limit: "
                                f"{_name(first['trace'], first['run'])} ({first['config']} at "
                                f"{first['x']:g}x): {first['detail']}{more}")})
    return pl.DataFrame(rows, schema=FLAG_SCHEMA)


# -- work ---------------------------------------------------------------------------

def workload_varies(kept: pl.DataFrame, ci_level: int = 95) -> pl.DataFrame:
    """Flags (device, benchmark, flag 'workload_varies', config, x = the
    largest x, detail) for each (benchmark, config) whose work trends with x."""
    if not _has(kept, "benchmark", "config", "x"):
        return _empty(FLAG_SCHEMA)
    rows = []
    data = with_device(kept).filter(pl.col("x").is_not_null())
    measures = [(c, w) for c, w in WORKLOAD_MEASURES if c in data.columns]
    for (device, bm, cfg), g in data.group_by("device", "benchmark", "config",
                                              maintain_order=True):
        if g["x"].n_unique() < 2:
            continue
        for col, what in measures:
            have = g.with_columns(pl.col(col).cast(pl.Float64, strict=False)).filter(
                pl.col(col).is_not_null())
            if have["x"].n_unique() < 2 or have[col].n_unique() < 2:
                continue
            xs = have["x"].to_list()
            vals = [float(v) for v in have[col].to_list()]
            rho = rank_correlation(xs, vals)
            if rho is None or not abs(rho) >= WORKLOAD_RHO:
                continue
            lo_x, hi_x = min(xs), max(xs)
            lo = [v for x, v in zip(xs, vals) if x == lo_x]
            hi = [v for x, v in zip(xs, vals) if x == hi_x]
            lo_ci, hi_ci = ci_half(lo, ci_level), ci_half(hi, ci_level)
            if lo_ci is None or hi_ci is None:
                continue
            lo_m, hi_m = sum(lo) / len(lo), sum(hi) / len(hi)
            if abs(hi_m - lo_m) <= lo_ci + hi_ci:
                continue
            rows.append({"device": device, "benchmark": bm, "flag": "workload_varies",
                         "config": cfg, "x": hi_x,
                         "detail": (f"{cfg}: {what} trends with x (Spearman rho {rho:+.2f}): "
                                    f"mean {lo_m:,.6g} ±{lo_ci:,.3g} at {lo_x:g}x, {hi_m:,.6g} "
                                    f"±{hi_ci:,.3g} at {hi_x:g}x; the benchmark did different "
                                    "work at different heap sizes, so its LBO is not comparable")})
    return pl.DataFrame(rows, schema=FLAG_SCHEMA).sort("device", "benchmark", "config")


# -- failures ------------------------------------------------------------------------

def failures(runs: pl.DataFrame) -> pl.DataFrame:
    """Per device, benchmark, config and x of prepared runs
    (artscope.studies.lbo.prepare_runs): the runs, and how many failed --
    the app died (by OutOfMemoryError, a kill, lmkd or the OOM killer, an
    exit) or the run reused a running process. A minimum-heap search reads
    this (columns :data:`FAILURE_SCHEMA`)."""
    how = pl.col("validity_died_how")
    died = pl.col("validity_app_died").fill_null(False)
    out = (runs.with_columns(_died=died)
           .group_by("device", "benchmark", "config", "x")
           .agg(runs=pl.len(), failed=(pl.col("_died") | pl.col("reused_process")).sum(),
                died=pl.col("_died").sum(),
                out_of_memory_error=(how == "out_of_memory_error").sum(),
                killed=(how == "killed").sum(),
                memory_kill=how.is_in(["lmk_kill", "oom_kill"]).sum(),
                exited=(how == "exit").sum(), reused=pl.col("reused_process").sum()))
    return out.cast(FAILURE_SCHEMA).select(list(FAILURE_SCHEMA)).sort(
        "device", "benchmark", "config", "x", nulls_last=True)


# -- all warnings ------------------------------------------------------------------------

def study_warnings(runs: pl.DataFrame) -> pl.DataFrame:
    """Every study-level warning and note over ``runs`` (columns
    :data:`WARNING_SCHEMA`): mixed devices/builds, memory controllers below
    their maximum, CPUs below theirs, sweeps spread over the study."""
    return pl.concat([mixed_devices(runs), below_max(runs), cpus_below_max(runs),
                      sweep_warnings(sweeps(runs))])


def warning_lines(warnings: pl.DataFrame) -> list[str]:
    """'warning: <check>: <detail>' (severity warn) / 'note: ...' (info)."""
    return [f"{'note' if r['severity'] == 'info' else 'warning'}: {r['check']}: {r['detail']}"
            for r in warnings.iter_rows(named=True)]


def conditions_table(runs: pl.DataFrame) -> pl.DataFrame:
    """The study page's conditions table: one row per run and level series
    (device, trace, run, series, level, unit, study level, at max, drifted)."""
    lv = run_levels(runs)
    return lv.select("device", pl.col("trace").str.split("/").list.last(), "run", "series",
                     pl.col("dominant").alias("level"), "unit", "study_level", "stable",
                     "at_max", "drifted")
