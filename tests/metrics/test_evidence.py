"""Affinity evidence: sched_setaffinity syscalls and cgroup moves of target
threads are named next to the pinning violation they explain.

Schedule (ns after T = 1e12), app com.example.ev (pid 100, worker tid 101),
allowed CPU 6, window = whole trace [T, T + 1000):
  CPU 6: tid 100 runs [T, T+1000)      (on mask)
  CPU 2: tid 101 runs [T+100, T+400)   (off mask: 300 ns)
  tid 101 calls sched_setaffinity (arm64 syscall 122) at T+50 .. T+60
  cgroup_attach_task moves pid 101 to /top-app at T+90
The trace says it is arm64 (SystemInfo's utsname.machine), as a real capture
does: syscall numbers are named by the trace's architecture.
"""

from __future__ import annotations

import artscope
from perfetto.trace_builder.proto_builder import TraceProtoBuilder

T = 1_000_000_000_000


def _switch(bundle, ts, prev_pid, prev_comm, next_pid, next_comm, prev_state=1):
    ev = bundle.event.add()
    ev.timestamp = ts
    ev.pid = prev_pid
    s = ev.sched_switch
    s.prev_pid, s.prev_comm, s.prev_prio, s.prev_state = prev_pid, prev_comm, 120, prev_state
    s.next_pid, s.next_comm, s.next_prio = next_pid, next_comm, 120


def build(path) -> None:
    b = TraceProtoBuilder()
    b.add_packet().system_info.utsname.machine = "aarch64"
    pkt = b.add_packet()
    pkt.timestamp = T
    proc = pkt.process_tree.processes.add()
    proc.pid, proc.ppid = 100, 1
    proc.cmdline.append("com.example.ev")
    th = pkt.process_tree.threads.add()
    th.tid, th.tgid, th.name = 101, 100, "worker"

    cpu6 = b.add_packet().ftrace_events
    cpu6.cpu = 6
    _switch(cpu6, T, 0, "swapper/6", 100, "com.example.ev", prev_state=0)
    _switch(cpu6, T + 1000, 100, "com.example.ev", 0, "swapper/6")

    cpu2 = b.add_packet().ftrace_events
    cpu2.cpu = 2
    for ts, nr, enter in ((T + 50, 122, True), (T + 60, 122, False)):
        ev = cpu2.event.add()
        ev.timestamp, ev.pid = ts, 101
        if enter:
            ev.sys_enter.id = nr
        else:
            ev.sys_exit.id = nr
            ev.sys_exit.ret = 0
    ev = cpu2.event.add()
    ev.timestamp, ev.pid = T + 90, 1000
    ev.cgroup_attach_task.pid = 101
    ev.cgroup_attach_task.comm = "worker"
    ev.cgroup_attach_task.dst_path = "/top-app"
    _switch(cpu2, T + 100, 0, "swapper/2", 101, "worker", prev_state=0)
    _switch(cpu2, T + 400, 101, "worker", 0, "swapper/2")
    path.write_bytes(b.serialize())


def test_evidence_names_syscall_and_cgroup_move(tmp_path):
    path = tmp_path / "ev.pftrace"
    build(path)
    with artscope.open(path, app="com.example.ev", cpus="6", engine="embedded") as runs:
        (r,) = runs.results
        pin = r["pinning"]
        assert pin["off_mask_cpu_ns"] == 300
        assert pin["first_violation_ts"] == T + 100
        assert pin["last_violation_end_ts"] == T + 400
        assert pin["evidence"] == [
            {"ts": T + 50, "kind": "sched_setaffinity", "tid": 101, "detail": None},
            {"ts": T + 90, "kind": "cgroup_attach_task", "tid": 101, "detail": "/top-app"},
        ]
        (reason,) = [x for x in r["health"]["reasons"] if x["id"] == "off_mask_cpu"]
        assert reason["evidence"]["events"] == pin["evidence"]
        # The syscall is a 10 ns slice on the worker's thread track.
        sl = runs.engine.query(
            "SELECT s.ts, s.dur FROM slice s JOIN thread_track tt ON tt.id = s.track_id "
            "JOIN thread USING (utid) WHERE tid = 101 AND s.name = 'sys_sched_setaffinity'")
        assert sl.rows() == [(T + 50, 10)]
