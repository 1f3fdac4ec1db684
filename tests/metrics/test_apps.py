"""Finding the target: `artscope apps` / artscope.apps rank the trace's
processes as benchmark candidates, the app-not-found error shows the best of
them, and --app matches an unnamed process by its main thread's name."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest
from metric_traces import APP, HTD, MAIN, PID, Atrace, Process, Thread, run, t, tiny, write

import artscope
from artscope.engines import load_trace
from artscope.engines import trace_processor as tp
from artscope.errors import EngineUnavailable, SelectionError
from artscope.metrics.options import AnalysisOptions
from artscope.metrics.runner import MetricRunner
from artscope.metrics.selection import select


def _has_tp() -> bool:
    try:
        return tp.find_local_binary() is not None
    except EngineUnavailable:
        return False


ENGINES = ["embedded", pytest.param("trace_processor", marks=[
    pytest.mark.tp, pytest.mark.skipif(not _has_tp(), reason="no trace_processor binary")])]

API32 = "perfskills-api32_startup_warm.perfetto-trace"
API32_TARGET = "androidx.benchmark.integration.macrobenchmark.target"
TRAPPY = "trappy-surfaceflinger.html"
NIA = "nia-sidky.perfetto-trace"

DRAWER, BUSY = 2000, 3000


@pytest.fixture(scope="module")
def candidates_trace(tmp_path_factory):
    """Four processes besides init (pid 1, uid 0) and zygote (pid 700, uid 0),
    over 100 ms:

    * com.example.bench (pid 1000, uid 10123, in the packages list): main
      thread on CPU 0 for [10, 40) ms and HeapTaskDaemon on CPU 1 for
      [10, 20) ms = 40 ms of CPU; one "young concurrent copying GC" slice on
      HeapTaskDaemon; one "App Benchmark" slice on its main thread;
    * com.example.drawer (pid 2000, uid 10200): 1 ms on CPU 2 ([10, 11)) and
      one depth-0 "Choreographer#doFrame 1" slice on its main thread;
    * com.example.busy (pid 3000, uid 10300): 50 ms on CPU 2 ([20, 70));
    * surfaceflinger (pid 600, uid 1000: a system uid): 80 ms on CPU 3
      ([5, 85)).
    """
    sch = tiny(
        "candidates", 100, threads=(MAIN, HTD),
        extra_processes=[Process(DRAWER, "com.example.drawer", uid=10200, ppid=700),
                         Process(BUSY, "com.example.busy", uid=10300, ppid=700)],
        extra_threads=[Thread(DRAWER, DRAWER, "e.example.drawer"),
                       Thread(BUSY, BUSY, "om.example.busy")],
        runs=[run(0, 10, 40, MAIN), run(1, 10, 20, HTD), run(2, 10, 11, DRAWER),
              run(2, 20, 70, BUSY), run(3, 5, 85, 600)],
        atrace=[Atrace(t(5), MAIN, "B", PID, "App Benchmark"), Atrace(t(95), MAIN, "E", PID),
                Atrace(t(12), HTD, "B", PID, "young concurrent copying GC"),
                Atrace(t(18), HTD, "E", PID),
                Atrace(t(10.2), DRAWER, "B", DRAWER, "Choreographer#doFrame 1"),
                Atrace(t(10.7), DRAWER, "E", DRAWER)])
    return write(sch, tmp_path_factory.mktemp("apps"))


@pytest.mark.parametrize("engine", ENGINES)
def test_ranking_of_a_hand_made_trace(candidates_trace, engine):
    df = artscope.apps(candidates_trace, engine=engine)
    assert isinstance(df, pl.DataFrame)
    rows = df.select("rank", "pid", "name", "package", "kind", "cpu_ns", "gc_slices", "frames",
                     "frame_source", "marker_slices", "markers").rows()
    # Apps first: bench has the marker (rank 1); drawer shows a workload
    # (a frame) and ranks before busy despite 1 ms vs 50 ms of CPU; then the
    # system processes by CPU (surfaceflinger 80 ms), then by pid (init 1,
    # zygote 700: no CPU).
    assert rows == [
        (1, PID, APP, APP, "app", 40_000_000, 1, 0, None, 1, "App Benchmark"),
        (2, DRAWER, "com.example.drawer", None, "app", 1_000_000, 0, 1, "choreographer", 0,
         None),
        (3, BUSY, "com.example.busy", None, "app", 50_000_000, 0, 0, None, 0, None),
        (4, 600, "/system/bin/surfaceflinger", None, "system", 80_000_000, 0, 0, None, 0,
         None),
        (5, 1, "/system/bin/init", None, "system", None, 0, 0, None, 0, None),
        (6, 700, "zygote64", None, "system", None, 0, 0, None, 0, None),
    ]
    assert df.columns == list(sys.modules["artscope.apps"].COLUMNS)


@pytest.mark.parametrize("engine", ENGINES)
def test_app_not_found_shows_the_best_candidates(candidates_trace, engine):
    with load_trace(candidates_trace, engine=engine) as eng:
        with pytest.raises(SelectionError) as exc:
            select(MetricRunner(eng), AnalysisOptions(app="com.example.missing"))
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg == (
        "app 'com.example.missing' is not in the trace; best candidates (all: artscope apps "
        "TRACE): com.example.bench (pid 1000, 40.0 ms CPU, marker App Benchmark, 1 GC slice), "
        "com.example.drawer (pid 2000, 1.0 ms CPU, 1 frame), com.example.busy (pid 3000, "
        "50.0 ms CPU), /system/bin/surfaceflinger (pid 600, 80.0 ms CPU), /system/bin/init "
        "(pid 1)")


def test_cli_apps_formats(candidates_trace):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "artscope.cli", "apps",
                               str(candidates_trace), "--engine", "embedded", *args],
                              capture_output=True, text=True, timeout=120)

    p = cli("--format", "json", "--limit", "2")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [(r["rank"], r["pid"], r["trace"]) for r in rows] == [
        (1, PID, str(candidates_trace)), (2, DRAWER, str(candidates_trace))]
    p = cli("--format", "csv", "--limit", "0")
    assert p.returncode == 0, p.stderr
    csv = pl.read_csv(p.stdout.encode())
    assert csv["pid"].to_list() == [PID, DRAWER, BUSY, 600, 1, 700]
    p = cli("--limit", "3")
    assert p.returncode == 0, p.stderr
    assert "com.example.bench" in p.stdout and "App Benchmark ×1" in p.stdout
    assert "surfaceflinger" not in p.stdout  # rank 4, past --limit 3
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "apps", "/nonexistent.pftrace"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no such file" in p.stderr


def test_cli_apps_json_names_its_columns_as_the_table(shared_traces):
    # nia: processes without names; the table shows the package, and so does
    # the JSON (process, as shown; app, what --app takes).
    from artscope.apps import LISTING_COLUMNS

    p = subprocess.run([sys.executable, "-m", "artscope.cli", "apps", str(shared_traces / NIA),
                        "--engine", "embedded", "--format", "json", "--limit", "1"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    assert list(row) == ["trace", *LISTING_COLUMNS]
    assert (row["process"], row["app"], row["package"], row["cpu_ms"]) == (
        "<unnamed, package com.google.samples.apps.nowinandroid.demo>",
        "com.google.samples.apps.nowinandroid.demo",
        "com.google.samples.apps.nowinandroid.demo", None)


def test_cli_apps_on_a_trace_without_processes(tmp_path, candidates_trace):
    # cpu_frequency events only: no process anywhere
    sch = tiny("no_process", 100)
    sch.processes, sch.threads, sch.packages = [], [], []
    sch.with_process_tree = False
    bare = write(sch, tmp_path)

    def cli(*paths):
        return subprocess.run([sys.executable, "-m", "artscope.cli", "apps", *map(str, paths),
                               "--engine", "embedded"], capture_output=True, text=True,
                              timeout=120)

    p = cli(bare)
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert f"no process in {bare}: the trace names none" in p.stderr
    p = cli(bare, candidates_trace)
    assert p.returncode == 0, p.stderr
    assert f"{bare}: no process in the trace" in " ".join(p.stdout.split())


# -- --app by main-thread name (systrace) ----------------------------------------

#: Two unnamed processes of a systrace text (the tgid column gives them; no
#: process dump names them): pid 7459 whose main thread is 'android.youtube'
#: (the kernel's 15-character tail of com.google.android.youtube) runs
#: [1.0, 1.0625) s = 62.5 ms on CPU 0; pid 594 'surfaceflinger' runs
#: [1.015625, 1.03125) s = 15.625 ms on CPU 1. (Timestamps are parsed as
#: double seconds, as trace_processor does: these are exact in binary.)
SYSTRACE = (
    "# tracer: nop\n#\n"
    "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
    "#              | |        |      |   ||||       |         |\n"
    "          <idle>-0     (    0) [000] d..2  1.000000: sched_switch: prev_comm=swapper/0 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=android.youtube next_pid=7459 "
    "next_prio=120\n"
    "          <idle>-0     (    0) [001] d..2  1.015625: sched_switch: prev_comm=swapper/1 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=surfaceflinger next_pid=594 "
    "next_prio=120\n"
    "  surfaceflinger-594   (  594) [001] d..2  1.031250: sched_switch: "
    "prev_comm=surfaceflinger prev_pid=594 prev_prio=120 prev_state=S ==> "
    "next_comm=swapper/1 next_pid=0 next_prio=120\n"
    " android.youtube-7459  ( 7459) [000] d..2  1.062500: sched_switch: "
    "prev_comm=android.youtube prev_pid=7459 prev_prio=120 prev_state=S ==> "
    "next_comm=swapper/0 next_pid=0 next_prio=120\n"
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("app, pid, how", [
    ("com.google.android.youtube", 7459, "main_thread_tail"),
    ("android.youtube", 7459, "main_thread_name"),
    ("surfaceflinger", 594, "main_thread_name"),
])
def test_app_matches_the_main_thread_of_an_unnamed_process(tmp_path, engine, app, pid, how):
    path = tmp_path / "unnamed.txt"
    path.write_text(SYSTRACE)
    with load_trace(path, engine=engine) as eng:
        sel = select(MetricRunner(eng), AnalysisOptions(app=app))
    assert (sel.pids, sel.matched_by, sel.process_name) == ([pid], how, app)


@pytest.mark.parametrize("engine", ENGINES)
def test_main_thread_tail_needs_the_whole_tail(tmp_path, engine):
    # A name longer than 15 characters matches by its last 15:
    # 'google.android.youtube' does ('android.youtube'), 'com.example.youtube'
    # ('example.youtube') does not, and the error lists the candidates.
    path = tmp_path / "unnamed.txt"
    path.write_text(SYSTRACE)
    with load_trace(path, engine=engine) as eng:
        assert select(MetricRunner(eng), AnalysisOptions(app="google.android.youtube")).pids \
            == [7459]
        with pytest.raises(SelectionError, match=r"<unnamed, main thread android.youtube> "
                                                 r"\(pid 7459, 62.5 ms CPU\)"):
            select(MetricRunner(eng), AnalysisOptions(app="com.example.youtube"))


@pytest.mark.parametrize("engine", ENGINES)
def test_unnamed_systrace_processes_ranked(tmp_path, engine):
    path = tmp_path / "unnamed.txt"
    path.write_text(SYSTRACE)
    df = artscope.apps(path, engine=engine)
    # android.youtube reads as a package tail: an app, first; surfaceflinger
    # does not: a system process.
    assert df.select("rank", "pid", "name", "main_thread", "kind", "cpu_ns").rows() == [
        (1, 7459, None, "android.youtube", "app", 62_500_000),
        (2, 594, None, "surfaceflinger", "system", 15_625_000)]


# -- real traces -------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_real_traces_best_candidate(shared_traces, engine):
    # api32: the macrobenchmark target ranks 7th by CPU but is the best app
    # drawing frames (2 frame timeline rows); the harness (.test) draws none.
    api = artscope.apps(shared_traces / API32, engine=engine)
    first = api.row(0, named=True)
    assert (first["name"], first["pid"], first["package"], first["frames"],
            first["frame_source"]) == (API32_TARGET, 7663, API32_TARGET, 2, "frame_timeline")
    # trappy: no process names; youtube's main thread names it
    trappy = artscope.apps(shared_traces / TRAPPY, engine=engine)
    assert trappy.row(0, named=True)["main_thread"] == "android.youtube"
    assert trappy.row(0, named=True)["pid"] == 7459
    # nia: no names, no sched; the frame timeline layer names the package
    nia = artscope.apps(shared_traces / NIA, engine=engine)
    top = nia.row(0, named=True)
    assert (top["pid"], top["package"], top["kind"], top["frames"]) == (
        9305, "com.google.samples.apps.nowinandroid.demo", "app", 739)


@pytest.mark.parametrize("engine", ENGINES)
def test_real_app_not_found_hints(shared_traces, engine):
    with load_trace(shared_traces / API32, engine=engine) as eng:
        with pytest.raises(SelectionError) as exc:
            select(MetricRunner(eng), AnalysisOptions(app="com.example.absent"))
    assert f"best candidates (all: artscope apps TRACE): {API32_TARGET} (pid 7663," \
        in str(exc.value)
    with load_trace(shared_traces / TRAPPY, engine=engine) as eng:
        sel = select(MetricRunner(eng), AnalysisOptions(app="com.google.android.youtube"))
    assert (sel.pids, sel.matched_by) == ([7459], "main_thread_tail")
