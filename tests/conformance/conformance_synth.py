"""A small trace builder for the ported synthetic diff-test traces.

trace_processor's synthetic traces (``*.py`` next to its diff tests) are
written against a ``Trace`` builder; the ported scripts in ``cases/`` use this
module instead. Only the builder calls those scripts need exist here, built on
the trace protos shipped by the ``perfetto`` package. FrameTimelineEvent is
not part of those protos (TracePacket field 76 is an out-of-tree extension),
so frame-timeline packets are appended as raw field-76 bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

CLONE_THREAD = 0x00010000
CLONE_VFORK = 0x00004000
CLONE_VM = 0x00000100

_PREV_STATE = {"R": 0, "S": 1, "D": 2, "U": 2}


# The fixtures' tiny protobuf encoder (frame timeline is a TracePacket
# extension missing from the perfetto package's protos).
_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
if str(_FIXTURES) not in sys.path:
    sys.path.insert(0, str(_FIXTURES))
from make_fixtures import f_bytes as _field_bytes, f_varint as _field_varint  # noqa: E402


class Trace:
    """Builds a ``Trace`` proto packet by packet."""

    def __init__(self) -> None:
        self.trace = pb.Trace()
        self.packet: pb.TracePacket | None = None
        self.proc_map: dict[int, str] = {0: "idle_thread"}
        # packet index -> raw bytes appended to that packet on serialisation
        self._extra: dict[int, bytes] = {}

    # -- packets -------------------------------------------------------------

    def add_packet(self, ts: int | None = None) -> pb.TracePacket:
        self.packet = self.trace.packet.add()
        if ts is not None:
            self.packet.timestamp = ts
        return self.packet

    def add_ftrace_packet(self, cpu: int) -> None:
        self.packet = self.trace.packet.add()
        self.packet.ftrace_events.cpu = cpu

    def add_system_info(self, arch: str = "", fingerprint: str = "") -> None:
        self.packet = self.trace.packet.add()
        self.packet.system_info.utsname.machine = arch
        self.packet.system_info.android_build_fingerprint = fingerprint

    def add_process(self, pid: int, ppid: int, cmdline: str,
                    uid: int | None = None) -> None:
        p = self.packet.process_tree.processes.add()
        p.pid = pid
        p.ppid = ppid
        p.cmdline.append(cmdline)
        if uid is not None:
            p.uid = uid
        self.proc_map[pid] = cmdline

    def add_thread(self, tid: int, tgid: int, cmdline: str,
                   name: str | None = None) -> None:
        t = self.packet.process_tree.threads.add()
        t.tid = tid
        t.tgid = tgid
        if name is not None:
            t.name = name
        self.proc_map[tid] = cmdline

    # -- ftrace events ---------------------------------------------------------

    def _event(self, ts: int, tid: int):
        ev = self.packet.ftrace_events.event.add()
        ev.timestamp = ts
        ev.pid = tid
        return ev

    def add_sched(self, ts: int, prev_pid: int, next_pid: int,
                  prev_comm: str | None = None, next_comm: str | None = None,
                  prev_state: str | None = None) -> None:
        ss = self._event(ts, 0).sched_switch
        ss.prev_comm = prev_comm or self.proc_map[prev_pid]
        ss.prev_pid = prev_pid
        ss.next_pid = next_pid
        ss.next_comm = next_comm or self.proc_map[next_pid]
        if prev_state:
            ss.prev_state = _PREV_STATE[prev_state]

    def add_cpufreq(self, ts: int, freq: int, cpu: int) -> None:
        f = self._event(ts, 0).cpu_frequency
        f.state = freq
        f.cpu_id = cpu

    def add_newtask(self, ts: int, tid: int, new_tid: int, new_comm: str,
                    flags: int) -> None:
        n = self._event(ts, tid).task_newtask
        n.pid = new_tid
        n.comm = new_comm
        n.clone_flags = flags

    def add_process_free(self, ts: int, tid: int, comm: str, prio: int) -> None:
        f = self._event(ts, tid).sched_process_free
        f.pid = tid
        f.comm = comm
        f.prio = prio

    def add_rename(self, ts: int, tid: int, old_comm: str, new_comm: str,
                   oom_score_adj: int) -> None:
        r = self._event(ts, tid).task_rename
        r.pid = tid
        r.oldcomm = old_comm
        r.newcomm = new_comm
        r.oom_score_adj = oom_score_adj

    def add_print(self, ts: int, tid: int, buf: str) -> None:
        getattr(self._event(ts, tid), "print").buf = buf

    def add_sched_blocked_reason(self, ts: int, pid: int, io_wait: int,
                                 unblock_pid: int) -> None:
        r = self._event(ts, unblock_pid).sched_blocked_reason
        r.pid = pid
        r.io_wait = io_wait

    def add_atrace_begin(self, ts: int, tid: int, pid: int, buf: str) -> None:
        self.add_print(ts, tid, f"B|{pid}|{buf}")

    def add_atrace_end(self, ts: int, tid: int, pid: int) -> None:
        self.add_print(ts, tid, f"E|{pid}")

    def add_rss_stat(self, ts: int, tid: int, member: int, size: int,
                     mm_id: int | None = None, curr: int | None = None) -> None:
        r = self._event(ts, tid).rss_stat
        r.member = member
        r.size = size
        if mm_id is not None:
            r.mm_id = mm_id
        if curr is not None:
            r.curr = int(curr)

    def add_oom_score_update(self, ts: int, oom_score_adj: int, pid: int) -> None:
        o = self._event(ts, pid).oom_score_adj_update
        o.comm = self.proc_map[pid]
        o.oom_score_adj = oom_score_adj
        o.pid = pid

    def add_sys_enter(self, ts: int, tid: int, id: int) -> None:
        self._event(ts, tid).sys_enter.id = id

    def add_sys_exit(self, ts: int, tid: int, id: int, ret: int) -> None:
        e = self._event(ts, tid).sys_exit
        e.id = id
        e.ret = ret

    def add_kmalloc(self, ts: int, tid: int, bytes_alloc: int, bytes_req: int,
                    call_site: int, gfp_flags: int, ptr: int) -> None:
        k = self._event(ts, tid).kmalloc
        k.bytes_alloc = bytes_alloc
        k.bytes_req = bytes_req
        k.call_site = call_site
        k.gfp_flags = gfp_flags
        k.ptr = ptr

    def add_kfree(self, ts: int, tid: int, call_site: int, ptr: int) -> None:
        k = self._event(ts, tid).kfree
        k.call_site = call_site
        k.ptr = ptr

    # -- frame timeline (TracePacket field 76, encoded by hand) ----------------

    def _frame_event(self, ts: int, kind: int, fields: list[tuple[int, object]]) -> None:
        self.add_packet(ts)
        body = b""
        for num, value in fields:
            if isinstance(value, str):
                body += _field_bytes(num, value.encode())
            else:
                body += _field_varint(num, int(value))
        self._extra[len(self.trace.packet) - 1] = _field_bytes(
            76, _field_bytes(kind, body))

    def add_expected_display_frame_start_event(self, ts, cookie, token, pid):
        f = [(1, cookie), (2, token), (3, pid)] if token != -1 else []
        self._frame_event(ts, 1, f)

    def add_actual_display_frame_start_event(self, ts, cookie, token, pid,
                                             present_type, on_time_finish,
                                             gpu_composition, jank_type,
                                             prediction_type):
        f = []
        if token != -1:
            f = [(1, cookie), (2, token), (3, pid), (4, present_type),
                 (5, on_time_finish), (6, gpu_composition), (7, jank_type),
                 (8, prediction_type)]
        self._frame_event(ts, 2, f)

    def add_expected_surface_frame_start_event(self, ts, cookie, token,
                                               display_frame_token, pid,
                                               layer_name):
        f = []
        if token != -1 and display_frame_token != -1:
            f = [(1, cookie), (2, token), (3, display_frame_token), (4, pid),
                 (5, layer_name)]
        self._frame_event(ts, 3, f)

    def add_actual_surface_frame_start_event(self, ts, cookie, token,
                                             display_frame_token, pid,
                                             layer_name, present_type,
                                             on_time_finish, gpu_composition,
                                             jank_type, prediction_type,
                                             jank_severity_type=None):
        f = []
        if token != -1 and display_frame_token != -1:
            if jank_severity_type is None:
                # Not set by older producers: none if no jank, else unknown.
                jank_severity_type = 1 if jank_type == 1 else 0
            f = [(1, cookie), (2, token), (3, display_frame_token), (4, pid),
                 (5, layer_name), (6, present_type), (7, on_time_finish),
                 (8, gpu_composition), (9, jank_type), (10, prediction_type),
                 (12, jank_severity_type)]
        self._frame_event(ts, 4, f)

    def add_frame_end_event(self, ts, cookie):
        self._frame_event(ts, 5, [(1, cookie)])

    # -- output --------------------------------------------------------------

    def serialize(self) -> bytes:
        if not self._extra:
            return self.trace.SerializeToString()
        out = bytearray()
        for i, pkt in enumerate(self.trace.packet):
            out += _field_bytes(1, pkt.SerializeToString() + self._extra.get(i, b""))
        return bytes(out)


def create_trace() -> Trace:
    return Trace()
