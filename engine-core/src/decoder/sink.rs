//! The decoders' output: every event of a trace in arrival order, the
//! decoders' state that the replay reads, and what the decoding counted.

use rustc_hash::FxHashMap as HashMap;

use crate::events::*;

/// Everything a decoder found in a trace.
#[derive(Default)]
pub struct Sink {
    pub strings: Strings,
    pub switches: Vec<StoredSwitch>,
    pub compact_switches: Vec<CompactSwitch>,
    pub wakings: Vec<Waking>,
    pub ftrace: Vec<FtraceEv>,
    pub packets: Vec<Packet>,
    /// Every event above in arrival order, with its timestamp.
    pub order: Vec<(i64, EvRef)>,
    /// Each remote machine (its row) with the number of events that had
    /// arrived when its first packet came: trace_processor makes that
    /// machine's reader, and so its sorter streams, there.
    pub machine_readers: Vec<(usize, u16)>,
    /// The events are one stream, sorted as one queue (systrace text; a
    /// protobuf trace's events go to per-CPU streams: `crate::sorter`).
    pub single_stream: bool,

    pub kernel_release: Option<String>,
    pub utsname_sysname: Option<String>,
    pub utsname_machine: Option<String>,
    pub utsname_version: Option<String>,
    pub timezone_off_mins: Option<i64>,
    /// each CpuInfo packet's cpus, in file order
    pub cpu_info: Vec<Vec<CpuInfo>>,
    pub tracing_started_ts: Option<i64>,
    pub preserve_ftrace_buffer: bool,
    /// cpu -> previous_bundle_end_timestamp (or last_read_event_timestamp)
    /// of its first bundle (file order), when the bundle has one.
    pub first_bundle_end_ts: Vec<(i64, Option<i64>)>,
    /// The metadata table's keys (see `crate::metadata`).
    pub metadata: crate::metadata::Metadata,
    /// The UUID a TraceUuid packet recorded (trace_uuid wins over the trace
    /// config's and the file hash).
    pub recorded_uuid: Option<String>,
    /// Trigger packets: (ts, a clone_snapshot_trigger, trigger name).
    pub triggers: Vec<(i64, bool, String)>,
    /// android_game_intervention_list rows, in file order.
    pub game_interventions: Vec<super::game_interventions::GamePackage>,
    /// Packets skipped for their sequence's invalid incremental state:
    /// (payload byte offset, trusted_packet_sequence_id), the tokenizer's
    /// import logs.
    pub skipped_packet_logs: Vec<(i64, u32)>,
    /// FtraceStats' setup errors (failed / unknown events, atrace and
    /// exclusive feature errors), each an import log with its message.
    pub ftrace_setup_error_logs: Vec<String>,
    /// ChromeMetadataPackets read so far (their metadata keys' letter).
    pub chrome_metadata_packets: u32,
    /// Every recorded TraceConfig's bytes, in file order (rendered as text by
    /// the caller, which also rejects the ones that do not parse).
    pub trace_configs: Vec<Vec<u8>>,
    /// A display video frame packet was seen (trace diagnostics).
    pub video_frames: bool,
    /// `__intrinsic_trace_diagnostics` rows (`crate::diagnostics`).
    pub diagnostics: Vec<crate::diagnostics::Diagnostic>,
    /// (name: None when absent, the null string; uid, debuggable,
    /// profileable_from_shell, version_code)
    pub packages: Vec<(Option<String>, i64, i64, i64, i64)>,
    pub stats: Stats,
    /// SystemInfo.page_size (4096 when it has none; 0 without SystemInfo):
    /// sizes buddy_info's blocks and slab_info's slabs
    pub page_size: u32,
    pub warnings: Vec<String>,
    pub partial: bool,
    /// Packets that did not parse.
    pub bad_packets: i64,
    /// ftrace events' non-zero common_flags (rare: producers mostly leave
    /// the field out, which reads as 0), by event.
    pub common_flags: HashMap<EvRef, u32>,
    /// ftrace_event holds sched_switch rows only, as trace_processor's
    /// systrace reader fills it (set by that decoder when raw is on).
    pub raw_sched_switch_only: bool,
    /// Every ClockSnapshot's clocks, in file order (snapshot id = index).
    pub clock_snapshots: Vec<Vec<SnapshotClock>>,
    /// A ClockSnapshot packet's time in the trace's clock as it was when
    /// the snapshot came (a snapshot before the first conversion may be
    /// followed by one that changes that clock), by snapshot id.
    pub snapshot_trace_ts: HashMap<usize, i64>,
    /// The host's ClockSnapshots and its bridge to the trace's time, so
    /// far: with none, its clocks do not reach the trace's time yet.
    pub host_snapshots: usize,
    /// See `clock_converted`.
    pub parse_clock_conversion: bool,
    /// The trace_id of the trace's rows: trace_processor's trace_file id of
    /// the trace read, its containers (gzip, zip) being the files before it.
    pub trace_id: i64,
    /// The `machine` table, and which machine each packet is from.
    pub machines: crate::machines::Machines,
    /// Packets of machines other than the host (and an adopted one) whose
    /// data is not imported (`crate::machines`).
    pub remote_machine_packets: i64,
    /// Remote machines' metadata (`metadata_of`), by machine.
    pub remote_metadata: std::collections::BTreeMap<usize, crate::metadata::Metadata>,
    /// The machine whose packet is being decoded: what `push_packet` tags
    /// its packets with.
    pub packet_machine: u16,
    /// Power rail / energy consumer / entity state descriptors, in file order.
    pub power: crate::events::power::Descriptors,
    /// (uid, cluster, total cpu ms) of CpuPerUidData (its track table).
    pub cpu_per_uid_totals: Vec<(u32, u32, i64)>,
    /// Track event descriptor tracks reserved while decoding, and the
    /// sequences that marked their first packet (trackers::extra::track_event).
    pub track_event_reservations: crate::decoder::track_event::Reservations,
    pub first_packet_seqs: rustc_hash::FxHashSet<u32>,
    /// each track event incremental state's thread descriptor (pid, tid)
    pub track_event_threads: Vec<Option<(i64, i64)>>,
    /// per incremental state: its interned profiling data
    pub track_event_profiles: Vec<crate::decoder::stack_profile::ProfileInterned>,
    /// the tokenized track events' bytes and interned data, parsed in the
    /// replay
    pub track_event_parser: crate::decoder::track_event::EventParser,
    /// tokenization errors with their import log: (stat, byte offset, args)
    pub tokenizer_logs: Vec<crate::events::TokenizerLog>,
    /// timestamps no snapshot converted: (stat, source clock, source time,
    /// target clock), for the import log
    pub clock_failure_logs: Vec<(&'static str, i64, i64, i64)>,
    /// the tracks trace_processor makes when it tokenizes packets (kernel
    /// wakelocks, GPU counters), in that order: before the replay's tracks
    pub tokenized_tracks: Vec<TokenizedTrack>,
    /// GPU counter descriptors as every packet was tokenized: what the
    /// replay resolves GpuCounter samples with
    pub gpu_counter_maps: CounterMaps,
    /// the trace's clock, when the default clock (BOOTTIME) had no path to
    /// it (`ClockSync::unrelatable_default_clock`): an analysis log
    pub unrelatable_clock: Option<i64>,
}

impl Sink {
    /// The machine of event `r`: its packet's, else its cpu's (a ucpu; one
    /// of no known machine, corrupt input, is the host's).
    pub fn machine_of(&self, r: EvRef) -> u16 {
        let cpu = match r {
            EvRef::Packet(i) => return self.packets[i as usize].machine,
            EvRef::Switch(i) => self.switches[i as usize].cpu,
            EvRef::CompactSwitch(i) => self.compact_switches[i as usize].cpu as i64,
            EvRef::Waking(i) => self.wakings[i as usize].cpu,
            EvRef::Ftrace(i) => self.ftrace[i as usize].cpu,
        };
        let machine = cpu / crate::machines::MAX_CPUS_PER_MACHINE;
        if (0..self.machines.rows.len() as i64).contains(&machine) {
            machine as u16
        } else {
            0
        }
    }

    /// The metadata of `machine` (0: the host's).
    pub fn metadata_of(&mut self, machine: usize) -> &mut crate::metadata::Metadata {
        match machine {
            0 => &mut self.metadata,
            m => self.remote_metadata.entry(m).or_default(),
        }
    }

    /// Counts `n` more packets as corrupt (packets whose nested messages the
    /// caller found malformed), as the decoder counts its own.
    pub fn reject_packets(&mut self, n: i64) {
        if n <= 0 {
            return;
        }
        let old = format!("{} corrupt packet(s) skipped", self.bad_packets);
        self.bad_packets += n;
        let new = format!("{} corrupt packet(s) skipped", self.bad_packets);
        match self.warnings.iter_mut().find(|w| **w == old) {
            Some(w) => *w = new,
            None => self.warnings.push(new),
        }
        self.partial = true;
        self.stats.add("artscope_corrupt_packets", n, None);
    }
}

impl Sink {
    /// An event at a negative time is dropped and counted, as
    /// trace_processor's sorter drops it
    /// (trace_sorter_negative_timestamp_dropped).
    #[inline]
    fn negative(&mut self, ts: i64) -> bool {
        if ts >= 0 {
            return false;
        }
        self.stats
            .add("trace_sorter_negative_timestamp_dropped", 1, None);
        true
    }

    pub fn push_switch(&mut self, s: Switch) {
        if self.negative(s.ts) {
            return;
        }
        let compact = match (
            s.compact && s.prev_pid == 0 && s.prev_comm == 0 && s.prev_prio == 0,
            u32::try_from(s.cpu),
            i32::try_from(s.next_pid),
            i32::try_from(s.next_prio),
        ) {
            (true, Ok(cpu), Ok(next_pid), Ok(next_prio)) => Some(CompactSwitch {
                prev_state: s.prev_state,
                cpu,
                next_pid,
                next_comm: s.next_comm,
                next_prio,
            }),
            _ => None,
        };
        if let Some(c) = compact {
            let at = EvRef::CompactSwitch(self.compact_switches.len() as u32);
            self.order.push((s.ts, at));
            self.compact_switches.push(c);
            return;
        }
        self.order
            .push((s.ts, EvRef::Switch(self.switches.len() as u32)));
        self.switches.push(StoredSwitch {
            prev_pid: s.prev_pid,
            prev_state: s.prev_state,
            next_pid: s.next_pid,
            cpu: s.cpu,
            prev_comm: s.prev_comm,
            next_comm: s.next_comm,
            // int32 fields in every format; wider values are clamped
            next_prio: s.next_prio.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            prev_prio: s.prev_prio.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            compact: s.compact,
        });
    }

    /// The switch `at` refers to (`EvRef::Switch` / `CompactSwitch`), at `ts`.
    pub fn switch(&self, ts: i64, at: EvRef) -> Option<Switch> {
        Some(match at {
            EvRef::Switch(i) => {
                let s = &self.switches[i as usize];
                Switch {
                    ts,
                    cpu: s.cpu,
                    compact: s.compact,
                    prev_pid: s.prev_pid,
                    prev_comm: s.prev_comm,
                    prev_prio: s.prev_prio as i64,
                    prev_state: s.prev_state,
                    next_pid: s.next_pid,
                    next_comm: s.next_comm,
                    next_prio: s.next_prio as i64,
                }
            }
            EvRef::CompactSwitch(i) => self.compact_switches[i as usize].at(ts),
            _ => return None,
        })
    }

    /// A timestamp went through the clock tracker while the file was read
    /// (an ftrace event's, a packet's in an explicit clock, a power rail
    /// sample's, a logcat event's). The first such conversion before any
    /// ClockSnapshot makes trace_processor relate BOOTTIME to the file's own clock
    /// (BUILTIN_CLOCK_TRACE_FILE, 11) with a zero-offset snapshot, its
    /// `clock_snapshot` rows (ClockTracker::BridgeToTraceTime). Conversions
    /// trace_processor makes later, when it parses the sorted packets
    /// (process start times, service events), set `parse_clock_conversion`
    /// instead: they make that snapshot only if the file has none.
    pub fn clock_converted(&mut self) {
        if self.host_snapshots == 0 {
            self.host_snapshots += 1;
            let zero = |clock_id| SnapshotClock::ns(0, clock_id, 0);
            self.clock_snapshots.push(vec![zero(6), zero(11)]);
        }
    }

    /// Records the common_flags of the event pushed last.
    pub fn flag_last(&mut self, flags: u32) {
        if let Some(&(_, r)) = self.order.last() {
            self.common_flags.insert(r, flags);
        }
    }

    pub fn push_waking(&mut self, w: Waking) {
        if self.negative(w.ts) {
            return;
        }
        self.order
            .push((w.ts, EvRef::Waking(self.wakings.len() as u32)));
        self.wakings.push(w);
    }

    pub fn push_ftrace(&mut self, e: FtraceEv) {
        if self.negative(e.ts) {
            return;
        }
        self.order
            .push((e.ts, EvRef::Ftrace(self.ftrace.len() as u32)));
        self.ftrace.push(e);
    }

    /// A tokenizer error (RecordTokenizationLog): its stat counted, and an
    /// import log at the packet's byte offset with `args`.
    pub fn tokenizer_log(
        &mut self,
        name: &'static str,
        offset: usize,
        args: Vec<(&'static str, crate::events::ArgVal)>,
    ) {
        self.stats.add(name, 1, None);
        self.tokenizer_logs.push(crate::events::TokenizerLog {
            name,
            offset: offset as i64,
            args,
        });
    }

    pub fn push_packet(&mut self, ts: i64, data: PacketData) {
        if self.negative(ts) {
            return;
        }
        self.order
            .push((ts, EvRef::Packet(self.packets.len() as u32)));
        self.packets.push(Packet {
            ts,
            machine: self.packet_machine,
            data,
        });
    }
}
