"""No silent unknowns: every headline metric that is null has a reason, and
the verdict is never pass while one is unknown."""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import MAIN, ClockRate, CpuFreq, run, t

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def _open(path, engine, **kw):
    import artscope

    with artscope.open(str(path), engine=engine, **kw) as rs:
        MT.validate(rs.results)
        return rs.results


def _steady(end_ms: float, **fields):
    """Main thread on CPU 6 for [10, end-10) ms; CPU 6 and the memory
    controller at one frequency throughout: everything but what a test
    removes is known and fine."""
    return dict(runs=[run(6, 10, end_ms - 10, MAIN)],
                cpufreq=[CpuFreq(t(0), 6, 2_800_000), CpuFreq(t(end_ms), 6, 2_800_000)],
                clock_rates=[ClockRate(t(0), MT.S.MIF, 3_172_000)], **fields)


@pytest.mark.parametrize("engine", ENGINES)
def test_nia_without_sched_names_every_unknown(shared_traces, engine):
    # nia-sidky: frame timeline and app atrace only (no sched, no cpufreq, no
    # GC slices, no memory-controller clock).
    (r,) = _open(shared_traces / "nia-sidky.perfetto-trace", engine,
                 app="com.google.samples.apps.nowinandroid.demo")
    assert (r["gc"]["app_cpu_ns"], r["gc"]["gc_cpu_share"], r["gc"]["gc_count"]) == (None, None, None)
    assert (r["pinning"]["off_mask_share"], r["pinning"]["migrations"]) == (None, None)
    ids = MT.reason_ids(r)
    assert {k: ids.get(k) for k in ("sched_missing", "gc_missing", "cpufreq_missing",
                                    "memfreq_missing")} == dict.fromkeys(
        ("sched_missing", "gc_missing", "cpufreq_missing", "memfreq_missing"), "warn")
    assert r["jank"]["frames"] > 0 and "jank_missing" not in ids
    assert r["health"]["verdict"] == "warn"


@pytest.mark.parametrize("engine", ENGINES)
def test_systrace_without_gc_slices_says_so(shared_traces, engine):
    # trappy: surfaceflinger ran (sched is there) but the trace has no GC slice.
    (r,) = _open(shared_traces / "trappy-surfaceflinger.html", engine,
                 app="surfaceflinger", cpus="4-7")
    assert r["gc"]["app_cpu_ns"] > 0 and r["gc"]["gc_cpu_share"] is None
    assert MT.reason_ids(r)["gc_missing"] == "warn"
    assert r["health"]["verdict"] != "pass"


def test_an_app_without_cpu_in_its_window_fails(tmp_path):
    # main runs [10, 20) only; W = [50, 100): the app used 0 ns in W.
    sch = MT.tiny("idle_app", 120, **{**_steady(120), "runs": [run(6, 10, 20, MAIN)]})
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6", window="+50ms:+100ms")
    assert r["gc"]["app_cpu_ns"] == 0 and r["gc"]["gc_cpu_share"] is None
    assert MT.reason_ids(r)["no_app_cpu"] == "fail"
    assert r["health"]["verdict"] == "fail"


def test_a_headless_app_passes_with_a_note_on_jank(tmp_path):
    # The recorded config has the frame timeline data source; the app drew no
    # frame: jank does not apply (info), the run still passes.
    sch = MT.tiny("headless", 200, **_steady(200))
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6")
    assert r["jank"]["frames"] in (None, 0)
    assert MT.reason_ids(r)["jank_not_applicable"] == "info"
    assert (r["health"]["verdict"], MT.judged_reasons(r)) == ("pass", [])


def test_no_frame_data_at_all_is_unknown_jank(tmp_path):
    # Neither frames nor a frame data source in the config: cannot tell.
    sch = MT.tiny("no_frames", 200, **_steady(200, data_sources=(
        "linux.ftrace", "linux.process_stats", "android.packages_list", "linux.system_info")))
    (r,) = MT.analyze(MT.write(sch, tmp_path), cpus="6")
    assert MT.judged_reasons(r) == [("jank_missing", "warn")]
    assert r["health"]["verdict"] == "warn"


def test_no_cpus_given_is_not_a_pass(tmp_path):
    sch = MT.tiny("no_cpus", 200, **_steady(200))
    (r,) = MT.analyze(MT.write(sch, tmp_path))
    assert r["pinning"]["off_mask_share"] is None
    assert MT.judged_reasons(r) == [("pinning_unchecked", "warn")]
