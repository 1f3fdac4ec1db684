"""Selection edge cases with metric consequences, on tiny hand-written traces.

All times are ms after T0; every trace's bounds are pinned by cpu_frequency
events at 0 and at its end (see tests/metric_traces.py).
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

import metric_traces as MT
from metric_traces import HTD, MAIN, Frame, Process, Thread, run, slice_, t

MS = 1_000_000
VSYNC = MT.S.VSYNC_NS


def test_every_process_with_the_name_is_the_app(tmp_path):
    # The app restarted: pid 1000 (main runs [10,40) on CPU 6) and a second
    # com.example.bench, pid 1100 (its main 1100 runs [60,90) on CPU 7, Worker 1101
    # [60,75) on CPU 6). Both are the target: 30 + 30 + 15 = 75 ms in W = trace [0, 100].
    sch = MT.tiny("two_pids", 100,
                  runs=[run(6, 10, 40, MAIN), run(7, 60, 90, 1100), run(6, 60, 75, 1101)],
                  extra_processes=[Process(1100, MT.APP, uid=MT.S.APP_UID, ppid=700)],
                  extra_threads=[Thread(1100, 1100, "m.example.bench"),
                                 Thread(1101, 1100, "Worker-9")])
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6")
    assert r["process"]["pids"] == [1000, 1100]
    assert r["gc"]["app_cpu_ns"] == 75 * MS
    # pid 1100's main on CPU 7: 30 ms off {6}
    assert r["pinning"]["off_mask_cpu_ns"] == 30 * MS
    assert r["pinning"]["threads_violating"] == 1


def test_every_marker_slice_of_any_process_is_a_run_with_marker_process_any(tmp_path):
    # "Iter" on the app's main thread [100,200) and on another process's thread
    # [300,400): two slices with that name -> two runs with --marker-process '*';
    # the app's own slice only by default.
    atrace = slice_(MAIN, "Iter", 100, 200) + [
        MT.Atrace(t(300), 2000, "B", 2000, "Iter"), MT.Atrace(t(400), 2000, "E", 2000)]
    sch = MT.tiny("marker_other", 500, runs=[run(6, 150, 350, MAIN), run(7, 290, 410, 2000)],
                  atrace=atrace,
                  extra_processes=[Process(2000, "com.harness", uid=10300, ppid=700)],
                  extra_threads=[Thread(2000, 2000, "harness")])
    runs = MT.build_and_analyze(sch, tmp_path, marker="Iter", marker_process="*")
    assert [(r["window"]["start_ts"], r["window"]["end_ts"]) for r in runs] == [
        (t(100), t(200)), (t(300), t(400))]
    own = MT.analyze(tmp_path / "marker_other.pftrace", marker="Iter")
    assert [(r["window"]["start_ts"], r["window"]["end_ts"]) for r in own] == [(t(100), t(200))]
    # main [150,200) 50 in run 0; [300,350) 50 in run 1
    assert [r["gc"]["app_cpu_ns"] for r in runs] == [50 * MS, 50 * MS]


def test_marker_not_found_is_an_error(tmp_path):
    import artscope

    sch = MT.tiny("no_marker", 100, runs=[run(6, 10, 20, MAIN)])
    with pytest.raises(artscope.SelectionError):
        MT.build_and_analyze(sch, tmp_path, marker="Iter")


def test_nested_marker_slices_are_runs_too(tmp_path):
    # "Iter" at depth 1 inside "Outer" [50,450): [100,200) and [300,400) -> two runs.
    atrace = (slice_(MAIN, "Outer", 50, 450) + slice_(MAIN, "Iter", 100, 200)
              + slice_(MAIN, "Iter", 300, 400))
    sch = MT.tiny("marker_nested", 500, runs=[run(6, 150, 350, MAIN)], atrace=atrace)
    runs = MT.build_and_analyze(sch, tmp_path, marker="Iter")
    assert [(r["window"]["start_ts"], r["window"]["end_ts"]) for r in runs] == [
        (t(100), t(200)), (t(300), t(400))]
    assert [r["gc"]["app_cpu_ns"] for r in runs] == [50 * MS, 50 * MS]


def test_gc_null_when_atrace_not_captured(tmp_path):
    # The recorded TraceConfig has no atrace categories (so no "dalvik") and the
    # trace has no GC slice: the GC breakdown was not captured -> null, not 0;
    # CPU time was captured (sched_switch) -> numbers.
    sch = MT.tiny("no_dalvik", 100, threads=(MAIN, HTD),
                  runs=[run(6, 10, 40, MAIN), run(7, 20, 30, HTD)])
    tr = pb.Trace()
    tr.ParseFromString(MT.M.build(sch))
    for p in tr.packet:
        if p.HasField("trace_config"):
            for ds in p.trace_config.data_sources:
                if ds.config.name == "linux.ftrace":
                    del ds.config.ftrace_config.atrace_categories[:]
                    del ds.config.ftrace_config.atrace_apps[:]
                    ds.config.ftrace_config.ftrace_events.remove("ftrace/print")
    path = tmp_path / "no_dalvik.pftrace"
    path.write_bytes(tr.SerializeToString())
    (r,) = MT.analyze(path)
    g = r["gc"]
    assert g["app_cpu_ns"] == 40 * MS          # main 30 + HTD 10
    assert g["gc_daemon_cpu_ns"] == 10 * MS
    for k in ("gc_cpu_ns", "gc_cpu_share", "mutator_cpu_ns", "gc_count", "gc_wall_ns"):
        assert g[k] is None, k
    for group in ("by_cause", "by_kind"):
        assert all(v == {"count": None, "cpu_ns": None} for v in g[group].values())


def test_every_layer_is_a_frame(tmp_path):
    # Two layers of the app, two frames each (tokens 1, 2): 4 frame-timeline rows.
    # Layer B's second frame (#4) misses its deadline (App Deadline Missed).
    other_layer = f"{MT.APP}/{MT.APP}.VideoActivity#1"
    frames = []
    for i, (layer, token, jank, dur_ms) in enumerate([
            (MT.S.LAYER, 1, 1, 10), (other_layer, 1, 1, 12),
            (MT.S.LAYER, 2, 1, 11), (other_layer, 2, 64, 30)]):
        e = t(50) + (token - 1) * 2 * VSYNC
        a = e + MS
        frames.append(Frame("surface", MT.PID, token, 700 + token, e, e + VSYNC, a, a + dur_ms * MS,
                            jank_type=jank, present_type=1 if jank == 1 else 2,
                            on_time_finish=jank == 1, layer_name=layer))
    for token in (1, 2):
        e = t(50) + (token - 1) * 2 * VSYNC + VSYNC // 2
        frames.append(Frame("display", MT.S.SF_PID, 700 + token, 700 + token, e, e + VSYNC,
                            e + MS, e + 9 * MS))
    (r,) = MT.build_and_analyze(MT.tiny("two_layers", 200, frames=frames), tmp_path)
    j = r["jank"]
    assert (j["source"], j["frames"], j["janky_frames"], j["app_janky_frames"]) == (
        "frame_timeline", 4, 1, 1)
    # durations 10, 12, 11, 30: sorted 10 11 12 30; p50 ceil(2) = 2nd -> 11; p90 4th -> 30
    assert j["frame_dur_ms"] == {"p50": 11.0, "p90": 30.0, "p95": 30.0, "p99": 30.0}
    assert j["janky_pct"] == 25.0


def test_grace_covering_all_violations_leaves_no_off_mask_reason(tmp_path):
    # main on CPU 0 [110,130) (off {6}) then on CPU 6 [130, open -> 300); W = [100, 300),
    # grace 50 ms covers the whole violation: reported as grace only, no warning.
    sch = MT.tiny("grace_all", 300, runs=[run(0, 110, 130, MAIN), run(6, 130, None, MAIN)],
                  cpufreq=[MT.CpuFreq(t(0), c, 2_800_000) for c in (0, 6)]
                  + [MT.CpuFreq(t(300), 0, 2_800_000)],
                  clock_rates=[MT.ClockRate(t(0), MT.S.MIF, 3_172_000)])
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6", window="+100ms:+300ms",
                                pin_grace_ns=50 * MS)
    p = r["pinning"]
    assert (p["grace_off_mask_cpu_ns"], p["off_mask_cpu_ns"], p["violation_slices"]) == (
        20 * MS, 0, 0)
    assert p["first_violation_ts"] is None
    assert r["health"]["verdict"] == "pass" and MT.judged_reasons(r) == []
    # without grace: 20 / (20 + 170) > 1 % -> fail
    (r,) = MT.analyze(tmp_path / "grace_all.pftrace", cpus="6", window="+100ms:+300ms")
    assert r["pinning"]["off_mask_cpu_ns"] == 20 * MS
    assert MT.judged_reasons(r) == [("off_mask_cpu", "fail")]


def test_half_open_window_boundaries(tmp_path):
    # W = [100, 200). Everything below touches W only at an edge, except what is marked "in".
    #   main:  CPU 4 [50,100) ends at W's start; CPU 6 [100,150) in; CPU 7 [150,200) in;
    #          CPU 5 [200,250) starts at W's end
    #   kworker/6:0 CPU 6 [60,100), kworker/7:1 CPU 7 [200,230): no interference
    #   HTD GCs: [90,100) ends at W's start; [100,110) in; [200,210) starts at W's end
    #   frames: actual start at 100 (in) and at 200 (not in)
    runs = [run(4, 50, 100, MAIN), run(6, 100, 150, MAIN), run(7, 150, 200, MAIN),
            run(5, 200, 250, MAIN), run(6, 60, 100, 81), run(7, 200, 230, 80)]
    atrace = (slice_(HTD, "C young concurrent copying GC", 90, 100)
              + slice_(HTD, "A young concurrent copying GC", 100, 110)
              + slice_(HTD, "B young concurrent copying GC", 200, 210))
    frames = (MT.frame_pair(1, 701, t(99), t(100), 5 * MS)
              + MT.frame_pair(2, 702, t(199), t(200), 5 * MS))
    sch = MT.tiny("edges", 300, threads=(MAIN, HTD), runs=runs, atrace=atrace, frames=frames,
                  extra_threads=[Thread(80, None, "kworker/7:1"), Thread(81, None, "kworker/6:0")])
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6,7", window="+100ms:+200ms")
    assert r["gc"]["app_cpu_ns"] == 100 * MS     # [100,150) + [150,200)
    p = r["pinning"]
    # only the two slices inside W take part: 6 -> 7, one move inside the big cluster
    assert (p["migrations"], p["cross_cluster_migrations"]) == (1, 0)
    assert (p["off_mask_cpu_ns"], p["violation_slices"]) == (0, 0)
    assert p["interference_cpu_ns"] == 0
    assert p["top_interferers"] == []
    g = r["gc"]
    assert (g["gc_count"], g["gc_wall_ns"]) == (1, 10 * MS)
    assert [e["ts"] for e in g["events"]] == [t(100)]
    assert (r["jank"]["frames"], r["jank"]["frame_dur_ms"]["p50"]) == (1, 5.0)


def test_gc_captured_by_a_custom_gc_pattern(tmp_path):
    # Same trace config without atrace as above, but the trace does hold GC
    # slices -- named by a custom --gc-pattern: the GC data was captured, so
    # the numbers are 0/real, not null. HTD runs [20,30); "Collect" [22,26).
    sch = MT.tiny("custom_gc", 100, threads=(MAIN, HTD),
                  runs=[run(6, 10, 40, MAIN), run(7, 20, 30, HTD)],
                  atrace=slice_(HTD, "Collect", 22, 26))
    tr = pb.Trace()
    tr.ParseFromString(MT.M.build(sch))
    for p in tr.packet:
        if p.HasField("trace_config"):
            for ds in p.trace_config.data_sources:
                if ds.config.name == "linux.ftrace":
                    del ds.config.ftrace_config.atrace_categories[:]
                    del ds.config.ftrace_config.atrace_apps[:]
    path = tmp_path / "custom_gc.pftrace"
    path.write_bytes(tr.SerializeToString())
    (r,) = MT.analyze(path, gc_patterns=("Collect",))
    assert r["gc"]["gc_count"] == 1
    assert r["gc"]["gc_cpu_ns"] == 4 * MS      # HTD on CPU inside [22,26)
    (r,) = MT.analyze(path)                     # default '* GC': nothing matches
    assert r["gc"]["gc_count"] is None
