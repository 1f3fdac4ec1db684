"""The fixture traces: reproducible, well-formed, and their truths hand-checked."""

from __future__ import annotations

import gzip
from collections import Counter

import pytest
from google.protobuf.message import DecodeError
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

import make_fixtures as M
import schedules as S
import truth as T

MS = S.MS
NAMES = list(S.SCENARIOS)


@pytest.fixture(scope="module")
def outputs() -> dict[str, bytes]:
    return M.all_outputs()


def _parse(path) -> pb.Trace:
    tr = pb.Trace()
    tr.ParseFromString(path.read_bytes())
    return tr


# ---------------------------------------------------------------------------
# (a) reproducible
# ---------------------------------------------------------------------------


def test_regeneration_is_byte_identical(outputs, fixtures_dir):
    committed = {p.name for p in fixtures_dir.iterdir() if p.name.endswith((".pftrace", ".pftrace.gz"))}
    assert committed == set(outputs), "run: python3 fixtures/make_fixtures.py"
    for name, data in outputs.items():
        on_disk = (fixtures_dir / name).read_bytes()
        if name.endswith(".gz"):
            # zlib's exact output may differ between zlib builds: compare content + header
            assert gzip.decompress(on_disk) == gzip.decompress(data), name
            assert on_disk[4:8] == b"\0\0\0\0", "gzip mtime must be 0"
        else:
            assert on_disk == data, f"{name} differs: run python3 fixtures/make_fixtures.py"
        assert len(on_disk) < 200_000, name


def test_generation_is_deterministic():
    assert M.build(S.load("pinned_clean")) == M.build(S.load("pinned_clean"))


def test_gzip_and_truncated_copies(fixtures_dir):
    clean = (fixtures_dir / "pinned_clean.pftrace").read_bytes()
    assert gzip.decompress((fixtures_dir / "pinned_clean.pftrace.gz").read_bytes()) == clean
    cut = (fixtures_dir / "truncated.pftrace").read_bytes()
    assert clean.startswith(cut) and len(cut) < len(clean)
    with pytest.raises(DecodeError):
        pb.Trace().ParseFromString(cut)


# ---------------------------------------------------------------------------
# (b) the traces contain what the schedules say
# ---------------------------------------------------------------------------


def _ftrace(tr: pb.Trace):
    for p in tr.packet:
        if p.HasField("ftrace_events"):
            yield p.ftrace_events


@pytest.mark.parametrize("name", NAMES)
def test_ftrace_content_matches_schedule(name, fixtures_dir):
    sch = S.load(name)
    tr = _parse(fixtures_dir / f"{name}.pftrace")
    switches: Counter = Counter()
    compact: Counter = Counter()
    kinds: Counter = Counter()
    for b in _ftrace(tr):
        assert not b.HasField("previous_bundle_end_timestamp")
        if b.HasField("compact_sched"):
            cs = b.compact_sched
            n = len(cs.switch_timestamp)
            assert n == len(cs.switch_prev_state) == len(cs.switch_next_pid) == len(
                cs.switch_next_prio) == len(cs.switch_next_comm_index)
            assert max(cs.switch_next_comm_index) < len(cs.intern_table)
            compact[b.cpu] += n
        for ev in b.event:
            kind = ev.WhichOneof("event")
            kinds[kind] += 1
            if kind == "sched_switch":
                switches[b.cpu] += 1
    for cpu in sch.used_cpus():
        n_runs = len(sch.cpu_runs(cpu))
        if sch.compact_sched:
            assert compact[cpu] == n_runs  # one switch per run incl. the leading idle one
            assert switches[cpu] == 0
        else:
            assert switches[cpu] == n_runs - 1  # the leading idle run has no event
    assert kinds["print"] == len(sch.atrace)
    assert kinds["cpu_frequency"] == len(sch.cpufreq)
    assert kinds["cpu_frequency_limits"] == len(sch.cpufreq_limits)
    assert kinds["devfreq_frequency"] == len(sch.devfreq)
    assert kinds["clock_set_rate"] == len(sch.clock_rates)
    assert kinds["task_newtask"] + kinds["task_rename"] + kinds["sched_process_free"] == len(
        sch.task_events)
    assert sum(1 for p in tr.packet if p.HasField("sys_stats")) == len(sch.sys_stats)
    assert not any(p.HasField("service_event") for p in tr.packet)
    assert sum(1 for p in tr.packet if p.HasField("process_tree")) == int(sch.with_process_tree)


def test_compact_sched_decodes_to_same_switches(fixtures_dir):
    """pinned_late_compact's arrays decode (delta timestamps, intern table) to the
    same switch sequence as pinned_late's sched_switch events, plus one leading
    switch per CPU."""
    regular: dict[int, list] = {}
    for b in _ftrace(_parse(fixtures_dir / "pinned_late.pftrace")):
        for ev in b.event:
            if ev.WhichOneof("event") == "sched_switch":
                sw = ev.sched_switch
                regular.setdefault(b.cpu, []).append(
                    (ev.timestamp, sw.prev_state, sw.next_pid, sw.next_prio, sw.next_comm))
    comp: dict[int, list] = {}
    for b in _ftrace(_parse(fixtures_dir / "pinned_late_compact.pftrace")):
        cs = b.compact_sched
        ts = 0
        for i in range(len(cs.switch_timestamp)):
            ts += cs.switch_timestamp[i]
            comp.setdefault(b.cpu, []).append(
                (ts, cs.switch_prev_state[i], cs.switch_next_pid[i], cs.switch_next_prio[i],
                 cs.intern_table[cs.switch_next_comm_index[i]]))
    assert sorted(comp) == sorted(regular) == list(range(8))
    for cpu in range(8):
        first = comp[cpu][0]
        assert first == (S.T0, 0, 0, 120, f"swapper/{cpu}")
        assert comp[cpu][1:] == sorted(regular[cpu])


# --- field 76 ----------------------------------------------------------------


def _read_varint(buf: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def _fields(buf: bytes) -> list[tuple[int, int | bytes]]:
    out, i = [], 0
    while i < len(buf):
        key, i = _read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _read_varint(buf, i)
        elif wt == 2:
            n, i = _read_varint(buf, i)
            v, i = buf[i:i + n], i + n
        else:
            raise AssertionError(f"unexpected wire type {wt}")
        out.append((num, v))
    return out


def _frame_events(tr: pb.Trace) -> list[tuple[int, int, dict]]:
    """(packet ts, FrameTimelineEvent oneof number, {field: value}) per packet."""
    out = []
    for p in tr.packet:
        raw = p.SerializeToString()
        for num, v in _fields(raw):
            if num == 76:
                (kind, body), = _fields(v)
                fields = {}
                for fnum, fv in _fields(body):
                    fields[fnum] = fv.decode() if isinstance(fv, bytes) else fv
                out.append((p.timestamp, kind, fields))
    return out


def test_varint_encoder_roundtrip():
    for v in (0, 1, 127, 128, 300, 2**32, 2**63 - 1):
        assert _read_varint(M.varint(v), 0) == (v, len(M.varint(v)))


@pytest.mark.parametrize("name", ["frames", "pinned_clean", "open_at_end", "no_sched", "choreographer_only"])
def test_frame_timeline_field76_decodes(name, fixtures_dir):
    sch = S.load(name)
    evs = _frame_events(_parse(fixtures_dir / f"{name}.pftrace"))
    by_kind = Counter(k for _, k, _ in evs)
    surf = [f for f in sch.frames if f.kind == "surface"]
    disp = [f for f in sch.frames if f.kind == "display"]
    assert by_kind[1] == by_kind[2] == len(disp)
    assert by_kind[3] == by_kind[4] == len(surf)
    # every expected frame ends, actual frames end unless unfinished
    assert by_kind[5] == 2 * len(sch.frames) - sum(f.actual_end is None for f in sch.frames)
    actual_surface = sorted((ts, f[2], f[9], f[6], f[5]) for ts, k, f in evs if k == 4)
    assert actual_surface == sorted(
        (f.actual_ts, f.token, f.jank_type, f.present_type, f.layer_name) for f in surf)
    # FrameEnd cookies match start cookies
    starts = {f[1]: ts for ts, k, f in evs if k in (1, 2, 3, 4)}
    ends = {f[1]: ts for ts, k, f in evs if k == 5}
    assert set(ends) <= set(starts) and all(ends[c] >= starts[c] for c in ends)


def test_process_tree_and_metadata(fixtures_dir):
    tr = _parse(fixtures_dir / "pinned_clean.pftrace")
    (pt,) = [p.process_tree for p in tr.packet if p.HasField("process_tree")]
    procs = {p.pid: (p.ppid, list(p.cmdline), p.uid) for p in pt.processes}
    assert procs[1000] == (700, ["com.example.bench"], 10123)
    assert procs[1500] == (700, ["com.android.systemui"], 10050)
    threads = {t.tid: (t.tgid, t.name) for t in pt.threads}
    assert threads[1031] == (1000, "Heap thread pool worker #0")
    assert 80 not in threads and 90 not in threads  # kworkers have no process
    (si,) = [p.system_info for p in tr.packet if p.HasField("system_info")]
    assert si.utsname.sysname == "Linux" and si.utsname.release.startswith("5.10.")
    (ci,) = [p.cpu_info for p in tr.packet if p.HasField("cpu_info")]
    assert [max(c.frequencies) for c in ci.cpus] == [1_800_000] * 4 + [2_200_000] * 2 + [2_800_000] * 2
    (pl,) = [p.packages_list for p in tr.packet if p.HasField("packages_list")]
    assert ("com.example.bench", 10123) in [(x.name, x.uid) for x in pl.packages]
    (tc,) = [p.trace_config for p in tr.packet if p.HasField("trace_config")]
    assert "sched/sched_switch" in tc.data_sources[0].config.ftrace_config.ftrace_events


def test_no_sched_has_no_sched_and_no_process_tree(fixtures_dir):
    tr = _parse(fixtures_dir / "no_sched.pftrace")
    assert not any(p.HasField("process_tree") for p in tr.packet)
    for b in _ftrace(tr):
        assert not b.HasField("compact_sched")
        assert {ev.WhichOneof("event") for ev in b.event} == {"print"}
    assert any(p.HasField("packages_list") for p in tr.packet)


def test_open_at_end_bundles_out_of_order(fixtures_dir):
    tr = _parse(fixtures_dir / "open_at_end.pftrace")
    cpus = [b.cpu for b in _ftrace(tr)]
    assert cpus.index(1) < cpus.index(0)  # CPU 1 written first
    last_cpu1 = max(ev.timestamp for b in _ftrace(tr) if b.cpu == 1 for ev in b.event)
    first_cpu0 = min(ev.timestamp for b in _ftrace(tr) if b.cpu == 0 for ev in b.event)
    assert first_cpu0 < last_cpu1  # overlapping time ranges


# ---------------------------------------------------------------------------
# (c) truth.py against hand-derived constants
# ---------------------------------------------------------------------------


def test_trace_bounds_are_schedule_bounds():
    for name, sch in S.all_schedules().items():
        assert T.trace_bounds(sch) == (sch.start, sch.end), name


def test_pinned_clean_cpu_and_gc_truths():
    sch = S.load("pinned_clean")
    W = sch.window  # [200 ms, 2700 ms) after T0
    app = T.app_threads(sch, S.APP_PID)
    # Slots start at 50 + 20k ms. Per slot: main 12 + RenderThread 3 + worker1 6 +
    # worker2 4 = 25 ms. Slot k=7 (190): main [190,202)->2, RT [202,205)->3,
    # w1 [191,197)->0, w2 [197,201)->1 = 6. Slot k=132 (2690): main ->10, w1 6,
    # w2 [2697,2701)->3 = 19. Slots 8..131 are whole: 124 * 25 = 3100.
    # GC slots 30, 70, 110: pool worker 4 + HeapTaskDaemon 8 = 12 each -> 36.
    # HTD idle slots (k % 10 == 5) in 8..131: 15..125 -> 12 * 1 ms.
    assert T.cpu_time(sch, app, W) == (3100 + 6 + 19 + 36 + 12) * MS == 3_173_000_000
    # GC: HTD inside its GC slices 3 * 8 ms (k=70: 5 ms GC + 3 ms CompactionPhase),
    # pool worker 3 * 4 ms, worker1's Alloc GC [s+2, s+5) while running [s+1, s+7): 3 ms.
    assert T.gc_cpu_ns(sch, S.APP_PID, W) == (24 + 12 + 3) * MS
    assert T.cpu_time(sch, {(S.HTD, 0)}, W) == (24 + 12) * MS
    gcs = [g for g in T.gc_events(sch, app) if W[0] <= g.ts < W[1]]
    assert [(g.cause, g.kind, (g.end - g.ts) // MS) for g in gcs] == [
        ("background", "young", 8), ("explicit", "full", 8), ("alloc", "full", 3),
        ("background", "young", 8)]
    # interference on 6,7: sysui-anim 3 slots * 2 ms + kworker/7:1 in slots
    # k = 10, 17, ..., 129 (18 slots) * 1 ms
    assert T.interference_ns(sch, app, {6, 7}, W) == (6 + 18) * MS
    assert T.off_mask(sch, app, {6, 7}, W)["off_mask_cpu_ns"] == 0
    assert T.migrations(sch, app, W) == (0, 0)


def test_pinned_late_pinning_truths():
    sch = S.load("pinned_late")
    W = sch.window
    app = T.app_threads(sch, S.APP_PID)
    om = T.off_mask(sch, app, {6, 7}, W)
    # Before 1400 ms every app run is on CPUs 2-5: slot 7 partial 6 ms, slots
    # 8..67 whole 60 * 25 = 1500, GC slot 30 +12, HTD idle slots 15..65 +6;
    # then worker1's 50 ms escape to CPU 3.
    assert om["off_mask_cpu_ns"] == (6 + 1500 + 12 + 6 + 50) * MS
    assert om["first_violation_ts"] == W[0]  # main [190, 202) on CPU 5 (slot 7 is odd -> 2/3)
    assert om["last_violation_end_ts"] == S.t(2061)
    assert om["threads_violating"] == 6
    # compact encoding: same schedule -> same truths
    late_c = S.load("pinned_late_compact")
    assert T.off_mask(late_c, app, {6, 7}, W) == om
    assert T.sched_rows(late_c) == T.sched_rows(sch)
    # memory clock: 5 changes in W, 3172000 for 200-500, 1300-1900, 2300-2700
    mif = T.series_stats([(c.ts, c.rate) for c in sch.clock_rates], W)
    assert mif["transitions"] == 5
    assert mif["residency"][3_172_000] == (300 + 600 + 400) * MS


def test_freq_truths():
    sch = S.load("freq")
    W = sch.window  # [500, 1500)
    cpu0 = T.series_stats(T.cpufreq_samples(sch, 0), W)
    # 1.0 GHz carried in from 100 ms: [500,800) + [1200,1500) = 600 ms; 1.4 GHz [800,1200)
    assert cpu0["residency"] == {1_000_000: 600 * MS, 1_400_000: 400 * MS}
    assert cpu0["transitions"] == 2 and cpu0["dominant"] == 1_000_000
    cpu7 = T.series_stats(T.cpufreq_samples(sch, 7), W)
    # unknown until 1000 ms; 2.4 GHz [1000,1250), 2.8 GHz [1250,1500)
    assert cpu7["known_share"] == 0.5 and cpu7["transitions"] == 1
    assert cpu7["residency"] == {2_400_000: 250 * MS, 2_800_000: 250 * MS}
    cpu6 = T.series_stats(T.cpufreq_samples(sch, 6), W)
    assert cpu6["stable"] is True and cpu6["residency"] == {2_800_000: 1000 * MS}


def test_frames_truths():
    sch = S.load("frames")
    fs = T.frame_stats(sch, S.APP_PID)
    # 17 surface frames, #16 unfinished; janky: #2 app, #5 app+stuffing, #7 SF CPU,
    # #9 prediction, #11 display HAL, #13 dropped; #4 buffer stuffing alone is not.
    assert (fs["frames"], fs["unfinished_frames"], fs["janky_frames"], fs["app_janky_frames"]) == (
        16, 1, 6, 2)
    # sorted durations (ms): 9, 10 x7, 11, 12, 21, 22, 23, 24, 25, 30 (n = 16)
    # p50 = ceil(8)th = 10; p90 = ceil(14.4) = 15th = 25; p95 = ceil(15.2) = 16th = 30;
    # p99 = 16th = 30
    assert fs["frame_dur_ns"] == {50: 10 * MS, 90: 25 * MS, 95: 30 * MS, 99: 30 * MS}
    ch = T.choreographer_frames(S.load("choreographer_only"), (S.MAIN, 0))
    # 17 doFrame slices, app time 20 ms (#2) and 19 ms (#5) exceed 16.67 ms
    assert (ch["frames"], ch["janky_frames"]) == (17, 2)


def test_open_at_end_slices_truth():
    sch = S.load("open_at_end")
    sl = {(s.key, s.name): (s.depth, s.dur, s.parent.name if s.parent else None)
          for s in T.thread_slices(sch)}
    A, B, M_ = (S.WA, 0), (S.WB, 0), (S.MAIN, 0)
    assert sl[(M_, "outer")] == (0, -1, None)
    assert sl[(M_, "inner")] == (1, 10 * MS, "outer")
    assert sl[(A, "a1")] == (0, 35 * MS, None) and sl[(A, "a2")] == (1, 10 * MS, "a1")
    assert sl[(B, "b1")] == (0, 25 * MS, None) and sl[(B, "b2")] == (1, 10 * MS, "b1")
    assert sl[(A, "tail")] == (0, -1, None)
    assert sl[(None, "async-open")][1] == -1 and sl[(None, "async-done")][1] == 70 * MS
    open_rows = [r for r in T.sched_rows(sch) if r.dur == -1]
    assert sorted((r.cpu, r.tid) for r in open_rows) == [(0, S.MAIN), (1, S.WA), (2, S.WB)]
