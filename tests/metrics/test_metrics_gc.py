"""GC metrics and the window: exact values derived by hand from a tiny schedule.

Schedule (ms after T0; trace bounds [0, 400] from cpu_frequency events at 0
and 400; app com.example.bench pid 1000):

    CPU 6: main [50,120)  main [150,200)  pool [200,210)  main [280,350)  pool [350,360)
    CPU 7: HTD [90,130) (switched out R+, runnable until 160)  W1 [130,160)
           HTD [160,240)  W1 [250, open -> trace end 400)

Slices (atrace B/E; depth 0 unless said):

    HTD  G1  "Background young concurrent copying GC"  [80,110)   starts before W
    HTD  G2  "Explicit concurrent mark compact GC"     [155,190)
              depth 1: "MarkingPhase" [160,170), "Inner young concurrent copying GC" [175,180)
              (inside G2, itself named like a GC: part of G2, not a GC of its own)
         then "CompactionPhase" [190,200)  directly follows -> G2 = [155, 155+35+10) = [155,200)
    HTD  G3  "NativeAlloc concurrent copying GC"       [220,230)
         then "HeapTrim" [230,232), "CompactionPhase" [232,235): NOT directly after G3
    HTD  G5  "Background concurrent copying GC"        [236,238)  (type full)
    main CT  "CollectorTransition mark compact GC"     [150,160)
    main     "WaitForGcToComplete" [120,150), "GC" [210,215)  (not GC slices: no "* GC" match)
    W1   G4  "Alloc young concurrent copying GC"       [290, never closed -> trace end 400)

pool = "Heap thread pool worker #0" (an ART GC worker: all its CPU is GC CPU).
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, POOL, W1, ms, run, slice_, t

R_PLUS = 0x100


def gc_schedule():
    runs = [
        run(6, 50, 120, MAIN), run(6, 150, 200, MAIN), run(6, 200, 210, POOL),
        run(6, 280, 350, MAIN), run(6, 350, 360, POOL),
        run(7, 90, 130, HTD, end_state=R_PLUS), run(7, 130, 160, W1), run(7, 160, 240, HTD),
        run(7, 250, None, W1),
    ]
    atrace = (
        slice_(HTD, "Background young concurrent copying GC", 80, 110)
        + slice_(HTD, "Explicit concurrent mark compact GC", 155, 190)
        + slice_(HTD, "MarkingPhase", 160, 170)
        + slice_(HTD, "Inner young concurrent copying GC", 175, 180)
        + slice_(HTD, "CompactionPhase", 190, 200)
        + slice_(HTD, "NativeAlloc concurrent copying GC", 220, 230)
        + slice_(HTD, "HeapTrim", 230, 232)
        + slice_(HTD, "CompactionPhase", 232, 235)
        + slice_(HTD, "Background concurrent copying GC", 236, 238)
        + slice_(MAIN, "WaitForGcToComplete", 120, 150)
        + slice_(MAIN, "CollectorTransition mark compact GC", 150, 160)
        + slice_(MAIN, "GC", 210, 215)
        + slice_(W1, "Alloc young concurrent copying GC", 290, None)
    )
    return MT.tiny("gc_tiny", 400, threads=(MAIN, W1, HTD, POOL), runs=runs, atrace=atrace)


@pytest.fixture(scope="module")
def gc_trace(tmp_path_factory):
    return MT.write(gc_schedule(), tmp_path_factory.mktemp("gc"))


@pytest.fixture(scope="module")
def windowed(gc_trace):
    return MT.analyze(gc_trace, window="+100ms:+300ms")


@pytest.fixture(scope="module")
def whole(gc_trace):
    return MT.analyze(gc_trace)


# ---------------------------------------------------------------------------
# window selection
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [
    "+100ms:+300ms",                      # relative to trace start T0, unit ms
    "+0.1s:+300000us",                    # relative, s and us
    "1000.1s:1000.3s",                    # absolute with unit: T0 = 1000 s
    f"{MT.T0 + ms(100)}:{MT.T0 + ms(300)}",  # absolute ns
    "+100ms:1000.3s",                     # mixed relative start / absolute end
])
def test_window_syntaxes_resolve_to_the_same_window(gc_trace, spec):
    (r,) = MT.analyze(gc_trace, window=spec)
    assert r["window"] == {"start_ts": MT.T0 + 100_000_000, "end_ts": MT.T0 + 300_000_000,
                           "source": "window"}
    assert r["gc"]["app_cpu_ns"] == 290_000_000  # see test_cpu_time_clipped_to_window


def test_window_is_clipped_to_trace_bounds(gc_trace):
    # "0:5000s" covers [0, 5000 s); the trace spans [T0, T0 + 400 ms] -> W = trace bounds.
    (r,) = MT.analyze(gc_trace, window="0:5000s")
    assert r["window"] == {"start_ts": MT.T0, "end_ts": MT.T0 + 400_000_000, "source": "window"}
    # -> same numbers as the whole trace
    assert r["gc"]["app_cpu_ns"] == 510_000_000


def test_no_marker_no_lifetime_means_whole_trace(whole):
    # No "App Benchmark" slice; the process-tree process has no start/end -> the trace.
    (r,) = whole
    assert r["window"] == {"start_ts": MT.T0, "end_ts": MT.T0 + 400_000_000, "source": "trace"}


# ---------------------------------------------------------------------------
# CPU time and GC in W = [100, 300)
# ---------------------------------------------------------------------------


def test_cpu_time_clipped_to_window(windowed):
    g = windowed[0]["gc"]
    # main [100,120) 20 + [150,200) 50 + [280,300) 20 = 90
    # pool [200,210) 10 (its [350,360) run is after W)
    # HTD  [100,130) 30 + [160,240) 80 = 110
    # W1   [130,160) 30 + [250, open->400) clipped to [250,300) 50 = 80
    # total 90 + 10 + 110 + 80 = 290 ms
    assert g["app_cpu_ns"] == 290_000_000
    assert g["gc_daemon_cpu_ns"] == 110_000_000  # HTD only


def test_gc_cpu(windowed):
    g = windowed[0]["gc"]
    # CPU of each thread inside its own GC slices, clipped to W:
    #   G1 [80,110) ∩ W = [100,110); HTD runs [90,130)           -> 10
    #   CT [150,160); main runs [150,200)                         -> 10
    #   G2 [155,200) incl. CompactionPhase; HTD runs [160,240)    -> 40
    #   G3 [220,230) (the later CompactionPhase does not follow it directly) -> 10
    #   G5 [236,238)                                              ->  2
    #   G4 [290, trace end 400) ∩ W = [290,300); W1 runs           -> 10
    #   nested "Inner young ... GC" lies inside G2: not a GC      ->  0
    # = 82, plus all pool-worker CPU in W (10)                    -> 92 ms
    assert g["gc_cpu_ns"] == 92_000_000
    assert g["mutator_cpu_ns"] == 290_000_000 - 92_000_000  # 198 ms
    assert g["gc_cpu_share"] == pytest.approx(92 / 290, rel=1e-12)


def test_gc_count_and_wall(windowed):
    g = windowed[0]["gc"]
    # starting in W: CT@150, G2@155, G3@220, G5@236, G4@290 = 5 (G1 starts at 80: before W)
    assert g["gc_count"] == 5
    # union of GC intervals ∩ W: G1 [100,110) 10; CT ∪ G2 = [150,200) 50; G3 10; G5 2;
    # G4 [290,300) 10 -> 82 ms
    assert g["gc_wall_ns"] == 82_000_000


def test_slice_starting_long_before_the_window_still_counts(gc_trace):
    # W = [360, 400). On CPU 7 the last slice starting before W is W1's open
    # run [250, -> trace end 400), 110 ms before W: found by the seek that
    # looks further back than the first 100 ms. On CPU 6 the last one, pool
    # [350, 360), ends where W starts: no time in W.
    (r,) = MT.analyze(gc_trace, window="+360ms:+400ms")
    g = r["gc"]
    assert g["app_cpu_ns"] == ms(40)      # W1 [360, 400)
    # W1 is inside G4 [290, open -> 400) all that time; G4 starts before W
    assert g["gc_cpu_ns"] == ms(40)
    assert g["gc_count"] == 0
    assert g["gc_wall_ns"] == ms(40)


def test_gc_cause_and_kind(windowed):
    g = windowed[0]["gc"]
    # The cause is the name's first word, the kind its collector (young / sticky /
    # partial, else full). Starting in W: CT, G2, G3, G5, G4 (G1 starts before W; the
    # nested "Inner young ..." lies inside G2: not a GC of its own).
    assert g["by_cause"] == {
        "alloc": {"count": 1, "cpu_ns": 10_000_000},                 # G4, clipped to W
        "native_alloc": {"count": 1, "cpu_ns": 10_000_000},          # G3
        "background": {"count": 1, "cpu_ns": 2_000_000},             # G5
        "explicit": {"count": 1, "cpu_ns": 40_000_000},              # G2 + CompactionPhase
        "collector_transition": {"count": 1, "cpu_ns": 10_000_000},  # CT
        "other": {"count": 0, "cpu_ns": 0},
    }
    assert g["by_kind"] == {
        "young": {"count": 1, "cpu_ns": 10_000_000},                 # G4 "Alloc young ..."
        "partial": {"count": 0, "cpu_ns": 0},
        "full": {"count": 4, "cpu_ns": 62_000_000},                  # CT 10 + G2 40 + G3 10 + G5 2
    }


def test_gc_events_table(windowed):
    ev = windowed[0]["gc"]["events"]
    got = [(e["ts"], e["dur"], e["cause"], e["kind"], e["unfinished"], e["tid"], e["cpu_ns"],
            e["runnable_ns"]) for e in ev]
    assert got == [
        (t(150), ms(10), "collector_transition", "full", False, MAIN, ms(10), 0),
        # 35 ms + CompactionPhase 10 ms; HTD runnable (R+) [130,160) ∩ [155,200) = 5 ms
        (t(155), ms(45), "explicit", "full", False, HTD, ms(40), ms(5)),
        (t(220), ms(10), "native_alloc", "full", False, HTD, ms(10), 0),
        (t(236), ms(2), "background", "full", False, HTD, ms(2), 0),
        # never closed: ends at trace end -> dur 400 - 290 = 110 ms; CPU clipped to W
        (t(290), ms(110), "alloc", "young", True, W1, ms(10), 0),
    ]
    assert [e["thread"] for e in ev] == ["m.example.bench", "HeapTaskDaemon", "HeapTaskDaemon",
                                         "HeapTaskDaemon", "Worker-1"]
    assert windowed[0]["gc"]["unfinished_count"] == 1  # G4


def test_whole_trace(whole):
    g = whole[0]["gc"]
    # main 70 + 50 + 70 = 190; pool 10 + 10 = 20; HTD 40 + 80 = 120;
    # W1 30 + [250, 400) 150 = 180  -> 510 ms
    assert g["app_cpu_ns"] == 510_000_000
    # own GC: G1 [80,110) with HTD running [90,110) 20; CT 10; G2 40; G3 10; G5 2;
    # G4 [290,400) 110 -> 192; + pool 20 -> 212 ms
    assert g["gc_cpu_ns"] == 212_000_000
    assert g["gc_count"] == 6
    # G1 30 + [150,200) 50 + G3 10 + G5 2 + G4 110 = 202 ms
    assert g["gc_wall_ns"] == 202_000_000
    # young: G1 "Background young ..." (HTD runs [90,110) of it) 20 + G4 [290,400) 110
    assert g["by_kind"]["young"] == {"count": 2, "cpu_ns": 130_000_000}
    assert g["by_cause"]["background"] == {"count": 2, "cpu_ns": 22_000_000}  # G1 20 + G5 2


def test_gc_thread_override(gc_trace):
    # --gc-thread Worker-1: W1 becomes a GC worker thread (all its CPU is GC), HTD and
    # the pool worker become mutators. Own-GC CPU of non-workers in W:
    # G1 10 + CT 10 + G2 40 + G3 10 + G5 2 = 72 (G4 is on W1, now counted whole)
    # + all W1 CPU in W 80 -> 152 ms.
    (r,) = MT.analyze(gc_trace, window="+100ms:+300ms", gc_threads=("Worker-1",))
    assert r["gc"]["gc_cpu_ns"] == 152_000_000
    assert r["gc"]["app_cpu_ns"] == 290_000_000


def test_gc_pattern_override(gc_trace):
    # --gc-pattern "*young*": only names containing "young" are GCs: G1 (before W), G4,
    # and the nested "Inner young ..." [175,180), now the outermost such slice on its
    # thread (G2 around it no longer matches). Starting in W: the inner one and G4.
    # own-GC CPU in W: G1 [100,110) 10 + inner [175,180) (HTD runs [160,240)) 5
    # + G4 [290,300) 10 = 25; + pool 10 = 35 ms
    (r,) = MT.analyze(gc_trace, window="+100ms:+300ms", gc_patterns=("*young*",))
    assert r["gc"]["gc_count"] == 2
    assert [(e["ts"], e["depth"]) for e in r["gc"]["events"]] == [(t(175), 1), (t(290), 0)]
    assert r["gc"]["gc_cpu_ns"] == 35_000_000
    assert r["gc"]["gc_wall_ns"] == 25_000_000


def test_open_compaction_phase_runs_the_gc_to_the_trace_end(tmp_path):
    # HTD runs [100, open -> 300) on CPU 7 (which records until the trace end);
    # "Young concurrent mark compact GC" [100,150) is directly followed by a
    # CompactionPhase [150, never closed): the GC was still compacting when the trace
    # ended, so it runs to the trace end (200 ms) and is flagged unfinished. (Perfetto's
    # android.garbage_collection adds the phase's recorded dur, -1, instead.)
    sch = MT.tiny("open_compaction", 300, threads=(MAIN, HTD),
                  runs=[run(7, 100, None, HTD)],
                  atrace=slice_(HTD, "Young concurrent mark compact GC", 100, 150)
                  + slice_(HTD, "CompactionPhase", 150, None))
    (r,) = MT.build_and_analyze(sch, tmp_path)
    g = r["gc"]
    assert [(e["ts"], e["dur"], e["unfinished"]) for e in g["events"]] == [
        (t(100), ms(200), True)]
    assert g["gc_wall_ns"] == ms(200)
    assert g["gc_cpu_ns"] == ms(200)   # HTD runs throughout the GC
    assert g["app_cpu_ns"] == ms(200)
    assert MT.reason_ids(r).get("gc_unfinished") == "warn"
