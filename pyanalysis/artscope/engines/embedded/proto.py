"""Perfetto protobuf trace bytes -> :class:`EventSink`.

The outer ``Trace`` message is split into packets by hand (it is just a
repeated field 1), so a truncated or partly corrupt file still yields every
intact packet; each packet is then parsed with the ``perfetto`` package's
``TracePacket``. FrameTimelineEvent (TracePacket field 76) is an extension
defined outside the shipped protos, so it arrives as unknown bytes and is
decoded here from its field numbers.

Clock domains: Android ftrace and SurfaceFlinger's frame timeline use
BOOTTIME, the default trace clock; packet timestamps in other clock domains
(rare in the traces artscope targets) are taken as-is. Packets without a
timestamp take the largest timestamp seen so far, as trace_processor does.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, Iterator

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded.events import EventSink, SwitchColumns, WakingColumns

FRAME_TIMELINE_FIELD = 76

# Ftrace events decoded into generic rows; anything else still becomes a raw
# ftrace_event row (name + common fields) as trace_processor does with raw
# ingestion on.
_GENERIC_WITH_FIELDS = frozenset({
    "print", "cpu_frequency", "cpu_frequency_limits", "cpu_idle",
    "clock_set_rate", "clk_set_rate", "devfreq_frequency", "task_newtask",
    "task_rename", "sched_process_free", "sched_process_exit",
    "cgroup_attach_task", "sys_enter", "sys_exit", "sched_blocked_reason",
    "sched_wakeup", "sched_wakeup_new", "suspend_resume", "gpu_frequency",
})


# ProcessStats.Process fields imported as process counters:
# field -> (counter name, multiplier), as importers/proto/
# system_probes_parser.cc names them (kB fields are stored in bytes).
_PROCESS_STATS_COUNTERS = {
    "vm_size_kb": ("mem.virt", 1024),
    "vm_rss_kb": ("mem.rss", 1024),
    "rss_anon_kb": ("mem.rss.anon", 1024),
    "rss_file_kb": ("mem.rss.file", 1024),
    "rss_shmem_kb": ("mem.rss.shmem", 1024),
    "vm_swap_kb": ("mem.swap", 1024),
    "vm_locked_kb": ("mem.locked", 1024),
    "vm_hwm_kb": ("mem.rss.watermark", 1024),
    "oom_score_adj": ("oom_score_adj", 1),
    "runtime_user_mode": ("runtime.user_ns", 1),
    "runtime_kernel_mode": ("runtime.kernel_ns", 1),
}


#: sys_stats fields the embedded engine imports as counters (the rest only
#: contribute their timestamp to trace_bounds).
_SYS_STATS_IMPORTED = frozenset({
    "cpufreq_khz", "devfreq", "gpufreq_mhz", "thermal_zone", "cpuidle_state",
    "collection_end_timestamp",
})


def _text(v: Any) -> Any:
    """A string field that failed UTF-8 validation arrives as bytes; keep the
    valid characters (trace_processor drops invalid UTF-8 from print bufs)."""
    return v.decode("utf-8", "ignore") if isinstance(v, bytes) else v


# -- wire helpers ------------------------------------------------------------

def _varint(buf: bytes | memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise DecodeError("varint too long")


def iter_fields(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """Yield (field_number, wire_type, value) of one message's top level.

    varint -> int, fixed64/fixed32 -> int (raw bits), length-delimited ->
    bytes. Raises DecodeError/IndexError on malformed input.
    """
    pos = 0
    n = len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        field, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = _varint(buf, pos)
        elif wt == 1:
            val = int.from_bytes(buf[pos:pos + 8], "little")
            pos += 8
        elif wt == 2:
            ln, pos = _varint(buf, pos)
            val = bytes(buf[pos:pos + ln])
            if len(val) != ln:
                raise DecodeError("truncated field")
            pos += ln
        elif wt == 5:
            val = int.from_bytes(buf[pos:pos + 4], "little")
            pos += 4
        else:
            raise DecodeError(f"unsupported wire type {wt}")
        yield field, wt, val


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _signed32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _float32(v: int) -> float:
    import struct
    return struct.unpack("<f", v.to_bytes(4, "little"))[0]


# FrameTimelineEvent sub-message layouts: field number -> (name, kind).
# kind: i64, i32, bool, enum, f32, str.
_FT_LAYOUTS: dict[int, dict[int, tuple[str, str]]] = {
    1: {1: ("cookie", "i64"), 2: ("token", "i64"), 3: ("pid", "i32")},
    2: {1: ("cookie", "i64"), 2: ("token", "i64"), 3: ("pid", "i32"),
        4: ("present_type", "enum"), 5: ("on_time_finish", "bool"),
        6: ("gpu_composition", "bool"), 7: ("jank_type", "i32"),
        8: ("prediction_type", "enum"), 9: ("jank_severity_type", "enum"),
        10: ("present_delay_millis", "f32"), 11: ("jank_severity_score", "f32"),
        12: ("jank_type_experimental", "i32"),
        13: ("present_type_experimental", "enum"),
        14: ("jank_debug_metadata", "f32"),
        15: ("latched_unsignaled_count", "i64"),
        16: ("addressable_unsignaled_latch_count", "i64")},
    3: {1: ("cookie", "i64"), 2: ("token", "i64"),
        3: ("display_frame_token", "i64"), 4: ("pid", "i32"),
        5: ("layer_name", "str")},
    4: {1: ("cookie", "i64"), 2: ("token", "i64"),
        3: ("display_frame_token", "i64"), 4: ("pid", "i32"),
        5: ("layer_name", "str"), 6: ("present_type", "enum"),
        7: ("on_time_finish", "bool"), 8: ("gpu_composition", "bool"),
        9: ("jank_type", "i32"), 10: ("prediction_type", "enum"),
        11: ("is_buffer", "bool"), 12: ("jank_severity_type", "enum"),
        13: ("present_delay_millis", "f32"),
        14: ("vsync_resynced_jitter_millis", "f32"),
        15: ("jank_severity_score", "f32"), 16: ("jank_type_experimental", "i32"),
        17: ("present_type_experimental", "enum"),
        18: ("jank_debug_metadata", "f32"), 19: ("latched_fence_state", "enum"),
        20: ("animation_time_millis", "f32")},
    5: {1: ("cookie", "i64")},
}


def decode_frame_timeline(raw: bytes) -> dict[str, Any] | None:
    """Decode a FrameTimelineEvent (field 76 payload) into a flat dict.

    Returns {"kind": 1..5, <field>: value, ...}; None if empty/unknown.
    """
    for field, wt, val in iter_fields(raw):
        layout = _FT_LAYOUTS.get(field)
        if layout is None or wt != 2:
            continue
        out: dict[str, Any] = {"kind": field}
        for f, fwt, v in iter_fields(val):
            spec = layout.get(f)
            if spec is None:
                continue
            name, kind = spec
            # A field whose wire type does not fit its declared type is
            # malformed (protobuf parsers skip it); skip it too.
            if (kind == "str") != (fwt == 2) or (kind != "f32" and fwt in (1, 5)):
                continue
            if kind == "str":
                out[name] = v.decode("utf-8", "replace")
            elif kind == "f32":
                out[name] = _float32(v) if fwt == 5 else float(v)
            elif kind == "i32":
                out[name] = _signed32(v)
            elif kind == "bool":
                out[name] = bool(v)
            else:
                out[name] = _signed64(v)
        return out
    return None


# -- packet splitting ----------------------------------------------------------

def split_packets(data: bytes) -> tuple[list[memoryview], bool]:
    """Split a serialized Trace into TracePacket payloads.

    Returns (packets, truncated). Stops at the first malformed framing.
    """
    mv = memoryview(data)
    n = len(data)
    pos = 0
    out: list[memoryview] = []
    while pos < n:
        try:
            key, p = _varint(mv, pos)
            wt = key & 7
            if wt == 2:
                ln, p = _varint(mv, p)
                if p + ln > n:
                    return out, True
                if key >> 3 == 1:
                    out.append(mv[p:p + ln])
                pos = p + ln
            elif wt == 0:
                _, pos = _varint(mv, p)
            elif wt == 1:
                pos = p + 8
            elif wt == 5:
                pos = p + 4
            else:
                return out, True
        except (IndexError, DecodeError):
            return out, True
    return out, pos > n


# -- the decoder ------------------------------------------------------------------

class ProtoDecoder:
    """Decodes packets into an EventSink."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.max_ts = 0
        self.bad_packets = 0
        # int columns as array('q') (peak RSS; protobuf ints fit int64)
        if not len(sink.switches):
            sink.switches = SwitchColumns.typed()
        if not len(sink.wakings):
            sink.wakings = WakingColumns.typed()
        # Per-CPU compact_sched state lives in tables.py (it needs sorting);
        # here we only flatten the arrays.

    def decode(self, data: bytes) -> int:
        packets, truncated = split_packets(data)
        sink = self.sink
        parse = pb.TracePacket.FromString
        for raw in packets:
            try:
                pkt = parse(raw)
            except DecodeError:
                self.bad_packets += 1
                continue
            try:
                self._packet(pkt, raw)
            except (DecodeError, IndexError, ValueError, UnicodeDecodeError):
                self.bad_packets += 1
        if truncated:
            sink.partial = True
            sink.warnings.append(
                "trace is truncated: imported the intact packets before the cut")
        if self.bad_packets:
            sink.partial = True
            sink.warnings.append(f"{self.bad_packets} corrupt packet(s) skipped")
            sink.add_stat("artscope_corrupt_packets", self.bad_packets)
        return len(packets) - self.bad_packets

    # ---------------------------------------------------------------------

    def _packet(self, pkt: pb.TracePacket, raw: memoryview) -> None:
        sink = self.sink
        if pkt.HasField("timestamp"):
            ts = pkt.timestamp
            if ts > self.max_ts:
                self.max_ts = ts
        else:
            ts = self.max_ts
        which = pkt.WhichOneof("data")
        if which is None:
            # Unknown oneof member: maybe the frame timeline extension.
            # One pass over the packet's top-level fields.
            # Same outcome on malformed bytes: silently ignored unless field
            # 76 came before the damage; then the events before it are kept
            # and the packet counts as corrupt (the error propagates).
            if not len(raw):
                return
            found: list[bytes] = []
            try:
                for field, wt, val in iter_fields(bytes(raw)):
                    if field == FRAME_TIMELINE_FIELD:
                        found.append(val if wt == 2 else None)
            except (DecodeError, IndexError):
                if not found:
                    return
                err = True
            else:
                err = False
            for val in found:
                if val is not None:
                    ev = decode_frame_timeline(val)
                    if ev is not None:
                        sink.packet(ts, "frame_timeline", ev)
            if err:
                raise DecodeError("truncated packet")
            return
        if which == "ftrace_events":
            self._ftrace_bundle(pkt.ftrace_events)
        elif which == "process_tree":
            self._process_tree(ts, pkt.process_tree)
        elif which == "process_stats":
            procs = [{"pid": p.pid, "threads": [t.tid for t in p.threads],
                      "counters": [(f.name, v) for f, v in p.ListFields()
                                   if f.name in _PROCESS_STATS_COUNTERS]}
                     for p in pkt.process_stats.processes]
            sink.packet(ts, "process_stats", {"processes": procs})
        elif which == "sys_stats":
            ss = pkt.sys_stats
            # trace_processor turns every other sys_stats field (meminfo,
            # vmstat, cpu_stat, irq/fork counts, psi...) into counters at this
            # ts; artscope does not import them but they bound the trace.
            if any(f.name not in _SYS_STATS_IMPORTED for f, _ in ss.ListFields()):
                sink.bound_only_ts.append(ts)
            if (len(ss.cpufreq_khz) or len(ss.devfreq) or len(ss.gpufreq_mhz)
                    or len(ss.thermal_zone) or len(ss.cpuidle_state)):
                sink.packet(ts, "sys_stats", {
                    "cpufreq_khz": list(ss.cpufreq_khz),
                    "devfreq": [(d.key, d.value) for d in ss.devfreq],
                    "gpufreq_mhz": list(ss.gpufreq_mhz),
                    "thermal_zone": [(z.type, z.temp) for z in ss.thermal_zone],
                    "cpuidle_state": [(c.cpu_id, e.state, e.duration_us)
                                      for c in ss.cpuidle_state
                                      for e in c.cpuidle_state_entry],
                })
        elif which == "cpu_info":
            sink.cpu_info = [
                {"cpu": i,
                 "processor": c.processor if c.HasField("processor") else None,
                 "capacity": c.capacity if c.HasField("capacity") else None,
                 "frequencies": list(c.frequencies)}
                for i, c in enumerate(pkt.cpu_info.cpus)
            ]
        elif which == "system_info":
            si = pkt.system_info
            if si.HasField("utsname"):
                sink.utsname_sysname = si.utsname.sysname
                sink.kernel_release = si.utsname.release
                sink.utsname_machine = si.utsname.machine
                if si.utsname.HasField("version"):
                    sink.utsname_version = si.utsname.version
            if si.HasField("timezone_off_mins"):
                sink.timezone_off_mins = si.timezone_off_mins
        elif which == "service_event":
            se = pkt.service_event
            if se.HasField("tracing_started") and se.tracing_started:
                sink.tracing_started_ts = ts
        elif which == "trace_config":
            sink.trace_config_pbtxt = text_format.MessageToString(pkt.trace_config)
        elif which == "packages_list":
            for p in pkt.packages_list.packages:
                sink.packages.append((
                    _text(p.name), p.uid, int(p.debuggable), int(p.profileable_from_shell),
                    p.version_code))
        elif which == "ftrace_stats":
            fs = pkt.ftrace_stats
            if fs.preserve_ftrace_buffer:
                sink.preserve_ftrace_buffer = True
            phase = "begin" if fs.phase == pb.FtraceStats.START_OF_TRACE else "end"
            for cs in fs.cpu_stats:
                for field in ("overrun", "commit_overrun", "dropped_events"):
                    sink.stats[(f"ftrace_cpu_{field}_{phase}", cs.cpu)] = getattr(cs, field)
                if phase == "end":
                    for field in ("overrun", "commit_overrun", "dropped_events"):
                        begin = sink.stats.get((f"ftrace_cpu_{field}_begin", cs.cpu), 0)
                        sink.stats[(f"ftrace_cpu_{field}_delta", cs.cpu)] = (
                            getattr(cs, field) - begin)
        elif which == "trace_stats":
            # Same stat names as trace_processor (storage/stats.h).
            st = pkt.trace_stats
            sink.stats[("traced_chunks_discarded", None)] = st.chunks_discarded
            sink.stats[("traced_patches_discarded", None)] = st.patches_discarded
            for i, b in enumerate(st.buffer_stats):
                for field in ("chunks_discarded", "chunks_overwritten", "patches_failed",
                              "abi_violations", "trace_writer_packet_loss",
                              "bytes_overwritten"):
                    sink.stats[(f"traced_buf_{field}", i)] = getattr(b, field)

    def _process_tree(self, ts: int, tree: pb.ProcessTree) -> None:
        procs = []
        for p in tree.processes:
            procs.append({
                "pid": p.pid,
                "ppid": p.ppid if p.HasField("ppid") else None,
                "cmdline": [_text(c) for c in p.cmdline],
                "has_cmdline": len(p.cmdline) > 0,
                "uid": p.uid if p.HasField("uid") else None,
                "start_ts": (p.process_start_from_boot
                             if p.HasField("process_start_from_boot") else None),
                "cmdline_is_comm": bool(p.cmdline_is_comm),
            })
        threads = [{"tid": t.tid, "tgid": t.tgid,
                    "name": _text(t.name) if t.HasField("name") else None}
                   for t in tree.threads]
        self.sink.packet(ts, "process_tree", {"processes": procs, "threads": threads})

    def _ftrace_bundle(self, bundle: pb.FtraceEventBundle) -> None:
        sink = self.sink
        cpu = bundle.cpu
        if cpu not in sink.first_bundle_end_ts:
            if bundle.HasField("previous_bundle_end_timestamp"):
                sink.first_bundle_end_ts[cpu] = bundle.previous_bundle_end_timestamp
            elif bundle.HasField("last_read_event_timestamp"):
                sink.first_bundle_end_ts[cpu] = bundle.last_read_event_timestamp
            else:
                sink.first_bundle_end_ts[cpu] = 0
        if bundle.lost_events:
            sink.stats[("ftrace_cpu_has_data_loss", cpu)] = 1
        if bundle.HasField("compact_sched"):
            self._compact(cpu, bundle.compact_sched)
        for ev in bundle.event:
            ts = ev.timestamp
            if ts > self.max_ts:
                self.max_ts = ts
            name = ev.WhichOneof("event")
            if name == "sched_switch":
                s = ev.sched_switch
                pc, nc = s.prev_comm, s.next_comm
                if type(pc) is not str or type(nc) is not str:
                    pc, nc = _text(pc), _text(nc)
                sink.sched_switch(ts, cpu, s.prev_pid, pc, s.prev_prio,
                                  s.prev_state, s.next_pid, nc, s.next_prio)
            elif name == "sched_waking":
                w = ev.sched_waking
                sink.sched_waking(ts, cpu, ev.pid, w.pid, _text(w.comm), w.prio,
                                  w.target_cpu)
            elif name is None:
                continue
            elif name in _GENERIC_WITH_FIELDS:
                msg = getattr(ev, name)
                sink.ftrace_event(ts, cpu, ev.pid, name,
                                  {f.name: _text(v) for f, v in msg.ListFields()})
            else:
                sink.ftrace_event(ts, cpu, ev.pid, name, {})

    def _compact(self, cpu: int, cs: pb.FtraceEventBundle.CompactSched) -> None:
        sink = self.sink
        intern = [_text(c) for c in cs.intern_table]
        n = min(len(cs.switch_timestamp), len(cs.switch_prev_state),
                len(cs.switch_next_pid), len(cs.switch_next_prio),
                len(cs.switch_next_comm_index))
        if n:
            # Delta-decoding and the intern check in C (accumulate / max):
            # compact_sched is the bulk of a large trace (bench/: ~1 us per
            # switch saved over the per-element Python loop).
            ts_out = list(accumulate(cs.switch_timestamp[:n]))
            comm_idx = list(cs.switch_next_comm_index[:n])
            bad = _first_bad_index(comm_idx, len(intern))
            if bad is not None:
                sink.add_stat("compact_sched_has_parse_errors")
                n = bad
                ts_out = ts_out[:n]
                comm_idx = comm_idx[:n]
            if ts_out and ts_out[-1] > self.max_ts:
                self.max_ts = ts_out[-1]
            # the repeated fields as they are when whole (array.extend reads
            # them directly, ~2x faster than from a list copy)
            sink.compact_switches(
                cpu, ts_out, _head(cs.switch_prev_state, n),
                _head(cs.switch_next_pid, n), _head(cs.switch_next_prio, n),
                [intern[i] for i in comm_idx])
        m = min(len(cs.waking_timestamp), len(cs.waking_pid),
                len(cs.waking_target_cpu), len(cs.waking_prio),
                len(cs.waking_comm_index))
        if m:
            # Columns appended in bulk (same rows, same seq numbering as m
            # sink.sched_waking(..., compact=True) calls; the per-event call
            # was ~40% of decoding a compact trace with wakings).
            ts_w = list(accumulate(cs.waking_timestamp[:m]))
            comm_w = list(cs.waking_comm_index[:m])
            bad = _first_bad_index(comm_w, len(intern))
            if bad is not None:
                # Events before the first bad index are kept, as before.
                m = bad
                sink.add_stat("compact_sched_has_parse_errors")
                # acc (max_ts) of the old loop included the bad event's ts.
                last_ts = ts_w[m]
                del ts_w[m:], comm_w[m:]
            else:
                last_ts = ts_w[-1]
            sink.compact_wakings(
                cpu, ts_w, _head(cs.waking_pid, m), _head(cs.waking_prio, m),
                _head(cs.waking_target_cpu, m), [intern[c] for c in comm_w])
            if last_ts > self.max_ts:
                self.max_ts = last_ts


def _first_bad_index(comm_idx: list[int], n_intern: int) -> int | None:
    """Index of the first comm index outside the intern table, or None
    (the max() check runs in C; the scan only when something is bad)."""
    if not comm_idx or max(comm_idx) < n_intern:
        return None
    return next(i for i, c in enumerate(comm_idx) if c >= n_intern)


def _head(values: Any, n: int) -> Any:
    """The first ``n`` values of a repeated field (the field itself if whole)."""
    return values if len(values) == n else values[:n]


def decode_proto(data: bytes, sink: EventSink) -> int:
    """Decode a Perfetto protobuf trace into ``sink``; returns the number of
    packets that parsed."""
    dec = ProtoDecoder(sink)
    return dec.decode(data)
