//! Profiling payloads: perf samples, heap profile dumps, smaps, module
//! symbols, and the interned callstacks they refer to. The decoders read
//! them (`decoder::{perf_sample, profile_packet, stack_profile}`); the
//! replay resolves their callstacks and makes their rows
//! (`trackers::extra::{perf_sample, heap_profile, stack_profile}`).

use std::sync::Arc;

/// One PerfSample packet, at its packet's time.
#[derive(Debug, Clone, Default)]
pub struct PerfSampleEv {
    pub seq_id: u32,
    /// None: no `cpu` field (the sampling stream is cpu 0's, the sample has
    /// no cpu)
    pub cpu: Option<u32>,
    pub pid: u32,
    pub tid: u32,
    /// Profiling.CpuMode (0 = unknown)
    pub cpu_mode: i32,
    pub timebase_count: Option<u64>,
    pub follower_counts: Vec<u64>,
    /// the callstack_iid in the sequence's interned data
    pub callstack: Option<CallstackRef>,
    /// Profiling.StackUnwindError, when given
    pub unwind_error: Option<i32>,
    pub kernel_records_lost: u64,
    /// PerfSample.SampleSkipReason, when given
    pub skipped_reason: Option<i32>,
    /// a ProducerEvent: its source_stop_reason (0 when absent)
    pub producer_stop_reason: Option<i32>,
    /// the sequence's PerfSampleDefaults when the sample was read
    pub defaults: Option<Arc<[u8]>>,
}

/// One ProfilePacket.
#[derive(Debug, Clone, Default)]
pub struct ProfilePacketEv {
    /// the sequence's stack profile state (one per incremental state
    /// interval: the scope of ProfilePacketSequenceState)
    pub stack_state: u32,
    /// the sequence's incremental state (its interned callstacks are the
    /// fallback of a sample's callstack)
    pub incremental_state: u32,
    pub index: u64,
    pub continued: bool,
    /// InternedString (iid, str)
    pub strings: Vec<(u64, String)>,
    pub mappings: Vec<(u64, RawMapping)>,
    /// (iid, function_name_id, mapping_id, rel_pc)
    pub frames: Vec<(u64, u64, u64, u64)>,
    /// (iid, frame ids, root first)
    pub callstacks: Vec<(u64, Vec<u64>)>,
    pub dumps: Vec<ProcessDump>,
}

/// ProcessHeapSamples.
#[derive(Debug, Clone, Default)]
pub struct ProcessDump {
    pub pid: u64,
    /// MONOTONIC_COARSE times; after the conversion, trace times (None:
    /// the dump's time does not convert, and the dump is skipped)
    pub timestamp: Option<i64>,
    pub start_timestamp: Option<i64>,
    /// the heap's name when not empty
    pub heap_name: Option<String>,
    pub disconnected: bool,
    pub buffer_corrupted: bool,
    pub buffer_overran: bool,
    pub client_error: i32,
    pub rejected_concurrent: bool,
    pub hit_guardrail: bool,
    pub sampling_interval_bytes: u64,
    pub orig_sampling_interval_bytes: u64,
    /// ProcessStats: total_unwinding_time_us, heap_samples,
    /// client_spinlock_blocked_us
    pub unwind_time_us: u64,
    pub heap_samples: u64,
    pub spinlock_blocked_us: u64,
    pub samples: Vec<HeapSample>,
}

#[derive(Debug, Clone, Default)]
pub struct HeapSample {
    pub callstack_id: u64,
    pub self_allocated: u64,
    pub self_freed: u64,
    pub self_max: Option<u64>,
    pub self_max_count: u64,
    pub alloc_count: u64,
    pub free_count: u64,
}

/// A `profiler_smaps` row (SmapsEntry, or a PackedSmaps entry), its
/// strings None when the field is absent (NULL; a present empty string is
/// "", as trace_processor interns a string view without data as NULL).
#[derive(Debug, Clone, Default)]
pub struct SmapsRow {
    pub path: Option<String>,
    /// the path without a " (deleted)" suffix
    pub path_trimmed: Option<String>,
    pub aggregate_count: u32,
    pub is_deleted: bool,
    pub file_name: Option<String>,
    pub module_debugid: Option<String>,
    pub module_debug_path: Option<String>,
    pub protection_flags: i32,
    /// size, private dirty, swap, start address, module timestamp, private
    /// clean, shared dirty, shared clean, locked, pss, rss, anonymous, pss
    /// dirty, swap pss (kB; 0 when not given)
    pub values: [i64; 14],
}

/// SmapsRow::values' positions.
pub mod smaps_value {
    pub const SIZE: usize = 0;
    pub const PRIVATE_DIRTY: usize = 1;
    pub const SWAP: usize = 2;
    pub const START_ADDRESS: usize = 3;
    pub const MODULE_TIMESTAMP: usize = 4;
    pub const PRIVATE_CLEAN: usize = 5;
    pub const SHARED_DIRTY: usize = 6;
    pub const SHARED_CLEAN: usize = 7;
    pub const LOCKED: usize = 8;
    pub const PSS: usize = 9;
    pub const RSS: usize = 10;
    pub const ANONYMOUS: usize = 11;
    pub const PSS_DIRTY: usize = 12;
    pub const SWAP_PSS: usize = 13;
}

/// A SmapsPacket: its process and rows (ProfileModule::ParseSmapsPacket /
/// ParsePackedSmaps); `parser_error`: a packed table whose fields do not
/// line up (smaps_parser_errors).
#[derive(Debug, Clone, Default)]
pub struct SmapsEv {
    pub pid: u32,
    pub rows: Vec<SmapsRow>,
    pub parser_error: bool,
}

/// A Mapping message as given (its strings are ids).
#[derive(Debug, Clone, Default)]
pub struct RawMapping {
    pub build_id: u64,
    pub exact_offset: u64,
    pub start_offset: u64,
    pub start: u64,
    pub end: u64,
    pub load_bias: u64,
    pub path_string_ids: Vec<u64>,
}

/// An interned callstack an event refers to: resolved in the replay
/// (`ProfileInterned::callstack`) against its IncrementalState's data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallstackRef {
    pub incremental_state: u32,
    /// the sequence's stack profile state (a new one at each clear): the
    /// scope of trace_processor's per-sequence caches
    pub stack_state: u32,
    pub iid: u64,
}

/// ModuleSymbols: symbols for the frames of a module's mappings.
#[derive(Debug, Clone, Default)]
pub struct ModuleSymbols {
    pub path: String,
    /// raw; empty: none
    pub build_id: Vec<u8>,
    pub addresses: Vec<(u64, Vec<SymbolLine>)>,
}

/// A line of an address's symbols: function name, source file, line
/// number when given.
pub type SymbolLine = (String, String, Option<u32>);

/// A Timebase or FollowerEvent: what names its counter track.
#[derive(Default)]
pub struct PerfEvent {
    pub name: String,
    pub counter: Option<i32>,
    /// the tracepoint's name, when there is a tracepoint
    pub tracepoint: Option<String>,
    /// (type, config, config1, config2), when there is a raw event
    pub raw_event: Option<(u32, u64, u64, u64)>,
    pub modifiers: Vec<u64>,
}

/// PerfSampleDefaults.
pub struct PerfDefaults {
    pub timebase: PerfEvent,
    pub followers: Vec<PerfEvent>,
    pub process_shard_count: u32,
    pub chosen_process_shard: u32,
}
