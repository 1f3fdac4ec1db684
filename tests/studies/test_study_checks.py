"""Study checks on generated study sets (fixtures/study_sets.py): condition
drift per device, memory controllers and CPUs below their maximum, mixed
devices and builds (LBO per device), each benchmark's sweep over x (both loop
orders of ISMM'24 errata E.3.1), heap over its label, work that varies with
x. Every expected number is derived by hand from the StudyRun values in each
set's docstring (cost = mutator + GC ms, distilled = mutator ms).
"""

from __future__ import annotations

import json
import math
import re

import polars as pl
import pytest

import study_data as SD
from study_data import MS, PRESET, T975, ci95_pct, name
from test_study_lbo import run_inprocess

from artscope.studies import Labels, Study, StudyOptions, apply_labels
from artscope.studies.checks import heap_label_kb

MIF_LOW, MIF_HIGH = SD.SS.MIF_LOW, SD.SS.MIF_HIGH


def study(set_name: str, **opts) -> Study:
    return Study(apply_labels(SD.flat(set_name), Labels(name_pattern=PRESET)), StudyOptions(**opts))


def names(df: pl.DataFrame) -> list[str]:
    return sorted(t.rsplit("/", 1)[-1] for t in df["trace"].to_list())


def bm_row(st: Study, benchmark: str, x: float, device: str | None = None) -> dict:
    rows = st.lbo().filter((pl.col("kind") == "benchmark") & (pl.col("benchmark") == benchmark)
                           & (pl.col("x") == x)
                           & ((pl.col("device") == device) if device else pl.lit(True))).to_dicts()
    assert len(rows) == 1
    return rows[0]


# -- condition drift -----------------------------------------------------------------

DRIFTED = sorted(name("delta", 2, "cmc", i) for i in (4, 9, 14))


def test_drifted_runs_flag_their_benchmark_and_stay_in():
    st = study("drifted")
    assert st.excluded().is_empty()
    (flag,) = st.flags().to_dicts()
    # the device is make_fixtures' default fingerprint (google/bench/bench)
    assert (flag["benchmark"], flag["flag"], flag["device"]) == ("delta", "drift", "bench")
    assert flag["detail"].startswith(
        "3 of 15 runs on bench drifted: 3 held memory 17000010.devfreq_mif (clock) at 1539000 ")
    assert flag["detail"].endswith(" (--exclude-drifted leaves them out)")
    assert "instead of the study's 3172000" in flag["detail"]
    # kept: cost (12 x 110 + 3 x 118) / 15 = 111.6 ms; distilled (12 x 100 + 3 x 108) / 15 = 101.6
    r = bm_row(st, "delta", 2)
    assert r["n"] == 15 and r["cost_mean_ns"] == pytest.approx(111.6 * MS)
    assert r["lbo"] == pytest.approx(111.6 / 101.6, rel=1e-12) and r["flags"] == "drift"
    # the flag does not change the summary row: it covers delta
    s = st.lbo().filter(pl.col("kind") == "summary")
    assert set(s["covers"]) == {"delta"} and s["lbo"].to_list() == pytest.approx([111.6 / 101.6] * 4)
    # their memory controller was below its maximum (errata E.1): a warning each
    w = st.warnings()
    assert w["check"].to_list() == ["below_max"] * 3 and set(w["severity"]) == {"warn"}
    assert names(w) == DRIFTED
    assert all("held 1539000" in d and "(3172000" in d and "errata E.1" in d for d in w["detail"])


def test_exclude_drifted_leaves_them_out():
    st = study("drifted", exclude_drifted=True)
    ex = st.excluded()
    assert names(ex) == DRIFTED and set(ex["reason"]) == {"condition_drift"}
    for detail in ex["detail"]:
        assert detail.startswith("on bench, memory 17000010.devfreq_mif (clock) held 1539000")
        assert "the study's level there is 3172000" in detail
    # the twelve kept runs cost 100 + 10 ms each, distilled 100: LBO 1.1, CI 0
    r = bm_row(st, "delta", 2)
    assert r["n"] == 12 and r["cost_mean_ns"] == pytest.approx(110 * MS)
    assert r["lbo"] == pytest.approx(1.1, rel=1e-12) and r["ci_pct"] == pytest.approx(0)
    assert st.warnings().is_empty()


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


def test_cli_exclude_drifted():
    saved = str(SD.saved_output("drifted", "json"))
    p = run_inprocess("lbo", saved, "--name-pattern", PRESET, "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["excluded"] == [] and [w["check"] for w in doc["warnings"]] == ["below_max"] * 3
    assert [f["flag"] for f in doc["flags"]] == ["drift"]
    assert p.stderr.count("artscope: warning: below_max") == 3
    assert "--exclude-drifted" in run_inprocess("lbo", "--help").stdout
    p = run_inprocess("lbo", saved, "--name-pattern", PRESET, "--format", "json",
                      "--exclude-drifted")
    doc = json.loads(p.stdout)
    assert [r["reason"] for r in doc["excluded"]] == ["condition_drift"] * 3


def test_study_page_shows_conditions_and_warnings():
    from artscope.report.study_html import render_study

    page = render_study(study("drifted"))
    assert "<h2>Conditions</h2>" in page and "<h2>Study warnings and notes</h2>" in page
    assert page.count('<tr class="drifted">') == 3
    assert re.search(r"1539000 k?Hz below max", page)


# -- CPUs held below their maximum ---------------------------------------------------------


def test_cpus_below_max_are_a_note_and_a_cpu_level_drift_is_flagged():
    # sigma: three runs with CPUs 6,7 at 2.4 GHz (the highest the CpuInfo lists
    # is 2.8 GHz), a fourth at 2.8 GHz
    st = study("below_max_cpus")
    w = st.warnings()
    assert w.select("check", "severity").rows() == [("cpus_below_max", "info")]
    assert w["detail"][0].startswith(
        "on bench, cpus 6,7 held 2400000 kHz in 3 of 3 runs, below the highest their traces "
        "show (2800000 kHz): the ISMM'24 protocol holds CPUs near, not at, their maximum")
    # the study's CPU level is 2.4 GHz (3 of 4): the fourth run drifted
    (flag,) = st.flags().to_dicts()
    assert flag["flag"] == "drift" and flag["detail"].startswith(
        "1 of 4 runs on bench drifted: 1 held cpus 6,7 at 2800000 kHz instead of the study's "
        "2400000 kHz")
    assert st.excluded().is_empty()
    p = run_inprocess("lbo", str(SD.saved_output("below_max_cpus", "json")), "--name-pattern",
                      PRESET)
    assert "note: cpus_below_max: on bench, cpus 6,7 held 2400000 kHz" in p.stdout
    assert "warning:" not in p.stdout


# -- devices -----------------------------------------------------------------------------


def test_lbo_flags_and_summary_rows_are_per_device():
    # bluejay: 2x costs 110, 111, 112 (distilled 100, 101, 102), 3x costs 105
    # (distilled 100) -> baseline 100; oriole: 2x 130, 131 (120, 121), 3x 115
    # (100) -> baseline 100. One pooled baseline would mix the phones.
    st = study("two_devices")
    assert st.excluded().is_empty()
    assert bm_row(st, "alpha", 2, "bluejay")["lbo"] == pytest.approx(1.11)
    assert bm_row(st, "alpha", 3, "bluejay")["lbo"] == pytest.approx(1.05)
    assert bm_row(st, "alpha", 2, "oriole")["lbo"] == pytest.approx(1.305)
    assert bm_row(st, "alpha", 3, "oriole")["lbo"] == pytest.approx(1.15)
    assert bm_row(st, "alpha", 2, "oriole")["ci_pct"] == pytest.approx(ci95_pct([130, 131]))
    s = st.lbo().filter((pl.col("kind") == "summary") & (pl.col("benchmark") == "mean"))
    assert {(r["device"], r["x"]): r["lbo"] for r in s.to_dicts()} == pytest.approx(
        {("bluejay", 2.0): 1.11, ("bluejay", 3.0): 1.05, ("oriole", 2.0): 1.305,
         ("oriole", 3.0): 1.15})
    w = st.warnings()
    assert w["check"].to_list() == ["mixed_devices", "mixed_builds"]
    assert w["detail"][0].startswith("runs from 2 devices: bluejay (6 runs), oriole (4 runs)")
    # the Table-5 view: one block per device
    at2 = st.at(2)
    assert at2.filter(pl.col("kind") == "benchmark").select("device", "cmc_lbo").rows() == [
        ("bluejay", pytest.approx(1.11)), ("oriole", pytest.approx(1.305))]
    p = run_inprocess("lbo", str(SD.saved_output("two_devices", "csv")), "--name-pattern",
                      PRESET, "--at", "2")
    text = " ".join(p.stdout.split())  # titles wrap at the table's width
    assert "at 2x heap on bluejay" in text and "at 2x heap on oriole" in text


def test_one_device_with_two_builds_is_two_studies():
    runs = apply_labels(SD.flat("clean"), Labels(name_pattern=PRESET))
    fp = runs["cond_device_build_fingerprint"][0]
    other = fp.replace("TQ3A.230901.001", "UQ1A.231205.015")
    runs = runs.with_columns(cond_device_build_fingerprint=pl.when(pl.col("benchmark") == "beta")
                             .then(pl.lit(other)).otherwise(pl.col("cond_device_build_fingerprint")))
    devices = set(Study(runs).lbo()["device"].to_list())
    assert devices == {"bench (build 13/TQ3A.230901.001/10750268)",
                       "bench (build 13/UQ1A.231205.015/10750268)"}


def test_noise_groups_by_device_first():
    res = study("two_devices").noise()
    assert res.group_by == ["device", "benchmark", "config", "x"]
    g = {r["device"]: r for r in res.groups.filter(pl.col("x") == 2).iter_rows(named=True)}
    # bluejay costs 110, 111, 112 ms; oriole 130, 131
    assert g["bluejay"]["n"] == 3 and g["bluejay"]["mean"] == pytest.approx(111 * MS)
    assert g["oriole"]["n"] == 2 and g["oriole"]["mean"] == pytest.approx(130.5 * MS)


# -- loop order --------------------------------------------------------------------------


def test_old_loop_order_spreads_every_sweep_over_the_study():
    # x outermost: a starts at 0, 60, 360, 420, 720, 780 s of the 0-1020 s study
    st = study("loop_old")
    sw = st.sweeps()
    a = sw.filter(pl.col("benchmark") == "a").row(0, named=True)
    assert (a["runs"], a["xs"], a["sweep_s"], a["span_s"]) == (6, 3, 780.0, 1020.0)
    assert a["sweep_share"] == pytest.approx(780 / 1020) and a["runs_share"] == pytest.approx(1 / 3)
    # start-time ranks 1..6 against x ranks 1.5, 1.5, 3.5, 3.5, 5.5, 5.5
    assert a["x_rho"] == pytest.approx(16 / math.sqrt(17.5 * 16))
    assert sw["spread"].to_list() == [True, True, True]
    w = st.warnings()
    assert w.select("check", "benchmark").rows() == [("sweep_spread", b) for b in "abc"]
    assert w["detail"][0] == (
        "a / cmc on bench: its sweep over 3 heap multiples took 780 s, 76% of the 1,020 s its "
        "config's runs span, for 33% of the runs: other benchmarks ran in between, so drift over "
        "the study is confounded with x — run every heap multiple of one benchmark before the "
        "next benchmark (ISMM'24 errata E.3.1)")


def test_new_loop_order_is_not_warned():
    # every multiple of a (0-300 s), then of b (360-660 s), then of c (720-1020 s)
    st = study("loop_new")
    sw = st.sweeps()
    assert sw["sweep_s"].to_list() == [300.0] * 3
    assert sw["sweep_share"].to_list() == pytest.approx([300 / 1020] * 3)
    assert not sw["spread"].any() and st.warnings().is_empty()


def test_study_page_shows_the_sweeps():
    from artscope.report.study_html import render_study

    page = render_study(study("loop_old"))
    assert "<h2>Loop order</h2>" in page and "sweep_spread" in page
    assert page.count('<tr class="flagged"><td>bench</td><td>') == 3


# -- heap ----------------------------------------------------------------------------------


@pytest.mark.parametrize("label,kb", [("512M", 524_288), ("300m", 307_200), ("1g", 1_048_576),
                                      ("65536k", 65_536), ("1048576", 1024), ("512MB", 524_288),
                                      ("big", None), (None, None)])
def test_heap_labels(label, kb):
    assert heap_label_kb(label) == kb


def test_a_run_over_its_heap_label_flags_its_benchmark():
    st = study("heap_work")
    assert st.excluded().is_empty()
    (flag,) = st.flags().filter(pl.col("flag") == "heap").to_dicts()
    # running-ng's heap size 512 (MB) is the label 512M = 524,288 KB;
    # 600,000 / 524,288 - 1 = 14.4%
    assert flag["benchmark"] == "steady" and flag["detail"] == (
        f"1 run(s) ignored their heap limit: {name('steady', 2, 'cmc', 3)} run 0 (cmc at 2x): "
        "the heap peaked at 600,000 KB, 14.4% above its 512M label (524,288 KB): the limit was "
        "not applied")


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
    # flags do not change the summary rows: grow (LBO 110 / 100) and steady
    # (109, 110, 111, 110 / 100) both count
    summary = st.lbo().filter(pl.col("kind") == "summary")
    assert set(summary["n"]) == {2} and summary["lbo"].to_list() == pytest.approx([1.1] * 8)
    # --drop-flagged: grow (workload_varies) and steady (heap) are both flagged
    dropped = Study(st.runs, StudyOptions(drop_flagged=True)).lbo()
    assert dropped.filter(pl.col("kind") == "summary").is_empty()


def test_python_api_exclude_drifted():
    import artscope

    saved = str(SD.saved_output("drifted", "json"))
    assert artscope.study(saved, name_pattern=PRESET).excluded().is_empty()
    st = artscope.study(saved, name_pattern=PRESET, exclude_drifted=True)
    assert st.excluded().height == 3 and st.warnings().is_empty()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_saved_output_gives_the_same_checks(fmt):
    from artscope.studies import load_runs

    def checks(set_name: str, runs) -> tuple:
        st = Study(apply_labels(runs, Labels(name_pattern=PRESET)))
        return (st.excluded()["reason"].to_list(), st.warnings()["check"].to_list(),
                st.flags()["flag"].to_list(), st.noise().group_by,
                st.sweeps().to_dicts(), st.failures().to_dicts())

    for set_name in ("two_devices", "heap_work", "loop_old", "validity"):
        assert checks(set_name, load_runs([str(SD.saved_output(set_name, fmt))])) == \
            checks(set_name, SD.flat(set_name))
