"""GC pauses, GC waits and MMU: exact values derived by hand from one schedule.

Trace bounds [0, 1000] ms after T0; app com.example.bench (pid 1000, so its
main thread is tid 1000). No sched data: pauses and waits come from atrace
slices only. Slices (B/E on the thread named; indentation = nesting):

HTD  A "Background young concurrent copying GC"   [100,140)   (CC)
       FlipThreadRoots                             [110,116)
         ThreadListFlip                            [110,115)   -> pause A1 [110,115) 5 ms
           (Paused)FlipCallback                    [111,113)
             (Paused)SetFromSpace                  [111,112)
             (Paused)GrayAllNewlyDirtyImmuneObjects [112,113)
               (Paused)ClearCards                  [112,113)
           ResumeRunnableThreads                   [113,114)
       CopyingPhase                                [116,135)
       (Paused)VerifyNoFromSpaceReferences         [136,137)   -> pause A2 [136,137) 1 ms
                                                                  (inside no flip / suspend-all)
HTD  B "Explicit concurrent mark compact GC"      [200,260)   (CMC)
       MarkingPhase                                [201,220)
       Suspending mutator threads                  [220,221)
       Mutator threads suspended for ScopedPause   [221,226)
         (Paused)MarkingPause                      [221,225)
       Resuming mutator threads                    [226,227)   -> suspend-all [220,227)
       ReclaimPhase                                [227,240)
       ThreadListFlip                              [240,242)   -> pause B2 [240,242) 2 ms
         CompactionPause                           [240,242)
           (Paused)UpdateCompactionDataStructures  [240,241)
     CompactionPhase (depth 0, directly after B)   [260,280)   -> B = [200,280)
POOL (Paused)VisitRoots                            [225,229)   overlaps the suspend-all
                                                               -> pause B1 = [220,229) 9 ms
HTD  GC: Wait For Completion Background            [300,310)   HTD is no mutator: not a wait
HTD  Deflating monitors                            [400,410)   (heap trim, no GC)
       Suspending mutator threads                  [401,402)
       Mutator threads suspended for Trim          [402,405)
       Resuming mutator threads                    [405,406)   -> other pause [401,406) 5 ms
HTD  C "Alloc young concurrent copying GC"        [900, open)  -> runs to the trace end
       ThreadListFlip                              [950, open) -> pause C1 [950,1000) 50 ms
main GC: Wait For Completion Alloc                 [230,250)   main-thread wait 20 ms
W1   GC: Wait For Completion Alloc                 [120,135)   worker wait 15 ms
W1   GC: Wait For Completion Alloc                 [905, open) worker wait to 1000: 95 ms

GC pauses (sorted by length): A2 1, B2 2, A1 5, B1 9, C1 50 ms.
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
        + s(HTD, "ThreadListFlip", 240, 242)
        + s(HTD, "CompactionPause", 240, 242)
        + s(HTD, "(Paused)UpdateCompactionDataStructures", 240, 241)
        + s(HTD, "CompactionPhase", 260, 280)
        + s(POOL, "(Paused)VisitRoots", 225, 229)
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


def test_pauses_per_gc(whole):
    ev = whole["gc"]["events"]
    got = [(e["name"].split()[0], e["ts"], e["dur"], e["unfinished"], e["pause_count"],
            e["pause_ns"], e["pauses"]) for e in ev]
    assert got == [
        # CC: the flip (its nested (Paused) phases inside it) + a lone (Paused) phase
        ("Background", t(100), ms(40), False, 2, ms(6), [[t(110), ms(5)], [t(136), ms(1)]]),
        # CMC: the suspend-all merged with the POOL phase overlapping it, then the flip;
        # the GC runs on to the end of its CompactionPhase (280)
        ("Explicit", t(200), ms(80), False, 2, ms(11), [[t(220), ms(9)], [t(240), ms(2)]]),
        # still running at the trace end: GC and its flip run to 1000
        ("Alloc", t(900), ms(100), True, 1, ms(50), [[t(950), ms(50)]]),
    ]
    assert [(e["cause"], e["kind"]) for e in ev] == [
        ("background", "young"), ("explicit", "full"), ("alloc", "young")]


def test_run_pause_stats_whole_trace(whole):
    g = whole["gc"]
    # GC pauses 1, 2, 5, 9, 50 ms (n = 5); nearest rank ceil(p/100 * 5):
    # p50 -> rank 3 = 5 ms; p90 -> rank 5 = 50 ms; p99 -> rank 5 = 50 ms
    assert (g["pause_count"], g["pause_total_ns"], g["pause_max_ns"]) == (5, ms(67), ms(50))
    assert (g["pause_p50_ns"], g["pause_p90_ns"], g["pause_p99_ns"]) == (ms(5), ms(50), ms(50))
    # the heap trim's suspend-all [401,406) belongs to no GC
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, ms(5))
    # waits of mutators: main 20 + W1 15 + W1 [905, 1000) 95 = 130; HTD's does not count
    assert (g["mutator_wait_ns"], g["main_thread_wait_ns"]) == (ms(130), ms(20))
    assert g["unfinished_count"] == 1


def test_mmu_whole_trace(whole):
    g = whole["gc"]
    # Unavailable: the GC pauses. C1 [950,1000) is 50 ms long, so every window up to
    # 50 ms fits inside a pause (MMU 0). Longer windows w: the most pause time is C1's
    # 50 ms ([1000 - w, 1000]) except for w = 1 s, the whole W with all 67 ms.
    want = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0, 20: 0.0, 50: 0.0, 100: 0.5, 200: 0.75,
            500: 0.9, 1000: 1 - 67 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"] for p in g["mmu"]} == pytest.approx(want)
    # Main thread: + its wait [230,250) (merging B2 [240,242) into [230,250)). C1 still
    # dominates up to 500 ms; w = 1 s: 5 + 1 + 9 + 20 + 50 = 85 ms.
    want_main = {**want, 1000: 1 - 85 / 1000}
    assert {p["window_ns"] // 1_000_000: p["mmu"]
            for p in g["main_thread_mmu"]} == pytest.approx(want_main)


def test_run_window_clips_pauses(first_half):
    g = first_half["gc"]
    # W = [0, 500): GCs A and B start in W (C does not). GC pauses in W: 1, 2, 5, 9 ms
    # (n = 4): p50 -> rank 2 = 2 ms; p90 -> rank ceil(3.6) = 4 = 9 ms; p99 -> rank 4 = 9 ms
    assert [e["pause_count"] for e in g["events"]] == [2, 2]
    assert (g["pause_count"], g["pause_total_ns"], g["pause_max_ns"]) == (4, ms(17), ms(9))
    assert (g["pause_p50_ns"], g["pause_p90_ns"], g["pause_p99_ns"]) == (ms(2), ms(9), ms(9))
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, ms(5))
    # main [230,250) 20 + W1 [120,135) 15; W1's open wait starts after W
    assert (g["mutator_wait_ns"], g["main_thread_wait_ns"]) == (ms(35), ms(20))


def test_mmu_run_window(first_half):
    g = first_half["gc"]
    # Pauses A1 [110,115) A2 [136,137) B1 [220,229) B2 [240,242) in W = [0, 500)
    # (the trim's suspend-all is no GC pause). Most pause time in a window of w ms:
    #   w <= 5: inside A1 -> 0;  10: B1 9 -> 0.1;  20: [220,240] 9 -> 0.55
    #   50: [220,270] B1 + B2 11 -> 0.78;  100: [142,242] 11 -> 0.89
    #   200: [42,242] all 17 -> 0.915;  500: all 17 -> 0.966;  1 s > W: left out
    want = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.1, 20: 0.55, 50: 0.78, 100: 0.89,
            200: 1 - 17 / 200, 500: 1 - 17 / 500}
    assert {p["window_ns"] // 1_000_000: p["mmu"] for p in g["mmu"]} == pytest.approx(want)
    # Main thread: A1, A2, B1 and its wait [230,250) (holding B2).
    #   w <= 20: inside the wait -> 0;  50: [200,250] 9 + 20 = 29 -> 0.42
    #   100: [150,250] 29 -> 0.71 (A2 to the wait's end is 114 ms);  200: [50,250] 35 -> 0.825
    #   500: 35 -> 0.93
    want_main = {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0, 20: 0.0, 50: 0.42, 100: 0.71,
                 200: 0.825, 500: 0.93}
    assert {p["window_ns"] // 1_000_000: p["mmu"]
            for p in g["main_thread_mmu"]} == pytest.approx(want_main)


def test_unfinished_gc_is_a_warning(whole):
    reasons = [r for r in whole["health"]["reasons"] if r["id"] == "gc_unfinished"]
    assert [(r["severity"], r["start_ts"]) for r in reasons] == [("warn", t(900))]


def test_pause_rows_name_their_source(pause_trace, engine):
    import artscope
    from artscope.metrics.runner import MetricRunner  # noqa: F401

    rs = artscope.open(str(pause_trace), app=MT.APP, engine=engine[0], tp_bin=engine[1])
    try:
        rows = rs.analysis.runner.run("gc_pause")
    finally:
        rs.close()
    got = [(r["ts"], r["dur"], r["source"], r["tid"], r["gc_id"] is None, bool(r["unfinished"]))
           for r in rows.iter_rows(named=True)]
    assert got == [
        (t(110), ms(5), "thread_list_flip", HTD, False, False),
        (t(136), ms(1), "paused_phase", HTD, False, False),
        (t(220), ms(9), "suspend_all", HTD, False, False),   # first piece: HTD's suspend-all
        (t(240), ms(2), "thread_list_flip", HTD, False, False),
        (t(401), ms(5), "suspend_all", HTD, True, False),    # heap trim: outside any GC
        (t(950), ms(50), "thread_list_flip", HTD, False, True),
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
def test_unfinished_gc_counted_as_perfettos_stdlib(tmp_path, tp_bin):
    # A GC [100,150) directly followed by a CompactionPhase that never ends, and two
    # Background GCs back to back ([20,30) then [30,50)); a 'Heap size (KB)' counter,
    # which Perfetto's android.garbage_collection needs to list a GC at all.
    # The stdlib counts the unfinished GC as 50 ms + the phase's recorded dur (-1);
    # artscope does the same. It also adds a directly following "Background concurrent
    # copying GC" to the GC before it ([20,30) -> 30 ms); artscope does not (that GC
    # is counted on its own).
    import subprocess

    from schedules import Atrace

    from metric_traces import PID, run

    sch = MT.tiny("stdlib_gc", 300, threads=(MAIN, HTD), runs=[run(7, 100, None, HTD)],
                  atrace=slice_(HTD, "Background concurrent copying GC", 20, 30)
                  + slice_(HTD, "Background concurrent copying GC", 30, 50)
                  + slice_(HTD, "Young concurrent mark compact GC", 100, 150)
                  + slice_(HTD, "CompactionPhase", 150, None)
                  + [Atrace(t(10), HTD, "C", PID, "Heap size (KB)", 5000),
                     Atrace(t(200), HTD, "C", PID, "Heap size (KB)", 4000)])
    path = MT.write(sch, tmp_path)
    query = tmp_path / "q.sql"
    query.write_text("INCLUDE PERFETTO MODULE android.garbage_collection;\n"
                     "SELECT gc_ts, gc_dur FROM android_garbage_collection_events ORDER BY gc_ts;")
    out = subprocess.run([tp_bin, "-q", str(query), str(path)], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    stdlib = [tuple(int(x) for x in line.split(",")) for line in out.splitlines()[1:] if line]
    assert stdlib == [(t(20), ms(30)), (t(30), ms(20)), (t(100), ms(50) - 1)]
    for engine in ("embedded", "trace_processor"):
        (r,) = results(path, engine, tp_bin=tp_bin if engine == "trace_processor" else None)
        got = [(e["ts"], e["dur"], e["unfinished"]) for e in r["gc"]["events"]]
        assert got == [(t(20), ms(10), False), (t(30), ms(20), False),
                       (t(100), ms(50) - 1, True)]


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
            ("GC pause", 110, 5), ("GC pause", 136, 1), ("GC pause", 220, 9),
            ("GC pause", 240, 2), ("other suspend-all", 401, 5),
            ("main thread waits", 230, 20), ("other mutator waits", 120, 15)])
        mmu = charts.mmu_rows(rs, 0)
        assert mmu.filter(pl.col("window_ns") == ms(10))["mmu"].to_list() == [
            pytest.approx(0.1), 0.0]  # app curve, then the main thread's
        for chart in (charts.gc_pauses(rs, 0), charts.mmu(rs, 0)):
            chart.to_dict()  # validates against the Vega-Lite schema


@pytest.mark.parametrize("engine_name", ["embedded", pytest.param("trace_processor",
                                                                    marks=pytest.mark.tp)])
def test_real_trace_heap_trim_suspend_all(shared_traces, engine_name, request):
    # perfskills-api32: Play Store's HeapTaskDaemon trims its heap (no GC slice in the
    # trace): "Suspending mutator threads" at 157479697024567 and "Resuming mutator
    # threads" ending at 157479697364614 + 9969 -> one suspend-all of 350,016 ns, outside
    # any GC. No "* GC" slice: no GC pause, pauses known to be none.
    tp = request.getfixturevalue("tp_bin") if engine_name == "trace_processor" else None
    (r,) = _real(shared_traces, engine_name, tp)
    g = r["gc"]
    assert (g["other_pause_count"], g["other_pause_total_ns"]) == (1, 350_016)
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
        ("pause", t(110), ms(5), "thread_list_flip"), ("pause", t(136), ms(1), "paused_phase"),
        ("pause", t(220), ms(9), "suspend_all"), ("pause", t(240), ms(2), "thread_list_flip"),
        ("pause", t(401), ms(5), "suspend_all"), ("pause", t(950), ms(50), "thread_list_flip"),
        ("wait", t(120), ms(15), "0"), ("wait", t(230), ms(20), "1"),
        ("wait", t(905), ms(95), "0"),
    ]


def test_cli_table_shows_the_longest_pause(pause_trace):
    import subprocess

    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(pause_trace),
                        "--app", MT.APP, "--engine", "embedded"],
                       capture_output=True, text=True, timeout=300)
    assert "max pause" in p.stdout and "50.00 ms" in p.stdout  # C1, the longest
