//! heapprofd's allocation dumps (ProfilePacket) as trace_processor v58.2
//! imports them: ProfileModule::ParseProfilePacket and
//! ProfilePacketSequenceState (importers/proto/profile_module.cc,
//! profile_packet_sequence_state.cc).
//!
//! - A packet's strings, mappings, frames and callstacks are interned in
//!   that order (not the wire's) into its sequence's state, which lives for
//!   one incremental state interval and is cleared after each dump that is
//!   not `continued`; mappings, frames and callsites become
//!   `stack_profile_*` rows as they are read.
//! - Each process dump is a `heap_profile` row per (process, dump time,
//!   heap), its samples pending until the dump's last packet. They are then
//!   `heap_profile_allocation` rows: per (process, callsite) the change
//!   since the previous dump, allocations (count, size) and frees (negated;
//!   none for ART's heap, which reports no frees), a dump that goes
//!   backwards being only a `heapprofd_malformed_packet` stat.
//! - A dump's flags and counts are heapprofd_* stats indexed by pid.
//! - SmapsPackets (a process's memory mappings, sent with heap dumps) are
//!   `profiler_smaps` rows.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::decoder::stack_profile::{mapping_name, ProfileInterned};
use crate::events::profiles::{CallstackRef, ProcessDump, ProfilePacketEv, SmapsEv, SmapsRow};
use crate::trackers::Ctx;

/// The Java heap profiler's heap: it reports allocations only.
const ART_HEAP: &str = "com.android.art";

/// ProcessHeapSamples.ClientError CLIENT_ERROR_HIT_TIMEOUT.
const CLIENT_ERROR_HIT_TIMEOUT: i32 = 1;

/// A heap_profile_allocation row.
pub struct AllocationRow {
    pub ts: i64,
    pub upid: u32,
    pub heap_name: String,
    pub callsite: u32,
    pub count: i64,
    pub size: i64,
}

/// A heap_profile row.
pub struct HeapProfileRow {
    pub ts: i64,
    pub ts_end: i64,
    pub upid: u32,
    pub heap_name: Option<String>,
}

/// The rows (`Ctx::heap_profiles`).
#[derive(Default)]
pub struct HeapProfiles {
    pub allocations: Vec<AllocationRow>,
    pub profiles: Vec<HeapProfileRow>,
    /// `profiler_smaps` rows: (upid, ts, row)
    pub smaps: Vec<(u32, i64, SmapsRow)>,
}

/// The replay's state (ProfileModule's and its sequences').
#[derive(Default)]
pub struct HeapProfileTracker {
    /// (upid, dump time, heap): a heap_profile row was made
    seen_profiles: FxHashSet<(u32, i64, Option<String>)>,
    /// ProfilePacketSequenceState per stack profile state
    states: FxHashMap<u32, SequenceState>,
}

/// An allocation of a dump, waiting for the dump's last packet.
struct Pending {
    pid: u64,
    heap_name: String,
    ts: i64,
    callstack_id: u64,
    self_allocated: u64,
    self_freed: u64,
    alloc_count: u64,
    free_count: u64,
}

/// (count, size)
type Counts = (i64, i64);

/// ProfilePacketSequenceState. Its interning maps keep an id's first
/// value until they are cleared (FlatHashMap::Insert).
struct SequenceState {
    prev_index: Option<u64>,
    strings: FxHashMap<u64, String>,
    mappings: FxHashMap<u64, u32>,
    frames: FxHashMap<u64, u32>,
    callstacks: FxHashMap<u64, u32>,
    pending: Vec<Pending>,
    prev_alloc: FxHashMap<(u32, u32), Counts>,
    prev_free: FxHashMap<(u32, u32), Counts>,
    /// (upid, source callstack id, heap) -> the callsites it was seen as
    seen_callstacks: FxHashMap<(u32, u64, String), FxHashSet<u32>>,
    alloc_correction: FxHashMap<u64, Counts>,
    free_correction: FxHashMap<u64, Counts>,
}

/// ProfileModule::ParseSmapsPacket: the process's mappings at `ts`.
pub fn smaps(c: &mut Ctx, ts: i64, s: &SmapsEv) {
    let upid = c.pt.get_or_create_process(s.pid as i64);
    c.heap_profiles
        .smaps
        .extend(s.rows.iter().map(|r| (upid, ts, r.clone())));
    if s.parser_error {
        c.stats.add("smaps_parser_errors", 1, None);
    }
}

impl HeapProfileTracker {
    pub fn packet(
        &mut self,
        c: &mut Ctx,
        ts: i64,
        p: &ProfilePacketEv,
        profiles: &[ProfileInterned],
    ) {
        let mut state = self
            .states
            .remove(&p.stack_state)
            .unwrap_or_else(SequenceState::new);
        state.set_index(c, p.index);
        state.intern(c, p);
        for d in &p.dumps {
            self.dump(c, ts, d, &mut state);
        }
        if !p.continued {
            let callstack = |iid| CallstackRef {
                incremental_state: p.incremental_state,
                stack_state: p.stack_state,
                iid,
            };
            for a in std::mem::take(&mut state.pending) {
                let profile = &profiles[p.incremental_state as usize];
                self.add_allocation(c, &mut state, &a, profile, callstack(a.callstack_id));
            }
            state.strings.clear();
            state.mappings.clear();
            state.frames.clear();
            state.callstacks.clear();
        }
        self.states.insert(p.stack_state, state);
    }

    fn dump(&mut self, c: &mut Ctx, ts: i64, d: &ProcessDump, state: &mut SequenceState) {
        let Some(window_end) = d.timestamp else {
            return;
        };
        let window_start = d.start_timestamp.unwrap_or(window_end);
        let pid = Some(d.pid as i32 as i64);
        c.stats.set("heapprofd_last_profile_timestamp", ts, pid);
        let upid = c.pt.get_or_create_process(d.pid as u32 as i64);
        if self
            .seen_profiles
            .insert((upid, window_end, d.heap_name.clone()))
        {
            c.heap_profiles.profiles.push(HeapProfileRow {
                ts: window_start,
                ts_end: window_end,
                upid,
                heap_name: d.heap_name.clone(),
            });
        }
        let flags = [
            (d.disconnected, "heapprofd_client_disconnected"),
            (d.buffer_corrupted, "heapprofd_buffer_corrupted"),
            (
                d.buffer_overran || d.client_error == CLIENT_ERROR_HIT_TIMEOUT,
                "heapprofd_buffer_overran",
            ),
        ];
        for (set, stat) in flags {
            if set {
                c.stats.add(stat, 1, pid);
            }
        }
        if d.client_error != 0 {
            c.stats
                .set("heapprofd_client_error", d.client_error as i64, pid);
        }
        if d.rejected_concurrent {
            c.stats.add("heapprofd_rejected_concurrent", 1, pid);
        }
        if d.hit_guardrail {
            c.stats.add("heapprofd_hit_guardrail", 1, pid);
        }
        if d.orig_sampling_interval_bytes != 0 {
            let adjusted = (d.sampling_interval_bytes as i64)
                .wrapping_sub(d.orig_sampling_interval_bytes as i64);
            c.stats
                .set("heapprofd_sampling_interval_adjusted", adjusted, pid);
        }
        c.stats
            .add("heapprofd_unwind_time_us", d.unwind_time_us as i64, pid);
        c.stats
            .add("heapprofd_unwind_samples", d.heap_samples as i64, pid);
        c.stats.add(
            "heapprofd_client_spinlock_blocked",
            d.spinlock_blocked_us as i64,
            pid,
        );
        // a fixed producer sends orig_sampling_interval_bytes: only its
        // self_max_count is right
        let trustworthy_max_count = d.orig_sampling_interval_bytes > 0;
        let heap_name = d.heap_name.clone().unwrap_or_else(|| "unknown".to_owned());
        for s in &d.samples {
            let mut a = Pending {
                pid: d.pid,
                heap_name: heap_name.clone(),
                ts: window_end,
                callstack_id: s.callstack_id,
                self_allocated: 0,
                self_freed: 0,
                alloc_count: 0,
                free_count: 0,
            };
            match s.self_max {
                Some(max) => {
                    a.self_allocated = max;
                    if trustworthy_max_count {
                        a.alloc_count = s.self_max_count;
                    }
                }
                None => {
                    a.self_allocated = s.self_allocated;
                    a.self_freed = s.self_freed;
                    a.alloc_count = s.alloc_count;
                    a.free_count = s.free_count;
                }
            }
            state.pending.push(a);
        }
    }

    /// ProfilePacketSequenceState::AddAllocation.
    fn add_allocation(
        &mut self,
        c: &mut Ctx,
        s: &mut SequenceState,
        a: &Pending,
        profile: &ProfileInterned,
        interned: CallstackRef,
    ) {
        let upid = c.pt.get_or_create_process(a.pid as u32 as i64);
        let callsite = match s.callstacks.get(&a.callstack_id) {
            Some(&id) => id,
            None => match c.stack_profile.interned_callstack(
                profile,
                &interned,
                Some(upid),
                &mut c.stats,
            ) {
                Some(id) => id,
                None => return,
            },
        };
        let mut alloc: Counts = (a.alloc_count as i64, a.self_allocated as i64);
        let mut free: Counts = (-(a.free_count as i64), -(a.self_freed as i64));
        let key = (upid, callsite);
        let prev_alloc = *s.prev_alloc.entry(key).or_default();
        let prev_free = *s.prev_free.entry(key).or_default();
        let new_callstack = s
            .seen_callstacks
            .entry((upid, a.callstack_id, a.heap_name.clone()))
            .or_default()
            .insert(callsite);
        if new_callstack {
            s.alloc_correction.insert(a.callstack_id, prev_alloc);
            s.free_correction.insert(a.callstack_id, prev_free);
        }
        let add = |x: &mut Counts, y: Option<&Counts>| {
            if let Some(y) = y {
                x.0 += y.0;
                x.1 += y.1;
            }
        };
        add(&mut alloc, s.alloc_correction.get(&a.callstack_id));
        add(&mut free, s.free_correction.get(&a.callstack_id));
        let alloc_delta = (alloc.0 - prev_alloc.0, alloc.1 - prev_alloc.1);
        let free_delta = (free.0 - prev_free.0, free.1 - prev_free.1);
        if alloc_delta.0 < 0 || alloc_delta.1 < 0 || free_delta.0 > 0 || free_delta.1 > 0 {
            c.stats
                .add("heapprofd_malformed_packet", 1, Some(upid as i64));
            return;
        }
        let mut row = |(count, size): Counts| {
            c.heap_profiles.allocations.push(AllocationRow {
                ts: a.ts,
                upid,
                heap_name: a.heap_name.clone(),
                callsite,
                count,
                size,
            })
        };
        // (a dump at max has no count)
        if alloc_delta != (0, 0) {
            row(alloc_delta);
        }
        if a.heap_name != ART_HEAP && free_delta != (0, 0) {
            row(free_delta);
        }
        s.prev_alloc.insert(key, alloc);
        s.prev_free.insert(key, free);
    }
}

impl SequenceState {
    /// A new state: string 0 is the empty string (until the first clear).
    fn new() -> Self {
        SequenceState {
            prev_index: None,
            strings: FxHashMap::from_iter([(0, String::new())]),
            mappings: FxHashMap::default(),
            frames: FxHashMap::default(),
            callstacks: FxHashMap::default(),
            pending: Vec::new(),
            prev_alloc: FxHashMap::default(),
            prev_free: FxHashMap::default(),
            seen_callstacks: FxHashMap::default(),
            alloc_correction: FxHashMap::default(),
            free_correction: FxHashMap::default(),
        }
    }

    /// SetProfilePacketIndex: a gap in the packets' indices is a missing
    /// packet (heapprofd counts from 0).
    fn set_index(&mut self, c: &mut Ctx, index: u64) {
        let dropped = match self.prev_index {
            None => index != 0,
            Some(prev) => prev.wrapping_add(1) != index,
        };
        if dropped {
            c.stats.add("heapprofd_missing_packet", 1, None);
        }
        self.prev_index = Some(index);
    }

    /// The packet's strings, mappings, frames and callstacks, in that order.
    fn intern(&mut self, c: &mut Ctx, p: &ProfilePacketEv) {
        for (iid, s) in &p.strings {
            self.strings.entry(*iid).or_insert_with(|| s.clone());
        }
        const INVALID_STRING: &str = "stackprofile_invalid_string_id";
        for (iid, m) in &p.mappings {
            let Some(build_id) = self.strings.get(&m.build_id) else {
                c.stats.add(INVALID_STRING, 1, None);
                continue;
            };
            // (a path that does not resolve ends the name, not the mapping)
            let parts: Vec<&str> = m
                .path_string_ids
                .iter()
                .map_while(|id| self.strings.get(id).map(String::as_str))
                .collect();
            if parts.len() < m.path_string_ids.len() {
                c.stats.add(INVALID_STRING, 1, None);
            }
            let name = mapping_name(parts.into_iter());
            let desc = m.desc(*iid, Some(build_id.as_bytes().to_vec()), name, Vec::new());
            let id = c.stack_profile.memory_mapping(&desc);
            self.mappings.entry(*iid).or_insert(id);
        }
        for &(iid, name_id, mapping_id, rel_pc) in &p.frames {
            let Some(&mapping) = self.mappings.get(&mapping_id) else {
                c.stats.add("stackprofile_invalid_mapping_id", 1, None);
                continue;
            };
            let Some(name) = self.strings.get(&name_id) else {
                c.stats.add(INVALID_STRING, 1, None);
                continue;
            };
            let frame = c.stack_profile.mapping_frame(mapping, rel_pc, name);
            self.frames.entry(iid).or_insert(frame);
        }
        'callstacks: for (iid, frames) in &p.callstacks {
            let mut parent = None;
            for (depth, f) in frames.iter().enumerate() {
                let Some(&frame) = self.frames.get(f) else {
                    c.stats.add("stackprofile_invalid_frame_id", 1, None);
                    continue 'callstacks;
                };
                parent = Some(c.stack_profile.callsite(parent, frame, depth as u32));
            }
            match parent {
                Some(id) => {
                    self.callstacks.entry(*iid).or_insert(id);
                }
                None => c.stats.add("stackprofile_empty_callstack", 1, None),
            }
        }
    }
}
