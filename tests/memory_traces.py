"""Memory and start-up events for the tiny metric traces (tests/metric_traces.py).

The fixture encoder (fixtures/make_fixtures.py) writes sched, atrace and
frequency events; the kernel's memory events (direct reclaim, rss_stat, the
OOM killer's mark_victim, sched_blocked_reason) and sys_stats vmstat polls are
written here as extra packets appended to its bytes. A trace is a sequence of
packets, so appending keeps everything else byte-identical; both engines sort
the events by time.

Nothing here computes an expected value: the tests derive them by hand.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

import metric_traces as MT  # puts fixtures/ on sys.path
import make_fixtures as M  # noqa: E402

#: ftrace events the memory metrics read, as the recorded config names them.
MEMORY_FTRACE_EVENTS = (
    "vmscan/mm_vmscan_direct_reclaim_begin",
    "vmscan/mm_vmscan_direct_reclaim_end",
    "kmem/rss_stat",
    "oom/mark_victim",
    "sched/sched_blocked_reason",
)
SEQ_MEMORY_FTRACE, SEQ_VMSTAT = 21, 22


@dataclasses.dataclass(frozen=True)
class Reclaim:
    """Direct reclaim of thread ``tid`` during [begin_ms, end_ms) (end None: open)."""

    tid: int
    begin_ms: float
    end_ms: float | None
    cpu: int = 0


@dataclasses.dataclass(frozen=True)
class Rss:
    """rss_stat of the emitting thread's own mm (curr=1): ``member`` is the
    kernel's MM_* counter (0 file, 1 anon, 2 swap, 3 shmem), size in kB."""

    ts_ms: float
    tid: int
    member: int
    kb: int
    mm_id: int = 77
    cpu: int = 0


@dataclasses.dataclass(frozen=True)
class Victim:
    """mark_victim: the OOM killer chose process ``pid``."""

    ts_ms: float
    pid: int
    cpu: int = 0


@dataclasses.dataclass(frozen=True)
class Blocked:
    """sched_blocked_reason of ``tid`` (written as it blocks)."""

    ts_ms: float
    tid: int
    io_wait: bool
    cpu: int = 0


@dataclasses.dataclass(frozen=True)
class Vmstat:
    """One sys_stats poll of /proc/vmstat: {VMSTAT_* enum name: value}."""

    ts_ms: float
    values: tuple[tuple[str, int], ...]


def extra_packets(events: list, vmstat: list[Vmstat] = ()) -> bytes:
    """Serialized packets holding ``events`` (one bundle per CPU) and polls."""
    trace = pb.Trace()
    per_cpu: dict[int, list[tuple[int, object]]] = {}
    for e in events:
        if isinstance(e, Reclaim):
            per_cpu.setdefault(e.cpu, []).append((MT.t(e.begin_ms), ("begin", e)))
            if e.end_ms is not None:
                per_cpu[e.cpu].append((MT.t(e.end_ms), ("end", e)))
        else:
            per_cpu.setdefault(e.cpu, []).append((MT.t(e.ts_ms), ("", e)))
    for cpu in sorted(per_cpu):
        p = trace.packet.add()
        p.trusted_packet_sequence_id = SEQ_MEMORY_FTRACE
        bundle = p.ftrace_events
        bundle.cpu = cpu
        for ts, (phase, e) in sorted(per_cpu[cpu], key=lambda x: x[0]):
            fe = bundle.event.add()
            fe.timestamp = ts
            if isinstance(e, Reclaim):
                fe.pid = e.tid
                if phase == "begin":
                    fe.mm_vmscan_direct_reclaim_begin.order = 0
                    fe.mm_vmscan_direct_reclaim_begin.may_writepage = 1
                    fe.mm_vmscan_direct_reclaim_begin.gfp_flags = 0x400dc0
                else:
                    fe.mm_vmscan_direct_reclaim_end.nr_reclaimed = 32
            elif isinstance(e, Rss):
                fe.pid = e.tid
                fe.rss_stat.member = e.member
                fe.rss_stat.size = e.kb * 1024
                fe.rss_stat.curr = 1
                fe.rss_stat.mm_id = e.mm_id
            elif isinstance(e, Victim):
                fe.pid = 0
                fe.mark_victim.pid = e.pid
            elif isinstance(e, Blocked):
                fe.pid = 0
                fe.sched_blocked_reason.pid = e.tid
                fe.sched_blocked_reason.io_wait = int(e.io_wait)
                fe.sched_blocked_reason.caller = 0
            else:
                raise TypeError(e)
    for poll in vmstat:
        p = trace.packet.add()
        p.timestamp = MT.t(poll.ts_ms)
        p.trusted_packet_sequence_id = SEQ_VMSTAT
        for key, value in poll.values:
            v = p.sys_stats.vmstat.add()
            v.key = getattr(pb, key)
            v.value = value
    return trace.SerializeToString()


def build(sch, events: list = (), vmstat: list[Vmstat] = ()) -> bytes:
    """The schedule's trace plus the memory events; the recorded config lists
    the memory ftrace events (and vmstat polling when there are polls)."""
    sch.ftrace_events = tuple(sch.ftrace_events) + MEMORY_FTRACE_EVENTS
    return M.build(sch) + extra_packets(list(events), list(vmstat))


def write(sch, directory: Path, events: list = (), vmstat: list[Vmstat] = ()) -> Path:
    path = Path(directory) / f"{sch.name}.pftrace"
    path.write_bytes(build(sch, events, vmstat))
    return path
