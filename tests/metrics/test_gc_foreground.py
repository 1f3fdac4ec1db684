"""Every GC of the app, on any of its threads and at any depth; CPU time that
ends where a CPU's data ends; zero GCs as a measured zero. Exact values derived
by hand from each schedule (ms after T0; app com.example.bench, pid 1000,
main thread tid 1000).
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, PID, W1, ms, run, slice_, t
from schedules import Atrace

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def foreground_schedule():
    """Trace [0, 1000], Android 13 (SDK 33).

    CPU 4: main [10,200) and [220,300)
    CPU 5: W1 [280,360)
    CPU 6: HTD [100,130)

    main  Choreographer#doFrame 123                 [20,180)
            Alloc young concurrent copying GC       [40,140)   depth 1: foreground, 100 ms
              ThreadListFlip                        [45,55)
                (Paused)FlipCallback                [45,47)    -> pause [45,47) 2 ms
              MarkingPhase                          [60,100)
    main  inflate                                   [230,280)
            NativeAlloc concurrent copying GC       [240,260)  depth 1: foreground, 20 ms
              MarkingPhase                          [241,250)
    W1    Alloc concurrent copying GC               [300,350)  depth 0: foreground, 50 ms
              MarkingPhase                          [301,320)
    HTD   Background concurrent copying GC          [100,130)  background, 30 ms
              CopyingPhase                          [101,120)
    Heap size (KB) of the app: 50000 at 30, 40000 at 145, 38000 at 265.
    """
    runs = [run(4, 10, 200, MAIN), run(4, 220, 300, MAIN), run(5, 280, 360, W1),
            run(6, 100, 130, HTD)]
    atrace = (
        slice_(MAIN, "Choreographer#doFrame 123", 20, 180)
        + slice_(MAIN, "Alloc young concurrent copying GC", 40, 140)
        + slice_(MAIN, "ThreadListFlip", 45, 55)
        + slice_(MAIN, "(Paused)FlipCallback", 45, 47)
        + slice_(MAIN, "MarkingPhase", 60, 100)
        + slice_(MAIN, "inflate", 230, 280)
        + slice_(MAIN, "NativeAlloc concurrent copying GC", 240, 260)
        + slice_(MAIN, "MarkingPhase", 241, 250)
        + slice_(W1, "Alloc concurrent copying GC", 300, 350)
        + slice_(W1, "MarkingPhase", 301, 320)
        + slice_(HTD, "Background concurrent copying GC", 100, 130)
        + slice_(HTD, "CopyingPhase", 101, 120)
        + [Atrace(t(30), HTD, "C", PID, "Heap size (KB)", 50000),
           Atrace(t(145), HTD, "C", PID, "Heap size (KB)", 40000),
           Atrace(t(265), HTD, "C", PID, "Heap size (KB)", 38000)]
    )
    return MT.tiny("foreground_gcs", 1000, threads=(MAIN, W1, HTD), runs=runs, atrace=atrace)


@pytest.fixture(scope="module")
def fg_trace(tmp_path_factory):
    return MT.write(foreground_schedule(), tmp_path_factory.mktemp("fg"))


@pytest.fixture(scope="module", params=ENGINES)
def fg(fg_trace, request):
    import artscope

    tp = request.getfixturevalue("tp_bin") if request.param == "trace_processor" else None
    with artscope.open(str(fg_trace), app=MT.APP, engine=request.param, tp_bin=tp) as rs:
        out = rs.results
    MT.validate(out)
    return out[0]


def test_gcs_at_any_depth_on_any_thread(fg):
    g = fg["gc"]
    got = [(e["ts"], e["dur"], e["cause"], e["foreground"], e["depth"], e["tid"], e["cpu_ns"])
           for e in g["events"]]
    assert got == [
        (t(40), ms(100), "alloc", True, 1, MAIN, ms(100)),         # inside doFrame
        (t(100), ms(30), "background", False, 0, HTD, ms(30)),
        (t(240), ms(20), "native_alloc", True, 1, MAIN, ms(20)),   # inside inflate
        (t(300), ms(50), "alloc", True, 0, W1, ms(50)),            # a worker's own GC
    ]
    assert g["gc_count"] == 4
    assert (g["foreground_count"], g["foreground_ns"]) == (3, ms(170))


def test_foreground_gc_cpu_is_gc_cpu_once(fg):
    g = fg["gc"]
    # app: main 190 + 80, W1 80, HTD 30 = 380 ms; GC: 100 + 20 (main) + 50 (W1) + 30 (HTD)
    assert g["app_cpu_ns"] == ms(380)
    assert g["gc_cpu_ns"] == ms(200)
    assert g["mutator_cpu_ns"] == ms(180)
    # union of GC intervals: [40,140) (holding HTD's [100,130)), [240,260), [300,350)
    assert g["gc_wall_ns"] == ms(170)
    assert g["by_cause"]["alloc"] == {"count": 2, "cpu_ns": ms(150)}
    assert g["by_cause"]["native_alloc"] == {"count": 1, "cpu_ns": ms(20)}


def test_mmu_counts_foreground_gcs_whole(fg):
    g = fg["gc"]
    # ART's only registered pause is the flip's [45,47): 2 ms
    assert (g["pause_count"], g["pause_total_ns"]) == (1, ms(2))
    # app curve: unavailable [40,140) ∪ [240,260) ∪ [300,350) (the pause is inside):
    # w <= 100 fits in the 100 ms GC -> 0; 200: [40,240] 100 -> 0.5;
    # 500: [0,500] 170 -> 0.66; 1000: 170 -> 0.83
    want = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0, 20: 0.0, 50: 0.0, 100: 0.0, 200: 0.5,
            500: 1 - 170 / 500, 1000: 1 - 170 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"] for p in g["mmu"]} == pytest.approx(want)
    # main thread: its own GCs [40,140) and [240,260) only (W1's is not the main
    # thread's): 500: 120 -> 0.76; 1000: 120 -> 0.88
    want_main = {**want, 500: 1 - 120 / 500, 1000: 1 - 120 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"]
            for p in g["main_thread_mmu"]} == pytest.approx(want_main)


def test_heap_before_after_and_reclaimed(fg):
    ev = {e["ts"]: e for e in fg["gc"]["events"]}
    # alloc GC [40,140): holding at its start 50000; the first sample at or after its
    # end 40000 (at 145); reclaimed (50000 - 40000) / 1000 = 10 MB
    a = ev[t(40)]
    assert (a["heap_before_kb"], a["heap_after_kb"], a["reclaimed_mb"]) == (50000, 40000, 10.0)
    # HTD's GC [100,130) runs inside it: the same samples around it
    b = ev[t(100)]
    assert (b["heap_before_kb"], b["heap_after_kb"], b["reclaimed_mb"]) == (50000, 40000, 10.0)
    # native GC [240,260): 40000 before, 38000 at 265 -> 2 MB
    n = ev[t(240)]
    assert (n["heap_before_kb"], n["heap_after_kb"], n["reclaimed_mb"]) == (40000, 38000, 2.0)
    # W1's GC [300,350): no sample after it -> reclaim unknown
    w = ev[t(300)]
    assert (w["heap_before_kb"], w["heap_after_kb"], w["reclaimed_mb"]) == (38000, None, None)


@pytest.mark.tp
def test_heap_reclaimed_equals_perfettos_gc_module(fg_trace, tp_bin):
    # Perfetto's module sees the depth-0 GCs only (HTD's and W1's; not the two nested
    # in main's slices); its reclaimed_mb for them is artscope's: 10 MB, and unknown
    # for W1's (no sample after it)
    import subprocess

    q = ("INCLUDE PERFETTO MODULE android.garbage_collection;\n"
         "SELECT gc_ts, reclaimed_mb FROM android_garbage_collection_events ORDER BY gc_ts;")
    out = subprocess.run([tp_bin, "-Q", q, str(fg_trace)], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    rows = [line.replace('"', "").split(",") for line in out.splitlines()[1:] if line]
    assert [(int(ts), None if mb == "[NULL]" else float(mb)) for ts, mb in rows] == [
        (t(100), 10.0), (t(300), None)]


def test_cli_shows_the_foreground_gcs(fg_trace):
    import json
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(fg_trace),
                        "--app", MT.APP, "--engine", "embedded", "--format", "json"],
                       capture_output=True, text=True, timeout=300, check=True)
    (r,) = json.loads(p.stdout)
    assert (r["gc"]["gc_count"], r["gc"]["foreground_count"]) == (4, 3)


# -- CPU time where a CPU's data ends -------------------------------------------

def _data_end_schedule(cpu6_end):
    """Trace [0, 300] (bounds events on CPU 0). HTD switches in on CPU 6 at 100 and
    never out; it opens "Background concurrent copying GC" at 120 (never closed) and
    writes CopyingPhase [150,170) while running there. CPU 6's recording stops at
    ``cpu6_end`` (None: at its last event, HTD's marker at 170)."""
    sch = MT.tiny("data_end", 300, threads=(MAIN, HTD),
                  runs=[run(4, 10, 60, MAIN), run(6, 100, None, HTD)],
                  atrace=slice_(HTD, "Background concurrent copying GC", 120, None)
                  + slice_(HTD, "CopyingPhase", 150, 170))
    sch.cpu_data_end = {6: cpu6_end}
    return sch


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cpu6_end, ran_until", [(None, 170), (t(250), 250), (t(300), 300)])
def test_open_sched_slice_ends_with_its_cpus_data(tmp_path, request, engine, cpu6_end,
                                                  ran_until):
    # HTD ran [100, ran_until): CPU 6 recorded nothing after; the GC [120, 300) is
    # unfinished (open at the trace end) and its CPU is [120, ran_until)
    import artscope

    path = MT.write(_data_end_schedule(cpu6_end), tmp_path)
    tp = request.getfixturevalue("tp_bin") if engine == "trace_processor" else None
    with artscope.open(str(path), app=MT.APP, engine=engine, tp_bin=tp) as rs:
        (r,) = rs.results
    g = r["gc"]
    assert g["app_cpu_ns"] == ms(50) + ms(ran_until - 100)       # main 50 + HTD
    assert g["gc_daemon_cpu_ns"] == ms(ran_until - 100)
    (e,) = g["events"]
    assert (e["ts"], e["dur"], e["unfinished"], e["cpu_ns"]) == (
        t(120), ms(180), True, ms(ran_until - 120))
    assert g["gc_cpu_ns"] == ms(ran_until - 120)
    assert MT.reason_ids(r)["gc_unfinished"] == "warn"


# -- zero is not unknown ---------------------------------------------------------

def test_heap_counter_without_gc_is_zero_gcs(tmp_path):
    # ART's heap counter is there (dalvik recorded), no GC slice, no dalvik in the
    # recorded config: no GC ran -> count 0, share 0, no gc_missing
    sch = MT.tiny("no_gc", 300, threads=(MAIN, HTD), runs=[run(4, 10, 200, MAIN)],
                  atrace=[Atrace(t(50), HTD, "C", PID, "Heap size (KB)", 9000)])
    sch.atrace_categories = ("gfx", "view")
    (r,) = MT.build_and_analyze(sch, tmp_path)
    g = r["gc"]
    assert (g["gc_count"], g["gc_cpu_ns"], g["gc_cpu_share"]) == (0, 0, 0.0)
    assert (g["foreground_count"], g["foreground_ns"]) == (0, 0)
    assert "gc_missing" not in MT.reason_ids(r)


def test_no_sign_of_dalvik_is_unknown(tmp_path):
    # no heap counter, no ART slice, no dalvik in the config: GCs unknown
    sch = MT.tiny("no_dalvik", 300, threads=(MAIN,), runs=[run(4, 10, 200, MAIN)],
                  atrace=slice_(MAIN, "Choreographer#doFrame 1", 20, 30))
    sch.atrace_categories = ("gfx", "view")
    (r,) = MT.build_and_analyze(sch, tmp_path)
    g = r["gc"]
    assert (g["gc_count"], g["gc_cpu_ns"], g["foreground_count"]) == (None, None, None)
    assert MT.reason_ids(r)["gc_missing"] == "warn"


def test_systrace_with_heap_counter_and_no_gc(tmp_path):
    # A systrace (no recorded config) whose only dalvik trace is ART's heap counter:
    # analyze says 0 GCs, and check agrees (no gc_missing line)
    import json
    import subprocess
    import sys

    text = (
        "# tracer: nop\n#\n"
        "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
        "#              | |        |      |   ||||       |         |\n"
        "          <idle>-0     (-----) [000] d..3  100.000000: sched_switch: prev_comm=swapper"
        " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ample.listjank next_pid=4242"
        " next_prio=110\n"
        "   ample.listjank-4242  ( 4242) [000] ...1  100.100000: tracing_mark_write:"
        " C|4242|Heap size (KB)|12000\n"
        "   ample.listjank-4242  ( 4242) [000] ...1  100.200000: tracing_mark_write:"
        " B|4242|Choreographer#doFrame\n"
        "   ample.listjank-4242  ( 4242) [000] ...1  100.210000: tracing_mark_write: E|4242\n"
        "   ample.listjank-4242  ( 4242) [000] d..3  100.300000: sched_switch:"
        " prev_comm=ample.listjank prev_pid=4242 prev_prio=110 prev_state=S ==>"
        " next_comm=swapper next_pid=0 next_prio=120\n"
    )
    path = tmp_path / "listjank.txt"
    path.write_text(text)
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(path),
                        "--pid", "4242", "--format", "json"],
                       capture_output=True, text=True, timeout=300, check=True)
    (r,) = json.loads(p.stdout)
    assert (r["gc"]["gc_count"], r["gc"]["gc_cpu_share"]) == (0, 0.0)
    assert "gc_missing" not in {x["id"] for x in r["health"]["reasons"]}
    c = subprocess.run([sys.executable, "-m", "artscope.cli", "check", str(path),
                        "--pid", "4242"], capture_output=True, text=True, timeout=300)
    assert "gc_missing" not in c.stdout + c.stderr
