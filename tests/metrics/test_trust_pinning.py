"""Off-mask time diagnosed from the schedule: pinned late, mask lost, or no
mask seen; a story only with evidence (a stretch on the allowed CPU of at
least 0.5 s holding at least 25% of the app's CPU so far, or affinity /
cgroup events at its ends). W = [100, 1100) ms unless said; allowed CPU 6;
the main thread is the only app thread and runs without a gap, so its CPU
time so far is the time since W's start and every "at" below is plain
arithmetic on the schedule."""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import MAIN, CpuFreq, run, t

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]
W = "+100ms:+1100ms"


def _run(tmp_path, engine, name, runs):
    sch = MT.tiny(name, 1200, runs=runs,
                  cpufreq=[CpuFreq(t(0), c, 2_800_000) for c in (2, 6)]
                  + [CpuFreq(t(1200), 6, 2_800_000)])
    path = MT.write(sch, tmp_path)
    if engine == "embedded":
        (r,) = MT.analyze(path, cpus="6", window=W)
        return r
    import artscope

    with artscope.open(str(path), app=MT.APP, cpus="6", window=W, engine=engine) as rs:
        return rs.results[0]


def _off_mask(r):
    (x,) = [x for x in r["health"]["reasons"] if x["id"] == "off_mask_cpu"]
    return x


@pytest.mark.parametrize("engine", ENGINES)
def test_a_second_entirely_off_the_allowed_cpus_shows_no_mask(tmp_path, engine):
    # main on CPU 2 for all of W: no stretch on CPU 6 at all.
    r = _run(tmp_path, engine, "never", [run(2, 100, 1100, MAIN)])
    p = r["pinning"]
    assert (p["off_mask_cpu_ns"], p["diagnosis"], p["diagnosis_ts"]) == (1000 * MT.MS, "no_mask_seen", None)
    msg = _off_mask(r)["message"]
    assert "no mask seen" in msg and "late" not in msg and "lost" not in msg
    assert "no stretch of 0.5 s or more on the allowed CPUs only holding 25% of its CPU" in msg


@pytest.mark.parametrize("engine", ENGINES)
def test_pinned_late(tmp_path, engine):
    # CPU 2 [100, 400), then CPU 6 [400, 1100): off-mask until +300 ms, then a
    # 700 ms stretch on CPU 6 (70% of the app's 1000 ms so far >= 25%).
    r = _run(tmp_path, engine, "late", [run(2, 100, 400, MAIN), run(6, 400, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"], p["relapse_ts"]) == ("pinned_late", t(400), None)
    assert "pinning took effect late (at +0.300 s: off the allowed CPUs until then, then on " \
        "them only for 0.7 s, 70% of its CPU so far)" in _off_mask(r)["message"]


@pytest.mark.parametrize("engine", ENGINES)
def test_mask_lost_mid_run(tmp_path, engine):
    # CPU 6 [100, 600): 500 ms, all of the app's CPU so far; then CPU 2.
    r = _run(tmp_path, engine, "lost", [run(6, 100, 600, MAIN), run(2, 600, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"]) == ("mask_lost", t(600))
    msg = _off_mask(r)["message"]
    assert "the mask was lost at +0.500 s: the app ran only on the allowed CPUs until then " \
        "(0.5 s, 100% of its CPU so far) — something reset it" in msg


@pytest.mark.parametrize("engine", ENGINES)
def test_pinned_late_then_lost_again(tmp_path, engine):
    # CPU 2 [100, 300), CPU 6 [300, 800), CPU 2 [800, 1100): pinned at +200 ms
    # (500 ms, 500 of 700 ms so far), off the mask again from +700 ms.
    r = _run(tmp_path, engine, "relapse",
             [run(2, 100, 300, MAIN), run(6, 300, 800, MAIN), run(2, 800, 1100, MAIN)])
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"], p["relapse_ts"]) == ("pinned_late", t(300), t(800))
    msg = _off_mask(r)["message"]
    assert "(at +0.200 s" in msg and "again from +0.700 s" in msg


def test_short_stretches_on_the_allowed_cpu_are_not_pinning(tmp_path):
    # Alternating 50 ms on CPU 2 and CPU 6: each clean stretch lasts 50 ms
    # (< 500 ms): an unpinned app that sometimes lands on CPU 6.
    runs = [run(2 if k % 2 == 0 else 6, 100 + 50 * k, 150 + 50 * k, MAIN) for k in range(20)]
    r = _run(tmp_path, "embedded", "alternating", runs)
    assert r["pinning"]["diagnosis"] == "no_mask_seen"
    assert r["pinning"]["off_mask_cpu_ns"] == 500 * MT.MS


def test_the_committed_late_fixture_reads_the_same_in_the_api_and_the_cli(fixtures_dir):
    # pinned_late: the mask applied ~1.2 s into W, a worker escaping later.
    import subprocess
    import sys

    (r,) = MT.analyze(fixtures_dir / "pinned_late.pftrace", cpus="6,7")
    assert r["pinning"]["diagnosis"] == "pinned_late"
    msg = _off_mask(r)["message"]
    out = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze",
                          str(fixtures_dir / "pinned_late.pftrace"), "--app", MT.APP,
                          "--cpus", "6,7", "--engine", "embedded"],
                         capture_output=True, text=True, check=False)
    assert msg in " ".join(out.stdout.split())


# -- an unpinned app, prefixes, and events ------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unpinned_app_with_a_stretch_on_the_allowed_cpu_shows_no_mask(tmp_path, engine):
    # W = [100, 3100): CPU 2 [100, 2400), CPU 6 [2400, 3000), CPU 2 [3000,
    # 3100). The 600 ms on CPU 6 hold 600 of the 2900 ms so far (20.7% < 25%):
    # the scheduler's choice, not a mask.
    sch = MT.tiny("stray", 3200, runs=[run(2, 100, 2400, MAIN), run(6, 2400, 3000, MAIN),
                                       run(2, 3000, 3100, MAIN)],
                  cpufreq=[CpuFreq(t(0), c, 2_800_000) for c in (2, 6)]
                  + [CpuFreq(t(3200), 6, 2_800_000)])
    (r,) = _analyze(MT.write(sch, tmp_path), engine, window="+100ms:+3100ms")
    p = r["pinning"]
    assert (p["off_mask_cpu_ns"], p["diagnosis"], p["pinned_stretch"]) == (
        2400 * MT.MS, "no_mask_seen", None)


def _analyze(path, engine, **kw):
    if engine == "embedded":
        return MT.analyze(path, cpus="6", **kw)
    import artscope

    with artscope.open(str(path), app=MT.APP, cpus="6", engine=engine, **kw) as rs:
        return rs.results


def _cut(name: str, runs: list, end_ms: float):
    """The app's runs as a trace recorded until ``end_ms``: a run still going
    then is open (sched dur -1), as in a trace cut there."""
    kept = [x for x in runs if x.ts < t(end_ms)]
    kept = [x if x.end is not None and x.end <= t(end_ms) else MT.Run(x.cpu, x.ts, None, x.tid)
            for x in kept]
    return MT.tiny(name, end_ms, runs=kept,
                   cpufreq=[CpuFreq(t(0), c, 2_800_000) for c in (2, 6)]
                   + [CpuFreq(t(end_ms), 6, 2_800_000)])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_prefix_of_a_never_pinned_trace_tells_no_story(tmp_path, engine):
    # The app runs from 10 ms on: CPU 2, then CPU 6 [1400, 1650) by chance
    # (250 ms), then CPU 2 to 2990 ms. The whole trace (W = [0, 3000)) and
    # its first 1800 ms see the same 250 ms stretch: too short to show a mask
    # in either (under a share of all of W it held 8% of the whole trace's
    # CPU but 14% of the prefix's, and the two would disagree).
    runs = [run(2, 10, 1400, MAIN), run(6, 1400, 1650, MAIN), run(2, 1650, 2990, MAIN)]
    for name, end in (("whole", 3000), ("prefix", 1800)):
        (r,) = _analyze(MT.write(_cut(name, runs, end), tmp_path), engine)
        assert r["window"]["end_ts"] == t(end)
        assert (r["pinning"]["diagnosis"], r["pinning"]["pinned_stretch"]) == ("no_mask_seen", None)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_prefix_tells_the_start_of_the_whole_story(tmp_path, engine):
    # CPU 2 [10, 1400), CPU 6 [1400, 2100) (700 ms, 700 of 2090 ms so far:
    # 33%), CPU 2 [2100, 2990). The whole trace: pinned late at 1400 ms, lost
    # again at 2100 ms. Cut at 2000 ms the stretch is 600 ms, 600 of 1990 ms
    # (30%): pinned late at 1400 ms, nothing said about what came after.
    runs = [run(2, 10, 1400, MAIN), run(6, 1400, 2100, MAIN), run(2, 2100, 2990, MAIN)]
    (whole,) = _analyze(MT.write(_cut("whole_late", runs, 3000), tmp_path), engine)
    (prefix,) = _analyze(MT.write(_cut("prefix_late", runs, 2000), tmp_path), engine)
    w, p = whole["pinning"], prefix["pinning"]
    assert (w["diagnosis"], w["diagnosis_ts"], w["relapse_ts"]) == ("pinned_late", t(1400), t(2100))
    assert (p["diagnosis"], p["diagnosis_ts"], p["relapse_ts"]) == ("pinned_late", t(1400), None)
    assert w["pinned_stretch"]["cpu_share"] == pytest.approx(700 / 2090, rel=1e-12)
    assert p["pinned_stretch"]["cpu_share"] == pytest.approx(600 / 1990, rel=1e-12)


def _with_cgroup_move(sch, tmp_path, ms: float, tid: int, dst: str):
    """The schedule's trace plus ftrace cgroup_attach_task of ``tid`` at ``ms``
    (written by pid 1, on CPU 0), and a recorded config listing it."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    import make_fixtures as M

    sch.ftrace_events = tuple(sch.ftrace_events) + ("cgroup/cgroup_attach_task",)
    extra = pb.Trace()
    pkt = extra.packet.add()
    pkt.trusted_packet_sequence_id = 31
    bundle = pkt.ftrace_events
    bundle.cpu = 0
    ev = bundle.event.add()
    ev.timestamp, ev.pid = t(ms), 1
    ev.cgroup_attach_task.pid = tid
    ev.cgroup_attach_task.comm = "m.example.bench"
    ev.cgroup_attach_task.dst_path = dst
    path = tmp_path / f"{sch.name}.pftrace"
    path.write_bytes(M.build(sch) + extra.SerializeToString())
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_a_cgroup_move_explains_a_short_stretch(tmp_path, engine):
    # W = [100, 1100): CPU 6 [100, 300), a cgroup move of the main thread to
    # /top-app at 305 ms, CPU 2 [310, 1100). 200 ms on CPU 6 show no mask by
    # themselves; the move just before the app left CPU 6 does: the mask
    # (a cpuset) was lost at 310 ms.
    sch = MT.tiny("moved", 1200, runs=[run(6, 100, 300, MAIN), run(2, 310, 1100, MAIN)],
                  cpufreq=[CpuFreq(t(0), c, 2_800_000) for c in (2, 6)]
                  + [CpuFreq(t(1200), 6, 2_800_000)])
    (r,) = _analyze(_with_cgroup_move(sch, tmp_path, 305, MAIN, "/top-app"), engine, window=W)
    p = r["pinning"]
    assert (p["diagnosis"], p["diagnosis_ts"]) == ("mask_lost", t(310))
    st = p["pinned_stretch"]
    assert (st["start_ts"], st["end_ts"], st["cpu_ns"], st["substantial"]) == (t(100), t(310), None, False)
    assert [(e["ts"], e["kind"], e["detail"]) for e in st["events"]] == [
        (t(305), "cgroup_attach_task", "/top-app")]
    assert "the mask was lost at +0.210 s: the app ran only on the allowed CPUs until then " \
        "(0.21 s) — cgroup_attach_task of tid 1000 at +0.205 s (to /top-app) reset it" \
        in _off_mask(r)["message"]


def _prefix(src, dst, share: float) -> None:
    """``src`` as recorded until ``share`` of its time span: every ftrace
    event (compact_sched arrays included) and timed packet before the cut."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    trace = pb.Trace.FromString(src.read_bytes())

    def switch_times(cs):
        ts = 0
        for d in cs.switch_timestamp:
            ts += d
            yield ts

    times = [p.timestamp for p in trace.packet if p.timestamp]
    for p in trace.packet:
        times += [e.timestamp for e in p.ftrace_events.event]
        times += list(switch_times(p.ftrace_events.compact_sched))
    lo, hi = min(times), max(times)
    cut = lo + int((hi - lo) * share)
    out = pb.Trace()
    for p in trace.packet:
        if p.HasField("ftrace_events"):
            q = out.packet.add()
            q.CopyFrom(p)
            del q.ftrace_events.event[:]
            q.ftrace_events.event.extend(e for e in p.ftrace_events.event if e.timestamp < cut)
            for kind in ("switch", "waking"):
                stamps, kept = 0, 0
                for d in getattr(p.ftrace_events.compact_sched, f"{kind}_timestamp"):
                    stamps += d
                    kept += stamps < cut
                for f in q.ftrace_events.compact_sched.DESCRIPTOR.fields:
                    if f.name.startswith(kind + "_"):
                        values = list(getattr(q.ftrace_events.compact_sched, f.name))[:kept]
                        del getattr(q.ftrace_events.compact_sched, f.name)[:]
                        getattr(q.ftrace_events.compact_sched, f.name).extend(values)
        elif not (p.timestamp and p.timestamp >= cut):
            out.packet.add().CopyFrom(p)
    dst.write_bytes(out.SerializeToString())


@pytest.mark.parametrize("engine", ENGINES)
def test_the_api32_trace_and_its_prefix_tell_the_same_story(shared_traces, tmp_path, engine):
    # A warm start-up nobody pinned (Pixel 6a). On the big CPUs 6-7 it never
    # held a mask: no mask seen, whole or cut to 60%. On the little CPUs 0-3
    # it ran alone until +0.489 s, when a cgroup move at +0.488 s (to
    # /top-app) let it onto the other CPUs: the mask (a cpuset) was lost
    # there, in both.
    import artscope

    whole = shared_traces / "perfskills-api32_startup_warm.perfetto-trace"
    cut = tmp_path / "api32_60.pftrace"
    _prefix(whole, cut, 0.6)
    app = "androidx.benchmark.integration.macrobenchmark.target"
    for cpus, diagnosis in (("6,7", "no_mask_seen"), ("0-3", "mask_lost")):
        told = []
        for path in (whole, cut):
            with artscope.open(str(path), app=app, cpus=cpus, engine=engine) as rs:
                (r,) = rs.results
            p = r["pinning"]
            told.append((p["diagnosis"], p["diagnosis_ts"],
                         p["diagnosis_ts"] and p["diagnosis_ts"] - r["window"]["start_ts"]))
        assert told[0] == told[1]
        assert told[0][0] == diagnosis
    # the first off-mask slice, 1.13 ms after the move, ends the little stretch
    assert told[0][2] == 489_497_197
