//! Track event packets as the tokenizer leaves them for the sorter
//! (`decoder::track_event`): descriptors, tokenized events (their bytes
//! parsed in the replay) and streaming profile samples.

use super::profiles::CallstackRef;

/// A TrackDescriptor's parts the replay parses at its timestamp
/// (TrackEventParser::ParseTrackDescriptor).
#[derive(Debug, Clone)]
pub struct DescriptorData {
    pub uuid: u64,
    pub thread: Option<ThreadDesc>,
    pub process: Option<ProcessDesc>,
}

#[derive(Debug, Clone, Default)]
pub struct ThreadDesc {
    pub pid: i64,
    pub tid: i64,
    pub name: Option<String>,
    /// its (legacy) chrome_thread_type: names a thread without a name
    pub chrome_type: Option<i64>,
    /// a TrackDescriptor's ChromeThreadDescriptor.thread_type
    pub chrome_thread_type: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct ProcessDesc {
    pub pid: i64,
    pub name: Option<String>,
    pub start_ts: Option<i64>,
    /// its (legacy) chrome_process_type
    pub chrome_type: Option<i64>,
    /// its process_labels
    pub labels: Vec<String>,
    /// a TrackDescriptor's ChromeProcessDescriptor
    pub chrome: Option<ChromeProcess>,
}

/// ChromeProcessDescriptor: the process type, host app and crash id.
#[derive(Debug, Clone, Default)]
pub struct ChromeProcess {
    pub process_type: i64,
    pub host_app: Option<String>,
    pub crash_trace_id: Option<u64>,
}

/// One TrackEvent as TrackEventTokenizer leaves it for the sorter: what
/// depends on its sequence's running state (delta times, incremental
/// counters, defaults) resolved, the rest kept as its bytes.
#[derive(Debug, Clone)]
pub struct TokenizedEvent {
    pub seq_id: u32,
    pub incremental_state: u32,
    pub stack_state: u32,
    /// the sequence's TrackEventDefaults.track_uuid
    pub default_track_uuid: Option<u64>,
    /// absolute (incremental counters summed, the unit multiplier applied)
    pub counter_value: f64,
    /// thread time / instruction count and extra counters, when present
    pub times: Option<Box<TokenizedTimes>>,
    /// the TrackEvent's bytes: `EventParser::bytes[start..start + len]`
    pub start: usize,
    pub len: u32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenizedTimes {
    pub thread_ts: Option<i64>,
    pub thread_instruction_count: Option<i64>,
    pub extra_counters: Vec<(u64, f64)>,
}

/// One sample of a StreamingProfilePacket (Chrome's CPU profiler), at its
/// own time: what ProfileModule::ParseStreamingProfileSample reads.
#[derive(Debug, Clone)]
pub struct ProfileSample {
    /// (its incremental state's thread descriptor is the sample's thread)
    pub callstack: CallstackRef,
    pub process_priority: i64,
}

/// A packet of the track event family, for the replay.
#[derive(Debug, Clone)]
pub enum TrackEventPacket {
    Descriptor(Box<DescriptorData>),
    ThreadDescriptor(ThreadDesc),
    ProcessDescriptor(Box<ProcessDesc>),
    Event(Box<TokenizedEvent>),
    ProfileSample(Box<ProfileSample>),
}

/// The legacy phases imported: thread slices (B, E, X), instants (I, i,
/// R), metadata (M), async slices (b, e, n, S, T, p, F) and flow v1 (s, t,
/// f). Others (Chrome's raw table) are counted as not imported.
pub const SUPPORTED_LEGACY_PHASES: [u8; 17] = [
    b'B', b'E', b'X', b'I', b'i', b'R', b'M', b'b', b'e', b'n', b'S', b'T', b'p', b'F', b's', b't',
    b'f',
];
