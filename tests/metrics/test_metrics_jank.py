"""Jank (frame timeline and choreographer), percentiles and --marker runs, by hand.

fixtures/frames.pftrace and choreographer_only.pftrace: schedules.py
_frames_schedule(); W = "App Benchmark" [50, 680) ms. The tiny traces below
are described next to their builders.
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, RT, Atrace, frame_pair, run, slice_, t

MS = 1_000_000
VSYNC = MT.S.VSYNC_NS
NULL_JANK = {"source": "none", "frames": None, "janky_frames": None, "app_janky_frames": None,
             "janky_pct": None, "unfinished_frames": None,
             "frame_dur_ms": {"p50": None, "p90": None, "p95": None, "p99": None},
             "refresh_hz": None, "refresh_source": None, "frame_deadline_ns": None,
             "deadline_source": None, "draws_on": None}


# ---------------------------------------------------------------------------
# committed fixtures
# ---------------------------------------------------------------------------


def test_frame_timeline_fixture(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "frames.pftrace")
    j = r["jank"]
    # 17 surface frames, #16 has no FrameEnd -> 16 frames + 1 unfinished
    # missed types: #2 App Deadline Missed, #5 ADM + Buffer Stuffing, #7 SF CPU Deadline
    # Missed, #9 Prediction Error, #11 Display HAL, #13 Dropped Frame = 6
    # (#4 Buffer Stuffing alone is not a missed frame); app jank: #2, #5
    assert (j["source"], j["frames"], j["unfinished_frames"]) == ("frame_timeline", 16, 1)
    assert (j["janky_frames"], j["app_janky_frames"]) == (6, 2)
    assert j["janky_pct"] == pytest.approx(100 * 6 / 16, rel=1e-12)  # 37.5
    # durations (ms): 10 10 25 10 22 30 10 24 10 21 10 23 11 9 12 10
    # sorted: 9 10 10 10 10 10 10 10 11 12 21 22 23 24 25 30 (n = 16)
    # p50: ceil(8) = 8th -> 10; p90: ceil(14.4) = 15th -> 25; p95: ceil(15.2) = 16th -> 30;
    # p99: ceil(15.84) = 16th -> 30
    assert j["frame_dur_ms"] == {"p50": 10.0, "p90": 25.0, "p95": 30.0, "p99": 30.0}


def test_choreographer_fixture_and_deadline(fixtures_dir):
    path = fixtures_dir / "choreographer_only.pftrace"
    (r,) = MT.analyze(path)
    j = r["jank"]
    # 17 doFrames on the main thread: 15 of 8 ms, one 20 ms (#2), one 19 ms (#5)
    assert (j["source"], j["frames"], j["unfinished_frames"]) == ("choreographer", 17, 0)
    assert j["janky_frames"] == 2  # 20 ms and 19 ms > 16.666667 ms
    # sorted: 8 x15, 19, 20 (n = 17): p50 ceil(8.5) = 9th -> 8; p90 ceil(15.3) = 16th -> 19;
    # p95 ceil(16.15) = 17th -> 20; p99 17th -> 20
    assert j["frame_dur_ms"] == {"p50": 8.0, "p90": 19.0, "p95": 20.0, "p99": 20.0}
    # --frame-deadline 19ms: dur > deadline is janky, 19 ms itself is not
    (r,) = MT.analyze(path, frame_deadline_ns=19 * MS)
    assert r["jank"]["janky_frames"] == 1
    (r,) = MT.analyze(path, frame_deadline_ns=19 * MS - 1)
    assert r["jank"]["janky_frames"] == 2


def test_no_sched_fixture_null_vs_zero(fixtures_dir):
    # frame timeline + atrace only: no sched, no process names (matched via packages list)
    (r,) = MT.analyze(fixtures_dir / "no_sched.pftrace")
    assert r["process"]["pids"] == [1000]
    g = r["gc"]
    # sched was not captured -> CPU numbers are null, not 0
    for k in ("app_cpu_ns", "gc_cpu_ns", "gc_cpu_share", "mutator_cpu_ns", "gc_daemon_cpu_ns"):
        assert g[k] is None, k
    # atrace "dalvik" was captured and no GC happened -> zero, not null
    assert (g["gc_count"], g["gc_wall_ns"]) == (0, 0)
    p = r["pinning"]
    for k in ("off_mask_cpu_ns", "off_mask_share", "migrations", "interference_cpu_ns"):
        assert p[k] is None, k
    # 6 frames in W = [20, 380), frame #3 App Deadline Missed
    j = r["jank"]
    assert (j["source"], j["frames"], j["janky_frames"], j["app_janky_frames"]) == (
        "frame_timeline", 6, 1, 1)
    # 5 x 10 ms + one 25 ms: p50 ceil(3) = 3rd -> 10; p90 ceil(5.4) = 6th -> 25
    assert j["frame_dur_ms"] == {"p50": 10.0, "p90": 25.0, "p95": 25.0, "p99": 25.0}
    # no sched: the CPU numbers' one reason names the cause
    assert ("sched_missing", "warn") in {(x["id"], x["severity"]) for x in r["health"]["reasons"]}


# ---------------------------------------------------------------------------
# --marker with several runs; frames and GCs belong to the run holding their start
# ---------------------------------------------------------------------------
#
# trace [0, 500]; marker "Iter" on main: [100,200), [250,350), [400, never closed -> 500)
# CPU 6: main [150,260)  main [300,320)  main [450, open -> 500)
# CPU 7: HTD [180,270)
# HTD: "Background young concurrent copying GC" [190,260)  (starts in run 0)
# surface frames (actual start, dur): F1 120/10, F2 195/20 (ends after run 0),
#   F3 240/15 (between runs), F4 340/unfinished, F5 410/20 App Deadline Missed


def marker_schedule():
    atrace = (slice_(MAIN, "Iter", 100, 200) + slice_(MAIN, "Iter", 250, 350)
              + slice_(MAIN, "Iter", 400, None)
              + slice_(HTD, "Background young concurrent copying GC", 190, 260))
    frames = []
    for i, (start, dur, jank) in enumerate([(120, 10, 1), (195, 20, 1), (240, 15, 1),
                                            (340, None, 1), (410, 20, 64)]):
        frames += frame_pair(500 + i, 900 + i, t(start - 1), t(start),
                             None if dur is None else dur * MS, jank_type=jank,
                             present_type=1 if jank == 1 else 2)
    return MT.tiny("marker_runs", 500, threads=(MAIN, HTD),
                   runs=[run(6, 150, 260, MAIN), run(6, 300, 320, MAIN), run(6, 450, None, MAIN),
                         run(7, 180, 270, HTD)],
                   atrace=atrace, frames=frames)


@pytest.fixture(scope="module")
def marker_runs(tmp_path_factory):
    path = MT.write(marker_schedule(), tmp_path_factory.mktemp("marker"))
    return MT.analyze(path, marker="Iter")


def test_marker_windows(marker_runs):
    assert [(r["run"], r["window"]) for r in marker_runs] == [
        (0, {"start_ts": t(100), "end_ts": t(200), "source": "marker"}),
        (1, {"start_ts": t(250), "end_ts": t(350), "source": "marker"}),
        # never closed: ends at trace end
        (2, {"start_ts": t(400), "end_ts": t(500), "source": "marker"}),
    ]


def test_marker_cpu_and_gc_per_run(marker_runs):
    got = [(r["gc"]["app_cpu_ns"], r["gc"]["gc_cpu_ns"], r["gc"]["gc_count"], r["gc"]["gc_wall_ns"],
            r["gc"]["by_kind"]["young"]["count"]) for r in marker_runs]
    assert got == [
        # main [150,200) 50 + HTD [180,200) 20; GC [190,260) ∩ [100,200) = 10, HTD running
        (70 * MS, 10 * MS, 1, 10 * MS, 1),
        # main [250,260) 10 + [300,320) 20 + HTD [250,270) 20; GC ∩ run = [250,260) 10,
        # but the GC started in run 0: not counted here
        (50 * MS, 10 * MS, 0, 10 * MS, 0),
        # main [450, open -> 500) 50
        (50 * MS, 0, 0, 0, 0),
    ]


def test_marker_frames_per_run(marker_runs):
    j0, j1, j2 = (r["jank"] for r in marker_runs)
    # run 0: F1 (10 ms) and F2 (20 ms: starts at 195 < 200, so it is run 0's frame)
    assert (j0["frames"], j0["janky_frames"], j0["unfinished_frames"]) == (2, 0, 0)
    assert j0["janky_pct"] == 0.0
    # n = 2: p50 ceil(1) = 1st -> 10; p90/p95/p99 ceil(1.8..1.98) = 2nd -> 20
    assert j0["frame_dur_ms"] == {"p50": 10.0, "p90": 20.0, "p95": 20.0, "p99": 20.0}
    # run 1: F3 started before the run (240 < 250); F4 never finished
    assert (j1["source"], j1["frames"], j1["janky_frames"], j1["unfinished_frames"]) == (
        "frame_timeline", 0, 0, 1)
    assert j1["frame_dur_ms"] == {"p50": None, "p90": None, "p95": None, "p99": None}
    # run 2: F5, App Deadline Missed
    assert (j2["frames"], j2["janky_frames"], j2["app_janky_frames"]) == (1, 1, 1)
    assert j2["janky_pct"] == 100.0
    assert j2["frame_dur_ms"] == {"p50": 20.0, "p90": 20.0, "p95": 20.0, "p99": 20.0}


# ---------------------------------------------------------------------------
# which jank types are missed frames
# ---------------------------------------------------------------------------

# (jank bitmask, janky?, app jank?)
JANK_CASES = [
    (1, False, False),      # None
    (2, True, False),       # SurfaceFlinger Scheduling
    (4, True, False),       # Prediction Error
    (8, True, False),       # Display HAL
    (16, True, False),      # SurfaceFlinger CPU Deadline Missed
    (32, True, False),      # SurfaceFlinger GPU Deadline Missed
    (64, True, True),       # App Deadline Missed
    (4096, True, True),     # App Resynced Jitter
    (128, False, False),    # Buffer Stuffing
    (256, False, False),    # Unknown Jank
    (512, False, False),    # SurfaceFlinger Stuffing
    (1024, True, False),    # Dropped Frame
    (64 | 128, True, True),  # App Deadline Missed, Buffer Stuffing
]


def test_jank_types(tmp_path):
    frames = []
    for i, (bits, _, _) in enumerate(JANK_CASES):
        e = t(50) + 2 * i * VSYNC
        present = 1 if bits in (1, 128) else (4 if bits == 1024 else 2)
        # frame i lasts i + 1 ms: sorted durations 1..13 ms
        frames += frame_pair(100 + i, 600 + i, e, e + MS, (i + 1) * MS, jank_type=bits,
                             present_type=present)
    (r,) = MT.build_and_analyze(MT.tiny("jank_types", 600, frames=frames), tmp_path)
    j = r["jank"]
    n = len(JANK_CASES)  # 13
    janky = sum(1 for _, jk, _ in JANK_CASES if jk)  # 2 4 8 16 32 64 4096 1024 64|128 = 9
    app = sum(1 for _, _, a in JANK_CASES if a)       # 64, 4096, 64|128 = 3
    assert (janky, app) == (9, 3)
    assert (j["frames"], j["janky_frames"], j["app_janky_frames"]) == (n, janky, app)
    assert j["janky_pct"] == pytest.approx(100 * 9 / 13, rel=1e-12)
    # n = 13: p50 ceil(6.5) = 7th -> 7 ms; p90 ceil(11.7) = 12th -> 12; p95 ceil(12.35) = 13th
    # -> 13; p99 ceil(12.87) = 13th -> 13
    assert j["frame_dur_ms"] == {"p50": 7.0, "p90": 12.0, "p95": 13.0, "p99": 13.0}


# ---------------------------------------------------------------------------
# choreographer fallback: which slices are frames, and the deadline
# ---------------------------------------------------------------------------
#
# main (depth 0): "Choreographer#doFrame" [100 ms, +16 666 667 ns)   == deadline: not janky
#                 "Choreographer#doFrame 17" [150 ms, +16 666 668 ns)  janky
#                 "Choreographer#doFrame 18" [200,210)  10 ms
#                 "Choreographer#doFrameX" [250,280)   not a doFrame name
#                 "outer" [340,400) > depth 1 "Choreographer#doFrame 20" [350,380)  not depth 0
#                 "Choreographer#doFrame 21" [420,425)  5 ms
# RenderThread:   "Choreographer#doFrame 19" [300,330)  not the main thread


def choreographer_schedule():
    def exact(tid, name, ts, dur):
        return [Atrace(ts, tid, "B", MT.PID, name), Atrace(ts + dur, tid, "E", MT.PID)]

    atrace = (exact(MAIN, "Choreographer#doFrame", t(100), 16_666_667)
              + exact(MAIN, "Choreographer#doFrame 17", t(150), 16_666_668)
              + slice_(MAIN, "Choreographer#doFrame 18", 200, 210)
              + slice_(MAIN, "Choreographer#doFrameX", 250, 280)
              + slice_(RT, "Choreographer#doFrame 19", 300, 330)
              + slice_(MAIN, "outer", 340, 400) + slice_(MAIN, "Choreographer#doFrame 20", 350, 380)
              + slice_(MAIN, "Choreographer#doFrame 21", 420, 425))
    return MT.tiny("choreo_tiny", 500, threads=(MAIN, RT), runs=[run(6, 90, 430, MAIN)],
                   atrace=atrace)


@pytest.fixture(scope="module")
def choreo_trace(tmp_path_factory):
    return MT.write(choreographer_schedule(), tmp_path_factory.mktemp("choreo"))


def test_choreographer_frames(choreo_trace):
    (r,) = MT.analyze(choreo_trace)
    j = r["jank"]
    # frames: 16.666667, 16.666668, 10, 5 ms; only 16.666668 > 16.666667 ms
    assert (j["source"], j["frames"], j["janky_frames"], j["unfinished_frames"]) == (
        "choreographer", 4, 1, 0)
    assert j["janky_pct"] == 25.0
    # sorted 5, 10, 16.666667, 16.666668: p50 ceil(2) = 2nd -> 10; p90..p99 4th -> 16.666668
    assert j["frame_dur_ms"] == {"p50": 10.0, "p90": pytest.approx(16.666668, rel=1e-12),
                                 "p95": pytest.approx(16.666668, rel=1e-12),
                                 "p99": pytest.approx(16.666668, rel=1e-12)}


@pytest.mark.parametrize("deadline,janky", [
    (10 * MS, 2),        # 16.67 ms x2 > 10 ms; 10 ms itself is not > 10 ms
    (10 * MS - 1, 3),    # now 10 ms counts too
    (5 * MS - 1, 4),
    (20 * MS, 0),
])
def test_choreographer_deadline(choreo_trace, deadline, janky):
    (r,) = MT.analyze(choreo_trace, frame_deadline_ns=deadline)
    assert r["jank"]["janky_frames"] == janky
    assert r["jank"]["janky_pct"] == pytest.approx(100 * janky / 4, rel=1e-12)


def test_no_frames_means_source_none(tmp_path):
    # sched only, no frame timeline rows and no doFrame slices
    (r,) = MT.build_and_analyze(MT.tiny("no_frames", 100, runs=[run(6, 10, 20, MAIN)]), tmp_path)
    assert r["jank"] == NULL_JANK


# ---------------------------------------------------------------------------
# the assumptions: refresh rate, the Choreographer deadline, RenderThread
# draws, engines drawing on threads of their own
# ---------------------------------------------------------------------------

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def _open(path, engine, **kw):
    if engine == "embedded":
        return MT.analyze(path, **kw)
    import artscope

    with artscope.open(str(path), app=MT.APP, engine=engine, **kw) as rs:
        return rs.results


def _timeline(period: int, n: int, pid: int = MT.PID, janky: tuple[int, ...] = ()) -> list:
    """``n`` frames of ``pid``, one per vsync of ``period`` ns from 100 ms:
    each a surface frame expected [e, e + period) and drawn in 3 ms (frames
    in ``janky``: App Deadline Missed, 2 periods), and SurfaceFlinger's
    display frame expected half a period later, one per vsync."""
    from schedules import SF_PID, Frame

    out = []
    for i in range(n):
        e = t(100) + i * period
        bad = i in janky
        dur = 2 * period if bad else 3 * MS
        out.append(Frame("display", SF_PID, 9000 + i, 9000 + i, e + period // 2,
                         e + period // 2 + period, e + period // 2 + MS,
                         e + period // 2 + 2 * MS))
        out.append(Frame("surface", pid, 100 + i, 9000 + i, e, e + period, e + MS, e + MS + dur,
                         jank_type=64 if bad else 1, present_type=2 if bad else 1,
                         on_time_finish=not bad, layer_name=MT.S.LAYER))
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("hz,period", [(90, 11_111_111), (120, 8_333_333)])
def test_frame_timeline_refresh_rate_is_read_from_the_trace(tmp_path, engine, hz, period):
    # 20 frames, one per vsync; #4 and #9 App Deadline Missed. The display
    # frames are a period apart and the app's expected frames a period long.
    sch = MT.tiny(f"ft_{hz}", 500, runs=[run(6, 90, 400, MAIN)],
                  frames=_timeline(period, 20, janky=(4, 9)))
    (r,) = _open(MT.write(sch, tmp_path), engine)
    j = r["jank"]
    assert (j["source"], j["frames"], j["janky_frames"]) == ("frame_timeline", 20, 2)
    assert (j["refresh_hz"], j["refresh_source"]) == (float(hz), "frame_timeline")
    # frame timeline frames are judged by SurfaceFlinger: no deadline of ours
    assert (j["frame_deadline_ns"], j["deadline_source"]) == (None, None)


def _choreographer_at_120(name: str, flutter: bool = False):
    """The app without frame timeline rows of its own, systemui drawing 20
    frames at 120 Hz (8 333 333 ns expected). Main thread doFrames at 100,
    130, 160 ms of 6 ms; the RenderThread draws the first two: DrawFrames
    [105, 112) (the frame lasts 12 ms) and [135, 138) (6 ms: the doFrame
    ends later); the third has no draw (6 ms). With ``flutter`` the app also
    has the engine's 1.ui and 1.raster threads."""
    from schedules import SYSUI_PID, SYSUI_PROCESS, Thread

    atrace = []
    for start, draw in ((100, (105, 112)), (130, (135, 138)), (160, None)):
        atrace += slice_(MAIN, f"Choreographer#doFrame {start}", start, start + 6)
        if draw:
            atrace += slice_(RT, f"DrawFrames {start}", *draw)
    extra = [Thread(1050, MT.PID, "1.ui"), Thread(1051, MT.PID, "1.raster")] if flutter else []
    return MT.tiny(name, 500, threads=(MAIN, RT), extra_threads=extra,
                   extra_processes=[SYSUI_PROCESS],
                   runs=[run(6, 90, 170, MAIN), run(7, 100, 140, RT)],
                   atrace=sorted(atrace, key=lambda a: a.ts),
                   frames=_timeline(8_333_333, 20, pid=SYSUI_PID))


@pytest.mark.parametrize("engine", ENGINES)
def test_choreographer_frames_include_the_render_thread_draw_and_the_trace_deadline(
        tmp_path, engine):
    (r,) = _open(MT.write(_choreographer_at_120("choreo_120"), tmp_path), engine)
    j = r["jank"]
    # frames 12, 6, 6 ms; the deadline is the apps' expected frame, 8.333 ms
    assert (j["source"], j["frames"], j["janky_frames"]) == ("choreographer", 3, 1)
    assert j["frame_dur_ms"]["p99"] == 12.0
    assert (j["refresh_hz"], j["frame_deadline_ns"], j["deadline_source"]) == (
        120.0, 8_333_333, "frame_timeline")
    (note,) = [x for x in r["health"]["reasons"] if x["id"] == "jank_deadline"]
    assert note["severity"] == "info"
    assert note["message"] == (
        "janky frames: Choreographer#doFrame with its RenderThread DrawFrame longer than "
        "8.33 ms (120 Hz display) — the apps' frame deadline in the trace's frame timeline")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_flutter_app_with_choreographer_frames_only_has_unknown_jank(tmp_path, engine):
    (r,) = _open(MT.write(_choreographer_at_120("flutter", flutter=True), tmp_path), engine)
    j = r["jank"]
    assert (j["source"], j["draws_on"], j["frames"], j["janky_pct"]) == (
        "choreographer", "flutter", None, None)
    (w,) = [x for x in r["health"]["reasons"] if x["id"] == "jank_unknown"]
    assert w["severity"] == "warn"
    assert w["message"].startswith("the app draws its frames on threads of its own (Flutter's "
                                   "ui and raster threads): Choreographer#doFrame")
    assert not [x for x in r["health"]["reasons"]
                if x["id"] in ("jank_not_applicable", "jank_missing", "jank_deadline")]
