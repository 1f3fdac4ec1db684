"""The Dask backend (`--cluster`), on loopback only: a LocalCluster of 2 worker
processes gives the rows of `--jobs 1`; a worker killed mid-batch and a
client killed mid-batch lose no row and duplicate none.

dask/distributed are the optional `artscope[cluster]` extra; tools/test.sh
installs it so these run in CI.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import batch_traces as BT
import polars as pl
import pytest

import artscope
from artscope.results import INDEX, analyze_to_dataset

pytest.importorskip("distributed", reason="the artscope[cluster] extra is not installed")
psutil = pytest.importorskip("psutil", reason="psutil comes with distributed")

pytestmark = pytest.mark.slow

SEL = ["--app", BT.APP, "--cpus", BT.CPUS]
N = BT.N_TINY + BT.N_SIM + 1


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "artscope.cli", *args],
                          capture_output=True, text=True, timeout=300)


def index_lines(d) -> list[str]:
    return (d / INDEX).read_text().splitlines() if (d / INDEX).exists() else []


def test_local_cluster_gives_the_rows_of_jobs_1(generated_batch, generated_reference,
                                                tmp_path):
    traces = list(map(str, generated_batch))
    d = tmp_path / "ds"
    p = cli("analyze", *traces, *SEL, "--cluster", "local:2", "-o", f"{d}/")
    assert p.returncode == 2 and "zz_bad.pftrace" in p.stderr, p.stderr  # an error row
    assert f"{N} trace(s), {N} analysed, 0 reused" in p.stderr
    assert "Traceback" not in p.stderr
    df = artscope.load_results(d)
    assert df.schema == generated_reference.schema
    assert df.equals(generated_reference)
    # without a dataset too
    out = tmp_path / "all.parquet"
    p = cli("analyze", *traces, *SEL, "--format", "parquet", "-o", str(out),
            "--cluster", "local:2")
    assert p.returncode == 2, p.stderr
    assert pl.read_parquet(out).equals(generated_reference)


def _worker_pids() -> list[int]:
    """LocalCluster's worker processes: children of this process started by
    multiprocessing's spawn (not its resource tracker)."""
    return [c.pid for c in psutil.Process().children()
            if "spawn_main" in " ".join(c.cmdline())]


def test_worker_killed_mid_batch_loses_no_row(generated_batch, generated_reference,
                                              tmp_path):
    from artscope.metrics.options import AnalysisOptions

    killed: list[int] = []

    def kill_a_worker(done: int, total: int) -> None:
        if not killed:
            pids = _worker_pids()
            assert len(pids) == 2
            os.kill(pids[0], signal.SIGKILL)  # it is busy with its next trace by now
            killed.append(done)

    run = analyze_to_dataset(str(tmp_path / "ds"), list(map(str, generated_batch)),
                             AnalysisOptions(app=BT.APP, cpus=BT.CPUS), cluster="local:2",
                             progress=kill_a_worker)
    assert killed and killed[0] < N
    assert run.analysed == N and len(run.rows) == N
    assert artscope.load_results(tmp_path / "ds").equals(generated_reference)


def test_client_killed_mid_batch_then_resumed(generated_batch, generated_reference,
                                              tmp_path):
    d = tmp_path / "ds"
    args = [sys.executable, "-m", "artscope.cli", "analyze", *map(str, generated_batch),
            *SEL, "--cluster", "local:2", "-o", f"{d}/"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and len(index_lines(d)) < 3:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)  # the client only: its workers notice and exit
    finally:
        proc.wait()
    finished = len(index_lines(d))
    assert 3 <= finished < N, "the client must be killed in the middle of the batch"
    again = cli(*args[3:])
    assert f"{N} trace(s)" in again.stderr
    df = artscope.load_results(d)
    assert df.equals(generated_reference)  # every trace once, in input order
    assert len(index_lines(d)) == N
    assert len([n for n in os.listdir(d) if n.endswith(".parquet")]) == N
    assert not [n for n in os.listdir(d) if n.startswith(".artscope-")]


def test_bad_cluster_addresses_are_one_line_errors(generated_batch):
    t = str(generated_batch[0])
    for addr, msg in (("local:0", "needs N >= 1"), ("local:two", "use local:N"),
                      ("8786", "use tcp://HOST:PORT or local:N")):
        p = cli("analyze", t, *SEL, "--cluster", addr)
        assert p.returncode == 2 and msg in p.stderr and len(p.stderr.splitlines()) == 1, \
            p.stderr
    env = {**os.environ, "ARTSCOPE_CLUSTER": "local:0"}
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", t, *SEL],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 2 and "needs N >= 1" in p.stderr
    # an explicit --jobs wins over the environment's cluster
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", t, *SEL, "--jobs", "1"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
