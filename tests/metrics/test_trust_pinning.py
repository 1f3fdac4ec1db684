"""Off-mask time diagnosed from the schedule: never pinned, pinned late, mask
lost. W = [100, 1100) ms (1000 ms, 100 bins of 10 ms); allowed CPU 6; the
main thread is the only app thread and runs without a gap, so its CPU time
is 1000 ms and every "at" below is plain arithmetic on the schedule."""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import MAIN, CpuFreq, run, t

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]
W = "+100ms:+1100ms"


def _run(tmp_path, engine, name, runs):
    sch = MT.tiny(name, 1200, runs=runs,
                  cpufreq=[CpuFreq(t(0), c, 2_800_000) for c in (2, 6)]
                  + [CpuFreq(t(1200), 6, 2_800_000)])
    path = MT.write(sch, tmp_path)
    if engine == "embedded":
        (r,) = MT.analyze(path, cpus="6", window=W)
        return r
    import artscope

    with artscope.open(str(path), app=MT.APP, cpus="6", window=W, engine=engine) as rs:
        return rs.results[0]


def _off_mask(r):
    (x,) = [x for x in r["health"]["reasons"] if x["id"] == "off_mask_cpu"]
    return x


@pytest.mark.parametrize("engine", ENGINES)
def test_a_second_entirely_off_the_allowed_cpus_is_never_pinned(tmp_path, engine):
    # main on CPU 2 for all of W: no stretch on CPU 6 at all.
    r = _run(tmp_path, engine, "never", [run(2, 100, 1100, MAIN)])
    p = r["pinning"]
    assert (p["off_mask_cpu_ns"], p["diagnosis"], p["diagnosis_ts"]) == (1000 * MT.MS, "never_pinned", None)
    msg = _off_mask(r)["message"]
    assert "never pinned" in msg and "late" not in msg and "reset" not in msg


@pytest.mark.parametrize("engine", ENGINES)
def test_pinned_late(tmp_path, engine):
    # CPU 2 [100, 400), then CPU 6 [400, 1100): off-mask until +300 ms, then a
    # 700 ms stretch on CPU 6 (70% of the app's CPU >= 10%).
    r = _run(tmp_path, engine, "late", [run(2, 100, 400, MAIN), run(6, 400, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"], p["relapse_ts"]) == ("pinned_late", t(400), None)
    assert "pinning took effect late (at +0.300 s" in _off_mask(r)["message"]


@pytest.mark.parametrize("engine", ENGINES)
def test_mask_lost_mid_run(tmp_path, engine):
    # CPU 6 [100, 600) (50% of the app's CPU), then CPU 2 [600, 1100).
    r = _run(tmp_path, engine, "lost", [run(6, 100, 600, MAIN), run(2, 600, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"]) == ("mask_lost", t(600))
    assert "the mask was lost at +0.500 s" in _off_mask(r)["message"]


@pytest.mark.parametrize("engine", ENGINES)
def test_pinned_late_then_lost_again(tmp_path, engine):
    # CPU 2 [100, 300), CPU 6 [300, 800), CPU 2 [800, 1100): pinned at +200 ms,
    # off the mask again from +700 ms.
    r = _run(tmp_path, engine, "relapse",
             [run(2, 100, 300, MAIN), run(6, 300, 800, MAIN), run(2, 800, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"], p["relapse_ts"]) == ("pinned_late", t(300), t(800))
    msg = _off_mask(r)["message"]
    assert "(at +0.200 s" in msg and "again from +0.700 s" in msg


def test_short_stretches_on_the_allowed_cpu_are_not_pinning(tmp_path):
    # Alternating 50 ms on CPU 2 and CPU 6: each clean stretch holds 5% of
    # the app's CPU (< 10%): an unpinned app that sometimes lands on CPU 6.
    runs = [run(2 if k % 2 == 0 else 6, 100 + 50 * k, 150 + 50 * k, MAIN) for k in range(20)]
    r = _run(tmp_path, "embedded", "alternating", runs)
    assert r["pinning"]["diagnosis"] == "never_pinned"
    assert r["pinning"]["off_mask_cpu_ns"] == 500 * MT.MS


def test_the_committed_late_fixture_reads_the_same_in_the_api_and_the_cli(fixtures_dir):
    # pinned_late: the mask applied ~1.2 s into W, a worker escaping later.
    import subprocess
    import sys

    (r,) = MT.analyze(fixtures_dir / "pinned_late.pftrace", cpus="6,7")
    assert r["pinning"]["diagnosis"] == "pinned_late"
    msg = _off_mask(r)["message"]
    out = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze",
                          str(fixtures_dir / "pinned_late.pftrace"), "--app", MT.APP,
                          "--cpus", "6,7", "--engine", "embedded"],
                         capture_output=True, text=True, check=False)
    assert msg in " ".join(out.stdout.split())
