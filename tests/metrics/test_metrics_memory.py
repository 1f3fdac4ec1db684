"""Memory pressure per run: exact values derived by hand from tiny schedules,
identical on both engines.

Schedule "memory_tiny" (ms after T0; trace [0, 1000]; app com.example.bench
pid 1000; W = the "App Benchmark" slice of main, [100, 900) = 800 ms; --cpus 6,7):

    CPU 6: main [50,400) switched out D   kswapd0 [420,450)   main [500,950)
    CPU 7: HTD [300,600) switched out D (never runs again)
    CPU 0: kswapd0 [200,260)
    CPU 1: com.other.app (pid 3000) [100,800)

    direct reclaim (mm_vmscan_direct_reclaim_begin/end):
      main [60,80)     before W: not counted
      HTD  [90,110)    straddles W's start: 10 ms in W
      main [150,170)   20 ms
      HTD  [350,380)   30 ms
      other app [200,260)   not a target thread
      => direct_reclaim_ns = 10 + 20 + 30 = 60 ms, 3 slices; HTD 40 ms (2), main 20 ms (1)
      app CPU in W = main [100,400) + [500,900) + HTD [300,600) = 300 + 400 + 300 = 1000 ms
      => direct_reclaim_share = 60 / 1000 = 0.06 (> 0.01: memory_pressure warns)
    kswapd in W: CPU 0 [200,260) 60 ms + CPU 6 [420,450) 30 ms = 90 ms; on 6,7: 30 ms
      => kswapd_allowed_share = 30 / 800 = 0.0375 (> 0.01: memory_pressure warns)
    io wait: main blocks in D at 400 with sched_blocked_reason io_wait=1 until it
      runs at 500 => 100 ms; HTD's D from 600 has io_wait=0 => not counted
    kills: lmkd (pid 400) writes kill_one_process = 3000 at 500 (0 at 501): a
      neighbour; mark_victim of pid 1000 at 850: the target => lmk_kill fails
    rss_stat of main's mm (kB): anon 102400 at 50, file 51200 at 50.5,
      shmem 1024 at 51, anon 204800 at 300, file 61440 at 600, anon 153600 at 700
      => total at W's start 102400 + 51200 + 1024 = 154624; after 300: 257024;
         after 600: 204800 + 61440 + 1024 = 267264 (the peak); after 700: 216064
    vmstat polls: pgmajfault 1000 at 50, 1100 at 450, 1300 at 950;
      workingset_refault_file 500 / 700 and _anon 20 / 30 at 50 / 950
      => polls bounding W: 50 (last at or before 100) and 950 (first at or after 900)
      => major_faults = 1300 - 1000 = 300; refaults = (700 - 500) + (30 - 20) = 210
"""

from __future__ import annotations

import pytest

import memory_traces as MEM
import metric_traces as MT
from metric_traces import HTD, MAIN, Atrace, Process, Thread, ms, run, slice_, t
from schedules import D

OTHER_PID, LMKD, KSWAPD = 3000, 400, 95
OTHER = "com.other.app"
ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def _threads_and_processes() -> dict:
    return dict(
        extra_threads=[Thread(KSWAPD, None, "kswapd0"), Thread(OTHER_PID, OTHER_PID, OTHER),
                       Thread(LMKD, LMKD, "lmkd")],
        extra_processes=[Process(OTHER_PID, OTHER, uid=10200, ppid=700),
                         Process(LMKD, "/system/bin/lmkd", uid=1069)])


def memory_schedule(kswapd_on_allowed: bool = True):
    runs = [run(6, 50, 400, MAIN, end_state=D), run(6, 500, 950, MAIN),
            run(0, 200, 260, KSWAPD), run(7, 300, 600, HTD, end_state=D),
            run(1, 100, 800, OTHER_PID)]
    if kswapd_on_allowed:
        runs.append(run(6, 420, 450, KSWAPD))
    atrace = slice_(MAIN, "App Benchmark", 100, 900) + [
        Atrace(t(500), LMKD, "C", LMKD, "kill_one_process", OTHER_PID),
        Atrace(t(501), LMKD, "C", LMKD, "kill_one_process", 0)]
    return MT.tiny("memory_tiny", 1000, threads=(MAIN, HTD), runs=runs, atrace=atrace,
                   **_threads_and_processes())


RSS_EVENTS = [MEM.Rss(50, MAIN, 1, 102400), MEM.Rss(50.5, MAIN, 0, 51200),
              MEM.Rss(51, MAIN, 3, 1024), MEM.Rss(300, MAIN, 1, 204800),
              MEM.Rss(600, MAIN, 0, 61440), MEM.Rss(700, MAIN, 1, 153600)]
MEMORY_EVENTS = [
    MEM.Reclaim(MAIN, 60, 80, 6), MEM.Reclaim(HTD, 90, 110, 7),
    MEM.Reclaim(MAIN, 150, 170, 6), MEM.Reclaim(HTD, 350, 380, 7),
    MEM.Reclaim(OTHER_PID, 200, 260, 1),
    *RSS_EVENTS,
    MEM.Blocked(400, MAIN, True, 6), MEM.Blocked(600, HTD, False, 7),
    MEM.Victim(850, MT.PID, 0)]
VMSTAT = [
    MEM.Vmstat(50, (("VMSTAT_PGMAJFAULT", 1000), ("VMSTAT_WORKINGSET_REFAULT_FILE", 500),
                    ("VMSTAT_WORKINGSET_REFAULT_ANON", 20))),
    MEM.Vmstat(450, (("VMSTAT_PGMAJFAULT", 1100),)),
    MEM.Vmstat(950, (("VMSTAT_PGMAJFAULT", 1300), ("VMSTAT_WORKINGSET_REFAULT_FILE", 700),
                     ("VMSTAT_WORKINGSET_REFAULT_ANON", 30)))]


def analyze_on(engine: str, path, request, **options) -> list[dict]:
    """Results on ``engine`` (schema-checked), the trace_processor binary from
    the tp_bin fixture (which skips where there is none)."""
    import artscope

    if engine == "trace_processor":
        options["tp_bin"] = request.getfixturevalue("tp_bin")
    rs = artscope.open(str(path), app=MT.APP, engine=engine, **options)
    try:
        results = rs.results
    finally:
        getattr(rs, "close", lambda: None)()
    MT.validate(results)
    return results


@pytest.fixture(scope="module")
def memory_trace(tmp_path_factory):
    return MEM.write(memory_schedule(), tmp_path_factory.mktemp("mem"), MEMORY_EVENTS, VMSTAT)


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_block_from_the_hand_schedule(engine, memory_trace, request):
    (r,) = analyze_on(engine, memory_trace, request, cpus="6,7")
    assert r["window"]["start_ts"] == t(100) and r["window"]["end_ts"] == t(900)
    m = r["memory"]
    assert m["direct_reclaim_ns"] == ms(60)
    assert m["direct_reclaim_slices"] == 3
    assert m["direct_reclaim_share"] == pytest.approx(0.06)
    assert [(x["tid"], x["role"], x["direct_reclaim_ns"], x["slices"])
            for x in m["direct_reclaim_threads"]] == [(HTD, "gc", ms(40), 2),
                                                      (MAIN, "mutator", ms(20), 1)]
    assert (m["direct_reclaim_first_ts"], m["direct_reclaim_last_end_ts"]) == (t(100), t(380))
    assert m["kswapd_cpu_ns"] == ms(90)
    assert m["kswapd_allowed_cpu_ns"] == ms(30)
    assert m["kswapd_allowed_share"] == pytest.approx(30 / 800)
    assert m["io_wait_ns"] == ms(100)
    assert m["kills"] == [
        {"ts": t(500), "pid": OTHER_PID, "process": OTHER, "source": "lmkd", "is_target": False},
        {"ts": t(850), "pid": MT.PID, "process": MT.APP, "source": "oom_kill", "is_target": True}]
    assert m["target_killed"] is True
    assert (m["rss_start_kb"], m["rss_peak_kb"], m["rss_end_kb"]) == (154624, 267264, 216064)
    assert (m["rss_anon_start_kb"], m["rss_anon_peak_kb"], m["rss_anon_end_kb"]) == (
        102400, 204800, 153600)
    assert (m["rss_file_start_kb"], m["rss_file_peak_kb"], m["rss_file_end_kb"]) == (
        51200, 61440, 61440)
    assert (m["rss_shmem_start_kb"], m["rss_shmem_peak_kb"], m["rss_shmem_end_kb"]) == (
        1024, 1024, 1024)
    assert m["rss_source"] == "sum_of_parts"
    assert (m["major_faults"], m["refaults"]) == (300, 210)
    assert m["unavailable"] == {}


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_reasons(engine, memory_trace, request):
    (r,) = analyze_on(engine, memory_trace, request, cpus="6,7")
    got = [x for x in r["health"]["reasons"] if x["id"] in ("memory_pressure", "lmk_kill")]
    assert [(x["id"], x["severity"], x["actual"]) for x in got] == [
        ("memory_pressure", "warn", pytest.approx(0.06)),
        ("memory_pressure", "warn", pytest.approx(0.0375)),
        ("lmk_kill", "fail", 1)]
    reclaim, kswapd, kill = got
    # the reclaim reason spans the reclaim slices in W; the kill its instant
    assert (reclaim["start_ts"], reclaim["end_ts"]) == (t(100), t(380))
    assert [x["tid"] for x in reclaim["evidence"]["reclaim_threads"]] == [HTD, MAIN]
    assert kswapd["evidence"]["cpus"] == [6, 7]
    assert kill["start_ts"] == t(850)
    assert [p["pid"] for p in kill["evidence"]["killed"]] == [OTHER_PID, MT.PID]
    assert r["health"]["verdict"] == "fail"


def test_both_engines_give_the_same_memory_block(memory_trace, request):
    pytest.importorskip("jsonschema")
    request.getfixturevalue("tp_bin")
    emb = analyze_on("embedded", memory_trace, request, cpus="6,7")
    tp = analyze_on("trace_processor", memory_trace, request, cpus="6,7")
    assert emb[0]["memory"] == tp[0]["memory"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_neighbour_kill_warns_and_kswapd_off_the_allowed_cpus_is_no_reason(
        engine, tmp_path, request):
    """kswapd runs only on CPU 0 ([200,260)); main reclaims [150,155) only:
    5 ms of 1000 ms app CPU = 0.005 <= 0.01; the only kill is com.other.app's."""
    events = [MEM.Reclaim(MAIN, 150, 155, 6)]
    path = MEM.write(memory_schedule(kswapd_on_allowed=False), tmp_path, events)
    (r,) = analyze_on(engine, path, request, cpus="6,7")
    m = r["memory"]
    assert (m["direct_reclaim_ns"], m["kswapd_cpu_ns"], m["kswapd_allowed_cpu_ns"]) == (
        ms(5), ms(60), 0)
    assert m["target_killed"] is False
    ids = [(x["id"], x["severity"]) for x in r["health"]["reasons"]
           if x["id"] in ("memory_pressure", "lmk_kill")]
    assert ids == [("lmk_kill", "warn")]
    # no rss_stat event, no sched_blocked_reason row with io_wait, no vmstat poll:
    # the config lists rss_stat and sched_blocked_reason, so io_wait is 0 and RSS null
    assert m["io_wait_ns"] == 0
    assert m["rss_start_kb"] is None and "rss_start_kb" in m["unavailable"]
    assert m["major_faults"] is None and "major_faults" in m["unavailable"]


@pytest.mark.parametrize("engine", ENGINES)
def test_nothing_captured_is_null_with_a_reason(engine, tmp_path, request):
    """A trace with sched only (no memory events in its config): every value
    that needs memory data is null and says what to record; kswapd's CPU
    time is 0 (sched was captured, no kswapd ran)."""
    sch = MT.tiny("no_memory", 400, threads=(MAIN,), runs=[run(6, 50, 300, MAIN)])
    (r,) = analyze_on(engine, MT.write(sch, tmp_path), request, cpus="6,7")
    m = r["memory"]
    assert m["kswapd_cpu_ns"] == 0 and m["kswapd_allowed_cpu_ns"] == 0
    for key in ("direct_reclaim_ns", "io_wait_ns", "kills", "rss_start_kb", "major_faults",
                "refaults"):
        assert m[key] is None, key
        assert m["unavailable"][key], key
    assert "mm_vmscan_direct_reclaim_begin" in m["unavailable"]["direct_reclaim_ns"]
    assert "sched_blocked_reason" in m["unavailable"]["io_wait_ns"]
    assert not [x for x in r["health"]["reasons"] if x["id"] in ("memory_pressure", "lmk_kill")]


def test_flat_row_has_the_memory_columns(memory_trace):
    from artscope.flatschema import flatten

    (r,) = MT.analyze(memory_trace, cpus="6,7")
    row = flatten(r)
    assert row["mem_direct_reclaim_ns"] == ms(60)
    assert row["mem_kswapd_allowed_cpu_ns"] == ms(30)
    assert row["mem_kills"] == 2 and row["mem_target_killed"] is True
    assert row["mem_rss_peak_kb"] == 267264
    assert row["mem_major_faults"] == 300 and row["startup_count"] == 0


def test_report_draws_rss_with_reclaim_and_kills(memory_trace, tmp_path):
    """The total RSS step line from the schedule above, in MB: 151 (= 154624
    kB) from W's start, 251 at +0.2 s (anon 200 MB), 261 at +0.5 s (file 60
    MB), 211 at +0.6 s (anon 150 MB), held to W's end (+0.8 s)."""
    import artscope
    from artscope.report import memory_charts
    from artscope.report.html import render

    rs = artscope.open(str(memory_trace), app=MT.APP, cpus="6,7", engine="embedded")
    total = memory_charts.rss_rows(rs, 0).filter(series="total")
    assert list(zip(total["ts"].to_list(), total["mb"].to_list())) == [
        (t(100), 151.0), (t(300), 251.0), (t(600), 261.0), (t(700), 211.0), (t(900), 211.0)]
    spec = memory_charts.memory(rs, 0).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["line", "rect", "rule"]
    page = render([rs])
    assert 'data-section="memory"' in page and "Processes killed for memory" in page
    assert 'data-section="startups"' not in page  # no launch in this trace


def _lmkd_prints() -> bytes:
    """lmkd's newer records as raw atrace prints of lmkd (pid 400): an
    instant on its "lowmemorykiller" track for pid 1500 at 520 ms, and a
    legacy "lmk,<pid>,<reason>,<oom_score_adj>" slice for pid 1510 at 530 ms."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    trace = pb.Trace()
    packet = trace.packet.add()
    packet.trusted_packet_sequence_id = 41
    bundle = packet.ftrace_events
    bundle.cpu = 2
    for ms_, buf in ((520, "N|400|lowmemorykiller|lmk,1500,3,900\n"),
                     (530, "B|400|lmk,1510,2,800\n"), (531, "E|400\n")):
        e = bundle.event.add()
        e.timestamp = t(ms_)
        e.pid = LMKD
        e.print.ip = 1
        e.print.buf = buf
    return trace.SerializeToString()


@pytest.mark.parametrize("engine", ENGINES)
def test_lmkd_slices_are_kills(engine, tmp_path, request):
    """Four kills in W: the two of the schedule above plus lmkd's two newer
    records (pids 1500 and 1510: no process of the trace, so no name)."""
    path = tmp_path / "lmkd.pftrace"
    path.write_bytes(MEM.build(memory_schedule(), MEMORY_EVENTS, VMSTAT) + _lmkd_prints())
    (r,) = analyze_on(engine, path, request, cpus="6,7")
    assert [(k["ts"], k["pid"], k["process"], k["source"], k["is_target"])
            for k in r["memory"]["kills"]] == [
        (t(500), OTHER_PID, OTHER, "lmkd", False), (t(520), 1500, None, "lmkd", False),
        (t(530), 1510, None, "lmkd", False), (t(850), MT.PID, MT.APP, "oom_kill", True)]
