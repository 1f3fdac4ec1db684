"""`artscope lbo --cost cycles|energy` and `noise --metric cycles`: runs written
by hand as flat columns (the dvfs_* columns analyze writes)."""

from __future__ import annotations

import polars as pl
import pytest

from artscope.studies import StudyOptions, compute_lbo
from artscope.studies.noise import metric_column

M = 1_000_000


def runs(sources: tuple[str, ...] = ("counters",) * 4) -> pl.DataFrame:
    # benchmark bm, config CC at 1x and 2x, two runs each:
    # (x, counted app cycles, counted GC cycles, estimated app, estimated GC,
    #  rails' energy J, GC's share of the CPU rails J)
    rows = [(1.0, 100 * M, 20 * M, 120 * M, 30 * M, 2.0, 0.5),
            (1.0, 110 * M, 24 * M, 130 * M, 34 * M, 2.2, 0.6),
            (2.0, 90 * M, 6 * M, 100 * M, 8 * M, 1.8, 0.1),
            (2.0, 94 * M, 6 * M, 104 * M, 8 * M, 1.9, 0.1)]
    return pl.DataFrame(
        [{"trace": f"t{i}.pftrace", "run": 0, "benchmark": "bm", "config": "CC", "x": x,
          "health_verdict": "pass", "dvfs_cycles_source": src,
          "dvfs_cycles_app_cycles": float(app), "dvfs_cycles_gc_cycles": float(gc),
          "dvfs_app_cycles_estimate": float(app_e), "dvfs_gc_cycles_estimate": float(gc_e),
          "dvfs_energy_source": "rails", "dvfs_energy_total_j": j,
          "dvfs_energy_gc_cpu_j": gc_j, "gc_app_cpu_ns": 50 * M, "gc_gc_cpu_ns": 5 * M}
         for i, ((x, app, gc, app_e, gc_e, j, gc_j), src) in enumerate(zip(rows, sources))])


def _lbo(res) -> list[float]:
    return res.table.filter(pl.col("kind") == "benchmark").sort("x")["lbo"].to_list()


def test_counted_cycles_when_every_run_has_counters():
    res = compute_lbo(runs(), StudyOptions(cost="cycles", noisy_ci_pct=100.0))
    # 1x: cost 105 M, distilled 80, 86 -> 83; 2x: cost 92, distilled 84, 88 -> 86
    # baseline min(83, 86) = 83
    assert _lbo(res) == pytest.approx([105 / 83, 92 / 83])
    note = res.warnings.filter(pl.col("check") == "cost_source")["detail"].to_list()
    assert note and note[0].startswith("cycles counted")


def test_estimated_cycles_for_every_run_when_one_has_no_counters():
    res = compute_lbo(runs(("counters", "counters", "estimate", "counters")),
                      StudyOptions(cost="cycles", noisy_ci_pct=100.0))
    # estimates: 1x cost 125, distilled 90, 96 -> 93; 2x cost 102, distilled 92, 96 -> 94
    assert _lbo(res) == pytest.approx([125 / 93, 102 / 93])
    note = res.warnings.filter(pl.col("check") == "cost_source")["detail"][0]
    assert note.startswith("cycles estimated")


def test_energy_from_the_rails_and_a_run_without_rails_has_no_cost():
    df = runs().with_columns(dvfs_energy_source=pl.Series(["rails", "rails", "rails", "battery"]))
    res = compute_lbo(df, StudyOptions(cost="energy", noisy_ci_pct=100.0))
    # µJ: 1x cost 2.1e6, distilled 1.5e6, 1.6e6 -> 1.55e6; 2x (one run) cost 1.8e6,
    # distilled 1.7e6; baseline 1.55e6
    assert _lbo(res) == pytest.approx([2.1 / 1.55, 1.8 / 1.55])
    assert res.excluded.select("trace", "reason").rows() == [("t3.pftrace", "no_cost")]
    assert "power rails" in res.excluded["detail"][0]


def test_noise_metric_cycles_is_the_app_cycles_column():
    assert metric_column(runs(), "cycles") == "dvfs_cycles_app_cycles"
