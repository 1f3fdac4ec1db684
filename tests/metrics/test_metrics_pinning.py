"""Pinning, migrations, interference, CPU clusters: hand-derived from a tiny schedule.

Schedule (ms after T0; trace [0, 400]; W = --window +100ms:+300ms = [100, 300)).
CpuInfo: CPUs 0-3 little (max 1.8 GHz), 4-5 mid (2.2 GHz), 6-7 big (2.8 GHz).

    CPU 0: a-main [200,280)
    CPU 1: W1 [50,120)  W1 [280,310)
    CPU 2: HTD [110,150)  pool [150,160)  b [160,210)  d [220,230)
    CPU 4: main [160,180)
    CPU 5: W1 [10,40)                       (before W: not even a migration)
    CPU 6: main [90,150)  a-main [150,170)  HTD [200,220)  kworker/6:0 [220,240)  main [240,320)
    CPU 7: kworker/7:1 [20,60)  a-bg [100,130)  W1 [130,170)  kworker/7:1 [170,190)
           main [190,230)  c [230,250)  c [290,330)

Other processes: com.other.a (pid 2000: a-main 2000, a-bg 2001), com.other.b (2100),
com.other.c (2200), com.other.d (2300); kworker/6:0 (tid 81) and kworker/7:1
(tid 80) have no process.

App CPU in W: main 50+20+40+60 = 170; W1 20+40+20 = 80; HTD 40+20 = 60; pool 10
-> 320 ms.
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, POOL, W1, Process, Thread, ms, run

A0, A1, B0, C0, D0, KW80, KW81 = 2000, 2001, 2100, 2200, 2300, 80, 81
OTHER_PROCS = [Process(2000, "com.other.a", uid=10200, ppid=700),
               Process(2100, "com.other.b", uid=10201, ppid=700),
               Process(2200, "com.other.c", uid=10202, ppid=700),
               Process(2300, "com.other.d", uid=10203, ppid=700)]
OTHER_THREADS = [Thread(A0, 2000, "a-main"), Thread(A1, 2000, "a-bg"),
                 Thread(B0, 2100, "b-main"), Thread(C0, 2200, "c-main"),
                 Thread(D0, 2300, "d-main"),
                 Thread(KW80, None, "kworker/7:1"), Thread(KW81, None, "kworker/6:0")]
W = (MT.T0 + 100_000_000, MT.T0 + 300_000_000)


def pin_schedule():
    runs = [
        run(0, 200, 280, A0),
        run(1, 50, 120, W1), run(1, 280, 310, W1),
        run(2, 110, 150, HTD), run(2, 150, 160, POOL), run(2, 160, 210, B0), run(2, 220, 230, D0),
        run(4, 160, 180, MAIN),
        run(5, 10, 40, W1),
        run(6, 90, 150, MAIN), run(6, 150, 170, A0), run(6, 200, 220, HTD), run(6, 220, 240, KW81),
        run(6, 240, 320, MAIN),
        run(7, 20, 60, KW80), run(7, 100, 130, A1), run(7, 130, 170, W1), run(7, 170, 190, KW80),
        run(7, 190, 230, MAIN), run(7, 230, 250, C0), run(7, 290, 330, C0),
    ]
    return MT.tiny("pin_tiny", 400, threads=(MAIN, W1, HTD, POOL), runs=runs,
                   extra_threads=OTHER_THREADS, extra_processes=OTHER_PROCS)


@pytest.fixture(scope="module")
def pin_trace(tmp_path_factory):
    return MT.write(pin_schedule(), tmp_path_factory.mktemp("pin"))


@pytest.fixture(scope="module")
def gc_on_2(pin_trace):
    """--cpus big (= 6,7 from CpuInfo) --gc-cpus 2: A = {2, 6, 7}."""
    (r,) = MT.analyze(pin_trace, cpus="big", gc_cpus="2", window="+100ms:+300ms")
    return r


def test_window_and_allowed_sets(gc_on_2):
    assert (gc_on_2["window"]["start_ts"], gc_on_2["window"]["end_ts"]) == W
    p = gc_on_2["pinning"]
    assert p["allowed_cpus"] == [6, 7]  # "big": highest max frequency (2.8 GHz)
    assert p["gc_allowed_cpus"] == [2]
    assert gc_on_2["gc"]["app_cpu_ns"] == 320_000_000


def test_off_mask_with_gc_cpus(gc_on_2):
    p = gc_on_2["pinning"]
    # mutators (allowed 6,7): main on CPU 4 [160,180) 20; W1 on CPU 1 [50,120)∩W = [100,120) 20
    #   and [280,310)∩W = [280,300) 20. GC threads (allowed 2): HTD on CPU 6 [200,220) 20
    #   (CPU 6 is allowed for mutators, not for GC threads); pool on CPU 2: allowed.
    # 20 + 40 + 20 = 80 ms
    assert p["off_mask_cpu_ns"] == 80_000_000
    assert p["off_mask_share"] == pytest.approx(80 / 320, rel=1e-12)
    assert p["grace_off_mask_cpu_ns"] == 0
    assert p["violation_slices"] == 4       # main 1, W1 2, HTD 1
    assert p["threads_violating"] == 3
    assert p["first_violation_ts"] == W[0]  # W1's [50,120) clipped to W's start (100)
    assert p["last_violation_end_ts"] == W[1]  # W1's [280,310) clipped to W's end (300)


def test_per_thread_breakdown(gc_on_2):
    got = {(x["tid"], x["role"], x["off_mask_cpu_ns"], tuple(sorted(set(x["cpus"]))))
           for x in gc_on_2["pinning"]["threads"]}
    assert got == {
        (MAIN, "mutator", 20_000_000, (4, 6, 7)),
        (W1, "mutator", 40_000_000, (1, 7)),       # CPU 5 run is before W
        (HTD, "gc", 20_000_000, (2, 6)),
        (POOL, "gc", 0, (2,)),
    }
    cpu = {x["tid"]: x["cpu_ns"] for x in gc_on_2["pinning"]["threads"]}
    assert cpu == {MAIN: 170_000_000, W1: 80_000_000, HTD: 60_000_000, POOL: 10_000_000}


def test_migrations_mid_window(gc_on_2):
    p = gc_on_2["pinning"]
    # slices overlapping W, per thread in ts order:
    #   main 6 -> 4 -> 7 -> 6 : 3 moves; cross-cluster big->mid, mid->big = 2 (7->6 is big->big)
    #   W1   1 -> 7 -> 1      : 2 moves, both little<->big (its CPU 5 run ends before W)
    #   HTD  2 -> 6           : 1 move, little->big
    #   pool one slice        : 0
    assert p["migrations"] == 6
    assert p["cross_cluster_migrations"] == 5


def test_interference(gc_on_2):
    p = gc_on_2["pinning"]
    # A = {2, 6, 7}; other threads' CPU there within W:
    #   CPU 6: a-main [150,170) 20, kworker/6:0 [220,240) 20
    #   CPU 7: a-bg [100,130) 30, kworker/7:1 [170,190) 20 ([20,60) is before W),
    #          c [230,250) 20, c [290,330)∩W 10
    #   CPU 2: b [160,210) 50, d [220,230) 10
    #   (a-main on CPU 0 is outside A; idle never counts)
    # = 180 ms; share = 180 / (|A| 3 × |W| 200) = 0.3
    assert p["interference_cpu_ns"] == 180_000_000
    assert p["interference_share"] == pytest.approx(0.3, rel=1e-12)
    # per process: a 20+30 = 50, b 50, c 30, kworker/6:0 20, kworker/7:1 20, d 10.
    # Top 5, ties by name (a < b; kworker/6:0 < kworker/7:1); kworkers have no
    # process and stand alone (pid null, tid given); d (10) is sixth.
    top = [(x["name"], x["pid"], x["tid"], x["cpu_ns"]) for x in p["top_interferers"]]
    assert top == [
        ("com.other.a", 2000, None, 50_000_000),
        ("com.other.b", 2100, None, 50_000_000),
        ("com.other.c", 2200, None, 30_000_000),
        ("kworker/6:0", None, KW81, 20_000_000),
        ("kworker/7:1", None, KW80, 20_000_000),
    ]


def test_migrations_between_long_runs_on_one_cpu(tmp_path):
    """main: 40 slices on CPU 6 ([2k+1, 2k+2) for k < 40), 3 on CPU 7
    ([81,82), [83,84), [85,86)), 45 on CPU 6 again from 87, then 1 on CPU 5
    (at 200); W = the whole trace [0, 300)."""
    runs = [run(6, 2 * k + 1, 2 * k + 2, MAIN) for k in range(40)]
    runs += [run(7, 81 + 2 * k, 82 + 2 * k, MAIN) for k in range(3)]
    runs += [run(6, 87 + 2 * k, 88 + 2 * k, MAIN) for k in range(45)]
    runs += [run(5, 200, 201, MAIN)]
    sch = MT.tiny("long_runs", 300, threads=(MAIN,), runs=runs)
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6,7")
    # 6 -> 7, 7 -> 6, 6 -> 5
    assert r["pinning"]["migrations"] == 3


@pytest.fixture
def between_trace(tmp_path):
    """Threads get utids in tid order, so with the app's threads main (1000),
    W1 (1020), W2 (1021), HTD (1030), pool (1031), w5 (1040), w6 (1050) and
    com.other.x's x1 (1005), x2 (1024), x3 (1035), x4 (1045), other threads
    sit between the app's, x4 inside the app's last utid range (w5..w6).
    CPU 6 (--cpus 6), W = the whole trace [0, 100): x1 [5,10), main [10,20),
    x4 [20,35), w6 [35,40), x3 [40,41); CPU 2: x2 [5,50), off A."""
    x1, x2, x3, x4, w5, w6 = 1005, 1024, 1035, 1045, 1040, 1050
    threads = [Thread(x, 3000, f"x{i}") for i, x in enumerate((x1, x2, x3, x4), 1)]
    threads += [MT.APP_THREADS[t] for t in (W1, MT.W2, HTD, POOL)]
    threads += [Thread(w5, MT.PID, "Worker-5"), Thread(w6, MT.PID, "Worker-6")]
    runs = [run(6, 5, 10, x1), run(6, 10, 20, MAIN), run(6, 20, 35, x4),
            run(6, 35, 40, w6), run(6, 40, 41, x3), run(2, 5, 50, x2)]
    sch = MT.tiny("between", 100, threads=(MAIN,), extra_threads=threads,
                  extra_processes=[Process(3000, "com.other.x", uid=10300, ppid=700)],
                  runs=runs)
    return MT.write(sch, tmp_path)


def test_interference_from_threads_whose_utids_sit_between_the_apps(between_trace):
    (r,) = MT.analyze(between_trace, cpus="6")
    # x1 5 + x4 15 + x3 1 = 21 ms (x2 ran off A; the app's own time is no
    # interference)
    assert r["pinning"]["interference_cpu_ns"] == ms(21)


@pytest.mark.tp
def test_interference_between_the_apps_utids_on_both_engines(tp_bin, between_trace):
    from test_parity import assert_parity

    assert_parity("interference", between_trace, tp_bin=tp_bin, app=MT.APP, cpus="6")


def test_gc_shares_cpus_without_gc_cpus(pin_trace):
    (r,) = MT.analyze(pin_trace, cpus="6,7", window="+100ms:+300ms")
    p = r["pinning"]
    assert p["gc_allowed_cpus"] == [6, 7]
    # main 20 + W1 40 + HTD on CPU 2 [110,150) 40 + pool on CPU 2 10 (HTD on 6 is fine now)
    assert p["off_mask_cpu_ns"] == 110_000_000
    assert p["violation_slices"] == 5
    assert p["threads_violating"] == 4
    # A = {6, 7}: CPU 6 20 + 20, CPU 7 30 + 20 + 20 + 10 -> 120 ms; 120 / (2 × 200)
    assert p["interference_cpu_ns"] == 120_000_000
    assert p["interference_share"] == pytest.approx(0.3, rel=1e-12)
    top = [(x["name"], x["cpu_ns"]) for x in p["top_interferers"]]
    assert top == [("com.other.a", 50_000_000), ("com.other.c", 30_000_000),
                   ("kworker/6:0", 20_000_000), ("kworker/7:1", 20_000_000)]


def test_pin_grace_before_first_violation_end(pin_trace):
    # grace 30 ms: grace_end = 130. W1 [100,120) (20) falls in the grace period.
    (r,) = MT.analyze(pin_trace, cpus="6,7", gc_cpus="2", window="+100ms:+300ms",
                      pin_grace_ns=30_000_000)
    p = r["pinning"]
    assert p["grace_off_mask_cpu_ns"] == 20_000_000
    assert p["off_mask_cpu_ns"] == 60_000_000     # 80 - 20
    assert p["violation_slices"] == 3             # main, HTD, W1's late slice
    assert p["threads_violating"] == 3
    assert p["first_violation_ts"] == MT.t(160)   # main on CPU 4
    assert p["last_violation_end_ts"] == W[1]
    assert p["off_mask_share"] == pytest.approx(60 / 320, rel=1e-12)


def test_pin_grace_splits_a_slice(pin_trace):
    # grace 110 ms: grace_end = 210. In grace: W1 [100,120) 20, main [160,180) 20,
    # HTD [200,210) 10. After: HTD [210,220) 10, W1 [280,300) 20.
    (r,) = MT.analyze(pin_trace, cpus="6,7", gc_cpus="2", window="+100ms:+300ms",
                      pin_grace_ns=110_000_000)
    p = r["pinning"]
    assert p["grace_off_mask_cpu_ns"] == 50_000_000
    assert p["off_mask_cpu_ns"] == 30_000_000
    assert p["violation_slices"] == 2
    assert p["threads_violating"] == 2
    assert p["first_violation_ts"] == MT.t(210)   # HTD's slice clipped to the grace end
    assert p["last_violation_end_ts"] == W[1]


@pytest.fixture(scope="module")
def long_before_trace(tmp_path_factory):
    """main runs on CPU 6 [20, 250), then CPU 7 [250, 300); W1 on CPU 6
    [250, 280), then CPU 7 [300, 390). W = [150, 400): main's first slice
    starts 130 ms before W, found by the seek past the first 100 ms."""
    runs = [run(6, 20, 250, MAIN), run(6, 250, 280, W1),
            run(7, 250, 300, MAIN), run(7, 300, 390, W1)]
    sch = MT.tiny("long_before", 400, threads=(MAIN, W1), runs=runs)
    return MT.write(sch, tmp_path_factory.mktemp("long_before"))


@pytest.mark.parametrize("grace_ms", [0, 20])
def test_slice_reaching_in_from_long_before_the_window(long_before_trace, grace_ms):
    (r,) = MT.analyze(long_before_trace, cpus="7", window="+150ms:+400ms",
                      pin_grace_ns=grace_ms * 1_000_000)
    p = r["pinning"]
    # app CPU in W: main 100 (CPU 6, from 150) + 50; W1 30 + 90 = 270 ms
    assert r["gc"]["app_cpu_ns"] == ms(270)
    # off-mask (CPU 6): main [150, 250) and W1 [250, 280); the grace period
    # [150, 150 + grace) takes main's first grace_ms
    assert p["grace_off_mask_cpu_ns"] == ms(grace_ms)
    assert p["off_mask_cpu_ns"] == ms(130 - grace_ms)
    assert p["violation_slices"] == 2
    assert p["first_violation_ts"] == MT.t(150 + grace_ms)
    assert p["last_violation_end_ts"] == MT.t(280)
    cpu = {(x["tid"], c) for x in p["threads"] for c in x["cpus"]}
    assert cpu == {(MAIN, 6), (MAIN, 7), (W1, 6), (W1, 7)}
    # main 6 -> 7, W1 6 -> 7
    assert p["migrations"] == 2


def test_migrations_at_the_window_start(tmp_path):
    """W = [100, 300). main: CPU 1 [50, 100) (ends where W starts: not in
    W), CPU 2 [100, 120) (starts where W starts: in W), CPU 3 [150, 160).
    W1: CPU 4 [60, 100), CPU 5 [100, 100.001), CPU 4 [130, 140)."""
    runs = [run(1, 50, 100, MAIN), run(2, 100, 120, MAIN), run(3, 150, 160, MAIN),
            run(4, 60, 100, W1), run(5, 100, 100.001, W1), run(4, 130, 140, W1)]
    sch = MT.tiny("at_start", 400, threads=(MAIN, W1), runs=runs)
    (r,) = MT.analyze(MT.write(sch, tmp_path), window="+100ms:+300ms")
    # main 2 -> 3; W1's [100, 100.001) is in W: 5 -> 4
    assert r["pinning"]["migrations"] == 2


def test_target_cpu_counts_slices_in_the_window_whatever_the_grace(long_before_trace):
    """The long_before schedule with W = [150, 400) and a 120 ms grace
    period (to 270): main's [20, 250) on CPU 6 has 100 ms in W, all in the
    grace period; each other slice ends after 270."""
    from artscope.metrics.options import AnalysisOptions
    from test_parity import run_on

    rows = run_on("embedded", "target_cpu_time", long_before_trace, AnalysisOptions(
        app=MT.APP, cpus="7", window="+150ms:+400ms", pin_grace_ns=ms(120)))
    got = sorted(rows.select("cpu", "cpu_ns", "slices", "post_slices").iter_rows())
    assert got == [(6, ms(30), 1, 1), (6, ms(100), 1, 0), (7, ms(50), 1, 1), (7, ms(90), 1, 1)]


@pytest.mark.parametrize("word,cpus,off_mask_ms", [
    # off-mask = app CPU in W not on the allowed CPUs (GC threads share the set)
    ("big", [6, 7], 110),     # see test_gc_shares_cpus_without_gc_cpus
    ("mid", [4, 5], 300),     # only main's CPU 4 run (20) is allowed: 320 - 20
    ("little", [0, 1, 2, 3], 230),  # allowed: W1 on 1 (40), HTD on 2 (40), pool on 2 (10): 320 - 90
])
def test_cluster_keywords_from_cpu_info(pin_trace, word, cpus, off_mask_ms):
    (r,) = MT.analyze(pin_trace, cpus=word, window="+100ms:+300ms")
    assert r["pinning"]["allowed_cpus"] == cpus
    assert r["pinning"]["off_mask_cpu_ns"] == off_mask_ms * 1_000_000


def test_cpu_ranges(pin_trace):
    (r,) = MT.analyze(pin_trace, cpus="4-7", gc_cpus="0-2", window="+100ms:+300ms")
    p = r["pinning"]
    assert (p["allowed_cpus"], p["gc_allowed_cpus"]) == ([4, 5, 6, 7], [0, 1, 2])
    # mutators off 4-7: W1 on CPU 1: 40. GC threads off 0-2: HTD on 6: 20 -> 60 ms
    assert p["off_mask_cpu_ns"] == 60_000_000
    # A = {0,1,2,4,5,6,7}: CPU 0 a-main [200,280) 80 + CPU 2 60 + CPU 6 40 + CPU 7 80 = 260
    assert p["interference_cpu_ns"] == 260_000_000
    assert p["interference_share"] == pytest.approx(260 / (7 * 200), rel=1e-12)


# ---------------------------------------------------------------------------
# clusters without CpuInfo frequencies: capacity, limits, observed frequency
# ---------------------------------------------------------------------------


def _topo_schedule(name, cpus, cpufreq, limits=()):
    freqs = [MT.CpuFreq(MT.t(0), 0, 1_000_000), MT.CpuFreq(MT.t(100), 0, 1_000_000)]
    return MT.tiny(name, 100, runs=[run(0, 10, 20, MAIN), run(3, 30, 40, MAIN)],
                   cpu_info=False, cpus=cpus, cpufreq=freqs + list(cpufreq),
                   cpufreq_limits=list(limits))


def test_clusters_from_capacity(tmp_path):
    # CpuInfo with capacities but no frequency lists; the only cpufreq samples are on
    # CPU 0 (1.0 GHz). Capacity comes before observed frequency: big = capacity 1024.
    specs = [MT.S.CpuSpec(c, "", (), cap) for c, cap in
             [(0, 160), (1, 160), (2, 512), (3, 1024)]]
    (r,) = MT.build_and_analyze(_topo_schedule("topo_cap", specs, []), tmp_path, cpus="big")
    assert r["pinning"]["allowed_cpus"] == [3]
    (r,) = MT.build_and_analyze(_topo_schedule("topo_cap2", specs, []), tmp_path, cpus="mid")
    assert r["pinning"]["allowed_cpus"] == [2]


def test_one_change_per_cpu_places_nothing(tmp_path):
    # No CpuInfo, no limits; CPUs 1, 2, 3 change frequency once each (1.0,
    # 1.5, 2.0 GHz). One change cannot show which CPUs share a policy, and
    # the values reached rank nothing: the keyword is refused, naming the
    # trace's CPUs.
    from artscope.errors import SelectionError

    f = [MT.CpuFreq(MT.t(50), 1, 1_000_000), MT.CpuFreq(MT.t(50), 2, 1_500_000),
         MT.CpuFreq(MT.t(50), 3, 2_000_000)]
    path = MT.write(_topo_schedule("topo_obs", [], f), tmp_path)
    with pytest.raises(SelectionError, match=r"nothing in the trace tells its clusters apart "
                       r".*its CPUs are 0-3\) — .* e.g. --cpus 2-3$"):
        MT.analyze(path, cpus="big")
    # explicit CPUs still judge pinning: main ran [10,20) on CPU 0 and [30,40)
    # on CPU 3: 20 ms off {2}, one migration, clusters unknown
    (r,) = MT.analyze(path, cpus="2")
    p = r["pinning"]
    assert (p["off_mask_cpu_ns"], p["migrations"], p["cross_cluster_migrations"]) == (
        20_000_000, 1, None)
    assert (p["clusters"], p["clusters_source"]) == ([], None)


def test_clusters_from_limits_before_observed(tmp_path):
    # Limits (max 2.5 GHz on CPUs 0,1; 1.0 GHz on 2,3) win over observed frequencies
    # (which would make CPU 3 big).
    f = [MT.CpuFreq(MT.t(50), 1, 1_000_000), MT.CpuFreq(MT.t(50), 2, 1_500_000),
         MT.CpuFreq(MT.t(50), 3, 2_000_000)]
    lim = [MT.CpuFreqLimits(MT.t(1), c, 300_000, mx) for c, mx in
           [(0, 2_500_000), (1, 2_500_000), (2, 1_000_000), (3, 1_000_000)]]
    (r,) = MT.build_and_analyze(_topo_schedule("topo_lim", [], f, lim), tmp_path, cpus="big")
    assert r["pinning"]["allowed_cpus"] == [0, 1]
