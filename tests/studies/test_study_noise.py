"""artscope noise and the study charts on generated study sets.

noisy_memfreq (fixtures/study_sets.py): gamma / cmc / 2x, eight runs, GC
10 ms each; app CPU 110.0, 110.2, 109.8, 110.1, 109.9 ms in the five clean
runs and 120, 122, 121 ms in the three whose memory controller changed
frequency twice. Hand arithmetic:

* mean 913 / 8 = 114.125 ms; clean mean 110, disturbed mean 121 (+10%)
* Spearman rho(memfreq transitions, cost): factor ranks 3,3,3,3,3,7,7,7 vs
  cost ranks 1..8 -> 30 / sqrt(30 * 42) = sqrt(5/7)
* median 110.15, MAD 0.3 -> the disturbed runs score 0.6745 * 9.85 / 0.3 =
  22.1, 0.6745 * 11.85 / 0.3 = 26.6, 0.6745 * 10.85 / 0.3 = 24.4: outliers
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import polars as pl
import pytest

import study_data as SD
from study_data import MS, PRESET, ci95_pct

from test_charts import _rows

from artscope.errors import UsageError
from artscope.studies import Labels, Study, StudyOptions, apply_labels
from artscope.studies.noise import diagnose_noise

CLEAN = [110.0, 110.2, 109.8, 110.1, 109.9]
SLOW = [120.0, 122.0, 121.0]


def study(name: str, **opts) -> Study:
    return Study(apply_labels(SD.flat(name), Labels(name_pattern=PRESET)), StudyOptions(**opts))


def test_memfreq_noise_is_named_first_with_exact_numbers():
    res = study("noisy_memfreq").noise("task_clock")
    assert res.column == "gc_app_cpu_ns" and res.group_by == ["benchmark", "config", "x"]
    g = res.groups.to_dicts()
    assert len(g) == 1
    g = g[0]
    values = CLEAN + SLOW
    mean = sum(values) / 8
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 7)
    assert g["n"] == 8
    assert g["mean"] == pytest.approx(114.125 * MS)
    assert g["sd"] == pytest.approx(sd * MS)
    assert g["cv"] == pytest.approx(sd / mean)
    assert g["ci95_pct"] == pytest.approx(ci95_pct(values), rel=1e-9)
    assert (g["n_outliers"], g["n_unhealthy"]) == (3, 3)
    assert g["healthy_mean"] == pytest.approx(110 * MS)
    assert g["unhealthy_mean"] == pytest.approx(121 * MS)
    assert g["unhealthy_diff_pct"] == pytest.approx(10.0)
    assert g["top_factor"] == "memfreq_transitions"
    assert g["top_rho"] == pytest.approx(math.sqrt(5 / 7))
    ci_all, ci_clean = ci95_pct(values), ci95_pct(CLEAN)
    assert f"{ci_all:.1f}" == "4.2" and f"{ci_clean:.2f}" == "0.18"
    assert g["sentence"] == ("gamma / cmc / 2x: 3 of 8 runs had the memory controller changing "
                             "frequency; without them the CI shrinks from ±4.2% to ±0.18%")
    f = res.factors.sort("rank").to_dicts()
    assert f[0]["factor"] == "memfreq_transitions" and f[0]["rank"] == 1
    assert f[0]["runs_affected"] == 3
    assert f[0]["diff_pct"] == pytest.approx(10.0)
    assert f[0]["ci95_pct_without"] == pytest.approx(ci_clean, rel=1e-9)
    # every other factor is constant in the group: no correlation to rank
    assert all(x["rho"] is None and x["runs_affected"] == 0 for x in f[1:])
    runs = res.runs.sort("value")
    assert runs["outlier"].to_list() == [False] * 5 + [True] * 3
    assert runs.filter(pl.col("outlier"))["mad_score"].to_list() == pytest.approx(
        [0.6745 * 9.85 / 0.3, 0.6745 * 10.85 / 0.3, 0.6745 * 11.85 / 0.3])
    assert runs["memfreq_transitions"].to_list() == [0.0] * 5 + [2.0] * 3


def test_off_mask_run_is_the_factor_of_the_unhealthy_group():
    # costs 109, 110, 111 ms and 150 ms for the run with 20 ms on CPU 2
    res = study("unhealthy").noise("task_clock")
    f = res.factors.sort("rank").to_dicts()
    # off-mask share and migrations both mark that one run (same rho); ties
    # keep FACTORS order, which puts the pinning failure first
    assert [x["factor"] for x in f[:2]] == ["off_mask_share", "migrations"]
    assert f[0]["rho"] == pytest.approx(3 / math.sqrt(15))
    g = res.groups.to_dicts()[0]
    assert g["sentence"] == (
        "alpha / cmc / 2x: 1 of 4 runs ran app threads outside the allowed CPUs; without them "
        f"the CI shrinks from ±{ci95_pct([109, 110, 111, 150]):.1f}% to "
        f"±{ci95_pct([109, 110, 111]):.1f}%")


def test_group_by_and_metric_options():
    runs = apply_labels(SD.flat("flagged"), Labels(name_pattern=PRESET))
    by_bm = diagnose_noise(runs, "distilled", ["benchmark"])
    assert by_bm.column == "gc_mutator_cpu_ns"
    g = {r["benchmark"]: r for r in by_bm.groups.to_dicts()}
    assert g["jitter"]["n"] == 6
    assert g["jitter"]["ci95_pct"] == pytest.approx(ci95_pct([90, 100, 110] * 2), rel=1e-9)
    # calm/chaos distilled: 99, 100, 101 twice
    assert g["calm"]["ci95_pct"] == pytest.approx(ci95_pct([99, 100, 101] * 2), rel=1e-9)
    assert g["calm"]["sentence"].startswith("calm: no measured factor")
    whole = diagnose_noise(runs, "gc_gc_cpu_ns", [])
    assert whole.groups["n"].to_list() == [18]
    with pytest.raises(UsageError, match="no metric 'nope'"):
        diagnose_noise(runs, "nope")
    with pytest.raises(UsageError, match="not numeric"):
        diagnose_noise(runs, "health_verdict")
    with pytest.raises(UsageError, match="cannot group by heap_size"):
        diagnose_noise(runs, "task_clock", ["heap_size"])


def test_cli_noise_json_and_table():
    saved = str(SD.saved_output("noisy_memfreq", "json"))
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "noise", saved, "--name-pattern",
                        PRESET, "--metric", "task_clock", "--group-by", "benchmark,config",
                        "--format", "json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["group_by"] == ["benchmark", "config"]
    assert doc["groups"][0]["top_factor"] == "memfreq_transitions"
    assert doc["factors"][0]["factor"] == "memfreq_transitions"
    assert "3 of 8 runs had the memory controller changing frequency" in p.stderr
    from click.testing import CliRunner

    from artscope.cli import main

    r = CliRunner().invoke(main, ["noise", saved, "--name-pattern", PRESET], prog_name="artscope")
    assert r.exit_code == 0, r.stderr
    assert "memfreq_transitions" in r.stdout and "outliers (MAD score > 3.5)" in r.stdout
    assert "without them the CI shrinks from ±4.2% to ±0.18%" in r.stdout
    bad = CliRunner().invoke(main, ["noise", saved, "--metric", "nope"], prog_name="artscope")
    assert bad.exit_code == 2 and bad.stderr.startswith("artscope: error: no metric 'nope'")


# -- charts --------------------------------------------------------------------------


def _values(chart) -> list[dict]:
    """Every inline data row of a chart (test_charts' walker, flattened)."""
    return [row for values in _rows(chart) for row in values]


def test_lbo_curves_chart_data_and_grey_flagged():
    from artscope.report.study_charts import FLAGGED_COLOR, GEOMEAN_PANEL

    chart = study("flagged").plot_lbo()
    spec = chart.to_dict()
    rows = _values(chart)
    by = {(r["benchmark"], r["x"]): r for r in rows}
    assert by[("calm", 2.0)]["lbo"] == pytest.approx(1.2) and not by[("calm", 2.0)]["flagged"]
    assert by[("chaos", 3.0)]["flagged"] and by[("jitter", 2.0)]["flagged"]
    # error bars: LBO -+ LBO * CI% / 100
    hw = 1.1 * ci95_pct([100, 110, 120]) / 100
    assert by[("jitter", 2.0)]["lo"] == pytest.approx(1.1 - hw)
    assert by[("jitter", 2.0)]["hi"] == pytest.approx(1.1 + hw)
    # flags never change a summary row: the geomean covers calm 1.2, chaos and jitter 1.1
    assert by[(GEOMEAN_PANEL, 2.0)]["lbo"] == pytest.approx((1.2 * 1.1 * 1.1) ** (1 / 3))
    assert FLAGGED_COLOR in json.dumps(spec)
    assert spec["facet"]["field"] == "benchmark"
    # renders to SVG (vl-convert runs the same Vega as the browser)
    import vl_convert as vlc

    assert "<svg" in vlc.vegalite_to_svg(spec)


def test_noise_chart_marks_the_affected_runs():
    chart = study("noisy_memfreq").plot_noise()
    spec = chart.to_dict()
    runs = [r for r in _values(chart) if "affected" in r]
    assert sorted(r["value"] / MS for r in runs if r["affected"] == "affected by the top factor") \
        == pytest.approx(sorted(SLOW))
    bars = [r for r in _values(chart) if "abs_rho" in r]
    assert [(b["factor"], round(b["abs_rho"], 6)) for b in bars] == [
        ("memfreq_transitions", round(math.sqrt(5 / 7), 6))]
    import vl_convert as vlc

    assert "<svg" in vlc.vegalite_to_svg(spec)


def test_charts_never_import_runset():
    """report/charts.py reads a run set through its Runs protocol; only
    runset.py imports charts (for the plot_* methods): one-way."""
    import ast
    from pathlib import Path

    import artscope.report.charts as charts

    tree = ast.parse(Path(charts.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m and m.startswith("artscope.runset") for m in imported), imported
