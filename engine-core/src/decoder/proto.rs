//! Perfetto protobuf trace bytes -> [`Sink`].
//!
//! The outer `Trace` message is split into packets by hand (a repeated field
//! 1), so a truncated or partly corrupt file still yields every intact packet.
//! Each packet's fields are read straight from the wire: only the messages the
//! importer uses are descended into. Protobuf semantics kept where they show:
//! the last of a oneof's members wins, a singular message field seen twice is
//! merged, a known field with the wrong wire type is an unknown field, packed
//! and unpacked repeated scalars are both accepted, and proto2 presence
//! (HasField) is "appeared on the wire".
//!
//! FrameTimelineEvent (TracePacket field 76) is an extension defined outside
//! the public protos and is decoded from its field numbers.

use super::ftrace_schema::{
    event_name, generic_fields, is_packet_data_field, packet_data_field_name,
};
use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::*;

/// How a generic ftrace field is typed (protobuf scalar types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    I32,
    U32,
    I64,
    U64,
    S32,
    S64,
    Bool,
    Str,
}

pub const FRAME_TIMELINE_FIELD: u32 = 76;

type R<T> = Result<T, WireError>;

#[inline]
fn i32v(v: u64) -> i64 {
    v as u32 as i32 as i64
}
#[inline]
fn u32v(v: u64) -> i64 {
    v as u32 as i64
}

/// The varint of a field, or None when its wire type is not varint (then
/// protobuf keeps it as an unknown field).
#[inline]
fn varint(v: Value<'_>) -> Option<u64> {
    match v {
        Value::Varint(x) => Some(x),
        _ => None,
    }
}

#[inline]
fn bytes<'a>(v: Value<'a>) -> Option<&'a [u8]> {
    match v {
        Value::Bytes(b) => Some(b),
        _ => None,
    }
}

/// The payloads of a message's oneof member that protobuf keeps: the last
/// member seen wins, and its occurrences since the last other member merge.
struct OneofRun<'a> {
    field: Option<u32>,
    parts: Vec<&'a [u8]>,
}

impl<'a> OneofRun<'a> {
    fn new() -> Self {
        OneofRun {
            field: None,
            parts: Vec::new(),
        }
    }
    fn see(&mut self, field: u32, b: &'a [u8]) {
        if self.field != Some(field) {
            self.field = Some(field);
            self.parts.clear();
        }
        self.parts.push(b);
    }
}

/// ProcessStats.Process fields imported as process counters: field number
/// -> (counter name, multiplier), as importers/proto/system_probes_parser.cc
/// names them (kB fields are stored in bytes).
fn process_stats_counter(field: u32) -> Option<(&'static str, i128, bool)> {
    // (name, multiplier, signed int64 field)
    Some(match field {
        2 => ("mem.virt", 1024, false),
        3 => ("mem.rss", 1024, false),
        4 => ("mem.rss.anon", 1024, false),
        5 => ("mem.rss.file", 1024, false),
        6 => ("mem.rss.shmem", 1024, false),
        7 => ("mem.swap", 1024, false),
        8 => ("mem.locked", 1024, false),
        9 => ("mem.rss.watermark", 1024, false),
        10 => ("oom_score_adj", 1, true),
        21 => ("runtime.user_ns", 1, false),
        22 => ("runtime.kernel_ns", 1, false),
        _ => return None,
    })
}

/// sys_stats fields imported as counters (the rest only bound the trace).
const SYS_STATS_IMPORTED: [u32; 6] = [11, 10, 17, 15, 16, 9];

/// The warning of a trace whose packet framing is cut short.
pub const TRUNCATED_WARNING: &str =
    "trace is truncated: imported the intact packets before the cut";

/// Splits a serialized Trace into TracePacket payloads; returns (packets,
/// truncated). Stops at the first malformed framing.
pub fn split_packets(data: &[u8]) -> (Vec<&[u8]>, bool) {
    let n = data.len();
    let mut pos = 0usize;
    let mut out = Vec::new();
    while pos < n {
        let mut p = pos;
        let key = match super::wire::read_varint(data, &mut p) {
            Ok(k) => k,
            Err(_) => return (out, true),
        };
        match key & 7 {
            2 => {
                let ln = match super::wire::read_varint(data, &mut p) {
                    Ok(l) => l,
                    Err(_) => return (out, true),
                };
                let end = match usize::try_from(ln).ok().and_then(|l| p.checked_add(l)) {
                    Some(e) if e <= n => e,
                    _ => return (out, true),
                };
                if key >> 3 == 1 {
                    out.push(&data[p..end]);
                }
                pos = end;
            }
            0 => {
                if super::wire::read_varint(data, &mut p).is_err() {
                    return (out, true);
                }
                pos = p;
            }
            1 => pos = p + 8,
            5 => pos = p + 4,
            _ => return (out, true),
        }
    }
    (out, pos > n)
}

pub struct ProtoDecoder<'s> {
    pub sink: &'s mut Sink,
    max_ts: i64,
    bad_packets: i64,
    /// The failing packet's events so far stay (frame timeline extension
    /// bytes are only decoded after the packet parsed, as the reference does).
    keep_on_error: bool,
    /// TracePacket data kinds not imported: field number -> packets.
    skipped: std::collections::BTreeMap<u32, i64>,
}

/// TracePacket data kinds that are trace bookkeeping, not data a table would
/// hold: clock_snapshot, synchronization_marker, extension_descriptor,
/// trace_uuid, remote_clock_sync, trace_provenance. Not counted as skipped.
const BOOKKEEPING_KINDS: [u32; 6] = [6, 36, 72, 89, 107, 124];

/// The stats row counting the packets of a data kind the decoder skips:
/// `artscope_skipped_<TracePacket field name>` (e.g.
/// `artscope_skipped_track_event`), severity info, value = packets.
pub const SKIPPED_STAT_PREFIX: &str = "artscope_skipped_";

impl<'s> ProtoDecoder<'s> {
    pub fn new(sink: &'s mut Sink) -> Self {
        ProtoDecoder {
            sink,
            max_ts: 0,
            bad_packets: 0,
            keep_on_error: false,
            skipped: Default::default(),
        }
    }

    /// Decodes every packet; returns the number that parsed.
    pub fn decode(&mut self, data: &[u8]) -> i64 {
        let (packets, truncated) = split_packets(data);
        for raw in &packets {
            // A packet that does not parse as a whole adds nothing (protobuf
            // parses it before anything is read): undo what its prefix added.
            let mark = self.mark();
            self.keep_on_error = false;
            if self.packet(raw).is_err() {
                if !self.keep_on_error {
                    self.rollback(mark);
                }
                self.bad_packets += 1;
            }
        }
        if truncated {
            self.sink.partial = true;
            self.sink.warnings.push(TRUNCATED_WARNING.into());
        }
        for (&num, &n) in &self.skipped {
            if let Some(name) = packet_data_field_name(num) {
                let stat = format!("{SKIPPED_STAT_PREFIX}{name}");
                self.sink.stats.add(&stat, n, None);
            }
        }
        self.sink.bad_packets = self.bad_packets;
        if self.bad_packets > 0 {
            self.sink.partial = true;
            self.sink
                .warnings
                .push(format!("{} corrupt packet(s) skipped", self.bad_packets));
            self.sink
                .stats
                .add("artscope_corrupt_packets", self.bad_packets, None);
        }
        packets.len() as i64 - self.bad_packets
    }

    fn mark(&self) -> [usize; 11] {
        let s = &*self.sink;
        [
            s.order.len(),
            s.switches.len(),
            s.wakings.len(),
            s.ftrace.len(),
            s.packets.len(),
            s.first_bundle_end_ts.len(),
            s.bound_only_ts.len(),
            s.packages.len(),
            self.max_ts as usize,
            s.trace_configs.len(),
            s.compact_switches.len(),
        ]
    }

    fn rollback(&mut self, m: [usize; 11]) {
        let s = &mut *self.sink;
        s.order.truncate(m[0]);
        s.switches.truncate(m[1]);
        s.compact_switches.truncate(m[10]);
        s.wakings.truncate(m[2]);
        s.ftrace.truncate(m[3]);
        s.packets.truncate(m[4]);
        s.first_bundle_end_ts.truncate(m[5]);
        s.bound_only_ts.truncate(m[6]);
        s.packages.truncate(m[7]);
        self.max_ts = m[8] as i64;
        s.trace_configs.truncate(m[9]);
    }

    fn packet(&mut self, raw: &[u8]) -> R<()> {
        let mut ts: Option<i64> = None;
        let mut data = OneofRun::new();
        for f in Fields::new(raw) {
            let (num, v) = f?;
            if num == 8 {
                if let Some(x) = varint(v) {
                    ts = Some(x as i64);
                }
            } else if is_packet_data_field(num) {
                if let Some(b) = bytes(v) {
                    data.see(num, b);
                }
            }
        }
        let ts = match ts {
            Some(t) => {
                if t > self.max_ts {
                    self.max_ts = t;
                }
                t
            }
            None => self.max_ts,
        };
        let parts = std::mem::take(&mut data.parts);
        match data.field {
            None => self.frame_timeline_packet(ts, raw),
            Some(1) => {
                for p in &parts {
                    // merged bundles: decoded one after the other
                    self.ftrace_bundle(p)?;
                }
                Ok(())
            }
            Some(2) => self.process_tree(ts, &parts),
            Some(9) => self.process_stats(ts, &parts),
            Some(7) => self.sys_stats(ts, &parts),
            Some(67) => self.cpu_info(&parts),
            Some(45) => self.system_info(&parts),
            Some(69) => self.service_event(ts, &parts),
            Some(33) => {
                self.sink.trace_configs.push(parts.concat());
                Ok(())
            }
            Some(47) => self.packages_list(&parts),
            Some(34) => self.ftrace_stats(&parts),
            Some(35) => self.trace_stats(&parts),
            Some(n) => {
                if !BOOKKEEPING_KINDS.contains(&n) {
                    *self.skipped.entry(n).or_insert(0) += 1;
                }
                Ok(())
            }
        }
    }

    fn frame_timeline_packet(&mut self, ts: i64, raw: &[u8]) -> R<()> {
        let mut found: Vec<Option<&[u8]>> = Vec::new();
        let mut err = false;
        for f in Fields::new(raw) {
            match f {
                Ok((FRAME_TIMELINE_FIELD, v)) => found.push(bytes(v)),
                Ok(_) => {}
                Err(_) => {
                    if found.is_empty() {
                        return Ok(());
                    }
                    err = true;
                }
            }
        }
        self.keep_on_error = true;
        for b in found.into_iter().flatten() {
            if let Some(ev) = decode_frame_timeline(b)? {
                self.sink.push_packet(ts, PacketData::FrameTimeline(ev));
            }
        }
        if err {
            return Err(WireError);
        }
        Ok(())
    }

    fn ftrace_bundle(&mut self, buf: &[u8]) -> R<()> {
        let mut cpu: i64 = 0;
        let mut events: Vec<&[u8]> = Vec::new();
        let mut lost = false;
        let mut compact: Option<Vec<&[u8]>> = None;
        let mut last_read: Option<i64> = None;
        let mut prev_end: Option<i64> = None;
        for f in Fields::new(buf) {
            let (num, v) = f?;
            match num {
                1 => {
                    if let Some(x) = varint(v) {
                        cpu = u32v(x);
                    }
                }
                2 => {
                    if let Some(b) = bytes(v) {
                        events.push(b);
                    }
                }
                3 => {
                    if let Some(x) = varint(v) {
                        lost = x != 0;
                    }
                }
                4 => {
                    if let Some(b) = bytes(v) {
                        compact.get_or_insert_with(Vec::new).push(b);
                    }
                }
                9 => {
                    if let Some(x) = varint(v) {
                        last_read = Some(x as i64);
                    }
                }
                10 => {
                    if let Some(x) = varint(v) {
                        prev_end = Some(x as i64);
                    }
                }
                _ => {}
            }
        }
        // Nested messages must parse (protobuf parses them eagerly).
        for e in &events {
            super::wire::validate(e)?;
        }
        let sink = &mut *self.sink;
        if !sink.first_bundle_end_ts.iter().any(|(c, _)| *c == cpu) {
            let v = prev_end.or(last_read).unwrap_or(0);
            sink.first_bundle_end_ts.push((cpu, v));
        }
        if lost {
            sink.stats.set("ftrace_cpu_has_data_loss", 1, Some(cpu));
        }
        if let Some(parts) = compact {
            self.compact(cpu, &parts)?;
        }
        for e in events {
            self.ftrace_event(cpu, e)?;
        }
        Ok(())
    }

    fn compact(&mut self, cpu: i64, parts: &[&[u8]]) -> R<()> {
        let mut intern_raw: Vec<&[u8]> = Vec::new();
        let mut cols: [Vec<u64>; 12] = Default::default();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                match num {
                    5 => {
                        if let Some(b) = bytes(v) {
                            intern_raw.push(b);
                        }
                    }
                    1..=12 => push_varints(v, &mut cols[num as usize - 1])?,
                    _ => {}
                }
            }
        }
        let sink = &mut *self.sink;
        let intern: Vec<StrId> = intern_raw
            .iter()
            .map(|b| sink.strings.intern(&text(b)))
            .collect();
        let [sw_ts, sw_state, sw_pid, sw_prio, _, sw_comm, wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm, _] =
            &cols;
        let n = [
            sw_ts.len(),
            sw_state.len(),
            sw_pid.len(),
            sw_prio.len(),
            sw_comm.len(),
        ]
        .into_iter()
        .min()
        .unwrap();
        if n > 0 {
            let mut n_ok = n;
            if let Some(bad) = sw_comm[..n]
                .iter()
                .position(|&c| (c as u32) as usize >= intern.len())
            {
                sink.stats.add("compact_sched_has_parse_errors", 1, None);
                n_ok = bad;
            }
            let mut ts: i64 = 0;
            for i in 0..n_ok {
                ts = ts.wrapping_add(sw_ts[i] as i64);
                sink.push_switch(Switch {
                    ts,
                    cpu,
                    compact: true,
                    prev_pid: 0,
                    prev_comm: 0,
                    prev_state: sw_state[i] as i64,
                    next_pid: i32v(sw_pid[i]),
                    next_comm: intern[sw_comm[i] as u32 as usize],
                    next_prio: i32v(sw_prio[i]),
                });
            }
            if n_ok > 0 && ts > self.max_ts {
                self.max_ts = ts;
            }
        }
        let m = [
            wk_ts.len(),
            wk_pid.len(),
            wk_cpu.len(),
            wk_prio.len(),
            wk_comm.len(),
        ]
        .into_iter()
        .min()
        .unwrap();
        if m > 0 {
            let mut m_ok = m;
            if let Some(bad) = wk_comm[..m]
                .iter()
                .position(|&c| (c as u32) as usize >= intern.len())
            {
                sink.stats.add("compact_sched_has_parse_errors", 1, None);
                m_ok = bad;
            }
            let mut ts: i64 = 0;
            for i in 0..m {
                ts = ts.wrapping_add(wk_ts[i] as i64);
                if i == m_ok {
                    break; // the bad event's ts still counts for max_ts
                }
                sink.push_waking(Waking {
                    ts,
                    cpu,
                    compact: true,
                    pid: None,
                    wakee_pid: i32v(wk_pid[i]),
                    comm: intern[wk_comm[i] as u32 as usize],
                });
            }
            if ts > self.max_ts {
                self.max_ts = ts;
            }
        }
        Ok(())
    }

    fn ftrace_event(&mut self, cpu: i64, buf: &[u8]) -> R<()> {
        let mut ts: i64 = 0;
        let mut pid: i64 = 0;
        let mut ev = OneofRun::new();
        for f in Fields::new(buf) {
            let (num, v) = f?;
            match num {
                1 => {
                    if let Some(x) = varint(v) {
                        ts = x as i64;
                    }
                }
                2 => {
                    if let Some(x) = varint(v) {
                        pid = u32v(x);
                    }
                }
                5 => {}
                _ => {
                    if event_name(num).is_some() {
                        if let Some(b) = bytes(v) {
                            ev.see(num, b);
                        }
                    }
                }
            }
        }
        for p in &ev.parts {
            super::wire::validate(p)?;
        }
        if ts > self.max_ts {
            self.max_ts = ts;
        }
        let Some(num) = ev.field else { return Ok(()) };
        let name = event_name(num).unwrap();
        let sink = &mut *self.sink;
        match name {
            "sched_switch" => {
                let (mut prev_comm, mut prev_pid, mut prev_state) = (&b""[..], 0i64, 0i64);
                let (mut next_comm, mut next_pid, mut next_prio) = (&b""[..], 0i64, 0i64);
                for p in &ev.parts {
                    for f in Fields::new(p) {
                        let (n, v) = f?;
                        match (n, v) {
                            (1, Value::Bytes(b)) => prev_comm = b,
                            (2, Value::Varint(x)) => prev_pid = i32v(x),
                            (4, Value::Varint(x)) => prev_state = x as i64,
                            (5, Value::Bytes(b)) => next_comm = b,
                            (6, Value::Varint(x)) => next_pid = i32v(x),
                            (7, Value::Varint(x)) => next_prio = i32v(x),
                            _ => {}
                        }
                    }
                }
                let prev_comm = sink.strings.intern(&text(prev_comm));
                let next_comm = sink.strings.intern(&text(next_comm));
                sink.push_switch(Switch {
                    ts,
                    cpu,
                    compact: false,
                    prev_pid,
                    prev_comm,
                    prev_state,
                    next_pid,
                    next_comm,
                    next_prio,
                });
            }
            "sched_waking" => {
                let (mut comm, mut wpid) = (&b""[..], 0i64);
                for p in &ev.parts {
                    for f in Fields::new(p) {
                        let (n, v) = f?;
                        match (n, v) {
                            (1, Value::Bytes(b)) => comm = b,
                            (2, Value::Varint(x)) => wpid = i32v(x),
                            _ => {}
                        }
                    }
                }
                let comm = sink.strings.intern(&text(comm));
                sink.push_waking(Waking {
                    ts,
                    cpu,
                    compact: false,
                    pid: Some(pid),
                    wakee_pid: wpid,
                    comm,
                });
            }
            _ => {
                let fields = match generic_fields(name) {
                    Some(specs) => generic_values(specs, &ev.parts)?,
                    None => Vec::new(),
                };
                sink.push_ftrace(FtraceEv {
                    ts,
                    cpu,
                    pid,
                    name,
                    fields,
                });
            }
        }
        Ok(())
    }

    fn process_tree(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut processes = Vec::new();
        let mut threads = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                match (num, v) {
                    (1, Value::Bytes(b)) => processes.push(tree_process(b)?),
                    (2, Value::Bytes(b)) => threads.push(tree_thread(b)?),
                    _ => {}
                }
            }
        }
        self.sink
            .push_packet(ts, PacketData::ProcessTree { processes, threads });
        Ok(())
    }

    fn process_stats(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut procs = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                if let (1, Value::Bytes(b)) = (num, v) {
                    procs.push(stats_process(b)?);
                }
            }
        }
        self.sink.push_packet(ts, PacketData::ProcessStats(procs));
        Ok(())
    }

    fn sys_stats(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut d = SysStatsData::default();
        let mut other = false;
        let mut cpufreq: Vec<u64> = Vec::new();
        let mut gpufreq: Vec<u64> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                let known_kind = match num {
                    4 | 5 | 7 | 9 => v.wire_type() == 0,
                    11 | 17 => matches!(v.wire_type(), 0 | 2),
                    1..=18 => v.wire_type() == 2,
                    _ => false,
                };
                if !known_kind {
                    continue; // an unknown field: not in ListFields
                }
                if !SYS_STATS_IMPORTED.contains(&num) {
                    other = true;
                }
                match (num, v) {
                    (11, v) => push_varints(v, &mut cpufreq)?,
                    (17, v) => push_varints(v, &mut gpufreq)?,
                    (10, Value::Bytes(b)) => {
                        let (mut key, mut val) = (String::new(), 0i128);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => key = text(s),
                                (2, Value::Varint(x)) => val = x as i128,
                                _ => {}
                            }
                        }
                        d.devfreq.push((key, val));
                    }
                    (15, Value::Bytes(b)) => {
                        let (mut ty, mut temp) = (String::new(), 0i128);
                        for f in Fields::new(b) {
                            match f? {
                                (3, Value::Bytes(s)) => ty = text(s),
                                (2, Value::Varint(x)) => temp = x as i128,
                                _ => {}
                            }
                        }
                        d.thermal_zone.push((ty, temp));
                    }
                    (16, Value::Bytes(b)) => {
                        let mut cpu = 0i64;
                        let mut entries = Vec::new();
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => cpu = u32v(x),
                                (2, Value::Bytes(e)) => {
                                    let (mut st, mut dur) = (String::new(), 0i128);
                                    for f in Fields::new(e) {
                                        match f? {
                                            (1, Value::Bytes(s)) => st = text(s),
                                            (2, Value::Varint(x)) => dur = x as i128,
                                            _ => {}
                                        }
                                    }
                                    entries.push((st, dur));
                                }
                                _ => {}
                            }
                        }
                        for (st, dur) in entries {
                            d.cpuidle_state.push((cpu, st, dur));
                        }
                    }
                    (_, Value::Bytes(b)) => super::wire::validate(b)?,
                    _ => {}
                }
            }
        }
        d.cpufreq_khz = cpufreq.iter().map(|&x| u32v(x)).collect();
        d.gpufreq_mhz = gpufreq.iter().map(|&x| x as i128).collect();
        if other {
            self.sink.bound_only_ts.push(ts);
        }
        if !(d.cpufreq_khz.is_empty()
            && d.devfreq.is_empty()
            && d.gpufreq_mhz.is_empty()
            && d.thermal_zone.is_empty()
            && d.cpuidle_state.is_empty())
        {
            self.sink.push_packet(ts, PacketData::SysStats(d));
        }
        Ok(())
    }

    fn cpu_info(&mut self, parts: &[&[u8]]) -> R<()> {
        let mut cpus = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                if let (1, Value::Bytes(b)) = f? {
                    let mut c = CpuInfo {
                        processor: None,
                        capacity: None,
                        frequencies: Vec::new(),
                    };
                    let mut freqs = Vec::new();
                    for f in Fields::new(b) {
                        match f? {
                            (1, Value::Bytes(s)) => c.processor = Some(text(s)),
                            (2, v) => push_varints(v, &mut freqs)?,
                            (3, Value::Varint(x)) => c.capacity = Some(u32v(x)),
                            _ => {}
                        }
                    }
                    c.frequencies = freqs.iter().map(|&x| u32v(x)).collect();
                    cpus.push(c);
                }
            }
        }
        self.sink.cpu_info = Some(cpus);
        Ok(())
    }

    fn system_info(&mut self, parts: &[&[u8]]) -> R<()> {
        let mut uts: Option<(String, Option<String>, String, String)> = None;
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Bytes(b)) => {
                        let u = uts.get_or_insert_with(Default::default);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => u.0 = text(s),
                                (2, Value::Bytes(s)) => u.1 = Some(text(s)),
                                (3, Value::Bytes(s)) => u.2 = text(s),
                                (4, Value::Bytes(s)) => u.3 = text(s),
                                _ => {}
                            }
                        }
                    }
                    (7, Value::Varint(x)) => self.sink.timezone_off_mins = Some(i32v(x)),
                    _ => {}
                }
            }
        }
        if let Some((sysname, version, release, machine)) = uts {
            self.sink.utsname_sysname = Some(sysname);
            self.sink.kernel_release = Some(release);
            self.sink.utsname_machine = Some(machine);
            if version.is_some() {
                self.sink.utsname_version = version;
            }
        }
        Ok(())
    }

    fn service_event(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut started = false;
        for p in parts {
            for f in Fields::new(p) {
                if let (num, Value::Varint(x)) = f? {
                    // event_type oneof: the last member wins
                    if matches!(num, 1..=11) {
                        started = num == 2 && x != 0;
                    }
                }
            }
        }
        if started {
            self.sink.tracing_started_ts = Some(ts);
        }
        Ok(())
    }

    fn packages_list(&mut self, parts: &[&[u8]]) -> R<()> {
        for p in parts {
            for f in Fields::new(p) {
                if let (1, Value::Bytes(b)) = f? {
                    let (mut name, mut uid, mut dbg, mut prof, mut ver) =
                        (String::new(), 0, 0, 0, 0);
                    for f in Fields::new(b) {
                        match f? {
                            (1, Value::Bytes(s)) => name = text(s),
                            (2, Value::Varint(x)) => uid = x as i64,
                            (3, Value::Varint(x)) => dbg = (x != 0) as i64,
                            (4, Value::Varint(x)) => prof = (x != 0) as i64,
                            (5, Value::Varint(x)) => ver = x as i64,
                            _ => {}
                        }
                    }
                    self.sink.packages.push((name, uid, dbg, prof, ver));
                }
            }
        }
        Ok(())
    }

    fn ftrace_stats(&mut self, parts: &[&[u8]]) -> R<()> {
        let mut phase = 0u64;
        let mut cpu_stats: Vec<(i64, [i64; 3])> = Vec::new();
        let mut preserve = false;
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Varint(x)) => phase = x,
                    (2, Value::Bytes(b)) => {
                        let (mut cpu, mut vals) = (0i64, [0i64; 3]);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => cpu = x as i64,
                                (3, Value::Varint(x)) => vals[0] = x as i64,
                                (4, Value::Varint(x)) => vals[1] = x as i64,
                                (8, Value::Varint(x)) => vals[2] = x as i64,
                                _ => {}
                            }
                        }
                        cpu_stats.push((cpu, vals));
                    }
                    (8, Value::Varint(x)) => preserve = x != 0,
                    _ => {}
                }
            }
        }
        let sink = &mut *self.sink;
        if preserve {
            sink.preserve_ftrace_buffer = true;
        }
        // FtraceStats.Phase: START_OF_TRACE = 1
        let phase = if phase == 1 { "begin" } else { "end" };
        const NAMES: [&str; 3] = ["overrun", "commit_overrun", "dropped_events"];
        for (cpu, vals) in cpu_stats {
            for (name, v) in NAMES.iter().zip(vals) {
                sink.stats
                    .set(&format!("ftrace_cpu_{name}_{phase}"), v, Some(cpu));
            }
            if phase == "end" {
                for (name, v) in NAMES.iter().zip(vals) {
                    let begin = sink
                        .stats
                        .get(&format!("ftrace_cpu_{name}_begin"), Some(cpu))
                        .unwrap_or(0);
                    sink.stats
                        .set(&format!("ftrace_cpu_{name}_delta"), v - begin, Some(cpu));
                }
            }
        }
        Ok(())
    }

    fn trace_stats(&mut self, parts: &[&[u8]]) -> R<()> {
        let (mut chunks, mut patches) = (0i64, 0i64);
        let mut bufs: Vec<[i64; 6]> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (8, Value::Varint(x)) => chunks = x as i64,
                    (9, Value::Varint(x)) => patches = x as i64,
                    (1, Value::Bytes(b)) => {
                        let mut vals = [0i64; 6];
                        for f in Fields::new(b) {
                            if let (n, Value::Varint(x)) = f? {
                                let slot = match n {
                                    18 => 0,
                                    3 => 1,
                                    6 => 2,
                                    9 => 3,
                                    19 => 4,
                                    13 => 5,
                                    _ => continue,
                                };
                                vals[slot] = x as i64;
                            }
                        }
                        bufs.push(vals);
                    }
                    _ => {}
                }
            }
        }
        let st = &mut self.sink.stats;
        st.set("traced_chunks_discarded", chunks, None);
        st.set("traced_patches_discarded", patches, None);
        const NAMES: [&str; 6] = [
            "chunks_discarded",
            "chunks_overwritten",
            "patches_failed",
            "abi_violations",
            "trace_writer_packet_loss",
            "bytes_overwritten",
        ];
        for (i, vals) in bufs.iter().enumerate() {
            for (name, v) in NAMES.iter().zip(vals) {
                st.set(&format!("traced_buf_{name}"), *v, Some(i as i64));
            }
        }
        Ok(())
    }
}

fn tree_process(b: &[u8]) -> R<TreeProcess> {
    let mut p = TreeProcess {
        pid: 0,
        ppid: None,
        cmdline: Vec::new(),
        uid: None,
        start_ts: None,
        cmdline_is_comm: false,
    };
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => p.pid = i32v(x),
            (2, Value::Varint(x)) => p.ppid = Some(i32v(x)),
            (3, Value::Bytes(s)) => p.cmdline.push(text(s)),
            (5, Value::Varint(x)) => p.uid = Some(i32v(x)),
            (7, Value::Varint(x)) => p.start_ts = Some(x as i64),
            (9, Value::Varint(x)) => p.cmdline_is_comm = x != 0,
            _ => {}
        }
    }
    Ok(p)
}

fn tree_thread(b: &[u8]) -> R<TreeThread> {
    let mut t = TreeThread {
        tid: 0,
        tgid: 0,
        name: None,
    };
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => t.tid = i32v(x),
            (2, Value::Bytes(s)) => t.name = Some(text(s)),
            (3, Value::Varint(x)) => t.tgid = i32v(x),
            _ => {}
        }
    }
    Ok(t)
}

fn stats_process(b: &[u8]) -> R<StatsProcess> {
    let mut p = StatsProcess {
        pid: 0,
        threads: Vec::new(),
        counters: Vec::new(),
    };
    // field number -> value, last occurrence wins; emitted in field order
    let mut vals: Vec<(u32, &'static str, i128)> = Vec::new();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => p.pid = i32v(x),
            (11, Value::Bytes(t)) => {
                let mut tid = 0;
                for f in Fields::new(t) {
                    if let (1, Value::Varint(x)) = f? {
                        tid = i32v(x);
                    }
                }
                p.threads.push(tid);
            }
            (n, Value::Varint(x)) => {
                if let Some((name, mult, signed)) = process_stats_counter(n) {
                    let v = if signed { x as i64 as i128 } else { x as i128 };
                    vals.retain(|(m, _, _)| *m != n);
                    vals.push((n, name, v * mult));
                }
            }
            (_, Value::Bytes(x)) => super::wire::validate(x).map(|_| ())?,
            _ => {}
        }
    }
    vals.sort_by_key(|(n, _, _)| *n);
    p.counters = vals.into_iter().map(|(_, name, v)| (name, v)).collect();
    Ok(p)
}

/// The present fields of a generic event, in field-number order.
fn generic_values(
    specs: &'static [super::ftrace_schema::FieldSpec],
    parts: &[&[u8]],
) -> R<Vec<(&'static str, FieldVal)>> {
    let mut slots: Vec<Option<FieldVal>> = vec![None; specs.len()];
    let mut lists: Vec<Vec<u64>> = vec![Vec::new(); specs.len()];
    for p in parts {
        for f in Fields::new(p) {
            let (num, v) = f?;
            let Some(i) = specs.iter().position(|s| s.0 == num) else {
                continue;
            };
            let (_, _, kind, repeated) = specs[i];
            if repeated {
                if kind != FieldKind::Str {
                    push_varints(v, &mut lists[i])?;
                }
                continue;
            }
            let val = match (kind, v) {
                (FieldKind::Str, Value::Bytes(b)) => FieldVal::Str(text(b)),
                (FieldKind::I32, Value::Varint(x)) => FieldVal::Int(i32v(x) as i128),
                (FieldKind::U32, Value::Varint(x)) => FieldVal::Int(u32v(x) as i128),
                (FieldKind::I64, Value::Varint(x)) => FieldVal::Int(x as i64 as i128),
                (FieldKind::U64, Value::Varint(x)) => FieldVal::Int(x as i128),
                (FieldKind::S32, Value::Varint(x)) => {
                    FieldVal::Int((((x as u32) >> 1) as i32 ^ -((x & 1) as i32)) as i128)
                }
                (FieldKind::S64, Value::Varint(x)) => {
                    FieldVal::Int(((x >> 1) as i64 ^ -((x & 1) as i64)) as i128)
                }
                (FieldKind::Bool, Value::Varint(x)) => FieldVal::Bool(x != 0),
                _ => continue,
            };
            slots[i] = Some(val);
        }
    }
    let mut out = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        if spec.3 {
            if !lists[i].is_empty() {
                // a repeated scalar's str(): "[1, 2, 3]"
                let items: Vec<String> = lists[i]
                    .iter()
                    .map(|&x| match spec.2 {
                        FieldKind::I32 => i32v(x).to_string(),
                        FieldKind::U32 => u32v(x).to_string(),
                        FieldKind::I64 => (x as i64).to_string(),
                        _ => x.to_string(),
                    })
                    .collect();
                out.push((spec.1, FieldVal::Str(format!("[{}]", items.join(", ")))));
            }
        } else if let Some(v) = slots[i].take() {
            out.push((spec.1, v));
        }
    }
    Ok(out)
}

/// FrameTimelineEvent sub-message field -> (name, kind): i64, i32, bool,
/// enum (as i64), f32, str.
fn ft_field(kind: u32, field: u32) -> Option<(&'static str, &'static str)> {
    let spec = match (kind, field) {
        (1..=4, 1) => ("cookie", "i64"),
        (5, 1) => ("cookie", "i64"),
        (1..=4, 2) => ("token", "i64"),
        (1 | 2, 3) => ("pid", "i32"),
        (3 | 4, 3) => ("display_frame_token", "i64"),
        (3 | 4, 4) => ("pid", "i32"),
        (3 | 4, 5) => ("layer_name", "str"),
        (2, 4) => ("present_type", "enum"),
        (2, 5) => ("on_time_finish", "bool"),
        (2, 6) => ("gpu_composition", "bool"),
        (2, 7) => ("jank_type", "i32"),
        (2, 8) => ("prediction_type", "enum"),
        (2, 9) => ("jank_severity_type", "enum"),
        (2, 10) => ("present_delay_millis", "f32"),
        (2, 11) => ("jank_severity_score", "f32"),
        (2, 12) => ("jank_type_experimental", "i32"),
        (2, 13) => ("present_type_experimental", "enum"),
        (2, 14) => ("jank_debug_metadata", "f32"),
        (2, 15) => ("latched_unsignaled_count", "i64"),
        (2, 16) => ("addressable_unsignaled_latch_count", "i64"),
        (4, 6) => ("present_type", "enum"),
        (4, 7) => ("on_time_finish", "bool"),
        (4, 8) => ("gpu_composition", "bool"),
        (4, 9) => ("jank_type", "i32"),
        (4, 10) => ("prediction_type", "enum"),
        (4, 11) => ("is_buffer", "bool"),
        (4, 12) => ("jank_severity_type", "enum"),
        (4, 13) => ("present_delay_millis", "f32"),
        (4, 14) => ("vsync_resynced_jitter_millis", "f32"),
        (4, 15) => ("jank_severity_score", "f32"),
        (4, 16) => ("jank_type_experimental", "i32"),
        (4, 17) => ("present_type_experimental", "enum"),
        (4, 18) => ("jank_debug_metadata", "f32"),
        (4, 19) => ("latched_fence_state", "enum"),
        (4, 20) => ("animation_time_millis", "f32"),
        _ => return None,
    };
    Some(spec)
}

/// Decodes a FrameTimelineEvent payload: its first known sub-message.
pub fn decode_frame_timeline(raw: &[u8]) -> R<Option<FrameEv>> {
    for f in Fields::new(raw) {
        let (kind, v) = f?;
        let Value::Bytes(body) = v else { continue };
        if !(1..=5).contains(&kind) {
            continue;
        }
        let mut ev = FrameEv {
            kind,
            ..Default::default()
        };
        for f in Fields::new(body) {
            let (field, v) = f?;
            let Some((name, ty)) = ft_field(kind, field) else {
                continue;
            };
            // a field whose wire type does not fit its declared type is skipped
            let wt = v.wire_type();
            if (ty == "str") != (wt == 2) || (ty != "f32" && (wt == 1 || wt == 5)) {
                continue;
            }
            let int = match v {
                Value::Varint(x) | Value::Fixed64(x) => x,
                Value::Fixed32(x) => x as u64,
                Value::Bytes(_) => 0,
            };
            match ty {
                "str" => {
                    if let Value::Bytes(s) = v {
                        ev.layer_name = Some(String::from_utf8_lossy(s).into_owned());
                    }
                }
                "f32" => {
                    let x = match v {
                        Value::Fixed32(b) => f32::from_bits(b) as f64,
                        _ => int as f64,
                    };
                    if name == "jank_severity_score" {
                        ev.jank_severity_score = Some(x);
                    }
                }
                "bool" => {
                    let b = Some(int != 0);
                    match name {
                        "on_time_finish" => ev.on_time_finish = b,
                        "gpu_composition" => ev.gpu_composition = b,
                        _ => ev.is_buffer = b,
                    }
                }
                _ => {
                    let x = Some(if ty == "i32" { i32v(int) } else { int as i64 });
                    match name {
                        "cookie" => ev.cookie = x,
                        "token" => ev.token = x,
                        "pid" => ev.pid = x,
                        "display_frame_token" => ev.display_frame_token = x,
                        "present_type" => ev.present_type = x,
                        "jank_type" => ev.jank_type = x,
                        "prediction_type" => ev.prediction_type = x,
                        "jank_severity_type" => ev.jank_severity_type = x,
                        "jank_type_experimental" => ev.jank_type_experimental = x,
                        "present_type_experimental" => ev.present_type_experimental = x,
                        "latched_unsignaled_count" => ev.latched_unsignaled_count = x,
                        "addressable_unsignaled_latch_count" => {
                            ev.addressable_unsignaled_latch_count = x
                        }
                        "latched_fence_state" => ev.latched_fence_state = x,
                        _ => {}
                    }
                }
            }
        }
        return Ok(Some(ev));
    }
    Ok(None)
}

/// Decodes a Perfetto protobuf trace into `sink`; returns the number of
/// packets that parsed.
pub fn decode_proto(data: &[u8], sink: &mut Sink) -> i64 {
    ProtoDecoder::new(sink).decode(data)
}
