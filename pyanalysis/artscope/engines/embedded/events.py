"""Decoded trace events, before any table logic: the decoders' output.

Every input format (Perfetto protobuf in ``proto.py``, systrace/ftrace text in
``text.py``) is decoded into one :class:`EventSink`. ``tables.py`` then turns
the sink into trace_processor-shaped tables, replaying trace_processor's
import semantics (sorting, sched tracking, process tracking, slice nesting).
Decoders know nothing of tables; tables know nothing of wire formats.

Conventions
-----------
* Timestamps are int ns in the trace clock (BOOTTIME for Android traces).
* ``seq`` ordering: events are kept in arrival order; ``tables.py`` sorts them
  by ts with arrival order as the tie-breaker, as trace_processor's sorter does
  within one stream.
* sched_switch / sched_waking are the bulk of any trace, so they are stored
  columnar (python lists appended per event, or extended per compact bundle);
  every other ftrace event is a generic ``(ts, cpu, pid, name, fields)`` row.
* ``fields`` dicts use the ftrace field names of the proto messages
  (e.g. ``{"buf": ...}`` for print, ``{"state": ..., "cpu_id": ...}`` for
  cpu_frequency), so both decoders feed ``tables.py`` identically.
"""

from __future__ import annotations

import dataclasses
from array import array
from typing import Any


@dataclasses.dataclass
class SwitchColumns:
    """Columnar sched_switch events (regular and compact_sched)."""

    ts: list[int] = dataclasses.field(default_factory=list)
    cpu: list[int] = dataclasses.field(default_factory=list)
    #: prev_pid / prev_comm / prev_prio are None for compact_sched events
    #: (trace_processor infers them from the previous switch on the CPU).
    prev_pid: list[int | None] = dataclasses.field(default_factory=list)
    prev_comm: list[str | None] = dataclasses.field(default_factory=list)
    prev_prio: list[int | None] = dataclasses.field(default_factory=list)
    prev_state: list[int] = dataclasses.field(default_factory=list)
    next_pid: list[int] = dataclasses.field(default_factory=list)
    next_comm: list[str] = dataclasses.field(default_factory=list)
    next_prio: list[int] = dataclasses.field(default_factory=list)
    #: 1 for events decoded from compact_sched, else 0.
    compact: list[int] = dataclasses.field(default_factory=list)
    #: Global arrival index (shared counter across all ftrace events).
    seq: list[int] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ts)

    @classmethod
    def typed(cls) -> "SwitchColumns":
        """Columns whose values are always ints as ``array('q')`` (8 bytes a
        value instead of a list slot + an int object: bench/, 2M compact
        switches, ~180 MB less). Indexing, ``append`` and ``extend`` work as
        on the lists; values must fit int64 (the replay's sort needs that
        anyway)."""
        return cls(ts=array("q"), cpu=array("q"), prev_state=array("q"),
                   next_pid=array("q"), next_prio=array("q"), compact=array("q"),
                   seq=array("q"))


@dataclasses.dataclass
class WakingColumns:
    """Columnar sched_waking events (regular and compact_sched)."""

    ts: list[int] = dataclasses.field(default_factory=list)
    cpu: list[int] = dataclasses.field(default_factory=list)
    #: Common pid of the event (the waker); None for compact (inferred).
    pid: list[int | None] = dataclasses.field(default_factory=list)
    wakee_pid: list[int] = dataclasses.field(default_factory=list)
    comm: list[str] = dataclasses.field(default_factory=list)
    prio: list[int] = dataclasses.field(default_factory=list)
    target_cpu: list[int] = dataclasses.field(default_factory=list)
    compact: list[int] = dataclasses.field(default_factory=list)
    seq: list[int] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ts)

    @classmethod
    def typed(cls) -> "WakingColumns":
        """As :meth:`SwitchColumns.typed` (pid and comm stay lists)."""
        return cls(ts=array("q"), cpu=array("q"), wakee_pid=array("q"),
                   prio=array("q"), target_cpu=array("q"), compact=array("q"),
                   seq=array("q"))


@dataclasses.dataclass
class FtraceEvent:
    """Any ftrace event other than sched_switch / sched_waking."""

    ts: int
    cpu: int
    pid: int  # common pid (the thread that emitted the event)
    name: str  # ftrace event name, e.g. "print", "cpu_frequency"
    fields: dict[str, Any]
    seq: int


@dataclasses.dataclass
class Packet:
    """A non-ftrace packet of interest (process_tree, sys_stats, frames...).

    ``kind`` names the payload; ``data`` is a plain dict described where each
    decoder emits it (see ``tables.py`` for the consumer of each kind):

    * ``process_tree``: {"processes": [{pid, ppid, cmdline: [str], uid,
      start_ts|None, cmdline_is_comm}], "threads": [{tid, tgid, name|None}]}
    * ``process_stats``: {"processes": [{pid, threads: [tid...]}]}
    * ``sys_stats``: {"cpufreq_khz": [int per cpu], "devfreq": [(key, value)]}
    * ``frame_timeline``: {"kind": 1..5, fields by name (see proto.py)}
    * ``thread_tgid``: {"tid", "tgid"} -- systrace TGID column association
    * ``thread_name``: {"tid", "name"|None} -- systrace task column: the
      thread exists, and (when not ``<...>``) has that ftrace-priority name
    * ``process_tree`` with ``source: "systrace_ps"``: a systrace PROCESS DUMP
      (see text.py); its thread names have the lowest priority
    """

    ts: int
    kind: str
    data: dict[str, Any]
    seq: int


@dataclasses.dataclass
class EventSink:
    """Everything a decoder found in a trace."""

    switches: SwitchColumns = dataclasses.field(default_factory=SwitchColumns)
    wakings: WakingColumns = dataclasses.field(default_factory=WakingColumns)
    ftrace: list[FtraceEvent] = dataclasses.field(default_factory=list)
    packets: list[Packet] = dataclasses.field(default_factory=list)

    # Trace-wide facts, applied before sorting (as trace_processor does).
    #: (release string) from system_info.utsname; picks the end_state layout.
    kernel_release: str | None = None
    utsname_sysname: str | None = None
    utsname_machine: str | None = None
    #: utsname.version and SystemInfo.timezone_off_mins (metadata only).
    utsname_version: str | None = None
    timezone_off_mins: int | None = None
    #: [{"cpu": i, "processor": str|None, "capacity": int|None,
    #:   "frequencies": [kHz...]}] from CpuInfo.
    cpu_info: list[dict[str, Any]] | None = None
    #: ts of TracingServiceEvent.tracing_started (ftrace before it is dropped).
    tracing_started_ts: int | None = None
    preserve_ftrace_buffer: bool = False
    #: Per-CPU soft-drop marks: cpu -> previous_bundle_end_timestamp of the
    #: first bundle seen for that CPU (file order).
    first_bundle_end_ts: dict[int, int] = dataclasses.field(default_factory=dict)
    #: The recorded TraceConfig as text proto (trace_processor exposes it as
    #: metadata.trace_config_pbtxt); None when the trace has none.
    trace_config_pbtxt: str | None = None
    #: [(package_name, uid, debuggable, profileable_from_shell, version_code)]
    packages: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)
    #: stats name -> (idx or None) -> value, mirroring trace_processor's stats.
    stats: dict[tuple[str, int | None], int] = dataclasses.field(default_factory=dict)
    #: Timestamps of rows trace_processor creates from data artscope does not
    #: import (e.g. sys_stats meminfo/vmstat counters): they only widen
    #: trace_bounds, so a whole-trace window matches trace_processor's.
    bound_only_ts: list[int] = dataclasses.field(default_factory=list)
    #: One-line warnings for the user (truncation, skipped lines...).
    warnings: list[str] = dataclasses.field(default_factory=list)
    partial: bool = False

    _seq: int = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def add_stat(self, name: str, value: int = 1, idx: int | None = None) -> None:
        key = (name, idx)
        self.stats[key] = self.stats.get(key, 0) + value

    # -- appenders used by the decoders -----------------------------------

    def sched_switch(
        self,
        ts: int,
        cpu: int,
        prev_pid: int,
        prev_comm: str,
        prev_prio: int,
        prev_state: int,
        next_pid: int,
        next_comm: str,
        next_prio: int,
    ) -> None:
        s = self.switches
        s.ts.append(ts)
        s.cpu.append(cpu)
        s.prev_pid.append(prev_pid)
        s.prev_comm.append(prev_comm)
        s.prev_prio.append(prev_prio)
        s.prev_state.append(prev_state)
        s.next_pid.append(next_pid)
        s.next_comm.append(next_comm)
        s.next_prio.append(next_prio)
        s.compact.append(0)
        s.seq.append(self.next_seq())

    def compact_switches(
        self, cpu: int, ts: list[int], prev_state: list[int],
        next_pid: list[int], next_prio: list[int], next_comm: list[str],
    ) -> None:
        """A compact_sched bundle's switches (ts already absolute)."""
        s = self.switches
        n = len(ts)
        s.ts.extend(ts)
        s.cpu.extend(_repeat(s.cpu, cpu, n))
        nones = [None] * n
        s.prev_pid.extend(nones)
        s.prev_comm.extend(nones)
        s.prev_prio.extend(nones)
        s.prev_state.extend(prev_state)
        s.next_pid.extend(next_pid)
        s.next_comm.extend(next_comm)
        s.next_prio.extend(next_prio)
        s.compact.extend(_repeat(s.compact, 1, n))
        start = self._seq + 1
        self._seq += n
        s.seq.extend(_range(s.seq, start, start + n))

    def compact_wakings(
        self, cpu: int, ts: list[int], wakee_pid: Any, prio: Any,
        target_cpu: Any, comm: list[str],
    ) -> None:
        """A compact_sched bundle's wakings (ts already absolute; the waker is
        inferred by tables.py from the CPU's running task)."""
        w = self.wakings
        n = len(ts)
        w.ts.extend(ts)
        w.cpu.extend(_repeat(w.cpu, cpu, n))
        w.pid.extend([None] * n)
        w.wakee_pid.extend(wakee_pid)
        w.comm.extend(comm)
        w.prio.extend(prio)
        w.target_cpu.extend(target_cpu)
        w.compact.extend(_repeat(w.compact, 1, n))
        start = self._seq + 1
        self._seq += n
        w.seq.extend(_range(w.seq, start, start + n))

    def sched_waking(
        self, ts: int, cpu: int, pid: int | None, wakee_pid: int, comm: str,
        prio: int, target_cpu: int, compact: bool = False,
    ) -> None:
        w = self.wakings
        w.ts.append(ts)
        w.cpu.append(cpu)
        w.pid.append(pid)
        w.wakee_pid.append(wakee_pid)
        w.comm.append(comm)
        w.prio.append(prio)
        w.target_cpu.append(target_cpu)
        w.compact.append(1 if compact else 0)
        w.seq.append(self.next_seq())

    def ftrace_event(
        self, ts: int, cpu: int, pid: int, name: str, fields: dict[str, Any]
    ) -> None:
        self.ftrace.append(FtraceEvent(ts, cpu, pid, name, fields, self.next_seq()))

    def packet(self, ts: int, kind: str, data: dict[str, Any]) -> None:
        self.packets.append(Packet(ts, kind, data, self.next_seq()))


def _repeat(col: list[int] | array, value: int, n: int) -> list[int] | array:
    """``[value] * n`` of the column's own type (array.extend of a list
    converts value by value)."""
    return array(col.typecode, (value,)) * n if isinstance(col, array) else [value] * n


def _range(col: list[int] | array, start: int, stop: int) -> Any:
    if isinstance(col, array):
        return array(col.typecode, range(start, stop))
    return range(start, stop)
