//! ProfilePacket (heapprofd's and the Java heap profiler's allocation
//! dumps): the fields ProfileModule::ParseProfilePacket reads (v58.2
//! importers/proto/profile_module.cc), made into rows in the replay by
//! `trackers::heap_profile`. A dump's times are CLOCK_MONOTONIC_COARSE,
//! converted to trace time once every clock snapshot is known
//! (`ProtoDecoder::decode`'s last step), as trace_processor converts them
//! when the sorted packet is parsed.

use super::stack_profile::RawMapping;
use super::wire::{push_varints, text, Fields, Value, WireError};

type R<T> = Result<T, WireError>;

/// CLOCK_MONOTONIC_COARSE: the clock of a dump's timestamps.
pub const MONOTONIC_COARSE: u32 = 4;

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

fn flag(v: Value) -> bool {
    matches!(v, Value::Varint(x) if x != 0)
}

pub fn profile_packet(b: &[u8]) -> R<ProfilePacketEv> {
    let mut p = ProfilePacketEv::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Bytes(s)) => {
                let (iid, s) = super::stack_profile::interned_string(s)?;
                p.strings
                    .push((iid.unwrap_or(0), s.map(text).unwrap_or_default()));
            }
            (4, Value::Bytes(m)) => p.mappings.push(RawMapping::parse(m)?),
            (2, Value::Bytes(m)) => {
                let mut fr = (0, 0, 0, 0);
                for g in Fields::new(m) {
                    match g? {
                        (1, Value::Varint(x)) => fr.0 = x,
                        (2, Value::Varint(x)) => fr.1 = x,
                        (3, Value::Varint(x)) => fr.2 = x,
                        (4, Value::Varint(x)) => fr.3 = x,
                        _ => {}
                    }
                }
                p.frames.push(fr);
            }
            (3, Value::Bytes(m)) => {
                let (mut iid, mut frames) = (0, Vec::new());
                for g in Fields::new(m) {
                    match g? {
                        (1, Value::Varint(x)) => iid = x,
                        (2, v) => push_varints(v, &mut frames)?,
                        _ => {}
                    }
                }
                p.callstacks.push((iid, frames));
            }
            (5, Value::Bytes(d)) => p.dumps.push(process_dump(d)?),
            (6, v) => p.continued = flag(v),
            (7, Value::Varint(x)) => p.index = x,
            _ => {}
        }
    }
    Ok(p)
}

fn process_dump(b: &[u8]) -> R<ProcessDump> {
    let mut d = ProcessDump::default();
    let mut ts = 0u64;
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => d.pid = x,
            (4, v) => d.rejected_concurrent = flag(v),
            (6, v) => d.disconnected = flag(v),
            (7, v) => d.buffer_overran = flag(v),
            (8, v) => d.buffer_corrupted = flag(v),
            (10, v) => d.hit_guardrail = flag(v),
            (14, Value::Varint(x)) => d.client_error = x as i32,
            (11, Value::Bytes(s)) => d.heap_name = (!s.is_empty()).then(|| text(s)),
            (12, Value::Varint(x)) => d.sampling_interval_bytes = x,
            (13, Value::Varint(x)) => d.orig_sampling_interval_bytes = x,
            (9, Value::Varint(x)) => ts = x,
            (15, Value::Varint(x)) => d.start_timestamp = Some(x as i64),
            (5, Value::Bytes(s)) => {
                for g in Fields::new(s) {
                    match g? {
                        (5, Value::Varint(x)) => d.unwind_time_us = x,
                        (2, Value::Varint(x)) => d.heap_samples = x,
                        (6, Value::Varint(x)) => d.spinlock_blocked_us = x,
                        _ => {}
                    }
                }
            }
            (2, Value::Bytes(s)) => d.samples.push(heap_sample(s)?),
            _ => {}
        }
    }
    // (an absent timestamp is 0, as protozero reads it)
    d.timestamp = Some(ts as i64);
    Ok(d)
}

fn heap_sample(b: &[u8]) -> R<HeapSample> {
    let mut s = HeapSample::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => s.callstack_id = x,
            (2, Value::Varint(x)) => s.self_allocated = x,
            (3, Value::Varint(x)) => s.self_freed = x,
            (8, Value::Varint(x)) => s.self_max = Some(x),
            (9, Value::Varint(x)) => s.self_max_count = x,
            (5, Value::Varint(x)) => s.alloc_count = x,
            (6, Value::Varint(x)) => s.free_count = x,
            _ => {}
        }
    }
    Ok(s)
}
