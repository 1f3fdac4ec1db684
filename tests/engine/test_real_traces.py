"""Real traces from real phones (the ``shared_traces`` fixture: the traces
beside the checkout): import and analyse them.

The expected numbers are facts from independent decoding listed in the
README beside those traces; the test skips where that folder is absent.
"""

from __future__ import annotations

import pytest

import artscope
from artscope.engines import load_trace

API32 = "perfskills-api32_startup_warm.perfetto-trace"
NIA = "nia-sidky.perfetto-trace"
NIA_APP = "com.google.samples.apps.nowinandroid.demo"


@pytest.fixture(scope="module")
def api32(shared_traces):
    with load_trace(shared_traces / API32, engine="embedded") as eng:
        yield eng


def test_api32_compact_sched_counts(api32):
    # 11,086 compact sched_switch records; trace_processor drops the first
    # switch of each of the 8 CPUs (no prev task to close) -> 11,078 slices.
    assert api32.query("SELECT count(*) AS n FROM sched")["n"][0] == 11_086 - 8
    assert api32.query("SELECT count(DISTINCT cpu) AS n FROM sched")["n"][0] == 8


def test_api32_cpufreq_events(api32):
    n = api32.query(
        "SELECT count(*) AS n FROM counter c JOIN cpu_counter_track t ON t.id = c.track_id "
        "WHERE t.name = 'cpufreq'")["n"][0]
    assert n == 1_442
    assert api32.query(
        "SELECT count(*) AS n FROM ftrace_event WHERE name = 'cpu_frequency'")["n"][0] == 1_442


def test_api32_memory_clock_and_frame(api32):
    mif = api32.query(
        "SELECT count(*) AS n FROM counter_track WHERE type = 'clock_frequency' "
        "AND name = '17000010.devfreq_mif Frequency'")["n"][0]
    assert mif == 1
    jank = api32.query(
        "SELECT jank_type, count(*) AS n FROM actual_frame_timeline_slice "
        "WHERE jank_type != 'None' GROUP BY 1")
    assert jank.rows() == [("App Deadline Missed", 1)]
    assert api32.query("SELECT count(*) AS n FROM process")["n"][0] >= 665


def test_api32_analyze_big_cores(shared_traces):
    with artscope.open(shared_traces / API32, app="com.google.android.gms.persistent",
                       cpus="big", engine="embedded") as runs:
        (r,) = runs.results
        assert r["pinning"]["allowed_cpus"] == [6, 7]
        assert r["window"]["source"] == "trace"
        mif = [m for m in r["memfreq"] if m["device"] == "17000010.devfreq_mif"]
        assert mif and mif[0]["is_memory"] and mif[0]["source"] == "clock"
        # memlat votes and BTS bandwidth monitors are not the controller.
        assert not any(m["is_memory"] for m in r["memfreq"] if m["device"].startswith("BTS_"))
        assert r["health"]["verdict"] == "fail"


def test_nia_frame_timeline_jank_mix(shared_traces):
    with load_trace(shared_traces / NIA, engine="embedded") as eng:
        counts = dict(eng.query(
            "SELECT layer_name IS NOT NULL AS surface, count(*) AS n "
            "FROM actual_frame_timeline_slice GROUP BY 1").rows())
        assert counts == {0: 801, 1: 1_068}
        mix = dict(eng.query(
            "SELECT jank_type, count(*) FROM actual_frame_timeline_slice "
            "WHERE layer_name IS NOT NULL AND jank_type != 'None' GROUP BY 1").rows())
        assert mix == {"App Deadline Missed": 12, "Buffer Stuffing": 47,
                       "App Deadline Missed, Buffer Stuffing": 5}


def test_nia_app_found_by_layer_name_without_process_tree(shared_traces):
    with artscope.open(shared_traces / NIA, app=NIA_APP, engine="embedded") as runs:
        (r,) = runs.results
        assert r["process"]["matched_by"] == "frame_timeline_layer"
        assert r["jank"]["source"] == "frame_timeline"
        assert r["gc"]["app_cpu_ns"] is None  # no sched data in this trace
        assert r["jank"]["frames"] > 0


def test_trappy_systrace_analyzes(shared_traces):
    with load_trace(shared_traces / "trappy-surfaceflinger.html", engine="embedded") as eng:
        assert eng.query("SELECT count(*) AS n FROM sched")["n"][0] > 0
        assert eng.info.partial is False
