"""The default run window ends where the app ends: its main thread's exit
(sched_process_exit, a last slice ending dead, the task freed) or a kill,
plus whatever its threads still ran while dying; verdicts read only that
window, and a kill at its end counts. Truths follow from each schedule."""

from __future__ import annotations

import pytest

import memory_traces as MEM
import metric_traces as MT
from metric_traces import MAIN, W1, Atrace, CpuFreq, Process, Thread, run, t
from schedules import X, TaskEvent

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]
LMKD = 400


def _analyze(path, engine, **kw):
    if engine == "embedded":
        return MT.analyze(path, **kw)
    import artscope

    with artscope.open(str(path), app=MT.APP, engine=engine, **kw) as rs:
        return rs.results


def _dying_app(name: str, exits: bool) -> MT.Schedule:
    """A 1000 ms trace. The app's main thread runs on CPU 6 [10, 300) and
    [350, 400), switching out dead (X) at 400; Worker-1 runs on CPU 7
    [20, 390) and [395, 405), dead at 405. With ``exits`` each also writes
    sched_process_exit just before its last switch (main 399, worker 404).
    CPU 6 holds 2.8 GHz until 600 ms, 2.0 GHz until 700, then 2.8 again:
    changes after the app died."""
    runs = [run(6, 10, 300, MAIN), run(6, 350, 400, MAIN, end_state=X),
            run(7, 20, 390, W1), run(7, 395, 405, W1, end_state=X)]
    tasks = [TaskEvent(t(399), 6, "exit", MAIN, MAIN, comm="m.example.bench"),
             TaskEvent(t(404), 7, "exit", W1, W1, comm="Worker-1")] if exits else []
    freq = [CpuFreq(t(0), 6, 2_800_000), CpuFreq(t(600), 6, 2_000_000),
            CpuFreq(t(700), 6, 2_800_000), CpuFreq(t(1000), 6, 2_800_000)]
    return MT.tiny(name, 1000, threads=(MAIN, W1), runs=runs, cpufreq=freq, task_events=tasks,
                   clock_rates=[MT.ClockRate(t(0), MT.S.MIF, 3_172_000)])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("exits", [True, False], ids=["exit_events", "dead_state_only"])
def test_an_app_that_exits_mid_trace_ends_its_window(tmp_path, engine, exits):
    # The process tree gives no start: W = [trace start, 405 ms), where the
    # last dying thread switched out. CPU 6's changes at 600 and 700 ms fall
    # after W: stable, no cpufreq_unstable from a dead app's phone.
    (r,) = _analyze(MT.write(_dying_app("dying", exits), tmp_path), engine, cpus="6,7")
    assert r["window"] == {"start_ts": t(0), "end_ts": t(405), "source": "process"}
    # main 290 + 50 ms, worker 370 + 10 ms
    assert r["gc"]["app_cpu_ns"] == MT.ms(720)
    (c6,) = [c for c in r["cpufreq"] if c["cpu"] == 6]
    assert (c6["transitions"], c6["stable"]) == (0, True)
    assert "cpufreq_unstable" not in MT.reason_ids(r)


def test_an_app_alive_at_the_trace_end_keeps_the_whole_trace(tmp_path):
    # The same app without the dead states or exits: nothing shows an end.
    sch = MT.tiny("alive", 1000, threads=(MAIN, W1),
                  runs=[run(6, 10, 300, MAIN), run(7, 20, 390, W1)])
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6,7")
    assert (r["window"]["end_ts"], r["window"]["source"]) == (t(1000), "trace")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_target_killed_at_the_window_end_is_killed(tmp_path, engine):
    # The main thread runs on CPU 6 [10, 500) and never again; lmkd (pid
    # 400) writes kill_one_process = 1000 at 500 ms. The kill ends the window
    # at 500 ms, and the kill at W's end counts: lmk_kill fails.
    sch = MT.tiny("killed", 1000, runs=[run(6, 10, 500, MAIN)],
                  extra_threads=[Thread(LMKD, LMKD, "lmkd")],
                  extra_processes=[Process(LMKD, "/system/bin/lmkd", uid=1069)],
                  atrace=[Atrace(t(500), LMKD, "C", LMKD, "kill_one_process", MT.PID),
                          Atrace(t(501), LMKD, "C", LMKD, "kill_one_process", 0)])
    path = MEM.write(sch, tmp_path)
    (r,) = _analyze(path, engine, cpus="6")
    assert r["window"] == {"start_ts": t(0), "end_ts": t(500), "source": "process"}
    mem = r["memory"]
    assert mem["target_killed"] is True
    assert [(k["ts"], k["pid"], k["is_target"]) for k in mem["kills"]] == [(t(500), MT.PID, True)]
    assert MT.reason_ids(r)["lmk_kill"] == "fail"


def test_the_run_set_gives_memory_kills_heap_conditions_and_launches(tmp_path):
    # The killed app above, through the notebook API.
    import artscope
    from artscope.metrics.startup import PHASES

    sch = MT.tiny("killed_api", 1000, runs=[run(6, 10, 500, MAIN)],
                  extra_threads=[Thread(LMKD, LMKD, "lmkd")],
                  extra_processes=[Process(LMKD, "/system/bin/lmkd", uid=1069)],
                  atrace=[Atrace(t(500), LMKD, "C", LMKD, "kill_one_process", MT.PID),
                          Atrace(t(501), LMKD, "C", LMKD, "kill_one_process", 0)])
    with artscope.open(str(MEM.write(sch, tmp_path)), app=MT.APP, cpus="6",
                       engine="embedded") as rs:
        mem, kills = rs.memory(), rs.memory_kills()
        assert (mem.height, mem["target_killed"].to_list()) == (1, [True])
        assert "kills" not in mem.columns
        assert kills.select("run", "ts", "pid", "source", "is_target").rows() == [
            (0, t(500), MT.PID, "lmkd", True)]
        # no Heap size counter: one row, its values null with the reason
        heap = rs.heap()
        assert heap.select("run", "peak_kb").rows() == [(0, None)] and heap["reason"][0]
        cond = rs.conditions()
        assert (cond.height, cond["device_model"][0]) == (1, "bench")
        launches = rs.startups()
        assert launches.height == 0 and list(PHASES) == launches.columns[-len(PHASES):]
