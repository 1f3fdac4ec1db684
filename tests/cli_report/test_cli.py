"""The artscope command line: exit codes, bad input, output formats, schema.

Runs the real console entry point in a subprocess so that "no traceback,
one line on stderr" is checked as a user sees it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "fixtures"
SCHEMA = json.loads(
    (REPO / "pyanalysis/artscope/schema/analyze-output.schema.json").read_text())
APP = ["--app", "com.example.bench"]


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "artscope.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr
    assert lines[0].startswith("artscope: error: ")
    return lines[0]


def validate(doc: object) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


# -- exit codes ------------------------------------------------------------------

def test_check_pass_exits_0():
    p = run("check", str(FIX / "pinned_clean.pftrace"), *APP, "--cpus", "6,7")
    assert p.returncode == 0, p.stderr
    assert "pass" in p.stdout


def test_check_fail_exits_1_and_warn_threshold():
    late = str(FIX / "pinned_late.pftrace")
    assert run("check", late, *APP, "--cpus", "6,7").returncode == 1
    # pinned_clean has no warnings either: --fail-on warn still passes.
    assert run("check", str(FIX / "pinned_clean.pftrace"), *APP, "--cpus", "6,7",
               "--fail-on", "warn").returncode == 0
    # truncated: partial trace -> warn; fails only with --fail-on warn.
    trunc = str(FIX / "truncated.pftrace")
    assert run("check", trunc, *APP, "--cpus", "6,7").returncode == 0
    assert run("check", trunc, *APP, "--cpus", "6,7", "--fail-on", "warn").returncode == 1


def test_usage_errors_exit_2():
    assert "--app" in one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace")))
    one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP, "--cpus", "7-6"))
    one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP, "--window", "abc"))
    one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP,
                       "--window", "1:2", "--marker", "x"))


# -- bad input ---------------------------------------------------------------------

@pytest.mark.parametrize("content,expect", [
    (None, "no such file"),
    (b"", "empty file"),
    (bytes(range(256)) * 8, "not a Perfetto or systrace trace"),
    (b"hello, this is just a text file\nwith two lines\n", "not a Perfetto or systrace trace"),
])
def test_bad_input_one_line(tmp_path, content, expect):
    path = tmp_path / "input.bin"
    if content is not None:
        path.write_bytes(content)
    out = tmp_path / "out.json"
    line = one_line_error(run("analyze", str(path), *APP, "--format", "json", "-o", str(out)))
    assert expect in line
    assert not out.exists(), "no output file after an error"
    assert list(tmp_path.iterdir()) == ([path] if content is not None else [])


def test_app_not_in_trace_lists_the_best_candidates():
    line = one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), "--app", "nope"))
    assert line.startswith("artscope: error: app 'nope' is not in the trace; best candidates "
                           "(all: artscope apps TRACE): com.example.bench (pid 1000, ")
    # the benchmark (App Benchmark marker, frames, GCs) before systemui (an
    # app with more CPU but neither); then system processes: surfaceflinger
    # (display frames), init and zygote (never ran)
    assert re.findall(r"([\w./]+) \(pid (\d+)", line) == [
        ("com.example.bench", "1000"), ("com.android.systemui", "1500"),
        ("/system/bin/surfaceflinger", "600"), ("/system/bin/init", "1"), ("zygote64", "700")]
    assert "marker App Benchmark, 31 frames, 5 GC slices" in line


def test_marker_not_found():
    line = one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP,
                              "--marker", "No Such Marker"))
    assert line.endswith("marker slice 'No Such Marker' not found in the app's slices")


def test_truncated_trace_imports_what_is_intact():
    p = run("analyze", str(FIX / "truncated.pftrace"), *APP, "--cpus", "6,7",
            "--format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    validate(doc)
    assert doc[0]["partial"] is True
    assert "partial_trace" in [r["id"] for r in doc[0]["health"]["reasons"]]
    assert doc[0]["gc"]["app_cpu_ns"] > 0


def test_missing_data_is_null_and_named(tmp_path):
    p = run("analyze", str(FIX / "no_sched.pftrace"), *APP, "--format", "json")
    assert p.returncode == 0, p.stderr
    (r,) = json.loads(p.stdout)
    assert r["gc"]["app_cpu_ns"] is None
    assert r["pinning"]["off_mask_cpu_ns"] is None
    assert r["health"]["verdict"] == "warn"
    (missing,) = [x for x in r["health"]["reasons"] if x["id"] == "sched_missing"]
    assert "perfetto-configs/artscope-" in missing["message"]
    # no CPU frequency at all: stability is unknown, and said so
    assert r["cpufreq"] == []
    (freq,) = [x for x in r["health"]["reasons"] if x["id"] == "cpufreq_missing"]
    assert freq["message"].startswith("no CPU frequency data in the trace")


def test_batch_bad_trace_is_a_row(tmp_path):
    bad = tmp_path / "bad.pftrace"
    bad.write_bytes(b"\x00\x01\x02garbage")
    out = tmp_path / "out.json"
    p = run("analyze", str(FIX / "pinned_clean.pftrace"), str(bad), *APP,
            "--format", "json", "-o", str(out), "--jobs", "1")
    assert p.returncode == 2
    doc = json.loads(out.read_text())
    validate(doc)
    assert [("error" in r) for r in doc] == [False, True]
    assert doc[1]["trace"] == str(bad)


# -- formats ---------------------------------------------------------------------

def test_json_every_fixture_validates(tmp_path):
    out = tmp_path / "all.json"
    p = run("analyze", str(FIX), *APP, "--cpus", "big", "--format", "json", "-o", str(out))
    # Two error rows, so exit 2: tid_reuse has no com.example.bench, and
    # no_sched has no CPU data to tell which cores are "big".
    assert p.returncode == 2
    doc = json.loads(out.read_text())
    validate(doc)
    errors = {Path(r["trace"]).name: r["error"] for r in doc if "error" in r}
    assert sorted(errors) == ["no_sched.pftrace", "tid_reuse.pftrace"]
    assert "the trace has no CPU data" in errors["no_sched.pftrace"]
    ok = [r for r in doc if "error" not in r]
    assert len(ok) == 9
    # --engine auto: trace_processor when a binary is available locally, else embedded.
    from artscope.engines.trace_processor import find_local_binary

    auto = "trace_processor" if find_local_binary() else "embedded"
    for r in ok:
        assert r["engine"] == auto
        assert set(r) >= {"trace", "run", "engine", "window", "process", "gc", "pinning",
                          "jank", "cpufreq", "memfreq", "health"}


def test_csv_and_parquet_one_row_per_run(tmp_path):
    trace = str(FIX / "pinned_late.pftrace")
    csv_out, pq_out = tmp_path / "o.csv", tmp_path / "o.parquet"
    assert run("analyze", trace, *APP, "--cpus", "6,7", "--format", "csv",
               "-o", str(csv_out)).returncode == 0
    assert run("analyze", trace, *APP, "--cpus", "6,7", "--format", "parquet",
               "-o", str(pq_out)).returncode == 0
    for df in (pl.read_csv(csv_out), pl.read_parquet(pq_out)):
        assert df.height == 1
        row = df.row(0, named=True)
        assert row["gc_app_cpu_ns"] == 3_205_000_000
        assert row["pinning_off_mask_cpu_ns"] == 1_574_000_000
        assert row["health_verdict"] == "fail"


def test_table_output_is_readable():
    p = run("analyze", str(FIX / "pinned_late.pftrace"), *APP, "--cpus", "6,7")
    assert p.returncode == 0
    assert "verdict" in p.stdout and "fail" in p.stdout
    assert "memfreq_unstable" in p.stdout


def test_gzip_and_plain_give_same_json(tmp_path):
    a = json.loads(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP, "--cpus", "6,7",
                       "--format", "json").stdout)
    b = json.loads(run("analyze", str(FIX / "pinned_clean.pftrace.gz"), *APP, "--cpus", "6,7",
                       "--format", "json").stdout)
    for r in a + b:
        r.pop("trace")
    assert a == b


def test_output_written_atomically_over_existing(tmp_path):
    out = tmp_path / "o.json"
    out.write_text("previous")
    p = run("analyze", str(tmp_path / "missing.pftrace"), *APP, "--format", "json",
            "-o", str(out))
    assert p.returncode == 2
    assert out.read_text() == "previous"
    assert sorted(os.listdir(tmp_path)) == ["o.json"]


def test_click_usage_errors_are_one_line():
    line = one_line_error(run("analyze"))
    assert "Missing argument" in line and "artscope analyze -h" in line
    line = one_line_error(run("analyze", str(FIX / "pinned_clean.pftrace"), *APP,
                              "--format", "xml"))
    assert "--format" in line
    one_line_error(run("no-such-command"))
