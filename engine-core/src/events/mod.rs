//! Decoded trace events, before any table logic: the decoders' output.
//!
//! Every input format is decoded into one [`Sink`]; `replay` then turns it into
//! trace_processor-shaped tables. Events keep their arrival order (the
//! replay's tie-breaker when timestamps are equal, as trace_processor's sorter
//! within one stream). sched_switch / sched_waking, the bulk of any trace, are
//! plain structs with interned comms; every other ftrace event carries its
//! fields by name.

use rustc_hash::FxHashMap as HashMap;

/// An interned string (thread comms repeat millions of times).
pub type StrId = u32;

/// The id of no string: a field the event does not have (trace_processor's
/// null StringId: it names no thread, and its arg is a NULL string).
pub const NULL_STR: StrId = 0;

pub struct Strings {
    ids: HashMap<Box<str>, StrId>,
    list: Vec<Box<str>>,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            ids: HashMap::default(),
            // NULL_STR's slot (reads as "", never interned)
            list: vec!["".into()],
        }
    }
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.list.len() as StrId;
        self.list.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: StrId) -> &str {
        &self.list[id as usize]
    }

    pub fn try_get(&self, id: usize) -> Option<&str> {
        self.list.get(id).map(|s| &**s)
    }
}

/// A field value of a generic ftrace event. Integers keep their full range
/// (uint64 fields may exceed int64).
#[derive(Debug, Clone, PartialEq)]
pub enum FieldVal {
    Int(i128),
    Str(String),
    Bool(bool),
    /// A number systrace text gives as a double (`state=1.5e6`).
    Real(f64),
    /// Every value of a repeated field (the importer's own
    /// `decoder::proto::REPEATED_FIELD`: no raw arg).
    List(Vec<i128>),
}

/// A sched_switch as decoders give it and the replay reads it. The sink
/// stores it smaller (`StoredSwitch` / `CompactSwitch`): switches are most
/// of a trace's events, all held until the replay ends (the import's peak).
#[derive(Debug, Clone)]
pub struct Switch {
    pub ts: i64,
    pub cpu: i64,
    /// Decoded from compact_sched: prev_* are inferred from the CPU's last switch.
    pub compact: bool,
    pub prev_pid: i64,
    pub prev_comm: StrId,
    pub prev_prio: i64,
    pub prev_state: i64,
    pub next_pid: i64,
    pub next_comm: StrId,
    pub next_prio: i64,
}

/// A stored sched_switch; its ts is in `Sink::order`.
#[derive(Debug, Clone)]
pub struct StoredSwitch {
    pub prev_pid: i64,
    pub prev_state: i64,
    pub next_pid: i64,
    pub cpu: i64,
    pub prev_comm: StrId,
    pub next_comm: StrId,
    pub next_prio: i32,
    pub prev_prio: i32,
    pub compact: bool,
}

/// A compact_sched switch (prev_pid / prev_comm are inferred, not stored;
/// cpu, pid and prio in the ranges compact_sched's fields have).
#[derive(Debug, Clone)]
pub struct CompactSwitch {
    pub prev_state: i64,
    pub cpu: u32,
    pub next_pid: i32,
    pub next_comm: StrId,
    pub next_prio: i32,
}

impl CompactSwitch {
    /// The switch at `ts` (its prev side is the CPU's running thread,
    /// known only in the replay).
    pub fn at(&self, ts: i64) -> Switch {
        Switch {
            ts,
            cpu: self.cpu as i64,
            compact: true,
            prev_pid: 0,
            prev_comm: 0,
            prev_prio: 0,
            prev_state: self.prev_state,
            // (the int32 pid read as uint32: ParseInlineSchedSwitch)
            next_pid: self.next_pid as u32 as i64,
            next_comm: self.next_comm,
            next_prio: self.next_prio as i64,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Waking {
    pub ts: i64,
    pub cpu: i64,
    pub compact: bool,
    /// The event's common pid (the waker); None for compact (inferred).
    pub pid: Option<i64>,
    pub wakee_pid: i64,
    pub comm: StrId,
    pub prio: i32,
    pub target_cpu: i32,
    /// sched_waking's `success` (older kernels write it)
    pub success: i32,
    /// which of the event's fields were present (`WAKING_*` bits; compact
    /// wakings have comm, pid, prio and target_cpu)
    pub present: u8,
}

/// `Waking::present` bits, in SchedWakingFtraceEvent's field order.
pub const WAKING_COMM: u8 = 1;
pub const WAKING_PID: u8 = 2;
pub const WAKING_PRIO: u8 = 4;
pub const WAKING_SUCCESS: u8 = 8;
pub const WAKING_TARGET_CPU: u8 = 16;

/// An ftrace event trace_processor's tokenizer stamps with a field of its
/// own (FtraceTokenizer::TokenizeFtrace<Event>): its raw row stays at the
/// event's time, and a copy named `copy` (no row) is parsed at the field's
/// time, `clock` converted to trace time (None: already trace time).
pub struct SelfStamped {
    pub event: &'static str,
    pub field: &'static str,
    pub clock: Option<u32>,
    pub copy: &'static str,
}

/// The parsed copies of the self-stamped events (`SELF_STAMPED`).
pub const GPU_WORK_PERIOD_COPY: &str = "__gpu_work_period";
pub const ACPM_BULK_COPY: &str = "__thermal_exynos_acpm_bulk";
pub const CPM_COPY: &str = "__param_set_value_cpm";
pub const FWTP_COUNTER_COPY: &str = "__fwtp_perfetto_counter";
pub const FWTP_SLICE_COPY: &str = "__fwtp_perfetto_slice";

/// CLOCK_MONOTONIC_RAW's builtin clock id.
const MONOTONIC_RAW: u32 = 5;

pub const SELF_STAMPED: [SelfStamped; 5] = [
    SelfStamped {
        event: "gpu_work_period",
        field: "start_time_ns",
        clock: Some(MONOTONIC_RAW),
        copy: GPU_WORK_PERIOD_COPY,
    },
    SelfStamped {
        event: "thermal_exynos_acpm_bulk",
        field: "timestamp",
        clock: None,
        copy: ACPM_BULK_COPY,
    },
    SelfStamped {
        event: "param_set_value_cpm",
        field: "timestamp",
        clock: None,
        copy: CPM_COPY,
    },
    SelfStamped {
        event: "fwtp_perfetto_counter",
        field: "timestamp",
        clock: None,
        copy: FWTP_COUNTER_COPY,
    },
    SelfStamped {
        event: "fwtp_perfetto_slice",
        field: "timestamp",
        clock: None,
        copy: FWTP_SLICE_COPY,
    },
];

/// Any ftrace event other than sched_switch / sched_waking.
#[derive(Debug, Clone)]
pub struct FtraceEv {
    pub ts: i64,
    /// The event's own time, in trace time: `ts`, except for a copy the
    /// tokenizer placed elsewhere (a field-stamped event's, a retired GPU
    /// batch's), whose drop windows still compare its event's time
    /// (FtraceData::raw_ts).
    pub raw_ts: i64,
    pub cpu: i64,
    pub pid: i64,
    pub name: &'static str,
    /// Present fields in field-number order (protobuf ListFields order).
    pub fields: Vec<(&'static str, FieldVal)>,
    /// A legacy generic event (FtraceEvent.generic, named by itself):
    /// trace_processor keeps its raw row only, whatever its name.
    pub generic: bool,
}

impl FtraceEv {
    pub fn int(&self, name: &str) -> Option<i128> {
        self.fields
            .iter()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| match v {
                FieldVal::Int(i) => Some(*i),
                FieldVal::Bool(b) => Some(*b as i128),
                FieldVal::Str(_) | FieldVal::Real(_) | FieldVal::List(_) => None,
            })
    }

    /// A numeric field as a counter value (ints rounded to the nearest double).
    pub fn num(&self, name: &str) -> Option<f64> {
        self.fields
            .iter()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| match v {
                FieldVal::Int(i) => Some(*i as f64),
                FieldVal::Bool(b) => Some(*b as u8 as f64),
                FieldVal::Real(r) => Some(*r),
                FieldVal::Str(_) | FieldVal::List(_) => None,
            })
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| match v {
                FieldVal::Str(s) => Some(s.as_str()),
                _ => None,
            })
    }

    /// A list field's values (none where it is absent).
    pub fn list(&self, name: &str) -> &[i128] {
        self.fields
            .iter()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| match v {
                FieldVal::List(l) => Some(l.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    pub fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(k, _)| *k == name)
    }
}

#[derive(Debug, Clone)]
pub struct TreeProcess {
    pub pid: i64,
    pub ppid: Option<i64>,
    pub cmdline: Vec<String>,
    pub uid: Option<i64>,
    pub start_ts: Option<i64>,
    pub cmdline_is_comm: bool,
    /// Linux 6.4+: procfs says whether it is a kernel thread
    pub is_kthread: Option<bool>,
    /// its pid in each pid namespace, outermost first (empty: none given)
    pub nspid: Vec<i64>,
}

#[derive(Debug, Clone)]
pub struct TreeThread {
    pub tid: i64,
    pub tgid: i64,
    pub name: Option<String>,
    /// its tid in each pid namespace, outermost first (empty: none given)
    pub nstid: Vec<i64>,
}

/// One ProcessStats.Process: its pid (the field's uint32) and its other
/// fields in wire order, each occurrence, as trace_processor reads them.
#[derive(Debug, Clone)]
pub struct StatsProcess {
    pub pid: i64,
    pub fields: Vec<StatsField>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatsField {
    /// a Thread (its tid)
    Thread(i64),
    /// an FDInfo (the file descriptor table is not served: its process
    /// still is made)
    Fd,
    /// any other field: (field number, its value as int64), a counter if
    /// the system probes parser reads it as one, else counted as
    /// proc_stat_unknown_counters
    Counter(u32, i64),
    /// Chrome's fields (ChromeSystemProbesParser reads them after every
    /// process of the packet): is_peak_rss_resettable, private footprint
    /// and peak resident set (kB)
    PeakRssResettable(bool),
    ChromeKb(&'static str, i64),
}

#[derive(Debug, Clone, Default)]
pub struct SysStatsData {
    /// (MeminfoCounters key, kB)
    pub meminfo: Vec<(u64, i128)>,
    pub cpufreq_khz: Vec<i64>,
    /// (key, kHz); strings None where the field is absent (a NULL
    /// dimension, as the reference's)
    pub devfreq: Vec<(Option<String>, i128)>,
    pub gpufreq_mhz: Vec<i128>,
    /// (type, degrees C)
    pub thermal_zone: Vec<(Option<String>, i128)>,
    pub cpuidle_state: Vec<(i64, String, i128)>,
    pub disk_stat: Vec<crate::trackers::counters::DiskStat>,
    /// (VmstatCounters key, value)
    pub vmstat: Vec<(u64, i128)>,
    pub cpu_stat: Vec<CpuTimes>,
    /// InterruptCount (irq, count) of hard and soft irqs
    pub num_irq: Vec<(i32, u64)>,
    pub num_softirq: Vec<(i32, u64)>,
    pub num_forks: Option<u64>,
    pub num_irq_total: Option<u64>,
    pub num_softirq_total: Option<u64>,
    pub buddy_info: Vec<BuddyInfo>,
    /// (PsiResource, total_ns)
    pub psi: Vec<(u64, u64)>,
    /// (name, None where absent; pages_per_slab, num_slabs)
    pub slab_info: Vec<(Option<String>, u32, u32)>,
}

/// SysStats.CpuTimes: a cpu's times in ns (user, user_nice, system_mode,
/// idle, io_wait, irq, softirq, steal), `cpu` None when cpu_id is absent.
#[derive(Debug, Clone, Default)]
pub struct CpuTimes {
    pub cpu: Option<u32>,
    pub times_ns: [u64; 8],
}

/// SysStats.BuddyInfo: a zone's free blocks per order (/proc/buddyinfo).
#[derive(Debug, Clone, Default)]
pub struct BuddyInfo {
    /// None where the field is absent (a NULL dimension)
    pub node: Option<String>,
    pub zone: Option<String>,
    pub order_pages: Vec<u64>,
}

/// A decoded FrameTimelineEvent (TracePacket field 76): `kind` is the
/// sub-message's field number (1 expected display frame start, 2 actual
/// display frame start, 3 expected surface frame start, 4 actual surface
/// frame start, 5 frame end).
#[derive(Debug, Clone, Default)]
pub struct FrameEv {
    pub kind: u32,
    pub cookie: Option<i64>,
    pub token: Option<i64>,
    pub pid: Option<i64>,
    pub display_frame_token: Option<i64>,
    pub layer_name: Option<String>,
    pub present_type: Option<i64>,
    pub on_time_finish: Option<bool>,
    pub gpu_composition: Option<bool>,
    pub jank_type: Option<i64>,
    pub prediction_type: Option<i64>,
    pub is_buffer: Option<bool>,
    pub jank_severity_type: Option<i64>,
    pub jank_severity_score: Option<f64>,
    pub present_delay_millis: Option<f64>,
    pub vsync_resynced_jitter_millis: Option<f64>,
    pub jank_debug_metadata: Option<f64>,
    pub jank_type_experimental: Option<i64>,
    pub present_type_experimental: Option<i64>,
    pub latched_unsignaled_count: Option<i64>,
    pub addressable_unsignaled_latch_count: Option<i64>,
    pub latched_fence_state: Option<i64>,
}

#[derive(Debug, Clone)]
/// (Big payloads are boxed: a packet's size is its largest variant's, and
/// a trace can hold millions of packets, e.g. track events.)
pub enum PacketData {
    ProcessTree {
        processes: Vec<TreeProcess>,
        threads: Vec<TreeThread>,
    },
    ProcessStats(Vec<StatsProcess>),
    SysStats(Box<SysStatsData>),
    FrameTimeline(Box<FrameEv>),
    /// systrace task column: the thread exists and, unless the task is
    /// `<...>`, has this ftrace-priority name.
    ThreadName {
        tid: i64,
        name: Option<String>,
    },
    /// systrace TGID column (or atrace tgid): ProcessTracker::UpdateThread.
    ThreadTgid {
        tid: i64,
        tgid: i64,
    },
    /// A systrace PROCESS DUMP block: processes (pid, ppid, ps NAME) and
    /// threads (tid, tgid, CMD) whose names have the lowest priority.
    SystraceDump {
        processes: Vec<(i64, i64, String)>,
        threads: Vec<(i64, i64, String)>,
    },
    /// AndroidSystemProperty: (name, value) pairs.
    SystemProperty(Vec<(String, String)>),
    /// InitialDisplayState.display_state (the screen state at trace start).
    InitialDisplayState(i64),
    /// GenericKernelCpuFrequencyEvent: a cpu's frequency in Hz, from a
    /// kernel traced without ftrace.
    GenericCpuFrequency {
        cpu: i64,
        hz: i64,
    },
    /// GenericGpuFrequencyEvent: a gpu's frequency in kHz.
    GenericGpuFrequency {
        gpu: u32,
        khz: u32,
    },
    /// A Trigger / clone_snapshot_trigger packet: a slice on the trace's
    /// "Trace Triggers" track.
    Trigger(Box<crate::trackers::triggers::Trigger>),
    /// A concurrent_session_event: a state of a tracing session.
    SessionState(crate::trackers::sessions::SessionEvent),
    /// One logcat event (android_log), at its trace time.
    Log(crate::trackers::logs::LogEvent),
    /// Battery, power rail, energy breakdown, entity residency and cpu per
    /// uid data (trackers::power).
    Power(Box<crate::trackers::power::PowerEvent>),
    /// AndroidAflags.error: the aflags data source failed (an import log).
    AflagsError(String),
    /// GpuMemTotalEvent: a gpu's memory, of a process (pid) or in all (0).
    GpuMemTotal {
        gpu: u32,
        pid: u32,
        size: u64,
    },
    /// TrackEvent, TrackDescriptor, ThreadDescriptor, ProcessDescriptor.
    TrackEvent(crate::decoder::track_event::TrackEventPacket),
    /// A PerfSample (traced_perf).
    PerfSample(Box<crate::decoder::perf_sample::PerfSampleEv>),
    /// A ProfilePacket (heapprofd's allocation dumps).
    ProfilePacket(Box<crate::decoder::profile_packet::ProfilePacketEv>),
    /// ModuleSymbols (offline symbolization of profiles' frames).
    ModuleSymbols(Box<crate::decoder::stack_profile::ModuleSymbols>),
    /// A GpuLog message.
    GpuLog(Box<crate::trackers::counters::GpuLog>),
    /// A SmapsPacket (a process's memory mappings).
    Smaps(Box<crate::decoder::profile_packet::SmapsEv>),
    /// An app wakelock acquired or released (AppWakelockBundle's events).
    AppWakelock(Box<crate::trackers::power::AppWakelock>),
    /// A SparseCounterTracker counter (kernel wakelocks): its track is
    /// `Sink::tokenized_tracks[track]`.
    SparseCounter {
        track: u32,
        value: f64,
    },
    /// A GpuCounterEvent's samples (resolved in the replay through
    /// `Sink::gpu_counter_maps`).
    GpuCounter(Box<crate::decoder::gpu_counters::GpuCounterEv>),
}

/// A track trace_processor makes when it tokenizes a packet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TokenizedTrack {
    /// an `android_kernel_wakelock` counter track
    Wakelock(crate::decoder::kernel_wakelocks::WakelockTrack),
    /// a `gpu_counter` track
    GpuCounter(crate::decoder::gpu_counters::GpuCounterTrack),
}

#[derive(Debug, Clone)]
pub struct Packet {
    pub ts: i64,
    /// the machine that recorded it (`crate::machines`; 0: the host)
    pub machine: u16,
    pub data: PacketData,
}

/// Which event an arrival-ordered entry is (index into its vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvRef {
    Switch(u32),
    CompactSwitch(u32),
    Waking(u32),
    Ftrace(u32),
    Packet(u32),
}

/// One clock of a ClockSnapshot packet, as the `clock_snapshot` table
/// records it.
#[derive(Debug, Clone)]
pub struct SnapshotClock {
    /// the machine whose clock it is (`crate::machines`)
    pub machine: u16,
    pub clock_id: u32,
    /// in the clock's units
    pub timestamp: i64,
    pub unit_multiplier_ns: i64,
}

#[derive(Debug, Clone)]
pub struct CpuInfo {
    pub processor: Option<String>,
    pub capacity: Option<i64>,
    pub frequencies: Vec<i64>,
    /// bitmap of perfetto's CpuInfo feature allowlist (bit 0 = mte, ...)
    pub features: u64,
    /// ARM implementer, architecture, variant, part, revision
    pub arm_identifier: Option<[u32; 5]>,
}

impl SnapshotClock {
    /// A clock of `machine` reading `timestamp` ns.
    pub fn ns(machine: u16, clock_id: u32, timestamp: i64) -> Self {
        SnapshotClock {
            machine,
            clock_id,
            timestamp,
            unit_multiplier_ns: 1,
        }
    }
}

/// trace_processor-style stats: (name, idx) -> value, in insertion order.
#[derive(Default, Debug, Clone)]
pub struct Stats {
    index: HashMap<(String, Option<i64>), usize>,
    pub entries: Vec<((String, Option<i64>), i64)>,
}

impl Stats {
    pub fn add(&mut self, name: &str, value: i64, idx: Option<i64>) {
        let key = (name.to_owned(), idx);
        match self.index.get(&key) {
            Some(&i) => self.entries[i].1 += value,
            None => {
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    pub fn set(&mut self, name: &str, value: i64, idx: Option<i64>) {
        let key = (name.to_owned(), idx);
        match self.index.get(&key) {
            Some(&i) => self.entries[i].1 = value,
            None => {
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    pub fn get(&self, name: &str, idx: Option<i64>) -> Option<i64> {
        self.index
            .get(&(name.to_owned(), idx))
            .map(|&i| self.entries[i].1)
    }
}

/// The scope of a stat trace_processor knows (its machine_id / trace_id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Trace,
    Machine,
    MachineAndTrace,
}

/// One stat trace_processor knows (`tp_stats::STATS` lists them).
pub struct StatDef {
    pub name: &'static str,
    /// indexed by cpu / buffer (a row per index set) instead of one value
    pub indexed: bool,
    pub severity: &'static str,
    pub source: &'static str,
    pub scope: Scope,
    pub description: &'static str,
}

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
    pub game_interventions: Vec<crate::trackers::game_interventions::GamePackage>,
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
    pub power: crate::trackers::power::Descriptors,
    /// (uid, cluster, total cpu ms) of CpuPerUidData (its track table).
    pub cpu_per_uid_totals: Vec<(u32, u32, i64)>,
    /// Track event descriptor tracks reserved while decoding, and the
    /// sequences that marked their first packet (trackers::track_event).
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
    pub tokenizer_logs: Vec<crate::trackers::import_logs::TokenizerLog>,
    /// timestamps no snapshot converted: (stat, source clock, source time,
    /// target clock), for the import log
    pub clock_failure_logs: Vec<(&'static str, i64, i64, i64)>,
    /// the tracks trace_processor makes when it tokenizes packets (kernel
    /// wakelocks, GPU counters), in that order: before the replay's tracks
    pub tokenized_tracks: Vec<TokenizedTrack>,
    /// GPU counter descriptors as every packet was tokenized: what the
    /// replay resolves GpuCounter samples with
    pub gpu_counter_maps: crate::decoder::gpu_counters::CounterMaps,
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
        args: Vec<(&'static str, crate::trackers::tracks::ArgVal)>,
    ) {
        self.stats.add(name, 1, None);
        self.tokenizer_logs
            .push(crate::trackers::import_logs::TokenizerLog {
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

#[cfg(test)]
mod tests {
    /// A packet's size is its largest variant's, paid by every packet held
    /// until the replay (millions in a track event trace): big payloads are
    /// boxed.
    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<super::Packet>() <= 96);
    }
}
