"""--cpus big|mid|little: clusters from the strongest evidence, and a warning
when they had to be inferred. Truths follow from each schedule by hand."""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import MAIN, ClockRate, CpuFreq, CpuFreqLimits, run, t

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def _every_cpu(end_ms: float) -> list:
    """The app's main thread on CPU 6; a 1 ms run of it on each other CPU makes
    every CPU known to the trace (the cpu table)."""
    return ([run(c, 1 + c, 2 + c, MAIN) for c in range(6)] + [run(6, 10, end_ms - 10, MAIN)]
            + [run(7, end_ms - 5, end_ms - 4, MAIN)])


def _analyze(sch, tmp_path, engine, **kw):
    path = MT.write(sch, tmp_path)
    if engine == "embedded":
        return MT.analyze(path, **kw)
    import artscope

    with artscope.open(str(path), app=MT.APP, engine=engine, **kw) as rs:
        return rs.results


@pytest.mark.parametrize("engine", ENGINES)
def test_limits_named_on_a_domains_first_cpu_cover_the_domain(tmp_path, engine):
    # No CpuInfo; max-frequency limits only on CPU 0 (1.8 GHz) and CPU 4
    # (2.8 GHz), as kernels write them for a policy's first CPU; no CPU changes
    # frequency (no domain evidence). CPU 0 covers 1-3, CPU 4 covers 5-7:
    # big = 4-7, little = 0-3, both from frequency_limits (not inferred).
    sch = MT.tiny("limits_first_cpu", 200, cpu_info=False, runs=_every_cpu(200),
                  cpufreq_limits=[CpuFreqLimits(t(0), 0, 300_000, 1_800_000),
                                  CpuFreqLimits(t(0), 4, 500_000, 2_800_000)])
    (r,) = _analyze(sch, tmp_path, engine, cpus="big")
    p = r["pinning"]
    assert p["allowed_cpus"] == [4, 5, 6, 7]
    assert (p["cpus_source"], p["clusters"]) == ("frequency_limits", [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert "cpus_inferred" not in MT.reason_ids(r)
    (r,) = _analyze(sch, tmp_path, engine, cpus="little")
    assert r["pinning"]["allowed_cpus"] == [0, 1, 2, 3]


def _policies(with_clocks: bool) -> dict:
    """No CpuInfo. CPUs 0-3 change frequency together (within 30 us) to
    300 MHz, 518.4 MHz, 300 MHz; CPUs 4-7 to 300, 499.2, 422.4 MHz, at other
    moments. Over the whole trace 0-3 reach 518.4 MHz and 4-7 only 499.2 MHz,
    so the observed frequency ranks 0-3 higher. The cluster clocks say the
    opposite: pwrcl_clk (the power cluster) sets 0-3's rates and perfcl_clk
    (the performance cluster) 4-7's, in Hz, 8 us before each change."""
    little = [(20, 300_000), (60, 518_400), (100, 300_000)]
    big = [(40, 300_000), (80, 499_200), (120, 422_400)]
    freq, clocks = [], []
    for cpus, changes, clock in (((0, 1, 2, 3), little, "pwrcl_clk"),
                                 ((4, 5, 6, 7), big, "perfcl_clk")):
        for at_ms, khz in changes:
            clocks.append(ClockRate(t(at_ms) - 8_000, clock, khz * 1000))
            freq += [CpuFreq(t(at_ms) + 10_000 * i, c, khz) for i, c in enumerate(cpus)]
    freq.append(CpuFreq(t(200), 0, 300_000))  # trace end
    out = {"cpufreq": sorted(freq, key=lambda f: f.ts)}
    if with_clocks:
        out["clock_rates"] = sorted(clocks, key=lambda c: c.ts)
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_cluster_clock_names_outrank_the_observed_frequency_and_warn(tmp_path, engine):
    sch = MT.tiny("clock_named", 200, cpu_info=False, runs=_every_cpu(200), **_policies(True))
    (r,) = _analyze(sch, tmp_path, engine, cpus="big")
    p = r["pinning"]
    assert p["allowed_cpus"] == [4, 5, 6, 7]
    assert (p["cpus_source"], p["clusters"]) == ("clock_names", [[0, 1, 2, 3], [4, 5, 6, 7]])
    (w,) = [x for x in r["health"]["reasons"] if x["id"] == "cpus_inferred"]
    assert w["severity"] == "warn" and "clusters 0-3, 4-7" in w["message"]
    assert w["evidence"]["clusters"] == [[0, 1, 2, 3], [4, 5, 6, 7]]


@pytest.mark.parametrize("engine", ENGINES)
def test_observed_frequency_alone_is_an_inference(tmp_path, engine):
    # Same changes without the clocks: the policies still group 0-3 and 4-7,
    # and the highest frequency reached (518.4 > 499.2 MHz) makes 0-3 "big".
    sch = MT.tiny("observed_only", 200, cpu_info=False, runs=_every_cpu(200), **_policies(False))
    (r,) = _analyze(sch, tmp_path, engine, cpus="big")
    p = r["pinning"]
    assert (p["allowed_cpus"], p["cpus_source"]) == ([0, 1, 2, 3], "observed_frequency")
    assert MT.reason_ids(r)["cpus_inferred"] == "warn"


def test_cpuinfo_capacities_rank_without_a_warning(tmp_path):
    # The committed schedules' CpuInfo: 0-3 capacity 160, 4-5 512, 6-7 1024.
    sch = MT.tiny("capacities", 200, runs=[run(6, 10, 190, MAIN)])
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="mid")
    p = r["pinning"]
    assert (p["allowed_cpus"], p["cpus_source"]) == ([4, 5], "capacity")
    assert p["clusters"] == [[0, 1, 2, 3], [4, 5], [6, 7]]
    assert "cpus_inferred" not in MT.reason_ids(r)


def test_explicit_cpus_are_a_list(tmp_path):
    sch = MT.tiny("explicit", 200, runs=[run(6, 10, 190, MAIN)])
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6,7")
    assert r["pinning"]["cpus_source"] == "list"


@pytest.mark.parametrize("engine", ENGINES)
def test_trappy_big_cluster_is_the_performance_cluster(shared_traces, engine):
    # trappy-surfaceflinger.html: no CpuInfo; CPUs 0-3 reach 518.4 MHz and 4-7
    # 499.2 MHz in its 0.7 s, but pwrcl_clk drives 0-3 and perfcl_clk 4-7.
    import artscope

    path = shared_traces / "trappy-surfaceflinger.html"
    with artscope.open(str(path), app="surfaceflinger", cpus="big", engine=engine) as rs:
        (r,) = rs.results
    p = r["pinning"]
    assert (p["allowed_cpus"], p["cpus_source"]) == ([4, 5, 6, 7], "clock_names")
    assert "cpus_inferred" in MT.reason_ids(r)
