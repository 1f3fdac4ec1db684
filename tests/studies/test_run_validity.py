"""Per-run validity (the ``validity`` block, sql-metrics/run_validity.sql) on
the validity study set (fixtures/study_sets.py ``validity``): whether the app
was started fresh for the run, whether it died, was killed or ran out of
memory in the window, and how much of its CPU went to ART's JIT. Times are
ms from the trace's start (schedules.t); expected values come from each
run's StudyRun fields (see the set's docstring).
"""

from __future__ import annotations

import pytest

import metric_traces as MT
import study_data as SD
from study_data import APP, CPUS, MS

from schedules import t

RUNS = SD.SS.validity()


def results(engine: str) -> dict[int, dict]:
    """invocation -> the run's result."""
    from artscope.batch import analyze_many, expand_paths
    from artscope.metrics.options import AnalysisOptions

    if engine == "embedded":
        rows = SD.analyzed("validity")
    else:
        rows = analyze_many(expand_paths([str(SD.study_dir("validity"))]),
                            AnalysisOptions(app=APP, cpus=CPUS), engine=engine, jobs=1)
    MT.validate(list(rows))
    return {int(r["trace"].rsplit(".", 2)[-2]): r for r in rows}


#: invocation -> (cold_start, process_start ms, lead ms, app_died, died_how,
#: died ms, jit_cpu ms, jit_compiles) by hand from study_sets.validity
EXPECTED = {
    0: (True, 5, 5, False, None, None, 0, 0),
    1: (False, 1, 14_999, False, None, None, 4, 2),
    2: (False, None, None, False, None, None, 0, 0),
    3: (True, 5, 5, True, "exit", 113, 0, 0),
    4: (True, 5, 5, True, "killed", 113, 0, 0),
    5: (True, 5, 5, True, "out_of_memory_error", 112.5, 0, 0),
    6: (True, 5, 5, True, "out_of_memory_error", 112.5, 0, 0),
    7: (True, 5, 5, False, None, None, 50, 3),
    8: (True, 5, 5, True, "lmk_kill", 113, 0, 0),
}


def _check(res: dict[int, dict]) -> None:
    for inv, (cold, start, lead, died, how, died_ms, jit, compiles) in EXPECTED.items():
        v = res[inv]["validity"]
        got = (v["cold_start"], v["process_start_ts"], v["process_start_lead_ns"], v["app_died"],
               v["died_how"], v["died_ts"], v["jit_cpu_ns"], v["jit_compiles"])
        want = (cold, None if start is None else t(start), None if lead is None else lead * MS,
                died, how, None if died_ms is None else t(died_ms), jit * MS, compiles)
        assert got == want, inv
        assert v["pid"] == 1000 and v["first_run_of_process"] is True and v["unavailable"] == {}
        app = RUNS[inv].app_cpu_ms
        assert v["jit_cpu_share"] == pytest.approx(jit / app), inv


def test_validity_block_embedded():
    _check(results("embedded"))


@pytest.mark.tp
def test_validity_block_trace_processor(tp_bin, monkeypatch):
    monkeypatch.setenv("ARTSCOPE_TP_BIN", tp_bin)
    _check(results("trace_processor"))


def test_health_reasons():
    res = results("embedded")
    reasons = {inv: {(x["id"], x["severity"]) for x in r["health"]["reasons"]}
               for inv, r in res.items()}
    for inv in (1, 2):
        assert ("process_reused", "warn") in reasons[inv]
    for inv in (3, 4, 5, 6):
        assert ("app_died", "fail") in reasons[inv] and res[inv]["health"]["verdict"] == "fail"
    # lmkd's kill is lmk_kill's to report, once
    assert ("lmk_kill", "fail") in reasons[8] and not any(i == "app_died" for i, _ in reasons[8])
    for inv in (0, 7):
        assert not {"process_reused", "app_died"} & {i for i, _ in reasons[inv]}
    (reused,) = [x for x in res[1]["health"]["reasons"] if x["id"] == "process_reused"]
    assert reused["message"].startswith(
        "the app's process started 15 s before the window, more than the 10 s a launch takes")
    assert reused["evidence"] == {"pids": [1000], "process_start_ts": t(1)}
    (killed,) = [x for x in res[4]["health"]["reasons"] if x["id"] == "app_died"]
    assert killed["message"].startswith(
        "the app died in the window at +0.103 s: SIGKILL sent to thread 1000")
    assert (killed["start_ts"], killed["end_ts"]) == (t(113), t(113) + 1)


def test_a_kill_at_the_windows_end_is_inside_it_an_exit_is_not(tmp_path):
    # run 4's app gets a SIGKILL at 113 ms: a window ending there holds it, one
    # ending just before does not. Run 3's process simply ends at 113 ms: a
    # window ending where its app ended (as a process window does) saw the app
    # finish, not die; an exit before the window's end is a death.
    killed = SD.study_dir("validity") / RUNS[4].file_name
    (at_end,) = MT.analyze(killed, cpus=CPUS, window="+10ms:+113ms")
    assert at_end["validity"]["app_died"] is True and at_end["validity"]["died_how"] == "killed"
    (before,) = MT.analyze(killed, cpus=CPUS, window="+10ms:+112.9ms")
    assert before["validity"]["app_died"] is False
    exited = SD.study_dir("validity") / RUNS[3].file_name
    (at_exit,) = MT.analyze(exited, cpus=CPUS, window="+10ms:+113ms")
    assert at_exit["validity"]["app_died"] is False
    (after_exit,) = MT.analyze(exited, cpus=CPUS, window="+10ms:+113.1ms")
    assert after_exit["validity"]["died_how"] == "exit"


def test_flat_columns():
    flat = SD.flat("validity").sort("trace")
    assert flat["validity_cold_start"].to_list() == [e[0] for e in EXPECTED.values()]
    assert flat["validity_died_how"].to_list() == [e[4] for e in EXPECTED.values()]
    assert flat["validity_jit_cpu_ns"].to_list() == [e[6] * MS for e in EXPECTED.values()]
    assert flat["validity_died_detail"][4] == "SIGKILL sent to thread 1000"


def test_unrecorded_events_make_validity_null(fixtures_dir):
    # pinned_clean: the app is in the process tree at the trace's start, 50 ms
    # before its window (a start unknown, not long enough before to say it
    # was reused); its config records process ends, so no death is known
    (r,) = MT.analyze(fixtures_dir / "pinned_clean.pftrace", cpus="6,7")
    v = r["validity"]
    assert (v["cold_start"], v["app_died"], v["jit_cpu_ns"]) == (None, False, 0)
    assert v["unavailable"] == {"cold_start": (
        "the process's start is not in the trace (record ftrace task/task_newtask and start "
        "the trace before the app)")}
    # no sched (and no CPU data at all: no --cpus): nothing of JIT CPU is known
    (r,) = MT.analyze(fixtures_dir / "no_sched.pftrace")
    assert r["validity"]["jit_cpu_ns"] is None
    assert "jit_cpu_ns" in r["validity"]["unavailable"]
