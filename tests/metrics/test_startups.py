"""App launches (startups.sql): hand-built cold and warm launches with truths
derived by hand, and parity with Perfetto's own android_startups
(stdlib android.startup.startups) run by the real trace_processor_shell on
the same traces and on a real start-up trace.

Schedule "launches_sdk33" (ms after T0; trace [0, 1000]; Android 13 metadata;
system_server pid 1800 (threads 1800, 1810); app com.example.bench pid 1000,
uid 10123 = its package_list entry):

    launch 1: system_server async "launchingActivity#1" [100, 400)
              instant "launchingActivity#1:completed:com.example.bench" at 401
              (no type in the name: typed from the app's main thread)
      main: bindApplication [150,200) activityStart [220,260)
            activityResume [270,330) Choreographer#doFrame 1 [340,380)
      => cold (all three slices); dur 300 ms; process start 150 - 100 = 50 ms,
         bindApplication 50, activityStart 40, activityResume 60 ms; first
         frame = the first doFrame starting after 330: [340,380) = 40 ms
    launch 2: "launchingActivity#2" [600, 800), instant
              "launchingActivity#2:completed-warm:com.example.bench" at 801
      main: activityStart [650,690) activityResume [700,760)
            Choreographer#doFrame 2 [765,790)
      => warm (from the name); dur 200 ms; no bindApplication: process start
         and bindApplication NULL; activityStart 40, activityResume 60, first frame 25
    launch 3: "launchingActivity#3" [850, 950) completed-hot:com.android.systemui
      => another package: not one of the app's launches

Schedule "launches_sdk31" (Android 12 metadata: the MetricsLogger rules):
    system_server main: "MetricsLogger:launchObserverNotifyIntentStarted" [100,100.5)
    system_server async "launching: com.example.bench" [110, 400)
    system_server main: "MetricsLogger:launchObserverNotifyActivityLaunchFinished" [401,401.5)
    main: the launch-1 slices above
    => one launch from the intent (100) to the end of "launching:" (400):
       dur 300 ms, cold (typed from the slices), process start 50 ms
"""

from __future__ import annotations

import csv
import io
import subprocess

import pytest

import metric_traces as MT
from metric_traces import MAIN, Atrace, Process, Thread, ms, slice_, t
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SS_PID, SS_BINDER = 1800, 1810
SYSUI = "com.android.systemui"
ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]
API32 = "perfskills-api32_startup_warm.perfetto-trace"
API32_APP = "androidx.benchmark.integration.macrobenchmark.target"


def _ss(name: str, start_ms: float, end_ms: float, tid: int = SS_BINDER) -> list[Atrace]:
    return [Atrace(t(start_ms), tid, "B", SS_PID, name), Atrace(t(end_ms), tid, "E", SS_PID)]


def _async(name: str, cookie: int, start_ms: float, end_ms: float) -> list[Atrace]:
    return [Atrace(t(start_ms), SS_PID, "S", SS_PID, name, cookie),
            Atrace(t(end_ms), SS_PID, "F", SS_PID, name, cookie)]


def _app_slices(bind: bool, start: tuple, resume: tuple, frame: tuple, token: int) -> list:
    ev = []
    if bind:
        ev += slice_(MAIN, "bindApplication", 150, 200)
    ev += slice_(MAIN, "activityStart", *start)
    ev += slice_(MAIN, "activityResume", *resume)
    ev += slice_(MAIN, f"Choreographer#doFrame {token}", *frame)
    return ev


def _schedule(name: str, atrace: list):
    return MT.tiny(name, 1000, threads=(MAIN,), atrace=atrace,
                   extra_threads=[Thread(SS_PID, SS_PID, "system_server"),
                                  Thread(SS_BINDER, SS_PID, "binder:1800_1")],
                   extra_processes=[Process(SS_PID, "system_server", uid=1000)])


def sdk33_bytes() -> bytes:
    atrace = (
        _async("launchingActivity#1", 1, 100, 400)
        + _ss("launchingActivity#1:completed:com.example.bench", 401, 401)
        + _app_slices(True, (220, 260), (270, 330), (340, 380), 1)
        + _async("launchingActivity#2", 2, 600, 800)
        + _ss("launchingActivity#2:completed-warm:com.example.bench", 801, 801)
        + _app_slices(False, (650, 690), (700, 760), (765, 790), 2)
        + _async("launchingActivity#3", 3, 850, 950)
        + _ss(f"launchingActivity#3:completed-hot:{SYSUI}", 951, 951))
    import make_fixtures as M

    return M.build(_schedule("launches_sdk33", atrace))


def sdk31_bytes() -> bytes:
    atrace = (
        _ss("MetricsLogger:launchObserverNotifyIntentStarted", 100, 100.5, SS_PID)
        + _async("launching: com.example.bench", 7, 110, 400)
        + _ss("MetricsLogger:launchObserverNotifyActivityLaunchFinished", 401, 401.5, SS_PID)
        + _app_slices(True, (220, 260), (270, 330), (340, 380), 1))
    import make_fixtures as M

    trace = pb.Trace.FromString(M.build(_schedule("launches_sdk31", atrace)))
    for p in trace.packet:
        if p.HasField("system_info"):
            p.system_info.android_sdk_version = 31
    return trace.SerializeToString()


def _launches(engine: str, path, request, **options) -> list[dict]:
    from test_metrics_memory import analyze_on

    (r, *_) = analyze_on(engine, path, request, **options)
    return r["startups"]


COLD = {"process_start_ns": ms(50), "bind_application_ns": ms(50),
        "activity_start_ns": ms(40), "activity_resume_ns": ms(60), "first_frame_ns": ms(40)}


@pytest.mark.parametrize("engine", ENGINES)
def test_cold_and_warm_launches_android_13(engine, tmp_path, request):
    path = tmp_path / "sdk33.pftrace"
    path.write_bytes(sdk33_bytes())
    got = _launches(engine, path, request)
    assert [(x["startup_id"], x["type"], x["ts"], x["dur"], x["package"], x["pid"])
            for x in got] == [(1, "cold", t(100), ms(300), MT.APP, MT.PID),
                              (2, "warm", t(600), ms(200), MT.APP, MT.PID)]
    assert got[0]["breakdown"] == COLD
    assert got[1]["breakdown"] == {
        "process_start_ns": None, "bind_application_ns": None,
        "activity_start_ns": ms(40), "activity_resume_ns": ms(60), "first_frame_ns": ms(25)}


@pytest.mark.parametrize("engine", ENGINES)
def test_cold_launch_android_12_metrics_logger(engine, tmp_path, request):
    path = tmp_path / "sdk31.pftrace"
    path.write_bytes(sdk31_bytes())
    got = _launches(engine, path, request)
    assert [(x["type"], x["ts"], x["dur"], x["package"]) for x in got] == [
        ("cold", t(100), ms(300), MT.APP)]
    assert got[0]["breakdown"] == COLD


@pytest.mark.parametrize("engine", ENGINES)
def test_window_launch_makes_each_launch_a_run(engine, tmp_path, request):
    path = tmp_path / "sdk33.pftrace"
    path.write_bytes(sdk33_bytes())
    from test_metrics_memory import analyze_on

    runs = analyze_on(engine, path, request, window="launch")
    assert [(r["window"]["start_ts"], r["window"]["end_ts"], r["window"]["source"])
            for r in runs] == [(t(100), t(400), "launch"), (t(600), t(800), "launch")]


def test_window_launch_without_a_launch_is_a_one_line_error(tmp_path):
    import sys

    sch = MT.tiny("no_launch", 400, threads=(MAIN,), atrace=slice_(MAIN, "activityResume", 10, 20))
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(MT.write(sch, tmp_path)),
                        "--app", MT.APP, "--window", "launch"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "no launch of the app" in p.stderr
    assert "Traceback" not in p.stderr


def test_cli_prints_the_launches(tmp_path):
    import sys

    path = tmp_path / "sdk33.pftrace"
    path.write_bytes(sdk33_bytes())
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze", str(path),
                        "--app", MT.APP], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [x for x in p.stdout.splitlines() if "launch " in x]
    assert lines == [
        "[sdk33.pftrace] launch 0: cold 300.0 ms to the first frame, at 1000.100 s (pid 1000): "
        "process start 50.0 ms, bindApplication 50.0 ms, activityStart 40.0 ms, "
        "activityResume 60.0 ms, first frame 40.0 ms",
        "[sdk33.pftrace] launch 1: warm 200.0 ms to the first frame, at 1000.600 s (pid 1000): "
        "activityStart 40.0 ms, activityResume 60.0 ms, first frame 25.0 ms"]


# -- parity with Perfetto's android_startups ------------------------------------

PERFETTO_STARTUPS = """INCLUDE PERFETTO MODULE android.startup.startups;
SELECT ts, ts_end, dur, package, startup_type FROM android_startups ORDER BY ts, package;
"""


def perfetto_startups(tp_bin: str, path, tmp_path) -> list[tuple]:
    """android_startups rows, from the real trace_processor_shell."""
    q = tmp_path / "startups_query.sql"
    q.write_text(PERFETTO_STARTUPS)
    p = subprocess.run([tp_bin, "-q", str(q), str(path)], capture_output=True, text=True,
                       timeout=300, check=True)
    rows = list(csv.reader(io.StringIO(p.stdout.strip())))
    header = rows.index(["ts", "ts_end", "dur", "package", "startup_type"])
    return [(int(a), int(b), int(c), d, None if e == "[NULL]" else e)
            for a, b, c, d, e in rows[header + 1:]]


def artscope_startups(engine: str, path, app: str, tp_bin: str) -> list[tuple]:
    """startups.sql's rows (every package's) on one engine."""
    from artscope.engines.embedded import EmbeddedEngine
    from artscope.engines.trace_processor import TraceProcessorEngine
    from artscope.metrics.options import AnalysisOptions
    from artscope.metrics.runner import MetricRunner
    from artscope.metrics.selection import select

    engine_obj = EmbeddedEngine() if engine == "embedded" else TraceProcessorEngine(tp_bin=tp_bin)
    engine_obj.load(str(path))
    try:
        runner = MetricRunner(engine_obj)
        select(runner, AnalysisOptions(app=app))
        df = runner.run("startups").sort("ts", "package")
        return [tuple(r) for r in df.select("ts", "ts_end", "dur", "package",
                                            "startup_type").iter_rows()]
    finally:
        engine_obj.close()


@pytest.mark.tp
@pytest.mark.parametrize("trace", ["sdk33", "sdk31", "api32"])
def test_launches_equal_perfettos_android_startups(trace, tp_bin, tmp_path, request):
    if trace == "api32":
        path, app = request.getfixturevalue("shared_traces") / API32, API32_APP
    else:
        path, app = tmp_path / f"{trace}.pftrace", MT.APP
        path.write_bytes(sdk33_bytes() if trace == "sdk33" else sdk31_bytes())
    want = perfetto_startups(tp_bin, path, tmp_path)
    assert want, "Perfetto finds the launches"
    for engine in ("trace_processor", "embedded"):
        assert artscope_startups(engine, path, app, tp_bin) == want, engine


def test_real_warm_start_up_trace(shared_traces):
    """api32: Perfetto's android_startups gives one warm launch (read with the
    shell: ts 157479786566030, dur 156515747); activityStart and
    activityResume are the app's main-thread slices of that launch."""
    (r,) = MT.analyze(shared_traces / API32, app=API32_APP)
    (x,) = r["startups"]
    assert (x["type"], x["ts"], x["dur"], x["pid"]) == ("warm", 157479786566030, 156515747, 7663)
    assert x["breakdown"]["bind_application_ns"] is None
    assert x["breakdown"]["activity_start_ns"] == 10195231
    assert x["breakdown"]["activity_resume_ns"] == 106506104
