"""GC pauses in each layout ART has shipped, as ART registers them.

Each test builds one GC of HeapTaskDaemon with the slices that ART version
writes (docs/gc-pauses.md cites the source) on a device of a given platform
version, and checks the pause artscope reports against the point where ART
calls RegisterPause, derived by hand from the slices. No sched data: pauses
come from atrace slices only. Times are ms after T0; the trace spans
[0, 300].
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import HTD, MAIN, ms, slice_, t

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]


def _run(tmp_path, request, engine, atrace, **schedule):
    import artscope

    sch = MT.tiny("layout", 300, threads=(MAIN, HTD), atrace=atrace)
    for k, v in schedule.items():
        setattr(sch, k, v)
    path = MT.write(sch, tmp_path)
    tp = request.getfixturevalue("tp_bin") if engine == "trace_processor" else None
    with artscope.open(str(path), app=MT.APP, engine=engine, tp_bin=tp) as rs:
        out = rs.results
    MT.validate(out)
    return out[0]


def _pauses(r):
    return [(p["ts"], p["dur"], p["source"], p["bound"], p["end_slice"])
            for e in r["gc"]["events"] for p in e["pauses"]]


def cc_flip(flip_end: float | None = 112.0):
    """A CC GC [100,150) whose flip [102,112) writes the ART 8-14 children:
    (Paused)FlipCallback [102.5,104.5), ResumeRunnableThreads [104.5,104.8),
    FlipOtherThreads [104.8,111), ResumeOtherThreads [111,111.5)."""
    return (slice_(HTD, "Background concurrent copying GC", 100, 150)
            + slice_(HTD, "ThreadListFlip", 102, flip_end)
            + slice_(HTD, "(Paused)FlipCallback", 102.5, 104.5)
            + slice_(HTD, "(Paused)SetFromSpace", 102.5, 103)
            + slice_(HTD, "ResumeRunnableThreads", 104.5, 104.8)
            + slice_(HTD, "FlipOtherThreads", 104.8, 111)
            + slice_(HTD, "ResumeOtherThreads", 111, 111.5)
            + slice_(HTD, "CopyingPhase", 113, 140))


@pytest.mark.parametrize("engine", ENGINES)
def test_android_13_flip_ends_with_the_callback(tmp_path, request, engine):
    # SDK 33: RegisterPause right after the flip callback -> [102, 104.5) = 2.5 ms of
    # the 10 ms flip slice
    r = _run(tmp_path, request, engine, cc_flip(), sdk_version=33)
    assert _pauses(r) == [(t(102), ms(2.5), "thread_list_flip", "exact", "(Paused)FlipCallback")]
    assert r["gc"]["pause_max_ns"] == ms(2.5)
    assert "gc_pause_upper_bound" not in MT.reason_ids(r)


@pytest.mark.parametrize("engine", ENGINES)
def test_android_14_flip_ends_after_resume_runnable_threads(tmp_path, request, engine):
    # SDK 34: RegisterPause after the ResumeRunnableThreads block -> [102, 104.8)
    r = _run(tmp_path, request, engine, cc_flip(), sdk_version=34,
             build_fingerprint="google/husky/husky:14/UQ1A.240205.004/11269751:user/release-keys")
    assert _pauses(r) == [(t(102), ms(2.8), "thread_list_flip", "exact", "ResumeRunnableThreads")]


def test_release_from_the_fingerprint_without_sdk_version(tmp_path, request):
    # no SDK version; the fingerprint says Android 14 -> as SDK 34
    r = _run(tmp_path, request, "embedded", cc_flip(), sdk_version=None,
             build_fingerprint="google/husky/husky:14/UQ1A.240205.004/11269751:user/release-keys")
    assert _pauses(r) == [(t(102), ms(2.8), "thread_list_flip", "exact", "ResumeRunnableThreads")]


@pytest.mark.parametrize("engine", ENGINES)
def test_unknown_release_takes_the_callback_as_a_lower_bound(tmp_path, request, engine):
    # neither SDK version nor fingerprint (as in a systrace): ART 13 would register
    # [102, 104.5), ART 14 [102, 104.8): the shorter, marked a lower bound
    r = _run(tmp_path, request, engine, cc_flip(), sdk_version=None, build_fingerprint="")
    assert _pauses(r) == [(t(102), ms(2.5), "thread_list_flip", "lower", "(Paused)FlipCallback")]


@pytest.mark.parametrize("engine", ENGINES)
def test_android_15_flip_ends_after_resuming_mutator_threads(tmp_path, request, engine):
    # ART 15 layout, here on an Android 13 platform (ART is a Mainline module): the
    # flip [102, 106.18) holds ThreadFlipSuspendAll, FlipThreadSuspension (holding the
    # callback), Resuming mutator threads [104.2, 104.46) and RunningThreadFlips.
    # RegisterPause follows ResumeAllInternal -> [102, 104.46) = 2.46 ms.
    atrace = (slice_(HTD, "Young concurrent copying GC", 100, 150)
              + slice_(HTD, "ThreadListFlip", 102, 106.18)
              + slice_(HTD, "ThreadFlipSuspendAll", 102.01, 102.3)
              + slice_(HTD, "FlipThreadSuspension", 102.3, 104.2)
              + slice_(HTD, "(Paused)FlipCallback", 102.31, 104.1)
              + slice_(HTD, "Resuming mutator threads", 104.2, 104.46)
              + slice_(HTD, "RunningThreadFlips", 104.46, 106.17))
    r = _run(tmp_path, request, engine, atrace, sdk_version=33)
    assert _pauses(r) == [(t(102), ms(2.46), "thread_list_flip", "exact",
                           "Resuming mutator threads")]


@pytest.mark.parametrize("engine", ENGINES)
def test_cmc_marking_and_compaction_pauses(tmp_path, request, engine):
    # CMC on an Android 13 platform: CMC shipped with ART 14, so its compaction flip
    # ends after ResumeRunnableThreads. Marking pause (ScopedPause): Suspending
    # [120,120.4), Mutator threads suspended for ScopedPause [120.4,123), Resuming
    # [123,123.1) -> [120, 123) = 3 ms. Flip [130,136): CompactionPause [130,132),
    # ResumeRunnableThreads [132,132.5) -> [130, 132.5) = 2.5 ms.
    atrace = (slice_(HTD, "Background concurrent mark compact GC", 100, 150)
              + slice_(HTD, "MarkingPhase", 101, 119)
              + slice_(HTD, "Suspending mutator threads", 120, 120.4)
              + slice_(HTD, "Mutator threads suspended for ScopedPause", 120.4, 123)
              + slice_(HTD, "(Paused)MarkingPause", 120.5, 122.9)
              + slice_(HTD, "Resuming mutator threads", 123, 123.1)
              + slice_(HTD, "ThreadListFlip", 130, 136)
              + slice_(HTD, "CompactionPause", 130, 132)
              + slice_(HTD, "(Paused)UpdateRoots", 130.5, 131.5)
              + slice_(HTD, "ResumeRunnableThreads", 132, 132.5)
              + slice_(HTD, "FlipOtherThreads", 132.5, 135.5))
    r = _run(tmp_path, request, engine, atrace, sdk_version=33)
    assert _pauses(r) == [
        (t(120), ms(3), "suspend_all", "exact", "Mutator threads suspended for ScopedPause"),
        (t(130), ms(2.5), "thread_list_flip", "exact", "ResumeRunnableThreads")]
    assert (r["gc"]["pause_count"], r["gc"]["pause_total_ns"]) == (2, ms(5.5))


@pytest.mark.parametrize("engine", ENGINES)
def test_cms_suspend_all(tmp_path, request, engine):
    # Concurrent mark sweep (pre-CC ART): its pause phase under ScopedPause.
    # Suspending [110,110.9), suspended for ScopedPause [110.9,114), Resuming
    # [114.01,114.07) -> [110, 114) = 4 ms
    atrace = (slice_(HTD, "Background sticky concurrent mark sweep GC", 100, 140)
              + slice_(HTD, "MarkingPhase", 100.1, 109)
              + slice_(HTD, "Suspending mutator threads", 110, 110.9)
              + slice_(HTD, "Mutator threads suspended for ScopedPause", 110.9, 114)
              + slice_(HTD, "(Paused)PausePhase", 110.91, 113.9)
              + slice_(HTD, "Resuming mutator threads", 114.01, 114.07)
              + slice_(HTD, "ReclaimPhase", 115, 139))
    r = _run(tmp_path, request, engine, atrace, sdk_version=25)
    assert _pauses(r) == [(t(110), ms(4), "suspend_all", "exact",
                           "Mutator threads suspended for ScopedPause")]


@pytest.mark.parametrize("engine", ENGINES)
def test_flip_without_markers_is_an_upper_bound(tmp_path, request, engine):
    # a flip [102,112) with nothing inside: the whole slice, at most that long; the
    # run says so in an info reason (the verdict does not change for it)
    atrace = (slice_(HTD, "Background concurrent copying GC", 100, 150)
              + slice_(HTD, "ThreadListFlip", 102, 112)
              + slice_(HTD, "CopyingPhase", 113, 140))
    r = _run(tmp_path, request, engine, atrace)
    assert _pauses(r) == [(t(102), ms(10), "thread_list_flip", "upper", "ThreadListFlip")]
    assert MT.reason_ids(r)["gc_pause_upper_bound"] == "info"
