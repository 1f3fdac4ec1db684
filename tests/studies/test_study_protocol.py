"""The ISMM'24 protocol on generated study sets (fixtures/study_sets.py):
invocations and iterations (a slow warm-up iteration, --drop-warmup, --ci),
runs that are not valid invocations (a reused process, an app that died,
was killed or ran out of memory) and the failures a minimum-heap search
reads, JIT work as a noise factor, and responsiveness across invocations.
Every expected number is derived by hand from the StudyRun values in each
set's docstring (cost = mutator + GC (+ JIT pool) ms, distilled = cost - GC).
"""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

import study_data as SD
from study_data import MS, PRESET, T975, T995, ci95_pct, name
from test_study_lbo import run_inprocess

from artscope.errors import UsageError
from artscope.studies import Labels, Study, StudyOptions, apply_labels


def study(set_name: str, **opts) -> Study:
    return Study(apply_labels(SD.flat(set_name), Labels(name_pattern=PRESET)), StudyOptions(**opts))


def rows(st: Study) -> dict[tuple[str, float], dict]:
    return {(r["benchmark"], r["x"]): r for r in st.lbo().filter(pl.col("kind") == "benchmark")
            .iter_rows(named=True)}


# -- invocations and iterations ----------------------------------------------------------

#: kappa's iterations per invocation i: costs (2x, GC 10) 140 + i, 110 + i,
#: 111 + i ms; (3x, GC 5) 135 + i, 105 + i, 106 + i; distilled 130 + i,
#: 100 + i, 101 + i at both.


def test_the_runs_of_one_trace_are_iterations_of_one_invocation():
    st = study("warmup")
    runs = st.runs.filter(pl.col("x") == 2).sort("invocation", "iteration")
    # the invocation from the name, the iterations in window order
    assert runs.select("invocation", "iteration").rows() == [
        (str(i), k) for i in range(3) for k in range(3)]
    r = rows(st)
    # per invocation the mean of its iterations: 2x 120.333 + i, distilled 110.333 + i
    assert (r[("kappa", 2.0)]["n"], r[("kappa", 2.0)]["iterations"]) == (3, 9)
    assert r[("kappa", 2.0)]["cost_mean_ns"] == pytest.approx((361 / 3 + 1) * MS)
    assert r[("kappa", 2.0)]["baseline_ns"] == pytest.approx((331 / 3 + 1) * MS)
    assert r[("kappa", 2.0)]["lbo"] == pytest.approx((361 / 3 + 1) / (331 / 3 + 1))
    assert r[("kappa", 3.0)]["lbo"] == pytest.approx((346 / 3 + 1) / (331 / 3 + 1))
    # the CI is over the three invocations (their means 1 ms apart), not nine runs
    assert r[("kappa", 2.0)]["ci_pct"] == pytest.approx(
        100 * T975[2] * 1 / math.sqrt(3) / (361 / 3 + 1), rel=1e-9)


def test_drop_warmup_drops_each_invocations_first_iterations():
    st = study("warmup", drop_warmup=1)
    r = rows(st)
    # left: 2x costs 110.5 + i, distilled 100.5 + i; 3x costs 105.5 + i
    assert (r[("kappa", 2.0)]["n"], r[("kappa", 2.0)]["iterations"]) == (3, 6)
    assert r[("kappa", 2.0)]["lbo"] == pytest.approx(111.5 / 101.5)
    assert r[("kappa", 3.0)]["lbo"] == pytest.approx(106.5 / 101.5)
    ex = st.excluded()
    assert ex.height == 6 and set(ex["reason"]) == {"warmup"} and set(ex["iteration"]) == {0}
    p = run_inprocess("lbo", str(SD.saved_output("warmup", "parquet")), "--name-pattern",
                      PRESET, "--drop-warmup", "1")
    assert p.returncode == 0, p.stderr
    assert "6 warm-up iteration(s) dropped (--drop-warmup)" in p.stdout
    assert "first 1 iteration(s) dropped" in " ".join(p.stdout.split())
    # dropping every iteration leaves nothing
    with pytest.raises(UsageError, match=r"no runs left to study \(18 excluded: warmup\)"):
        study("warmup", drop_warmup=3).lbo()


def test_ci_level_99():
    st = study("warmup", ci_level=99)
    r = rows(st)[("kappa", 2.0)]
    assert r["ci_level"] == 99
    assert r["ci_pct"] == pytest.approx(100 * T995[2] / math.sqrt(3) / (361 / 3 + 1), rel=1e-9)
    with pytest.raises(UsageError, match="--ci must be one of 90, 95, 99"):
        StudyOptions(ci_level=80)


def test_iteration_labels_and_duplicates(tmp_path):
    # one trace per iteration, labelled: two traces of the same invocation
    runs = SD.flat("clean").filter(pl.col("trace").str.contains(r"alpha\.2000\.512\.cmc"))
    meta = tmp_path / "meta.csv"
    meta.write_text("trace,benchmark,config,x,invocation,iteration\n" + "".join(
        f"{t.rsplit('/', 1)[-1]},alpha,cmc,2,0,{k}\n" for k, t in enumerate(runs["trace"])))
    st = Study(apply_labels(runs, Labels(meta=meta)))
    # costs 119, 120, 121 ms, one invocation: n 1, no CI
    r = rows(st)[("alpha", 2.0)]
    assert (r["n"], r["iterations"], r["ci_pct"]) == (1, 3, None)
    assert r["cost_mean_ns"] == pytest.approx(120 * MS)
    meta.write_text("trace,benchmark,config,x,invocation\n" + "".join(
        f"{t.rsplit('/', 1)[-1]},alpha,cmc,2,0\n" for t in runs["trace"]))
    with pytest.raises(UsageError, match=r"3 runs share a benchmark, config, x, invocation and "
                                         r"iteration .*label the invocations or the iterations"):
        Study(apply_labels(runs, Labels(meta=meta))).lbo()
    meta.write_text("trace,benchmark,iteration\n" + "".join(
        f"{t.rsplit('/', 1)[-1]},alpha,first\n" for t in runs["trace"]))
    with pytest.raises(UsageError, match=r"the iteration is not a number for .*iteration='first'"):
        apply_labels(runs, Labels(meta=meta))


def test_noise_has_the_iteration_as_a_factor():
    res = study("warmup").noise()
    g = res.groups.filter(pl.col("x") == 2).row(0, named=True)
    # iteration ranks 2,2,2,5,5,5,8,8,8 against cost ranks 7,8,9 | 1,2.5,4.5 | 2.5,4.5,6
    rho = -33 / math.sqrt(54 * 59)
    assert g["top_factor"] == "iteration" and g["top_rho"] == pytest.approx(rho)
    costs = [140, 110, 111, 141, 111, 112, 142, 112, 113]
    assert g["sentence"] == (
        f"kappa / cmc / 2x: 6 of 9 runs were not their invocation's first iteration; without "
        f"them the CI shrinks from ±{ci95_pct(costs):.1f}% to ±{ci95_pct([140, 141, 142]):.1f}%")


# -- run validity ----------------------------------------------------------------------------

#: omega (see study_sets.validity): 0 and 7 valid (costs 110 and 140 ms), 1
#: and 2 reused a process, 3-6 and 8 died in the window.
REUSED = [name("omega", 2, "cmc", i) for i in (1, 2)]


def test_invalid_runs_are_excluded_with_their_reason():
    st = study("validity")
    ex = {r["trace"].rsplit("/", 1)[-1]: r for r in st.excluded().iter_rows(named=True)}
    assert {k: v["reason"] for k, v in ex.items()} == {
        **{n: "process_reused" for n in REUSED},
        **{name("omega", 2, "cmc", i): "app_died" for i in (3, 4, 5, 6, 8)}}
    assert ex[REUSED[0]]["detail"] == "the app's process started 15.0 s before the window"
    assert ex[REUSED[1]]["detail"] == "the app's process was running before the trace began"
    assert [ex[name("omega", 2, "cmc", i)]["detail"] for i in (3, 4, 5, 6, 8)] == [
        "process 1000 ended", "SIGKILL sent to thread 1000",
        "thread 1000 threw OutOfMemoryError (ART's trace)",
        "thread 1000 threw OutOfMemoryError (logcat)", "process 1000 killed by lmkd"]
    r = rows(st)[("omega", 2.0)]
    assert (r["n"], r["cost_mean_ns"]) == (2, 125 * MS)
    # kept: 110 (x 7: reused and dead runs all spent 110 ms), 114 (JIT 4 ms), 140
    kept = rows(study("validity", include_unhealthy=True))[("omega", 2.0)]
    assert (kept["n"], kept["cost_mean_ns"]) == (9, (7 * 110 + 114 + 140) / 9 * MS)


def test_failures_per_benchmark_config_and_x():
    (f,) = study("validity").failures().to_dicts()
    assert f == {"device": "bench", "benchmark": "omega", "config": "cmc", "x": 2.0, "runs": 9,
                 "failed": 7, "died": 5, "out_of_memory_error": 2, "killed": 1,
                 "memory_kill": 1, "exited": 1, "reused": 2}
    p = run_inprocess("lbo", str(SD.saved_output("validity", "json")), "--name-pattern", PRESET,
                      "--format", "json")
    doc = json.loads(p.stdout)
    assert doc["failures"] == [f]
    assert ("artscope: failed runs: omega / cmc / 2x on bench: 7 of 9 runs failed "
            "(2 OutOfMemoryError, 1 killed, 1 killed for memory, 1 exited, 2 reused a running "
            "process)") in p.stderr
    text = " ".join(run_inprocess("lbo", str(SD.saved_output("validity", "json")),
                                  "--name-pattern", PRESET).stdout.split())
    assert "--include-unhealthy keeps runs whose app died, that reused a process" in text


def test_later_iterations_reuse_their_process_by_design():
    # kappa's iterations 1 and 2 run in the process iteration 0 started
    st = study("warmup")
    assert st.excluded().is_empty()
    assert set(st.runs.filter(pl.col("iteration") > 0)["validity_first_run_of_process"]) == {False}


def test_noise_has_the_jit_share_as_a_factor():
    res = study("validity").noise()
    (g,) = res.groups.to_dicts()
    # JIT shares 0 (x 7), 4 / 114, 50 / 140 against costs 110 (x 7), 114, 140
    assert g["top_factor"] == "jit_share" and g["top_rho"] == pytest.approx(1.0)
    costs = [110.0] * 7 + [114.0, 140.0]
    assert g["sentence"] == (
        f"omega / cmc / 2x: 2 of 9 runs spent more of their CPU in ART's JIT compiler; without "
        f"them the CI shrinks from ±{ci95_pct(costs):.1f}% to ±0.00%")


# -- responsiveness across invocations -------------------------------------------------------

#: rho's frames (study_sets.frames_set), nearest-rank percentiles per invocation:
#: 2x p50 10, 9, 9 and p90 30, 20, 11 ms; janky 20, 20, 0 %
#: 3x p50 8, 9, 10 and p90 8, 25, 10 ms; janky 0, 20, 0 %


def test_frame_percentiles_and_janky_frames_across_invocations():
    resp = study("frames").responsiveness()
    r = {row["x"]: row for row in resp.iter_rows(named=True)}
    two = r[2.0]
    assert (two["n"], two["frames"], two["janky_frames"]) == (3, 15, 2)
    assert (two["p50_ms"], two["p50_min_ms"], two["p50_max_ms"]) == (pytest.approx(28 / 3), 9, 10)
    assert (two["p90_ms"], two["p90_min_ms"], two["p90_max_ms"]) == (pytest.approx(61 / 3), 11, 30)
    assert two["p90_sd_ms"] == pytest.approx(math.sqrt(((30 - 61 / 3) ** 2 + (20 - 61 / 3) ** 2
                                                        + (11 - 61 / 3) ** 2) / 2))
    assert two["p99_ms"] == pytest.approx(61 / 3)
    # janky %: mean of 20, 20, 0 with a 95% CI over the three; pooled 2 of 15 frames
    assert two["janky_pct"] == pytest.approx(40 / 3)
    sd = math.sqrt(((20 - 40 / 3) ** 2 * 2 + (40 / 3) ** 2) / 2)
    assert two["janky_pct_ci"] == pytest.approx(T975[2] * sd / math.sqrt(3))
    assert two["janky_pct_pooled"] == pytest.approx(100 * 2 / 15)
    three = r[3.0]
    assert (three["p50_ms"], three["p90_ms"]) == (pytest.approx(9.0), pytest.approx(43 / 3))
    assert (three["janky_pct"], three["janky_pct_pooled"]) == (pytest.approx(20 / 3),
                                                               pytest.approx(100 / 15))
    # sets without frames have no rows
    assert study("clean").responsiveness().is_empty()


def test_responsiveness_charts_render():
    import vl_convert as vlc

    st = study("frames")
    for chart in (st.plot_frame_percentiles(), st.plot_janky()):
        assert "<svg" in vlc.vegalite_to_svg(chart.to_dict())
    spec = json.dumps(st.plot_janky().to_dict())
    # the error bar of 2x: 13.333 -+ its CI half-width
    assert '"janky_pct": 13.333333333333' in spec
