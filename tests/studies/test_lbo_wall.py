"""`artscope lbo --cost wall`: cost = the run window's length, distilled = cost
minus the run's GC pause time in W. Runs are written by hand (flat columns)."""

from __future__ import annotations

import polars as pl
import pytest

from artscope.studies import StudyOptions, compute_lbo

MS = 1_000_000


def runs() -> pl.DataFrame:
    # benchmark bm, config CC at heap multiples 1x and 2x, two runs each, plus one run
    # whose trace had GC slices without phase slices (pause time unknown).
    rows = [
        # (x, W start, W end, GC pause time in W)
        (1.0, 0, 100 * MS, 10 * MS),
        (1.0, 0, 110 * MS, 12 * MS),
        (2.0, 0, 90 * MS, 2 * MS),
        (2.0, 5 * MS, 99 * MS, 2 * MS),
        (2.0, 0, 95 * MS, None),
    ]
    return pl.DataFrame(
        [{"trace": f"t{i}.pftrace", "run": 0, "benchmark": "bm", "config": "CC", "x": x,
          "window_start_ts": s, "window_end_ts": e, "gc_pause_total_ns": p,
          "gc_app_cpu_ns": 50 * MS, "gc_gc_cpu_ns": 5 * MS, "health_verdict": "pass"}
         for i, (x, s, e, p) in enumerate(rows)],
        schema_overrides={"gc_pause_total_ns": pl.Int64})


def test_wall_clock_lbo_from_window_length_and_pauses():
    res = compute_lbo(runs(), StudyOptions(cost="wall", noisy_ci_pct=100.0))
    t = res.table.filter(pl.col("kind") == "benchmark").sort("x")
    # 1x: cost 100, 110 -> mean 105 ms; distilled 90, 98 -> 94; GC 11
    # 2x: cost 90, 94 -> 92 ms; distilled 88, 92 -> 90; GC 2 (the run without pause
    #     times is left out); baseline = min(94, 90) = 90
    got = [(r["x"], r["n"], r["cost_mean_ns"], r["gc_mean_ns"], r["distilled_mean_ns"],
            r["baseline_ns"]) for r in t.iter_rows(named=True)]
    assert got == [(1.0, 2, 105 * MS, 11 * MS, 94 * MS, 90 * MS),
                   (2.0, 2, 92 * MS, 2 * MS, 90 * MS, 90 * MS)]
    assert t["lbo"].to_list() == pytest.approx([105 / 90, 92 / 90])
    assert res.excluded.select("trace", "reason").rows() == [("t4.pftrace", "no_cost")]
    assert "pause" in res.excluded["detail"][0]


def test_task_clock_is_still_the_default():
    res = compute_lbo(runs(), StudyOptions(noisy_ci_pct=100.0))
    # every run: cost 50 ms app CPU, distilled 45 -> LBO 50 / 45 at both multiples
    t = res.table.filter(pl.col("kind") == "benchmark")
    assert t["lbo"].to_list() == pytest.approx([50 / 45, 50 / 45])
    assert t["n"].to_list() == [2, 3]
