"""Engine parity where a bad query plan would show, and on the real traces.

* A generated trace of ~50k sched_switch (bench/gen_trace.py's simulated
  8-CPU phone: the app pinned to CPUs 6,7 with off-mask slices, ART GCs on
  HeapTaskDaemon, frequencies, frame timeline), analysed through the CLI on
  both engines: the JSON must be identical but for the ``engine`` field. At
  this size the metric SQL's old range joins took minutes on trace_processor.
* Every real trace beside the checkout (``shared_traces``): every per-run
  result identical.

Both need a real trace_processor (ARTSCOPE_TP_BIN, or trace_processor_shell on
PATH); they skip, saying so, without one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_parity import assert_parity, tp_bin  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import gen_trace  # noqa: E402

SHARED_CASES = {
    "perfskills-api32_startup_warm.perfetto-trace":
        dict(app="androidx.benchmark.integration.macrobenchmark.target", cpus="big"),
    "nia-sidky.perfetto-trace": dict(app="com.google.samples.apps.nowinandroid.demo"),
    "trappy-surfaceflinger.html": dict(app=None, pid=594),  # no process names in it
}


@pytest.fixture(scope="module")
def trace_50k(tmp_path_factory) -> Path:
    sim = gen_trace.simulate(seconds=1.5, switches=50_000, seed=3)
    assert sim.n_switches >= 45_000
    path = tmp_path_factory.mktemp("scale") / "bench-50k.pftrace"
    path.write_bytes(gen_trace.encode(sim, compact=True))
    return path


def analyze_json(path: Path, engine: str, tp: str) -> list[dict]:
    p = subprocess.run(
        [sys.executable, "-m", "artscope.cli", "analyze", str(path), "--app", gen_trace.APP,
         "--cpus", "6,7", "--engine", engine, "--tp-bin", tp, "--format", "json"],
        capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.slow
def test_50k_switch_trace_identical_json_on_both_engines(tp_bin, trace_50k):
    embedded = analyze_json(trace_50k, "embedded", tp_bin)
    tp = analyze_json(trace_50k, "trace_processor", tp_bin)
    assert [r["engine"] for r in embedded] == ["embedded"]
    assert [r["engine"] for r in tp] == ["trace_processor"]
    # The trace has what makes the heavy metrics heavy, so the comparison means something.
    run = embedded[0]
    assert run["gc"]["gc_count"] > 0 and run["gc"]["gc_cpu_ns"] > 0
    assert run["pinning"]["off_mask_cpu_ns"] > 0 and run["pinning"]["migrations"] > 0
    for r in embedded + tp:
        r.pop("engine")
    assert embedded == tp


@pytest.mark.parametrize("name", sorted(SHARED_CASES))
def test_shared_trace_results_parity(tp_bin, shared_traces, name):
    assert_parity("results", shared_traces / name, tp_bin=tp_bin, **SHARED_CASES[name])
