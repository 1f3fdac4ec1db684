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
use super::sink::Sink;
use super::wire::{i32v, push_varints, text, text_ref, FieldKind, Fields, Value, WireError};
use crate::events::track_event::TrackEventPacket;
use crate::events::*;
use crate::metadata::MetaVal;
use rustc_hash::FxHashMap as HashMap;

pub const FRAME_TIMELINE_FIELD: u32 = 76;

type R<T> = Result<T, WireError>;

/// The varint fields 1..=N of a small message (absent: 0), as its
/// decoder reads them (the last occurrence wins).
fn varint_fields<const N: usize>(b: &[u8]) -> R<[u64; N]> {
    merged_varints(&[b])
}

/// `varint_fields` of a message given in parts (merged: a later part's
/// value of a field replaces an earlier one's).
fn merged_varints<const N: usize>(parts: &[&[u8]]) -> R<[u64; N]> {
    let mut out = [0u64; N];
    for p in parts {
        for f in Fields::new(p) {
            if let (n @ 1.., Value::Varint(x)) = f? {
                if let Some(slot) = out.get_mut(n as usize - 1) {
                    *slot = x;
                }
            }
        }
    }
    Ok(out)
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
/// One occurrence (nearly always) is kept without allocating: this runs for
/// every ftrace event of a trace.
struct OneofRun<'a> {
    field: Option<u32>,
    first: Option<&'a [u8]>,
    /// every occurrence, once there is more than one
    all: Vec<&'a [u8]>,
}

impl<'a> OneofRun<'a> {
    fn new() -> Self {
        OneofRun {
            field: None,
            first: None,
            all: Vec::new(),
        }
    }

    fn see(&mut self, field: u32, b: &'a [u8]) {
        if self.field != Some(field) {
            self.field = Some(field);
            self.first = None;
            self.all.clear();
        }
        match self.first {
            None if self.all.is_empty() => self.first = Some(b),
            _ => {
                self.all.extend(self.first.take());
                self.all.push(b);
            }
        }
    }

    /// The member's occurrences, in order.
    fn parts(&self) -> &[&'a [u8]] {
        match &self.first {
            Some(b) => std::slice::from_ref(b),
            None => &self.all,
        }
    }
}

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

/// TracePacket.compressed_packets: a deflated `Trace` of packets.
const COMPRESSED_PACKETS_FIELD: u32 = 50;

/// The `compressed_packets` payload of a packet that has one (the last,
/// as protozero keeps a singular field's last occurrence; the fields after
/// a malformed one are not seen).
fn compressed_payload(raw: &[u8]) -> Option<&[u8]> {
    let mut payload = None;
    for field in Fields::new(raw) {
        match field {
            Ok((COMPRESSED_PACKETS_FIELD, Value::Bytes(b))) => payload = Some(b),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    payload
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
    /// The current packet's trusted_packet_sequence_id (0: none).
    seq_id: u32,
    /// compact_sched's twelve packed columns, decoded per bundle into these
    /// (kept between bundles: a bundle holds ~100 events, and allocating
    /// the columns per bundle showed in profiles)
    compact_columns: [Vec<u64>; 12],
    /// Sequences whose ftrace setup errors were counted (once each).
    setup_error_seqs: std::collections::BTreeSet<u32>,
    /// CpuPerUidData's counters are derived at tokenization, in file order.
    cpu_per_uid: super::cpu_per_uid::Tokenizer,
    /// ClockSnapshots, to convert packets stamped in another clock.
    clocks: super::clocks::ClockSync,
    /// Per sequence: its interned kernel symbols (InternedData.kernel_symbols,
    /// iid -> name), until the sequence clears its incremental state.
    kernel_symbols: HashMap<u32, HashMap<u64, Box<str>>>,
    /// Adreno retired command batches are paired with their sync points in
    /// file order.
    adreno: super::adreno::Tokenizer,
    /// Per trusted_packet_sequence_id seen so far: its packet losses, for
    /// TraceStats' per-buffer loss stats.
    seq_loss: HashMap<u32, SeqLoss>,
    /// The current packet's payload offset in the decoded bytes (the
    /// import log's byte_offset).
    offset: usize,
    /// Track event packets' per-sequence state and descriptor tracks.
    track_events: super::track_event::Tokenizer,
    /// Packets whose timestamp no clock snapshot converted yet: (bytes,
    /// offset), retried once every packet is read (ProtoTraceReader's
    /// eof_deferred_packets_).
    deferred: Vec<(Vec<u8>, usize)>,
    /// kernel wakelock packets' state (read when tokenized)
    kernel_wakelocks: super::kernel_wakelocks::KernelWakelocks,
    /// GPU counter descriptors' state (read when tokenized)
    gpu_counters: super::gpu_counters::GpuCounters,
    /// Every packet was read: the deferred ones are being retried.
    eof: bool,
    /// The clock of packet times that name none (nor does their
    /// sequence's defaults): the last ClockSnapshot's choice, even once the
    /// trace's clock can no longer change (ClockTracker's
    /// trace_default_clock_); None before any.
    trace_default_clock: Option<u32>,
    /// The ftrace_timestamp of the last ftrace clock snapshot added (a
    /// bundle repeating it adds none: FtraceTokenizer's
    /// latest_ftrace_clock_snapshot_ts_).
    latest_ftrace_clock_snapshot: Option<i64>,
    /// (remote machine, sequence) -> the sequence id it is decoded as (from
    /// u32::MAX down: apart from the host's)
    remote_sequences: HashMap<(usize, u32), u32>,
    /// remote machine -> the trace's default clock when it was first seen
    remote_fork_clocks: HashMap<usize, Option<u32>>,
}

/// A packet sequence's losses, counted as trace_processor's ProtoTraceReader
/// counts them (SequenceScopedState).
#[derive(Default)]
struct SeqLoss {
    /// packets with previous_packet_dropped set, after the sequence's first
    dropped: i64,
    /// per DATA_LOSS_* reason bit (READ_GAP = 2 ... SMB_FULL = 256): those
    /// packets that named it
    causes: [i64; 8],
    /// packets flagged SEQ_NEEDS_INCREMENTAL_STATE, and those of them seen
    /// while the sequence's incremental state was not valid
    needs_incremental: i64,
    skipped: i64,
    /// trace_processor's PacketSequenceStateBuilder: the state is invalid
    /// until the sequence clears it, and again after a packet loss
    valid: bool,
}

/// The field an ftrace event gets with the interned kernel symbol its
/// address field names (funcgraph's `func`, sched_blocked_reason's
/// `caller`); not an arg of its raw row.
pub const SYMBOL_FIELD: &str = "__symbol";

/// The field an ftrace event gets with every value of its repeated field
/// (sys_enter's `args`), a `FieldVal::List`: its raw arg keeps only the
/// last (the reference's args inserter collapses same-key args). Fields
/// named `__*` are the importer's, not raw args.
pub const REPEATED_FIELD: &str = "__repeated";

/// The field of ftrace event `name` that holds an interned kernel symbol's
/// iid: trace_processor symbolizes it in the event's raw args
/// (ftrace_parser.cc kKernelFunctionFields) and, for the events its typed
/// parsers name by the symbol, in their slices. The decoder adds the
/// symbol as `SYMBOL_FIELD`, or `SYMBOL_FIELD` = false when the lookup
/// fails (trace_processor counts each failed lookup as
/// interned_data_tokenizer_errors: `symbol_lookup_failed`).
pub fn symbol_address_field(name: &str) -> Option<&'static str> {
    match name {
        "funcgraph_entry" | "funcgraph_exit" => Some("func"),
        "sched_blocked_reason" => Some("caller"),
        "workqueue_queue_work"
        | "workqueue_activate_work"
        | "workqueue_execute_start"
        | "workqueue_execute_end"
        | "hrtimer_expire_entry" => Some("function"),
        "mm_shrink_slab_start" => Some("shrink"),
        _ => None,
    }
}

/// The events whose typed parser looks their symbol up (and names a slice
/// by it, or sets thread_state.blocked_function): one lookup per parsed
/// event, with iid 0 when the field is absent.
pub fn parser_looks_up_symbol(name: &str) -> bool {
    matches!(
        name,
        "funcgraph_entry"
            | "funcgraph_exit"
            | "sched_blocked_reason"
            | "workqueue_execute_start"
            | "hrtimer_expire_entry"
            | "mm_shrink_slab_start"
    )
}

/// The kernel symbol of `e` (an event `symbol_address_field` names), else
/// its address as C's "%#x" prints it (trace_processor's
/// InternedKernelSymbolOrFallback); systrace text gives the name itself.
pub fn symbol_or_address(e: &FtraceEv) -> String {
    let field = symbol_address_field(e.name).unwrap_or("");
    match e.str(SYMBOL_FIELD).or(e.str(field)) {
        Some(s) => s.to_owned(),
        None => match e.int(field).unwrap_or(0) as u64 {
            0 => "0".into(),
            a => format!("{a:#x}"),
        },
    }
}

/// Whether the decoder's lookup of `e`'s kernel symbol failed.
pub fn symbol_lookup_failed(e: &FtraceEv) -> bool {
    e.fields
        .iter()
        .any(|(k, v)| *k == SYMBOL_FIELD && *v == FieldVal::Bool(false))
}

/// TracePacket data kinds that are trace bookkeeping, not data a table would
/// hold: clock_snapshot, synchronization_marker, extension_descriptor,
/// trace_uuid, remote_clock_sync, trace_provenance. Not counted as skipped.
const BOOKKEEPING_KINDS: [u32; 6] = [6, 36, 72, 89, 107, 124];

/// TracePacket data kinds trace_processor v58.2 does not import either (no
/// module registers them): inode_file_map, streaming_allocation,
/// streaming_free, protovms, recovered_trace_info, for_testing. Not counted
/// as skipped: no table lacks them.
const NOT_IMPORTED_BY_REFERENCE: [u32; 6] = [4, 74, 75, 125, 138, 900];

/// The stats row counting the packets of a data kind the decoder skips:
/// `artscope_skipped_<TracePacket field name>` (e.g.
/// `artscope_skipped_track_event`), severity info, value = packets.
/// FrameworksBaseTracePacket.video_frame, a TracePacket extension: not
/// imported, only noted (a display video trace that has frames).
const VIDEO_FRAME_FIELD: u32 = 1000;

/// TracePacket extensions (payloads defined in the Android tree, outside
/// the perfetto package's protos, which do not have them as `data` fields)
/// that trace_processor imports and the embedded engine does not: counted
/// as skipped, by name, like any other data kind it does not import.
const SKIPPED_EXTENSIONS: [(u32, &str); 12] = [
    (56, "heap_graph"),
    (88, "network_packet"),
    (92, "network_packet_bundle"),
    (93, "surfaceflinger_layers_snapshot"),
    (94, "surfaceflinger_transactions"),
    (96, "shell_transition"),
    (97, "shell_handler_mappings"),
    (104, "protolog_message"),
    (105, "protolog_viewer_config"),
    (112, "winscope_extensions"),
    (114, "bluetooth_trace_event"),
    (121, "evdev_event"),
];

fn skipped_extension(num: u32) -> Option<&'static str> {
    SKIPPED_EXTENSIONS
        .iter()
        .find(|&&(n, _)| n == num)
        .map(|&(_, name)| name)
}

/// FrameworksBaseTracePacket.app_wakelock_bundle, a TracePacket extension
/// trace_processor imports as a data field (AppWakelockModule).
const APP_WAKELOCK_BUNDLE_FIELD: u32 = 116;

pub const SKIPPED_STAT_PREFIX: &str = "artscope_skipped_";

impl<'s> ProtoDecoder<'s> {
    pub fn new(sink: &'s mut Sink) -> Self {
        ProtoDecoder {
            sink,
            max_ts: 0,
            bad_packets: 0,
            keep_on_error: false,
            skipped: Default::default(),
            seq_id: 0,
            compact_columns: Default::default(),
            setup_error_seqs: Default::default(),
            cpu_per_uid: Default::default(),
            clocks: Default::default(),
            kernel_symbols: Default::default(),
            adreno: Default::default(),
            seq_loss: HashMap::default(),
            offset: 0,
            track_events: Default::default(),
            deferred: Vec::new(),
            eof: false,
            latest_ftrace_clock_snapshot: None,
            trace_default_clock: None,
            kernel_wakelocks: Default::default(),
            gpu_counters: Default::default(),
            remote_fork_clocks: HashMap::default(),
            remote_sequences: HashMap::default(),
        }
    }

    /// Decodes every packet; returns the number that parsed.
    pub fn decode(&mut self, data: &[u8]) -> i64 {
        let (packets, truncated) = split_packets(data);
        let mut decoded = packets.len() as i64;
        for raw in &packets {
            let offset = raw.as_ptr() as usize - data.as_ptr() as usize;
            match compressed_payload(raw) {
                None => self.decode_packet(raw, offset, false),
                Some(payload) => decoded += self.decode_compressed(payload, offset) - 1,
            }
        }
        // the packets deferred for their clock, now that every snapshot
        // is known (OnPushDataToSorter): converted, else dropped
        self.eof = true;
        for (raw, offset) in std::mem::take(&mut self.deferred) {
            self.decode_packet(&raw, offset, true);
        }
        self.convert_profile_dump_times();
        self.sink.gpu_counter_maps = std::mem::take(&mut self.gpu_counters.maps);
        self.sink.cpu_per_uid_totals = self.cpu_per_uid.totals();
        if truncated {
            self.sink.partial = true;
            self.sink.warnings.push(TRUNCATED_WARNING.into());
        }
        for (&num, &n) in &self.skipped {
            if let Some(name) = packet_data_field_name(num).or_else(|| skipped_extension(num)) {
                let stat = format!("{SKIPPED_STAT_PREFIX}{name}");
                self.sink.stats.add(&stat, n, None);
            }
        }
        if self.sink.parse_clock_conversion {
            self.sink.clock_converted();
        }
        let trace_clock = self.sink.metadata.get_int("trace_time_clock_id");
        let unrelatable = self
            .clocks
            .unrelatable_default_clock(trace_clock.map(|c| c as u32));
        self.sink.unrelatable_clock = unrelatable.map(i64::from);
        let mut te = std::mem::take(&mut self.track_events);
        if te.lookup_errors > 0 {
            let stat = "interned_data_tokenizer_errors";
            self.sink.stats.add(stat, te.lookup_errors, None);
        }
        if te.skipped_fields > 0 {
            let stat = format!("{SKIPPED_STAT_PREFIX}track_event_fields");
            self.sink.stats.add(&stat, te.skipped_fields, None);
        }
        self.sink.track_event_reservations = std::mem::take(&mut te.reservations);
        self.sink.first_packet_seqs = std::mem::take(&mut te.first_packet_seqs)
            .into_iter()
            .collect();
        self.sink.track_event_threads = std::mem::take(&mut te.threads);
        self.sink.track_event_profiles = std::mem::take(&mut te.profiles);
        self.sink.track_event_parser = te.into_parser();
        if self.sink.remote_machine_packets > 0 {
            let stat = format!("{SKIPPED_STAT_PREFIX}remote_machine_packets");
            let n = std::mem::take(&mut self.sink.remote_machine_packets);
            self.sink.stats.add(&stat, n, None);
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
        decoded - self.bad_packets
    }

    /// GpuCounterEvent (GraphicsEventModule::TokenizePacket): its
    /// descriptor makes tracks now; its samples are parsed at `ts`, unless
    /// the packet has no timestamp (gpu_counters_missing_timestamp).
    fn gpu_counter_event(&mut self, has_ts: bool, ts: i64, b: &[u8]) -> R<()> {
        let e = super::gpu_counters::event_fields(b)?;
        let state = self.track_events.stack_state_of(self.seq_id);
        if let Some(iid) = e.descriptor_iid {
            let key = (state, iid);
            if !self.gpu_counters.maps.interned.contains_key(&key) {
                let interned = self.track_events.interned_message(self.seq_id, 47, iid);
                self.gpu_counters
                    .interned_descriptor(self.sink, key, interned.as_deref())?;
            }
        } else if let Some(d) = e.descriptor {
            let offset = self.offset;
            self.gpu_counters
                .inline_descriptor(self.sink, offset, e.gpu_id, d)?;
        }
        if !e.has_counters {
            return Ok(());
        }
        if !has_ts {
            let name = "gpu_counters_missing_timestamp";
            self.sink.tokenizer_log(name, self.offset, Vec::new());
            return Ok(());
        }
        let ev = GpuCounterEv {
            descriptor: e.descriptor_iid.map(|iid| (state, iid)),
            counters: e.counters,
        };
        self.sink
            .push_packet(ts, PacketData::GpuCounter(Box::new(ev)));
        Ok(())
    }

    /// AppWakelockBundle (the `android.app_wakelocks` data source), as
    /// AppWakelockModule::TokenizePacket splits it: each (interned
    /// wakelock, encoded time) pair is an acquire (time's low bit) or a
    /// release at the packet's time + (time >> 1), parsed at that time.
    fn app_wakelock_bundle(&mut self, ts: i64, b: &[u8]) -> R<()> {
        let (mut iids, mut times) = (Vec::new(), Vec::new());
        let mut parsed = Ok(());
        for f in Fields::new(b) {
            match f? {
                (1, v) => parsed = parsed.and(push_varints(v, &mut iids)),
                (2, v) => parsed = parsed.and(push_varints(v, &mut times)),
                _ => {}
            }
        }
        if parsed.is_err() {
            self.sink.stats.add("app_wakelock_parse_error", 1, None);
            return Ok(());
        }
        for (&iid, &encoded) in iids.iter().zip(&times) {
            let iid = iid as u32 as u64;
            let info = self.track_events.interned_message(self.seq_id, 42, iid);
            let Some(info) = info else {
                self.sink.stats.add("app_wakelock_unknown_id", 1, None);
                continue;
            };
            let event = crate::events::power::AppWakelock::parse(&info, encoded & 1 != 0)?;
            let at = ts.wrapping_add((encoded >> 1) as i64);
            self.sink
                .push_packet(at, PacketData::AppWakelock(Box::new(event)));
        }
        Ok(())
    }

    /// ProfilePacket dumps' MONOTONIC_COARSE times in trace time, now that
    /// every clock snapshot is known (None where no snapshot relates the
    /// clocks: the dump is skipped, as ParseProfilePacket skips it).
    fn convert_profile_dump_times(&mut self) {
        let trace_clock = self.trace_clock();
        let coarse = super::profile_packet::MONOTONIC_COARSE;
        let mut failures = Vec::new();
        for p in &mut self.sink.packets {
            let PacketData::ProfilePacket(pp) = &mut p.data else {
                continue;
            };
            for d in &mut pp.dumps {
                // (parsed from the sorted packets: a conversion there makes
                // the TRACE_FILE snapshot only if the file has none)
                self.sink.parse_clock_conversion = true;
                let mut convert = |t: i64| {
                    let got = self.clocks.to_trace_clock(0, coarse, t, trace_clock);
                    if got.is_none() {
                        failures.push(t);
                    }
                    got
                };
                d.timestamp = d.timestamp.and_then(&mut convert);
                // the window's start only for a dump whose end converted
                d.start_timestamp = match d.timestamp {
                    Some(_) => d.start_timestamp.and_then(&mut convert),
                    None => None,
                };
            }
        }
        for t in failures {
            self.clock_failure(coarse, t);
        }
    }

    /// The packets of a `compressed_packets` payload (the outer packet's
    /// other fields are ignored, as trace_processor's tokenizer ignores
    /// them), each decoded as a packet of the file at the outer one's
    /// offset; returns how many there were. A payload that does not inflate
    /// whole, or whose bytes stop being packets, is a corrupt packet: what
    /// split before the damage is kept (trace_processor stops the whole
    /// import there: "Failed to decompress compressed_packets").
    fn decode_compressed(&mut self, payload: &[u8], offset: usize) -> i64 {
        let Some(inflated) = super::container::inflate_packets(payload) else {
            self.bad_packets += 1;
            return 1;
        };
        let (inner, whole) = super::container::split_compressed_packets(&inflated);
        for raw in &inner {
            self.decode_packet(raw, offset, false);
        }
        if !whole {
            self.bad_packets += 1;
        }
        inner.len() as i64 + i64::from(!whole)
    }

    /// One packet at `offset` (`retry`: deferred for its clock). A packet
    /// that does not parse as a whole adds nothing (protobuf parses it
    /// before anything is read): what its prefix added is undone.
    fn decode_packet(&mut self, raw: &[u8], offset: usize, retry: bool) {
        let mark = self.mark();
        self.keep_on_error = false;
        self.offset = offset;
        if self.packet(raw, retry).is_err() {
            if !self.keep_on_error {
                self.rollback(mark);
            }
            self.bad_packets += 1;
        }
        self.tokenizer_logs();
    }

    /// The track event tokenizer's errors: a stat and an import log at the
    /// packet's offset each.
    fn tokenizer_logs(&mut self) {
        for (stat, args) in self.track_events.logs.drain(..) {
            self.sink.tokenizer_log(stat, self.offset, args);
        }
    }

    fn mark(&self) -> [usize; 10] {
        let s = &*self.sink;
        [
            s.order.len(),
            s.switches.len(),
            s.wakings.len(),
            s.ftrace.len(),
            s.packets.len(),
            s.first_bundle_end_ts.len(),
            s.packages.len(),
            self.max_ts as usize,
            s.trace_configs.len(),
            s.compact_switches.len(),
        ]
    }

    fn rollback(&mut self, m: [usize; 10]) {
        let s = &mut *self.sink;
        s.order.truncate(m[0]);
        s.switches.truncate(m[1]);
        s.compact_switches.truncate(m[9]);
        s.wakings.truncate(m[2]);
        s.ftrace.truncate(m[3]);
        s.packets.truncate(m[4]);
        s.first_bundle_end_ts.truncate(m[5]);
        s.packages.truncate(m[6]);
        self.max_ts = m[7] as i64;
        s.trace_configs.truncate(m[8]);
    }

    /// One TracePacket; `retry`: a packet deferred for its clock, read again
    /// at the end (its sequence flags, defaults and interned data were
    /// handled the first time).
    fn packet(&mut self, raw: &[u8], retry: bool) -> R<()> {
        let mut ts: Option<i64> = None;
        let mut clock: Option<u32> = None;
        let mut cleared = false;
        self.seq_id = 0;
        let mut interned: Option<&[u8]> = None;
        let mut has_seq = false;
        let mut flags = 0u64;
        let mut dropped = 0u64;
        let mut data = OneofRun::new();
        let mut machine_id = 0u32;
        let mut defaults: Option<&[u8]> = None;
        let mut first_on_sequence = false;
        let mut trusted_pid = None;
        for f in Fields::new(raw) {
            let (num, v) = f?;
            if num == 8 {
                if let Some(x) = varint(v) {
                    ts = Some(x as i64);
                }
            } else if num == 58 {
                if let Some(x) = varint(v) {
                    clock = Some(x as u32);
                }
            } else if num == 13 {
                // sequence_flags: SEQ_INCREMENTAL_STATE_CLEARED is bit 0
                flags = varint(v).unwrap_or(0);
                cleared |= flags & 1 != 0;
            } else if num == 41 {
                // incremental_state_cleared
                cleared |= varint(v).is_some_and(|x| x != 0);
            } else if num == 42 {
                // previous_packet_dropped: a bool, or a DATA_LOSS_* bitmask
                dropped = varint(v).unwrap_or(0);
            } else if num == 10 {
                if let Some(x) = varint(v) {
                    self.seq_id = x as u32;
                    has_seq = true;
                }
            } else if num == 12 {
                interned = bytes(v);
            } else if num == 98 {
                machine_id = varint(v).unwrap_or(0) as u32;
            } else if num == 59 {
                defaults = bytes(v);
            } else if num == 87 {
                first_on_sequence = varint(v).is_some_and(|x| x != 0);
            } else if num == 79 {
                // trusted_pid (int32, read as uint32)
                trusted_pid = varint(v).map(u32v);
            } else if is_packet_data_field(num)
                || num == APP_WAKELOCK_BUNDLE_FIELD
                || skipped_extension(num).is_some()
            {
                if let Some(b) = bytes(v) {
                    data.see(num, b);
                }
            } else if num == VIDEO_FRAME_FIELD {
                self.sink.video_frames = true;
            }
        }
        // synchronization_marker (36) does not make the host's data
        let rows = self.sink.machines.rows.len();
        let machine = self.sink.machines.route(machine_id, data.field == Some(36));
        if self.sink.machines.rows.len() > rows {
            let at = self.sink.order.len();
            self.sink.machine_readers.push((at, machine as u16));
        }
        if machine != 0 {
            // its sequences are its own: a sequence id of their own here,
            // for their defaults' clock and interned kernel symbols
            let next = u32::MAX - self.remote_sequences.len() as u32;
            let key = (machine, self.seq_id);
            self.seq_id = *self.remote_sequences.entry(key).or_insert(next);
            if let (Some(d), true) = (defaults, has_seq) {
                self.track_events.defaults(self.seq_id, d)?;
            }
            let clock = clock.or_else(|| self.track_events.default_clock(self.seq_id));
            if cleared {
                self.kernel_symbols.remove(&self.seq_id);
            }
            if let (Some(b), true) = (interned, has_seq) {
                self.interned_data(b)?;
            }
            return self.remote_packet(machine, ts, clock, &data);
        }
        if retry {
            // (only its timestamp and data are read again)
            (cleared, dropped, defaults, interned) = (false, 0, None, None);
        }
        if first_on_sequence {
            self.track_events.first_packet_seqs.insert(self.seq_id);
        }
        let skip = !retry && self.count_loss(has_seq, cleared, dropped, flags);
        if cleared {
            // the sequence's incremental state starts over (CpuPerUidData
            // sends absolute times again; interned kernel symbols go)
            self.cpu_per_uid.clear_sequence(self.seq_id);
            self.kernel_symbols.remove(&self.seq_id);
        }
        if has_seq && cleared {
            self.track_events.clear(self.seq_id);
        } else if has_seq && dropped != 0 {
            self.track_events.loss(self.seq_id);
        }
        if let Some(d) = defaults {
            if has_seq {
                self.track_events.defaults(self.seq_id, d)?;
            } else {
                self.sink
                    .stats
                    .add("trace_packet_defaults_missing_sequence_id", 1, None);
            }
        }
        // a timestamp without its own clock is in the sequence's default
        // one, else in the trace's (not for the packets trace_processor
        // reads before it converts times: ClockSnapshot, RemoteClockSync,
        // service events, extension descriptors)
        if ts.is_some() && clock.is_none() {
            clock = self.track_events.default_clock(self.seq_id);
            if !matches!(data.field, Some(6 | 107 | 69 | 72)) {
                clock = clock.or(self.trace_default_clock);
            }
        }
        // (a packet skipped for its sequence's state converts nothing)
        let converts = ts.is_some() && clock.is_some();
        // a timestamp in another clock: converted to the trace's clock
        let trace_clock = self.trace_clock();
        let mut unconverted = None;
        if let (Some(t), Some(c)) = (ts, clock) {
            match self.clocks.to_trace_clock(self.seq_id, c, t, trace_clock) {
                Some(x) => ts = Some(x),
                None => unconverted = Some((c, t)),
            }
        }
        if let Some(b) = interned {
            if !has_seq {
                self.sink
                    .stats
                    .add("interned_data_missing_sequence_id", 1, None);
            } else if !self.state_valid() {
                let seq = crate::events::ArgVal::Uint(self.seq_id as u64);
                let args = vec![("packet_sequence_id", seq)];
                let stat = "interned_data_skipped_incremental_state_invalid";
                self.sink.tokenizer_log(stat, self.offset, args);
            } else {
                self.interned_data(b)?;
                self.track_events.interned(self.seq_id, b)?;
            }
        }
        if skip {
            // SEQ_NEEDS_INCREMENTAL_STATE while the state is invalid
            return Ok(());
        }
        if converts {
            self.sink.clock_converted();
        }
        if let Some((c, t)) = unconverted {
            // ResolveTimestampToTraceTime: deferred to the end of the file
            // (the reference binary sorts a file whole, so it always can),
            // then read again with its sequence's state as it is then; if
            // its clock still does not convert, dropped with the clock's
            // error
            if self.eof {
                self.packet_clock_failure(c, t);
            } else {
                self.deferred.push((raw.to_vec(), self.offset));
            }
            return Ok(());
        }
        let packet_ts = ts;
        let ts = match ts {
            Some(t) => {
                if t > self.max_ts {
                    self.max_ts = t;
                }
                t
            }
            None => self.max_ts,
        };
        // (one allocation per packet, as before; events are the hot path)
        let parts = data.parts().to_vec();
        match data.field {
            None => self.frame_timeline_packet(ts, raw),
            Some(1) => {
                let events_before = self.sink.order.len();
                for p in &parts {
                    // merged bundles: decoded one after the other
                    self.ftrace_bundle(0, p)?;
                }
                if self.sink.order.len() > events_before {
                    // (each event's time went through the clock tracker)
                    self.clocks.mark_used();
                    self.sink.clock_converted();
                }
                Ok(())
            }
            Some(11) => {
                let seq = self.seq_id;
                let joined;
                let event = match parts.as_slice() {
                    [one] => *one,
                    _ => {
                        joined = parts.concat();
                        &joined
                    }
                };
                let got = self.monotonic_times(trace_clock, |te, to_trace| {
                    te.track_event(seq, has_seq, packet_ts, event, to_trace)
                })?;
                if let Some((ets, e)) = got {
                    let data = PacketData::TrackEvent(TrackEventPacket::Event(Box::new(e)));
                    self.sink.push_packet(ets, data);
                }
                Ok(())
            }
            Some(54) => {
                let seq = self.seq_id;
                let samples = self.monotonic_times(trace_clock, |te, to_trace| {
                    te.streaming_profile(seq, &parts.concat(), to_trace)
                })?;
                for (sts, sample) in samples {
                    let data =
                        PacketData::TrackEvent(TrackEventPacket::ProfileSample(Box::new(sample)));
                    self.sink.push_packet(sts, data);
                }
                Ok(())
            }
            Some(60) => {
                let valid = self.state_valid();
                let seq = self.seq_id;
                let got = self.track_events.track_descriptor(
                    seq,
                    ts,
                    &parts.concat(),
                    valid,
                    trusted_pid,
                )?;
                if let Some(d) = got {
                    let data = PacketData::TrackEvent(TrackEventPacket::Descriptor(Box::new(d)));
                    self.sink.push_packet(ts, data);
                }
                Ok(())
            }
            Some(44) => {
                let valid = self.state_valid();
                let seq = self.seq_id;
                let got =
                    self.track_events
                        .thread_descriptor(seq, has_seq, &parts.concat(), valid)?;
                if let Some(t) = got {
                    let data = PacketData::TrackEvent(TrackEventPacket::ThreadDescriptor(t));
                    self.sink.push_packet(ts, data);
                }
                Ok(())
            }
            Some(43) => {
                let p = super::track_event::process_descriptor(&parts.concat())?;
                let data = PacketData::TrackEvent(TrackEventPacket::ProcessDescriptor(Box::new(p)));
                self.sink.push_packet(ts, data);
                Ok(())
            }
            Some(66) => {
                let seq = self.seq_id;
                let te = &mut self.track_events;
                let mut sample = super::perf_sample::perf_sample(&parts.concat(), |iid| {
                    te.callstack_ref(seq, iid)
                })?;
                sample.seq_id = seq;
                sample.defaults = te.perf_sample_defaults(seq);
                self.sink
                    .push_packet(ts, PacketData::PerfSample(Box::new(sample)));
                Ok(())
            }
            Some(37) => {
                let seq = self.seq_id;
                let mut p = super::profile_packet::profile_packet(&parts.concat())?;
                p.stack_state = self.track_events.stack_state_of(seq);
                p.incremental_state = self.track_events.incremental_state_of(seq);
                self.sink
                    .push_packet(ts, PacketData::ProfilePacket(Box::new(p)));
                Ok(())
            }
            Some(52) => self.gpu_counter_event(packet_ts.is_some(), ts, &parts.concat()),
            Some(63) => {
                let log = crate::events::GpuLog::parse(&parts.concat())?;
                self.sink.push_packet(ts, PacketData::GpuLog(Box::new(log)));
                Ok(())
            }
            Some(APP_WAKELOCK_BUNDLE_FIELD) => self.app_wakelock_bundle(ts, &parts.concat()),
            Some(115) => {
                let state = self.track_events.stack_state_of(self.seq_id);
                let mut wakelocks = std::mem::take(&mut self.kernel_wakelocks);
                let got = wakelocks.packet(self.sink, state, ts, &parts.concat());
                self.kernel_wakelocks = wakelocks;
                got
            }
            Some(68) => {
                let smaps = super::profile_packet::smaps_packet(&parts.concat())?;
                self.sink
                    .push_packet(ts, PacketData::Smaps(Box::new(smaps)));
                Ok(())
            }
            Some(61) => {
                let m = crate::events::profiles::ModuleSymbols::parse(&parts.concat())?;
                self.sink
                    .push_packet(ts, PacketData::ModuleSymbols(Box::new(m)));
                Ok(())
            }
            Some(2) => self.process_tree(ts, &parts),
            Some(9) => self.process_stats(ts, &parts),
            Some(7) => self.sys_stats(ts, &parts),
            Some(67) => self.cpu_info(&parts),
            Some(45) => self.system_info(0, &parts),
            Some(69) => {
                self.sink.parse_clock_conversion = true;
                self.service_event(ts, &parts)
            }
            Some(33) => {
                let cfg = parts.concat();
                // TraceConfig.trace_attributes (48)
                for f in Fields::new(&cfg).flatten() {
                    if let (48, Value::Bytes(b)) = f {
                        self.trace_attributes(b)?;
                    }
                }
                self.sink.trace_configs.push(cfg);
                Ok(())
            }
            Some(126) => {
                for p in &parts {
                    self.trace_attributes(p)?;
                }
                Ok(())
            }
            Some(n @ (46 | 113)) => {
                // Trigger / clone_snapshot_trigger: a slice on the "Trace
                // Triggers" track and the trace_trigger metadata
                let mut t = crate::events::Trigger::default();
                for p in &parts {
                    for f in Fields::new(p) {
                        match f? {
                            (1, Value::Bytes(s)) => t.name = text(s),
                            (2, Value::Bytes(s)) => t.producer = text(s),
                            (3, Value::Varint(x)) => t.producer_uid = Some(i32v(x)),
                            _ => {}
                        }
                    }
                }
                self.sink.triggers.push((ts, n == 113, t.name.clone()));
                self.sink.push_packet(ts, PacketData::Trigger(Box::new(t)));
                Ok(())
            }
            Some(39) => self.android_log(&parts),
            Some(134) => {
                // ConcurrentSessionEvent: a tracing session's state
                let mut e = crate::events::SessionEvent::default();
                for p in &parts {
                    for f in Fields::new(p) {
                        match f? {
                            (1, Value::Varint(x)) => e.state = x as i64,
                            (2, Value::Bytes(s)) => e.name = text(s),
                            (3, Value::Varint(x)) => e.session_id = x,
                            (4, Value::Varint(x)) => e.consumer_uid = i32v(x),
                            (5, Value::Varint(x)) => e.num_data_sources = x as u32 as u64,
                            _ => {}
                        }
                    }
                }
                self.sink.push_packet(ts, PacketData::SessionState(e));
                Ok(())
            }
            Some(47) => self.packages_list(&parts),
            Some(38) => super::power::battery(self.sink, ts, &parts),
            Some(40) => super::power::power_rails(self.sink, ts, &parts, |t| t),
            Some(77) => super::power::energy_breakdown(self.sink, ts, &parts),
            Some(91) => super::power::entity_state_residency(self.sink, ts, &parts),
            Some(119) => {
                let seq = self.seq_id;
                super::power::cpu_per_uid(self.sink, &mut self.cpu_per_uid, seq, ts, &parts)
            }
            Some(86) => self.system_property(ts, &parts),
            Some(71) => {
                // GpuMemTotalEvent (uint32 gpu_id, uint32 pid, uint64 size)
                let [gpu, pid, size] = varint_fields(parts[0])?;
                let data = PacketData::GpuMemTotal {
                    gpu: gpu as u32,
                    pid: pid as u32,
                    size,
                };
                self.sink.push_packet(ts, data);
                Ok(())
            }
            Some(90) => {
                // TrackEventRangeOfInterest: its start as metadata (the
                // events before it stay: trace_processor drops them only
                // when configured to)
                let mut start = None;
                for p in &parts {
                    for f in Fields::new(p) {
                        if let (1, Value::Varint(x)) = f? {
                            start = Some(x as i64);
                        }
                    }
                }
                match start {
                    Some(us) => self.sink.metadata.set_int("range_of_interest_start_us", us),
                    None => {
                        let stat = "track_event_range_of_interest_missing_start_us";
                        self.sink.tokenizer_log(stat, self.offset, Vec::new());
                    }
                }
                Ok(())
            }
            Some(118) => {
                // GenericKernelCpuFrequencyEvent (int32 cpu, int64 freq_hz)
                let [cpu, hz] = merged_varints(&parts)?;
                let (cpu, hz) = (i32v(cpu), hz as i64);
                self.sink
                    .push_packet(ts, PacketData::GenericCpuFrequency { cpu, hz });
                Ok(())
            }
            Some(129) => {
                // GenericGpuFrequencyEvent (uint32 gpu_id, uint32 frequency_khz)
                let [gpu, khz] = merged_varints(&parts)?;
                let (gpu, khz) = (gpu as u32, khz as u32);
                self.sink
                    .push_packet(ts, PacketData::GenericGpuFrequency { gpu, khz });
                Ok(())
            }
            Some(70) => {
                let [state] = merged_varints(&parts)?;
                let data = PacketData::InitialDisplayState(i32v(state));
                self.sink.push_packet(ts, data);
                Ok(())
            }
            Some(34) => self.ftrace_stats(&parts),
            Some(35) => self.trace_stats(&parts),
            Some(6) => self.clock_snapshot(&parts),
            Some(89) => self.trace_uuid(&parts),
            Some(51) => super::packets_misc::chrome_metadata(self.sink, &parts.concat()),
            Some(109) => super::packets_misc::chrome_trigger(self.sink, ts, &parts.concat()),
            Some(127) => {
                if !super::packets_misc::aflags(self.sink, ts, &parts.concat())? {
                    *self.skipped.entry(127).or_insert(0) += 1;
                }
                Ok(())
            }
            Some(83) => super::packets_misc::game_interventions(self.sink, &parts.concat()),
            Some(78) => {
                // stored base64-encoded, as trace_processor does
                let ui = crate::metadata::base64(&parts.concat());
                self.sink.metadata.set_str("ui_state", ui);
                Ok(())
            }
            Some(n) => {
                if !BOOKKEEPING_KINDS.contains(&n) && !NOT_IMPORTED_BY_REFERENCE.contains(&n) {
                    *self.skipped.entry(n).or_insert(0) += 1;
                }
                Ok(())
            }
        }
    }

    /// AndroidSystemProperty: the boot-profiling properties go to metadata
    /// here, the others are replayed (atrace::system_property).
    fn system_property(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut values = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                if let (1, Value::Bytes(b)) = f? {
                    let (mut name, mut value) = (String::new(), String::new());
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Bytes(s)) => name = text(s),
                            (2, Value::Bytes(s)) => value = text(s),
                            _ => {}
                        }
                    }
                    let key = match name.as_str() {
                        "debug.tracing.profile_boot_classpath" => {
                            Some("android_profile_boot_classpath")
                        }
                        "debug.tracing.profile_system_server" => {
                            Some("android_profile_system_server")
                        }
                        _ => None,
                    };
                    // (after v58.2: the wallpaper's identity, as metadata
                    // named by the property, the last value winning)
                    if matches!(
                        name.as_str(),
                        "debug.tracing.wallpaper.package_name"
                            | "debug.tracing.wallpaper.class_name"
                    ) {
                        self.sink.metadata.set_str(&name, value);
                        continue;
                    }
                    match (key, value.parse::<i32>()) {
                        (Some(k), Ok(v)) => self.sink.metadata.set_int(k, v as i64),
                        (Some(_), Err(_)) => {}
                        (None, _) => values.push((name, value)),
                    }
                }
            }
        }
        self.sink
            .push_packet(ts, PacketData::SystemProperty(values));
        Ok(())
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
                self.sink
                    .push_packet(ts, PacketData::FrameTimeline(Box::new(ev)));
            }
        }
        if err {
            return Err(WireError);
        }
        Ok(())
    }

    /// A remote machine's packet (`crate::machines`): what is imported of
    /// it, at its time on the host's trace clock; the rest is counted as
    /// skipped.
    fn remote_packet(
        &mut self,
        machine: usize,
        ts: Option<i64>,
        clock: Option<u32>,
        data: &OneofRun,
    ) -> R<()> {
        // the trace's default clock when the machine's first packet came
        // (a remote reader inherits its parent's at its fork)
        let default_clock = self.trace_default_clock;
        let inherited = *self
            .remote_fork_clocks
            .entry(machine)
            .or_insert(default_clock);
        let clock = clock.or(inherited);
        let parts = data.parts().to_vec();
        match data.field {
            Some(45) => return self.system_info(machine, &parts),
            Some(107) => return self.remote_clock_sync(machine, &parts),
            Some(1 | 2 | 7 | 9 | 40) => {}
            _ => {
                self.sink.remote_machine_packets += 1;
                return Ok(());
            }
        }
        let ts = match ts.map(|t| self.remote_trace_time(machine, clock, t)) {
            // (a clock with no path to the trace's: dropped, logged)
            Some(None) => return Ok(()),
            Some(Some(t)) => {
                self.max_ts = self.max_ts.max(t);
                t
            }
            None => self.max_ts,
        };
        // power rail sample times are the machine's BOOTTIME: converted
        // first
        let mut sample_times = HashMap::default();
        if data.field == Some(40) {
            let boot = Some(crate::machines::BOOTTIME);
            for t in super::power::sample_times(&parts)? {
                let at = self.remote_trace_time(machine, boot, t).unwrap_or(t);
                sample_times.insert(t, at);
            }
        }
        // (what it pushes is the machine's)
        self.sink.packet_machine = machine as u16;
        let got = match data.field {
            Some(2) => self.process_tree(ts, &parts),
            Some(7) => self.sys_stats(ts, &parts),
            Some(9) => self.process_stats(ts, &parts),
            Some(40) => {
                let at = |t| sample_times.get(&t).copied().unwrap_or(t);
                super::power::power_rails(self.sink, ts, &parts, at)
            }
            _ => parts
                .iter()
                .try_for_each(|p| self.remote_ftrace_bundle(machine, p)),
        };
        self.sink.packet_machine = 0;
        got
    }

    /// The trace's clock (trace_time_clock_id; BOOTTIME until a snapshot
    /// names another).
    fn trace_clock(&self) -> u32 {
        self.sink
            .metadata
            .get_int("trace_time_clock_id")
            .unwrap_or(crate::machines::BOOTTIME as i64) as u32
    }

    /// A remote machine's packet time on the trace's clock. Without a clock
    /// (none on the packet, its sequence's defaults or the trace's default
    /// clock when the machine was first seen) it is taken as trace time
    /// already, as the reference does. Else it goes to the host's same
    /// clock through the machine's clock syncs, then through the host's
    /// snapshots, once the host's clocks reach the trace's time (a
    /// ClockSnapshot or the host's own bridge); otherwise its BOOTTIME is
    /// bridged as aligned with the trace's time (the reference's
    /// zero-offset snapshot, made once). None: no path (logged as the
    /// reference logs a dropped packet).
    fn remote_trace_time(&mut self, machine: usize, clock: Option<u32>, ts: i64) -> Option<i64> {
        let Some(clock) = clock else {
            return Some(ts);
        };
        let host_reaches_trace_time = self.sink.host_snapshots > 0;
        let synced = self.sink.machines.to_host_clock(machine, clock, ts);
        if let (Some(host), true) = (synced, host_reaches_trace_time) {
            let trace_clock = self.trace_clock();
            if let Some(t) = self.clocks.to_trace_clock(0, clock, host, trace_clock) {
                return Some(t);
            }
        }
        if clock != crate::machines::BOOTTIME {
            self.packet_clock_failure(clock, ts);
            return None;
        }
        if self.sink.machines.bridge_boottime(machine) {
            // (the trace's time: its clock, TRACE_FILE before any snapshot)
            let trace_clock = self.clock_failure_target() as u32;
            let zero = |machine: usize, clock| SnapshotClock::ns(machine as u16, clock, 0);
            let bridge = vec![zero(machine, clock), zero(0, trace_clock)];
            self.sink.clock_snapshots.push(bridge);
        }
        Some(ts)
    }

    /// RemoteClockSync: its rounds of client and host clock snapshots, for
    /// the machine's clock offsets (`Machines::remote_clock_sync`).
    fn remote_clock_sync(&mut self, machine: usize, parts: &[&[u8]]) -> R<()> {
        let mut rounds = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (1, Value::Bytes(synced)) = f? else {
                    continue;
                };
                let mut round: HashMap<u32, (u64, u64)> = HashMap::default();
                for g in Fields::new(synced) {
                    let (side @ (2 | 3), Value::Bytes(snapshot)) = g? else {
                        continue;
                    };
                    for c in Fields::new(snapshot) {
                        let (1, Value::Bytes(clock)) = c? else {
                            continue;
                        };
                        let (mut id, mut at) = (0u32, 0u64);
                        for h in Fields::new(clock) {
                            match h? {
                                (1, Value::Varint(x)) => id = x as u32,
                                (2, Value::Varint(x)) => at = x,
                                _ => {}
                            }
                        }
                        let e = round.entry(id).or_default();
                        if side == 3 {
                            e.0 = at; // host
                        } else {
                            e.1 = at; // client
                        }
                    }
                }
                rounds.push(round.into_iter().collect());
            }
        }
        // the rounds' client snapshots (snapshot ids, no rows here: one
        // clock each in practice), then a snapshot per offset relating the
        // two machines' clock at the host's reading, as the reference's
        let host_and_client = self.sink.machines.remote_clock_sync(machine, &rounds);
        // (a snapshot is a row of the table only when its time is a trace
        // time: once the host's clocks reach it)
        let rows = self.sink.host_snapshots > 0;
        let snapshots = &mut self.sink.clock_snapshots;
        snapshots.extend(rounds.iter().map(|_| Vec::new()));
        for (clock_id, host, client) in host_and_client {
            if !rows {
                snapshots.push(Vec::new());
                continue;
            }
            let at = |machine: usize, ts| SnapshotClock::ns(machine as u16, clock_id, ts);
            snapshots.push(vec![at(0, host), at(machine, client)]);
        }
        Ok(())
    }

    /// A remote machine's FtraceEventBundle: decoded as the host's, on the
    /// machine's cpus (ucpu = machine * 4096 + cpu), then its events moved
    /// to the trace's time (the machine's BOOTTIME through its clock sync,
    /// one offset per bundle).
    fn remote_ftrace_bundle(&mut self, machine: usize, buf: &[u8]) -> R<()> {
        let [order, _, wakings, ftrace, ..] = self.mark();
        self.ftrace_bundle(machine, buf)?;
        let Some(&(first, _)) = self.sink.order.get(order) else {
            return Ok(());
        };
        let boot = Some(crate::machines::BOOTTIME);
        let delta = match self.remote_trace_time(machine, boot, first) {
            Some(t) => t.wrapping_sub(first),
            None => 0,
        };
        if delta != 0 {
            let sink = &mut *self.sink;
            // (the copies of events stamped by a field in trace time are
            // pushed at that field's value, unconverted, on any machine)
            let in_trace_time = |e: &FtraceEv| {
                SELF_STAMPED
                    .iter()
                    .any(|s| s.clock.is_none() && s.copy == e.name)
            };
            for e in &mut sink.ftrace[ftrace..] {
                e.raw_ts += delta;
                if !in_trace_time(e) {
                    e.ts += delta;
                }
            }
            // (an ftrace event's place in the order is its time, shifted or not)
            for e in &mut sink.order[order..] {
                match e.1 {
                    EvRef::Ftrace(i) => e.0 = sink.ftrace[i as usize].ts,
                    _ => e.0 += delta,
                }
            }
            sink.wakings[wakings..]
                .iter_mut()
                .for_each(|w| w.ts += delta);
            // (an event the offset moves before 0 is dropped by the sorter)
            let bundle = sink.order.split_off(order);
            let before = bundle.len();
            sink.order.extend(bundle.into_iter().filter(|e| e.0 >= 0));
            let dropped = (order + before - sink.order.len()) as i64;
            if dropped > 0 {
                let stat = "trace_sorter_negative_timestamp_dropped";
                sink.stats.add(stat, dropped, None);
            }
        }
        Ok(())
    }

    /// An FtraceEventBundle of `machine` (0: the host).
    fn ftrace_bundle(&mut self, machine: usize, buf: &[u8]) -> R<()> {
        let mut cpu: i64 = 0;
        let mut events: Vec<&[u8]> = Vec::new();
        let mut lost = false;
        let mut compact: Option<Vec<&[u8]>> = None;
        let mut last_read: Option<i64> = None;
        let mut prev_end: Option<i64> = None;
        let (mut ftrace_clock, mut ftrace_ts, mut boot_ts) = (0u64, None, None);
        for f in Fields::new(buf) {
            let (num, v) = f?;
            match num {
                1 => {
                    if let Some(x) = varint(v) {
                        cpu = u32v(x);
                    }
                }
                5 => ftrace_clock = varint(v).unwrap_or(ftrace_clock),
                6 => ftrace_ts = varint(v).map(|x| x as i64).or(ftrace_ts),
                7 => boot_ts = varint(v).map(|x| x as i64).or(boot_ts),
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
        // (a remote machine's cpus are its ucpus)
        let cpu = cpu + machine as i64 * crate::machines::MAX_CPUS_PER_MACHINE;
        // events in another clock than BOOTTIME (the host's only)
        let clock = match machine {
            0 => self.ftrace_clock(ftrace_clock, ftrace_ts, boot_ts)?,
            _ => None,
        };
        if !self.sink.first_bundle_end_ts.iter().any(|(c, _)| *c == cpu) {
            let mut v = prev_end.or(last_read);
            if machine != 0 {
                let boot = Some(crate::machines::BOOTTIME);
                v = v.and_then(|t| self.remote_trace_time(machine, boot, t));
            } else if let Some(clock) = clock {
                let trace_clock = self.trace_clock();
                v = v.and_then(|t| {
                    self.clocks
                        .to_trace_clock(self.seq_id, clock, t, trace_clock)
                });
            }
            let sink = &mut *self.sink;
            sink.first_bundle_end_ts.push((cpu, v));
            // trace_processor's ftrace_latest_data_start_ns: the latest
            // first-bundle start over the machine's cpus (when the bundle
            // has one)
            if let Some(v) = v {
                let key = "ftrace_latest_data_start_ns";
                let md = sink.metadata_of(machine);
                if md.get_int(key).map_or(true, |cur| v > cur) {
                    md.set_int(key, v);
                }
            }
        }
        let sink = &mut *self.sink;
        if lost {
            sink.stats.set("ftrace_cpu_has_data_loss", 1, Some(cpu));
        }
        let (order_before, max_ts_before) = (self.sink.order.len(), self.max_ts);
        if let Some(parts) = compact {
            self.compact(cpu, &parts)?;
        }
        for e in events {
            self.ftrace_event(cpu, e)?;
        }
        if let Some(clock) = clock {
            self.bundle_to_trace_time(order_before, max_ts_before, clock);
        }
        Ok(())
    }

    /// FtraceTokenizer::HandleFtraceClockSnapshot: the clock of a bundle's
    /// event times when they need converting (None: BOOTTIME in a trace
    /// whose time is BOOTTIME, or not chosen yet by a ClockSnapshot, when
    /// BOOTTIME is bridged to it as it is; MONOTONIC_RAW; for the per-cpu
    /// "global" / "local" clocks a sequence-scoped clock, 64), and the
    /// bundle's (ftrace_timestamp, boot_timestamp) pair added as a clock
    /// snapshot relating it to BOOTTIME (unless the last such snapshot had
    /// the same ftrace_timestamp). An unknown clock fails the bundle.
    fn ftrace_clock(
        &mut self,
        ftrace_clock: u64,
        ftrace_ts: Option<i64>,
        boot_ts: Option<i64>,
    ) -> R<Option<u32>> {
        const MONOTONIC_RAW: u32 = 5;
        const BOOTTIME: u32 = 6;
        let clock = match ftrace_clock {
            0 => return Ok((self.trace_clock() != BOOTTIME).then_some(BOOTTIME)),
            4 => MONOTONIC_RAW,
            2 | 3 => 64,
            _ => return Err(WireError),
        };
        let (Some(at), Some(boot)) = (ftrace_ts, boot_ts) else {
            return Ok(Some(clock));
        };
        if self.latest_ftrace_clock_snapshot == Some(at) {
            return Ok(Some(clock));
        }
        self.latest_ftrace_clock_snapshot = Some(at);
        use super::clocks::SnapshotClock as C;
        let clocks = [C::ns(clock, at), C::ns(BOOTTIME, boot)];
        let trace_clock = self.trace_clock();
        if !self.clocks.snapshot(self.seq_id, &clocks, trace_clock) {
            self.sink.stats.add("invalid_clock_snapshots", 1, None);
            self.sink.clock_snapshots.push(Vec::new());
            return Ok(Some(clock));
        }
        // Its rows are at its BOOTTIME when that reaches the trace's time:
        // BOOTTIME is the trace's clock, or no ClockSnapshot chose one and
        // the first conversion already bridged BOOTTIME to the file's own
        // clock (`Sink::clock_converted`; until then the snapshot has no
        // rows, and does not stand for that bridge).
        let chosen = self.sink.metadata.get_int("trace_time_clock_id").is_some();
        let id = self.sink.clock_snapshots.len();
        let mut rows = Vec::new();
        if trace_clock == BOOTTIME && (chosen || self.sink.host_snapshots > 0) {
            self.sink.snapshot_trace_ts.insert(id, boot);
            rows = vec![
                SnapshotClock::ns(0, clock, at),
                SnapshotClock::ns(0, BOOTTIME, boot),
            ];
        }
        self.sink.clock_snapshots.push(rows);
        if chosen {
            self.sink.host_snapshots += 1;
        }
        Ok(Some(clock))
    }

    /// The events a bundle added (from `order_before` in the sink's order),
    /// their times read in `clock`, moved to the trace's time one by one;
    /// an event no snapshot converts is dropped (its conversion error
    /// counted, as ToTraceTime counts it). The latest time so far is then
    /// the converted ones' (`max_ts_before` the one before the bundle).
    fn bundle_to_trace_time(&mut self, order_before: usize, max_ts_before: i64, clock: u32) {
        let trace_clock = self.trace_clock();
        let bundle = self.sink.order.split_off(order_before);
        let mut max_ts = max_ts_before;
        let mut negative = 0;
        for (raw, r) in bundle {
            let Some(ts) = self
                .clocks
                .to_trace_clock(self.seq_id, clock, raw, trace_clock)
            else {
                self.clock_failure(clock, raw);
                continue;
            };
            let sink = &mut *self.sink;
            if ts < 0 {
                // (the sorter drops it)
                negative += 1;
                continue;
            }
            match r {
                EvRef::Waking(i) => sink.wakings[i as usize].ts = ts,
                EvRef::Ftrace(i) => sink.ftrace[i as usize].ts = ts,
                _ => {}
            }
            sink.order.push((ts, r));
            max_ts = max_ts.max(ts);
        }
        if negative > 0 {
            let stat = "trace_sorter_negative_timestamp_dropped";
            self.sink.stats.add(stat, negative, None);
        }
        // (packets without a time take the latest event time, in trace time)
        self.max_ts = max_ts;
    }

    fn compact(&mut self, cpu: i64, parts: &[&[u8]]) -> R<()> {
        let mut cols = std::mem::take(&mut self.compact_columns);
        cols.iter_mut().for_each(Vec::clear);
        let decoded = self.compact_events(cpu, parts, &mut cols);
        self.compact_columns = cols;
        decoded
    }

    /// `compact`'s work, into the columns it lends.
    fn compact_events(&mut self, cpu: i64, parts: &[&[u8]], cols: &mut [Vec<u64>; 12]) -> R<()> {
        let mut intern_raw: Vec<&[u8]> = Vec::new();
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
            .map(|b| sink.strings.intern(&text_ref(b)))
            .collect();
        let [sw_ts, sw_state, sw_pid, sw_prio, _, sw_comm, wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm, wk_flags] =
            &*cols;
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
                    prev_comm: NULL_STR,
                    prev_prio: 0,
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
                    // (the int32 pid read as uint32, its raw arg too:
                    // ParseInlineSchedWaking)
                    wakee_pid: i32v(wk_pid[i]) as u32 as i64,
                    comm: intern[wk_comm[i] as u32 as usize],
                    // compact_sched keeps them as uint16 (PushSchedWakingCompact)
                    prio: wk_prio[i] as u16 as i32,
                    target_cpu: wk_cpu[i] as u16 as i32,
                    success: 0,
                    present: WAKING_COMM | WAKING_PID | WAKING_PRIO | WAKING_TARGET_CPU,
                });
                // waking_common_flags, where the producer wrote them
                if let Some(&f) = wk_flags.get(i).filter(|&&f| f != 0) {
                    sink.flag_last(f as u32);
                }
            }
            if ts > self.max_ts {
                self.max_ts = ts;
            }
        }
        Ok(())
    }

    /// AndroidLogPacket: each event at its REALTIME timestamp converted to
    /// trace time (dropped when no clock snapshot converts it, as
    /// trace_processor does), and the logd stats (set, not summed).
    fn android_log(&mut self, parts: &[&[u8]]) -> R<()> {
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Bytes(ev)) => {
                        let (realtime, e) = super::packets_misc::log_event(ev)?;
                        const REALTIME: u32 = 1;
                        self.sink.clock_converted();
                        let Some(ts) = self.clocks.to_boottime(self.seq_id, REALTIME, realtime)
                        else {
                            self.clock_failure(REALTIME, realtime);
                            continue;
                        };
                        self.sink.push_packet(ts, PacketData::Log(e));
                    }
                    (2, Value::Bytes(st)) => {
                        for g in Fields::new(st) {
                            if let (n @ 1..=3, Value::Varint(x)) = g? {
                                let name = [
                                    "android_log_num_total",
                                    "android_log_num_failed",
                                    "android_log_num_skipped",
                                ][n as usize - 1];
                                self.sink.stats.set(name, x as i64, None);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// InternedData: the kernel symbols (field 26: InternedString iid, str).
    fn interned_data(&mut self, buf: &[u8]) -> R<()> {
        for f in Fields::new(buf) {
            if let (26, Value::Bytes(b)) = f? {
                let (mut iid, mut name) = (0u64, &b""[..]);
                for g in Fields::new(b) {
                    match g? {
                        (1, Value::Varint(x)) => iid = x,
                        (2, Value::Bytes(s)) => name = s,
                        _ => {}
                    }
                }
                self.kernel_symbols
                    .entry(self.seq_id)
                    .or_default()
                    .insert(iid, text(name).into());
            }
        }
        Ok(())
    }

    /// The kernel symbol interned as `iid` on the current sequence.
    fn kernel_symbol(&self, iid: Option<i128>) -> Option<&str> {
        let iid = u64::try_from(iid?).ok()?;
        self.kernel_symbols
            .get(&self.seq_id)?
            .get(&iid)
            .map(|s| &**s)
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
                // common_flags: trace_processor keeps ftrace_event.common_flags
                // 0 for these events (only compact wakings carry flags)
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
        for p in ev.parts() {
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
                // (an absent comm is NULL_STR: it names no thread)
                let (mut prev_comm, mut prev_pid, mut prev_state) = (None, 0i64, 0i64);
                let mut prev_prio = 0i64;
                let (mut next_comm, mut next_pid, mut next_prio) = (None, 0i64, 0i64);
                for p in ev.parts() {
                    for f in Fields::new(p) {
                        let (n, v) = f?;
                        match (n, v) {
                            (1, Value::Bytes(b)) => prev_comm = Some(b),
                            // (pids: int32 fields the reference reads as uint32)
                            (2, Value::Varint(x)) => prev_pid = u32v(x),
                            (3, Value::Varint(x)) => prev_prio = i32v(x),
                            (4, Value::Varint(x)) => prev_state = x as i64,
                            (5, Value::Bytes(b)) => next_comm = Some(b),
                            (6, Value::Varint(x)) => next_pid = u32v(x),
                            (7, Value::Varint(x)) => next_prio = i32v(x),
                            _ => {}
                        }
                    }
                }
                let mut comm =
                    |b: Option<&[u8]>| b.map_or(NULL_STR, |b| sink.strings.intern(&text_ref(b)));
                let (prev_comm, next_comm) = (comm(prev_comm), comm(next_comm));
                sink.push_switch(Switch {
                    ts,
                    cpu,
                    compact: false,
                    prev_pid,
                    prev_comm,
                    prev_prio,
                    prev_state,
                    next_pid,
                    next_comm,
                    next_prio,
                });
            }
            "sched_waking" => {
                let (mut comm, mut wpid) = (&b""[..], 0i64);
                let (mut prio, mut success, mut target_cpu, mut present) = (0, 0, 0, 0u8);
                for p in ev.parts() {
                    for f in Fields::new(p) {
                        let (n, v) = f?;
                        match (n, v) {
                            (1, Value::Bytes(b)) => {
                                comm = b;
                                present |= WAKING_COMM;
                            }
                            (2, Value::Varint(x)) => {
                                wpid = i32v(x);
                                present |= WAKING_PID;
                            }
                            (3, Value::Varint(x)) => {
                                prio = i32v(x) as i32;
                                present |= WAKING_PRIO;
                            }
                            (4, Value::Varint(x)) => {
                                success = i32v(x) as i32;
                                present |= WAKING_SUCCESS;
                            }
                            (5, Value::Varint(x)) => {
                                target_cpu = i32v(x) as i32;
                                present |= WAKING_TARGET_CPU;
                            }
                            _ => {}
                        }
                    }
                }
                let comm = match present & WAKING_COMM {
                    0 => NULL_STR,
                    _ => sink.strings.intern(&text_ref(comm)),
                };
                sink.push_waking(Waking {
                    ts,
                    cpu,
                    compact: false,
                    pid: Some(pid),
                    wakee_pid: wpid,
                    comm,
                    prio,
                    target_cpu,
                    success,
                    present,
                });
            }
            "generic" => {
                // an event the producer had no proto for: named by itself
                let (name, fields) = legacy_generic(ev.parts())?;
                sink.push_ftrace(FtraceEv {
                    ts,
                    raw_ts: ts,
                    cpu,
                    pid,
                    name,
                    fields,
                    generic: true,
                });
            }
            _ => {
                let mut fields = match generic_fields(name) {
                    Some(specs) => generic_values(specs, ev.parts())?,
                    None => Vec::new(),
                };
                if let Some(field) = symbol_address_field(name) {
                    // an absent field reads as iid 0, as protozero's default
                    let iid = match fields.iter().find(|f| f.0 == field) {
                        Some((_, FieldVal::Int(i))) => Some(*i),
                        Some(_) => None,
                        None => Some(0),
                    };
                    let symbol = match self.kernel_symbol(iid) {
                        Some(symbol) => FieldVal::Str(symbol.to_owned()),
                        None => FieldVal::Bool(false),
                    };
                    fields.push((SYMBOL_FIELD, symbol));
                }
                let e = FtraceEv {
                    ts,
                    raw_ts: ts,
                    cpu,
                    pid,
                    name,
                    fields,
                    generic: false,
                };
                if name.starts_with("kgsl_adreno_cmdbatch_") {
                    for e in self.adreno.event(e) {
                        self.sink.push_ftrace(e);
                    }
                } else if let Some(how) = SELF_STAMPED.iter().find(|s| s.event == name) {
                    self.self_stamped(e, how);
                } else {
                    self.sink.push_ftrace(e);
                }
            }
        }
        Ok(())
    }

    /// An event stamped by a field of its own (`SelfStamped`): its raw
    /// row, and its copy at the field's time; an event without the field
    /// (ftrace_bundle_tokenizer_errors) or whose time no clock snapshot
    /// converts is dropped whole, as trace_processor's tokenizer drops it.
    fn self_stamped(&mut self, e: FtraceEv, how: &SelfStamped) {
        let Some(stamp) = e.int(how.field) else {
            self.sink
                .stats
                .add("ftrace_bundle_tokenizer_errors", 1, None);
            return;
        };
        let stamp = stamp as u64 as i64;
        let ts = match how.clock {
            None => stamp,
            Some(clock) => {
                self.sink.clock_converted();
                match self.clocks.to_boottime(self.seq_id, clock, stamp) {
                    Some(ts) => ts,
                    None => {
                        self.clock_failure(clock, stamp);
                        return;
                    }
                }
            }
        };
        let copy = FtraceEv {
            ts,
            name: how.copy,
            ..e.clone()
        };
        self.sink.push_ftrace(e);
        self.sink.push_ftrace(copy);
    }

    fn process_tree(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut processes = Vec::new();
        let mut threads = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                match (num, v) {
                    (1, Value::Bytes(b)) => {
                        let p = tree_process(b)?;
                        // process_start_from_boot goes through the clocks
                        self.sink.parse_clock_conversion |= p.start_ts.is_some();
                        processes.push(p);
                    }
                    (2, Value::Bytes(b)) => threads.push(tree_thread(b)?),
                    _ => {}
                }
            }
        }
        let machine = self.sink.packet_machine as usize;
        if machine != 0 {
            // a remote machine's start times are its BOOTTIME
            let boot = Some(crate::machines::BOOTTIME);
            for p in &mut processes {
                p.start_ts = p
                    .start_ts
                    .map(|t| self.remote_trace_time(machine, boot, t).unwrap_or(t));
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

    /// SysStats: every field trace_processor's SystemProbesParser reads
    /// (collection_end_timestamp makes no row).
    fn sys_stats(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut d = SysStatsData::default();
        let mut cpufreq: Vec<u64> = Vec::new();
        let mut gpufreq: Vec<u64> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                let (num, v) = f?;
                match (num, v) {
                    (11, v) => push_varints(v, &mut cpufreq)?,
                    (17, v) => push_varints(v, &mut gpufreq)?,
                    (4, Value::Varint(x)) => d.num_forks = Some(x),
                    (5, Value::Varint(x)) => d.num_irq_total = Some(x),
                    (7, Value::Varint(x)) => d.num_softirq_total = Some(x),
                    (2, Value::Bytes(b)) => {
                        let [key, val] = varint_fields(b)?;
                        d.vmstat.push((key, val as i128));
                    }
                    (3, Value::Bytes(b)) => {
                        let mut t = crate::events::CpuTimes::default();
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => t.cpu = Some(x as u32),
                                (n @ 2..=9, Value::Varint(x)) => t.times_ns[n as usize - 2] = x,
                                _ => {}
                            }
                        }
                        d.cpu_stat.push(t);
                    }
                    (n @ (6 | 8), Value::Bytes(b)) => {
                        let [irq, count] = varint_fields(b)?;
                        let irqs = if n == 6 {
                            &mut d.num_irq
                        } else {
                            &mut d.num_softirq
                        };
                        irqs.push((irq as i32, count));
                    }
                    (12, Value::Bytes(b)) => {
                        let mut bi = crate::events::BuddyInfo::default();
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => bi.node = Some(text(s)),
                                (2, Value::Bytes(s)) => bi.zone = Some(text(s)),
                                (3, v) => push_varints(v, &mut bi.order_pages)?,
                                _ => {}
                            }
                        }
                        d.buddy_info.push(bi);
                    }
                    (14, Value::Bytes(b)) => {
                        let [resource, total_ns] = varint_fields(b)?;
                        d.psi.push((resource, total_ns));
                    }
                    (18, Value::Bytes(b)) => {
                        let (mut name, mut pages_per_slab, mut num_slabs) = (None, 0, 0);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => name = Some(text(s)),
                                (2, Value::Varint(x)) => pages_per_slab = x as u32,
                                (3, Value::Varint(x)) => num_slabs = x as u32,
                                _ => {}
                            }
                        }
                        d.slab_info.push((name, pages_per_slab, num_slabs));
                    }
                    (1, Value::Bytes(b)) => {
                        let (mut key, mut val) = (0u64, 0i128);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => key = x,
                                (2, Value::Varint(x)) => val = x as i128,
                                _ => {}
                            }
                        }
                        d.meminfo.push((key, val));
                    }
                    (10, Value::Bytes(b)) => {
                        let (mut key, mut val) = (None, 0i128);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => key = Some(text(s)),
                                (2, Value::Varint(x)) => val = x as i128,
                                _ => {}
                            }
                        }
                        d.devfreq.push((key, val));
                    }
                    (15, Value::Bytes(b)) => {
                        let (mut ty, mut temp) = (None, 0i128);
                        for f in Fields::new(b) {
                            match f? {
                                (3, Value::Bytes(s)) => ty = Some(text(s)),
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
                    (13, Value::Bytes(b)) => {
                        let mut s = crate::events::DiskStat::default();
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(n)) => s.device_name = Some(text(n)),
                                (2, Value::Varint(x)) => s.read_sectors = x as i64,
                                (3, Value::Varint(x)) => s.read_time_ms = x as i64,
                                (4, Value::Varint(x)) => s.write_sectors = x as i64,
                                (5, Value::Varint(x)) => s.write_time_ms = x as i64,
                                (6, Value::Varint(x)) => s.discard_sectors = x as i64,
                                (7, Value::Varint(x)) => s.discard_time_ms = x as i64,
                                (8, Value::Varint(x)) => s.flush_count = x as i64,
                                (9, Value::Varint(x)) => s.flush_time_ms = x as i64,
                                _ => {}
                            }
                        }
                        d.disk_stat.push(s);
                    }
                    (_, Value::Bytes(b)) => super::wire::validate(b)?,
                    _ => {}
                }
            }
        }
        d.cpufreq_khz = cpufreq.iter().map(|&x| u32v(x)).collect();
        d.gpufreq_mhz = gpufreq.iter().map(|&x| x as i128).collect();
        self.sink.push_packet(ts, PacketData::SysStats(Box::new(d)));
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
                        features: 0,
                        arm_identifier: None,
                    };
                    let mut freqs = Vec::new();
                    for f in Fields::new(b) {
                        match f? {
                            (1, Value::Bytes(s)) => c.processor = Some(text(s)),
                            (2, v) => push_varints(v, &mut freqs)?,
                            (3, Value::Varint(x)) => c.capacity = Some(u32v(x)),
                            (5, Value::Varint(x)) => c.features = x,
                            (4, Value::Bytes(id)) => {
                                let mut ids = [0u32; 5];
                                for f in Fields::new(id) {
                                    if let (n @ 1..=5, Value::Varint(x)) = f? {
                                        ids[n as usize - 1] = x as u32;
                                    }
                                }
                                c.arm_identifier = Some(ids);
                            }
                            _ => {}
                        }
                    }
                    c.frequencies = freqs.iter().map(|&x| u32v(x)).collect();
                    cpus.push(c);
                }
            }
        }
        if cpus.is_empty() {
            // trace_processor ignores an empty CpuInfo, counting it
            self.sink.stats.add("cpu_info_empty", 1, None);
            return Ok(());
        }
        for c in &cpus {
            if c.features >> crate::events::CPU_FEATURES.len() != 0 {
                self.sink
                    .stats
                    .add("cpu_info_unknown_cpu_features", 1, None);
            }
        }
        self.sink.cpu_info.push(cpus);
        Ok(())
    }

    /// SystemInfo of `machine` (a `machines` table id): its machine row;
    /// the host's also fills metadata and what the replay reads.
    fn system_info(&mut self, machine: usize, parts: &[&[u8]]) -> R<()> {
        // (sysname, version, release, machine): None where the field is absent
        type Uts = (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let mut uts: Option<Uts> = None;
        // SystemInfo's string fields trace_processor records as metadata
        const STRINGS: [(u32, &str); 9] = [
            (2, "android_build_fingerprint"),
            (14, "android_device_manufacturer"),
            (4, "tracing_service_version"),
            (9, "android_soc_model"),
            (13, "android_guest_soc_model"),
            (10, "android_hardware_revision"),
            (11, "android_storage_model"),
            (12, "android_ram_model"),
            (15, "android_serial_console"),
        ];
        let mut strings: Vec<(&'static str, String)> = Vec::new();
        let (mut sdk, mut ram, mut tz) = (None, None, None);
        let (mut num_cpus, mut machine_name) = (None, None);
        let mut page_size = 0u32;
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Bytes(b)) => {
                        let u = uts.get_or_insert_with(Default::default);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => u.0 = Some(text(s)),
                                (2, Value::Bytes(s)) => u.1 = Some(text(s)),
                                (3, Value::Bytes(s)) => u.2 = Some(text(s)),
                                (4, Value::Bytes(s)) => u.3 = Some(text(s)),
                                _ => {}
                            }
                        }
                    }
                    (7, Value::Varint(x)) => tz = Some(i32v(x)),
                    (5, Value::Varint(x)) => sdk = Some(x as i64),
                    (16, Value::Varint(x)) => ram = Some(x as i64),
                    (8, Value::Varint(x)) => num_cpus = Some(x as u32 as i64),
                    (6, Value::Varint(x)) => page_size = x as u32,
                    (17, Value::Bytes(s)) => machine_name = Some(text(s)),
                    (n, Value::Bytes(s)) => {
                        if let Some((_, key)) = STRINGS.iter().find(|k| k.0 == n) {
                            strings.retain(|(k, _)| k != key);
                            strings.push((key, text(s)));
                        }
                    }
                    _ => {}
                }
            }
        }
        let fingerprint = strings
            .iter()
            .find(|(k, _)| *k == "android_build_fingerprint")
            .map(|(_, v)| v.clone());
        let parts_of_fp = fingerprint
            .as_deref()
            .and_then(crate::metadata::fingerprint_parts);
        let sdk = sdk.or(parts_of_fp.as_ref().and_then(|p| p.0));
        // the machine's row: each field SystemInfo has replaces the row's
        let row = &mut self.sink.machines.rows[machine];
        if let Some(name) = machine_name {
            row.name = Some(name);
        }
        if let Some((sysname, version, release, arch)) = &uts {
            (row.sysname, row.version) = (sysname.clone(), version.clone());
            (row.release, row.arch) = (release.clone(), arch.clone());
        }
        let manufacturer = strings
            .iter()
            .find(|(k, _)| *k == "android_device_manufacturer")
            .map(|(_, v)| v.clone());
        for (field, v) in [
            (&mut row.android_build_fingerprint, fingerprint),
            (&mut row.android_device_manufacturer, manufacturer),
        ] {
            if v.is_some() {
                *field = v;
            }
        }
        for (field, v) in [
            (&mut row.android_sdk_version, sdk),
            (&mut row.num_cpus, num_cpus),
            (&mut row.system_ram_bytes, ram),
        ] {
            if v.is_some() {
                *field = v;
            }
        }
        let sink = &mut *self.sink;
        if machine == 0 {
            // each SystemInfo sets it, 4096 when it has none (SystemProbesParser)
            sink.page_size = if page_size == 0 { 4096 } else { page_size };
            if let Some((sysname, version, release, machine)) = &uts {
                sink.utsname_sysname = Some(sysname.clone().unwrap_or_default());
                sink.kernel_release = Some(release.clone().unwrap_or_default());
                sink.utsname_machine = Some(machine.clone().unwrap_or_default());
                if version.is_some() {
                    sink.utsname_version = version.clone();
                }
            }
            if let Some(tz) = tz {
                sink.timezone_off_mins = Some(tz);
            }
        }
        // the machine's metadata (a remote machine's rows name it)
        let md = sink.metadata_of(machine);
        if let Some((sysname, version, release, machine)) = uts {
            // all four, absent ones too (NULL in the table, as trace_processor)
            for (key, v) in [
                ("system_name", &sysname),
                ("system_version", &version),
                ("system_release", &release),
                ("system_machine", &machine),
            ] {
                md.set_opt_str(key, v.as_deref());
            }
        }
        if let Some(tz) = tz {
            md.set_int("timezone_off_mins", tz);
        }
        // in trace_processor's order: the fingerprint (and the incremental
        // build parsed from it), then the sdk version (recorded, else parsed
        // from the fingerprint), then the other strings
        for (key, v) in &strings {
            if *key == "android_build_fingerprint" {
                md.set_str(key, v.as_str());
                if let Some((_, incremental)) = &parts_of_fp {
                    md.set_str("android_incremental_build", incremental.as_str());
                }
            }
        }
        if let Some(sdk) = sdk {
            md.set_int("android_sdk_version", sdk);
        }
        for (key, v) in &strings {
            if *key != "android_build_fingerprint" {
                md.set_str(key, v.as_str());
            }
        }
        if let Some(ram) = ram {
            md.set_int("system_ram_bytes", ram);
            let gb = (ram as f64 / 1e9).round() as i64;
            md.set_int("system_ram_gb", gb);
        }
        Ok(())
    }

    fn service_event(&mut self, ts: i64, parts: &[&[u8]]) -> R<()> {
        let mut started = false;
        let mut flags = [false; 12];
        let mut slow_starting: Vec<String> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    // event_type oneof: the last member wins
                    (num @ 1..=11, Value::Varint(x)) => {
                        started = num == 2 && x != 0;
                        flags = [false; 12];
                        flags[num as usize] = x != 0;
                        slow_starting.clear();
                    }
                    // slow_starting_data_sources: "<producer> <data source>"
                    (7, Value::Bytes(b)) => {
                        started = false;
                        flags = [false; 12];
                        slow_starting.clear();
                        for f in Fields::new(b) {
                            if let (1, Value::Bytes(ds)) = f? {
                                let (mut producer, mut name) = (String::new(), String::new());
                                for f in Fields::new(ds) {
                                    match f? {
                                        (1, Value::Bytes(s)) => producer = text(s),
                                        (2, Value::Bytes(s)) => name = text(s),
                                        _ => {}
                                    }
                                }
                                slow_starting.push(format!("{producer} {name}"));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if started {
            self.sink.tracing_started_ts = Some(ts);
        }
        // the metadata times are in the trace's clock (trace_processor's
        // trace time; the packet's timestamp is BOOTTIME here)
        let ts = match self.sink.metadata.get_int("trace_time_clock_id") {
            Some(c) if c != 6 => self
                .clocks
                .from_boottime(self.seq_id, c as u32, ts)
                .unwrap_or(ts),
            _ => ts,
        };
        // TracingServiceEvent: tracing_started = 2, tracing_disabled = 5,
        // all_data_sources_started = 1, all_data_sources_flushed = 3
        let md = &mut self.sink.metadata;
        if flags[2] {
            md.set_int("tracing_started_ns", ts);
        }
        if flags[5] {
            md.set_int("tracing_disabled_ns", ts);
        }
        if flags[1] {
            md.set_int("all_data_source_started_ns", ts);
        }
        if flags[3] {
            md.append(
                "all_data_source_flushed_ns",
                crate::metadata::MetaVal::Int(ts),
            );
        }
        for s in slow_starting {
            md.append("slow_start_data_source", crate::metadata::MetaVal::Str(s));
        }
        Ok(())
    }

    /// ClockSnapshot: trace_processor's trace_time_clock_id, the clock the
    /// trace's timestamps are in (primary_trace_clock, else BOOTTIME when the
    /// snapshot has BOOTTIME but no TRACE_FILE clock; trace processor does
    /// not change it after the first timestamp conversion), and the
    /// snapshot's clocks, kept when valid.
    fn clock_snapshot(&mut self, parts: &[&[u8]]) -> R<()> {
        const BOOTTIME: i64 = 6;
        const TRACE_FILE: i64 = 11;
        let (mut primary, mut clocks) = (0i64, Vec::new());
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (2, Value::Varint(x)) => primary = x as i64,
                    (1, Value::Bytes(b)) => {
                        let mut clock = super::clocks::SnapshotClock::ns(0, 0);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => clock.id = x as u32,
                                (2, Value::Varint(x)) => clock.timestamp = x as i64,
                                (3, Value::Varint(x)) => clock.incremental = x != 0,
                                (4, Value::Varint(x)) if x != 0 => clock.unit_ns = x as i64,
                                _ => {}
                            }
                        }
                        clocks.push(clock);
                    }
                    _ => {}
                }
            }
        }
        let has = |id: i64| clocks.iter().any(|c| c.id as i64 == id);
        let clock = if primary != 0 {
            Some(primary)
        } else if has(BOOTTIME) && !has(TRACE_FILE) {
            Some(BOOTTIME)
        } else {
            None
        };
        // SetTraceDefaultClock, and SetGlobalClock: each snapshot sets the
        // trace's clock until a timestamp was converted, before the
        // snapshot is added
        if let Some(c) = clock {
            self.trace_default_clock = Some(c as u32);
        }
        let md = &mut self.sink.metadata;
        if let (Some(c), false) = (clock, self.clocks.used()) {
            md.set_int("trace_time_clock_id", c);
        }
        let trace_clock = self.trace_clock();
        // (a rejected snapshot still takes a snapshot id: an empty one here)
        if !self.clocks.snapshot(self.seq_id, &clocks, trace_clock) {
            self.sink.stats.add("invalid_clock_snapshots", 1, None);
            self.sink.clock_snapshots.push(Vec::new());
            return Ok(());
        }
        // rows only for a snapshot holding the trace's clock as it was then
        // (the table's clocks are converted to it)
        let trace_ts = clocks
            .iter()
            .find(|c| c.id == trace_clock)
            .map(|c| c.timestamp);
        let rows = if let Some(ts) = trace_ts {
            let id = self.sink.clock_snapshots.len();
            self.sink.snapshot_trace_ts.insert(id, ts);
            let row = |c: &super::clocks::SnapshotClock| crate::events::SnapshotClock {
                machine: 0,
                clock_id: c.id,
                timestamp: c.timestamp,
                unit_multiplier_ns: c.unit_ns,
            };
            clocks.iter().map(row).collect()
        } else {
            Vec::new()
        };
        self.sink.clock_snapshots.push(rows);
        self.sink.host_snapshots += 1;
        Ok(())
    }

    /// TraceAttributes: `trace_attribute.<key>` metadata (a later value of a
    /// key replaces the earlier one).
    fn trace_attributes(&mut self, buf: &[u8]) -> R<()> {
        for f in Fields::new(buf) {
            if let (1, Value::Bytes(attr)) = f? {
                let (mut key, mut value) = (String::new(), None);
                for f in Fields::new(attr) {
                    match f? {
                        (1, Value::Bytes(s)) => key = text(s),
                        (2, Value::Varint(x)) => value = Some(MetaVal::Int(x as i64)),
                        (3, Value::Bytes(s)) => value = Some(MetaVal::Str(text(s))),
                        _ => {}
                    }
                }
                if let Some(v) = value {
                    self.sink.metadata.set(&format!("trace_attribute.{key}"), v);
                }
            }
        }
        Ok(())
    }

    /// TraceUuid: the trace's UUID (a non-zero one wins over the trace
    /// config's and the hash of the file's first bytes).
    fn trace_uuid(&mut self, parts: &[&[u8]]) -> R<()> {
        let (mut msb, mut lsb) = (0i64, 0i64);
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Varint(x)) => msb = x as i64,
                    (2, Value::Varint(x)) => lsb = x as i64,
                    _ => {}
                }
            }
        }
        if msb != 0 || lsb != 0 {
            self.sink.recorded_uuid = Some(crate::metadata::uuid_string(msb, lsb));
        }
        Ok(())
    }

    /// PackagesList: one package_list row per package name (the first
    /// seen wins; trace_processor skips names it already has) and the
    /// list's parse / read error flags as stats.
    fn packages_list(&mut self, parts: &[&[u8]]) -> R<()> {
        let (mut parse_error, mut read_error) = (0i64, 0i64);
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Bytes(b)) => {
                        let (mut name, mut uid, mut dbg, mut prof, mut ver) = (None, 0, 0, 0, 0);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Bytes(s)) => name = Some(text(s)),
                                (2, Value::Varint(x)) => uid = x as i64,
                                (3, Value::Varint(x)) => dbg = (x != 0) as i64,
                                (4, Value::Varint(x)) => prof = (x != 0) as i64,
                                (5, Value::Varint(x)) => ver = x as i64,
                                _ => {}
                            }
                        }
                        // (one row per name, an absent one as ""; its
                        // row keeps the null name, as ParseAndroidPackagesList)
                        let key = name.as_deref().unwrap_or("");
                        if !(self.sink.packages.iter()).any(|p| p.0.as_deref().unwrap_or("") == key)
                        {
                            self.sink.packages.push((name, uid, dbg, prof, ver));
                        }
                    }
                    (2, Value::Varint(x)) => parse_error = (x != 0) as i64,
                    (3, Value::Varint(x)) => read_error = (x != 0) as i64,
                    _ => {}
                }
            }
        }
        let st = &mut self.sink.stats;
        st.set("packages_list_has_parse_errors", parse_error, None);
        st.set("packages_list_has_read_errors", read_error, None);
        Ok(())
    }

    /// FtraceStats (trace_processor's FtraceParser::ParseFtraceStats): the
    /// per-cpu ring-buffer counters at the start / end of the trace as
    /// indexed stats `ftrace_cpu_<counter>_{begin,end}` (+ `_delta` at the
    /// end when the start was recorded), kprobe hits / misses, and at the
    /// start the setup errors (once per packet sequence).
    fn ftrace_stats(&mut self, parts: &[&[u8]]) -> R<()> {
        let mut phase = 0u64;
        // cpu, [entries, overrun, commit_overrun, bytes, dropped_events,
        // read_events, now_ts], oldest_event_ts
        let mut cpu_stats: Vec<(i64, [i64; 7], f64)> = Vec::new();
        let (mut preserve, mut setup_errors) = (false, 0i64);
        // the setup errors' import log messages, in trace_processor's order
        let (mut failed, mut unknown) = (Vec::new(), Vec::new());
        let (mut atrace, mut exclusive) = (None, None);
        let mut kprobe = [0i64; 2];
        let mut parse_errors: Vec<u64> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (1, Value::Varint(x)) => phase = x,
                    (2, Value::Bytes(b)) => {
                        let (mut cpu, mut vals, mut oldest) = (0i64, [0i64; 7], 0f64);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => cpu = x as u32 as i64,
                                (n @ (2..=5 | 8 | 9), Value::Varint(x)) => {
                                    let slot = match n {
                                        8 => 4,
                                        9 => 5,
                                        n => n as usize - 2,
                                    };
                                    vals[slot] = x as i64;
                                }
                                (6, Value::Fixed64(x)) => oldest = f64::from_bits(x),
                                (7, Value::Fixed64(x)) => {
                                    vals[6] = (f64::from_bits(x) * 1e9) as i64
                                }
                                _ => {}
                            }
                        }
                        cpu_stats.push((cpu, vals, oldest));
                    }
                    (5, Value::Bytes(b)) if !b.is_empty() => {
                        setup_errors += 1;
                        atrace = Some(format!("Atrace failures: {}", text_ref(b)));
                    }
                    (13, Value::Bytes(b)) if !b.is_empty() => {
                        setup_errors += 1;
                        exclusive =
                            Some(format!("Ftrace exclusive feature error: {}", text_ref(b)));
                    }
                    (6, Value::Bytes(b)) => {
                        setup_errors += 1;
                        unknown.push(format!("Ftrace event unknown: {}", text_ref(b)));
                    }
                    (7, Value::Bytes(b)) => {
                        setup_errors += 1;
                        failed.push(format!("Ftrace event failed: {}", text_ref(b)));
                    }
                    (8, Value::Varint(x)) => preserve = x != 0,
                    (9, v) => push_varints(v, &mut parse_errors)?,
                    (10, Value::Bytes(b)) => {
                        for f in Fields::new(b) {
                            if let (n @ 1..=2, Value::Varint(x)) = f? {
                                kprobe[n as usize - 1] = x as i64;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        // FtraceStats.Phase: START_OF_TRACE = 1, END_OF_TRACE = 2
        let phase = match phase {
            1 => "begin",
            2 => "end",
            _ => return Ok(()), // trace_processor ignores other phases
        };
        let sink = &mut *self.sink;
        if preserve && phase == "begin" {
            sink.preserve_ftrace_buffer = true;
        }
        const NAMES: [&str; 7] = [
            "entries",
            "overrun",
            "commit_overrun",
            "bytes",
            "dropped_events",
            "read_events",
            "now_ts",
        ];
        let st = &mut sink.stats;
        for (cpu, vals, oldest) in cpu_stats {
            for (name, v) in NAMES.iter().zip(vals) {
                st.set(&format!("ftrace_cpu_{name}_{phase}"), v, Some(cpu));
            }
            if phase == "end" {
                for (name, v) in NAMES[..6].iter().zip(vals) {
                    if let Some(begin) = st.get(&format!("ftrace_cpu_{name}_begin"), Some(cpu)) {
                        st.set(&format!("ftrace_cpu_{name}_delta"), v - begin, Some(cpu));
                    }
                }
            }
            // seconds as a double; a value past i64 saturates (as trace_processor)
            let oldest = (oldest * 1e9).min(i64::MAX as f64) as i64;
            st.set(
                &format!("ftrace_cpu_oldest_event_ts_{phase}"),
                oldest,
                Some(cpu),
            );
        }
        for (i, name) in ["hits", "misses"].iter().enumerate() {
            st.set(&format!("ftrace_kprobe_{name}_{phase}"), kprobe[i], None);
            if phase == "end" {
                let begin = st
                    .get(&format!("ftrace_kprobe_{name}_begin"), None)
                    .unwrap_or(0);
                if begin != 0 {
                    st.set(
                        &format!("ftrace_kprobe_{name}_delta"),
                        kprobe[i] - begin,
                        None,
                    );
                }
            }
        }
        // FtraceParseStatus FTRACE_STATUS_ABI_ZERO_DATA_LENGTH (12): zero-padded
        // pages, counted and tolerated (trace_processor refuses a trace with
        // any other ring-buffer ABI error; the embedded engine reads it)
        let zero_length = parse_errors.iter().filter(|&&e| e == 12).count() as i64;
        if zero_length > 0 {
            st.add(
                "ftrace_abi_errors_skipped_zero_data_length",
                zero_length,
                None,
            );
        }
        if phase == "begin" && setup_errors > 0 && self.setup_error_seqs.insert(self.seq_id) {
            st.add("ftrace_setup_errors", setup_errors, None);
            let logs = &mut self.sink.ftrace_setup_error_logs;
            logs.extend(
                failed
                    .into_iter()
                    .chain(unknown)
                    .chain(atrace)
                    .chain(exclusive),
            );
        }
        Ok(())
    }

    /// TraceStats (trace_processor's ProtoTraceReader::ParseTraceStats): the
    /// tracing service's counters and per-buffer `traced_buf_*` stats. (Its
    /// per-writer loss counters need packet-sequence state the decoder does
    /// not keep; they are not filled.)
    fn trace_stats(&mut self, parts: &[&[u8]]) -> R<()> {
        // TraceStats field -> single stat
        const SINGLE: [(u32, &str); 11] = [
            (2, "traced_producers_connected"),
            (3, "traced_producers_seen"),
            (4, "traced_data_sources_registered"),
            (5, "traced_data_sources_seen"),
            (6, "traced_tracing_sessions"),
            (7, "traced_total_buffers"),
            (8, "traced_chunks_discarded"),
            (9, "traced_patches_discarded"),
            (12, "traced_flushes_requested"),
            (13, "traced_flushes_succeeded"),
            (14, "traced_flushes_failed"),
        ];
        // FilterStats field -> stat
        const FILTER: [(u32, &str); 5] = [
            (4, "filter_errors"),
            (2, "filter_input_bytes"),
            (1, "filter_input_packets"),
            (3, "filter_output_bytes"),
            (5, "filter_time_taken_ns"),
        ];
        // BufferStats field -> traced_buf_<name>, in trace_processor's order
        const BUF: [(u32, &str); 20] = [
            (12, "buffer_size"),
            (1, "bytes_written"),
            (13, "bytes_overwritten"),
            (14, "bytes_read"),
            (15, "padding_bytes_written"),
            (16, "padding_bytes_cleared"),
            (2, "chunks_written"),
            (10, "chunks_rewritten"),
            (3, "chunks_overwritten"),
            (18, "chunks_discarded"),
            (17, "chunks_read"),
            (20, "chunks_relocated"),
            (11, "chunks_committed_out_of_order"),
            (4, "write_wrap_count"),
            (5, "patches_succeeded"),
            (6, "patches_failed"),
            (7, "readaheads_succeeded"),
            (8, "readaheads_failed"),
            (9, "abi_violations"),
            (19, "trace_writer_packet_loss"),
        ];
        let mut single = [0i64; 15];
        let mut filter: Option<([i64; 6], Vec<i64>)> = None;
        let mut outcome = 0u64;
        let mut bufs: Vec<[i64; 21]> = Vec::new();
        // WriterStats (sequence_id, buffer)
        let mut writers: Vec<(u32, i64)> = Vec::new();
        for p in parts {
            for f in Fields::new(p) {
                match f? {
                    (n @ 2..=14, Value::Varint(x)) => single[n as usize] = x as i64,
                    (15, Value::Varint(x)) => outcome = x,
                    (11, Value::Bytes(b)) => {
                        let (vals, per_buf) = filter.get_or_insert_with(Default::default);
                        for f in Fields::new(b) {
                            match f? {
                                (n @ 1..=5, Value::Varint(x)) => vals[n as usize] = x as i64,
                                (20, v) => {
                                    let mut xs = Vec::new();
                                    push_varints(v, &mut xs)?;
                                    per_buf.extend(xs.into_iter().map(|x| x as i64));
                                }
                                _ => {}
                            }
                        }
                    }
                    (1, Value::Bytes(b)) => {
                        let mut vals = [0i64; 21];
                        for f in Fields::new(b) {
                            if let (n @ 1..=20, Value::Varint(x)) = f? {
                                vals[n as usize] = x as i64;
                            }
                        }
                        bufs.push(vals);
                    }
                    (18, Value::Bytes(b)) => {
                        let (mut seq, mut buf) = (0u64, 0u64);
                        for f in Fields::new(b) {
                            match f? {
                                (1, Value::Varint(x)) => seq = x,
                                (4, Value::Varint(x)) => buf = x,
                                _ => {}
                            }
                        }
                        writers.push((seq as u32, buf as i32 as i64));
                    }
                    _ => {}
                }
            }
        }
        let st = &mut self.sink.stats;
        for (field, name) in SINGLE {
            st.set(name, single[field as usize], None);
        }
        if let Some((vals, per_buf)) = filter {
            for (field, name) in FILTER {
                st.set(name, vals[field as usize], None);
            }
            for (i, v) in per_buf.into_iter().enumerate() {
                st.set("traced_buf_bytes_filtered_out", v, Some(i as i64));
            }
        }
        // FinalFlushOutcome: SUCCEEDED = 1, FAILED = 2
        match outcome {
            1 => st.add("traced_final_flush_succeeded", 1, None),
            2 => st.add("traced_final_flush_failed", 1, None),
            _ => {}
        }
        for (i, vals) in bufs.iter().enumerate() {
            for (field, name) in BUF {
                st.set(
                    &format!("traced_buf_{name}"),
                    vals[field as usize],
                    Some(i as i64),
                );
            }
        }
        // the losses of the sequences seen so far, summed per buffer of
        // their writers (ProtoTraceReader::ParseTraceStats)
        const CAUSES: [&str; 8] = [
            "read_gap",
            "chunk_corrupted",
            "orphan_continuation",
            "reassembly_gap",
            "reassembly_broken_chain",
            "overwrite",
            "writer_abort",
            "smb_full",
        ];
        let mut per_buf: std::collections::BTreeMap<i64, [i64; 10]> = Default::default();
        for (seq, buf) in writers {
            let Some(s) = self.seq_loss.get(&seq) else {
                continue;
            };
            let v = per_buf.entry(buf).or_default();
            v[0] += s.dropped;
            v[1] += (s.skipped > 0 && s.skipped == s.needs_incremental) as i64;
            for (i, c) in s.causes.iter().enumerate() {
                v[2 + i] += c;
            }
        }
        for (buf, v) in per_buf {
            st.set("traced_buf_sequence_packet_loss", v[0], Some(buf));
            st.set("traced_buf_incremental_sequences_dropped", v[1], Some(buf));
            for (i, cause) in CAUSES.iter().enumerate() {
                st.set(
                    &format!("traced_buf_data_loss_{cause}"),
                    v[2 + i],
                    Some(buf),
                );
            }
        }
        Ok(())
    }

    /// A packet's part in its sequence's losses (ProtoTraceReader::
    /// ParsePacket): previous_packet_dropped counts after the sequence's
    /// first packet; clearing the incremental state makes it valid, a loss
    /// invalid; a packet needing it is skipped while it is invalid.
    fn count_loss(&mut self, has_seq: bool, cleared: bool, dropped: u64, flags: u64) -> bool {
        const SEQ_NEEDS_INCREMENTAL_STATE: u64 = 2;
        let seq_id = self.seq_id;
        let mut first = false;
        let s = self.seq_loss.entry(seq_id).or_insert_with(|| {
            first = true;
            SeqLoss::default()
        });
        if has_seq && !first && dropped != 0 {
            s.dropped += 1;
            for (i, c) in s.causes.iter_mut().enumerate() {
                // READ_GAP = 2, CHUNK_CORRUPTED = 4, ... SMB_FULL = 256
                if dropped & (2 << i) != 0 {
                    *c += 1;
                }
            }
        }
        if has_seq && cleared {
            s.valid = true;
        } else if has_seq && dropped != 0 {
            s.valid = false;
        }
        if flags & SEQ_NEEDS_INCREMENTAL_STATE != 0 && seq_id != 0 {
            s.needs_incremental += 1;
            if !s.valid {
                s.skipped += 1;
                self.sink.stats.add(
                    "packet_skipped_seq_needs_incremental_state_invalid",
                    1,
                    None,
                );
                // its import log row (trackers::core::import_logs)
                self.sink
                    .skipped_packet_logs
                    .push((self.offset as i64, seq_id));
                return true;
            }
        }
        false
    }

    /// Runs `f` with the track event tokenizer and the conversion of its
    /// CLOCK_MONOTONIC times (delta / absolute) to the trace's clock: a
    /// time that does not convert is kept as it is, counted.
    fn monotonic_times<T>(
        &mut self,
        trace_clock: u32,
        f: impl FnOnce(&mut super::track_event::Tokenizer, &mut dyn FnMut(i64) -> i64) -> R<T>,
    ) -> R<T> {
        let seq = self.seq_id;
        let clocks = &mut self.clocks;
        let (mut failure, mut converted) = (None, false);
        let mut to_trace = |t: i64| {
            converted = true;
            clocks
                .to_trace_clock(seq, 3, t, trace_clock)
                .unwrap_or_else(|| {
                    failure = Some(t);
                    t
                })
        };
        let got = f(&mut self.track_events, &mut to_trace);
        if converted {
            self.sink.clock_converted();
        }
        if let Some(t) = failure {
            self.clock_failure(3, t);
        }
        got
    }

    /// The target clock a conversion error names: the trace's clock, or
    /// TRACE_FILE (11) while no ClockSnapshot set one.
    fn clock_failure_target(&self) -> i64 {
        if self.clocks.has_snapshots() {
            let clock = self.sink.metadata.get_int("trace_time_clock_id");
            clock.unwrap_or(6)
        } else {
            11
        }
    }

    /// A timestamp `ts` of `clock` that no snapshot converts to trace
    /// time: its stat and import log (ClockTracker: the source clock and
    /// time, the trace's clock, TRACE_FILE (11) while no ClockSnapshot set
    /// one).
    fn clock_failure(&mut self, clock: u32, ts: i64) {
        let stat = self.clocks.failure_stat(self.seq_id, clock);
        self.sink.stats.add(stat, 1, None);
        let target = self.clock_failure_target();
        self.sink
            .clock_failure_logs
            .push((stat, clock as i64, ts, target));
    }

    /// A packet dropped for a timestamp `ts` of `clock` that no snapshot
    /// converts, even at the end of the file: the conversion's error and
    /// the loss, each a stat and an import log at the packet's offset (as
    /// the reference trace_processor records them).
    fn packet_clock_failure(&mut self, clock: u32, ts: i64) {
        let stat = self.clocks.failure_stat(self.seq_id, clock);
        let target = self.clock_failure_target();
        let mut args = Vec::new();
        if (64..=127).contains(&clock) {
            // a sequence-scoped clock
            args.push((
                "source_sequence_id",
                crate::events::ArgVal::Uint(self.seq_id as u64),
            ));
        }
        args.extend([
            ("source_clock_id", crate::events::ArgVal::Int(clock as i128)),
            ("source_timestamp", crate::events::ArgVal::Int(ts as i128)),
            (
                "target_clock_id",
                crate::events::ArgVal::Int(target as i128),
            ),
        ]);
        for (name, args) in [
            (stat, args),
            ("clock_sync_failure_undeferrable_packet_loss", Vec::new()),
        ] {
            self.sink.tokenizer_log(name, self.offset, args);
        }
    }

    /// Whether the current sequence's incremental state is valid
    /// (PacketSequenceStateBuilder::IsIncrementalStateValid).
    fn state_valid(&self) -> bool {
        self.seq_loss.get(&self.seq_id).is_some_and(|s| s.valid)
    }
}

/// What trace_processor records of a TraceConfig as the trace's metadata
/// (`ConfigIdentity`).
pub fn config_identity(cfg: &[u8]) -> ConfigIdentity {
    let (mut msb, mut lsb, mut name, mut subscription) = (0i64, 0i64, None, None);
    for f in Fields::new(cfg) {
        match f {
            Ok((27, Value::Varint(x))) => msb = x as i64,
            Ok((28, Value::Varint(x))) => lsb = x as i64,
            Ok((22, Value::Bytes(s))) => name = Some(text(s)),
            // StatsdMetadata.triggering_subscription_id (AndroidProbesParser)
            Ok((7, Value::Bytes(statsd))) => {
                for g in Fields::new(statsd) {
                    match g {
                        Ok((4, Value::Varint(x))) => subscription = Some(x as i64),
                        Ok(_) => {}
                        Err(_) => break,
                    }
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    ConfigIdentity {
        uuid: (msb != 0 || lsb != 0).then_some((msb, lsb)),
        session_name: name,
        statsd_subscription: subscription,
    }
}

/// What a TraceConfig says about the trace (`config_identity`).
pub struct ConfigIdentity {
    /// trace_uuid_msb / _lsb, when not both 0
    pub uuid: Option<(i64, i64)>,
    pub session_name: Option<String>,
    /// statsd_metadata.triggering_subscription_id
    pub statsd_subscription: Option<i64>,
}

/// The stats trace_processor derives from the trace config (ProtoTraceReader):
/// `config_write_into_file_discard` per DISCARD buffer of each config written
/// into a file; at the end, for the last config written into a file,
/// `long_trace_mode_bytes_overwritten` per buffer that overwrote data (unless
/// the write period is a day or more: a ring-buffer intent) and
/// `config_write_into_file_no_flush` when it has no flush period and the
/// tracing service predates v54 (or is unknown).
pub fn config_stats(sink: &mut Sink) {
    const DAY_MS: u64 = 24 * 60 * 60 * 1000;
    let mut last: Option<(bool, u64, u64, usize)> = None;
    for cfg in &sink.trace_configs {
        let (mut into_file, mut period, mut flush) = (false, 0u64, 0u64);
        let mut policies = Vec::new();
        for f in Fields::new(cfg) {
            match f {
                Ok((8, Value::Varint(x))) => into_file = x != 0,
                Ok((9, Value::Varint(x))) => period = x as u32 as u64,
                Ok((13, Value::Varint(x))) => flush = x as u32 as u64,
                Ok((1, Value::Bytes(b))) => {
                    let mut policy = 0u64;
                    for f in Fields::new(b).flatten() {
                        if let (4, Value::Varint(x)) = f {
                            policy = x;
                        }
                    }
                    policies.push(policy);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        if into_file {
            for (i, p) in policies.iter().enumerate() {
                if *p == 2 {
                    sink.stats
                        .add("config_write_into_file_discard", 1, Some(i as i64));
                }
            }
        }
        last = Some((into_file, period, flush, policies.len()));
    }
    let Some((true, period, flush, n_buffers)) = last else {
        return;
    };
    if period < DAY_MS {
        for i in 0..n_buffers as i64 {
            let over = sink.stats.get("traced_buf_bytes_overwritten", Some(i));
            if let Some(v) = over.filter(|v| *v > 0) {
                sink.stats
                    .set("long_trace_mode_bytes_overwritten", v, Some(i));
            }
        }
    }
    if flush == 0 {
        let major = match sink.metadata.get("tracing_service_version") {
            Some(crate::metadata::MetaVal::Str(v)) => v
                .strip_prefix("Perfetto v")
                .and_then(|m| {
                    m.split(['.', '-'])
                        .next()
                        .filter(|_| m.contains(['.', '-']))
                })
                .and_then(|m| m.parse::<u32>().ok()),
            _ => None,
        };
        if major.map_or(true, |m| m < 54) {
            sink.stats.add("config_write_into_file_no_flush", 1, None);
        }
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
        is_kthread: None,
        nspid: Vec::new(),
    };
    let mut nspid = Vec::new();
    // (int32 fields, read as uint32 by the reference's ParseProcessTree)
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => p.pid = u32v(x),
            (2, Value::Varint(x)) => p.ppid = Some(u32v(x)),
            (3, Value::Bytes(s)) => p.cmdline.push(text(s)),
            (5, Value::Varint(x)) => p.uid = Some(u32v(x)),
            (6, v) => push_varints(v, &mut nspid)?,
            (7, Value::Varint(x)) => p.start_ts = Some(x as i64),
            (9, Value::Varint(x)) => p.cmdline_is_comm = x != 0,
            (8, Value::Varint(x)) => p.is_kthread = Some(x != 0),
            _ => {}
        }
    }
    p.nspid = nspid.into_iter().map(i32v).collect();
    Ok(p)
}

fn tree_thread(b: &[u8]) -> R<TreeThread> {
    let mut t = TreeThread {
        tid: 0,
        tgid: 0,
        name: None,
        nstid: Vec::new(),
    };
    let mut nstid = Vec::new();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => t.tid = u32v(x),
            (2, Value::Bytes(s)) => t.name = Some(text(s)),
            (3, Value::Varint(x)) => t.tgid = u32v(x),
            (4, v) => push_varints(v, &mut nstid)?,
            _ => {}
        }
    }
    t.nstid = nstid.into_iter().map(i32v).collect();
    Ok(t)
}

fn stats_process(b: &[u8]) -> R<StatsProcess> {
    let mut p = StatsProcess {
        pid: 0,
        fields: Vec::new(),
    };
    let mut pid = None;
    for f in Fields::new(b) {
        let (num, v) = f?;
        // a field's value as protozero's as_int64 reads it
        let int = match v {
            Value::Varint(x) | Value::Fixed64(x) => x as i64,
            Value::Fixed32(x) => x as i64,
            Value::Bytes(x) => {
                super::wire::validate(x)?;
                0
            }
        };
        let field = match num {
            1 => {
                // FindField: the first pid, as uint32
                pid.get_or_insert(int as u32 as i64);
                continue;
            }
            11 => {
                let Value::Bytes(t) = v else { continue };
                let [tid] = varint_fields(t)?;
                StatsField::Thread(tid as u32 as i64)
            }
            15 => StatsField::Fd,
            12 => StatsField::PeakRssResettable(int != 0),
            13 => StatsField::ChromeKb("private_footprint_kb", int),
            14 => StatsField::ChromeKb("peak_resident_set_kb", int),
            _ => StatsField::Counter(num, int),
        };
        p.fields.push(field);
    }
    p.pid = pid.unwrap_or(0);
    Ok(p)
}

/// The present fields of a generic event, in field-number order.
/// A GenericFtraceEvent (FtraceEvent.generic: an event the producer had no
/// proto for) as trace_processor's ParseLegacyGenericFtrace reads it: named
/// by its `event_name`, its fields (int, uint or string values) as args in
/// order.
fn legacy_generic(parts: &[&[u8]]) -> R<(&'static str, Vec<(&'static str, FieldVal)>)> {
    let mut name: &[u8] = b"";
    let mut fields = Vec::new();
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Bytes(b)) => name = b,
                (2, Value::Bytes(b)) => {
                    let mut key: &[u8] = b"";
                    let mut val = None;
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Bytes(k)) => key = k,
                            (3, Value::Bytes(s)) => val = Some(FieldVal::Str(text(s))),
                            (4, Value::Varint(x)) => val = Some(FieldVal::Int(x as i64 as i128)),
                            (5, Value::Varint(x)) => val = Some(FieldVal::Int(x as i64 as i128)),
                            _ => {}
                        }
                    }
                    if let Some(v) = val {
                        fields.push((static_name(&text(key), "field"), v));
                    }
                }
                _ => {}
            }
        }
    }
    Ok((static_name(&text(name), "generic"), fields))
}

/// A name only known at run time (legacy generic ftrace events' names and
/// field names) as `&'static str`, as the event and field names of the
/// protos are: each distinct one is leaked once per process (a few dozen in
/// practice). Past 4096 distinct names, further ones read as `fallback`.
fn static_name(s: &str, fallback: &'static str) -> &'static str {
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<rustc_hash::FxHashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(s) {
        return n;
    }
    if names.len() >= 4096 {
        return fallback;
    }
    let n: &'static str = Box::leak(s.to_owned().into_boxed_str());
    names.insert(n);
    n
}

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
            let values: Vec<i128> = lists[i]
                .iter()
                .map(|&x| match spec.2 {
                    FieldKind::I32 => i32v(x) as i128,
                    FieldKind::U32 => u32v(x) as i128,
                    FieldKind::I64 => x as i64 as i128,
                    _ => x as i128,
                })
                .collect();
            if let Some(&last) = values.last() {
                out.push((spec.1, FieldVal::Int(last)));
                out.push((REPEATED_FIELD, FieldVal::List(values)));
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
                    match name {
                        "jank_severity_score" => ev.jank_severity_score = Some(x),
                        "present_delay_millis" => ev.present_delay_millis = Some(x),
                        "vsync_resynced_jitter_millis" => ev.vsync_resynced_jitter_millis = Some(x),
                        "jank_debug_metadata" => ev.jank_debug_metadata = Some(x),
                        _ => {}
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
