"""Study checks: are a study's runs comparable, and did they do the same work?

A per-run health check cannot see these faults, which the ISMM'24 study of
ART's collectors had to correct in its errata:

* ``condition_drift`` -- runs that each held their memory controller (or an
  allowed cluster) steady, but at different levels from one another. Per
  device, the study-wide mode of each series' stable dominant level is the
  study's level (ties go to the higher level); a run that held a stable
  level other than it is excluded from the LBO with a reason naming the
  device, its level and the study's (``include_drifted`` keeps it). A run
  whose level changed inside it is judged by its health check instead
  (``memfreq_unstable`` / ``cpufreq_unstable``).
* ``below_max`` -- runs held steadily below the highest level their trace
  shows for that series (available or reached): listed as a warning.
* ``mixed_devices`` / ``mixed_builds`` -- runs from more than one device, or
  more than one build (fingerprint or kernel release): flagged; levels are
  compared per device and ``noise`` groups by device first.
* ``not_interleaved`` -- a (benchmark, config) with two or more heap
  multiples whose runs at different x do not overlap in time (each x's span
  of start times is disjoint from every other x's), so drift over time
  confounds the heap-size curve. Needs ``started_at`` (REALTIME snapshots).
* ``heap_over_limit`` -- a run whose heap label (``heap`` column: ``512M``,
  ``300m``, ``1g``, ``65536k``) is exceeded by its ``Heap size (KB)`` peak by
  more than 5%: the limit was not applied; excluded.
* ``workload_varies`` -- per (benchmark, config), the allocated KB, frame
  count or distilled cost trends with x: |Spearman rho| >= 0.8 over its runs
  and the means at its smallest and largest x differ beyond their 95% CIs.
  The benchmark is flagged like ``chaotic``.

Inputs are the flat per-run columns (``cond_…``, ``heap_…``, labels); a
check whose columns are absent (older saved output) finds nothing.
"""

from __future__ import annotations

import math
import os
import re

import polars as pl

#: A heap label's peak may exceed it by this share before the run is
#: excluded (ART's accounting and the counter's timing are not exact).
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
WARNING_SCHEMA = {"check": pl.String, "benchmark": pl.String, "config": pl.String,
                  "x": pl.Float64, "trace": pl.String, "run": pl.Int64, "detail": pl.String}
EXCLUSION_SCHEMA = {"trace": pl.String, "run": pl.Int64, "reason": pl.String,
                    "detail": pl.String}
LEVELS_SCHEMA = {"trace": pl.String, "run": pl.Int64, "device": pl.String, "series": pl.String,
                 "unit": pl.String, "dominant": pl.Float64, "stable": pl.Boolean,
                 "highest": pl.Float64, "at_max": pl.Boolean, "study_level": pl.Float64,
                 "drifted": pl.Boolean}


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


def _level_text(v: float | None, unit: str | None) -> str:
    if v is None:
        return "?"
    n = int(v) if float(v).is_integer() else v
    return f"{n} {unit}" if unit else f"{n}"


def _name(trace: str, run: int) -> str:
    return f"{os.path.basename(trace)} run {run}"


def _empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


# -- levels ----------------------------------------------------------------------

def run_levels(runs: pl.DataFrame) -> pl.DataFrame:
    """One row per run and level series (allowed cluster "cpus 6,7", memory
    controller "memory <device> (<source>)"), with the study's level of that
    series on that device and whether the run drifted from it
    (columns :data:`LEVELS_SCHEMA`)."""
    ok = _ok(runs)
    if ok.is_empty() or not any(c in ok.columns for c in ("cond_clusters", "cond_memory")):
        return _empty(LEVELS_SCHEMA)
    base = ok.select("trace", "run", device_expr(ok).alias("_run_device"),
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


def below_max(runs: pl.DataFrame) -> pl.DataFrame:
    """Warnings: runs whose stable level is below the highest level their
    trace shows for that series."""
    lv = run_levels(runs).filter(pl.col("stable").fill_null(False)
                                 & (pl.col("at_max") == False))  # noqa: E712
    labels = _labels(runs)
    rows = []
    for r in lv.iter_rows(named=True):
        rows.append({"check": "below_max", **labels.get((r["trace"], r["run"]), {}),
                     "trace": r["trace"], "run": r["run"],
                     "detail": (f"{_name(r['trace'], r['run'])} on {r['device']}: {r['series']} "
                                f"held {_level_text(r['dominant'], r['unit'])}, below the highest "
                                f"its trace shows ({_level_text(r['highest'], r['unit'])})")})
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


def _labels(runs: pl.DataFrame) -> dict[tuple[str, int], dict]:
    cols = [c for c in ("benchmark", "config", "x") if c in runs.columns]
    if not cols:
        return {}
    return {(r["trace"], r["run"]): {c: r[c] for c in cols}
            for r in runs.select("trace", "run", *cols).iter_rows(named=True)}


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
            rows.append({"check": check, "detail": (
                f"runs from {counts.height} {what}: {listed}; levels are compared per device "
                "and noise groups runs by device first")})
    return pl.DataFrame(rows, schema=WARNING_SCHEMA)


def n_devices(runs: pl.DataFrame) -> int:
    ok = _ok(runs)
    return ok.select(device_expr(ok)).n_unique() if ok.height else 0


# -- run order -----------------------------------------------------------------------

def not_interleaved(runs: pl.DataFrame) -> pl.DataFrame:
    """Warnings per (benchmark, config) with two or more heap multiples whose
    runs at different x do not overlap in time (every x's span of start
    times is disjoint from the others'; each x needs two runs with a start
    time)."""
    if not _has(runs, "benchmark", "config", "x", "cond_started_at_unix_ns"):
        return _empty(WARNING_SCHEMA)
    ok = (_ok(runs).with_columns(pl.col("cond_started_at_unix_ns").cast(pl.Int64, strict=False))
          .filter(pl.col("x").is_not_null() & pl.col("cond_started_at_unix_ns").is_not_null()))
    spans = (ok.group_by("benchmark", "config", "x")
             .agg(n=pl.len(), first=pl.col("cond_started_at_unix_ns").min(),
                  last=pl.col("cond_started_at_unix_ns").max())
             .filter(pl.col("n") >= 2).sort("benchmark", "config", "first"))
    rows = []
    for (bm, cfg), g in spans.group_by("benchmark", "config", maintain_order=True):
        if g.height < 2:
            continue
        firsts, lasts = g["first"].to_list(), g["last"].to_list()
        # sorted by first start: disjoint when each span ends before the next begins
        if all(lasts[i] < firsts[i + 1] for i in range(g.height - 1)):
            order = ", then ".join(f"{x:g}x" for x in g["x"].to_list())
            rows.append({"check": "not_interleaved", "benchmark": bm, "config": cfg,
                         "detail": (f"{bm} / {cfg}: the runs were recorded one heap multiple "
                                    f"after another ({order}), never interleaved, so drift over "
                                    "time is confounded with x")})
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
    limit = pl.col("heap").cast(pl.String).map_elements(heap_label_kb, return_dtype=pl.Float64)
    # saved CSV output reads an all-null column as text
    over = (_ok(runs).with_columns(_limit=limit,
                                   heap_peak_kb=pl.col("heap_peak_kb").cast(pl.Float64, strict=False))
            .filter(pl.col("_limit").is_not_null() & pl.col("heap_peak_kb").is_not_null()
                    & (pl.col("heap_peak_kb") > pl.col("_limit") * (1 + HEAP_LIMIT_SLACK))))
    rows = [{"trace": r["trace"], "run": r["run"], "reason": "heap_over_limit",
             "detail": (f"the heap peaked at {r['heap_peak_kb']:,.0f} KB, "
                        f"{100 * (r['heap_peak_kb'] / r['_limit'] - 1):.1f}% above its "
                        f"{r['heap']} label ({r['_limit']:,.0f} KB): the limit was not applied")}
            for r in over.iter_rows(named=True)]
    return pl.DataFrame(rows, schema=EXCLUSION_SCHEMA)


# -- work ---------------------------------------------------------------------------

def _ci_half(values: list[float]) -> float | None:
    from artscope.studies.stats import t_quantile

    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return t_quantile(n) * sd / math.sqrt(n)  # type: ignore[operator]


def workload_varies(kept: pl.DataFrame) -> pl.DataFrame:
    """Flags (benchmark, flag 'workload_varies', config, x = the largest x,
    detail) for each (benchmark, config) whose work trends with x."""
    from scipy.stats import spearmanr

    schema = {"benchmark": pl.String, "flag": pl.String, "config": pl.String,
              "x": pl.Float64, "detail": pl.String}
    if not _has(kept, "benchmark", "config", "x"):
        return pl.DataFrame(schema=schema)
    rows = []
    data = kept.filter(pl.col("x").is_not_null())
    for (bm, cfg), g in data.group_by("benchmark", "config", maintain_order=True):
        if g["x"].n_unique() < 2:
            continue
        for col, what in WORKLOAD_MEASURES:
            if col not in g.columns:
                continue
            have = g.with_columns(pl.col(col).cast(pl.Float64, strict=False)).filter(
                pl.col(col).is_not_null())
            if have["x"].n_unique() < 2 or have[col].n_unique() < 2:
                continue
            xs = have["x"].to_list()
            vals = [float(v) for v in have[col].to_list()]
            rho = float(spearmanr(xs, vals).statistic)
            if not abs(rho) >= WORKLOAD_RHO:
                continue
            lo_x, hi_x = min(xs), max(xs)
            lo = [v for x, v in zip(xs, vals) if x == lo_x]
            hi = [v for x, v in zip(xs, vals) if x == hi_x]
            lo_ci, hi_ci = _ci_half(lo), _ci_half(hi)
            if lo_ci is None or hi_ci is None:
                continue
            lo_m, hi_m = sum(lo) / len(lo), sum(hi) / len(hi)
            if abs(hi_m - lo_m) <= lo_ci + hi_ci:
                continue
            rows.append({"benchmark": bm, "flag": "workload_varies", "config": cfg, "x": hi_x,
                         "detail": (f"{cfg}: {what} trends with x (Spearman rho {rho:+.2f}): "
                                    f"mean {lo_m:,.6g} ±{lo_ci:,.3g} at {lo_x:g}x, {hi_m:,.6g} "
                                    f"±{hi_ci:,.3g} at {hi_x:g}x; the benchmark did different "
                                    "work at different heap sizes, so its LBO is not comparable")})
    return pl.DataFrame(rows, schema=schema).sort("benchmark", "config")


# -- all warnings ------------------------------------------------------------------------

def study_warnings(runs: pl.DataFrame) -> pl.DataFrame:
    """Every study-level warning over ``runs`` (columns :data:`WARNING_SCHEMA`):
    mixed devices/builds, runs below the maximum, x-by-x recording."""
    return pl.concat([mixed_devices(runs), below_max(runs), not_interleaved(runs)])


def warning_lines(warnings: pl.DataFrame) -> list[str]:
    return [f"{r['check']}: {r['detail']}" for r in warnings.iter_rows(named=True)]


def conditions_table(runs: pl.DataFrame) -> pl.DataFrame:
    """The study page's conditions table: one row per run and level series
    (device, trace, run, series, level, unit, study level, at max, drifted)."""
    lv = run_levels(runs)
    return lv.select("device", pl.col("trace").str.split("/").list.last(), "run", "series",
                     pl.col("dominant").alias("level"), "unit", "study_level", "stable",
                     "at_max", "drifted")
