//! Decoded trace events, before any table logic: the decoders' output, and
//! the leaf of the crate (it uses no other module; every layer reads it).
//!
//! Every input format is decoded into one `decoder::sink::Sink` of these
//! events; `replay` then turns it into trace_processor-shaped tables. The
//! packets' payloads are grouped by family in the submodules (`power`,
//! `profiles`, `track_event`). Events keep their arrival order (the
//! replay's tie-breaker when timestamps are equal, as trace_processor's sorter
//! within one stream). sched_switch / sched_waking, the bulk of any trace, are
//! plain structs with interned comms; every other ftrace event carries its
//! fields by name.

use rustc_hash::FxHashMap as HashMap;

pub mod power;
pub mod profiles;
pub mod track_event;

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
    pub disk_stat: Vec<DiskStat>,
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
    Trigger(Box<Trigger>),
    /// A concurrent_session_event: a state of a tracing session.
    SessionState(SessionEvent),
    /// One logcat event (android_log), at its trace time.
    Log(LogEvent),
    /// Battery, power rail, energy breakdown, entity residency and cpu per
    /// uid data (trackers::extra::power).
    Power(Box<power::PowerEvent>),
    /// AndroidAflags.error: the aflags data source failed (an import log).
    AflagsError(String),
    /// GpuMemTotalEvent: a gpu's memory, of a process (pid) or in all (0).
    GpuMemTotal {
        gpu: u32,
        pid: u32,
        size: u64,
    },
    /// TrackEvent, TrackDescriptor, ThreadDescriptor, ProcessDescriptor.
    TrackEvent(track_event::TrackEventPacket),
    /// A PerfSample (traced_perf).
    PerfSample(Box<profiles::PerfSampleEv>),
    /// A ProfilePacket (heapprofd's allocation dumps).
    ProfilePacket(Box<profiles::ProfilePacketEv>),
    /// ModuleSymbols (offline symbolization of profiles' frames).
    ModuleSymbols(Box<profiles::ModuleSymbols>),
    /// A GpuLog message.
    GpuLog(Box<GpuLog>),
    /// A SmapsPacket (a process's memory mappings).
    Smaps(Box<profiles::SmapsEv>),
    /// An app wakelock acquired or released (AppWakelockBundle's events).
    AppWakelock(Box<power::AppWakelock>),
    /// A SparseCounterTracker counter (kernel wakelocks): its track is
    /// `Sink::tokenized_tracks[track]`.
    SparseCounter {
        track: u32,
        value: f64,
    },
    /// A GpuCounterEvent's samples (resolved in the replay through
    /// `Sink::gpu_counter_maps`).
    GpuCounter(Box<GpuCounterEv>),
}

/// A track trace_processor makes when it tokenizes a packet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TokenizedTrack {
    /// an `android_kernel_wakelock` counter track
    Wakelock(WakelockTrack),
    /// a `gpu_counter` track
    GpuCounter(GpuCounterTrack),
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

/// An arg's value, typed as trace_processor's Variadic.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgVal {
    Int(i128),
    /// an unsigned value (value_type 'uint', as trace_processor's
    /// Variadic::UnsignedInteger)
    Uint(u64),
    Real(f64),
    Str(String),
    Bool(bool),
    /// a string arg without a value (trace_processor's null StringId: an
    /// absent proto string field): value_type 'string', every value NULL
    NullStr,
    /// an address (Variadic::Pointer): value_type 'pointer', shown in hex
    Pointer(u64),
}

/// One decoded LogEvent (timestamp already in trace time).
#[derive(Debug, Clone, Default)]
pub struct LogEvent {
    pub pid: i64,
    pub tid: i64,
    pub prio: i64,
    pub tag: String,
    /// the message with its args appended
    pub msg: String,
}

impl LogEvent {
    /// The message as trace_processor stores it: `message` then the args'
    /// ` name=value` text.
    pub fn message(message: &str, args: &[(String, ArgText)]) -> String {
        let mut text = message.to_owned();
        for (name, v) in args {
            text.push(' ');
            text.push_str(name);
            text.push('=');
            match v {
                ArgText::Str(s) => {
                    text.push('"');
                    text.push_str(s);
                    text.push('"');
                }
                ArgText::Int(i) => text.push_str(&i.to_string()),
                ArgText::Float(f) => text.push_str(&format!("{:.6}", *f as f64)),
                ArgText::None => {}
            }
        }
        text
    }
}

/// A LogEvent.Arg's value (the first present of int, float, string).
#[derive(Debug, Clone)]
pub enum ArgText {
    Str(String),
    Int(i64),
    Float(f32),
    None,
}

/// A Trigger, clone_snapshot_trigger or ChromeTrigger packet.
#[derive(Debug, Clone, Default)]
pub struct Trigger {
    pub name: String,
    /// empty: not recorded (no arg)
    pub producer: String,
    pub producer_uid: Option<i64>,
    /// a ChromeTrigger: (trigger_name_hash, trigger_name if recorded),
    /// its args instead of the producer's
    pub chrome: Option<(u32, Option<String>)>,
}

/// One ConcurrentSessionEvent.
#[derive(Debug, Clone, Default)]
pub struct SessionEvent {
    /// ConcurrentSessionEvent.State
    pub state: i64,
    pub name: String,
    pub session_id: u64,
    pub consumer_uid: i64,
    pub num_data_sources: u64,
}

/// SysStats.DiskStat (/proc/diskstats: 512-byte sectors, ms).
#[derive(Debug, Clone, Default)]
pub struct DiskStat {
    /// None where the field is absent (a NULL dimension; a device of its
    /// own for the previous sample, as the reference's null string id)
    pub device_name: Option<String>,
    pub read_sectors: i64,
    pub read_time_ms: i64,
    pub write_sectors: i64,
    pub write_time_ms: i64,
    pub discard_sectors: i64,
    pub discard_time_ms: i64,
    pub flush_count: i64,
    pub flush_time_ms: i64,
}

/// A GpuLog message (severity, tag, message when given).
#[derive(Debug, Clone, Default)]
pub struct GpuLog {
    pub severity: u64,
    pub tag: Option<String>,
    pub message: Option<String>,
}

/// A tokenization error's import log: its stat, the packet's byte offset
/// and its args.
#[derive(Debug, Clone)]
pub struct TokenizerLog {
    pub name: &'static str,
    pub offset: i64,
    pub args: Vec<(&'static str, ArgVal)>,
}

/// perfetto's CpuInfo feature allowlist (base/cpu_info_features_allowlist.h):
/// bit i of `CpuInfo.Cpu.features` is feature i. Append-only upstream.
pub const CPU_FEATURES: [&str; 2] = ["mte", "mte3"];

/// A `gpu_counter` track: dimensions (ugpu, gpu, name), its description
/// (a source arg) and unit, as the first spec that made it gave them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GpuCounterTrack {
    pub gpu_id: i32,
    pub name: String,
    /// None: the spec has no description (a NULL arg)
    pub description: Option<String>,
    /// None: no units (NULL)
    pub unit: Option<String>,
}

/// A GpuCounterEvent's samples: (counter id, value) of each counter with
/// an id and a value.
#[derive(Debug, Clone)]
pub struct GpuCounterEv {
    /// (state, iid) of its interned descriptor; None: the legacy ones
    pub descriptor: Option<(u32, u64)>,
    pub counters: Vec<(u32, f64)>,
}

/// A wakelock track: (wakelock_name, wakelock_type).
pub type WakelockTrack = (String, &'static str);

/// counter id -> (its track in `Sink::tokenized_tracks`, forwards looking)
pub type CounterMap = HashMap<u32, (u32, bool)>;

/// The descriptors the packets gave: per (sequence's incremental state
/// interval, descriptor iid), and the legacy inline ones.
#[derive(Debug, Clone, Default)]
pub struct CounterMaps {
    pub interned: HashMap<(u32, u64), CounterMap>,
    pub legacy: CounterMap,
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
