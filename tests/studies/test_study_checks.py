"""Study checks on generated study sets (fixtures/study_sets.py): condition
drift per device, runs below the maximum, mixed devices and builds, heap
multiples recorded one after another, heap over its label, work that varies
with x. Every expected number is derived by hand from the StudyRun values
in each set's docstring (cost = mutator + GC ms, distilled = mutator ms).
"""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

import study_data as SD
from study_data import MS, PRESET, T975, ci95_pct
from test_study_lbo import run_inprocess

from artscope.studies import Labels, Study, StudyOptions, apply_labels
from artscope.studies.checks import heap_label_kb

MIF_LOW, MIF_HIGH = SD.SS.MIF_LOW, SD.SS.MIF_HIGH


def study(name: str, **opts) -> Study:
    return Study(apply_labels(SD.flat(name), Labels(name_pattern=PRESET)), StudyOptions(**opts))


def names(df: pl.DataFrame) -> list[str]:
    return sorted(t.rsplit("/", 1)[-1] for t in df["trace"].to_list())


def bm_row(st: Study, benchmark: str, x: float) -> dict:
    rows = st.lbo().filter((pl.col("kind") == "benchmark") & (pl.col("benchmark") == benchmark)
                           & (pl.col("x") == x)).to_dicts()
    assert len(rows) == 1
    return rows[0]


# -- condition drift -----------------------------------------------------------------

DRIFTED = ["delta.2.512M.cmc.14.pftrace", "delta.2.512M.cmc.4.pftrace",
           "delta.2.512M.cmc.9.pftrace"]


def test_three_runs_at_a_lower_memory_level_are_excluded():
    st = study("drifted")
    ex = st.excluded()
    assert names(ex) == DRIFTED
    assert set(ex["reason"]) == {"condition_drift"}
    # the detail names the device (default fingerprint google/bench/bench),
    # the run's level and the study's (twelve of fifteen runs held MIF_HIGH)
    for detail in ex["detail"]:
        assert detail.startswith("on bench, memory 17000010.devfreq_mif (clock) held 1539000")
        assert "the study's level there is 3172000" in detail
    # the twelve kept runs cost 100 + 10 ms each, distilled 100: LBO 1.1, CI 0
    r = bm_row(st, "delta", 2)
    assert r["n"] == 12 and r["cost_mean_ns"] == pytest.approx(110 * MS)
    assert r["lbo"] == pytest.approx(1.1, rel=1e-12) and r["ci95_pct"] == pytest.approx(0)
    # drifted runs are excluded, so none is left to warn about
    assert st.warnings().is_empty()


def test_include_drifted_keeps_them_and_warns_they_ran_below_max():
    st = study("drifted", include_drifted=True)
    assert st.excluded().is_empty()
    r = bm_row(st, "delta", 2)
    # cost (12 x 110 + 3 x 118) / 15 = 111.6 ms; distilled (12 x 100 + 3 x 108) / 15 = 101.6
    assert r["n"] == 15 and r["cost_mean_ns"] == pytest.approx(111.6 * MS)
    assert r["lbo"] == pytest.approx(111.6 / 101.6, rel=1e-12)
    w = st.warnings()
    assert w["check"].to_list() == ["below_max"] * 3 and names(w) == DRIFTED
    # MIF_LOW from 5 ms; the trace showed MIF_HIGH at 0 ms
    assert all("held 1539000" in d and "(3172000" in d for d in w["detail"])


def test_conditions_table_marks_the_drifted_runs():
    t = study("drifted").conditions()
    # 15 runs x (cpus 6,7 + the memory controller)
    assert t.height == 30
    drifted = t.filter(pl.col("drifted"))
    assert sorted(drifted["trace"].to_list()) == DRIFTED
    assert set(drifted["series"]) == {"memory 17000010.devfreq_mif (clock)"}
    assert set(drifted["level"]) == {MIF_LOW} and set(drifted["study_level"]) == {MIF_HIGH}
    cpus = t.filter(pl.col("series") == "cpus 6,7")
    assert set(cpus["level"]) == {2_800_000} and cpus["at_max"].all()


def test_noise_names_the_drift():
    res = study("drifted").noise()
    g = res.groups.row(0, named=True)
    assert g["top_factor"] == "condition_drift" and g["top_rho"] == pytest.approx(1.0)
    # costs 12 x 110 and 3 x 118 ms; without the three, all 110: CI 0
    ci_all = ci95_pct([110.0] * 12 + [118.0] * 3)
    assert g["ci95_pct"] == pytest.approx(ci_all, rel=1e-9)
    assert g["sentence"] == ("delta / cmc / 2x: 3 of 15 runs were held at another frequency "
                             f"level than the study's; without them the CI shrinks from "
                             f"±{ci_all:.1f}% to ±0.00%")
    assert res.warnings.filter(pl.col("check") == "condition_drift").height == 3


def test_cli_include_drifted(tmp_path):
    saved = str(SD.saved_output("drifted", "json"))
    p = run_inprocess("lbo", saved, "--name-pattern", PRESET, "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [r["reason"] for r in doc["excluded"]] == ["condition_drift"] * 3
    assert "--include-drifted" in run_inprocess("lbo", "--help").stdout
    p = run_inprocess("lbo", saved, "--name-pattern", PRESET, "--format", "json",
                      "--include-drifted")
    doc = json.loads(p.stdout)
    assert doc["excluded"] == [] and [w["check"] for w in doc["warnings"]] == ["below_max"] * 3
    assert p.stderr.count("artscope: warning: below_max") == 3


def test_study_page_shows_conditions_and_warnings():
    from artscope.report.study_html import render_study

    page = render_study(study("drifted"))
    assert "<h2>Conditions</h2>" in page and "<h2>Study warnings</h2>" in page
    assert page.count('<tr class="drifted">') == 3
    assert "1539000 kHz below max" in page or "1539000 Hz below max" in page


# -- devices -----------------------------------------------------------------------------


def test_levels_are_compared_per_device():
    # bluejay: 3 runs at MIF_HIGH; oriole: 2 runs at MIF_LOW, its highest. A
    # study-wide mode (MIF_HIGH, 3 of 5) would exclude oriole's runs; per
    # device nothing drifted.
    st = study("two_devices")
    assert st.excluded().is_empty()
    w = st.warnings()
    assert w["check"].to_list() == ["mixed_devices", "mixed_builds"]
    assert w["detail"][0].startswith("runs from 2 devices: bluejay (3 runs), oriole (2 runs)")


def test_noise_groups_by_device_first():
    res = study("two_devices").noise()
    assert res.group_by == ["device", "benchmark", "config", "x"]
    g = {r["device"]: r for r in res.groups.iter_rows(named=True)}
    # bluejay costs 110, 111, 112 ms; oriole 130, 131
    assert g["bluejay"]["n"] == 3 and g["bluejay"]["mean"] == pytest.approx(111 * MS)
    assert g["oriole"]["n"] == 2 and g["oriole"]["mean"] == pytest.approx(130.5 * MS)


# -- run order ---------------------------------------------------------------------------


def test_x_by_x_recording_is_flagged():
    w = study("sequential").warnings()
    # seq: 2x at 0-120 s, 3x at 180-300 s; mixed: 2x at 30-270 s, 3x at 90-330 s
    assert w.select("check", "benchmark", "config").rows() == [("not_interleaved", "seq", "cmc")]
    assert "(2x, then 3x)" in w["detail"][0]


def test_noise_ranks_run_order():
    res = study("sequential").noise()
    g = {(r["benchmark"], r["x"]): r for r in res.groups.iter_rows(named=True)}
    # seq at 3x costs 110, 113, 116 ms at 180, 240, 300 s: rank correlation 1;
    # the two later runs cost (113 + 116) / 2 = 114.5, +4.09% over 110
    top = g[("seq", 3.0)]
    assert top["top_factor"] == "run_order" and top["top_rho"] == pytest.approx(1.0)
    f = res.factors.filter((pl.col("benchmark") == "seq") & (pl.col("x") == 3.0)
                           & (pl.col("factor") == "run_order")).row(0, named=True)
    assert f["runs_affected"] == 2 and f["diff_pct"] == pytest.approx(100 * (114.5 / 110 - 1))
    # seq at 2x costs 110 three times: nothing tracks it
    assert g[("seq", 2.0)]["top_factor"] is None


# -- heap ----------------------------------------------------------------------------------


@pytest.mark.parametrize("label,kb", [("512M", 524_288), ("300m", 307_200), ("1g", 1_048_576),
                                      ("65536k", 65_536), ("1048576", 1024), ("512MB", 524_288),
                                      ("big", None), (None, None)])
def test_heap_labels(label, kb):
    assert heap_label_kb(label) == kb


def test_a_run_over_its_heap_label_is_excluded():
    ex = study("heap_work").excluded()
    assert names(ex) == ["steady.2.512M.cmc.3.pftrace"]
    assert ex["reason"].to_list() == ["heap_over_limit"]
    # 600,000 KB against 512M = 524,288 KB: 600000 / 524288 - 1 = 14.4%
    assert ex["detail"][0] == ("the heap peaked at 600,000 KB, 14.4% above its 512M label "
                               "(524,288 KB): the limit was not applied")


def test_allocation_growing_with_x_is_flagged():
    st = study("heap_work")
    flags = st.flags().filter(pl.col("flag") == "workload_varies")
    assert flags.select("benchmark", "config", "x").rows() == [("grow", "cmc", 3.0)]
    # x ranks (2,2,2,5,5,5), allocation ranks 1..6: rho = 13.5 / sqrt(13.5 x 17.5)
    rho = 13.5 / math.sqrt(13.5 * 17.5)
    assert f"Spearman rho +{rho:.2f}" in flags["detail"][0]
    # means 100,010 and 150,010 KB, each ± t(2) x 10 / sqrt(3)
    half = T975[2] * 10 / math.sqrt(3)
    assert f"mean 100,010 ±{half:,.3g} at 2x, 150,010 ±{half:,.3g} at 3x" in flags["detail"][0]
    # grow is out of the summary rows: only steady (LBO 110 / 100) counts
    summary = st.lbo().filter(pl.col("kind") == "summary")
    assert set(summary["n"]) == {1} and summary["lbo"].to_list() == pytest.approx([1.1] * 8)
    kept = Study(st.runs, StudyOptions(keep_flagged=True)).lbo().filter(pl.col("kind") == "summary")
    assert set(kept["n"]) == {2}


def test_python_api_include_drifted():
    import artscope

    saved = str(SD.saved_output("drifted", "json"))
    assert artscope.study(saved, name_pattern=PRESET).excluded().height == 3
    st = artscope.study(saved, name_pattern=PRESET, include_drifted=True)
    assert st.excluded().is_empty() and st.warnings().height == 3


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_saved_output_gives_the_same_checks(fmt):
    from artscope.studies import load_runs

    def checks(name: str, runs) -> tuple:
        st = Study(apply_labels(runs, Labels(name_pattern=PRESET)))
        return (st.excluded()["reason"].to_list(), st.warnings()["check"].to_list(),
                st.flags()["flag"].to_list(), st.noise().group_by)

    for name in ("two_devices", "heap_work"):
        assert checks(name, load_runs([str(SD.saved_output(name, fmt))])) == \
            checks(name, SD.flat(name))
