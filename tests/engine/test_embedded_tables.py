"""The embedded engine's tables hold exactly what the fixture schedules say.

Expected values come from fixtures/schedules.py via fixtures/truth.py (never
from artscope code).
"""

from __future__ import annotations

import pytest

import schedules as S
import truth as T

pytest.importorskip("artscope.engines")
from artscope.engines import load_trace  # noqa: E402


_cache: dict[str, object] = {}


def load(fixtures_dir, name):
    if name not in _cache:
        _cache[name] = load_trace(fixtures_dir / f"{name}.pftrace", engine="embedded")
    return _cache[name]


def rows(eng, sql):
    return eng.query(sql).to_dicts()


SCHED_SCENARIOS = [n for n in S.SCENARIOS if n != "no_sched"]


def test_print_ip_above_int63_loads(fixtures_dir):
    eng = load_trace(fixtures_dir / "pinned_clean.pftrace", engine="embedded")
    assert rows(eng, "select count(*) n from sched")[0]["n"] > 0


@pytest.mark.parametrize("name", list(S.SCENARIOS))
def test_trace_bounds(name, fixtures_dir):
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    assert rows(eng, "select start_ts, end_ts from trace_bounds") == [
        dict(zip(("start_ts", "end_ts"), T.trace_bounds(sch)))]


@pytest.mark.parametrize("name", list(S.SCENARIOS))
def test_sched_rows(name, fixtures_dir):
    """Every sched row (incl. swapper rows and the dur -1 last row per CPU)."""
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    got = rows(eng, """
        select s.ts, s.dur, s.cpu, t.tid, s.utid, s.end_state
        from sched s join thread t using (utid) order by s.ts, s.cpu""")
    exp = T.sched_rows(sch)
    assert [(r["ts"], r["dur"], r["cpu"], r["tid"], r["end_state"]) for r in got] == [
        (r.ts, r.dur, r.cpu, r.tid, r.end_state) for r in exp]
    # one utid per schedule thread (tid, gen), distinct across generations
    utid_of: dict = {}
    for g, e in zip(got, exp):
        utid_of.setdefault(e.key, set()).add(g["utid"])
    assert all(len(v) == 1 for v in utid_of.values())
    assert len({next(iter(v)) for v in utid_of.values()}) == len(utid_of)
    assert utid_of.get((0, 0), {0}) == {0}
    # the last slice of every CPU is open
    last = {}
    for r in got:
        last[r["cpu"]] = r
    assert all(r["dur"] == -1 and r["end_state"] is None for r in last.values())


@pytest.mark.parametrize("name", ["pinned_clean", "pinned_late", "pinned_late_compact"])
def test_app_cpu_time_sql(name, fixtures_dir):
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    w0, w1 = sch.window
    got = rows(eng, f"""
        select coalesce(sum(max(0, min(s.ts + s.dur, {w1}) - max(s.ts, {w0}))), 0) ns
        from sched s join thread t using (utid) join process p using (upid)
        where p.name = '{S.APP}' and s.dur != -1""")[0]["ns"]
    assert got == T.cpu_time(sch, T.app_threads(sch, S.APP_PID), sch.window)


def test_tid_reuse_threads_and_processes(fixtures_dir):
    eng = load(fixtures_dir, "tid_reuse")
    th = rows(eng, """
        select t.tid, t.name, t.start_ts, t.end_ts, t.is_main_thread, p.name pname
        from thread t left join process p using (upid) where t.tid >= 2000 order by t.utid""")
    assert th == [
        dict(tid=2000, name="com.old.app", start_ts=None, end_ts=S.t(402), is_main_thread=1, pname="com.old.app"),
        dict(tid=2001, name="OldWorker", start_ts=None, end_ts=S.t(400), is_main_thread=0, pname="com.old.app"),
        dict(tid=2002, name="OldRender", start_ts=None, end_ts=S.t(401), is_main_thread=0, pname="com.old.app"),
        dict(tid=2000, name="com.new.app", start_ts=S.t(500), end_ts=None, is_main_thread=1, pname="com.new.app"),
        dict(tid=2001, name="NewWorker", start_ts=S.t(530), end_ts=None, is_main_thread=0, pname="com.new.app"),
    ]
    pr = rows(eng, """
        select p.pid, p.name, p.start_ts, p.end_ts, p.uid, pp.pid ppid
        from process p left join process pp on p.parent_upid = pp.upid
        where p.pid = 2000 order by p.upid""")
    assert pr == [
        dict(pid=2000, name="com.old.app", start_ts=None, end_ts=S.t(402), uid=10200, ppid=700),
        dict(pid=2000, name="com.new.app", start_ts=S.t(500), end_ts=None, uid=None, ppid=700),
    ]


def test_thread_names_and_kworkers(fixtures_dir):
    eng = load(fixtures_dir, "pinned_clean")
    got = {(r["tid"], r["name"], r["pid"]) for r in rows(eng, """
        select t.tid, t.name, p.pid from thread t left join process p using (upid)
        where t.tid in (1000, 1030, 1031, 80, 90, 1510, 1012)""")}
    assert got == {
        (1000, "m.example.bench", 1000),
        (1012, "RenderThread", 1000),
        (1510, "RenderThread", 1500),
        (1030, "HeapTaskDaemon", 1000),
        # process_tree name (priority 2) beats the 15-char sched comm "Heap thread poo"
        (1031, "Heap thread pool worker #0", 1000),
        (80, "kworker/7:1", None),
        (90, "kworker/u16:2", None),
    }
    procs = {r["pid"]: (r["name"], r["uid"]) for r in rows(eng, "select pid, name, uid from process where pid > 0")}
    assert procs[1000] == (S.APP, S.APP_UID) and procs[1500] == (S.SYSUI, 10050)


def _slice_rows(eng):
    return rows(eng, """
        select s.name, s.ts, s.dur, s.depth, par.name parent, t.tid
        from slice s left join slice par on s.parent_id = par.id
        join thread_track tt on s.track_id = tt.id join thread t using (utid)
        order by s.ts, s.id""")


@pytest.mark.parametrize("name", ["open_at_end", "pinned_clean", "frames", "freq", "no_sched"])
def test_thread_slices(name, fixtures_dir):
    """B/E slices: depth, parent, dur -1 when never closed, unmatched E ignored."""
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    exp = sorted(
        ((s.name, s.ts, s.dur, s.depth, s.parent.name if s.parent else None, s.key[0])
         for s in T.thread_slices(sch) if s.key is not None), key=lambda x: x[1])
    got = [(r["name"], r["ts"], r["dur"], r["depth"], r["parent"], r["tid"]) for r in _slice_rows(eng)]
    assert sorted(got, key=lambda x: (x[1], x[3])) == sorted(exp, key=lambda x: (x[1], x[3]))


def test_async_slices(fixtures_dir):
    eng = load(fixtures_dir, "open_at_end")
    got = rows(eng, """
        select s.name, s.ts, s.dur from slice s join process_track pt on s.track_id = pt.id
        where pt.type = 'atrace_async_slice' order by s.ts""")
    assert got == [dict(name="async-done", ts=S.t(20), dur=70 * S.MS),
                   dict(name="async-open", ts=S.t(40), dur=-1)]


@pytest.mark.parametrize("name", ["pinned_clean", "pinned_late", "freq"])
def test_cpufreq_counters(name, fixtures_dir):
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    got = rows(eng, """
        select t.cpu, c.ts, c.value from counter c join cpu_counter_track t on c.track_id = t.id
        where t.name = 'cpufreq' order by t.cpu, c.ts""")
    exp = []
    for cpu in range(8):
        exp += [dict(cpu=cpu, ts=ts, value=float(v)) for ts, v in T.cpufreq_samples(sch, cpu)]
    key = lambda r: (r["cpu"], r["ts"], r["value"])  # noqa: E731 - equal-ts order is unspecified
    assert sorted(got, key=key) == sorted(exp, key=key)


def test_freq_device_tracks(fixtures_dir):
    eng = load(fixtures_dir, "freq")
    sch = S.load("freq")
    got = rows(eng, """
        select t.name, t.type, c.ts, c.value from counter c join track t on c.track_id = t.id
        where t.type in ('linux_device_frequency', 'clock_frequency',
                         'cpu_max_frequency_limit', 'cpu_min_frequency_limit')
        order by t.name, c.ts""")
    exp = [dict(name=f"devfreq_{d.dev_name}", type="linux_device_frequency", ts=d.ts, value=float(d.freq))
           for d in sch.devfreq]
    exp += [dict(name=f"{c.name} Frequency", type="clock_frequency", ts=c.ts, value=float(c.rate))
            for c in sch.clock_rates]
    exp += [dict(name=f"{k} Frequency", type="clock_frequency", ts=p.ts, value=float(v))
            for p in sch.sys_stats for k, v in p.devfreq]
    for lim in sch.cpufreq_limits:
        exp.append(dict(name=f"Cpu {lim.cpu} Max Freq Limit", type="cpu_max_frequency_limit",
                        ts=lim.ts, value=float(lim.max_khz)))
        exp.append(dict(name=f"Cpu {lim.cpu} Min Freq Limit", type="cpu_min_frequency_limit",
                        ts=lim.ts, value=float(lim.min_khz)))
    exp.sort(key=lambda r: (r["name"], r["ts"]))
    assert got == exp


JANK_NAMES = {1: "None", 4: "Prediction Error", 8: "Display HAL", 16: "SurfaceFlinger CPU Deadline Missed",
              64: "App Deadline Missed", 128: "Buffer Stuffing", 64 | 128: "App Deadline Missed, Buffer Stuffing",
              1024: "Dropped Frame"}
PRESENT = {1: "On-time Present", 2: "Late Present", 4: "Dropped Frame"}


@pytest.mark.parametrize("name", ["frames", "pinned_clean", "no_sched", "open_at_end"])
def test_actual_frame_timeline(name, fixtures_dir):
    eng = load(fixtures_dir, name)
    sch = S.load(name)
    got = rows(eng, """
        select a.name, a.ts, a.dur, a.jank_type, a.present_type, a.layer_name, p.pid
        from actual_frame_timeline_slice a join process p using (upid) order by a.ts, a.name""")
    exp = sorted(
        (dict(name=str(f.token), ts=f.actual_ts,
              dur=-1 if f.actual_end is None else f.actual_end - f.actual_ts,
              jank_type=JANK_NAMES[f.jank_type], present_type=PRESENT[f.present_type],
              layer_name=f.layer_name or None, pid=f.pid) for f in sch.frames),
        key=lambda r: (r["ts"], r["name"]))
    assert got == exp
    n_exp = rows(eng, "select count(*) n from expected_frame_timeline_slice")[0]["n"]
    assert n_exp == len(sch.frames)


def test_no_sched_process_from_atrace(fixtures_dir):
    """No process tree: atrace creates process 1000 with a NULL name."""
    eng = load(fixtures_dir, "no_sched")
    assert rows(eng, "select count(*) n from sched")[0]["n"] == 0
    assert rows(eng, "select pid, name from process where pid = 1000") == [dict(pid=1000, name=None)]


def test_truncated_loads_partially(fixtures_dir):
    eng = load_trace(fixtures_dir / "truncated.pftrace", engine="embedded")
    assert eng.info.partial is True
    assert rows(eng, "select count(*) n from sched")[0]["n"] > 0
