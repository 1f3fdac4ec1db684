"""Health verdicts and reasons, the committed fixtures' headline numbers, null vs zero.

Fixture schedules: fixtures/schedules.py (arithmetic repeated here from the
schedules, not from artscope). Slots: k = 0..136 start at 50 + 20k ms; pattern
A on cpu_a: main [s, s+12), RenderThread [s+12, s+15); pattern B on cpu_b:
W1 [s+1, s+7), W2 [s+7, s+11), HTD idle [s+11, s+12) when k % 10 == 5,
kworker/7:1 [s+16, s+17) when k % 7 == 3 and k is not a GC slot (3, 30, 70, 110).
W = "App Benchmark" = [200, 2700).
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import ClockRate, CpuFreq, Process, Thread, run, t

MS = 1_000_000


@pytest.fixture(scope="module")
def clean(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "pinned_clean.pftrace", cpus="6,7")
    return r


@pytest.fixture(scope="module", params=["pinned_late", "pinned_late_compact"])
def late(fixtures_dir, request):
    (r,) = MT.analyze(fixtures_dir / f"{request.param}.pftrace", cpus="6,7")
    return r


def test_pinned_clean_passes(clean):
    assert clean["window"] == {"start_ts": t(200), "end_ts": t(2700), "source": "app_benchmark"}
    assert clean["health"] == {"verdict": "pass", "reasons": []}
    p = clean["pinning"]
    assert (p["off_mask_cpu_ns"], p["violation_slices"], p["migrations"]) == (0, 0, 0)
    assert p["first_violation_ts"] is None and p["last_violation_end_ts"] is None
    # sysui-anim [s+12, s+14) in slots 40-42 on CPU 7: 3 x 2 = 6 ms;
    # kworker/7:1 1 ms in slots k % 7 == 3 with [s+16, s+17) inside W: k = 10, 17, ..., 129
    # (k = 3 is a GC slot and before W) -> 18 ms; total 24 ms over 2 CPUs x 2500 ms
    assert p["interference_cpu_ns"] == 24 * MS
    assert p["interference_share"] == pytest.approx(24 / 5000, rel=1e-12)
    assert [(x["name"], x["cpu_ns"]) for x in p["top_interferers"]] == [
        ("kworker/7:1", 18 * MS), ("com.android.systemui", 6 * MS)]
    g = clean["gc"]
    # 124 whole slots x 25 ms (main 12 + RT 3 + W1 6 + W2 4) + slot 7's tail in W
    # ([200,202) main 2 + RT 3 + W2 [197,201) -> 1 = 6) + slot 132's head ([2690,2700): main 10 + W1 [2691,2697) 6
    # + W2 [2697,2700) 3 = 19) + HTD GC runs 3 x 8 + pool 3 x 4 = 36 + HTD idle 12 x 1 ms
    # = 3100 + 6 + 19 + 36 + 12 = 3173 ms
    assert g["app_cpu_ns"] == 3173 * MS
    # HTD inside its 3 GCs in W (8 ms each, the explicit one incl. CompactionPhase)
    # + pool 3 x 4 + W1 in its "Alloc concurrent copying GC" 3 ms = 39 ms
    assert g["gc_cpu_ns"] == 39 * MS
    assert g["gc_daemon_cpu_ns"] == 36 * MS  # 3 x 8 + 12 x 1
    assert (g["gc_count"], g["gc_wall_ns"]) == (4, 27 * MS)  # 8 + 8 + 3 + 8


def test_pinned_late_fails_for_each_reason(late):
    ids = sorted((x["id"], x["severity"], tuple(x["evidence"].get("cpus", [])),
                  tuple(x["evidence"].get("devices", []))) for x in late["health"]["reasons"])
    assert ids == [
        ("cpufreq_throttled", "fail", (6,), ()),       # 2.0 GHz for 300 ms < dominant 2.8 GHz
        ("cpufreq_unstable", "fail", (6,), ()),        # 2 transitions (1800, 2100)
        ("memfreq_unstable", "fail", (), ("17000010.devfreq_mif",)),  # 5 transitions
        ("off_mask_cpu", "fail", (2, 3, 4, 5), ()),    # 49 % of app CPU off {6,7}
    ]
    assert late["health"]["verdict"] == "fail"
    (off,) = [x for x in late["health"]["reasons"] if x["id"] == "off_mask_cpu"]
    # evidence: absolute trace ns of the first violation's start and the last one's end
    assert off["evidence"]["time_ranges"] == [[t(200), t(2061)]]
    # the range `artscope open --reason` shows: the evidence's; the others judge all of W
    assert (off["start_ts"], off["end_ts"]) == (t(200), t(2061))
    assert {(x["start_ts"], x["end_ts"]) for x in late["health"]["reasons"] if x is not off} == {
        (t(200), t(2700))}
    assert {x["tid"] for x in off["evidence"]["threads"]} == {
        MT.MAIN, MT.RT, MT.W1, MT.W2, MT.HTD, MT.POOL}
    assert off["actual"] == pytest.approx(1574 / 3205, rel=1e-12)


def test_pinned_late_numbers(late):
    p, g = late["pinning"], late["gc"]
    # pinned_clean's 3173 ms with W1's slots 98-100 (3 x 6 ms) replaced by the escape (50 ms)
    assert g["app_cpu_ns"] == (3173 - 18 + 50) * MS
    # before 1400 ms, in W: slot 7's tail 6 + slots 8..67 60 x 25 + GC slot 30 (HTD 8 + pool 4)
    # + HTD idle slots 15..65 6 x 1 + W1's escape to CPU 3 [2011, 2061) 50
    assert p["off_mask_cpu_ns"] == (6 + 60 * 25 + 12 + 6 + 50) * MS
    assert p["off_mask_share"] == pytest.approx(1574 / 3205, rel=1e-12)
    # slot 7: 3 slices; slots 8..67: 4 each = 240; slot 30: +2; 6 HTD idle; the escape: 1
    assert p["violation_slices"] == 3 + 240 + 2 + 6 + 1
    assert p["threads_violating"] == 6
    assert (p["first_violation_ts"], p["last_violation_end_ts"]) == (t(200), t(2061))
    # main 61 and RenderThread 61 (alternating 4 <-> 2 each slot, then -> 6), W2 61,
    # W1 60 + 2 (escape out and back), HTD 3 (3 -> 5 -> 3 -> 7), pool 1 (4 -> 6): all cross-cluster
    assert (p["migrations"], p["cross_cluster_migrations"]) == (249, 249)
    # only kworker/7:1 on CPU 7 after 1400: k % 7 == 3 in 73..129 -> 9 slots x 1 ms
    assert p["interference_cpu_ns"] == 9 * MS
    mif = late["memfreq"][0]
    assert mif["device"] == "17000010.devfreq_mif"
    # steps at 0 (3.172), 500 (2.730), 900 (1.539), 1300 (3.172), 1900 (2.093), 2300 (3.172):
    # 3 172 000: [200,500) 300 + [1300,1900) 600 + [2300,2700) 400 = 1300 ms
    assert mif["residency"] == {"3172000": 1300 * MS, "2730000": 400 * MS,
                                "1539000": 400 * MS, "2093000": 400 * MS}
    assert mif["transitions"] == 5
    c6 = [c for c in late["cpufreq"] if c["cpu"] == 6][0]
    assert c6["residency"] == {"2800000": 2200 * MS, "2000000": 300 * MS}
    j = late["jank"]
    assert (j["frames"], j["janky_frames"], j["app_janky_frames"]) == (31, 3, 2)


def test_window_from_process_lifetime(fixtures_dir):
    path = fixtures_dir / "tid_reuse.pftrace"
    # com.new.app: forked at 500 ms (task_newtask), still alive -> [500, trace end 1000]
    (new,) = MT.analyze(path, app="com.new.app")
    assert new["window"] == {"start_ts": t(500), "end_ts": t(1000), "source": "process"}
    # new 2000: [510,545) 35 + 4 x 20; new 2001: [535,545) 10 + 4 x 30 -> 115 + 130
    assert new["gc"]["app_cpu_ns"] == 245 * MS
    # com.old.app: no start known; its threads switch out dead (X) at 330
    # (main), 340 and 345 ms, long before the kernel frees them (400-402 ms):
    # it ended when its last thread did -> [trace start, 345]
    (old,) = MT.analyze(path, app="com.old.app")
    assert old["window"] == {"start_ts": t(0), "end_ts": t(345), "source": "process"}
    # 2000: 4 x 20, 2001: 4 x 20, 2002: 4 x 15 (the reused tids' new threads are not its own)
    assert old["gc"]["app_cpu_ns"] == 220 * MS


def test_open_slices_end_at_trace_end(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "open_at_end.pftrace")
    assert r["window"] == {"start_ts": t(0), "end_ts": t(500), "source": "trace"}
    # main [10,100) 90 + [150, open) -> 500: 350; Worker-A [20,80) 60 + [250, open) 250;
    # Worker-B [25,85) 60 + [300, open) 200 -> 440 + 310 + 260
    assert r["gc"]["app_cpu_ns"] == 1010 * MS
    assert (r["jank"]["frames"], r["jank"]["unfinished_frames"]) == (1, 1)
    assert r["jank"]["frame_dur_ms"]["p50"] == 10.0


def test_truncated_trace_is_partial(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "truncated.pftrace", cpus="6,7")
    assert r["partial"] is True
    assert ("partial_trace", "warn") in {(x["id"], x["severity"]) for x in r["health"]["reasons"]}
    assert r["health"]["verdict"] in ("warn", "fail")


# ---------------------------------------------------------------------------
# thresholds on a tiny trace: W = --window +100ms:+1100ms (1000 ms), trace [0, 1200]
# CPUs 6,7 at a constant 2.8 GHz, memory clock constant -> only pinning decides.
#   main: CPU 6 [50,600) (500 in W), CPU 0 [600, 600+off), CPU 6 [600+off, open -> 1200)
#   -> app CPU in W = 500 + off + (1100 - 600 - off) = 1000 ms exactly
#   kworker/7:1 (no process) on CPU 7 [200, 200+interf)
# ---------------------------------------------------------------------------


def _threshold_schedule(name, off_ms, interf_ms):
    runs = [run(6, 50, 600, MT.MAIN)]
    if off_ms:
        runs += [run(0, 600, 600 + off_ms, MT.MAIN), run(6, 600 + off_ms, None, MT.MAIN)]
    else:
        runs[0] = run(6, 50, None, MT.MAIN)
    if interf_ms:
        runs.append(run(7, 200, 200 + interf_ms, 80))
    freqs = [CpuFreq(t(0), c, 2_800_000) for c in (0, 6, 7)] + [CpuFreq(t(1200), 0, 2_800_000)]
    return MT.tiny(name, 1200, runs=runs, extra_threads=[Thread(80, None, "kworker/7:1")],
                   cpufreq=freqs, clock_rates=[ClockRate(t(0), MT.S.MIF, 3_172_000)])


@pytest.mark.parametrize("off_ms,interf_ms,verdict,reasons", [
    (0, 0, "pass", []),
    # 10 / 1000 = exactly 1 %: not > 1 % -> warn only; 100 / (2 x 1000) = exactly 5 %: no reason
    (10, 100, "warn", [("off_mask_cpu", "warn")]),
    # 11 / 1000 > 1 % -> fail; 101 / 2000 > 5 % -> interference warn
    (11, 101, "fail", [("interference", "warn"), ("off_mask_cpu", "fail")]),
    (1, 0, "warn", [("off_mask_cpu", "warn")]),  # any off-mask slice at all warns
])
def test_pinning_thresholds(tmp_path, off_ms, interf_ms, verdict, reasons):
    sch = _threshold_schedule(f"thr_{off_ms}_{interf_ms}", off_ms, interf_ms)
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6,7", window="+100ms:+1100ms")
    assert r["gc"]["app_cpu_ns"] == 1000 * MS
    p = r["pinning"]
    assert p["off_mask_cpu_ns"] == off_ms * MS
    assert p["off_mask_share"] == pytest.approx(off_ms / 1000, rel=1e-12, abs=0)
    assert p["interference_cpu_ns"] == interf_ms * MS
    assert p["interference_share"] == pytest.approx(interf_ms / 2000, rel=1e-12, abs=0)
    assert sorted(MT.judged_reasons(r)) == reasons
    assert r["health"]["verdict"] == verdict


# ---------------------------------------------------------------------------
# null vs zero: sched captured, but the app did not run in W
# ---------------------------------------------------------------------------


def test_zero_not_null_when_app_idle_in_window(tmp_path):
    # main runs [10,20) on CPU 6 and [300,310) on CPU 7; W = [100, 200): nothing of the app.
    # Another process's thread runs [120,150) on CPU 6.
    sch = MT.tiny("idle_app", 400, runs=[run(6, 10, 20, MT.MAIN), run(7, 300, 310, MT.MAIN),
                                         run(6, 120, 150, 2000)],
                  extra_processes=[Process(2000, "com.other.a", uid=10200, ppid=700)],
                  extra_threads=[Thread(2000, 2000, "a-main")])
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6,7", window="+100ms:+200ms")
    g, p = r["gc"], r["pinning"]
    assert (g["app_cpu_ns"], g["gc_cpu_ns"], g["mutator_cpu_ns"], g["gc_count"]) == (0, 0, 0, 0)
    assert g["gc_cpu_share"] is None          # 0 / 0
    assert (p["off_mask_cpu_ns"], p["violation_slices"], p["migrations"]) == (0, 0, 0)
    assert p["off_mask_share"] is None        # 0 / 0
    # the main thread's 6 -> 7 move happens outside W: not a migration here
    assert p["interference_cpu_ns"] == 30 * MS  # a-main [120,150) on CPU 6
    assert p["interference_share"] == pytest.approx(30 / 200, rel=1e-12)


# ---------------------------------------------------------------------------
# data loss recorded by the trace
# ---------------------------------------------------------------------------


def _with_ftrace_stats(data: bytes, overrun_begin: int, overrun_end: int) -> bytes:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    tr = pb.Trace()
    tr.ParseFromString(data)
    for phase, overrun, ts in ((pb.FtraceStats.START_OF_TRACE, overrun_begin, t(0)),
                               (pb.FtraceStats.END_OF_TRACE, overrun_end, t(100))):
        p = tr.packet.add()
        p.timestamp = ts
        p.trusted_packet_sequence_id = 9
        p.ftrace_stats.phase = phase
        cs = p.ftrace_stats.cpu_stats.add()
        cs.cpu = 6
        cs.overrun = overrun
    return tr.SerializeToString()


@pytest.mark.parametrize("begin,end,lost", [(3, 3, False), (3, 8, True)])
def test_ftrace_overrun_marks_run_partial(tmp_path, begin, end, lost):
    # ftrace_cpu_overrun_delta[6] = end - begin: 0 -> nothing lost; 5 -> data loss
    sch = MT.tiny(f"overrun_{begin}_{end}", 100, runs=[run(6, 10, 20, MT.MAIN)],
                  clock_rates=[ClockRate(t(0), MT.S.MIF, 3_172_000)])
    path = tmp_path / f"{sch.name}.pftrace"
    path.write_bytes(_with_ftrace_stats(MT.M.build(sch), begin, end))
    (r,) = MT.analyze(path)
    assert r["partial"] is lost
    got = {(x["id"], x["severity"]) for x in r["health"]["reasons"]}
    assert (("data_loss", "warn") in got) is lost
    # no --cpus: pinning is not judged, which warns on its own
    assert set(MT.judged_reasons(r)) == {("pinning_unchecked", "warn")} | (
        {("data_loss", "warn")} if lost else set())
    assert r["gc"]["app_cpu_ns"] == 10 * MS  # numbers still computed from what is there
