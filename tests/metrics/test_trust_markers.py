"""--marker takes the target app's slices; instant markers start runs."""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import MAIN, Atrace, run, slice_, t
from artscope.errors import SelectionError

S = MT.S
SYSUI_MAIN = 1500


def _sysui_slice(name: str, start_ms: float, end_ms: float) -> list[Atrace]:
    return [Atrace(t(start_ms), SYSUI_MAIN, "B", S.SYSUI_PID, name),
            Atrace(t(end_ms), SYSUI_MAIN, "E", S.SYSUI_PID)]


def _trace(tmp_path, atrace):
    sch = MT.tiny("markers", 400, runs=[run(6, 10, 390, MAIN)], atrace=atrace,
                  extra_processes=[S.SYSUI_PROCESS], extra_threads=[S.SYSUI_THREADS[0]])
    return MT.write(sch, tmp_path)


def _windows(path, **kw):
    return [(r["window"]["start_ts"], r["window"]["end_ts"], r["window"]["source"])
            for r in MT.analyze(path, **kw)]


def test_markers_of_other_processes_are_not_the_apps_runs(tmp_path):
    # app: "step" [50, 100) and [200, 260); systemui: "step" [120, 150).
    path = _trace(tmp_path, slice_(MAIN, "step", 50, 100) + slice_(MAIN, "step", 200, 260)
                  + _sysui_slice("step", 120, 150))
    assert _windows(path, marker="step") == [(t(50), t(100), "marker"), (t(200), t(260), "marker")]
    assert len(_windows(path, marker="step", marker_process="*")) == 3
    assert _windows(path, marker="step", marker_process=S.SYSUI) == [(t(120), t(150), "marker")]


def test_a_marker_only_another_process_has_is_named_in_the_error(tmp_path):
    path = _trace(tmp_path, _sysui_slice("frame", 120, 150))
    with pytest.raises(SelectionError, match=r"not found in the app's slices, but other "
                       r"processes have 1: com\.android\.systemui \(1\).*--marker-process"):
        MT.analyze(path, marker="frame")


def test_instant_markers_start_runs_until_the_next(tmp_path):
    # Zero-length "iteration" slices at 100, 200 and 300 ms (trace ends at 400):
    # runs [100, 200), [200, 300), [300, 400).
    marks = [a for at in (100, 200, 300) for a in slice_(MAIN, "iteration", at, at)]
    path = _trace(tmp_path, marks)
    assert _windows(path, marker="iteration") == [
        (t(100), t(200), "marker"), (t(200), t(300), "marker"), (t(300), t(400), "marker")]
