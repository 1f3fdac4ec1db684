"""Responsiveness across invocations: frame durations and janky frames per
(device, benchmark, config, x), as the ISMM'24 study reports them (Fig. 3:
frame-duration percentiles per collector with their spread over
invocations; Fig. 4: janky frames against heap size with CIs).

Each run carries its own frame-duration percentiles (``jank_frame_dur_ms_p50``
… ``_p99``, nearest rank), janky share and frame counts, not its frames, so
invocations are combined by their percentiles: an invocation's value is the
mean over its iterations, a group's ``p<N>_ms`` the mean of its invocations'
(each invocation counts once, as for LBO) with their minimum, maximum and
standard deviation -- the spread. ``janky_pct`` is the mean of the
invocations' janky shares with its CI half-width (``janky_pct_ci``,
percentage points, at the study's level); ``janky_pct_pooled`` is the janky
frames of all invocations over all their frames. Runs without frames are
left out; the runs are the LBO's (the same exclusions).
"""

from __future__ import annotations

import polars as pl

from artscope.studies.stats import t_quantiles

PERCENTILES = (50, 90, 95, 99)
KEYS = ("device", "benchmark", "config", "x")


def _col(runs: pl.DataFrame, name: str) -> pl.Expr:
    return (pl.col(name).cast(pl.Float64, strict=False) if name in runs.columns
            else pl.lit(None, pl.Float64))


def responsiveness(kept: pl.DataFrame, ci_level: int = 95) -> pl.DataFrame:
    """One row per (device, benchmark, config, x) whose runs drew frames:
    n (invocations), frames, janky_frames, janky_pct, janky_pct_ci,
    janky_pct_pooled, and per percentile p<N>_ms, p<N>_min_ms,
    p<N>_max_ms, p<N>_sd_ms (see the module doc)."""
    pcts = {f"p{p}": _col(kept, f"jank_frame_dur_ms_p{p}") for p in PERCENTILES}
    runs = kept.select(
        *KEYS, "invocation", frames=_col(kept, "jank_frames"),
        janky_frames=_col(kept, "jank_janky_frames"), janky_pct=_col(kept, "jank_janky_pct"),
        **pcts).filter(pl.col("frames") > 0)
    inv = runs.group_by(*KEYS, "invocation").agg(
        pl.col("frames").sum(), pl.col("janky_frames").sum(), pl.col("janky_pct").mean(),
        *[pl.col(p).mean() for p in pcts])
    spread = [e for p in pcts for e in (
        pl.col(p).mean().alias(f"{p}_ms"), pl.col(p).min().alias(f"{p}_min_ms"),
        pl.col(p).max().alias(f"{p}_max_ms"), pl.col(p).std().alias(f"{p}_sd_ms"))]
    g = inv.group_by(*KEYS).agg(
        n=pl.len().cast(pl.Int64), frames=pl.col("frames").sum().cast(pl.Int64),
        janky_frames=pl.col("janky_frames").sum().cast(pl.Int64),
        janky_pct=pl.col("janky_pct").mean(), _sd=pl.col("janky_pct").std(), *spread)
    return (g.with_columns(
        janky_pct_ci=t_quantiles(pl.col("n"), ci_level) * pl.col("_sd")
        / pl.col("n").cast(pl.Float64).sqrt(),
        janky_pct_pooled=pl.when(pl.col("frames") > 0)
        .then(100 * pl.col("janky_frames") / pl.col("frames")))
        .select(*KEYS, "n", "frames", "janky_frames", "janky_pct", "janky_pct_ci",
                "janky_pct_pooled", *[c for p in pcts for c in (
                    f"{p}_ms", f"{p}_min_ms", f"{p}_max_ms", f"{p}_sd_ms")])
        .sort(*KEYS, nulls_last=True))
