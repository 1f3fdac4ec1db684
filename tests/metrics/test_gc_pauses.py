"""GC pauses, GC waits and MMU: exact values derived by hand from one schedule.

Trace bounds [0, 1000] ms after T0; app com.example.bench (pid 1000, so its
main thread is tid 1000); an Android 13 device (SDK 33). No sched data:
pauses and waits come from atrace slices only. A pause runs from the
mutators' suspension to where ART registers it (docs/gc-pauses.md). Slices
(B/E on the thread named; indentation = nesting):

HTD  A "Background young concurrent copying GC"   [100,140)   (CC)
       FlipThreadRoots                             [110,116)
         ThreadListFlip                            [110,115)   ART 13: ends with the callback
           (Paused)FlipCallback                    [111,113)   -> pause A1 [110,113) 3 ms
             (Paused)SetFromSpace                  [111,112)
             (Paused)GrayAllNewlyDirtyImmuneObjects [112,113)
               (Paused)ClearCards                  [112,113)
           ResumeRunnableThreads                   [113,114)
       CopyingPhase                                [116,135)
       (Paused)VerifyNoFromSpaceReferences         [136,137)   -> pause A2 [136,137) 1 ms
                                                                  (no suspension traced: lower bound)
HTD  B "Explicit concurrent mark compact GC"      [200,260)   (CMC: ART 14 or later)
       MarkingPhase                                [201,220)
       Suspending mutator threads                  [220,221)
       Mutator threads suspended for ScopedPause   [221,226)   -> pause B1 [220,226) 6 ms
         (Paused)MarkingPause                      [221,225)
       Resuming mutator threads                    [226,227)
       ReclaimPhase                                [227,240)
       ThreadListFlip                              [240,245)
         CompactionPause                           [240,242)
           (Paused)UpdateCompactionDataStructures  [240,241)
         ResumeRunnableThreads                     [242,243)   -> pause B2 [240,243) 3 ms
         FlipOtherThreads                          [243,245)
     CompactionPhase (depth 0, directly after B)   [260,280)   -> B = [200,280)
POOL (Paused)VisitRoots                            [222,225)   inside B1: part of it
HTD  GC: Wait For Completion Background            [300,310)   HTD is no mutator: not a wait
HTD  Deflating monitors                            [400,410)   (heap trim, no GC)
       Suspending mutator threads                  [401,402)
       Mutator threads suspended for Trim          [402,405)   -> other pause [401,405) 4 ms
       Resuming mutator threads                    [405,406)
HTD  C "Alloc young concurrent copying GC"        [900, open)  -> runs to the trace end
       ThreadListFlip                              [950, open) -> pause C1 [950,1000) 50 ms
                                                                  (no inner marker: upper bound)
main GC: Wait For Completion Alloc                 [230,250)   main-thread wait 20 ms
W1   GC: Wait For Completion Alloc                 [120,135)   worker wait 15 ms
W1   GC: Wait For Completion Alloc                 [905, open) worker wait to 1000: 95 ms

GC pauses (sorted by length): A2 1, A1 3, B2 3, B1 6, C1 50 ms. Every GC runs on
HeapTaskDaemon: no foreground GC.
"""

from __future__ import annotations

import sys

import polars as pl
import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, POOL, W1, ms, slice_, t


def pause_schedule():
    s = slice_
    atrace = (
        s(HTD, "Background young concurrent copying GC", 100, 140)
        + s(HTD, "FlipThreadRoots", 110, 116)
        + s(HTD, "ThreadListFlip", 110, 115)
        + s(HTD, "(Paused)FlipCallback", 111, 113)
        + s(HTD, "(Paused)SetFromSpace", 111, 112)
        + s(HTD, "(Paused)GrayAllNewlyDirtyImmuneObjects", 112, 113)
        + s(HTD, "(Paused)ClearCards", 112, 113)
        + s(HTD, "ResumeRunnableThreads", 113, 114)
        + s(HTD, "CopyingPhase", 116, 135)
        + s(HTD, "(Paused)VerifyNoFromSpaceReferences", 136, 137)
        + s(W1, "GC: Wait For Completion Alloc", 120, 135)
        + s(HTD, "Explicit concurrent mark compact GC", 200, 260)
        + s(HTD, "MarkingPhase", 201, 220)
        + s(HTD, "Suspending mutator threads", 220, 221)
        + s(HTD, "Mutator threads suspended for ScopedPause", 221, 226)
        + s(HTD, "(Paused)MarkingPause", 221, 225)
        + s(HTD, "Resuming mutator threads", 226, 227)
        + s(HTD, "ReclaimPhase", 227, 240)
        + s(HTD, "ThreadListFlip", 240, 245)
        + s(HTD, "CompactionPause", 240, 242)
        + s(HTD, "(Paused)UpdateCompactionDataStructures", 240, 241)
        + s(HTD, "ResumeRunnableThreads", 242, 243)
        + s(HTD, "FlipOtherThreads", 243, 245)
        + s(HTD, "CompactionPhase", 260, 280)
        + s(POOL, "(Paused)VisitRoots", 222, 225)
        + s(MAIN, "GC: Wait For Completion Alloc", 230, 250)
        + s(HTD, "GC: Wait For Completion Background", 300, 310)
        + s(HTD, "Deflating monitors", 400, 410)
        + s(HTD, "Suspending mutator threads", 401, 402)
        + s(HTD, "Mutator threads suspended for Trim", 402, 405)
        + s(HTD, "Resuming mutator threads", 405, 406)
        + s(HTD, "Alloc young concurrent copying GC", 900, None)
        + s(HTD, "ThreadListFlip", 950, None)
        + s(W1, "GC: Wait For Completion Alloc", 905, None)
    )
    return MT.tiny("gc_pauses", 1000, threads=(MAIN, W1, HTD, POOL), atrace=atrace)


@pytest.fixture(scope="module")
def pause_trace(tmp_path_factory):
    return MT.write(pause_schedule(), tmp_path_factory.mktemp("pauses"))


def results(path, engine: str, tp_bin: str | None = None, **options):
    import artscope

    rs = artscope.open(str(path), app=MT.APP, engine=engine, tp_bin=tp_bin, **options)
    try:
        out = rs.results
    finally:
        rs.close()
    MT.validate(out)
    return out


ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    """(engine name, trace_processor_shell path or None)."""
    if request.param == "trace_processor":
        return request.param, request.getfixturevalue("tp_bin")
    return request.param, None


@pytest.fixture(scope="module")
def whole(pause_trace, engine):
    (r,) = results(pause_trace, *engine)
    return r


@pytest.fixture(scope="module")
def first_half(pause_trace, engine):
    (r,) = results(pause_trace, *engine, window="+0ms:+500ms")
    return r


def _pause(ts_ms, dur_ms, source, bound, end_slice):
    return {"ts": t(ts_ms), "dur": ms(dur_ms), "source": source, "bound": bound,
            "end_slice": end_slice}


def test_pauses_per_gc(whole):
    ev = whole["gc"]["events"]
    got = [(e["name"].split()[0], e["ts"], e["dur"], e["unfinished"], e["pause_count"],
            e["pause_ns"], e["pauses"]) for e in ev]
    assert got == [
        # CC on ART 13: the flip's pause ends with its callback; the lone (Paused) phase
        # had no traced suspension (at least 1 ms)
        ("Background", t(100), ms(40), False, 2, ms(4),
         [_pause(110, 3, "thread_list_flip", "exact", "(Paused)FlipCallback"),
          _pause(136, 1, "paused_phase", "lower", "(Paused)VerifyNoFromSpaceReferences")]),
        # CMC: the marking pause ends with "Mutator threads suspended for ScopedPause"
        # (POOL's phase lies inside it); its compaction flip ends after
        # ResumeRunnableThreads (CMC is ART 14+); the GC runs on to the end of its
        # CompactionPhase (280)
        ("Explicit", t(200), ms(80), False, 2, ms(9),
         [_pause(220, 6, "suspend_all", "exact", "Mutator threads suspended for ScopedPause"),
          _pause(240, 3, "thread_list_flip", "exact", "ResumeRunnableThreads")]),
        # still running at the trace end: the GC and its flip (no inner marker: the
        # whole slice, an upper bound) run to 1000
        ("Alloc", t(900), ms(100), True, 1, ms(50),
         [_pause(950, 50, "thread_list_flip", "upper", "ThreadListFlip")]),
    ]
    assert [(e["cause"], e["kind"], e["foreground"], e["depth"]) for e in ev] == [
        ("background", "young", False, 0), ("explicit", "full", False, 0),
        ("alloc", "young", False, 0)]


def test_run_pause_stats_whole_trace(whole):
    g = whole["gc"]
    # GC pauses 1, 3, 3, 6, 50 ms (n = 5); nearest rank ceil(p/100 * 5):
    # p50 -> rank 3 = 3 ms; p90 -> rank 5 = 50 ms; p99 -> rank 5 = 50 ms
    assert (g["pause_count"], g["pause_total_ns"], g["pause_max_ns"]) == (5, ms(63), ms(50))
    assert (g["pause_p50_ns"], g["pause_p90_ns"], g["pause_p99_ns"]) == (ms(3), ms(50), ms(50))
    # the heap trim's suspend-all [401,405) belongs to no GC
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, ms(4))
    # waits of mutators: main 20 + W1 15 + W1 [905, 1000) 95 = 130; HTD's does not count
    assert (g["mutator_wait_ns"], g["main_thread_wait_ns"]) == (ms(130), ms(20))
    assert g["unfinished_count"] == 1
    assert (g["foreground_count"], g["foreground_ns"]) == (0, 0)


def test_mmu_whole_trace(whole):
    g = whole["gc"]
    # Unavailable: the GC pauses (no foreground GC). C1 [950,1000) is 50 ms long, so
    # every window up to 50 ms fits inside a pause (MMU 0). Longer windows w: the most
    # pause time is C1's 50 ms ([1000 - w, 1000]) except for w = 1 s, the whole W with
    # all 63 ms.
    want = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0, 20: 0.0, 50: 0.0, 100: 0.5, 200: 0.75,
            500: 0.9, 1000: 1 - 63 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"] for p in g["mmu"]} == pytest.approx(want)
    # Main thread: + its wait [230,250) (holding B2 [240,243)). C1 still dominates up
    # to 500 ms; w = 1 s: 3 + 1 + 6 + 20 + 50 = 80 ms.
    want_main = {**want, 1000: 1 - 80 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"]
            for p in g["main_thread_mmu"]} == pytest.approx(want_main)


def test_run_window_clips_pauses(first_half):
    g = first_half["gc"]
    # W = [0, 500): GCs A and B start in W (C does not). GC pauses in W: 1, 3, 3, 6 ms
    # (n = 4): p50 -> rank 2 = 3 ms; p90 -> rank ceil(3.6) = 4 = 6 ms; p99 -> rank 4 = 6 ms
    assert [e["pause_count"] for e in g["events"]] == [2, 2]
    assert (g["pause_count"], g["pause_total_ns"], g["pause_max_ns"]) == (4, ms(13), ms(6))
    assert (g["pause_p50_ns"], g["pause_p90_ns"], g["pause_p99_ns"]) == (ms(3), ms(6), ms(6))
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, ms(4))
    # main [230,250) 20 + W1 [120,135) 15; W1's open wait starts after W
    assert (g["mutator_wait_ns"], g["main_thread_wait_ns"]) == (ms(35), ms(20))


def test_mmu_run_window(first_half):
    g = first_half["gc"]
    # Pauses A1 [110,113) A2 [136,137) B1 [220,226) B2 [240,243) in W = [0, 500) (the
    # trim's suspend-all is no GC pause). Most pause time in a window of w ms:
    #   w <= 5: inside B1 (6 ms) -> 0;  10: B1 6 -> 0.4;  20: B1 6 ([220,240]) -> 0.7
    #   50: [200,250] B1 + B2 9 -> 0.82;  100: [143,243] 9 -> 0.91
    #   200: [43,243] all 13 -> 0.935;  500: all 13 -> 0.974;  1 s > W: left out
    want = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.4, 20: 0.7, 50: 0.82, 100: 0.91,
            200: 1 - 13 / 200, 500: 1 - 13 / 500}
    assert {p["window_ns"] // 1_000_000: p["mmu"] for p in g["mmu"]} == pytest.approx(want)
    # Main thread: A1, A2, B1 and its wait [230,250) (holding B2).
    #   w <= 20: inside the wait -> 0;  50: [200,250] 6 + 20 = 26 -> 0.48
    #   100: [150,250] 26 -> 0.74;  200: [50,250] 30 -> 0.85;  500: 30 -> 0.94
    want_main = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0, 20: 0.0, 50: 0.48, 100: 0.74,
                 200: 0.85, 500: 0.94}
    assert {p["window_ns"] // 1_000_000: p["mmu"]
            for p in g["main_thread_mmu"]} == pytest.approx(want_main)


def test_unfinished_gc_is_a_warning(whole):
    reasons = [r for r in whole["health"]["reasons"] if r["id"] == "gc_unfinished"]
    assert [(r["severity"], r["start_ts"]) for r in reasons] == [("warn", t(900))]


def test_pause_rows_name_their_source(pause_trace, engine):
    import artscope

    rs = artscope.open(str(pause_trace), app=MT.APP, engine=engine[0], tp_bin=engine[1])
    try:
        rows = rs.analysis.runner.run("gc_pause")
    finally:
        rs.close()
    got = [(r["ts"], r["dur"], r["source"], r["bound"], r["end_slice"], r["tid"],
            r["gc_id"] is None, bool(r["unfinished"]))
           for r in rows.iter_rows(named=True)]
    assert got == [
        (t(110), ms(3), "thread_list_flip", "exact", "(Paused)FlipCallback", HTD, False, False),
        (t(136), ms(1), "paused_phase", "lower", "(Paused)VerifyNoFromSpaceReferences", HTD,
         False, False),
        (t(220), ms(6), "suspend_all", "exact", "Mutator threads suspended for ScopedPause",
         HTD, False, False),
        (t(240), ms(3), "thread_list_flip", "exact", "ResumeRunnableThreads", HTD, False, False),
        # heap trim: outside any GC
        (t(401), ms(4), "suspend_all", "exact", "Mutator threads suspended for Trim", HTD,
         True, False),
        (t(950), ms(50), "thread_list_flip", "upper", "ThreadListFlip", HTD, False, True),
    ]


def test_no_phase_slices_means_unknown_pauses(tmp_path):
    # A GC slice with nothing nested in it (old ART, or phases not traced): pause
    # times cannot be known -> null, with a reason; waits are still counted.
    sch = MT.tiny("no_phases", 300, threads=(MAIN, HTD),
                  atrace=slice_(HTD, "Background concurrent copying GC", 100, 150)
                  + slice_(MAIN, "GC: Wait For Completion", 120, 130))
    (r,) = MT.build_and_analyze(sch, tmp_path)
    g = r["gc"]
    assert g["pause_count"] is None and g["pause_max_ns"] is None and g["mmu"] is None
    assert g["events"][0]["pauses"] is None
    assert (g["mutator_wait_ns"], g["main_thread_wait_ns"]) == (ms(10), ms(10))
    # pauses are not a headline metric: a note, the verdict stands
    assert MT.reason_ids(r).get("gc_pauses_unknown") == "info"


@pytest.mark.tp
def test_finished_gcs_equal_perfettos_gc_module(tmp_path, tp_bin):
    # HTD runs [15, 60) and [100, open) on CPU 7 (switched out runnable at 60, back at
    # 100), the trace ends at 300. GCs: two Background GCs back to back ([20,30) then
    # [30,50)); "Young concurrent mark compact GC" [100,150) directly followed by a
    # CompactionPhase that never ends. A 'Heap size (KB)' counter (5000 at 10, 4000 at
    # 200), which Perfetto's android.garbage_collection needs to list a GC at all.
    # Finished GCs: the module's gc_dur, gc_running_dur and gc_runnable_dur equal
    # artscope's dur, cpu_ns and runnable_ns, except where the module adds a directly
    # following "Background concurrent copying GC" to the GC before it ([20,30) -> 30
    # ms): artscope counts that GC on its own. The unfinished GC: the module adds the
    # open phase's recorded dur (-1) -> 50 ms - 1 ns; artscope runs it to the trace end
    # (200 ms), as the CompactionPhase was still going.
    import subprocess

    from schedules import Atrace

    from metric_traces import PID, run

    R_PLUS = 0x100
    sch = MT.tiny("stdlib_gc", 300, threads=(MAIN, HTD),
                  runs=[run(7, 15, 60, HTD, end_state=R_PLUS), run(7, 100, None, HTD)],
                  atrace=slice_(HTD, "Background concurrent copying GC", 20, 30)
                  + slice_(HTD, "Background concurrent copying GC", 30, 50)
                  + slice_(HTD, "Young concurrent mark compact GC", 100, 150)
                  + slice_(HTD, "CompactionPhase", 150, None)
                  + [Atrace(t(10), HTD, "C", PID, "Heap size (KB)", 5000),
                     Atrace(t(200), HTD, "C", PID, "Heap size (KB)", 4000)])
    path = MT.write(sch, tmp_path)
    query = tmp_path / "q.sql"
    query.write_text("INCLUDE PERFETTO MODULE android.garbage_collection;\n"
                     "SELECT gc_ts, gc_dur, gc_running_dur, gc_runnable_dur "
                     "FROM android_garbage_collection_events ORDER BY gc_ts;")
    out = subprocess.run([tp_bin, "-q", str(query), str(path)], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    module = [tuple(int(x) for x in line.split(",")) for line in out.splitlines()[1:] if line]
    # (the unfinished GC's running time is the open Running state's recorded dur, -1)
    assert module == [(t(20), ms(30), ms(30), 0), (t(30), ms(20), ms(20), 0),
                      (t(100), ms(50) - 1, -1, 0)]
    for engine in ("embedded", "trace_processor"):
        (r,) = results(path, engine, tp_bin=tp_bin if engine == "trace_processor" else None)
        got = [(e["ts"], e["dur"], e["cpu_ns"], e["runnable_ns"], e["unfinished"])
               for e in r["gc"]["events"]]
        assert got == [(t(20), ms(10), ms(10), 0, False),
                       (t(30), ms(20), ms(20), 0, False),
                       (t(100), ms(200), ms(200), 0, True)]
        # the second GC, finished, equals the module's row
        assert got[1][:4] == module[1]


def test_report_charts_draw_pauses_and_mmu(pause_trace):
    import artscope
    from artscope.report import charts

    with artscope.open(str(pause_trace), app=MT.APP, engine="embedded",
                       window="+0ms:+500ms") as rs:
        rows = charts.pause_rows(rs, 0)
        # lanes in W = [0, 500): GCs A [100,140) and B [200,280); GC pauses A1, A2,
        # B1, B2; the trim's suspend-all; main's wait [230,250); W1's wait [120,135)
        got = sorted((r["lane"], round(r["t0"] * 1000), round(r["dur_ms"]))
                     for r in rows.iter_rows(named=True))
        assert got == sorted([
            ("GC", 100, 40), ("GC", 200, 80),
            ("GC pause", 110, 3), ("GC pause", 136, 1), ("GC pause", 220, 6),
            ("GC pause", 240, 3), ("other suspend-all", 401, 4),
            ("main thread waits", 230, 20), ("other mutator waits", 120, 15)])
        mmu = charts.mmu_rows(rs, 0)
        assert mmu.filter(pl.col("window_ns") == ms(10))["mmu"].to_list() == [
            pytest.approx(0.4), 0.0]  # app curve, then the main thread's
        for chart in (charts.gc_pauses(rs, 0), charts.mmu(rs, 0)):
            chart.to_dict()  # validates against the Vega-Lite schema


@pytest.mark.parametrize("engine_name", ["embedded", pytest.param("trace_processor",
                                                                    marks=pytest.mark.tp)])
def test_real_trace_heap_trim_suspend_all(shared_traces, engine_name, request):
    # perfskills-api32: Play Store's HeapTaskDaemon trims its heap (no GC slice in the
    # trace): "Suspending mutator threads" at 157479697024567, "Mutator threads
    # suspended for Trim" ending at 157479697175120 + 184489 = 157479697359609 -> one
    # suspend-all of 335,042 ns, outside any GC. No "* GC" slice: no GC pause, pauses
    # known to be none.
    tp = request.getfixturevalue("tp_bin") if engine_name == "trace_processor" else None
    (r,) = _real(shared_traces, engine_name, tp)
    g = r["gc"]
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, 335_042)
    assert (g["pause_count"], g["pause_max_ns"], g["mutator_wait_ns"]) == (0, 0, 0)
    assert all(p["mmu"] == 1.0 for p in g["mmu"])


def _real(shared_traces, engine_name, tp):
    import artscope

    path = shared_traces / "perfskills-api32_startup_warm.perfetto-trace"
    with artscope.open(str(path), app="com.android.vending", engine=engine_name,
                       tp_bin=tp) as rs:
        return rs.results


@pytest.mark.tp
def test_sql_package_table_of_pauses_in_the_shell(pause_trace, tmp_path, tp_bin):
    # artscope_gc_pause / artscope_gc_wait inside trace_processor_shell give the rows
    # of the whole-trace run: the six pauses and three mutator waits of the schedule.
    import subprocess

    from artscope.sqlpackage import build_module

    pkg = tmp_path / "artscope"
    pkg.mkdir()
    for m in ("gc_pause", "gc_wait"):
        (pkg / f"{m}.sql").write_text(build_module(m).text)
    q = tmp_path / "q.sql"
    q.write_text(
        "INCLUDE PERFETTO MODULE artscope.gc_pause;\n"
        "INCLUDE PERFETTO MODULE artscope.gc_wait;\n"
        "SELECT 'pause', ts, dur, source FROM artscope_gc_pause("
        "'com.example.bench', trace_start(), trace_end())\n"
        "UNION ALL SELECT 'wait', ts, dur, is_main_thread FROM artscope_gc_wait("
        "'com.example.bench', trace_start(), trace_end())\n"
        "ORDER BY 1, 2;\n")
    out = subprocess.run([tp_bin, "--add-sql-package", str(pkg), "-q", str(q),
                          str(pause_trace)], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    rows = [line.replace('"', "").split(",") for line in out.splitlines()[1:] if line]
    got = [(k, int(ts), int(d), v) for k, ts, d, v in rows]
    assert got == [
        ("pause", t(110), ms(3), "thread_list_flip"), ("pause", t(136), ms(1), "paused_phase"),
        ("pause", t(220), ms(6), "suspend_all"), ("pause", t(240), ms(3), "thread_list_flip"),
        ("pause", t(401), ms(4), "suspend_all"), ("pause", t(950), ms(50), "thread_list_flip"),
        ("wait", t(120), ms(15), "0"), ("wait", t(230), ms(20), "1"),
        ("wait", t(905), ms(95), "0"),
    ]


def test_cli_table_shows_the_longest_pause(pause_trace):
    import subprocess

    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(pause_trace),
                        "--app", MT.APP, "--engine", "embedded"],
                       capture_output=True, text=True, timeout=300)
    assert "max pause" in p.stdout and "50.00 ms" in p.stdout  # C1, the longest


@pytest.mark.tp
@pytest.mark.parametrize("engine_name", ["embedded", "trace_processor"])
def test_real_trace_gc_equals_perfettos_module_and_art_pause(shared_traces, tp_bin,
                                                             engine_name):
    # gtechoogle (pre-CC ART): HeapTaskDaemon of pid 8704 runs one finished
    # "Background sticky concurrent mark sweep GC". Its CPU and runnable time equal
    # Perfetto's android.garbage_collection (read from the shell itself); its one
    # pause is the ScopedPause: "Suspending mutator threads" at +18.955 ms to the end
    # of "Mutator threads suspended for ScopedPause" at +22.935 ms (docs/gc-pauses.md)
    import subprocess

    import artscope

    path = shared_traces / "gtechoogle-mytrace.html"
    q = ("INCLUDE PERFETTO MODULE android.garbage_collection;\n"
         "SELECT gc_ts, gc_dur, gc_running_dur, gc_runnable_dur "
         "FROM android_garbage_collection_events;")
    out = subprocess.run([tp_bin, "-Q", q, str(path)], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    (module,) = [tuple(int(x) for x in line.split(",")) for line in out.splitlines()[1:]
                 if line]
    with artscope.open(str(path), pid=8704, engine=engine_name, tp_bin=tp_bin) as rs:
        (r,) = rs.results
    (e,) = r["gc"]["events"]
    assert (e["ts"], e["dur"], e["cpu_ns"], e["runnable_ns"]) == module
    gc_start = 78938632308000
    assert e["pauses"] == [{"ts": gc_start + 18_955_000, "dur": 3_980_000,
                            "source": "suspend_all", "bound": "exact",
                            "end_slice": "Mutator threads suspended for ScopedPause"}]
    assert r["gc"]["gc_cpu_ns"] == module[2]
