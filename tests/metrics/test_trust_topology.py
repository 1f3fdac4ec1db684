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
def test_observed_frequency_never_inverts_the_numbering(tmp_path, engine):
    # Same changes without the clocks: the policies still group 0-3 and 4-7.
    # 0-3 reached the higher frequency (518.4 > 499.2 MHz), but nothing states
    # the CPUs' places, so the numbering ranks them: 4-7 are big, a guess.
    sch = MT.tiny("observed_only", 200, cpu_info=False, runs=_every_cpu(200), **_policies(False))
    (r,) = _analyze(sch, tmp_path, engine, cpus="big")
    p = r["pinning"]
    assert (p["allowed_cpus"], p["cpus_source"]) == ([4, 5, 6, 7], "cpu_numbering")
    assert (p["clusters"], p["clusters_source"], p["unplaced_cpus"]) == (
        [[0, 1, 2, 3], [4, 5, 6, 7]], "cpu_numbering", [])
    (w,) = [x for x in r["health"]["reasons"] if x["id"] == "cpus_inferred"]
    assert w["severity"] == "warn" and "CPU numbering" in w["message"]
    assert "--cpus 4-7" in w["message"]


def _changes(cpus: tuple[int, ...], steps: list[tuple[float, int]]) -> list[CpuFreq]:
    """``cpus`` changing together to each (ms, kHz) of ``steps``, 10 us apart."""
    return [CpuFreq(t(ms) + 10_000 * i, c, khz) for ms, khz in steps for i, c in enumerate(cpus)]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_idle_prime_core_stays_big(tmp_path, engine):
    # A Tensor G4 shape without CpuInfo or limits: CPUs 0-3 (A520) change
    # together up to 1.95 GHz, 4-6 (A720) together up to 1.8 GHz, CPU 7 (X4)
    # alone and idle, never above 1.56 GHz. The highest frequency reached
    # would make 0-3 big; the numbering keeps CPU 7 big and 0-3 little.
    freq = (_changes((0, 1, 2, 3), [(20, 1_200_000), (60, 1_950_000), (100, 900_000)])
            + _changes((4, 5, 6), [(30, 1_000_000), (70, 1_800_000), (110, 1_200_000)])
            + _changes((7,), [(40, 700_000), (80, 1_560_000), (120, 900_000)]))
    sch = MT.tiny("idle_prime", 200, cpu_info=False, runs=_every_cpu(200),
                  cpufreq=sorted(freq + [CpuFreq(t(200), 0, 900_000)], key=lambda f: f.ts))
    for word, cpus in (("big", [7]), ("mid", [4, 5, 6]), ("little", [0, 1, 2, 3])):
        (r,) = _analyze(sch, tmp_path, engine, cpus=word)
        p = r["pinning"]
        assert (p["allowed_cpus"], p["clusters"]) == (cpus, [[0, 1, 2, 3], [4, 5, 6], [7]])
        assert p["cpus_source"] == "cpu_numbering"
        assert MT.reason_ids(r)["cpus_inferred"] == "warn"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mid_cluster_without_frequency_events_is_placed_by_its_limit(tmp_path, engine):
    # A Meizu shape: cpu_frequency events for CPUs 0-3 (together) and 7
    # (alone) only; CPUs 4-6 never change. Max-frequency limits name CPUs 0
    # (1.8 GHz), 4 (2.4 GHz) and 7 (2.84 GHz), a policy's first CPU each:
    # CPU 4's limit covers 5 and 6. Clusters 0-3, 4-6, 7 from the limits.
    freq = (_changes((0, 1, 2, 3), [(20, 1_000_000), (60, 1_800_000), (100, 600_000)])
            + _changes((7,), [(40, 1_000_000), (80, 2_840_000), (120, 800_000)]))
    limits = [CpuFreqLimits(t(0), 0, 300_000, 1_800_000), CpuFreqLimits(t(0), 4, 400_000, 2_400_000),
              CpuFreqLimits(t(0), 7, 500_000, 2_840_000)]
    sch = MT.tiny("silent_mid", 200, cpu_info=False, runs=_every_cpu(200), cpufreq_limits=limits,
                  cpufreq=sorted(freq + [CpuFreq(t(200), 0, 600_000)], key=lambda f: f.ts))
    for word, cpus in (("big", [7]), ("mid", [4, 5, 6]), ("little", [0, 1, 2, 3])):
        (r,) = _analyze(sch, tmp_path, engine, cpus=word)
        p = r["pinning"]
        assert (p["allowed_cpus"], p["clusters"]) == (cpus, [[0, 1, 2, 3], [4, 5, 6], [7]])
        assert (p["cpus_source"], p["unplaced_cpus"]) == ("frequency_limits", [])
        assert "cpus_inferred" not in MT.reason_ids(r)


def test_partial_limits_place_what_they_can(tmp_path):
    # Limits name CPU 0 (1.8 GHz, covering the silent 1-3) and CPU 4 (2.4 GHz,
    # covering 5); CPUs 6-7 change together but no limit names them: they
    # stay unplaced. little = 0-3 with a warning naming 6-7; big is refused,
    # since by numbering 6-7 may be the big cluster.
    from artscope.errors import SelectionError

    freq = _changes((6, 7), [(20, 1_000_000), (60, 2_800_000), (100, 1_500_000)])
    limits = [CpuFreqLimits(t(0), 0, 300_000, 1_800_000), CpuFreqLimits(t(0), 4, 400_000, 2_400_000)]
    sch = MT.tiny("partial_limits", 200, cpu_info=False, runs=_every_cpu(200), cpufreq_limits=limits,
                  cpufreq=sorted(freq + [CpuFreq(t(200), 6, 1_500_000)], key=lambda f: f.ts))
    path = MT.write(sch, tmp_path)
    (r,) = MT.analyze(path, cpus="little")
    p = r["pinning"]
    assert (p["allowed_cpus"], p["clusters"], p["unplaced_cpus"]) == (
        [0, 1, 2, 3], [[0, 1, 2, 3], [4, 5]], [6, 7])
    (w,) = [x for x in r["health"]["reasons"] if x["id"] == "cpus_unplaced"]
    assert w["severity"] == "warn" and w["message"].startswith("CPUs 6-7 could not be placed")
    with pytest.raises(SelectionError, match=r"not CPUs 6-7, which by numbering may be the big"):
        MT.analyze(path, cpus="big")


def test_equal_clusters_have_no_big(tmp_path):
    # Eight equal cores (one capacity and one frequency table for all, as on
    # an 8 x Cortex-A53 SoC): there is no big and no little cluster.
    from artscope.errors import SelectionError
    from schedules import CpuSpec

    sch = MT.tiny("equal", 200, runs=_every_cpu(200))
    sch.cpus = [CpuSpec(c, "one", (500_000, 1_000_000, 1_800_000), 512) for c in range(8)]
    path = MT.write(sch, tmp_path)
    for word in ("big", "little"):
        with pytest.raises(SelectionError, match=r"CPUs 0-7 are all of one kind \(the CPUs' "
                           r"capacities \(CpuInfo\) rank them equal\): there is no " + word):
            MT.analyze(path, cpus=word)
    (r,) = MT.analyze(path, cpus="0-7")
    assert (r["pinning"]["clusters"], r["pinning"]["clusters_source"]) == ([list(range(8))], "capacity")


def test_one_frequency_policy_for_every_cpu_has_no_big(tmp_path):
    # Four CPUs, no CpuInfo, changing frequency together (a quad-core SoC of
    # one policy): all of one kind.
    from artscope.errors import SelectionError

    runs = [run(c, 1 + c, 2 + c, MAIN) for c in range(3)] + [run(3, 10, 190, MAIN)]
    freq = _changes((0, 1, 2, 3), [(20, 600_000), (60, 1_100_000), (100, 800_000)])
    sch = MT.tiny("one_policy", 200, cpu_info=False, runs=runs,
                  cpufreq=sorted(freq + [CpuFreq(t(200), 0, 800_000)], key=lambda f: f.ts))
    with pytest.raises(SelectionError, match=r"CPUs 0-3 are all of one kind \(one frequency "
                       r"policy holds them all\): there is no big cluster — name the CPUs the "
                       r"app was pinned to, e.g. --cpus 0-3$"):
        MT.analyze(MT.write(sch, tmp_path), cpus="big")


def test_hints_name_cpus_of_the_trace(tmp_path):
    # Seven CPUs with sched data and nothing else (no CpuInfo, no frequency
    # events): the keyword cannot be resolved, and the hint names CPUs 5-6
    # of this trace, not a phone's usual 6,7 or 4-7.
    from artscope.errors import SelectionError

    runs = [run(c, 1 + c, 2 + c, MAIN) for c in range(6)] + [run(6, 10, 190, MAIN)]
    sch = MT.tiny("seven", 200, cpu_info=False, runs=runs, cpufreq=[])
    sch.atrace = [MT.Atrace(t(0), MAIN, "C", MT.PID, "bounds", 0),
                  MT.Atrace(t(200), MAIN, "C", MT.PID, "bounds", 1)]
    with pytest.raises(SelectionError) as exc:
        MT.analyze(MT.write(sch, tmp_path), cpus="big")
    msg = str(exc.value)
    assert "its CPUs are 0-6" in msg and msg.endswith("e.g. --cpus 5-6")


@pytest.mark.parametrize("cpus", ["6,7", "big"])
def test_cpus_on_a_trace_without_cpu_data_is_a_usage_error(fixtures_dir, cpus):
    # no_sched.pftrace: frame timeline and atrace only, no CPU named anywhere.
    from test_cli import one_line_error, run as cli

    line = one_line_error(cli("analyze", str(fixtures_dir / "no_sched.pftrace"),
                              "--app", MT.APP, "--cpus", cpus))
    assert "the trace has no CPU data (no sched, CPU frequency or CPU info)" in line
    assert "leave --cpus out" in line


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
