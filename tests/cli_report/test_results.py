"""Results datasets (`-o DIR/`, artscope.results): one part per trace, written
atomically, resumable without re-reading finished traces, and read back as
exactly the rows a single run gives. The batch is tests/batch_traces.py's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import batch_traces as BT
import polars as pl
import pytest

import artscope
from artscope.errors import UsageError
from artscope.results import INDEX, MANIFEST

SEL = ["--app", BT.APP, "--cpus", BT.CPUS]


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "artscope.cli", *args],
                          capture_output=True, text=True, timeout=timeout)


def summary(p: subprocess.CompletedProcess) -> str:
    (line,) = [x for x in p.stderr.splitlines() if "analysed," in x]
    return line.split(": ", 2)[-1]


def index_lines(d: Path) -> list[dict]:
    return [json.loads(x) for x in (d / INDEX).read_text().splitlines()]


def parts(d: Path) -> list[str]:
    return sorted(n for n in os.listdir(d) if n.endswith(".parquet"))


def non_null(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None}


def copy_traces(traces: list[Path], dest: Path) -> list[Path]:
    dest.mkdir()
    out = []
    for t in traces:
        shutil.copy2(t, dest / t.name)
        out.append(dest / t.name)
    return out


# -- a dataset is the single run, split into parts --------------------------------


def test_dataset_holds_exactly_the_single_run(generated_batch, generated_reference, tmp_path):
    d = tmp_path / "ds"
    p = cli("analyze", *map(str, generated_batch), *SEL, "--jobs", "2", "-o", f"{d}/")
    assert p.returncode == 2, p.stderr  # zz_bad is an error row, as without -o
    assert p.stdout == ""
    assert summary(p) == "21 trace(s), 21 analysed, 0 reused"
    assert "artscope: error: " in p.stderr and "zz_bad.pftrace" in p.stderr
    df = artscope.load_results(d)
    assert df.schema == generated_reference.schema
    assert df.equals(generated_reference)
    assert df["trace"].to_list() == [str(t) for t in generated_batch]
    # numbers known from the tiny traces' schedules (batch_traces.tiny_truth)
    for k in range(BT.N_TINY):
        row = df.filter(pl.col("trace").str.ends_with(f"tiny_{k}.pftrace"))
        assert row.select(list(BT.tiny_truth(k))).to_dicts() == [BT.tiny_truth(k)]
    # one part per trace: 20 keyed by content + options, 1 error part
    names = parts(d)
    assert len(names) == 21 and sum(n.startswith("err-") for n in names) == 1
    assert not [n for n in os.listdir(d) if n.startswith(".artscope-")]
    manifest = json.loads((d / MANIFEST).read_text())
    assert manifest["traces"] == [str(t) for t in generated_batch]
    entries = index_lines(d)
    assert len(entries) == 21
    for e in entries:
        if e["error"] is None:
            assert e["part"] == f"{e['content_hash'][:24]}-{manifest['options_hash'][:12]}.parquet"


def test_resume_trusts_path_size_mtime_and_force_recomputes(generated_batch, tmp_path):
    traces = copy_traces(BT.tiny_traces(generated_batch) + generated_batch[-1:],
                         tmp_path / "t")
    d = tmp_path / "ds"
    args = ["analyze", *map(str, traces), *SEL, "--jobs", "1", "-o", f"{d}/"]
    first = cli(*args)
    assert summary(first) == "5 trace(s), 5 analysed, 0 reused"
    before = artscope.load_results(d)

    # Same path, size and mtime, different bytes: a resume does not read the
    # trace, so the old rows stand. Error rows are always retried.
    st = traces[0].stat()
    traces[0].write_bytes(b"\0" * st.st_size)
    os.utime(traces[0], ns=(st.st_atime_ns, st.st_mtime_ns))
    again = cli(*args)
    assert summary(again) == "5 trace(s), 1 analysed, 4 reused"
    assert artscope.load_results(d).equals(before)

    # A new mtime means a changed trace: tiny_1 gets tiny_2's bytes.
    shutil.copyfile(traces[2], traces[1])
    changed = cli(*args)
    assert summary(changed) == "5 trace(s), 2 analysed, 3 reused"
    df = artscope.load_results(d)
    assert df["gc_app_cpu_ns"].to_list()[:3] == [35 * BT.MS, 55 * BT.MS, 55 * BT.MS]
    assert df["trace"].to_list() == [str(t) for t in traces]  # shared part, own path

    # --force recomputes everything: tiny_0's zeroed bytes are now an error.
    forced = cli(*args[:-2], "--force", "-o", f"{d}/")
    assert summary(forced) == "5 trace(s), 5 analysed, 0 reused"
    df = artscope.load_results(d)
    assert df["error"].to_list()[0] is not None and df["error"].to_list()[1] is None
    # the index holds one line per trace; superseded parts are gone
    assert len(index_lines(d)) == 5
    assert len(parts(d)) == 4  # tiny_1 and tiny_2 share a part; two error parts


def test_a_run_reads_back_only_the_parts_it_did_not_write(generated_batch, monkeypatch,
                                                        tmp_path):
    """What a study reads after analysing into a dataset (DatasetRun.frame)
    is load_results' frame: the parts this run wrote come from memory, the
    reused ones are read; two traces with the same bytes share a part and
    keep their own names; the bad trace's error row is there."""
    from artscope import results
    from artscope.metrics.options import AnalysisOptions
    from artscope.results import analyze_to_dataset

    traces = copy_traces(BT.tiny_traces(generated_batch) + generated_batch[-1:],
                         tmp_path / "t")
    shutil.copyfile(traces[2], traces[1])  # tiny_1 holds tiny_2's bytes
    paths = [str(t) for t in traces]
    opts = AnalysisOptions(app=BT.APP, cpus=BT.CPUS)
    read: list[str] = []
    read_parts = results._read_parts

    def recorded(files: list[str]) -> tuple[pl.DataFrame, list[int]]:
        read.extend(os.path.basename(f) for f in files)
        return read_parts(files)

    monkeypatch.setattr(results, "_read_parts", recorded)
    d = str(tmp_path / "ds")
    first = analyze_to_dataset(d, paths[:2], opts, engine="embedded", jobs=1)
    assert (first.analysed, first.reused) == (2, 0)
    assert first.frame().equals(artscope.load_results(d)) and first.frame().height == 2
    assert read == [e["part"] for e in index_lines(Path(d))]  # load_results only
    read.clear()
    run = analyze_to_dataset(d, paths, opts, engine="embedded", jobs=1)
    assert (run.analysed, run.reused) == (3, 2)
    df = run.frame()
    assert read == [e["part"] for e in index_lines(Path(d))[:1]]  # the part tiny_0 wrote
    assert df.equals(artscope.load_results(d))
    assert df["trace"].to_list() == paths
    assert df["gc_app_cpu_ns"].to_list()[:4] == [35 * BT.MS, 55 * BT.MS, 55 * BT.MS, 65 * BT.MS]
    assert df["error"].to_list()[-1] is not None


def test_options_are_part_of_the_key(generated_batch, tmp_path):
    traces = [str(t) for t in BT.tiny_traces(generated_batch)[:2]]
    d = tmp_path / "ds"
    assert summary(cli("analyze", *traces, *SEL, "-o", f"{d}/")) == \
        "2 trace(s), 2 analysed, 0 reused"
    other = cli("analyze", *traces, "--app", BT.APP, "--cpus", "2,3", "-o", f"{d}/")
    assert summary(other) == "2 trace(s), 2 analysed, 0 reused"
    # the dataset is the last run's: off-mask is now the CPU 6 time
    assert artscope.load_results(d)["pinning_off_mask_cpu_ns"].to_list() == [30 * BT.MS,
                                                                             40 * BT.MS]
    # switching back reuses the first run's parts
    assert summary(cli("analyze", *traces, *SEL, "-o", f"{d}/")) == \
        "2 trace(s), 0 analysed, 2 reused"


@pytest.mark.slow
def test_killed_batch_loses_nothing_and_resumes(generated_batch, generated_reference,
                                                tmp_path):
    d = tmp_path / "ds"
    args = [sys.executable, "-m", "artscope.cli", "analyze", *map(str, generated_batch),
            *SEL, "--jobs", "2", "-o", f"{d}/"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (d / INDEX).exists() and len((d / INDEX).read_text().splitlines()) >= 3:
                break
            time.sleep(0.02)
        # the client and its pool workers, at once, mid-write or not
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    done = index_lines(d)
    assert 3 <= len(done) < 21, "the batch must be killed in the middle"
    # whatever was finished is readable now, each row once, in input order
    with pytest.warns(UserWarning, match="not finished yet"):
        partial = artscope.load_results(d)
    finished = {e["trace"] for e in done}
    expected = generated_reference.filter(pl.col("trace").is_in(list(finished)))
    # (the full batch has more columns, null on these rows)
    assert [non_null(r) for r in partial.to_dicts()] == \
        [non_null(r) for r in expected.to_dicts()]
    # a kill during a write leaves a temp file and a cut index line: neither counts
    (d / ".artscope-half").write_bytes(b"PAR1 half a part")
    with open(d / INDEX, "a") as f:
        f.write('{"trace": "cut')
    again = cli(*args[3:])
    ok = len([e for e in done if e["error"] is None])  # error rows are retried
    assert summary(again) == f"21 trace(s), {21 - ok} analysed, {ok} reused"
    df = artscope.load_results(d)
    assert df.equals(generated_reference)
    assert len(index_lines(d)) == 21
    assert not [n for n in os.listdir(d) if n.startswith(".artscope-")]


# -- check, URLs, the Python API ----------------------------------------------------


def test_check_keeps_results_and_reuses_them(generated_batch, tmp_path):
    tiny = [str(t) for t in BT.tiny_traces(generated_batch)]
    d = tmp_path / "ds"
    first = cli("check", *tiny, *SEL, "-o", str(d))
    # 5 ms of 35+ ms on CPU 2 > the 1% off-mask threshold: every run fails
    assert first.returncode == 1, first.stderr
    assert first.stdout.count(" fail ") == BT.N_TINY
    second = cli("check", *tiny, *SEL, "-o", str(d))
    assert second.returncode == 1 and second.stdout == first.stdout
    assert summary(second) == f"{BT.N_TINY} trace(s), 0 analysed, {BT.N_TINY} reused"
    assert artscope.load_results(d).height == BT.N_TINY


def test_file_urls_and_api(generated_batch, generated_reference, tmp_path):
    tiny = BT.tiny_traces(generated_batch)
    tiny_dir = tmp_path / "tiny"
    copy_traces(tiny[:2], tiny_dir)
    urls = [f"file://{tiny_dir}/", f"file://{tiny[2]}"]
    df = artscope.analyze(urls, app=BT.APP, cpus=BT.CPUS, jobs=1, output=tmp_path / "ds")
    assert df["trace"].to_list() == [f"file://{tiny_dir}/tiny_0.pftrace",
                                     f"file://{tiny_dir}/tiny_1.pftrace", f"file://{tiny[2]}"]
    assert df.equals(artscope.load_results(tmp_path / "ds"))
    ref = generated_reference.filter(pl.col("trace").is_in([str(t) for t in tiny[:3]]))
    assert [non_null(r) for r in df.drop("trace").to_dicts()] == \
        [non_null(r) for r in ref.drop("trace").to_dicts()]


# -- bad input: one line, exit 2 ----------------------------------------------------


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("artscope: error: "), p.stderr
    return lines[0]


def test_bad_dataset_usage(generated_batch, tmp_path):
    t = str(BT.tiny_traces(generated_batch)[0])
    assert "writes a Parquet dataset" in one_line_error(
        cli("analyze", t, *SEL, "--format", "json", "-o", f"{tmp_path}/ds/"))
    assert "not an artscope results directory" in one_line_error(
        cli("analyze", t, *SEL, "-o", str(generated_batch[0].parent)))
    assert "--force only applies" in one_line_error(cli("analyze", t, *SEL, "--force"))
    with pytest.raises(UsageError, match="not an artscope results directory"):
        artscope.load_results(tmp_path)


def test_one_writer_per_dataset(generated_batch, tmp_path):
    from artscope.results import ResultStore

    d = tmp_path / "ds"
    with ResultStore(str(d), "0" * 64):
        p = cli("analyze", str(generated_batch[0]), *SEL, "-o", f"{d}/")
        assert "being written by another artscope run" in one_line_error(p)


def test_cluster_without_dask_is_one_line(generated_batch):
    # dask/distributed are an optional extra: simulate an install without it.
    code = ("import sys; sys.modules['distributed'] = None; from artscope.cli import main; "
            "main(prog_name='artscope')")
    p = subprocess.run([sys.executable, "-c", code, "analyze", str(generated_batch[0]), *SEL,
                        "--cluster", "local:2"], capture_output=True, text=True, timeout=60)
    assert "pip install 'artscope[cluster]'" in one_line_error(p)


# -- study commands: a dataset as input, -o DIR/ as their analysis store -------------


@pytest.mark.slow
def test_lbo_and_noise_read_and_write_datasets(tmp_path):
    import study_data as SD

    src = SD.study_dir("unhealthy")
    traces = tmp_path / "unhealthy"
    copy_traces(sorted(src.glob("*.pftrace")), traces)
    d = tmp_path / "ds"
    sel = ["--app", SD.APP, "--cpus", SD.CPUS, "--engine", "embedded", "--jobs", "2"]
    lbo = ["lbo", "--name-pattern", SD.PRESET, "--format", "json"]
    first = cli(*lbo, str(traces), *sel, "-o", f"{d}/")
    assert first.returncode == 0, first.stderr
    n = len(list(traces.glob("*.pftrace")))
    assert summary(first) == f"{n} trace(s), {n} analysed, 0 reused"
    # the numbers test_study_lbo derives by hand for this set: LBO 1.1 over 3 runs
    (a,) = [r for r in json.loads(first.stdout)["rows"] if r["kind"] == "benchmark"]
    assert a["lbo"] == pytest.approx(1.1) and a["n"] == 3
    assert artscope.load_results(d).height == 4
    # the dataset as input gives the same table
    assert cli(*lbo, str(d)).stdout == first.stdout
    # a rerun resumes: a trace whose size and mtime did not change is not read
    victim = sorted(traces.glob("*.pftrace"))[0]
    st = victim.stat()
    victim.write_bytes(b"\0" * st.st_size)
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = cli(*lbo, str(traces), *sel, "-o", f"{d}/")
    assert again.returncode == 0 and again.stdout == first.stdout
    assert summary(again) == f"{n} trace(s), 0 analysed, {n} reused"
    forced = cli(*lbo, str(traces), *sel, "--force", "-o", f"{d}/")
    assert "artscope: excluded" in forced.stderr and victim.name in forced.stderr

    # noise: saved JSON, traces into -o DIR/, and that DIR all agree
    noise = ["noise", "--name-pattern", SD.PRESET, "--format", "json"]
    saved = cli(*noise, str(SD.saved_output("noisy_memfreq", "json")))
    assert saved.returncode == 0, saved.stderr
    d2 = tmp_path / "ds2"
    traced = cli(*noise, str(SD.study_dir("noisy_memfreq")), *sel, "-o", f"{d2}/")
    assert traced.returncode == 0, traced.stderr
    assert json.loads(traced.stdout) == json.loads(saved.stdout)
    assert cli(*noise, str(d2)).stdout == traced.stdout
