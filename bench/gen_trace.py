"""Generate large, realistic Perfetto traces for the import/analyze benchmark.

    python3 bench/gen_trace.py                      # the default 2M-switch pair
    python3 bench/gen_trace.py --seconds 3 --switches 60000 --seed 7 --out X.pftrace

A simulated 8-CPU Android device running ``com.example.bench`` (pinned to
CPUs 6,7 with occasional off-mask slices) next to SurfaceFlinger,
system_server, a few other apps and kernel threads:

* sched_switch for every CPU (plain ``FtraceEvent.sched_switch`` or
  ``compact_sched`` arrays), sched_waking for a share of wake-ups;
* atrace (ftrace ``print``) B/E slices on app threads: Choreographer#doFrame +
  traversal on the main thread, DrawFrames + syncFrameState on RenderThread,
  work items on workers, ART GCs ("Background young concurrent copying GC",
  ...) on HeapTaskDaemon plus a "Heap size (KB)" counter after each;
* cpu_frequency (+ limits), devfreq_frequency (memory bandwidth) and
  clock_set_rate (memory-interface clock) counters;
* FrameTimeline (TracePacket field 76) display + surface frames, encoded with
  fixtures/make_fixtures.py's hand-written encoder;
* a process tree, CpuInfo, SystemInfo, packages list and the TraceConfig.

Bulk ftrace bundles are encoded as raw protobuf bytes (the perfetto message
classes are ~50x slower per event); the few small packets use the perfetto
package's messages. Output is deterministic for a given seed and size.
"""

from __future__ import annotations

import argparse
import bisect
import random
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT / "fixtures") not in sys.path:
    sys.path.insert(0, str(ROOT / "fixtures"))

import make_fixtures as mf  # noqa: E402  (the FrameTimeline encoder lives there)
import schedules as S  # noqa: E402
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb  # noqa: E402

APP = "com.example.bench"
APP_PID = 10000
APP_UID = 10123
SF_PID = 600
SS_PID = 1500
ZYGOTE_PID = 700
US = 1_000
MS = 1_000_000
T0 = 3_600 * 1_000_000_000  # device up for an hour (BOOTTIME ns)
VSYNC = 16_666_667
EPOCH = 20 * MS  # thread -> CPU placement period
BUNDLE_SPAN = 100 * MS  # one FtraceEventBundle per CPU per this span
APP_CPUS = (6, 7)

# prev_state values (kernel >= 4.14 layout, as UTS_RELEASE 5.10 selects)
ST_R, ST_S, ST_D, ST_RPLUS = 0, 1, 2, 0x100

GC_NAMES = (
    ("Background young concurrent copying GC", 70),
    ("Background concurrent copying GC", 15),
    ("Alloc young concurrent copying GC", 10),
    ("Explicit concurrent copying GC", 5),
)
MEM_DEV = "soc:qcom,cpu-llcc-ddr-bw"  # devfreq_frequency dev_name (memory)
MIF_CLK = "ddr_clk"  # clock_set_rate name


@dataclass
class Th:
    tid: int
    tgid: int
    name: str  # process-tree thread name
    comm: str  # sched comm (<= 15 chars)
    prio: int
    weight: float  # share of run slots it competes for
    app: bool = False


@dataclass
class Sim:
    start: int
    end: int
    threads: dict[int, Th]
    processes: list[tuple[int, int, str, int | None]]  # pid, ppid, cmdline, uid
    #: per cpu: switch ts, next tid, prev_state (of the thread switched out)
    sw_ts: list[list[int]]
    sw_next: list[list[int]]
    sw_state: list[list[int]]
    #: per cpu: (ts, wakee tid, waker tid)
    wakings: list[list[tuple[int, int, int]]]
    #: per cpu: (ts, kind, payload) for every other ftrace event
    other: list[list[tuple[int, str, tuple]]]
    frames: list = field(default_factory=list)

    @property
    def n_switches(self) -> int:
        return sum(len(x) for x in self.sw_ts)

    @property
    def n_wakings(self) -> int:
        return sum(len(x) for x in self.wakings)

    @property
    def n_other(self) -> int:
        return sum(len(x) for x in self.other)


def _threads() -> tuple[dict[int, Th], list[tuple[int, int, str, int | None]]]:
    th: list[Th] = []
    procs: list[tuple[int, int, str, int | None]] = [
        (1, 0, "/system/bin/init", 0), (2, 0, "kthreadd", 0),
        (ZYGOTE_PID, 1, "zygote64", 0),
        (SF_PID, 1, "/system/bin/surfaceflinger", 1000),
        (SS_PID, ZYGOTE_PID, "system_server", 1000),
        (APP_PID, ZYGOTE_PID, APP, APP_UID),
    ]
    th.append(Th(1, 1, "init", "init", 120, 0.2))
    th.append(Th(ZYGOTE_PID, ZYGOTE_PID, "main", "main", 120, 0.1))
    # the app (mutators + GC daemon); the main thread's comm is the last 15
    # chars of the package name, as Android sets it
    app = [
        Th(APP_PID, APP_PID, APP, APP[-15:], 110, 6.0, True),
        Th(APP_PID + 1, APP_PID, "RenderThread", "RenderThread", 110, 5.0, True),
        Th(APP_PID + 2, APP_PID, "HeapTaskDaemon", "HeapTaskDaemon", 124, 3.0, True),
        Th(APP_PID + 3, APP_PID, "FinalizerDaemon", "FinalizerDaemon", 124, 0.3, True),
        Th(APP_PID + 4, APP_PID, "ReferenceQueueD", "ReferenceQueueD", 124, 0.3, True),
        Th(APP_PID + 5, APP_PID, "Jit thread pool", "Jit thread pool", 129, 0.8, True),
        Th(APP_PID + 6, APP_PID, "binder:10000_1", "binder:10000_1", 120, 0.5, True),
        Th(APP_PID + 7, APP_PID, "binder:10000_2", "binder:10000_2", 120, 0.5, True),
    ]
    app += [Th(APP_PID + 20 + i, APP_PID, f"bench-worker-{i}", f"bench-worker-{i}", 120,
               4.0, True) for i in range(6)]
    th += app
    th.append(Th(SF_PID, SF_PID, "surfaceflinger", "surfaceflinger", 97, 2.0))
    th += [Th(SF_PID + i, SF_PID, n, n, 97, 1.0) for i, n in
           ((1, "RenderEngine"), (2, "app"), (3, "binder:600_1"), (4, "composer"))]
    th.append(Th(SS_PID, SS_PID, "system_server", "system_server", 120, 0.5))
    th += [Th(SS_PID + i, SS_PID, n[:15], n[:15], 120, 0.4) for i, n in enumerate(
        ["android.bg", "android.fg", "android.ui", "android.display", "ActivityManager",
         "PowerManagerSer", "batterystats-wo", "HeapTaskDaemon", "InputDispatcher",
         "InputReader"] + [f"binder:1500_{k}" for k in range(1, 13)], start=1)]
    # other apps
    for k in range(8):
        pid = 2000 + 100 * k
        pkg = f"com.android.app{k}"
        procs.append((pid, ZYGOTE_PID, pkg, 10200 + k))
        th.append(Th(pid, pid, pkg, pkg[-15:], 120, 0.3))
        th += [Th(pid + i, pid, n, n, 120, 0.2) for i, n in
               ((1, "RenderThread"), (2, "HeapTaskDaemon"), (3, f"binder:{pid}_1"),
                (4, "AsyncTask #1"))]
    # native daemons
    for k, n in enumerate(["logd", "lmkd", "servicemanager", "vold", "netd", "audioserver",
                           "cameraserver", "media.codec", "statsd", "traced", "traced_probes",
                           "adbd"]):
        pid = 300 + k * 10
        procs.append((pid, 1, f"/system/bin/{n}", 1000))
        th.append(Th(pid, pid, n, n, 120, 0.3))
        th.append(Th(pid + 1, pid, f"{n[:10]}_wrk", f"{n[:10]}_wrk", 120, 0.2))
    # kernel threads (children of kthreadd, no cmdline in a real tree)
    for c in range(8):
        for n, w in ((f"ksoftirqd/{c}", 0.3), (f"kworker/{c}:1", 0.5), (f"migration/{c}", 0.1)):
            tid = 10 + len(th)
            procs.append((tid, 2, n, 0))
            th.append(Th(tid, tid, n, n, 120, w))
    for k in range(4):
        tid = 10 + len(th)
        n = f"kworker/u16:{k}"
        procs.append((tid, 2, n, 0))
        th.append(Th(tid, tid, n, n, 120, 0.5))
    return {t.tid: t for t in th}, procs


def simulate(seconds: float, switches: int, seed: int = 1,
             waking_share: float = 0.3) -> Sim:
    """Place threads on CPUs and cut every CPU's time into run slices.

    ``waking_share``: probability that a sleeping thread's switch-in is
    preceded by a sched_waking (0.3 gives ~0.17 wakings per switch).
    """
    rnd = random.Random(seed)
    threads, procs = _threads()
    n_cpus = 8
    start, end = T0, T0 + int(seconds * 1e9)
    # mean exponential part of a slice (every slice is >= 10 us); 1% margin
    # so the trace has at least `switches` switches
    mean = n_cpus * (end - start) / (switches * 1.01) - 10 * US
    app = [t for t in threads.values() if t.app]
    other = [t for t in threads.values() if not t.app]
    sw_ts = [[] for _ in range(n_cpus)]
    sw_next = [[] for _ in range(n_cpus)]
    sw_state = [[] for _ in range(n_cpus)]
    wakings: list[list[tuple[int, int, int]]] = [[] for _ in range(n_cpus)]
    runs: dict[int, list[tuple[int, int, int]]] = {t.tid: [] for t in app}
    last_state: dict[int, int] = {}
    expo = rnd.expovariate
    rand = rnd.random
    cur = [0] * n_cpus  # tid running on each cpu
    for cpu in range(n_cpus):  # every CPU starts idle at `start`
        sw_ts[cpu].append(start)
        sw_next[cpu].append(0)
        sw_state[cpu].append(ST_R)
    t_epoch = start
    while t_epoch < end:
        e_end = min(t_epoch + EPOCH, end)
        # place threads: the app on 6/7 (2% of placements elsewhere: pinning
        # violations), everything else mostly on the little/mid cores
        pools: list[list[int]] = [[] for _ in range(n_cpus)]
        weights: list[list[float]] = [[] for _ in range(n_cpus)]
        for t in app:
            c = rnd.choice(APP_CPUS) if rand() > 0.02 else rnd.randrange(6)
            pools[c].append(t.tid)
            weights[c].append(t.weight)
        for t in other:
            c = rnd.randrange(6) if rand() > 0.1 else rnd.choice(APP_CPUS)
            pools[c].append(t.tid)
            weights[c].append(t.weight)
        for cpu in range(n_cpus):
            ts_l, nx_l, st_l, wk_l = sw_ts[cpu], sw_next[cpu], sw_state[cpu], wakings[cpu]
            pool, w = pools[cpu], weights[cpu]
            busy = sum(w)
            # idle share: the app CPUs stay busy, the others idle more
            idle_w = busy * (0.15 if cpu in APP_CPUS else 0.6) + 0.5
            pool = pool + [0]
            cum = []
            acc = 0.0
            for x in w + [idle_w]:
                acc += x
                cum.append(acc)
            total = acc
            # epoch boundary: everything leaves its CPU for a short idle, so a
            # thread never runs on two CPUs at once when it moves
            t = t_epoch
            prev = cur[cpu]
            if t > start:
                if prev != 0:
                    ts_l.append(t)
                    nx_l.append(0)
                    st_l.append(ST_S)
                    last_state[prev] = ST_S
                t += 5 * US + int(rand() * 20 * US)
                prev = 0
            while True:
                # pick the next thread (not the one running)
                nxt = pool[bisect.bisect(cum, rand() * total)] if total else 0
                if nxt == prev:
                    nxt = 0 if prev else (pool[0] if len(pool) > 1 else 0)
                    if nxt == prev:
                        break
                if prev == 0:
                    state = ST_R
                elif nxt == 0:
                    state = ST_S if rand() < 0.8 else ST_D
                else:
                    r = rand()
                    state = ST_R if r < 0.25 else (ST_RPLUS if r < 0.4 else
                                                   (ST_S if r < 0.9 else ST_D))
                if prev:
                    last_state[prev] = state
                if (nxt and last_state.get(nxt, ST_S) in (ST_S, ST_D)
                        and rand() < waking_share):
                    # woken shortly before it is switched in, by whatever runs
                    wk_l.append((t - 2 * US, nxt, prev))
                ts_l.append(t)
                nx_l.append(nxt)
                st_l.append(state)
                d = 10 * US + int(expo(1.0) * mean)
                t_next = t + d
                if nxt and nxt in runs:
                    runs[nxt].append((t, min(t_next, e_end), cpu))
                prev = nxt
                if t_next >= e_end:
                    break
                t = t_next
            cur[cpu] = prev
        t_epoch = e_end
    sim = Sim(start, end, threads, procs, sw_ts, sw_next, sw_state, wakings,
              [[] for _ in range(n_cpus)])
    _atrace(sim, runs, rnd)
    _counters(sim, rnd)
    _frames(sim, rnd)
    for lst in sim.other:
        lst.sort(key=lambda e: e[0])
    return sim


def _atrace(sim: Sim, runs: dict[int, list[tuple[int, int, int]]], rnd: random.Random) -> None:
    """B/E prints on app threads, written on the CPU the thread runs on."""
    other = sim.other

    def emit(run: tuple[int, int, int], ts: int, tid: int, buf: str) -> None:
        other[run[2]].append((ts, "print", (tid, buf)))

    def spans(tid: int, period: int, work: tuple[int, int], names: list[str],
              phase: int = 0) -> int:
        """One nested stack of len(names) slices per period, across runs."""
        rs = [r for r in runs[tid] if r[1] - r[0] >= 20 * US]
        starts = [r[0] for r in rs]
        last = -1
        n = 0
        k = 0
        t = sim.start + phase
        while t < sim.end:
            i = bisect.bisect_left(starts, t)
            if i <= last:
                i = last + 1
            if i >= len(rs):
                break
            s = rs[i][0]
            dur = rnd.randint(*work)
            j = i
            while j < len(rs) - 1 and rs[j][1] < s + dur:
                j += 1
            a, b = rs[i], rs[j]
            for depth, name in enumerate(names):
                emit(a, a[0] + (1 + depth) * US, tid, f"B|{APP_PID}|{name.format(k)}")
            for depth in reversed(range(len(names))):
                emit(b, b[1] - (1 + depth) * US, tid, f"E|{APP_PID}")
            n += len(names)
            last = j
            k += 1
            t += period
        return n

    spans(APP_PID, VSYNC, (2 * MS, 12 * MS), ["Choreographer#doFrame {}", "traversal"])
    spans(APP_PID + 1, VSYNC, (1 * MS, 8 * MS), ["DrawFrames {}", "syncFrameState"],
          phase=3 * MS)
    # work items: one slice inside a run, on a share of the workers' runs
    for i in range(6):
        tid = APP_PID + 20 + i
        for r in runs[tid]:
            if r[1] - r[0] >= 20 * US and rnd.random() < 0.06:
                emit(r, r[0] + 1 * US, tid, f"B|{APP_PID}|bench:work item")
                emit(r, r[1] - 1 * US, tid, f"E|{APP_PID}")
    # GCs on HeapTaskDaemon (~4/s), each a few runs long, + heap size counter
    tid = APP_PID + 2
    rs = [r for r in runs[tid] if r[1] - r[0] >= 20 * US]
    names = [n for n, _ in GC_NAMES]
    wts = [w for _, w in GC_NAMES]
    i = 0
    t = sim.start + 100 * MS
    starts = [r[0] for r in rs]
    while True:
        i = max(i, bisect.bisect_left(starts, t))
        if i >= len(rs):
            break
        name = rnd.choices(names, wts)[0]
        s = rs[i][0]
        dur = rnd.randint(3 * MS, 40 * MS)
        j = i
        while j < len(rs) - 1 and rs[j][1] < s + dur:
            j += 1
        emit(rs[i], s + 1 * US, tid, f"B|{APP_PID}|{name}")
        emit(rs[j], rs[j][1] - 2 * US, tid, f"E|{APP_PID}")
        emit(rs[j], rs[j][1] - 1 * US, tid,
             f"C|{APP_PID}|Heap size (KB)|{rnd.randint(20_000, 90_000)}")
        i = j + 1
        t = rs[j][1] + rnd.randint(150 * MS, 350 * MS)


def _counters(sim: Sim, rnd: random.Random) -> None:
    other = sim.other
    for c in range(8):
        freqs = S.CPUS[c].frequencies
        other[c].append((sim.start + 10 * US, "cpu_frequency_limits",
                         (freqs[0], freqs[-1], c)))
        t = sim.start + 20 * US
        while t < sim.end:
            # the benchmark fixes the big cores' frequency; the rest float
            khz = freqs[-2] if c in APP_CPUS else rnd.choice(freqs)
            other[c].append((t, "cpu_frequency", (khz, c)))
            t += rnd.randint(20 * MS, 80 * MS)
    t = sim.start + 50 * US
    prev = 0
    while t < sim.end:
        f = rnd.choice((762_000, 1_144_000, 1_720_000, 2_086_000))
        other[0].append((t, "devfreq_frequency", (MEM_DEV, f, prev)))
        other[0].append((t + 1 * US, "clock_set_rate", (MIF_CLK, f * 1000, 0)))
        prev = f
        t += rnd.randint(50 * MS, 200 * MS)


def _frames(sim: Sim, rnd: random.Random) -> None:
    layer = f"{APP}/{APP}.MainActivity#0"
    token = 1000
    t = sim.start + 50 * MS
    while t + 3 * VSYNC < sim.end:
        token += 2
        late = rnd.random() < 0.05
        act_dur = rnd.randint(20 * MS, 40 * MS) if late else rnd.randint(4 * MS, 15 * MS)
        for kind, pid, tok, disp in (("display", SF_PID, token, token),
                                     ("surface", APP_PID, token + 1, token)):
            sim.frames.append(S.Frame(
                kind=kind, pid=pid, token=tok, display_token=disp,
                expected_ts=t, expected_end=t + VSYNC,
                actual_ts=t + 200 * US, actual_end=t + 200 * US + act_dur,
                jank_type=64 if late else 1, present_type=2 if late else 1,
                on_time_finish=not late,
                layer_name=layer if kind == "surface" else ""))
        t += VSYNC


# ---------------------------------------------------------------------------
# raw protobuf encoding
# ---------------------------------------------------------------------------

_VCACHE: dict[int, bytes] = {}


def _v(x: int) -> bytes:
    b = _VCACHE.get(x)
    if b is None:
        b = mf.varint(x)
        if x < 1 << 20:
            _VCACHE[x] = b
    return b


def _packed(num: int, values) -> bytes:
    body = b"".join(map(_v, values))
    return _v(num << 3 | 2) + _v(len(body)) + body


def _str(num: int, s: str) -> bytes:
    return mf.f_bytes(num, s.encode())


def _other_event(ts: int, kind: str, p: tuple) -> bytes:
    """FtraceEvent bytes (without the bundle's field tag) of a non-sched event."""
    if kind == "print":
        tid, buf = p
        body = mf.f_varint(1, mf.PRINT_IP) + _str(2, buf + "\n")
        return mf.f_varint(1, ts) + mf.f_varint(2, tid) + mf.f_bytes(3, body)
    if kind == "cpu_frequency":
        khz, c = p
        return mf.f_varint(1, ts) + mf.f_varint(2, 0) + mf.f_bytes(
            11, mf.f_varint(1, khz) + mf.f_varint(2, c))
    if kind == "cpu_frequency_limits":
        lo, hi, c = p
        return mf.f_varint(1, ts) + mf.f_varint(2, 0) + mf.f_bytes(
            12, mf.f_varint(1, hi) + mf.f_varint(2, lo) + mf.f_varint(3, c))
    if kind == "devfreq_frequency":
        dev, f, prev = p
        return mf.f_varint(1, ts) + mf.f_varint(2, 0) + mf.f_bytes(
            541, _str(1, dev) + mf.f_varint(2, f) + mf.f_varint(3, prev))
    if kind == "clock_set_rate":
        name, rate, c = p
        return mf.f_varint(1, ts) + mf.f_varint(2, 0) + mf.f_bytes(
            16, _str(1, name) + mf.f_varint(2, rate) + mf.f_varint(3, c))
    raise ValueError(kind)


def _check_field_numbers() -> None:
    """The raw encoder's field numbers, checked against the shipped protos."""
    fe = pb.FtraceEvent.DESCRIPTOR.fields_by_name
    assert (fe["timestamp"].number, fe["pid"].number, fe["print"].number,
            fe["sched_switch"].number, fe["sched_waking"].number,
            fe["cpu_frequency"].number, fe["cpu_frequency_limits"].number,
            fe["clock_set_rate"].number, fe["devfreq_frequency"].number) == (
        1, 2, 3, 4, 20, 11, 12, 16, 541)
    cs = pb.FtraceEventBundle.CompactSched.DESCRIPTOR.fields_by_name
    assert [cs[n].number for n in (
        "switch_timestamp", "switch_prev_state", "switch_next_pid", "switch_next_prio",
        "intern_table", "switch_next_comm_index", "waking_timestamp", "waking_pid",
        "waking_target_cpu", "waking_prio", "waking_comm_index")] == list(range(1, 12))
    b = pb.FtraceEventBundle.DESCRIPTOR.fields_by_name
    assert (b["cpu"].number, b["event"].number, b["compact_sched"].number) == (1, 2, 4)
    tp = pb.TracePacket.DESCRIPTOR.fields_by_name
    assert (tp["ftrace_events"].number, tp["trusted_packet_sequence_id"].number) == (1, 10)


def _bundle_bytes(sim: Sim, cpu: int, lo: int, hi: int, idx: dict, compact: bool) -> bytes:
    """FtraceEventBundle of one CPU for switches [lo, hi) and the other events
    / wakings in the same time span."""
    threads = sim.threads
    ts_l, nx_l, st_l = sim.sw_ts[cpu], sim.sw_next[cpu], sim.sw_state[cpu]
    t_hi = ts_l[hi] if hi < len(ts_l) else sim.end + 1
    wk = sim.wakings[cpu]
    w0, w1 = idx["wk"][cpu], bisect.bisect_left(wk, (t_hi,), idx["wk"][cpu])
    idx["wk"][cpu] = w1
    ot = sim.other[cpu]
    o0 = idx["ot"][cpu]
    o1 = o0
    while o1 < len(ot) and ot[o1][0] < t_hi:
        o1 += 1
    idx["ot"][cpu] = o1

    def comm(tid: int) -> str:
        return f"swapper/{cpu}" if tid == 0 else threads[tid].comm

    def prio(tid: int) -> int:
        return 120 if tid == 0 else threads[tid].prio

    parts = [mf.f_varint(1, cpu)]
    if compact:
        intern: dict[str, int] = {}
        names: list[str] = []

        def ci(tid: int) -> int:
            c = comm(tid)
            i = intern.get(c)
            if i is None:
                i = intern[c] = len(names)
                names.append(c)
            return i

        deltas, last = [], 0
        for t in ts_l[lo:hi]:
            deltas.append(t - last)
            last = t
        nxt = nx_l[lo:hi]
        cs = [_packed(1, deltas), _packed(2, st_l[lo:hi]), _packed(3, nxt),
              _packed(4, [prio(t) for t in nxt]), b"", _packed(6, [ci(t) for t in nxt])]
        if w1 > w0:
            wd, last = [], 0
            for w in wk[w0:w1]:
                wd.append(w[0] - last)
                last = w[0]
            cs += [_packed(7, wd), _packed(8, [w[1] for w in wk[w0:w1]]),
                   _packed(9, [cpu] * (w1 - w0)), _packed(10, [prio(w[1]) for w in wk[w0:w1]]),
                   _packed(11, [ci(w[1]) for w in wk[w0:w1]])]
        cs[4] = b"".join(_str(5, n) for n in names)
        parts.append(mf.f_bytes(4, b"".join(cs)))
        for e in ot[o0:o1]:
            parts.append(mf.f_bytes(2, _other_event(*e)))
        return b"".join(parts)

    # plain events, merged in ts order (other events before a switch at the
    # same ts are written by the thread switching out: keep them first)
    cache = idx["sw_cache"]
    evs: list[tuple[int, int, bytes]] = []
    prev = nx_l[lo - 1] if lo else 0
    for k in range(lo, hi):
        t, nxt, st = ts_l[k], nx_l[k], st_l[k]
        key = (cpu, prev, st, nxt)
        body = cache.get(key)
        if body is None:
            sw = (_str(1, comm(prev)) + mf.f_varint(2, prev) + mf.f_varint(3, prio(prev))
                  + mf.f_varint(4, st) + _str(5, comm(nxt)) + mf.f_varint(6, nxt)
                  + mf.f_varint(7, prio(nxt)))
            body = cache[key] = b"\x10" + _v(prev) + mf.f_bytes(4, sw)
        ev = b"\x08" + mf.varint(t) + body
        evs.append((t, 1, b"\x12" + _v(len(ev)) + ev))
        prev = nxt
    for w in wk[w0:w1]:
        t, wakee, waker = w
        wbody = _str(1, comm(wakee)) + mf.f_varint(2, wakee) + mf.f_varint(3, prio(wakee)) \
            + mf.f_varint(4, 1) + mf.f_varint(5, cpu)
        ev = mf.f_varint(1, t) + mf.f_varint(2, waker) + mf.f_bytes(20, wbody)
        evs.append((t, 1, mf.f_bytes(2, ev)))
    for e in ot[o0:o1]:
        # prints just before a switch (E at run end) sort before it via ts;
        # at equal ts keep other events first
        evs.append((e[0], 0, mf.f_bytes(2, _other_event(*e))))
    evs.sort(key=lambda x: (x[0], x[1]))
    parts.extend(x[2] for x in evs)
    return b"".join(parts)


def encode(sim: Sim, compact: bool) -> bytes:
    _check_field_numbers()
    out: list[bytes] = []

    def packet(p: pb.TracePacket) -> None:
        out.append(mf.f_bytes(1, p.SerializeToString(deterministic=True)))

    cfg = types.SimpleNamespace(
        start=sim.start, end=sim.end, data_sources=S.Schedule.data_sources,
        ftrace_events=S.Schedule.ftrace_events + ("sched/sched_waking",),
        atrace_categories=S.Schedule.atrace_categories, compact_sched=compact)
    p = pb.TracePacket()
    p.trusted_packet_sequence_id = mf.SEQ_SERVICE
    mf._trace_config(cfg, p)
    packet(p)

    p = pb.TracePacket()
    p.trusted_packet_sequence_id = mf.SEQ_SYSINFO
    si = p.system_info
    si.utsname.sysname = "Linux"
    si.utsname.release = mf.UTS_RELEASE
    si.utsname.machine = "aarch64"
    si.android_sdk_version = 33
    packet(p)

    p = pb.TracePacket()
    p.timestamp = sim.start
    p.trusted_packet_sequence_id = mf.SEQ_SYSINFO
    for c in S.CPUS:
        cpu = p.cpu_info.cpus.add()
        cpu.processor = c.processor
        cpu.frequencies.extend(c.frequencies)
        cpu.capacity = c.capacity
    packet(p)

    p = pb.TracePacket()
    p.timestamp = sim.start
    p.trusted_packet_sequence_id = mf.SEQ_PACKAGES
    for name, uid in [(APP, APP_UID)] + [(f"com.android.app{k}", 10200 + k) for k in range(8)]:
        pi = p.packages_list.packages.add()
        pi.name, pi.uid, pi.version_code = name, uid, 1
    packet(p)

    p = pb.TracePacket()
    p.timestamp = sim.start
    p.trusted_packet_sequence_id = mf.SEQ_PROCESS
    kthreads = set()
    for pid, ppid, cmd, uid in sorted(sim.processes):
        pp = p.process_tree.processes.add()
        pp.pid, pp.ppid = pid, ppid
        if ppid == 2:
            kthreads.add(pid)  # kernel threads: no cmdline
        else:
            pp.cmdline.append(cmd)
        if uid is not None:
            pp.uid = uid
    for t in sorted(sim.threads.values(), key=lambda t: t.tid):
        if t.tid != t.tgid:
            tt = p.process_tree.threads.add()
            tt.tid, tt.tgid, tt.name = t.tid, t.tgid, t.name
    packet(p)

    # ftrace: bundles per CPU per BUNDLE_SPAN, CPUs interleaved per span
    idx = {"wk": [0] * 8, "ot": [0] * 8, "sw_cache": {}}
    pos = [0] * 8
    seq = mf.f_varint(10, mf.SEQ_FTRACE)
    t = sim.start
    while t < sim.end + BUNDLE_SPAN:
        t += BUNDLE_SPAN
        for cpu in range(8):
            ts_l = sim.sw_ts[cpu]
            lo = pos[cpu]
            hi = bisect.bisect_left(ts_l, t, lo)
            if hi == lo and t < sim.end:
                continue
            if hi == lo:
                if idx["ot"][cpu] >= len(sim.other[cpu]) and idx["wk"][cpu] >= len(
                        sim.wakings[cpu]):
                    continue
            pos[cpu] = hi
            body = _bundle_bytes(sim, cpu, lo, hi, idx, compact) if hi > lo else None
            if body is None:
                continue
            out.append(mf.f_bytes(1, mf.f_bytes(1, body) + seq))

    for ts, raw in sorted(mf._ft_packets(sim.frames), key=lambda x: x[0]):
        p = pb.TracePacket()
        p.timestamp = ts
        p.trusted_packet_sequence_id = mf.SEQ_FRAMES
        out.append(mf.f_bytes(1, p.SerializeToString() + raw))
    return b"".join(out)


# ---------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------

OUT = HERE / "out"
GEN_VERSION = 1  # bump when the generator's output changes


def trace_path(seconds: float, switches: int, seed: int, compact: bool,
               waking_share: float = 0.3) -> Path:
    enc = "compact" if compact else "plain"
    return OUT / (f"bench-v{GEN_VERSION}-{seconds:g}s-{switches}sw-w{waking_share:g}"
                  f"-s{seed}-{enc}.pftrace")


def ensure(seconds: float = 60, switches: int = 2_000_000, seed: int = 1,
           waking_share: float = 0.3, log=print,
           encodings: tuple[str, ...] = ("plain", "compact")) -> dict[str, Path]:
    """Encodings of one simulated trace, generated once and cached."""
    paths = {enc: trace_path(seconds, switches, seed, enc == "compact", waking_share)
             for enc in encodings}
    if all(p.exists() for p in paths.values()):
        return paths
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    sim = simulate(seconds, switches, seed, waking_share)
    t1 = time.perf_counter()
    for enc, path in paths.items():
        data = encode(sim, enc == "compact")
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    t2 = time.perf_counter()
    log(f"generated {seconds:g}s trace: {sim.n_switches} switches, {sim.n_wakings} wakings, "
        f"{sim.n_other} other ftrace, {len(sim.frames)} frames "
        f"(simulate {t1 - t0:.1f} s, encode {'+'.join(paths)} {t2 - t1:.1f} s)")
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--switches", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--waking-share", type=float, default=0.3)
    a = ap.parse_args()
    for enc, p in ensure(a.seconds, a.switches, a.seed, a.waking_share).items():
        print(f"{enc:8s} {p}  {p.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
