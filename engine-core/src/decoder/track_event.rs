//! TrackEvent packets at decode time, in file order, as trace_processor's
//! TrackEventTokenizer and ProtoTraceReader handle them (v58.2:
//! importers/proto/track_event_tokenizer.cc, proto_trace_reader.cc,
//! packet_sequence_state_generation.cc):
//!
//! - per sequence: its interned strings (event names and categories, debug
//!   annotation names and string values, source locations), its
//!   TracePacketDefaults, its thread descriptor and the running values of
//!   delta-encoded timestamps and incremental counters;
//! - TrackDescriptors reserve their tracks here (`Reservations`), before
//!   the events are sorted; the replay resolves and creates them
//!   (`trackers::extra::track_event`);
//! - each TrackEvent is tokenized (`TokenizedEvent`: its timestamp, its
//!   counter values and thread times made absolute, its bytes kept); the
//!   replay parses it (`EventParser`: a `TrackEventData` with its strings
//!   resolved and its args built), as trace_processor parses the sorted
//!   event;
//! - each StreamingProfilePacket sample becomes a `ProfileSample` at its
//!   own time (ProfileModule::TokenizeStreamingProfilePacket: its deltas
//!   advance the sequence's track event time).
//!
//! What a sequence keeps across a clear / a loss follows trace_processor: a
//! clear starts a new generation (interned data, defaults and delta state
//! gone; the thread descriptor kept), a loss keeps interned data, defaults
//! and the thread descriptor but drops the delta state. An iid interned
//! twice keeps its first message, as IncrementalState::InternMessage. Names,
//! categories, args and callstacks are resolved in the replay against all
//! their IncrementalState was given (data interned after the event on its
//! sequence included), as trace_processor does. An event held until the
//! replay is its bytes and a few words, not its decoded strings and args
//! (as trace_processor keeps the packet).
//!
//! Not imported, counted in `artscope_skipped_track_event_fields` (one per
//! event that has any): raw legacy phases, JSON and proto-typed debug
//! annotations, Chrome's typed TrackEvent fields and screenshots.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::stack_profile::{inline_callstack, interned_string, CallstackDesc, ProfileInterned};
use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::profiles::CallstackRef;
use crate::events::track_event::*;
use crate::events::ArgVal;

type R<T> = Result<T, WireError>;

/// The arg of a TrackEvent's source_location_iid (a reflected field).
pub const SOURCE_LOCATION_IID: &str = "source_location_iid";

/// The uuid of the default descriptor track (TrackEventTracker's
/// kDefaultDescriptorTrackUuid).
pub const DEFAULT_TRACK_UUID: u64 = 0;

/// How a descriptor track merges with its siblings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MergeBehavior {
    #[default]
    ByName,
    None,
    ByKey,
}

/// A counter descriptor's details (the parts that make two reservations
/// the same track).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CounterDetails {
    pub category: Option<String>,
    pub unit_multiplier: i64,
    pub is_incremental: bool,
    pub unit: Option<String>,
    pub builtin_type: Option<&'static str>,
    pub y_axis_share_key: Option<String>,
}

/// A TrackDescriptor's reservation of its uuid
/// (TrackEventTracker::DescriptorTrackReservation).
#[derive(Debug, Clone, Default)]
pub struct Reservation {
    pub parent_uuid: u64,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    pub min_timestamp: i64,
    pub name: Option<String>,
    pub description: Option<String>,
    pub use_separate_track: bool,
    pub is_counter: bool,
    pub is_state: bool,
    pub counter: Option<CounterDetails>,
    /// child_ordering: 1 lexicographic, 2 chronological, 3 explicit
    pub ordering: u64,
    /// the root (uuid 0) descriptor's process_ordering / thread_ordering
    /// is EXPLICIT: its processes / threads sort by sibling_order_rank
    pub process_ordering_explicit: bool,
    pub thread_ordering_explicit: bool,
    pub sibling_order_rank: Option<i64>,
    pub merge: MergeBehavior,
    pub merge_key: Option<String>,
    /// ChromeThreadDescriptor.is_sandboxed_tid: the tid is made synthetic
    /// when the track is resolved, unless its pid namespace resolves it
    pub use_synthetic_tid: bool,
}

impl Reservation {
    /// IsForSameTrack: a uuid reserved again must describe the same track.
    fn same_track(&self, o: &Reservation) -> bool {
        let counters_same = match (&self.counter, &o.counter) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                (
                    &a.category,
                    a.unit_multiplier,
                    a.is_incremental,
                    a.builtin_type,
                    &a.y_axis_share_key,
                ) == (
                    &b.category,
                    b.unit_multiplier,
                    b.is_incremental,
                    b.builtin_type,
                    &b.y_axis_share_key,
                )
            }
            _ => false,
        };
        counters_same
            && (
                self.parent_uuid,
                self.pid,
                self.tid,
                self.is_counter,
                self.is_state,
                self.merge,
            ) == (
                o.parent_uuid,
                o.pid,
                o.tid,
                o.is_counter,
                o.is_state,
                o.merge,
            )
            && self.merge_key == o.merge_key
    }
}

/// The descriptor tracks reserved at decode time, by uuid.
#[derive(Default)]
pub struct Reservations {
    pub by_uuid: HashMap<u64, Reservation>,
    /// the trusted_pid of the packet that described each uuid (its thread
    /// or process ids are resolved in that process's pid namespace)
    pub trusted_pids: HashMap<u64, i64>,
    /// analysis-time logs: (stat, arg key, uuid): the track's uuid, or the
    /// parent's a default track was given
    pub errors: Vec<(&'static str, &'static str, u64)>,
}

impl Reservations {
    /// TrackEventTracker::ReserveDescriptorTrack.
    pub fn reserve(&mut self, uuid: u64, r: Reservation) {
        if uuid == DEFAULT_TRACK_UUID && r.parent_uuid != 0 {
            let stat = "track_descriptor_default_track_with_parent";
            self.errors.push((stat, "parent_uuid", r.parent_uuid));
            return;
        }
        let Some(old) = self.by_uuid.get_mut(&uuid) else {
            self.by_uuid.insert(uuid, r);
            return;
        };
        if !old.same_track(&r) {
            let stat = "track_descriptor_conflicting_reservation";
            self.errors.push((stat, "track_uuid", uuid));
            return;
        }
        if r.name.is_some() && (old.name.is_none() || r.merge == MergeBehavior::None) {
            old.name = r.name;
        }
        old.min_timestamp = old.min_timestamp.min(r.min_timestamp);
    }
}

/// Chrome's process type names (ChromeStringLookup::GetProcessName): its
/// own names, else the enum value's name (chrome_enums::ProcessType);
/// None for PROCESS_UNSPECIFIED and past the enum.
pub fn chrome_process_name(process_type: i64) -> Option<&'static str> {
    const NAMES: [&str; 43] = [
        "",
        "Browser",
        "Renderer",
        "Utility",
        "SandboxHelper",
        "PROCESS_SANDBOX_HELPER",
        "Gpu",
        "PpapiPlugin",
        "PpapiBroker",
        "Service: network.mojom.NetworkService",
        "Service: tracing.mojom.TracingService",
        "Service: storage.mojom.StorageService",
        "Service: audio.mojom.AudioService",
        "Service: data_decoder.mojom.DataDecoderService",
        "Service: chrome.mojom.UtilWin",
        "Service: proxy_resolver.mojom.ProxyResolverFactory",
        "Service: media.mojom.CdmServiceBroker",
        "Service: video_capture.mojom.VideoCaptureService",
        "Service: unzip.mojom.Unzipper",
        "Service: mirroring.mojom.MirroringService",
        "Service: patch.mojom.FilePatcher",
        "Service: chromeos.tts.mojom.TtsService",
        "Service: printing.mojom.PrintingService",
        "Service: quarantine.mojom.Quarantine",
        "Service: chromeos.local_search_service.mojom.LocalSearchService",
        "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
        "Service: chrome.mojom.FileUtilService",
        "Service: printing.mojom.PrintCompositor",
        "Service: paint_preview.mojom.PaintPreviewCompositorCollection",
        "Service: media.mojom.SpeechRecognitionService",
        "Service: device.mojom.XRDeviceService",
        "Service: chrome.mojom.UtilReadIcon",
        "Service: language_detection.mojom.LanguageDetectionService",
        "Service: sharing.mojom.Sharing",
        "Service: chrome.mojom.MediaParserFactory",
        "Service: qrcode_generator.mojom.QRCodeService",
        "Service: chrome.mojom.ProfileImport",
        "Service: chromeos.ime.mojom.ImeService",
        "Service: recording.mojom.RecordingService",
        "Service: shape_detection.mojom.ShapeDetectionService",
        "Extension Renderer",
        "Service: media.mojom.MediaFoundationServiceBroker",
        "PROCESS_RENDERER_TOP_WEBUI",
    ];
    let name = NAMES.get(usize::try_from(process_type).ok()?)?;
    (!name.is_empty()).then_some(*name)
}

/// Chrome's thread type names (ChromeStringLookup::GetThreadName), for a
/// ThreadDescriptor's chrome_thread_type and a ChromeThreadDescriptor's
/// thread_type alike: its own names, else the enum value's name (the
/// values chrome_enums::ThreadType skips read as unknown); None for
/// THREAD_UNSPECIFIED and past the enum.
pub fn chrome_thread_name(thread_type: i64) -> Option<&'static str> {
    const UNKNOWN: &str = "PBZERO_UNKNOWN_ENUM_VALUE";
    const NAMES: [&str; 53] = [
        "",
        "CrProcessMain",
        "ChromeIOThread",
        "ThreadPoolBackgroundWorker&",
        "ThreadPoolForegroundWorker&",
        "ThreadPoolSingleThreadForegroundBlocking&",
        "ThreadPoolSingleThreadBackgroundBlocking&",
        "ThreadPoolService",
        "Compositor",
        "VizCompositorThread",
        "CompositorTileWorker&",
        "ServiceWorkerThread&",
        "NetworkService",
        "Chrome_ChildIOThread",
        "Chrome_IOThread",
        "CrBrowserMain",
        "CrRendererMain",
        "CrUtilityMain",
        "CrGpuMain",
        "CacheThread_BlockFile",
        "Media",
        "AudioOutputDevice",
        "AudioInputDevice",
        "GpuMemoryThread",
        "GpuVSyncThread",
        "DXVAVideoDecoderThread",
        "BrowserWatchdog",
        "WebRTC_Network",
        "Window owner thread",
        "WebRTC_Signaling",
        "WebRTC_Worker",
        "CrPPAPIMain",
        "GpuWatchdog",
        "swapper",
        "Gamepad polling thread",
        "WebCrypto",
        "Database thread",
        "Proxy Resolver",
        "Chrome_DevToolsADBThread",
        "NetworkConfigWatcher",
        "wasapi_render_thread",
        "LoaderLockSampler",
        "VSyncThread",
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
        "MemoryInfra",
        "StackSamplingProfiler",
        "CompositorGpuThread",
    ];
    let name = NAMES.get(usize::try_from(thread_type).ok()?)?;
    (!name.is_empty()).then_some(*name)
}

/// A legacy event's fields that the import uses.
#[derive(Debug, Clone, Default)]
pub struct Legacy {
    pub phase: Option<u8>,
    /// (None: the field is absent)
    pub duration_us: Option<i64>,
    pub thread_duration_us: Option<i64>,
    pub thread_instruction_delta: Option<i64>,
    pub use_async_tts: bool,
    /// 0 unspecified, 1 global, 2 process, 3 thread
    pub instant_scope: u64,
    pub pid_override: Option<i64>,
    pub tid_override: Option<i64>,
    /// flow v2: the flow id and direction (1 in, 2 out, 3 in-out)
    pub bind_id: Option<u64>,
    pub flow_direction: Option<u64>,
    /// flow v1: an end ('f') binds to the enclosing slice, not the next one
    pub bind_to_enclosing: bool,
    /// async events' ids
    pub unscoped_id: Option<u64>,
    pub local_id: Option<u64>,
    pub global_id: Option<u64>,
    pub id_scope: Option<String>,
}

/// One TrackEvent, parsed in the replay (`EventParser::parse`): what
/// TrackEventEventImporter reads. (The parts most events lack are boxed.)
#[derive(Debug, Clone, Default)]
pub struct TrackEventData {
    pub seq_id: u32,
    /// the sequence's incremental state (`Tokenizer::threads`): its thread
    /// descriptor (pid, tid) is the one that state ends up with, as
    /// trace_processor reads it when it parses the event
    pub incremental_state: u32,
    /// TrackEvent.type (None: absent)
    pub type_: Option<u64>,
    /// the event's own track_uuid (None: absent)
    pub track_uuid: Option<u64>,
    /// the sequence's TrackEventDefaults.track_uuid
    pub default_track_uuid: Option<u64>,
    /// (shared with the sequence's interned strings: no copy per event)
    pub name: Option<Arc<str>>,
    pub category: Option<Arc<str>>,
    pub counter_value: f64,
    /// the event's args, in trace_processor's order (keys shared)
    pub args: Vec<(Arc<str>, ArgVal)>,
    pub legacy: Option<Box<Legacy>>,
    pub extra: Option<Box<TrackEventExtra>>,
}

/// What few events carry: thread times, extra counters, flows, arg errors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrackEventExtra {
    pub thread_ts: Option<i64>,
    pub thread_instruction_count: Option<i64>,
    /// (track uuid, absolute value)
    pub extra_counters: Vec<(u64, f64)>,
    pub flow_ids: Vec<u64>,
    pub terminating_flow_ids: Vec<u64>,
    /// errors met building the args (track_event_parser_errors each) and
    /// their failed interned lookups (interned_data_tokenizer_errors each),
    /// counted when the args are used
    pub arg_errors: i64,
    pub arg_lookup_errors: i64,
    /// failed interned lookups of the event's name and category, counted
    /// (interned_data_tokenizer_errors) for an event with a type or phase,
    /// as TrackEventEventImporter::Import looks them up after that check
    pub name_lookup_errors: i64,
    /// a state event's value when its name_iid is present (0 included):
    /// what ParseStateEvent looks up, unlike the event's name (None inside:
    /// the iid is not interned)
    pub state_name_by_iid: Option<Option<Arc<str>>>,
    /// (ts, utid) of the log message's android_logs row, made when the
    /// event's args are parsed
    pub log_row: Option<(i64, u32)>,
    /// a log message: (priority, tag, message), for android_logs
    pub log: Option<(i64, Option<String>, String)>,
    /// the event has a LogMessage; the (track_event_parser_errors,
    /// interned_data_tokenizer_errors) of its lookups
    pub has_log_message: bool,
    pub log_errors: (i64, i64),
    /// the callstack (TrackEvent.callstack_iid or .callstack) and its
    /// callstack_weight
    pub callstack: Option<CallstackDesc>,
    pub callstack_weight: Option<f64>,
}

impl TrackEventData {
    fn extra(&self) -> Option<&TrackEventExtra> {
        self.extra.as_deref()
    }

    pub fn thread_ts(&self) -> Option<i64> {
        self.extra().and_then(|x| x.thread_ts)
    }

    pub fn thread_instruction_count(&self) -> Option<i64> {
        self.extra().and_then(|x| x.thread_instruction_count)
    }

    pub fn extra_counters(&self) -> &[(u64, f64)] {
        self.extra().map_or(&[], |x| &x.extra_counters)
    }

    pub fn flow_ids(&self) -> &[u64] {
        self.extra().map_or(&[], |x| &x.flow_ids)
    }

    pub fn terminating_flow_ids(&self) -> &[u64] {
        self.extra().map_or(&[], |x| &x.terminating_flow_ids)
    }

    /// Whether the event's own name_iid failed its lookup.
    pub fn name_iid_missing(&self) -> bool {
        self.extra()
            .is_some_and(|x| matches!(x.state_name_by_iid, Some(None)))
    }

    /// A state event's value (ParseStateEvent): its name_iid's string when
    /// the field is present (an iid of 0 included), else its name.
    pub fn state_name(&self) -> Option<&Arc<str>> {
        match self.extra().and_then(|x| x.state_name_by_iid.as_ref()) {
            Some(by_iid) => by_iid.as_ref(),
            None => self.name.as_ref(),
        }
    }

    /// The log message's row is made when the args are parsed: by `utid`.
    pub fn set_log_row(&mut self, ts: i64, utid: u32) {
        self.extra.get_or_insert_with(Default::default).log_row = Some((ts, utid));
    }

    pub fn log_row(&self) -> Option<(i64, u32)> {
        self.extra().and_then(|x| x.log_row)
    }

    /// The failed lookups of the name and category.
    pub fn name_lookup_errors(&self) -> i64 {
        self.extra().map_or(0, |x| x.name_lookup_errors)
    }

    /// (track_event_parser_errors, interned_data_tokenizer_errors) of the
    /// args
    pub fn arg_errors(&self) -> (i64, i64) {
        self.extra()
            .map_or((0, 0), |x| (x.arg_errors, x.arg_lookup_errors))
    }

    pub fn log(&self) -> Option<&(i64, Option<String>, String)> {
        self.extra().and_then(|x| x.log.as_ref())
    }

    pub fn has_log_message(&self) -> bool {
        self.extra().is_some_and(|x| x.has_log_message)
    }

    /// (track_event_parser_errors, interned_data_tokenizer_errors) of the
    /// log message's lookups
    pub fn log_errors(&self) -> (i64, i64) {
        self.extra().map_or((0, 0), |x| x.log_errors)
    }

    /// Errors counted with the args' (`arg_errors`).
    pub fn add_arg_errors(&mut self, parser: i64, lookups: i64) {
        if (parser, lookups) != (0, 0) {
            let x = self.extra.get_or_insert_with(Default::default);
            x.arg_errors += parser;
            x.arg_lookup_errors += lookups;
        }
    }

    pub fn callstack(&self) -> Option<&CallstackDesc> {
        self.extra().and_then(|x| x.callstack.as_ref())
    }

    pub fn callstack_weight(&self) -> Option<f64> {
        self.extra().and_then(|x| x.callstack_weight)
    }
}

#[derive(Debug, Clone, Default)]
struct SourceLocation {
    file_name: Option<String>,
    function_name: Option<String>,
    line_number: u64,
}

/// A generation's interned data (InternedData fields, iid -> value).
#[derive(Default, Clone)]
struct Interned {
    categories: HashMap<u64, Arc<str>>,
    names: HashMap<u64, Arc<str>>,
    da_names: HashMap<u64, Arc<str>>,
    da_strings: HashMap<u64, Arc<str>>,
    correlation_strs: HashMap<u64, Arc<str>>,
    log_bodies: HashMap<u64, Arc<str>>,
    source_locations: HashMap<u64, SourceLocation>,
    /// messages other importers look up by (InternedData field, iid), as
    /// given: app_wakelock_info (42), gpu_counter_descriptors (47)
    messages: HashMap<(u32, u64), Arc<[u8]>>,
}

#[derive(Default, Clone)]
struct Defaults {
    clock_id: Option<u32>,
    /// PerfSampleDefaults (field 12), read where a perf sample stream is
    /// first met (trackers::extra::perf_sample)
    perf_sample: Option<Arc<[u8]>>,
    track_uuid: Option<u64>,
    extra_counter_uuids: Vec<u64>,
    extra_double_counter_uuids: Vec<u64>,
}

/// TrackEventSequenceState: delta-encoded running values.
#[derive(Default)]
struct DeltaState {
    valid: bool,
    ts: i64,
    thread_ts: i64,
    thread_instructions: i64,
    counters: HashMap<u64, f64>,
}

#[derive(Default)]
struct Seq {
    defaults: Option<Defaults>,
    /// its IncrementalState: an index into `Tokenizer::threads`
    incremental_state: Option<u32>,
    delta: DeltaState,
    /// its StackProfileSequenceState: the scope of the callstack caches and
    /// of the dummy mapping of frames without one. A new one with each
    /// IncrementalState (at a clear or a loss): trace_processor shares the
    /// state over a loss only when it was made before it, and it is made
    /// when the sorted events are parsed, after the whole file is tokenized
    /// (no extraction window: the sorter extracts early only after two
    /// flushes and a read of the buffers)
    stack_state: Option<u32>,
}

/// Decode-time state of the track event packets.
#[derive(Default)]
pub struct Tokenizer {
    seqs: HashMap<u32, Seq>,
    pub reservations: Reservations,
    /// sequences that had a packet with first_packet_on_sequence
    pub first_packet_seqs: std::collections::HashSet<u32>,
    /// interned messages without an iid (interned_data_tokenizer_errors;
    /// failed lookups are counted by `EventParser`)
    pub lookup_errors: i64,
    /// tokenization errors: their stat and import log args (the decoder
    /// adds the packet's offset)
    pub logs: Vec<(&'static str, Vec<(&'static str, ArgVal)>)>,
    /// descriptors with a part not imported (events': `EventParser`)
    pub skipped_fields: i64,
    /// per IncrementalState: its interned track event data (a loss shares
    /// it with the next one, copied on the next write)
    interned: Vec<Arc<Interned>>,
    /// the tokenized events' bytes
    event_bytes: Vec<u8>,
    /// per IncrementalState (a new one at each clear or loss of a
    /// sequence): its thread descriptor (pid, tid), the last one set
    pub threads: Vec<Option<(i64, i64)>>,
    /// stack profile states made so far
    stack_states: u32,
    /// per IncrementalState: its interned profiling data (a loss copies it
    /// into the next one), resolved in the replay: trace_processor looks
    /// callstacks up when it parses the sorted events, against all the
    /// state was given by then
    pub profiles: Vec<ProfileInterned>,
}

fn varint(v: Value<'_>) -> Option<u64> {
    match v {
        Value::Varint(x) => Some(x),
        _ => None,
    }
}

fn fixed64(v: Value<'_>) -> Option<u64> {
    match v {
        Value::Fixed64(x) => Some(x),
        _ => None,
    }
}

/// Dots and brackets of a debug annotation name become '_' (they would
/// read as nesting in the args key).
fn sanitize(name: &str) -> String {
    name.replace(['.', '[', ']'], "_")
}

impl Tokenizer {
    /// A tokenization error: its stat and import log (RecordTokenizationLog).
    fn log(&mut self, stat: &'static str, args: Vec<(&'static str, ArgVal)>) {
        self.logs.push((stat, args));
    }

    fn seq(&mut self, seq_id: u32) -> &mut Seq {
        self.seqs.entry(seq_id).or_default()
    }

    /// The index of the sequence's incremental state (made on first use).
    fn incremental_state(&mut self, seq_id: u32) -> u32 {
        let n = self.threads.len() as u32;
        let s = self.seqs.entry(seq_id).or_default();
        match s.incremental_state {
            Some(i) => i,
            None => {
                s.incremental_state = Some(n);
                self.threads.push(None);
                self.profiles.push(ProfileInterned::default());
                self.interned.push(Arc::default());
                n
            }
        }
    }

    /// The sequence's stack profile state (made on first use).
    fn stack_state(&mut self, seq_id: u32) -> u32 {
        let s = self.seqs.entry(seq_id).or_default();
        if let Some(id) = s.stack_state {
            return id;
        }
        let id = self.stack_states;
        s.stack_state = Some(id);
        self.stack_states += 1;
        id
    }

    /// A new incremental state for the sequence, carrying its thread
    /// descriptor forward.
    fn successor(&mut self, seq_id: u32, keep_interned: bool) -> u32 {
        let i = self.incremental_state(seq_id) as usize;
        let thread = self.threads[i];
        self.threads.push(thread);
        let (profile, interned) = if keep_interned {
            (self.profiles[i].clone(), Arc::clone(&self.interned[i]))
        } else {
            Default::default()
        };
        self.profiles.push(profile);
        self.interned.push(interned);
        (self.threads.len() - 1) as u32
    }

    /// SEQ_INCREMENTAL_STATE_CLEARED: a new generation (the thread
    /// descriptor is carried forward).
    pub fn clear(&mut self, seq_id: u32) {
        let i = self.successor(seq_id, false);
        *self.seq(seq_id) = Seq {
            incremental_state: Some(i),
            ..Default::default()
        };
    }

    /// previous_packet_dropped: a new incremental state with the interned
    /// data and the thread descriptor; the delta state is gone.
    pub fn loss(&mut self, seq_id: u32) {
        let i = self.successor(seq_id, true);
        let s = self.seq(seq_id);
        s.incremental_state = Some(i);
        s.delta = DeltaState::default();
        s.stack_state = None;
    }

    /// TracePacketDefaults (field 59) of a packet on `seq_id`.
    pub fn defaults(&mut self, seq_id: u32, b: &[u8]) -> R<()> {
        let mut d = Defaults::default();
        for f in Fields::new(b) {
            match f? {
                (58, Value::Varint(x)) => d.clock_id = Some(x as u32),
                (12, Value::Bytes(b)) => d.perf_sample = Some(Arc::from(b)),
                (11, Value::Bytes(te)) => {
                    for g in Fields::new(te) {
                        match g? {
                            (11, Value::Varint(x)) => d.track_uuid = Some(x),
                            (31, v) => push_varints(v, &mut d.extra_counter_uuids)?,
                            (45, v) => push_varints(v, &mut d.extra_double_counter_uuids)?,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        self.seq(seq_id).defaults = Some(d);
        Ok(())
    }

    /// The sequence's PerfSampleDefaults (TracePacketDefaults field 12).
    pub fn perf_sample_defaults(&self, seq_id: u32) -> Option<Arc<[u8]>> {
        self.seqs
            .get(&seq_id)?
            .defaults
            .as_ref()?
            .perf_sample
            .clone()
    }

    /// The sequence's current incremental state (made on first use).
    pub fn incremental_state_of(&mut self, seq_id: u32) -> u32 {
        self.incremental_state(seq_id)
    }

    /// The sequence's current stack profile state (made on first use).
    pub fn stack_state_of(&mut self, seq_id: u32) -> u32 {
        self.stack_state(seq_id)
    }

    /// A callstack `iid` of the sequence's current interned data.
    pub fn callstack_ref(&mut self, seq_id: u32, iid: u64) -> CallstackRef {
        CallstackRef {
            incremental_state: self.incremental_state(seq_id),
            stack_state: self.stack_state(seq_id),
            iid,
        }
    }

    /// The sequence's default timestamp clock (TracePacketDefaults).
    pub fn default_clock(&self, seq_id: u32) -> Option<u32> {
        self.seqs.get(&seq_id)?.defaults.as_ref()?.clock_id
    }

    /// The track event fields of InternedData on `seq_id`.
    pub fn interned(&mut self, seq_id: u32, b: &[u8]) -> R<()> {
        let mut got: Vec<(u32, Option<u64>, Option<Arc<str>>)> = Vec::new();
        let mut locations = Vec::new();
        let mut messages = Vec::new();
        for f in Fields::new(b) {
            let (num, v) = f?;
            let Value::Bytes(m) = v else { continue };
            let state = self.incremental_state(seq_id) as usize;
            if self.profiles[state].intern(num, m, &mut self.lookup_errors)? {
                continue;
            }
            match num {
                42 | 47 => messages.push((num, interned_string(m)?.0, Arc::from(m))),
                1..=3 | 20 | 29 | 43 => {
                    let (iid, s) = interned_string(m)?;
                    got.push((num, iid, s.map(|s| Arc::from(text(s)))));
                }
                4 => {
                    let mut iid = None;
                    let mut loc = SourceLocation::default();
                    for g in Fields::new(m) {
                        match g? {
                            (1, Value::Varint(x)) => iid = Some(x),
                            (2, Value::Bytes(s)) => loc.file_name = Some(text(s)),
                            (3, Value::Bytes(s)) => loc.function_name = Some(text(s)),
                            (4, Value::Varint(x)) => loc.line_number = x as u32 as u64,
                            _ => {}
                        }
                    }
                    locations.push((iid, loc));
                }
                _ => {}
            }
        }
        // (IncrementalState::InternMessage: a message without an iid is an
        // error; an iid already interned keeps its first message)
        let missing = got.iter().filter(|g| g.1.is_none()).count()
            + locations.iter().filter(|l| l.0.is_none()).count()
            + messages.iter().filter(|m| m.1.is_none()).count();
        self.lookup_errors += missing as i64;
        let state = self.incremental_state(seq_id) as usize;
        let interned = Arc::make_mut(&mut self.interned[state]);
        for (num, iid, s) in got {
            let Some(iid) = iid else { continue };
            let map = match num {
                1 => &mut interned.categories,
                2 => &mut interned.names,
                3 => &mut interned.da_names,
                29 => &mut interned.da_strings,
                20 => &mut interned.log_bodies,
                _ => &mut interned.correlation_strs,
            };
            map.entry(iid)
                .or_insert_with(|| s.unwrap_or_else(|| Arc::from("")));
        }
        for (iid, loc) in locations {
            if let Some(iid) = iid {
                interned.source_locations.entry(iid).or_insert(loc);
            }
        }
        for (field, iid, m) in messages {
            if let Some(iid) = iid {
                interned.messages.entry((field, iid)).or_insert(m);
            }
        }
        Ok(())
    }

    /// The InternedData message of `field` interned as `iid` on the
    /// sequence (LookupInternedMessage; a miss is an
    /// interned_data_tokenizer_errors).
    pub fn interned_message(&mut self, seq_id: u32, field: u32, iid: u64) -> Option<Arc<[u8]>> {
        let state = self.incremental_state(seq_id) as usize;
        let found = self.interned[state].messages.get(&(field, iid)).cloned();
        if found.is_none() {
            self.lookup_errors += 1;
        }
        found
    }

    /// A TrackDescriptor packet at `ts` (TokenizeTrackDescriptorPacket):
    /// reserves its uuid; returns what the replay parses, None when the
    /// descriptor is dropped.
    pub fn track_descriptor(
        &mut self,
        seq_id: u32,
        ts: i64,
        b: &[u8],
        state_valid: bool,
        trusted_pid: Option<i64>,
    ) -> R<Option<DescriptorData>> {
        let mut uuid = None;
        let mut r = Reservation::default();
        let (mut name, mut static_name, mut atrace_name) = (None, None, None);
        let (mut thread, mut process, mut counter) = (None, None, None);
        let mut chrome_process = None;
        let mut has_state = false;
        let mut child_ordering = None;
        let mut merge = None;
        let (mut merge_key, mut merge_key_int) = (None, None);
        let mut disallow_merging = false;
        let mut sandboxed = false;
        let mut chrome_thread_type = None;
        for f in Fields::new(b) {
            match f? {
                (1, Value::Varint(x)) => uuid = Some(x),
                (5, Value::Varint(x)) => r.parent_uuid = x,
                (2, Value::Bytes(s)) => name = Some(text(s)),
                (10, Value::Bytes(s)) => static_name = Some(text(s)),
                (13, Value::Bytes(s)) => atrace_name = Some(text(s)),
                (14, Value::Bytes(s)) => r.description = Some(text(s)),
                (3, Value::Bytes(m)) => process = Some(m),
                (6, Value::Bytes(m)) => chrome_process = Some(m),
                (4, Value::Bytes(m)) => thread = Some(m),
                (7, Value::Bytes(m)) => {
                    for g in Fields::new(m) {
                        // ChromeThreadDescriptor's thread_type and
                        // is_sandboxed_tid
                        match g? {
                            (1, Value::Varint(x)) => {
                                chrome_thread_type = Some(x as u32 as i32 as i64)
                            }
                            (3, Value::Varint(x)) => sandboxed = x != 0,
                            _ => {}
                        }
                    }
                }
                (8, Value::Bytes(m)) => counter = Some(m),
                (18, Value::Bytes(_)) => has_state = true,
                (9, Value::Varint(x)) => disallow_merging = x != 0,
                (11, Value::Varint(x)) => child_ordering = Some(x),
                (12, Value::Varint(x)) => r.sibling_order_rank = Some(x as u32 as i32 as i64),
                (15, Value::Varint(x)) => merge = Some(x),
                (16, Value::Bytes(s)) => merge_key = Some(text(s)),
                (17, Value::Varint(x)) => merge_key_int = Some(x),
                (19, Value::Varint(x)) => r.process_ordering_explicit = x == 1,
                (20, Value::Varint(x)) => r.thread_ordering_explicit = x == 1,
                _ => {}
            }
        }
        let Some(uuid) = uuid else {
            self.log("track_descriptor_missing_uuid", vec![]);
            return Ok(None);
        };
        if let Some(o) = child_ordering {
            if o > 3 {
                self.log(
                    "track_descriptor_invalid_child_ordering",
                    vec![
                        ("track_uuid", ArgVal::Uint(uuid)),
                        ("child_order", ArgVal::Int(o as i128)),
                    ],
                );
                return Ok(None);
            }
            r.ordering = o;
        }
        match merge {
            Some(2) => r.merge = MergeBehavior::None,
            Some(3) => {
                r.merge = MergeBehavior::ByKey;
                r.merge_key = merge_key
                    .or(merge_key_int.map(|k| format!("sibling_merge_key_int:{}", k as i64)));
            }
            _ => {}
        }
        r.name = name.or(static_name).or(atrace_name);
        if let Some(pid) = trusted_pid {
            self.reservations.trusted_pids.insert(uuid, pid);
        }
        let mut data = DescriptorData {
            uuid,
            thread: None,
            process: None,
        };
        if let Some(m) = thread {
            let t = thread_desc(m)?;
            let (Some(pid), Some(tid)) = (t.pid, t.tid) else {
                self.log(
                    "track_descriptor_thread_missing_pid_tid",
                    vec![("track_uuid", ArgVal::Uint(uuid))],
                );
                return Ok(None);
            };
            r.min_timestamp = ts;
            r.pid = Some(pid);
            r.tid = Some(tid);
            r.use_separate_track = disallow_merging;
            r.use_synthetic_tid = sandboxed;
            self.reservations.reserve(uuid, r);
            // a sandboxed tid (Chrome's, namespaced by its sandbox) is made
            // unique as [pid][tid], for the sequence's thread and for the
            // descriptor's own thread (TokenizeThreadDescriptor,
            // ParseThreadDescriptor); the track's tid when it is resolved
            let tid = if sandboxed {
                synthetic_tid(tid, pid)
            } else {
                tid
            };
            if state_valid {
                self.set_thread(seq_id, pid, tid, t.refs);
            }
            data.thread = Some(ThreadDesc {
                pid,
                tid,
                name: t.name,
                chrome_type: t.chrome_type,
                chrome_thread_type,
            });
            return Ok(Some(data));
        }
        if let Some(m) = process {
            let (pid, mut p) = process_desc(m)?;
            let Some(pid) = pid else {
                self.log(
                    "track_descriptor_process_missing_pid",
                    vec![("track_uuid", ArgVal::Uint(uuid))],
                );
                return Ok(None);
            };
            r.pid = Some(pid as u32 as i64);
            r.min_timestamp = ts;
            self.reservations.reserve(uuid, r);
            let chrome = match chrome_process {
                Some(m) => {
                    let mut cp = ChromeProcess::default();
                    for g in Fields::new(m) {
                        match g? {
                            (1, Value::Varint(x)) => cp.process_type = x as u32 as i32 as i64,
                            (4, Value::Bytes(s)) => cp.host_app = Some(text(s)),
                            (5, Value::Varint(x)) => cp.crash_trace_id = Some(x),
                            _ => {}
                        }
                    }
                    Some(cp)
                }
                None => None,
            };
            p.chrome = chrome;
            data.process = Some(p);
            return Ok(Some(data));
        }
        if let Some(m) = counter {
            let mut c = CounterDetails::default();
            let (mut type_, mut unit, mut unit_name) = (0u64, 0u64, None);
            let mut categories: Vec<String> = Vec::new();
            for g in Fields::new(m) {
                match g? {
                    (1, Value::Varint(x)) => type_ = x,
                    (2, Value::Bytes(s)) => categories.push(text(s)),
                    (3, Value::Varint(x)) => unit = x,
                    (6, Value::Bytes(s)) => unit_name = Some(text(s)),
                    (4, Value::Varint(x)) => c.unit_multiplier = x as i64,
                    (5, Value::Varint(x)) => c.is_incremental = x != 0,
                    (7, Value::Bytes(s)) => c.y_axis_share_key = Some(text(s)),
                    _ => {}
                }
            }
            let categories = categories.join(",");
            if !categories.is_empty() {
                c.category = Some(categories);
            }
            let builtin = match type_ {
                1 => Some("thread_time"),
                2 => Some("thread_instruction_count"),
                _ => None,
            };
            if r.name.is_none() {
                r.name = builtin.map(str::to_owned);
            }
            c.builtin_type = builtin;
            c.unit = match (type_, unit) {
                (1, _) => Some("ns".into()),
                (2, _) => Some("count".into()),
                (_, 1) => Some("ns".into()),
                (_, 2) => Some("count".into()),
                (_, 3) => Some("bytes".into()),
                // (an absent unit_name: no unit)
                _ => unit_name,
            };
            r.is_counter = true;
            r.counter = Some(c);
            self.reservations.reserve(uuid, r);
            return Ok(Some(data));
        }
        r.is_state = has_state;
        self.reservations.reserve(uuid, r);
        Ok(Some(data))
    }

    /// TokenizeThreadDescriptor: the sequence's thread and its delta
    /// reference values.
    fn set_thread(&mut self, seq_id: u32, pid: i64, tid: i64, refs: [i64; 3]) {
        let i = self.incremental_state(seq_id);
        self.threads[i as usize] = Some((pid, tid));
        let s = self.seq(seq_id);
        s.delta.valid = true;
        s.delta.ts = refs[0].saturating_mul(1000);
        s.delta.thread_ts = refs[1].saturating_mul(1000);
        s.delta.thread_instructions = refs[2];
    }

    /// A ThreadDescriptor packet (legacy): None when it is skipped.
    pub fn thread_descriptor(
        &mut self,
        seq_id: u32,
        has_seq: bool,
        b: &[u8],
        state_valid: bool,
    ) -> R<Option<ThreadDesc>> {
        let t = thread_desc(b)?;
        if !has_seq {
            self.log("thread_descriptor_missing_sequence_id", vec![]);
            return Ok(None);
        }
        if !state_valid {
            self.log(
                "thread_descriptor_skipped_incremental_state_invalid",
                vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
            );
            return Ok(None);
        }
        let (pid, tid) = (t.pid.unwrap_or(0), t.tid.unwrap_or(0));
        self.set_thread(seq_id, pid, tid, t.refs);
        Ok(Some(ThreadDesc {
            pid,
            tid,
            name: t.name,
            chrome_type: t.chrome_type,
            chrome_thread_type: None,
        }))
    }

    /// A StreamingProfilePacket (ProfileModule::TokenizeStreamingProfilePacket):
    /// its samples at their times. The packet's time is the sequence's
    /// track event time (its thread descriptor's reference, advanced by
    /// the deltas before), converted from CLOCK_MONOTONIC by
    /// `monotonic_to_trace`; each sample's delta advances both. A time
    /// gone negative drops the rest of the packet.
    pub fn streaming_profile(
        &mut self,
        seq_id: u32,
        b: &[u8],
        monotonic_to_trace: &mut dyn FnMut(i64) -> i64,
    ) -> R<Vec<(i64, ProfileSample)>> {
        let (mut iids, mut deltas, mut priority) = (Vec::new(), Vec::new(), 0i64);
        for f in Fields::new(b) {
            match f? {
                (1, v) => push_varints(v, &mut iids)?,
                (2, v) => push_varints(v, &mut deltas)?,
                (3, Value::Varint(x)) => priority = x as i32 as i64,
                _ => {}
            }
        }
        let incremental_state = self.incremental_state(seq_id);
        let stack_state = self.stack_state(seq_id);
        let invalid = "streaming_profile_invalid_timestamp";
        let mut samples = Vec::new();
        let packet_ts = self.seq(seq_id).delta.ts;
        if packet_ts < 0 {
            self.log(invalid, vec![]);
            return Ok(samples);
        }
        let mut sample_ts = monotonic_to_trace(packet_ts);
        let mut deltas = deltas.into_iter().map(|d| (d as i64).saturating_mul(1000));
        for iid in iids {
            let Some(delta) = deltas.next() else {
                self.log("stackprofile_parser_error", vec![]);
                break;
            };
            let seq = self.seq(seq_id);
            seq.delta.ts = seq.delta.ts.saturating_add(delta);
            if seq.delta.ts < 0 {
                self.log(invalid, vec![]);
                return Ok(samples);
            }
            sample_ts = sample_ts.saturating_add(delta);
            let callstack = CallstackRef {
                incremental_state,
                stack_state,
                iid,
            };
            samples.push((
                sample_ts,
                ProfileSample {
                    callstack,
                    process_priority: priority,
                },
            ));
        }
        // trailing deltas still advance the sequence's time
        for delta in deltas {
            let seq = self.seq(seq_id);
            seq.delta.ts = seq.delta.ts.saturating_add(delta);
            if seq.delta.ts < 0 {
                self.log(invalid, vec![]);
                break;
            }
        }
        Ok(samples)
    }

    /// A TrackEvent packet (TokenizeTrackEventPacket); `packet_ts` is the
    /// packet's timestamp in trace time, if it has one. Returns the event
    /// and its trace time, None when it is dropped.
    pub fn track_event(
        &mut self,
        seq_id: u32,
        has_seq: bool,
        packet_ts: Option<i64>,
        b: &[u8],
        monotonic_to_trace: &mut dyn FnMut(i64) -> i64,
    ) -> R<Option<(i64, TokenizedEvent)>> {
        let ev = RawEvent::parse(b)?;
        if !has_seq {
            self.log("track_event_missing_sequence_id", vec![]);
            return Ok(None);
        }
        let incremental_state = self.incremental_state(seq_id);
        let stack_state = self.stack_state(seq_id);
        let seq = self.seqs.entry(seq_id).or_default();
        let mut ts;
        let mut convert = false;
        if let Some(d) = ev.ts_delta_us {
            if !seq.delta.valid {
                self.log(
                    "track_event_skipped_timestamp_delta_without_valid_state",
                    vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                );
                return Ok(None);
            }
            seq.delta.ts = seq.delta.ts.saturating_add(d.saturating_mul(1000));
            ts = seq.delta.ts;
            convert = true;
        } else if let Some(a) = ev.ts_absolute_us.filter(|&a| a != 0) {
            ts = a.saturating_mul(1000);
            convert = true;
        } else if let Some(t) = packet_ts {
            ts = t;
        } else {
            self.log("track_event_missing_timestamp", vec![]);
            return Ok(None);
        }
        if ts < 0 {
            self.log("track_event_invalid_timestamp", vec![]);
            return Ok(None);
        }
        if convert {
            ts = monotonic_to_trace(ts);
        }
        let mut times = TokenizedTimes::default();
        let mut counter_value = 0.0;
        if let Some(d) = ev.thread_time_delta_us {
            if !seq.delta.valid {
                self.log(
                    "track_event_skipped_thread_time_delta_without_valid_state",
                    vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                );
                return Ok(None);
            }
            seq.delta.thread_ts = seq.delta.thread_ts.saturating_add(d.saturating_mul(1000));
            times.thread_ts = Some(seq.delta.thread_ts);
        } else if let Some(a) = ev.thread_time_absolute_us {
            times.thread_ts = Some(a.saturating_mul(1000));
        }
        if let Some(d) = ev.thread_instruction_delta {
            if !seq.delta.valid {
                self.log(
                    "track_event_skipped_thread_instruction_delta_without_valid_state",
                    vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                );
                return Ok(None);
            }
            seq.delta.thread_instructions = seq.delta.thread_instructions.saturating_add(d);
            times.thread_instruction_count = Some(seq.delta.thread_instructions);
        } else if let Some(a) = ev.thread_instruction_absolute {
            times.thread_instruction_count = Some(a);
        }
        let defaults = seq.defaults.clone().unwrap_or_default();
        if ev.type_ == Some(4) {
            let Some(uuid) = ev.track_uuid.or(defaults.track_uuid) else {
                self.log("track_event_counter_missing_track_uuid", vec![]);
                return Ok(None);
            };
            let Some(v) = ev.counter_value else {
                self.log(
                    "track_event_counter_missing_value",
                    vec![("track_uuid", ArgVal::Uint(uuid))],
                );
                return Ok(None);
            };
            let Some(v) = self.absolute_counter_value(seq_id, uuid, v) else {
                self.log(
                    "track_event_counter_invalid_track_uuid",
                    vec![("track_uuid", ArgVal::Uint(uuid))],
                );
                return Ok(None);
            };
            counter_value = v;
        }
        if ev.type_ == Some(5) && ev.track_uuid.or(defaults.track_uuid).is_none() {
            self.log("track_event_state_missing_track_uuid", vec![]);
            return Ok(None);
        }
        // extra counters: the event's uuids, else the defaults'
        for (values, own, default) in [
            (
                &ev.extra_counter_values,
                &ev.extra_counter_uuids,
                &defaults.extra_counter_uuids,
            ),
            (
                &ev.extra_double_counter_values,
                &ev.extra_double_counter_uuids,
                &defaults.extra_double_counter_uuids,
            ),
        ] {
            if values.is_empty() {
                continue;
            }
            let uuids = if !own.is_empty() { own } else { default };
            if uuids.is_empty() {
                self.log(
                    "track_event_extra_counter_missing_track_uuids",
                    vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                );
                return Ok(None);
            }
            for (i, &v) in values.iter().enumerate() {
                let Some(&uuid) = uuids.get(i).filter(|&&u| u != 0) else {
                    self.log(
                        "track_event_extra_counter_track_uuid_mismatch",
                        vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                    );
                    return Ok(None);
                };
                if times.extra_counters.len() >= 8 {
                    self.log(
                        "track_event_extra_counter_exceeds_max",
                        vec![("packet_sequence_id", ArgVal::Uint(seq_id as u64))],
                    );
                    return Ok(None);
                }
                let Some(v) = self.absolute_counter_value(seq_id, uuid, v) else {
                    self.log(
                        "track_event_extra_counter_invalid_track",
                        vec![("track_uuid", ArgVal::Uint(uuid))],
                    );
                    return Ok(None);
                };
                times.extra_counters.push((uuid, v));
            }
        }
        let start = self.event_bytes.len();
        self.event_bytes.extend_from_slice(b);
        Ok(Some((
            ts,
            TokenizedEvent {
                seq_id,
                incremental_state,
                stack_state,
                default_track_uuid: defaults.track_uuid,
                counter_value,
                times: (times != TokenizedTimes::default()).then(|| Box::new(times)),
                start,
                len: b.len() as u32,
            },
        )))
    }

    /// What the replay parses the tokenized events with.
    pub fn into_parser(self) -> EventParser {
        EventParser {
            interned: self.interned,
            bytes: self.event_bytes,
            ..Default::default()
        }
    }

    /// ConvertToAbsoluteCounterValue: None when `uuid` is not a reserved
    /// counter track.
    fn absolute_counter_value(&mut self, seq_id: u32, uuid: u64, mut v: f64) -> Option<f64> {
        let r = self.reservations.by_uuid.get(&uuid)?;
        if !r.is_counter {
            return None;
        }
        let c = r.counter.as_ref()?;
        if c.unit_multiplier > 0 {
            v *= c.unit_multiplier as f64;
        }
        if c.is_incremental {
            let acc = self.seq(seq_id).delta.counters.entry(uuid).or_insert(0.0);
            *acc += v;
            v = *acc;
        }
        Some(v)
    }
}

/// Parses the tokenized track events in the replay (what
/// TrackEventParser / TrackEventEventImporter read of an event), each
/// against its IncrementalState as the whole trace left it.
#[derive(Default)]
pub struct EventParser {
    /// per IncrementalState: its interned track event data
    interned: Vec<Arc<Interned>>,
    /// the tokenized events' bytes
    bytes: Vec<u8>,
    /// args keys, shared by the events that use them
    keys: HashMap<String, Arc<str>>,
    /// events with a part not imported
    pub skipped_fields: i64,
}

impl EventParser {
    /// The event `t`, parsed (its bytes parsed once already when it was
    /// tokenized).
    pub fn parse(&mut self, t: &TokenizedEvent) -> R<TrackEventData> {
        let ev = RawEvent::parse(&self.bytes[t.start..t.start + t.len as usize])?;
        let (incremental_state, stack_state) = (t.incremental_state, t.stack_state);
        let mut data = TrackEventData {
            seq_id: t.seq_id,
            incremental_state,
            type_: ev.type_,
            track_uuid: ev.track_uuid,
            default_track_uuid: t.default_track_uuid,
            counter_value: t.counter_value,
            ..Default::default()
        };
        let mut x = TrackEventExtra::default();
        if let Some(times) = &t.times {
            x.thread_ts = times.thread_ts;
            x.thread_instruction_count = times.thread_instruction_count;
            x.extra_counters = times.extra_counters.clone();
        }
        // (every IncrementalState the tokenizer made has its interned data)
        let interned = &*self.interned[incremental_state as usize];
        let lookup_errors = std::cell::Cell::new(0i64);
        let lookup = |map: &HashMap<u64, Arc<str>>, iid: u64| -> Option<Arc<str>> {
            let s = map.get(&iid).cloned();
            if s.is_none() {
                lookup_errors.set(lookup_errors.get() + 1);
            }
            s
        };
        // the category: one interned, one string, else all joined with ','
        data.category = match (ev.category_iids.as_slice(), ev.categories.as_slice()) {
            ([iid], []) => Some(match lookup(&interned.categories, *iid) {
                Some(s) => s,
                None => Arc::from(format!("unknown({iid})")),
            }),
            ([], [s]) => Some(Arc::from(s.as_str())),
            ([], []) => None,
            (iids, strs) => {
                let mut all: Vec<String> = Vec::new();
                for &iid in iids {
                    if let Some(s) = lookup(&interned.categories, iid) {
                        all.push(s.to_string());
                    }
                }
                all.extend(strs.iter().cloned());
                let joined = all.join(",");
                (!joined.is_empty()).then(|| Arc::from(joined))
            }
        };
        let legacy_name_iid = ev.legacy.as_ref().map_or(0, |l| l.1);
        let name_iid = if ev.name_iid != 0 {
            ev.name_iid
        } else {
            legacy_name_iid
        };
        data.name = if name_iid != 0 {
            lookup(&interned.names, name_iid)
        } else {
            ev.name.as_deref().map(Arc::from)
        };
        // (a state event looks its own name_iid up once more, when the
        // field is present: an iid of 0 included)
        if ev.has_name_iid {
            x.state_name_by_iid = Some(interned.names.get(&ev.name_iid).cloned());
        }
        // the category's and name's lookups count for every event parsed;
        // the args' only where trace_processor parses them (a slice, counter
        // or state made for the event): the replay counts those
        let name_lookup_errors = lookup_errors.get();
        // args, in ParseTrackEventArgs' order
        let mut args: Vec<(Arc<str>, ArgVal)> = Vec::new();
        let mut arg_errors = 0i64;
        if let Some(iid) = ev.source_location_iid {
            match interned.source_locations.get(&iid).filter(|_| iid != 0) {
                Some(loc) => push_location(&mut args, "source", loc),
                None => {
                    if iid != 0 {
                        lookup_errors.set(lookup_errors.get() + 1);
                    }
                    arg_errors += 1;
                }
            }
        }
        if let Some(iid) = ev.task_posted_from_iid {
            match interned.source_locations.get(&iid).filter(|_| iid != 0) {
                Some(loc) => push_location(&mut args, "task.posted_from", loc),
                None => {
                    if iid != 0 {
                        lookup_errors.set(lookup_errors.get() + 1);
                    }
                    arg_errors += 1;
                }
            }
        }
        if let Some((loc_iid, body_iid, prio)) = ev.log_message {
            // ParseLogMessage: the body, its source location as tag, its
            // priority (INFO when unset); no row when a lookup fails. Its
            // errors are counted apart: an event without a thread has one
            // error and no lookups (the replay decides)
            x.has_log_message = true;
            match interned.log_bodies.get(&body_iid) {
                None => x.log_errors = (1, 1),
                Some(body) => {
                    let mut log_args: Vec<(Arc<str>, ArgVal)> = vec![(
                        Arc::from("track_event.log_message.message"),
                        ArgVal::Str(body.to_string()),
                    )];
                    let mut tag = None;
                    let mut ok = true;
                    if let Some(iid) = loc_iid {
                        match interned.source_locations.get(&iid) {
                            None => {
                                x.log_errors = (1, 1);
                                ok = false;
                            }
                            Some(l) => {
                                let file = l.file_name.as_deref().unwrap_or_default();
                                tag = Some(format!("{file}:{}", l.line_number));
                                // (absent strings are null strings here)
                                let (file, function) =
                                    (str_or_null(&l.file_name), str_or_null(&l.function_name));
                                log_args
                                    .push((Arc::from("track_event.log_message.file_name"), file));
                                log_args.push((
                                    Arc::from("track_event.log_message.function_name"),
                                    function,
                                ));
                                log_args.push((
                                    Arc::from("track_event.log_message.line_number"),
                                    ArgVal::Int(l.line_number as i128),
                                ));
                            }
                        }
                    }
                    if ok {
                        // the LogMessage priorities are Android's
                        // (ToAndroidLogPriority: an unknown value is UNSPECIFIED)
                        let priority = prio.map_or(4, |p| if p <= 7 { p as i64 } else { 0 });
                        if prio.is_some() {
                            log_args.push((
                                Arc::from("track_event.priority"),
                                ArgVal::Int(priority as i128),
                            ));
                        }
                        args.extend(log_args);
                        x.log = Some((priority, tag, body.to_string()));
                    } else {
                        // (the message arg stays, as trace_processor adds it first)
                        args.push(log_args.swap_remove(0));
                    }
                }
            }
        }
        if let Some(id) = ev.correlation_id {
            args.push((
                Arc::from("correlation_id"),
                ArgVal::Str(format!("tp:#{id}")),
            ));
        }
        if let Some(s) = &ev.correlation_id_str {
            args.push((Arc::from("correlation_id"), ArgVal::Str(s.clone())));
        }
        if let Some(iid) = ev.correlation_id_str_iid {
            if let Some(s) = lookup(&interned.correlation_strs, iid) {
                args.push((Arc::from("correlation_id"), ArgVal::Str(s.to_string())));
            }
        }
        // the TrackEvent's reflected fields (kReflectFields), before the
        // debug annotations: the only one imported is source_location_iid,
        // kept as it is whether or not it resolved above
        if let Some(iid) = ev.source_location_iid {
            args.push((Arc::from(SOURCE_LOCATION_IID), ArgVal::Uint(iid)));
        }
        let mut skipped = ev.unsupported;
        let mut annotations = Annotations {
            interned,
            args: &mut args,
            keys: &mut self.keys,
            indexes: HashMap::default(),
            lookup_errors: 0,
            unsupported: false,
        };
        for da in &ev.debug_annotations {
            if annotations.annotation(da, "debug").is_err() {
                arg_errors += 1;
            }
        }
        lookup_errors.set(lookup_errors.get() + annotations.lookup_errors);
        skipped |= annotations.unsupported;
        data.args = args;
        x.arg_errors = arg_errors;
        // (callstack_iid first, as TrackEventEventImporter reads them)
        if let Some(iid) = ev.callstack_iid {
            x.callstack = Some(CallstackDesc::Interned(CallstackRef {
                incremental_state,
                stack_state,
                iid,
            }));
        } else if let Some(b) = ev.callstack {
            x.callstack = Some(CallstackDesc::Inline(inline_callstack(b)?));
        }
        x.callstack_weight = ev.callstack_weight;
        x.flow_ids = if ev.flow_ids.is_empty() {
            ev.flow_ids_old
        } else {
            ev.flow_ids
        };
        x.terminating_flow_ids = if ev.terminating_flow_ids.is_empty() {
            ev.terminating_flow_ids_old
        } else {
            ev.terminating_flow_ids
        };
        if let Some((l, _)) = ev.legacy {
            // (a counter's or state's type decides, not its legacy phase)
            let typed = matches!(ev.type_, Some(4) | Some(5));
            if !typed
                && l.phase
                    .is_some_and(|p| !SUPPORTED_LEGACY_PHASES.contains(&p))
            {
                skipped = true;
            }
            data.legacy = Some(Box::new(l));
        }
        x.name_lookup_errors = name_lookup_errors;
        x.arg_lookup_errors = lookup_errors.get() - name_lookup_errors;
        if skipped {
            self.skipped_fields += 1;
        }
        if x != TrackEventExtra::default() {
            data.extra = Some(Box::new(x));
        }
        Ok(data)
    }
}

/// A string arg, or a null string where the proto field is absent.
fn str_or_null(v: &Option<String>) -> ArgVal {
    v.clone().map_or(ArgVal::NullStr, ArgVal::Str)
}

fn push_location(args: &mut Vec<(Arc<str>, ArgVal)>, prefix: &str, loc: &SourceLocation) {
    // Windows paths' backslashes become slashes (NormalizePathSeparators)
    let file = loc.file_name.clone().unwrap_or_default().replace('\\', "/");
    args.push((format!("{prefix}.file_name").into(), ArgVal::Str(file)));
    // (an absent function name is a null string; the file name was copied)
    let function = str_or_null(&loc.function_name);
    args.push((format!("{prefix}.function_name").into(), function));
    args.push((
        format!("{prefix}.line_number").into(),
        ArgVal::Uint(loc.line_number),
    ));
}

/// CreateSyntheticTid: a tid unique across processes, [pid][tid] in 64
/// bits (a negative tid sets every bit, as in trace_processor).
pub(crate) fn synthetic_tid(tid: i64, pid: i64) -> i64 {
    (pid << 32) | tid
}

/// IsSyntheticTid.
pub(crate) fn is_synthetic_tid(tid: i64) -> bool {
    tid & (0xffff_ffff_0000_0000u64 as i64) != 0
}

/// A ThreadDescriptor's fields as on the wire.
struct ThreadFields {
    pid: Option<i64>,
    tid: Option<i64>,
    name: Option<String>,
    /// reference ts us, thread time us, instruction count
    refs: [i64; 3],
    chrome_type: Option<i64>,
}

fn thread_desc(b: &[u8]) -> R<ThreadFields> {
    let mut t = ThreadFields {
        pid: None,
        tid: None,
        name: None,
        refs: [0; 3],
        chrome_type: None,
    };
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => t.pid = Some(x as u32 as i32 as i64),
            (2, Value::Varint(x)) => t.tid = Some(x as i64),
            (4, Value::Varint(x)) => t.chrome_type = Some(x as u32 as i32 as i64),
            (5, Value::Bytes(s)) => t.name = Some(text(s)),
            (6, Value::Varint(x)) => t.refs[0] = x as i64,
            (7, Value::Varint(x)) => t.refs[1] = x as i64,
            (8, Value::Varint(x)) => t.refs[2] = x as i64,
            _ => {}
        }
    }
    Ok(t)
}

/// A ProcessDescriptor packet (legacy), parsed at its timestamp.
pub fn process_descriptor(b: &[u8]) -> R<ProcessDesc> {
    Ok(process_desc(b)?.1)
}

/// ProcessDescriptor: its pid as on the wire, and its fields (pid 0 when
/// it has none).
fn process_desc(b: &[u8]) -> R<(Option<i64>, ProcessDesc)> {
    let mut pid = None;
    let mut p = ProcessDesc::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => pid = Some(x as u32 as i32 as i64),
            (4, Value::Varint(x)) => p.chrome_type = Some(x as u32 as i32 as i64),
            (6, Value::Bytes(s)) => p.name = Some(text(s)),
            (7, Value::Varint(x)) => p.start_ts = Some(x as i64),
            (8, Value::Bytes(s)) => p.labels.push(text(s)),
            _ => {}
        }
    }
    p.pid = pid.unwrap_or(0);
    Ok((pid, p))
}

/// A TrackEvent's fields as on the wire.
#[derive(Default)]
struct RawEvent<'a> {
    type_: Option<u64>,
    track_uuid: Option<u64>,
    category_iids: Vec<u64>,
    categories: Vec<String>,
    name_iid: u64,
    /// name_iid is on the wire (0 included: ParseStateEvent looks it up)
    has_name_iid: bool,
    name: Option<String>,
    ts_delta_us: Option<i64>,
    ts_absolute_us: Option<i64>,
    thread_time_delta_us: Option<i64>,
    thread_time_absolute_us: Option<i64>,
    thread_instruction_delta: Option<i64>,
    thread_instruction_absolute: Option<i64>,
    counter_value: Option<f64>,
    extra_counter_uuids: Vec<u64>,
    extra_counter_values: Vec<f64>,
    extra_double_counter_uuids: Vec<u64>,
    extra_double_counter_values: Vec<f64>,
    flow_ids: Vec<u64>,
    flow_ids_old: Vec<u64>,
    terminating_flow_ids: Vec<u64>,
    terminating_flow_ids_old: Vec<u64>,
    debug_annotations: Vec<&'a [u8]>,
    source_location_iid: Option<u64>,
    task_posted_from_iid: Option<u64>,
    /// LogMessage: (source_location_iid, body_iid, prio)
    log_message: Option<(Option<u64>, u64, Option<u64>)>,
    correlation_id: Option<u64>,
    correlation_id_str: Option<String>,
    correlation_id_str_iid: Option<u64>,
    /// (the legacy event, its name_iid)
    legacy: Option<(Legacy, u64)>,
    /// TrackEvent.callstack (inline) / callstack_iid / callstack_weight
    callstack: Option<&'a [u8]>,
    callstack_iid: Option<u64>,
    callstack_weight: Option<f64>,
    /// a field the import does not read
    unsupported: bool,
}

fn push_fixed64s(v: Value<'_>, out: &mut Vec<u64>) {
    match v {
        Value::Fixed64(x) => out.push(x),
        Value::Bytes(b) => {
            for c in b.chunks_exact(8) {
                out.push(u64::from_le_bytes(c.try_into().unwrap()));
            }
        }
        _ => {}
    }
}

fn push_doubles(v: Value<'_>, out: &mut Vec<f64>) {
    let mut bits = Vec::new();
    push_fixed64s(v, &mut bits);
    out.extend(bits.into_iter().map(f64::from_bits));
}

impl<'a> RawEvent<'a> {
    fn parse(b: &'a [u8]) -> R<Self> {
        let mut e = RawEvent::default();
        let mut ints = Vec::new();
        for f in Fields::new(b) {
            let (num, v) = f?;
            match num {
                9 => e.type_ = varint(v),
                11 => e.track_uuid = varint(v),
                3 => push_varints(v, &mut e.category_iids)?,
                22 => {
                    if let Value::Bytes(s) = v {
                        e.categories.push(text(s));
                    }
                }
                10 => {
                    e.name_iid = varint(v).unwrap_or(0);
                    e.has_name_iid = true;
                    e.name = None;
                }
                23 => {
                    if let Value::Bytes(s) = v {
                        e.name = Some(text(s));
                        e.name_iid = 0;
                        e.has_name_iid = false;
                    }
                }
                1 => e.ts_delta_us = varint(v).map(|x| x as i64),
                16 => e.ts_absolute_us = varint(v).map(|x| x as i64),
                2 => e.thread_time_delta_us = varint(v).map(|x| x as i64),
                17 => e.thread_time_absolute_us = varint(v).map(|x| x as i64),
                8 => e.thread_instruction_delta = varint(v).map(|x| x as i64),
                20 => e.thread_instruction_absolute = varint(v).map(|x| x as i64),
                30 => e.counter_value = varint(v).map(|x| x as i64 as f64),
                44 => e.counter_value = fixed64(v).map(f64::from_bits),
                31 => push_varints(v, &mut e.extra_counter_uuids)?,
                12 => {
                    ints.clear();
                    push_varints(v, &mut ints)?;
                    e.extra_counter_values
                        .extend(ints.iter().map(|&x| x as i64 as f64));
                }
                45 => push_varints(v, &mut e.extra_double_counter_uuids)?,
                46 => push_doubles(v, &mut e.extra_double_counter_values),
                47 => push_fixed64s(v, &mut e.flow_ids),
                36 => push_varints(v, &mut e.flow_ids_old)?,
                48 => push_fixed64s(v, &mut e.terminating_flow_ids),
                42 => push_varints(v, &mut e.terminating_flow_ids_old)?,
                4 => {
                    if let Value::Bytes(m) = v {
                        e.debug_annotations.push(m);
                    }
                }
                34 => e.source_location_iid = varint(v),
                5 => {
                    if let Value::Bytes(m) = v {
                        for g in Fields::new(m) {
                            if let (1, Value::Varint(x)) = g? {
                                e.task_posted_from_iid = Some(x);
                            }
                        }
                        e.task_posted_from_iid.get_or_insert(0);
                    }
                }
                52 => e.correlation_id = varint(v),
                53 => {
                    if let Value::Bytes(s) = v {
                        e.correlation_id_str = Some(text(s));
                    }
                }
                54 => e.correlation_id_str_iid = varint(v),
                6 => {
                    if let Value::Bytes(m) = v {
                        e.legacy = Some(parse_legacy(m)?);
                    }
                }
                21 => {
                    if let Value::Bytes(m) = v {
                        let (mut loc, mut body, mut prio) = (None, 0, None);
                        for g in Fields::new(m) {
                            match g? {
                                (1, Value::Varint(x)) => loc = Some(x),
                                (2, Value::Varint(x)) => body = x,
                                (3, Value::Varint(x)) => prio = Some(x),
                                _ => {}
                            }
                        }
                        e.log_message = Some((loc, body, prio));
                    }
                }
                55 => {
                    if let Value::Bytes(m) = v {
                        e.callstack = Some(m);
                    }
                }
                56 => e.callstack_iid = varint(v),
                57 => e.callstack_weight = fixed64(v).map(f64::from_bits),
                // an inline source location, Chrome's typed fields,
                // screenshots, extensions
                24..=29 | 32 | 33 | 35 | 38..=41 | 43 | 49 | 50 | 1000.. => e.unsupported = true,
                _ => {}
            }
        }
        Ok(e)
    }
}

fn parse_legacy(b: &[u8]) -> R<(Legacy, u64)> {
    let mut l = Legacy::default();
    let mut name_iid = 0;
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => name_iid = x,
            (2, Value::Varint(x)) => l.phase = Some(x as u8),
            (3, Value::Varint(x)) => l.duration_us = Some(x as i64),
            (4, Value::Varint(x)) => l.thread_duration_us = Some(x as i64),
            (15, Value::Varint(x)) => l.thread_instruction_delta = Some(x as i64),
            (9, Value::Varint(x)) => l.use_async_tts = x != 0,
            (14, Value::Varint(x)) => l.instant_scope = x,
            (18, Value::Varint(x)) => l.pid_override = Some(x as u32 as i32 as i64),
            (19, Value::Varint(x)) => l.tid_override = Some(x as u32 as i32 as i64),
            (8, Value::Varint(x)) => l.bind_id = Some(x),
            (12, Value::Varint(x)) => l.bind_to_enclosing = x != 0,
            (6, Value::Varint(x)) => l.unscoped_id = Some(x),
            (10, Value::Varint(x)) => l.local_id = Some(x),
            (11, Value::Varint(x)) => l.global_id = Some(x),
            (7, Value::Bytes(s)) => l.id_scope = Some(text(s)),
            (13, Value::Varint(x)) => l.flow_direction = Some(x),
            _ => {}
        }
    }
    Ok((l, name_iid))
}

/// Debug annotations into args (ProtoToArgsParser::ParseDebugAnnotation):
/// dictionaries nest keys with '.', arrays index them with "[i]".
struct Annotations<'i, 'o> {
    interned: &'i Interned,
    args: &'o mut Vec<(Arc<str>, ArgVal)>,
    keys: &'o mut HashMap<String, Arc<str>>,
    /// the next index of each array key (the inserter's array indexes)
    indexes: HashMap<String, usize>,
    lookup_errors: i64,
    unsupported: bool,
}

/// A DebugAnnotation's fields.
#[derive(Default)]
struct Annotation<'a> {
    name_iid: u64,
    name: Option<String>,
    bool_value: Option<bool>,
    uint_value: Option<u64>,
    int_value: Option<i64>,
    double_value: Option<f64>,
    string_value: Option<String>,
    string_value_iid: Option<u64>,
    pointer_value: Option<u64>,
    legacy_json: bool,
    proto_value: bool,
    nested_value: Option<&'a [u8]>,
    dict_entries: Vec<&'a [u8]>,
    array_values: Vec<&'a [u8]>,
}

fn parse_annotation(b: &[u8]) -> R<Annotation<'_>> {
    let mut a = Annotation::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => a.name_iid = x,
            (10, Value::Bytes(s)) => a.name = Some(text(s)),
            (2, Value::Varint(x)) => a.bool_value = Some(x != 0),
            (3, Value::Varint(x)) => a.uint_value = Some(x),
            (4, Value::Varint(x)) => a.int_value = Some(x as i64),
            (5, Value::Fixed64(x)) => a.double_value = Some(f64::from_bits(x)),
            (6, Value::Bytes(s)) => a.string_value = Some(text(s)),
            (17, Value::Varint(x)) => a.string_value_iid = Some(x),
            (7, Value::Varint(x)) => a.pointer_value = Some(x),
            (9, Value::Bytes(_)) => a.legacy_json = true,
            (14, Value::Bytes(_)) => a.proto_value = true,
            (8, Value::Bytes(m)) => a.nested_value = Some(m),
            (11, Value::Bytes(m)) => a.dict_entries.push(m),
            (12, Value::Bytes(m)) => a.array_values.push(m),
            _ => {}
        }
    }
    Ok(a)
}

impl Annotations<'_, '_> {
    fn name(&mut self, a: &Annotation<'_>) -> Result<String, ()> {
        if a.name_iid != 0 {
            match self.interned.da_names.get(&a.name_iid) {
                Some(n) => Ok(sanitize(n)),
                None => {
                    self.lookup_errors += 1;
                    Err(())
                }
            }
        } else {
            a.name.as_deref().map(sanitize).ok_or(())
        }
    }

    fn push(&mut self, key: &str, v: ArgVal) {
        let key = match self.keys.get(key) {
            Some(k) => k.clone(),
            None => {
                let k: Arc<str> = Arc::from(key);
                self.keys.insert(key.to_owned(), k.clone());
                k
            }
        };
        self.args.push((key, v));
    }

    /// A named annotation under `prefix`; Ok(whether it added an arg).
    fn annotation(&mut self, b: &[u8], prefix: &str) -> Result<bool, ()> {
        let a = parse_annotation(b).map_err(|_| ())?;
        let name = self.name(&a)?;
        self.value(&a, &format!("{prefix}.{name}"))
    }

    /// An annotation's value at `key`; Ok(whether it added an arg).
    fn value(&mut self, a: &Annotation<'_>, key: &str) -> Result<bool, ()> {
        if !a.dict_entries.is_empty() {
            for e in &a.dict_entries {
                self.annotation(e, key)?;
            }
            return Ok(true);
        }
        if !a.array_values.is_empty() {
            let mut added = false;
            for e in &a.array_values {
                let idx = *self.indexes.get(key).unwrap_or(&0);
                let item = parse_annotation(e).map_err(|_| ())?;
                if self.value(&item, &format!("{key}[{idx}]"))? {
                    *self.indexes.entry(key.to_owned()).or_insert(0) = idx + 1;
                    added = true;
                }
            }
            return Ok(added);
        }
        if let Some(v) = a.bool_value {
            self.push(key, ArgVal::Bool(v));
        } else if let Some(v) = a.uint_value {
            self.push(key, ArgVal::Uint(v));
        } else if let Some(v) = a.int_value {
            self.push(key, ArgVal::Int(v as i128));
        } else if let Some(v) = a.double_value {
            self.push(key, ArgVal::Real(v));
        } else if let Some(v) = &a.string_value {
            self.push(key, ArgVal::Str(v.clone()));
        } else if let Some(iid) = a.string_value_iid {
            match self.interned.da_strings.get(&iid) {
                Some(s) => {
                    let s = s.to_string();
                    self.push(key, ArgVal::Str(s));
                }
                None => {
                    self.lookup_errors += 1;
                    return Err(());
                }
            }
        } else if let Some(v) = a.pointer_value {
            self.push(key, ArgVal::Pointer(v));
        } else if a.legacy_json || a.proto_value {
            // JSON values and typed protos need trace_processor's JSON
            // parser and descriptor pool: not imported
            self.unsupported = true;
            return Ok(false);
        } else if let Some(m) = a.nested_value {
            return self.nested(m, key);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// A DebugAnnotation.NestedValue at `key`.
    fn nested(&mut self, b: &[u8], key: &str) -> Result<bool, ()> {
        let (mut type_, mut keys, mut dict_values, mut array_values) =
            (0u64, vec![], vec![], vec![]);
        let (mut int_v, mut double_v, mut bool_v, mut string_v) = (None, None, None, None);
        for f in Fields::new(b) {
            match f.map_err(|_| ())? {
                (1, Value::Varint(x)) => type_ = x,
                (2, Value::Bytes(s)) => keys.push(text(s)),
                (3, Value::Bytes(m)) => dict_values.push(m),
                (4, Value::Bytes(m)) => array_values.push(m),
                (5, Value::Varint(x)) => int_v = Some(x as i64),
                (6, Value::Fixed64(x)) => double_v = Some(f64::from_bits(x)),
                (7, Value::Varint(x)) => bool_v = Some(x != 0),
                (8, Value::Bytes(s)) => string_v = Some(text(s)),
                _ => {}
            }
        }
        match type_ {
            1 => {
                if keys.len() != dict_values.len() {
                    return Err(());
                }
                for (k, v) in keys.iter().zip(&dict_values) {
                    self.nested(v, &format!("{key}.{}", sanitize(k)))?;
                }
                Ok(true)
            }
            2 => {
                let mut added = false;
                for v in &array_values {
                    let idx = *self.indexes.get(key).unwrap_or(&0);
                    if self.nested(v, &format!("{key}[{idx}]"))? {
                        *self.indexes.entry(key.to_owned()).or_insert(0) = idx + 1;
                        added = true;
                    }
                }
                Ok(added)
            }
            0 => {
                if let Some(v) = bool_v {
                    self.push(key, ArgVal::Bool(v));
                } else if let Some(v) = int_v {
                    self.push(key, ArgVal::Int(v as i128));
                } else if let Some(v) = double_v {
                    self.push(key, ArgVal::Real(v));
                } else if let Some(v) = string_v {
                    self.push(key, ArgVal::Str(v));
                } else {
                    return Ok(false);
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_names_are_sanitized() {
        assert_eq!(sanitize("a.b[0]"), "a_b_0_");
    }
}
