"""Study labels and the LBO table on generated study sets (fixtures/study_sets.py).

Every expected number is derived by hand from the app CPU and GC CPU chosen
per run (see each set's docstring): cost = mutator + GC ms, distilled =
mutator ms, baseline = the smallest mean distilled cost of the benchmark.
Traces are named as running-ng names its results, plus the invocation.
"""

from __future__ import annotations

import json
import math
import re
import subprocess

import polars as pl
import pytest

import study_data as SD
from study_data import APP, CPUS, MS, PRESET, T975, ci95_pct, name
from test_cli import one_line_error
from test_cli import run as run_cli

import artscope
from artscope.errors import UsageError
from artscope.studies import Labels, Study, StudyOptions, apply_labels, compute_lbo, load_runs
from artscope.studies.labels import pattern_regex


def study(name: str, **opts) -> Study:
    runs = apply_labels(SD.flat(name), Labels(name_pattern=PRESET))
    return Study(runs, StudyOptions(**opts))


def row(table: pl.DataFrame, benchmark: str, config: str, x: float) -> dict:
    rows = table.filter((pl.col("benchmark") == benchmark) & (pl.col("config") == config)
                        & (pl.col("x") == x)).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def run_inprocess(*args: str):
    """The CLI in this process (fast; for the many bad-input cases): a result
    with returncode/stdout/stderr like subprocess's."""
    from click.testing import CliRunner

    from artscope.cli import main

    r = CliRunner().invoke(main, list(args), prog_name="artscope")
    return subprocess.CompletedProcess(args, r.exit_code, r.stdout, r.stderr)


# -- labels ------------------------------------------------------------------------


def _labels_of(file_name: str, pattern: str = PRESET) -> dict:
    runs = pl.DataFrame({"trace": [file_name], "run": [0]})
    r = apply_labels(runs, Labels(name_pattern=pattern)).row(0, named=True)
    return {k: r[k] for k in ("benchmark", "x", "heap", "config", "suite", "invocation")}


def test_running_ng_preset_parses_its_result_names():
    # running-ng: {bm}.{int(hfac * 1000)}.{heap MB}.{config parts joined by '.'}.{suite}
    assert _labels_of("alpha.2000.48.art-cmc.taskset.android-apps.3.pftrace") == {
        "benchmark": "alpha", "x": 2.0, "heap": "48M", "config": "art-cmc.taskset",
        "suite": "android-apps", "invocation": "3"}
    # its log (every invocation in one file): no invocation, each file one
    log = "lusearch.1562.300.jdk-11.0.2.dacapochopin-29a657f.log.gz"
    assert _labels_of(log) == {"benchmark": "lusearch", "x": 1.562, "heap": "300M",
                               "config": "jdk-11.0.2", "suite": "dacapochopin-29a657f",
                               "invocation": log}
    # a trailing number is the invocation, the field before it the suite
    assert _labels_of("alpha.2000.48.art-cmc.taskset.0") == {
        "benchmark": "alpha", "x": 2.0, "heap": "48M", "config": "art-cmc", "suite": "taskset",
        "invocation": "0"}
    # no heap factor / size: running-ng writes 0
    assert _labels_of("X (Twitter).0.0.CC.android-apps.14.pftrace") == {
        "benchmark": "X (Twitter)", "x": None, "heap": None, "config": "CC",
        "suite": "android-apps", "invocation": "14"}
    # android-benchmark-runner's results are running-ng's
    assert pattern_regex("android-benchmark-runner").pattern == pattern_regex(PRESET).pattern


def test_running_ng_folder_of_an_invocation(tmp_path):
    # CopyFile keeps an invocation's files in '<result name>.<invocation>/'
    trace = str(tmp_path / "bbc.3000.100.art-cc.taskset.android-apps.7" / "trace.perfetto-trace")
    assert _labels_of(trace) == {"benchmark": "bbc", "x": 3.0, "heap": "100M",
                                 "config": "art-cc.taskset", "suite": "android-apps",
                                 "invocation": "7"}


@pytest.mark.parametrize("bad", [
    "alpha.2.512M.cmc.0.pftrace",          # x as a multiple, heap with a unit: not running-ng's
    "alpha.2000.48.cmc.pftrace",           # no suite
    "alpha.2000.48.cmc.7.pftrace",         # a number where the suite belongs
    "alpha.2000.big.cmc.android-apps.0.pftrace",
])
def test_a_name_the_preset_cannot_parse_is_an_error_naming_file_and_pattern(bad):
    with pytest.raises(UsageError) as e:
        _labels_of(bad)
    msg = str(e.value)
    assert msg.startswith("1 trace name(s) do not match --name-pattern 'running-ng' "
                          "(running-ng's result names, bm.hfac.heap.config.suite[.invocation])")
    assert msg.endswith(f": {bad}")


def test_labels_from_pattern_and_meta_agree(tmp_path):
    runs = SD.flat("unhealthy")
    by_name = apply_labels(runs, Labels(name_pattern=PRESET))
    meta = tmp_path / "meta.csv"
    lines = ["trace,bm,collector,hfac,inv,heap,suite"]
    for r in SD.SS.unhealthy():
        lines.append(f"{r.file_name},{r.benchmark},{r.config},{r.x:g},{r.invocation},"
                     f"{r.heap_mb}M,{SD.SS.SUITE}")
    meta.write_text("\n".join(lines) + "\n")
    by_meta = apply_labels(runs, Labels(meta=meta, benchmark="bm", config="collector", x="hfac",
                                        invocation="inv"))
    cols = ["trace", "benchmark", "config", "x", "invocation"]
    assert by_meta.select(cols).sort("trace").equals(by_name.select(cols).sort("trace"))
    assert by_name.sort("trace")["invocation"].to_list() == ["0", "1", "2", "3"]
    assert set(by_name["x"].to_list()) == {2.0}
    assert "heap" in by_name.columns  # extra pattern fields are kept as labels


def test_meta_matches_the_path_as_given(tmp_path):
    runs = SD.flat("unhealthy")
    meta = tmp_path / "meta.csv"
    traces = runs["trace"].to_list()
    meta.write_text("trace,benchmark\n" + "".join(f"{t},b{i}\n" for i, t in enumerate(traces)))
    out = apply_labels(runs, Labels(meta=meta))
    assert out["benchmark"].to_list() == [f"b{i}" for i in range(len(traces))]
    assert set(out["config"].to_list()) == {"default"}  # no config column: one config
    assert out["x"].null_count() == len(traces)


def test_unmatched_runs_are_an_error_that_names_them(tmp_path):
    runs = SD.flat("unhealthy")
    meta = tmp_path / "meta.csv"
    meta.write_text(f"trace,benchmark,x\n{name('alpha', 2, 'cmc', 0)},alpha,2\n")
    with pytest.raises(UsageError, match=r"3 trace\(s\) have no row in --meta .*"
                                         + re.escape(name("alpha", 2, "cmc", 1))):
        apply_labels(runs, Labels(meta=meta))
    with pytest.raises(UsageError, match=r"4 trace name\(s\) do not match --name-pattern "
                                         r"'\{benchmark\}_\{x\}'.*" + re.escape(name("alpha", 2, "cmc", 0))):
        apply_labels(runs, Labels(name_pattern="{benchmark}_{x}"))
    meta.write_text("trace,benchmark,x\n" + "".join(
        f"{r.file_name},alpha,big\n" for r in SD.SS.unhealthy()))
    with pytest.raises(UsageError, match=r"heap multiple x is not a number for .*x='big'"):
        apply_labels(runs, Labels(meta=meta))
    with pytest.raises(UsageError, match="exactly one of"):
        Labels()


# -- the LBO table -----------------------------------------------------------------


def test_clean_study_lbo_exact():
    res = study("clean").lbo_result
    t = res.table
    assert res.excluded.is_empty() and res.flags.is_empty()
    # alpha: distilled cmc 100 ms, cc 105 ms -> baseline 100 ms
    a = row(t, "alpha", "cmc", 2)
    assert a["n"] == 3
    assert a["cost_mean_ns"] == 120 * MS and a["distilled_mean_ns"] == 100 * MS
    assert a["gc_mean_ns"] == 20 * MS and a["baseline_ns"] == 100 * MS
    assert a["lbo"] == pytest.approx(1.2, abs=1e-12)
    assert a["cost_sd_ns"] == pytest.approx(1 * MS)
    # 100 * t(0.975, 2) * 1 ms / sqrt(3) / 120 ms
    assert a["ci_pct"] == pytest.approx(100 * T975[2] / math.sqrt(3) / 120, rel=1e-9)
    assert a["ci_pct"] == pytest.approx(ci95_pct([119, 120, 121]), rel=1e-9)
    assert (a["ci_level"], a["iterations"], a["device"]) == (95, 3, "bench")
    expected = {("alpha", "cmc", 3): (1.10, [109, 110, 111]),
                ("alpha", "cc", 2): (1.35, [134, 135, 136]),
                ("alpha", "cc", 3): (1.20, [119, 120, 121]),
                ("beta", "cmc", 2): (1.25, [248, 250, 252]),
                ("beta", "cmc", 3): (1.10, [218, 220, 222]),
                ("beta", "cc", 2): (1.40, [278, 280, 282]),
                ("beta", "cc", 3): (1.25, [248, 250, 252])}
    for (bm, cfg, x), (lbo, costs) in expected.items():
        r = row(t, bm, cfg, x)
        assert r["lbo"] == pytest.approx(lbo, abs=1e-12), (bm, cfg, x)
        assert r["ci_pct"] == pytest.approx(ci95_pct(costs), rel=1e-9), (bm, cfg, x)
        assert r["lbo_ci"] == pytest.approx(lbo * ci95_pct(costs) / 100, rel=1e-9)
    assert row(t, "beta", "cc", 2)["baseline_ns"] == 200 * MS
    # summary rows: per config and x over both benchmarks
    s = t.filter(pl.col("kind") == "summary")
    got = {(r["benchmark"], r["config"], r["x"]): r["lbo"] for r in s.to_dicts()}
    assert got[("min", "cmc", 2)] == pytest.approx(1.2)
    assert got[("max", "cmc", 2)] == pytest.approx(1.25)
    assert got[("mean", "cmc", 2)] == pytest.approx(1.225)
    assert got[("geomean", "cmc", 2)] == pytest.approx(math.sqrt(1.2 * 1.25))
    assert got[("geomean", "cc", 2)] == pytest.approx(math.sqrt(1.35 * 1.4))
    assert got[("mean", "cmc", 3)] == pytest.approx(1.1)
    assert set(s["n"].to_list()) == {2} and set(s["covers"].to_list()) == {"alpha, beta"}
    assert s.height == 4 * 4


def test_table5_view_at_2x():
    wide = study("clean").at(2)
    assert wide.columns == ["kind", "device", "benchmark", "cc_lbo", "cc_ci_pct", "cmc_lbo",
                            "cmc_ci_pct", "flags", "in_summary", "covers"]
    assert wide["benchmark"].to_list() == ["alpha", "beta", "min", "max", "mean", "geomean"]
    assert wide["cmc_lbo"].to_list()[:3] == pytest.approx([1.2, 1.25, 1.2])
    assert wide["cc_lbo"].to_list()[:2] == pytest.approx([1.35, 1.4])
    assert wide["cc_ci_pct"][1] == pytest.approx(ci95_pct([278, 280, 282]))
    assert wide["covers"].to_list() == [None, None] + ["alpha, beta"] * 4
    with pytest.raises(UsageError, match=r"no runs at x=5 \(heap multiples in the study: 2, 3\)"):
        study("clean").at(5)


def test_flags_are_listed_and_never_change_a_summary_row():
    res = study("flagged").lbo_result
    flags = {(r["benchmark"], r["flag"], r["x"]) for r in res.flags.to_dicts()}
    # chaos: 3x costs 130 +- 2.48 ms > 2x 110 +- 2.48 ms; jitter: CI +-22.6% / +-23.7%
    assert flags == {("chaos", "chaotic", 3.0), ("jitter", "noisy", 2.0), ("jitter", "noisy", 3.0)}
    chaotic = res.flags.filter(pl.col("flag") == "chaotic")["detail"][0]
    assert chaotic.startswith("cmc at 3x costs 130.000 ms ±1.91%, more than at 2x (110.000 ms ±2.26%")
    noisy = res.flags.filter((pl.col("flag") == "noisy") & (pl.col("x") == 2))["detail"][0]
    assert noisy == (f"cmc at 2x: 95% CI ±{ci95_pct([100, 110, 120]):.2f}% of the mean over 3 "
                     "invocations exceeds ±5%")
    assert row(res.table, "jitter", "cmc", 2)["ci_pct"] == pytest.approx(ci95_pct([100, 110, 120]))
    assert row(res.table, "jitter", "cmc", 2)["flags"] == "noisy"
    assert row(res.table, "calm", "cmc", 2)["flags"] is None
    # the summary rows cover all three: calm 1.2, chaos 1.1, jitter 1.1 at 2x
    s = {(r["benchmark"], r["x"]): r for r in res.table.filter(pl.col("kind") == "summary").to_dicts()}
    assert (s[("mean", 2)]["lbo"], s[("mean", 2)]["n"]) == (pytest.approx(3.4 / 3), 3)
    assert s[("mean", 2)]["covers"] == "calm, chaos, jitter"
    assert s[("geomean", 2)]["lbo"] == pytest.approx((1.2 * 1.1 * 1.1) ** (1 / 3))
    assert s[("min", 2)]["lbo"] == pytest.approx(1.1)
    # --drop-flagged: calm alone
    dropped = study("flagged", drop_flagged=True).lbo_result.table
    s = {(r["benchmark"], r["x"]): r for r in dropped.filter(pl.col("kind") == "summary").to_dicts()}
    assert (s[("mean", 2)]["lbo"], s[("mean", 2)]["n"], s[("mean", 2)]["covers"]) == (
        pytest.approx(1.2), 1, "calm")
    assert row(dropped, "jitter", "cmc", 2)["in_summary"] is False
    # a wider noise threshold un-flags jitter (CI 23.66% < 25%)
    wide = study("flagged", noisy_ci_pct=25).lbo_result.flags
    assert set(wide["flag"].to_list()) == {"chaotic"}


def test_exclude_benchmark_by_name():
    res = study("flagged", exclude_benchmarks=("chaos",)).lbo_result
    s = {(r["benchmark"], r["x"]): r for r in res.table.filter(pl.col("kind") == "summary").to_dicts()}
    # calm 1.2 and jitter 1.1 at 2x
    assert (s[("mean", 2)]["lbo"], s[("mean", 2)]["covers"]) == (pytest.approx(1.15), "calm, jitter")
    assert row(res.table, "chaos", "cmc", 2)["in_summary"] is False
    with pytest.raises(UsageError, match=r"--exclude-benchmark 'beta': no such benchmark \(the "
                                         r"study has calm, chaos, jitter\)"):
        study("flagged", exclude_benchmarks=("beta",)).lbo_result


def test_unhealthy_runs_are_excluded_with_reasons():
    res = study("unhealthy").lbo_result
    assert res.excluded.height == 1
    ex = res.excluded.to_dicts()[0]
    assert ex["trace"].endswith(name("alpha", 2, "cmc", 3))
    assert ex["reason"] == "unhealthy: off_mask_cpu"
    assert "20 ms (13.33% of app CPU) on CPUs 2 outside the allowed 6,7" in ex["detail"]
    a = row(res.table, "alpha", "cmc", 2)
    assert (a["n"], a["cost_mean_ns"], a["lbo"]) == (3, 110 * MS, pytest.approx(1.1))
    # kept: costs 109, 110, 111, 150 ms; distilled 99, 100, 101, 140 ms
    incl = study("unhealthy", include_unhealthy=True).lbo_result
    assert incl.excluded.is_empty()
    a = row(incl.table, "alpha", "cmc", 2)
    assert (a["n"], a["cost_mean_ns"], a["baseline_ns"]) == (4, 120 * MS, 110 * MS)
    assert a["lbo"] == pytest.approx(120 / 110)
    assert a["ci_pct"] == pytest.approx(ci95_pct([109, 110, 111, 150]))


def test_error_runs_are_excluded_never_silent(tmp_path):
    runs = SD.flat("unhealthy")
    broken = pl.DataFrame({"trace": [name("alpha", 2, "cmc", 9)], "run": [0],
                           "error": ["not a trace"]})
    no_sched = pl.DataFrame({"trace": [name("alpha", 2, "cmc", 8)], "run": [0],
                             "health_verdict": ["warn"], "gc_app_cpu_ns": [None]},
                            schema_overrides={"gc_app_cpu_ns": pl.Int64})
    runs = apply_labels(pl.concat([runs, broken, no_sched], how="diagonal_relaxed"),
                        Labels(name_pattern=PRESET))
    res = compute_lbo(runs)
    assert sorted(res.excluded["reason"].to_list()) == ["error", "no_cost",
                                                        "unhealthy: off_mask_cpu"]
    assert res.excluded.filter(pl.col("reason") == "error")["detail"][0] == "not a trace"
    assert row(res.table, "alpha", "cmc", 2)["n"] == 3


# -- inputs: traces and saved analyze output, API and CLI ---------------------------


@pytest.mark.parametrize("fmt", ["json", "csv", "parquet"])
def test_saved_analyze_output_gives_the_same_table(fmt):
    saved = SD.saved_output("clean", fmt)
    runs = apply_labels(load_runs([saved]), Labels(name_pattern=PRESET))
    got = compute_lbo(runs).table
    want = study("clean").lbo_result.table
    assert got.select("benchmark", "config", "x", "n", "lbo", "ci_pct").equals(
        want.select("benchmark", "config", "x", "n", "lbo", "ci_pct"))


def test_api_study_from_a_folder_of_traces():
    st = artscope.study(SD.study_dir("unhealthy"), app=APP, cpus=CPUS, name_pattern=PRESET,
                        engine="embedded", jobs=2)
    assert st.runs.height == 4
    assert st.excluded()["reason"].to_list() == ["unhealthy: off_mask_cpu"]
    assert row(st.lbo(), "alpha", "cmc", 2)["lbo"] == pytest.approx(1.1)


def test_cli_lbo_from_traces_json():
    p = run_cli("lbo", str(SD.study_dir("unhealthy")), "--app", APP, "--cpus", CPUS,
                "--name-pattern", PRESET, "--engine", "embedded", "--jobs", "2", "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    a = [r for r in doc["rows"] if r["kind"] == "benchmark"]
    assert len(a) == 1 and a[0]["lbo"] == pytest.approx(1.1) and a[0]["n"] == 3
    assert doc["excluded"][0]["reason"] == "unhealthy: off_mask_cpu"
    assert (f"artscope: excluded {name('alpha', 2, 'cmc', 3)} run 0: unhealthy: off_mask_cpu"
            in p.stderr)
    assert "artscope: summary rows cover 1 of 1 benchmarks: alpha" in p.stderr


def test_cli_lbo_at_from_saved_output_csv_and_table(tmp_path):
    saved = SD.saved_output("clean", "json")
    out = tmp_path / "t5.csv"
    p = run_cli("lbo", str(saved), "--name-pattern", PRESET, "--at", "2", "--format", "csv",
                "-o", str(out))
    assert p.returncode == 0, p.stderr
    df = pl.read_csv(out)
    assert set(df["x"].to_list()) == {2.0}
    assert df.filter(pl.col("benchmark") == "geomean")["lbo"].to_list() == pytest.approx(
        [math.sqrt(1.35 * 1.4), math.sqrt(1.2 * 1.25)])
    p = run_cli("lbo", str(saved), "--name-pattern", PRESET, "--at", "2")
    assert p.returncode == 0, p.stderr
    assert "1.200 ±2.07%" in p.stdout and "1.350 ±1.84%" in p.stdout
    assert "geomean" in p.stdout


def test_cli_lbo_table_greys_flagged_and_lists_them():
    p = run_cli("lbo", str(SD.saved_output("flagged", "parquet")), "--name-pattern", PRESET)
    assert p.returncode == 0, p.stderr
    assert "flagged chaos (chaotic): cmc at 3x costs 130.000 ms" in p.stdout
    assert "flagged jitter (noisy)" in p.stdout
    assert "flags never change a summary row" in p.stdout
    assert "summary rows cover 3 of 3 benchmarks: calm, chaos, jitter" in p.stdout
    p = run_cli("lbo", str(SD.saved_output("flagged", "parquet")), "--name-pattern", PRESET,
                "--drop-flagged")
    assert ("summary rows cover 1 of 3 benchmarks: calm; left out as flagged (--drop-flagged): "
            "chaos, jitter") in p.stdout


def test_cli_lbo_meta_with_renamed_columns(tmp_path):
    meta = tmp_path / "runs.csv"
    meta.write_text("trace,bm,gc,hfac,rep\n" + "".join(
        f"{r.file_name},{r.benchmark},{r.config},{r.x:g}x,{r.invocation}\n"
        for r in SD.SS.clean()))
    out = tmp_path / "lbo.parquet"
    p = run_inprocess("lbo", str(SD.saved_output("clean", "csv")), "--meta", str(meta),
                      "--benchmark-col", "bm", "--config-col", "gc", "--x-col", "hfac",
                      "--invocation-col", "rep", "--format", "parquet", "-o", str(out))
    assert p.returncode == 0, p.stderr
    df = pl.read_parquet(out)
    assert df.columns == ["kind", "device", "benchmark", "config", "x", "n", "iterations",
                          "cost_mean_ns", "cost_sd_ns", "gc_mean_ns", "distilled_mean_ns",
                          "baseline_ns", "lbo", "lbo_ci", "ci_pct", "ci_level", "flags",
                          "in_summary", "covers"]
    assert row(df, "beta", "cc", 3)["lbo"] == pytest.approx(1.25)


def test_the_same_run_twice_is_an_error():
    saved = SD.saved_output("unhealthy", "json")
    with pytest.raises(UsageError, match=r"4 run\(s\) given more than once: alpha\.2000\.512"):
        load_runs([saved, SD.saved_output("unhealthy", "csv")])


def test_cli_lbo_bad_input_is_one_line(tmp_path):
    saved = str(SD.saved_output("clean", "json"))
    assert "no runs at x=4" in one_line_error(run_inprocess("lbo", saved, "--name-pattern", PRESET,
                                                      "--at", "4"))
    assert "exactly one of --meta" in one_line_error(run_inprocess("lbo", saved))
    meta = tmp_path / "m.csv"
    meta.write_text("trace,benchmark\nnothing.pftrace,a\n")
    assert "24 trace(s) have no row in --meta" in one_line_error(
        run_inprocess("lbo", saved, "--meta", str(meta)))
    trace_dir = str(SD.study_dir("unhealthy"))
    assert "--app" in one_line_error(run_inprocess("lbo", trace_dir, "--name-pattern", PRESET))
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert "not artscope analyze output" in one_line_error(
        run_inprocess("lbo", str(bad), "--name-pattern", PRESET))
    out = tmp_path / "o.json"
    one_line_error(run_inprocess("lbo", saved, "--name-pattern", PRESET, "--at", "4",
                           "--format", "json", "-o", str(out)))
    assert not out.exists()


def test_real_trace_study_end_to_end(shared_traces, tmp_path):
    """A real Pixel 6a trace as a one-run study: its health check fails (it was
    not captured pinned), so by default nothing is left; kept, its window has
    no GC slice (the README beside the real traces), so distilled = cost and LBO = 1."""
    api32 = shared_traces / "perfskills-api32_startup_warm.perfetto-trace"
    meta = tmp_path / "meta.csv"
    meta.write_text(f"trace,benchmark,config,x\n{api32.name},startup,cmc,2\n")
    kw = dict(app="com.google.android.gms.persistent", cpus="big", meta=meta, engine="embedded",
              jobs=1)
    st = artscope.study(api32, **kw)
    with pytest.raises(UsageError, match=r"no runs left to study \(1 excluded: unhealthy: "):
        st.lbo()
    assert st.excluded()["reason"][0].startswith("unhealthy: ")
    kept = artscope.study(api32, include_unhealthy=True, **kw)
    r = row(kept.lbo(), "startup", "cmc", 2)
    assert r["n"] == 1 and r["gc_mean_ns"] == 0 and r["lbo"] == 1.0 and r["ci_pct"] is None
    assert r["cost_mean_ns"] == kept.runs["gc_app_cpu_ns"][0] > 0
    assert kept.noise().sentences() == ["startup / cmc / 2x: only 1 run: too few to say why "
                                        "they disagree"]
