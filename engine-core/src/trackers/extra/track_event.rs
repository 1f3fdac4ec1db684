//! Track events in timestamp order, as trace_processor's TrackEventTracker,
//! TrackEventParser and TrackEventEventImporter import them (v58.2:
//! importers/proto/track_event_tracker.cc, track_event_parser.cc,
//! track_event_event_importer.h; importers/common/flow_tracker.cc):
//!
//! - descriptor tracks (reserved at decode time, `decoder::track_event`)
//!   resolve to a thread, a process or the trace (global) when an event or
//!   a descriptor first needs them: a thread's or process's first track
//!   with a pid / tid, a track nested under such a track, else global; a
//!   second uuid for the same thread or process means its tid / pid was
//!   reused;
//! - a resolved track becomes a table track when first used: a thread's
//!   root track is its thread track (the one atrace slices use); counters,
//!   tracks that opt out of merging and process roots get a track per uuid
//!   (`*_track_event`, dimension track_uuid); other tracks merge with their
//!   siblings of the same name (or merge key) into a set of lanes
//!   (`*_merged_track_event`, dimensions parent_track_uuid / merge_key_type
//!   / merge_key_value / track_compressor_idx), a lane per concurrently
//!   open uuid;
//! - slices (TYPE_SLICE_BEGIN / END / INSTANT, legacy phases B / E / X / I
//!   / i / R, legacy async b / e / n / S / T / p / F on tracks by event id),
//!   counters (TYPE_COUNTER, extra counter values, thread time and
//!   instruction counts), states (TYPE_STATE on state tracks), flows
//!   (flow_ids, terminating_flow_ids, legacy bind ids) and the thread /
//!   process names of descriptors and `M` events.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::borrow::Cow;
use std::sync::Arc;

use crate::decoder::stack_profile::{CallstackDesc, ProfileInterned};
use crate::decoder::track_event::{
    chrome_process_name, chrome_thread_name, is_synthetic_tid, synthetic_tid, EventParser,
    MergeBehavior, Reservation, Reservations, TrackEventData, DEFAULT_TRACK_UUID,
    SOURCE_LOCATION_IID,
};
use crate::events::track_event::{
    ChromeProcess, DescriptorData, ProcessDesc, ProfileSample, ThreadDesc, TrackEventPacket,
    SUPPORTED_LEGACY_PHASES,
};
use crate::trackers::core::compressor::{lane_dims, Nesting, TrackCompressor};
use crate::trackers::core::process::{
    PNAME_CHROME_LABEL, PNAME_CHROME_LABEL_RENDERER, PNAME_TRACK_DESCRIPTOR, PRIO_TRACK_DESCRIPTOR,
};
use crate::trackers::core::slices::ThreadTimes;
use crate::trackers::core::tracks::{ArgVal, Dim, Dims, Owner};
use crate::trackers::extra::stack_profile::{SampleRow, SampleSource, TrackEventCallstackRow};
use crate::trackers::Ctx;

/// ThreadNamePriority::kTrackDescriptorThreadType (an `M` thread_name event).
const PRIO_TRACK_DESCRIPTOR_THREAD_TYPE: u8 = 3;
/// Legacy async phases: slices on tracks by event id.
const ASYNC_PHASES: [u8; 7] = [b'b', b'e', b'n', b'S', b'T', b'p', b'F'];
/// A track's ancestors are at most this many (IsTrackHierarchyValid).
const MAX_ANCESTORS: usize = 100;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Thread(u32),
    Process(u32),
    Global,
}

#[derive(Clone, Copy)]
struct Resolved {
    scope: Scope,
    is_counter: bool,
    is_root: bool,
}

/// A merged track set: its lanes' type, dimensions and what each new lane
/// track gets (TrackCompressor::TrackFactory).
#[derive(Clone)]
struct Factory {
    type_: &'static str,
    dims: Dims,
    name: Option<String>,
    owner: Owner,
    uuid: u64,
    seq: Option<u32>,
    root_args: bool,
    parent: Option<u32>,
}

#[derive(Clone)]
enum TrackRef {
    Track(u32),
    Merged(Factory),
}

struct State {
    r: Reservation,
    resolved: Option<Resolved>,
    track: Option<TrackRef>,
}

/// The replay's track event state.
pub struct TrackEventTracker {
    states: HashMap<u64, State>,
    /// uuid -> the trusted_pid of the packet that described it
    trusted_pids: HashMap<u64, i64>,
    uuid_by_utid: HashMap<u32, u64>,
    uuid_by_upid: HashMap<u32, u64>,
    first_packet_seqs: HashSet<u32>,
    lanes: TrackCompressor,
    /// active flow id -> the slice it last reached
    flows: HashMap<u64, u32>,
    /// each sequence incremental state's thread descriptor (pid, tid)
    threads: Vec<Option<(i64, i64)>>,
    /// and its interned profiling data
    profiles: Vec<ProfileInterned>,
    /// parses the tokenized events
    parser: EventParser,
    /// legacy flow v1: (id, category, name) -> a flow id of its own, and
    /// back (GetFlowIdForV1Event)
    v1_ids: HashMap<(u64, CategoryName), u64>,
    v1_keys: HashMap<u64, CategoryName>,
    /// legacy async tracks: (upid if process-scoped, id) -> the name of
    /// the first event with that id (the track set's `name` dimension)
    async_roots: HashMap<(Option<u32>, i64), Option<String>>,
}

/// A legacy flow v1's (category, name).
type CategoryName = (Option<Arc<str>>, Option<Arc<str>>);

/// What one event is associated with (ParseInitialTrackAssociation).
struct Assoc {
    track_uuid: u64,
    utid: Option<u32>,
    upid: Option<u32>,
    passthrough_utid: Option<u32>,
    fallback_to_thread: bool,
}

impl TrackEventTracker {
    pub fn new(
        reservations: Reservations,
        first_packet_seqs: HashSet<u32>,
        threads: Vec<Option<(i64, i64)>>,
        profiles: Vec<ProfileInterned>,
        parser: EventParser,
    ) -> (Self, Vec<(&'static str, &'static str, u64)>) {
        let states = reservations
            .by_uuid
            .into_iter()
            .map(|(uuid, r)| {
                (
                    uuid,
                    State {
                        r,
                        resolved: None,
                        track: None,
                    },
                )
            })
            .collect();
        let t = TrackEventTracker {
            states,
            trusted_pids: reservations.trusted_pids,
            uuid_by_utid: HashMap::default(),
            uuid_by_upid: HashMap::default(),
            first_packet_seqs,
            lanes: TrackCompressor::default(),
            flows: HashMap::default(),
            async_roots: HashMap::default(),
            threads,
            profiles,
            parser,
            v1_ids: HashMap::default(),
            v1_keys: HashMap::default(),
        };
        (t, reservations.errors)
    }

    /// The stats of the events' parsing, at the end of the replay.
    pub fn count_parse_stats(&self, c: &mut Ctx) {
        let p = &self.parser;
        if p.skipped_fields > 0 {
            let stat = format!(
                "{}track_event_fields",
                crate::decoder::proto::SKIPPED_STAT_PREFIX
            );
            c.stats.add(&stat, p.skipped_fields, None);
        }
    }

    /// One packet of the track event family at `ts`.
    pub fn packet(&mut self, c: &mut Ctx, ts: i64, p: &TrackEventPacket) {
        if let TrackEventPacket::ProfileSample(s) = p {
            // (not a track event: its own sorter stream in trace_processor)
            return self.profile_sample(c, ts, s);
        }
        self.close_pending_flows(c);
        match p {
            TrackEventPacket::Descriptor(d) => self.descriptor(c, d),
            TrackEventPacket::ThreadDescriptor(t) => {
                thread_descriptor(c, t);
            }
            TrackEventPacket::ProcessDescriptor(pd) => {
                process_descriptor(c, pd);
            }
            TrackEventPacket::Event(t) => {
                // (its bytes parsed when it was tokenized: parsing succeeds)
                let parsed = self.parser.parse(t);
                if parsed.map_or(true, |mut e| self.event(c, ts, &mut e).is_err()) {
                    c.stats.add("track_event_parser_errors", 1, None);
                }
            }
            TrackEventPacket::ProfileSample(_) => {}
        }
    }

    /// Each incremental state's interned profiling data (perf samples
    /// resolve their callstacks in it too).
    pub fn profiles(&self) -> &[ProfileInterned] {
        &self.profiles
    }

    /// ProfileModule::ParseStreamingProfileSample: a cpu_profile_stack_sample
    /// row on the sequence's thread, else a parser log.
    fn profile_sample(&self, c: &mut Ctx, ts: i64, s: &ProfileSample) {
        let state = s.callstack.incremental_state as usize;
        let (pid, tid) = self.threads.get(state).copied().flatten().unwrap_or((0, 0));
        let (pid, tid) = (pid as u32 as i64, tid as u32 as i64);
        let utid = c.pt.update_thread(tid, pid);
        let upid = c.pt.get_or_create_process(pid);
        let profile = &self.profiles[state];
        match c
            .stack_profile
            .interned_callstack(profile, &s.callstack, Some(upid), &mut c.stats)
        {
            Some(callsite) => c.stack_profile.samples.push(SampleRow {
                ts,
                callsite: Some(callsite),
                utid,
                source: SampleSource::Chrome {
                    process_priority: s.process_priority,
                },
            }),
            None => {
                let iid = Some(ArgVal::Uint(s.callstack.iid));
                let args = vec![("callstack_iid", iid)];
                crate::trackers::core::import_logs::ImportLog::record(
                    c,
                    ts,
                    "stackprofile_parser_error",
                    args,
                );
            }
        }
    }

    /// TrackEventParser::ParseTrackDescriptor.
    fn descriptor(&mut self, c: &mut Ctx, d: &DescriptorData) {
        if self.resolve(c, d.uuid).is_none() {
            c.stats.add("track_event_parser_errors", 1, None);
            return;
        }
        if let Some(t) = &d.thread {
            thread_descriptor(c, t);
        } else if let Some(p) = &d.process {
            process_descriptor(c, p);
        }
    }

    fn track_error(c: &mut Ctx, stat: &'static str, uuid: u64) {
        let args = vec![("track_uuid", Some(ArgVal::Uint(uuid)))];
        crate::trackers::core::import_logs::ImportLog::record_analysis(c, stat, args);
    }

    /// IsTrackHierarchyValid: the ancestors are reserved, without a loop,
    /// fewer than MAX_ANCESTORS.
    fn hierarchy_valid(&self, c: &mut Ctx, uuid: u64) -> bool {
        let mut seen: Vec<u64> = Vec::new();
        let mut current = uuid;
        for _ in 0..MAX_ANCESTORS {
            if current == 0 {
                return true;
            }
            if seen.contains(&current) {
                Self::track_error(c, "track_event_track_hierarchy_loop", uuid);
                return false;
            }
            let Some(s) = self.states.get(&current) else {
                Self::track_error(c, "track_hierarchy_missing_uuid", uuid);
                return false;
            };
            seen.push(current);
            current = s.r.parent_uuid;
        }
        Self::track_error(c, "track_event_track_hierarchy_too_deep", uuid);
        false
    }

    /// ResolveDescriptorTrack (cached once it resolves).
    fn resolve(&mut self, c: &mut Ctx, uuid: u64) -> Option<Resolved> {
        if let Some(r) = self.states.get(&uuid).and_then(|s| s.resolved) {
            return Some(r);
        }
        // an unreserved uuid gets a plain reservation (no parent: it is
        // valid), uuid 0 the default track's name
        self.states.entry(uuid).or_insert_with(|| State {
            r: Reservation {
                name: (uuid == DEFAULT_TRACK_UUID).then(|| "Default Track".to_owned()),
                ..Default::default()
            },
            resolved: None,
            track: None,
        });
        if !self.hierarchy_valid(c, uuid) {
            return None;
        }
        let mut r = self.states[&uuid].r.clone();
        if let Some(&root_pid) = self.trusted_pids.get(&uuid) {
            // ids seen inside a pid namespace: the root-level ones
            // (ResolveNamespacedTid), where the process tree gave them
            if let Some(pid) = r.pid.and_then(|p| c.pt.resolve_namespaced_tid(root_pid, p)) {
                r.pid = Some(pid);
            }
            if let Some(tid) = r.tid.and_then(|t| c.pt.resolve_namespaced_tid(root_pid, t)) {
                r.tid = Some(tid);
                r.use_synthetic_tid = false;
            }
        }
        if let (true, Some(tid), Some(pid)) = (r.use_synthetic_tid, r.tid, r.pid) {
            r.tid = Some(synthetic_tid(tid, pid));
        }
        let parent = if r.parent_uuid != DEFAULT_TRACK_UUID {
            self.resolve(c, r.parent_uuid)
        } else {
            None
        };
        let resolved = if let Some(tid) = r.tid {
            let pid = r.pid.unwrap_or(0);
            let mut utid = c.pt.update_thread(tid, pid);
            if let Some(old) = self.uuid_by_utid.insert(utid, uuid) {
                if old != uuid {
                    // another uuid for this thread: its tid was reused. (The
                    // old thread's entry now names this uuid; the new
                    // thread has none, as in trace_processor: the next uuid
                    // for it does not start a third)
                    c.pt.start_new_thread(None, tid);
                    utid = c.pt.update_thread(tid, pid);
                }
            }
            if let (true, Some(rank)) = (self.ordering_explicit(false), r.sibling_order_rank) {
                c.pt.t_sort_index.insert(utid, rank);
            }
            Resolved {
                scope: Scope::Thread(utid),
                is_counter: r.is_counter,
                is_root: true,
            }
        } else if let Some(pid) = r.pid {
            let mut upid = c.pt.get_or_create_process(pid);
            if let Some(old) = self.uuid_by_upid.insert(upid, uuid) {
                if old != uuid {
                    // another uuid for this process: its pid was reused (the
                    // entries as for threads)
                    upid =
                        c.pt.start_new_process(None, None, pid, &None, PRIO_TRACK_DESCRIPTOR);
                }
            }
            if let (true, Some(rank)) = (self.ordering_explicit(true), r.sibling_order_rank) {
                c.pt.p_sort_index.insert(upid, rank);
            }
            Resolved {
                scope: Scope::Process(upid),
                is_counter: r.is_counter,
                is_root: true,
            }
        } else {
            let scope = match parent.map(|p| p.scope) {
                Some(s @ (Scope::Thread(_) | Scope::Process(_))) => s,
                _ => Scope::Global,
            };
            Resolved {
                scope,
                is_counter: r.is_counter,
                is_root: false,
            }
        };
        if let Some(s) = self.states.get_mut(&uuid) {
            s.resolved = Some(resolved);
        }
        Some(resolved)
    }

    /// Whether the root descriptor orders processes (else threads)
    /// explicitly.
    fn ordering_explicit(&self, processes: bool) -> bool {
        self.states.get(&DEFAULT_TRACK_UUID).is_some_and(|s| {
            if processes {
                s.r.process_ordering_explicit
            } else {
                s.r.thread_ordering_explicit
            }
        })
    }

    /// A descriptor track's source args (AddTrackArgs).
    fn track_args(
        &self,
        uuid: u64,
        seq: Option<u32>,
        root: bool,
    ) -> Vec<(&'static str, Option<ArgVal>)> {
        let r = &self.states[&uuid].r;
        let mut a: Vec<(&'static str, Option<ArgVal>)> = vec![
            ("source", Some(ArgVal::Str("descriptor".into()))),
            ("trace_id", Some(ArgVal::Int(uuid as i64 as i128))),
            ("is_root_in_scope", Some(ArgVal::Bool(root))),
        ];
        if let Some(cd) = &r.counter {
            if let Some(cat) = &cd.category {
                a.push(("category", Some(ArgVal::Str(cat.clone()))));
            }
            if let Some(b) = cd.builtin_type {
                a.push(("builtin_counter_type", Some(ArgVal::Str(b.into()))));
            }
            if let Some(k) = &cd.y_axis_share_key {
                a.push(("y_axis_share_key", Some(ArgVal::Str(k.clone()))));
            }
        }
        if seq.is_some_and(|s| self.first_packet_seqs.contains(&s)) {
            a.push(("has_first_packet_on_sequence", Some(ArgVal::Bool(true))));
        }
        let ordering = match r.ordering {
            1 => Some("lexicographic"),
            2 => Some("chronological"),
            3 => Some("explicit"),
            _ => None,
        };
        if let Some(o) = ordering {
            a.push(("child_ordering", Some(ArgVal::Str(o.into()))));
        }
        if let Some(rank) = r.sibling_order_rank {
            a.push(("sibling_order_rank", Some(ArgVal::Int(rank as i128))));
        }
        if let Some(d) = &r.description {
            a.push(("description", Some(ArgVal::Str(d.clone()))));
        }
        a
    }

    /// Interns a track of a `*_track_event` blueprint with its source args.
    #[allow(clippy::too_many_arguments)]
    fn new_track(
        &self,
        c: &mut Ctx,
        type_: &'static str,
        event_type: &'static str,
        dims: Dims,
        owner: Owner,
        name: Option<&str>,
        unit: Option<&str>,
        args: (u64, Option<u32>, bool),
    ) -> u32 {
        let before = c.tracks.rows.len();
        let id = c
            .tracks
            .intern(&mut c.args, type_, name, event_type, dims, owner, 0);
        if id as usize == before {
            let items = self.track_args(args.0, args.1, args.2);
            let description = self.states[&args.0].r.description.clone();
            let set = c.args.add_set(&items);
            let row = &mut c.tracks.rows[id as usize];
            row.source_arg_set_id = Some(set);
            row.description = description;
            if let Some(u) = unit {
                row.unit = Some(Cow::Owned(u.to_owned()));
            }
        }
        id
    }

    /// InternDescriptorTrackImpl: the track (or merged set) of `uuid`.
    fn intern(
        &mut self,
        c: &mut Ctx,
        uuid: u64,
        event_name: Option<&str>,
        seq: Option<u32>,
    ) -> Option<TrackRef> {
        if let Some(t) = self.states.get(&uuid).and_then(|s| s.track.clone()) {
            return Some(t);
        }
        let resolved = self.resolve(c, uuid)?;
        let r = self.states[&uuid].r.clone();
        let (mut parent_track, mut parent_resolved) = (None, None);
        if r.parent_uuid != DEFAULT_TRACK_UUID {
            parent_track = self.track_for_parent(c, r.parent_uuid, seq);
            parent_resolved = self.resolve(c, r.parent_uuid);
        }
        let unit = r.counter.as_ref().and_then(|cd| cd.unit.clone());
        let track = if resolved.is_root {
            match resolved.scope {
                Scope::Thread(utid) => {
                    let owner = Owner {
                        utid: Some(utid),
                        ..Default::default()
                    };
                    let dims = thread_dims(utid, uuid);
                    if resolved.is_counter {
                        TrackRef::Track(self.new_track(
                            c,
                            "thread_counter_track_event",
                            "counter",
                            dims,
                            owner,
                            r.name.as_deref(),
                            unit.as_deref(),
                            (uuid, seq, true),
                        ))
                    } else if r.use_separate_track {
                        let (type_, event_type) = slice_or_state("thread", r.is_state);
                        TrackRef::Track(self.new_track(
                            c,
                            type_,
                            event_type,
                            dims,
                            owner,
                            r.name.as_deref(),
                            None,
                            (uuid, seq, true),
                        ))
                    } else {
                        TrackRef::Track(crate::trackers::core::atrace::thread_track(c, utid))
                    }
                }
                Scope::Process(upid) => {
                    let owner = Owner {
                        upid: Some(upid),
                        ..Default::default()
                    };
                    let (type_, event_type) = if resolved.is_counter {
                        ("process_counter_track_event", "counter")
                    } else {
                        slice_or_state("process", r.is_state)
                    };
                    TrackRef::Track(self.new_track(
                        c,
                        type_,
                        event_type,
                        process_dims(upid, uuid),
                        owner,
                        r.name.as_deref(),
                        unit.as_deref(),
                        (uuid, seq, true),
                    ))
                }
                Scope::Global => unreachable!("a root track has a thread or a process"),
            }
        } else {
            let name = r.name.clone().or_else(|| event_name.map(str::to_owned));
            let merge = r.merge == MergeBehavior::None || r.is_state;
            let merge_key = |name: &Option<String>| -> (u64, Dim) {
                let (kind, key) = match r.merge {
                    MergeBehavior::ByKey => (2u64, r.merge_key.clone()),
                    _ => (0u64, name.clone()),
                };
                (kind, key.map_or(Dim::NullStr, Dim::Str))
            };
            // nested in a thread's / process's track (the parent link kept
            // only below a non-root parent), else global (the link kept)
            let scoped = match parent_resolved.map(|p| (p.scope, p.is_root)) {
                Some((Scope::Thread(utid), root)) if parent_track.is_some() => {
                    Some((("utid", utid), "thread", root))
                }
                Some((Scope::Process(upid), root)) if parent_track.is_some() => {
                    Some((("upid", upid), "process", root))
                }
                _ => None,
            };
            let (scope_dims, owner, kind, parent_id, root_args) = match scoped {
                Some(((dim, id), kind, parent_is_root)) => {
                    let owner = Owner {
                        utid: (kind == "thread").then_some(id),
                        upid: (kind == "process").then_some(id),
                        ..Default::default()
                    };
                    let parent_id = if parent_is_root { None } else { parent_track };
                    (
                        vec![(dim, Dim::Int(id as i64))],
                        owner,
                        kind,
                        parent_id,
                        false,
                    )
                }
                None => (
                    vec![],
                    Owner::default(),
                    "global",
                    parent_track,
                    uuid == DEFAULT_TRACK_UUID,
                ),
            };
            if r.is_counter || merge {
                let (type_, event_type, nm) = if r.is_counter {
                    (counter_type(kind), "counter", r.name.clone())
                } else {
                    let (type_, event_type) = slice_or_state(kind, r.is_state);
                    (type_, event_type, name.clone())
                };
                let mut own_dims = scope_dims;
                own_dims.push(("track_uuid", Dim::Int(uuid as i64)));
                let unit = unit.as_deref().filter(|_| r.is_counter);
                let t = self.new_track(
                    c,
                    type_,
                    event_type,
                    own_dims,
                    owner,
                    nm.as_deref(),
                    unit,
                    (uuid, seq, root_args),
                );
                if parent_id.is_some() {
                    c.tracks.rows[t as usize].parent = parent_id;
                }
                TrackRef::Track(t)
            } else {
                let (merge_type, merge_value) = merge_key(&name);
                let mut dims = scope_dims;
                dims.extend([
                    ("parent_track_uuid", Dim::Int(r.parent_uuid as i64)),
                    ("merge_key_type", Dim::Int(merge_type as i64)),
                    ("merge_key_value", merge_value),
                ]);
                TrackRef::Merged(Factory {
                    type_: merged_type(kind),
                    dims,
                    name,
                    owner,
                    uuid,
                    seq,
                    root_args,
                    parent: parent_id,
                })
            }
        };
        if let Some(s) = self.states.get_mut(&uuid) {
            s.track = Some(track.clone());
        }
        Some(track)
    }

    /// The track of lane `idx` of a merged set, made when first used.
    fn lane_track(&self, c: &mut Ctx, f: &Factory, idx: u32) -> u32 {
        let dims = lane_dims(f.dims.clone(), idx);
        let t = self.new_track(
            c,
            f.type_,
            "slice",
            dims,
            f.owner,
            f.name.as_deref(),
            None,
            (f.uuid, f.seq, f.root_args),
        );
        if f.parent.is_some() {
            c.tracks.rows[t as usize].parent = f.parent;
        }
        t
    }

    /// InternDescriptorTrackForParent: a merged set's first lane.
    fn track_for_parent(&mut self, c: &mut Ctx, uuid: u64, seq: Option<u32>) -> Option<u32> {
        match self.intern(c, uuid, None, seq)? {
            TrackRef::Track(t) => Some(t),
            TrackRef::Merged(f) => {
                let idx = self.lanes.default_lane(f.type_, &f.dims);
                Some(self.lane_track(c, &f, idx))
            }
        }
    }

    /// The track a begin / end / instant on `uuid` goes to.
    fn slice_track(
        &mut self,
        c: &mut Ctx,
        uuid: u64,
        name: Option<&str>,
        seq: Option<u32>,
        kind: u8,
    ) -> Option<u32> {
        match self.intern(c, uuid, name, seq)? {
            TrackRef::Track(t) => Some(t),
            TrackRef::Merged(f) => {
                let cookie = uuid as i64 as i128;
                let idx = match kind {
                    b'B' => self
                        .lanes
                        .begin(f.type_, &f.dims, cookie, Nesting::Nestable),
                    b'E' => self.lanes.end(f.type_, &f.dims, cookie),
                    _ => {
                        self.lanes
                            .begin(f.type_, &f.dims, cookie, Nesting::Nestable);
                        self.lanes.end(f.type_, &f.dims, cookie)
                    }
                };
                Some(self.lane_track(c, &f, idx))
            }
        }
    }

    /// InternDescriptorTrackCounter / InternDescriptorTrackLegacy: a track
    /// that is not a merged set.
    fn plain_track(&mut self, c: &mut Ctx, uuid: u64, seq: Option<u32>) -> Option<u32> {
        self.legacy_track(c, uuid, None, seq)
    }

    /// InternDescriptorTrackLegacy: the track of a complete or flow v1
    /// event, named after the event if its descriptor gives no name (None
    /// for a merged track).
    fn legacy_track(
        &mut self,
        c: &mut Ctx,
        uuid: u64,
        event_name: Option<&str>,
        seq: Option<u32>,
    ) -> Option<u32> {
        match self.intern(c, uuid, event_name, seq)? {
            TrackRef::Track(t) => Some(t),
            TrackRef::Merged(_) => None,
        }
    }

    /// ParseInitialTrackAssociation.
    fn associate(&mut self, c: &mut Ctx, e: &TrackEventData) -> Result<Assoc, ()> {
        // the thread descriptor its incremental state ended up with
        let thread = self
            .threads
            .get(e.incremental_state as usize)
            .copied()
            .flatten();
        let track_uuid = e.track_uuid.or(e.default_track_uuid).unwrap_or(0);
        let mut a = Assoc {
            track_uuid,
            utid: None,
            upid: None,
            passthrough_utid: None,
            fallback_to_thread: false,
        };
        if track_uuid != 0 {
            let resolved = self.resolve(c, track_uuid).ok_or(())?;
            match resolved.scope {
                Scope::Thread(utid) => {
                    a.utid = Some(utid);
                    a.upid = c.pt.t_upid[utid as usize];
                }
                Scope::Process(upid) => {
                    a.upid = Some(upid);
                    if let Some((pid, tid)) = thread {
                        let candidate = c.pt.update_thread(tid, pid);
                        if c.pt.t_upid[candidate as usize] == Some(upid) {
                            a.passthrough_utid = Some(candidate);
                        }
                    }
                }
                Scope::Global => {
                    if let Some((pid, tid)) = thread {
                        a.passthrough_utid = Some(c.pt.update_thread(tid, pid));
                    }
                }
            }
        } else {
            let legacy = e.legacy.as_ref();
            let thread_valid = thread.is_some();
            a.fallback_to_thread = (e.track_uuid.is_none() || e.type_.is_none()) && thread_valid;
            a.fallback_to_thread |= legacy.is_some_and(|l| l.pid_override.is_some());
            a.fallback_to_thread |=
                legacy.is_some_and(|l| l.tid_override.is_some()) && thread_valid;
            if a.fallback_to_thread {
                let (mut pid, mut tid) = thread.unwrap_or((0, 0));
                if let Some(p) = legacy.and_then(|l| l.pid_override) {
                    // a tid of its own for the overridden process
                    pid = p;
                    tid = synthetic_tid(-1, p);
                }
                if let Some(t) = legacy.and_then(|l| l.tid_override) {
                    let sequence_tid = thread.map_or(0, |t| t.1);
                    tid = if is_synthetic_tid(sequence_tid) {
                        synthetic_tid(t, pid)
                    } else {
                        t
                    };
                }
                if pid == 0 || tid == 0 {
                    return Err(());
                }
                let utid = c.pt.update_thread(tid, pid);
                a.utid = Some(utid);
                a.upid = c.pt.t_upid[utid as usize];
            }
        }
        if let Some(l) = &e.legacy {
            if l.phase.is_some_and(|p| ASYNC_PHASES.contains(&p)) {
                a.passthrough_utid = a.utid;
            }
            if matches!(l.phase, Some(b'i' | b'I')) {
                match l.instant_scope {
                    1 => {
                        a.passthrough_utid = a.utid;
                        a.utid = None;
                    }
                    2 => {
                        a.upid.ok_or(())?;
                        a.passthrough_utid = a.utid;
                        a.utid = None;
                    }
                    _ => {
                        a.utid.ok_or(())?;
                    }
                }
            }
        }
        Ok(a)
    }

    /// The track a counter or state event's legacy phase implies, whatever
    /// its descriptor track (ParseTrackAssociationInternal): an async
    /// phase's async track (an error without an id), a global or
    /// process-scoped instant's track; None for any other phase.
    fn legacy_phase_track(
        &mut self,
        c: &mut Ctx,
        e: &TrackEventData,
        a: &Assoc,
        legacy_async: Option<Result<(i64, bool), ()>>,
    ) -> Option<Result<u32, ()>> {
        let phase = e.legacy.as_ref().and_then(|l| l.phase)?;
        if let Some(source) = legacy_async {
            return Some(source.map(|(source_id, process_scoped)| {
                self.legacy_async_track(c, e, a.upid, source_id, process_scoped, phase)
            }));
        }
        match (phase, e.legacy.as_ref().map_or(0, |l| l.instant_scope)) {
            (b'i' | b'I', 1) => Some(Ok(legacy_instant_track(
                c,
                "legacy_chrome_global_instants",
                None,
            ))),
            (b'i' | b'I', 2) => Some(Ok(legacy_instant_track(
                c,
                "chrome_process_instant",
                a.upid,
            ))),
            _ => None,
        }
    }

    /// TrackEventEventImporter::Import; Err: a parser error.
    fn event(&mut self, c: &mut Ctx, ts: i64, e: &mut TrackEventData) -> Result<(), ()> {
        let phase = e.legacy.as_ref().and_then(|l| l.phase);
        if e.type_.unwrap_or(0) == 0 && phase.is_none() {
            return Err(());
        }
        let lookup_errors = e.name_lookup_errors();
        if lookup_errors > 0 {
            c.stats
                .add("interned_data_tokenizer_errors", lookup_errors, None);
        }
        let a = self.associate(c, e)?;
        let seq = (a.track_uuid != 0).then_some(e.seq_id);
        let mut thread_ts = e.thread_ts();
        let mut thread_instructions = e.thread_instruction_count();
        if let Some(utid) = a.utid {
            // legacy thread time / instruction counts: counters per thread
            if let Some(t) = thread_ts {
                let track = thread_counter(c, "thread_time", "thread_time", utid);
                c.counters.push(ts, track, t as f64, None);
            }
            if let Some(n) = thread_instructions {
                let track =
                    thread_counter(c, "thread_instructions", "thread_instruction_count", utid);
                c.counters.push(ts, track, n as f64, None);
            }
        }
        for &(uuid, v) in e.extra_counters() {
            let Some(track) = self.plain_track(c, uuid, Some(e.seq_id)) else {
                continue;
            };
            c.counters.push(ts, track, v, None);
            match c.tracks.rows[track as usize].name.as_deref() {
                Some("thread_time") => thread_ts = Some(v as i64),
                Some("thread_instruction_count") => thread_instructions = Some(v as i64),
                _ => {}
            }
        }
        // (an async event without an id fails when its track is made, after
        // its descriptor track is interned, as ParseTrackAssociationForLegacy)
        let legacy_async = match e.legacy.as_ref() {
            Some(l) if l.phase.is_some_and(|p| ASYNC_PHASES.contains(&p)) => {
                Some(legacy_async_source(l, a.upid))
            }
            _ => None,
        };
        let mut args = e.args.clone();
        if let Some(Ok((source_id, _))) = legacy_async {
            // (before the debug annotations, as ParseTrackEventArgs adds it)
            let at = args
                .iter()
                .position(|(k, _)| k.starts_with("debug.") || &**k == SOURCE_LOCATION_IID)
                .unwrap_or(args.len());
            let arg = (
                "legacy_trace_source_id".into(),
                ArgVal::Int(source_id as i128),
            );
            args.insert(at, arg);
        }
        if let Some(u) = a.passthrough_utid {
            if !args
                .iter()
                .any(|(k, _)| &**k == "legacy_event.passthrough_utid")
            {
                args.push((
                    "legacy_event.passthrough_utid".into(),
                    ArgVal::Uint(u as u64),
                ));
            }
        }
        // a log message (ParseLogMessage, with the event's args): an
        // android_logs row by the event's thread, made with the args (when
        // a row is made for the event); without a thread, an error and none
        // of its args
        if e.has_log_message() && phase != Some(b'M') {
            // ParseLogMessage's errors count with the args' (when a row is
            // made for the event): without a thread, one error before any
            // lookup and none of its args
            let (parser, lookups) = match a.utid {
                Some(utid) => {
                    e.set_log_row(ts, utid);
                    e.log_errors()
                }
                None => {
                    args.retain(|(k, _)| {
                        !k.starts_with("track_event.log_message.") && &**k != "track_event.priority"
                    });
                    (1, 0)
                }
            };
            e.add_arg_errors(parser, lookups);
        }
        // a raw legacy phase (when the type does not decide: counters and
        // states do) goes to Chrome's raw table, on the event's thread
        // (ParseLegacyEventAsRawEvent): that table is not served (the
        // parser counted the event), its args are
        let typed = matches!(e.type_, Some(4) | Some(5));
        if !typed && phase.is_some_and(|p| !SUPPORTED_LEGACY_PHASES.contains(&p)) {
            a.utid.ok_or(())?;
            let times = (thread_ts, thread_instructions);
            raw_legacy_event(c, &self.profiles, e, a.upid, times, &args);
            return Ok(());
        }
        let name = e.name.as_deref();
        match e.type_ {
            Some(4) => {
                let descriptor = if a.track_uuid == 0 && a.fallback_to_thread {
                    None
                } else {
                    Some(self.plain_track(c, a.track_uuid, seq))
                };
                let track = match self.legacy_phase_track(c, e, &a, legacy_async) {
                    Some(track) => track?,
                    None => match descriptor {
                        None => crate::trackers::core::atrace::thread_track(c, a.utid.ok_or(())?),
                        Some(t) => t.ok_or(())?,
                    },
                };
                let set = arg_set(c, &args);
                c.counters.push(ts, track, e.counter_value, set);
                args_parsed(c, &self.profiles, e, a.upid);
                return Ok(());
            }
            // TYPE_STATE: its name is the value of its state track
            // (ParseStateEvent); not on a legacy pid / tid track
            Some(5) if a.track_uuid == 0 && a.fallback_to_thread => return Err(()),
            Some(5) => {
                let interned = self.intern(c, a.track_uuid, name, seq);
                let track = match self.legacy_phase_track(c, e, &a, legacy_async) {
                    Some(track) => track?,
                    None => {
                        let interned = interned.ok_or(())?;
                        // (a track interned for it that is not a state
                        // track: an error)
                        if !self.states.get(&a.track_uuid).is_some_and(|s| s.r.is_state) {
                            return Err(());
                        }
                        match interned {
                            TrackRef::Track(t) => t,
                            TrackRef::Merged(f) => {
                                let cookie = a.track_uuid as i64 as i128;
                                let idx =
                                    self.lanes
                                        .begin(f.type_, &f.dims, cookie, Nesting::Nestable);
                                self.lane_track(c, &f, idx)
                            }
                        }
                    }
                };
                if e.name_iid_missing() {
                    // ParseStateEvent's own lookup of the state's name
                    c.stats.add("interned_data_tokenizer_errors", 1, None);
                }
                // the state's value: ParseStateEvent's own lookup
                let state = e.state_name().cloned();
                let items = if state.is_some() {
                    as_items(&args)
                } else {
                    Vec::new()
                };
                let category = state.as_ref().and(e.category.as_deref().map(str::to_owned));
                c.state_rows.update_with_args(
                    &mut c.args,
                    ts,
                    track,
                    state.as_deref().map(str::to_owned),
                    category,
                    &items,
                );
                if state.is_some() {
                    args_parsed(c, &self.profiles, e, a.upid);
                }
                return Ok(());
            }
            _ => {}
        }
        let phase = match phase {
            Some(p) => p,
            None => match (e.type_, a.utid.is_some()) {
                (Some(1), true) => b'B',
                (Some(1), false) => b'b',
                (Some(2), true) => b'E',
                (Some(2), false) => b'e',
                (Some(3), true) => b'i',
                (Some(3), false) => b'n',
                _ => 0,
            },
        };
        // ParseTrackAssociation*: the descriptor track is interned (made,
        // lanes taken) even where a legacy phase then names another track
        let legacy_scope = e
            .legacy
            .as_ref()
            .filter(|_| matches!(phase, b'i' | b'I'))
            .map_or(0, |l| l.instant_scope);
        let track_for = |this: &mut Self, c: &mut Ctx, kind: u8| -> Result<u32, ()> {
            let descriptor = if a.track_uuid == 0 && a.fallback_to_thread {
                None
            } else if kind == b'X' {
                Some(this.legacy_track(c, a.track_uuid, name, seq))
            } else {
                Some(this.slice_track(c, a.track_uuid, name, seq, kind))
            };
            if let Some(source) = legacy_async {
                let (source_id, process_scoped) = source?;
                return Ok(this.legacy_async_track(c, e, a.upid, source_id, process_scoped, phase));
            }
            match (legacy_scope, descriptor) {
                // legacy global / process-scoped instants: a track each
                (1, _) => Ok(legacy_instant_track(
                    c,
                    "legacy_chrome_global_instants",
                    None,
                )),
                (2, _) => Ok(legacy_instant_track(c, "chrome_process_instant", a.upid)),
                (_, None) => Ok(crate::trackers::core::atrace::thread_track(
                    c,
                    a.utid.ok_or(())?,
                )),
                (_, Some(t)) => t.ok_or(()),
            }
        };
        match phase {
            b'B' | b'b' | b'S' => {
                if phase == b'B' && a.utid.is_none() {
                    return Err(());
                }
                if phase == b'S' {
                    args.push(("legacy_event.phase".into(), ArgVal::Str("S".into())));
                }
                let track = track_for(self, c, b'B')?;
                let set = (!args.is_empty()).then(|| c.args.add_set_unique(&as_items(&args)));
                let Some(row) = self.begin(c, track, ts, e, -1, set) else {
                    return Ok(());
                };
                slice_args_parsed(c, &self.profiles, e, a.upid, row, track);
                if phase == b'B' && (thread_ts.is_some() || thread_instructions.is_some()) {
                    let t = ThreadTimes {
                        ts: thread_ts,
                        instruction_count: thread_instructions,
                        ..Default::default()
                    };
                    c.slices.thread_times.insert(row, t);
                }
                self.flows(c, row, e);
            }
            b'E' | b'e' | b'F' => {
                if phase == b'E' && a.utid.is_none() {
                    return Err(());
                }
                let track = track_for(self, c, b'E')?;
                let Some(row) = c
                    .slices
                    .end_matching(track, ts, e.category.as_deref(), name)
                else {
                    return Ok(());
                };
                slice_args_parsed(c, &self.profiles, e, a.upid, row, track);
                if !args.is_empty() {
                    match c.slices.rows[row as usize].arg_set {
                        Some(set) => {
                            // the passthrough utid is added only if absent
                            const PASSTHROUGH: &str = "legacy_event.passthrough_utid";
                            if c.args.has_key(set, PASSTHROUGH) {
                                args.retain(|(k, _)| &**k != PASSTHROUGH);
                            }
                            c.args.extend_set(set, &as_items(&args))
                        }
                        None => {
                            let set = c.args.add_set_unique(&as_items(&args));
                            c.slices.rows[row as usize].arg_set = Some(set);
                        }
                    }
                }
                self.flows(c, row, e);
                if phase == b'E' {
                    if let Some(t) = c.slices.thread_times.get_mut(&row) {
                        if let (Some(start), Some(now)) = (t.ts, thread_ts) {
                            if now != start {
                                t.dur = Some(now - start);
                            }
                        }
                        // (the event's own count, as trace_processor reads it)
                        if let (Some(start), Some(_)) = (t.instruction_count, thread_instructions) {
                            t.instruction_delta = e.thread_instruction_count().map(|n| n - start);
                        }
                    }
                }
            }
            b'X' => {
                if a.utid.is_none() {
                    return Err(());
                }
                let l = e.legacy.as_ref().ok_or(())?;
                let dur = l.duration_us.unwrap_or(0).saturating_mul(1000);
                if dur < 0 {
                    return Err(());
                }
                let track = track_for(self, c, b'X')?;
                let set = arg_set(c, &args);
                if let Some(row) = self.begin(c, track, ts, e, dur, set) {
                    slice_args_parsed(c, &self.profiles, e, a.upid, row, track);
                    let mut t = ThreadTimes::default();
                    if thread_ts.is_some() {
                        t.ts = thread_ts;
                        t.dur = Some(l.thread_duration_us.unwrap_or(0).saturating_mul(1000));
                    }
                    if thread_instructions.is_some() {
                        t.instruction_count = thread_instructions;
                        t.instruction_delta = Some(l.thread_instruction_delta.unwrap_or(0));
                    }
                    if thread_ts.is_some() || thread_instructions.is_some() {
                        c.slices.thread_times.insert(row, t);
                    }
                    self.flows(c, row, e);
                }
            }
            b'i' | b'I' | b'R' | b'n' => {
                let track = track_for(self, c, b'i')?;
                if phase == b'R' {
                    args.push(("legacy_event.phase".into(), ArgVal::Str("R".into())));
                }
                let set = arg_set(c, &args);
                if let Some(row) = self.begin(c, track, ts, e, 0, set) {
                    slice_args_parsed(c, &self.profiles, e, a.upid, row, track);
                    if a.utid.is_some() && (thread_ts.is_some() || thread_instructions.is_some()) {
                        let t = ThreadTimes {
                            ts: thread_ts,
                            dur: thread_ts.map(|_| 0),
                            instruction_count: thread_instructions,
                            instruction_delta: thread_instructions.map(|_| 0),
                        };
                        c.slices.thread_times.insert(row, t);
                    }
                    self.flows(c, row, e);
                }
            }
            b'T' | b'p' => {
                // a step: an instant with its phase (no flows)
                let track = track_for(self, c, phase)?;
                args.push((
                    "legacy_event.phase".into(),
                    ArgVal::Str((phase as char).to_string()),
                ));
                let set = arg_set(c, &args);
                if let Some(row) = self.begin(c, track, ts, e, 0, set) {
                    slice_args_parsed(c, &self.profiles, e, a.upid, row, track);
                }
            }
            b's' | b't' | b'f' => self.flow_v1(c, &track_for, e, phase)?,
            b'M' => {
                // other metadata events go to Chrome's raw table (not
                // served; their args are), quietly without a thread
                let named = metadata_event(c, &a, e)?;
                if !named && a.utid.is_some() {
                    let times = (thread_ts, thread_instructions);
                    raw_legacy_event(c, &self.profiles, e, a.upid, times, &args);
                }
            }
            // other legacy phases: not imported (the decoder counted them)
            _ => {}
        }
        Ok(())
    }

    /// TrackCompressor::InternLegacyAsyncTrack: the lane of a legacy async
    /// event's id, in a set per (process if the id is process-scoped,
    /// scope, the name of the id's first event).
    fn legacy_async_track(
        &mut self,
        c: &mut Ctx,
        e: &TrackEventData,
        upid: Option<u32>,
        source_id: i64,
        process_scoped: bool,
        phase: u8,
    ) -> u32 {
        let l = e.legacy.as_ref();
        // nestable async events: scoped by category, legacy ones by name
        let owned = |s: &Option<Arc<str>>| s.as_deref().map(str::to_owned);
        let mut scope = if matches!(phase, b'S' | b'T' | b'p' | b'F') {
            owned(&e.name)
        } else {
            owned(&e.category)
        };
        if let Some(id_scope) = l.and_then(|l| l.id_scope.as_ref()) {
            let category = e.category.as_deref().unwrap_or_default();
            scope = Some(format!("{category}:{id_scope}"));
        }
        let upid = upid.unwrap_or(0);
        let key = (process_scoped.then_some(upid), source_id);
        let root = self
            .async_roots
            .entry(key)
            .or_insert_with(|| owned(&e.name))
            .clone();
        let str_dim = |s: Option<String>| s.map_or(Dim::NullStr, Dim::Str);
        let (type_, dims, owner) = if process_scoped {
            (
                "legacy_async_process_slice",
                vec![
                    ("upid", Dim::Int(upid as i64)),
                    ("scope", str_dim(scope.clone())),
                    ("name", str_dim(root)),
                ],
                Owner {
                    upid: Some(upid),
                    ..Default::default()
                },
            )
        } else {
            (
                "legacy_async_global_slice",
                vec![("scope", str_dim(scope.clone())), ("name", str_dim(root))],
                Owner::default(),
            )
        };
        let cookie = source_id as i128;
        let idx = match phase {
            b'b' | b'S' => self.lanes.begin(type_, &dims, cookie, Nesting::Nestable),
            b'e' | b'T' => self.lanes.end(type_, &dims, cookie),
            _ => {
                self.lanes.begin(type_, &dims, cookie, Nesting::Nestable);
                self.lanes.end(type_, &dims, cookie)
            }
        };
        let dims = lane_dims(dims, idx);
        let name = e.name.clone();
        let scope_arg = scope.map_or(ArgVal::NullStr, ArgVal::Str);
        c.tracks.intern_with(
            &mut c.args,
            type_,
            name.as_deref(),
            "slice",
            dims,
            owner,
            None,
            || {
                vec![
                    ("source", Some(ArgVal::Str("chrome".into()))),
                    (
                        "trace_id_is_process_scoped",
                        Some(ArgVal::Bool(process_scoped)),
                    ),
                    ("upid", Some(ArgVal::Uint(upid as u64))),
                    ("source_scope", Some(scope_arg)),
                ]
            },
        )
    }

    /// SliceTracker::Begin / Scoped of a track event's slice.
    fn begin(
        &mut self,
        c: &mut Ctx,
        track: u32,
        ts: i64,
        e: &TrackEventData,
        dur: i64,
        set: Option<i64>,
    ) -> Option<u32> {
        let row = c.slices.begin(
            track,
            ts,
            e.name.as_deref().unwrap_or_default().to_owned(),
            dur,
            set,
        )?;
        let r = &mut c.slices.rows[row as usize];
        r.null_name = e.name.is_none();
        r.category = e.category.as_deref().map(|c| Cow::Owned(c.to_owned()));
        Some(row)
    }

    /// MaybeParseFlowEvents: a legacy event's flow v2 (bind_id), then the
    /// event's flow_ids (begin or step a flow at `row`) and
    /// terminating_flow_ids (end an active one).
    fn flows(&mut self, c: &mut Ctx, row: u32, e: &TrackEventData) {
        if let Some(l) = e.legacy.as_ref().filter(|l| l.bind_id.is_some()) {
            let id = l.bind_id.unwrap_or(0);
            match l.flow_direction {
                Some(2) => self.flow_begin(c, row, id),
                Some(3) => self.flow_step(c, row, id),
                Some(1) => self.flow_end(c, row, id, false),
                _ => c.stats.add("flow_without_direction", 1, None),
            }
        }
        for &id in e.flow_ids() {
            if self.flows.contains_key(&id) {
                self.flow_step(c, row, id);
            } else {
                self.flow_begin(c, row, id);
            }
        }
        for &id in e.terminating_flow_ids() {
            if self.flows.contains_key(&id) {
                self.flow_end(c, row, id, true);
            }
        }
    }

    /// ParseFlowEventV1: a legacy flow event (s begin, t step, f end) at
    /// the slice open on its track (an end not bound to the enclosing
    /// slice waits for the next slice begun on the track).
    fn flow_v1(
        &mut self,
        c: &mut Ctx,
        track_for: &dyn Fn(&mut Self, &mut Ctx, u8) -> Result<u32, ()>,
        e: &TrackEventData,
        phase: u8,
    ) -> Result<(), ()> {
        let l = e.legacy.as_ref().ok_or(())?;
        let Some(source_id) = l.unscoped_id else {
            c.stats.add("flow_invalid_id", 1, None);
            return Err(());
        };
        let names = (e.category.clone(), e.name.clone());
        let next = self.v1_ids.len() as u64;
        let id = *self
            .v1_ids
            .entry((source_id, names.clone()))
            .or_insert(next);
        self.v1_keys.entry(id).or_insert(names);
        let track = track_for(self, c, b'X')?;
        if phase == b'f' && !l.bind_to_enclosing {
            c.slices.pending_flows.entry(track).or_default().push(id);
            return Ok(());
        }
        let Some(slice) = c.slices.topmost_open(track) else {
            c.stats.add("flow_no_enclosing_slice", 1, None);
            return Ok(());
        };
        match phase {
            b's' => self.flow_begin(c, slice, id),
            b't' => self.flow_step(c, slice, id),
            _ => self.flow_end(c, slice, id, false),
        }
        Ok(())
    }

    /// ClosePendingEventsOnTrack: flow v1 ends bound to the slices begun
    /// since on their tracks (a flow from the slice the id last reached).
    pub fn close_pending_flows(&mut self, c: &mut Ctx) {
        if c.slices.reached_flows.is_empty() {
            return;
        }
        for (id, slice) in std::mem::take(&mut c.slices.reached_flows) {
            let out = *self.flows.entry(id).or_insert(0);
            self.insert_flow(c, id, out, slice);
        }
    }

    /// FlowTracker::InsertFlow: a flow row with its id as trace_id, a v1
    /// flow's name and category as its args.
    fn insert_flow(&self, c: &mut Ctx, id: u64, out: u32, into: u32) {
        let row = c.flows.len() as u32;
        c.flows.push((out, into, Some(id as i64)));
        if let Some((cat, name)) = self.v1_keys.get(&id) {
            let s = |v: &Option<Arc<str>>| {
                v.as_deref()
                    .map_or(ArgVal::NullStr, |v| ArgVal::Str(v.into()))
            };
            let set = c
                .args
                .add_set(&[("name", Some(s(name))), ("cat", Some(s(cat)))]);
            c.flow_args.insert(row, set);
        }
    }

    /// FlowTracker::Begin: the flow starts at `row`.
    fn flow_begin(&mut self, c: &mut Ctx, row: u32, id: u64) {
        if self.flows.contains_key(&id) {
            c.stats.add("flow_duplicate_id", 1, None);
            return;
        }
        self.flows.insert(id, row);
    }

    /// FlowTracker::Step: a flow from its last slice to `row`, which it
    /// continues from.
    fn flow_step(&mut self, c: &mut Ctx, row: u32, id: u64) {
        let Some(prev) = self.flows.insert(id, row) else {
            self.flows.remove(&id);
            c.stats.add("flow_step_without_start", 1, None);
            return;
        };
        self.ordered_flow(c, id, prev, row);
    }

    /// FlowTracker::End: a flow from its last slice to `row`; `close`
    /// ends the flow id.
    fn flow_end(&mut self, c: &mut Ctx, row: u32, id: u64, close: bool) {
        let Some(&prev) = self.flows.get(&id) else {
            c.stats.add("flow_end_without_start", 1, None);
            return;
        };
        if close {
            self.flows.remove(&id);
        }
        self.ordered_flow(c, id, prev, row);
    }

    /// A flow between two slices, from the earlier to the later.
    fn ordered_flow(&self, c: &mut Ctx, id: u64, prev: u32, row: u32) {
        let prev_ts = c.slices.rows[prev as usize].ts;
        let ts = c.slices.rows[row as usize].ts;
        let (out, into) = if prev_ts > ts {
            (row, prev)
        } else {
            (prev, row)
        };
        self.insert_flow(c, id, out, into);
    }
}

/// A legacy async event's id and whether it is process-scoped (a local
/// id, which needs the event's process); Err without an id.
fn legacy_async_source(
    l: &crate::decoder::track_event::Legacy,
    upid: Option<u32>,
) -> Result<(i64, bool), ()> {
    if let Some(id) = l.unscoped_id.or(l.global_id) {
        return Ok((id as i64, false));
    }
    match (l.local_id, upid) {
        (Some(id), Some(_)) => Ok((id as i64, true)),
        _ => Err(()),
    }
}

/// What parsing an event's args does besides the args, when they are used
/// (trace_processor parses them in the callback of the row they go to):
/// their errors are counted and the event's callstack is made (ParseCallstack,
/// with the event's process): its leaf callsite.
fn args_parsed(
    c: &mut Ctx,
    profiles: &[ProfileInterned],
    e: &TrackEventData,
    upid: Option<u32>,
) -> Option<u32> {
    if let (Some((ts, utid)), Some((prio, tag, msg))) = (e.log_row(), e.log()) {
        c.logs.push_utid(ts, utid, *prio, tag.clone(), msg.clone())
    }
    let (parser, lookups) = e.arg_errors();
    if parser > 0 {
        c.stats.add("track_event_parser_errors", parser, None);
    }
    if lookups > 0 {
        c.stats.add("interned_data_tokenizer_errors", lookups, None);
    }
    let callsite = match e.callstack()? {
        CallstackDesc::Inline(frames) => return c.stack_profile.inline_callstack(frames),
        CallstackDesc::Interned(r) => {
            let profile = &profiles[r.incremental_state as usize];
            if profile.has_callstack(r.iid) {
                c.stack_profile
                    .interned_callstack(profile, r, upid, &mut c.stats)
            } else {
                // (the importer's own lookup of the iid)
                c.stats.add("interned_data_tokenizer_errors", 1, None);
                None
            }
        }
    };
    if callsite.is_none() {
        c.stats.add("track_event_parser_errors", 1, None);
    }
    callsite
}

/// `args_parsed` for the event that made or ended slice `row` on `track`,
/// then MaybeInsertTrackEventCallstack: the event's callstack for the
/// slice (an end's as its end_callsite_id).
fn slice_args_parsed(
    c: &mut Ctx,
    profiles: &[ProfileInterned],
    e: &TrackEventData,
    upid: Option<u32>,
    row: u32,
    track: u32,
) {
    let Some(callsite) = args_parsed(c, profiles, e, upid) else {
        return;
    };
    let end = e.type_ == Some(2);
    c.stack_profile
        .track_event_callstacks
        .push(TrackEventCallstackRow {
            slice: row,
            track,
            callsite: (!end).then_some(callsite),
            end_callsite: end.then_some(callsite),
            weight: e.callstack_weight(),
        });
}

fn as_items(args: &[(Arc<str>, ArgVal)]) -> Vec<(&str, Option<ArgVal>)> {
    args.iter().map(|(k, v)| (&**k, Some(v.clone()))).collect()
}

/// A raw legacy event (ParseLegacyEventAsRawEvent): its chrome_raw row is
/// not served, its args are stored (its category, name and phase, the
/// legacy fields it has, then the event's own args) and parsed.
/// `times`: the event's thread time and instruction count.
fn raw_legacy_event(
    c: &mut Ctx,
    profiles: &[ProfileInterned],
    e: &TrackEventData,
    upid: Option<u32>,
    (thread_ts, thread_instructions): (Option<i64>, Option<i64>),
    args: &[(Arc<str>, ArgVal)],
) {
    let l = e.legacy.as_deref().cloned().unwrap_or_default();
    let text = |s: Option<&str>| Some(s.map_or(ArgVal::NullStr, |s| ArgVal::Str(s.to_owned())));
    let int = |v: i64| Some(ArgVal::Int(v as i128));
    let mut items: Vec<(&str, Option<ArgVal>)> = vec![
        ("legacy_event.category", text(e.category.as_deref())),
        ("legacy_event.name", text(e.name.as_deref())),
        (
            "legacy_event.phase",
            l.phase.map(|p| ArgVal::Str((p as char).to_string())),
        ),
    ];
    if let Some(d) = l.duration_us {
        items.push(("legacy_event.duration_ns", int(d.saturating_mul(1000))));
    }
    if let Some(t) = thread_ts {
        items.push(("legacy_event.thread_timestamp_ns", int(t)));
        if let Some(d) = l.thread_duration_us {
            items.push((
                "legacy_event.thread_duration_ns",
                int(d.saturating_mul(1000)),
            ));
        }
    }
    if let Some(n) = thread_instructions {
        items.push(("legacy_event.thread_instruction_count", int(n)));
        if let Some(delta) = l.thread_instruction_delta {
            items.push(("legacy_event.thread_instruction_delta", int(delta)));
        }
    }
    if l.use_async_tts {
        items.push(("legacy_event.use_async_tts", Some(ArgVal::Bool(true))));
    }
    let id = [
        ("legacy_event.unscoped_id", l.unscoped_id),
        ("legacy_event.global_id", l.global_id),
        ("legacy_event.local_id", l.local_id),
    ]
    .into_iter()
    .find_map(|(key, id)| id.map(|id| (key, id)));
    if let Some((key, id)) = id {
        items.push((key, Some(ArgVal::Uint(id))));
        if let Some(scope) = l.id_scope.as_deref().filter(|s| !s.is_empty()) {
            items.push(("legacy_event.id_scope", Some(ArgVal::Str(scope.to_owned()))));
        }
    }
    let items: Vec<(Arc<str>, Option<ArgVal>)> = items
        .into_iter()
        .map(|(k, v)| (Arc::from(k), v))
        .chain(args.iter().map(|(k, v)| (Arc::clone(k), Some(v.clone()))))
        .collect();
    c.args.add_set(&items);
    args_parsed(c, profiles, e, upid);
}

fn arg_set(c: &mut Ctx, args: &[(Arc<str>, ArgVal)]) -> Option<i64> {
    (!args.is_empty()).then(|| c.args.add_set(&as_items(args)))
}

fn thread_dims(utid: u32, uuid: u64) -> Dims {
    vec![
        ("utid", Dim::Int(utid as i64)),
        ("track_uuid", Dim::Int(uuid as i64)),
    ]
}

fn process_dims(upid: u32, uuid: u64) -> Dims {
    vec![
        ("upid", Dim::Int(upid as i64)),
        ("track_uuid", Dim::Int(uuid as i64)),
    ]
}

fn counter_type(kind: &str) -> &'static str {
    match kind {
        "thread" => "thread_counter_track_event",
        "process" => "process_counter_track_event",
        _ => "global_counter_track_event",
    }
}

/// A `kind` (thread / process / global) slice track's type and event type,
/// or its state track's.
fn slice_or_state(kind: &str, is_state: bool) -> (&'static str, &'static str) {
    match (kind, is_state) {
        ("thread", false) => ("thread_track_event", "slice"),
        ("thread", true) => ("thread_state_track_event", "state"),
        ("process", false) => ("process_track_event", "slice"),
        ("process", true) => ("process_state_track_event", "state"),
        (_, false) => ("global_track_event", "slice"),
        (_, true) => ("global_state_track_event", "state"),
    }
}

fn merged_type(kind: &str) -> &'static str {
    match kind {
        "thread" => "thread_merged_track_event",
        "process" => "process_merged_track_event",
        _ => "global_merged_track_event",
    }
}

/// The per-thread counter of legacy thread time / instruction counts.
fn thread_counter(c: &mut Ctx, type_: &'static str, name: &str, utid: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(name),
        "counter",
        vec![("utid", Dim::Int(utid as i64))],
        Owner {
            utid: Some(utid),
            ..Default::default()
        },
        0,
    )
}

/// The track of legacy instants of global (no upid) or process scope,
/// source "chrome".
fn legacy_instant_track(c: &mut Ctx, type_: &'static str, upid: Option<u32>) -> u32 {
    let dims = upid.map_or_else(Vec::new, |u| vec![("upid", Dim::Int(u as i64))]);
    let owner = Owner {
        upid,
        ..Default::default()
    };
    c.tracks
        .intern_with(&mut c.args, type_, None, "slice", dims, owner, None, || {
            vec![("source", Some(ArgVal::Str("chrome".into())))]
        })
}

/// ProcessTracker::OnEventsFullyExtracted: the sort order hints become
/// process / thread args (`process_sort_index_hint`,
/// `thread_sort_index_hint`), added to any args they have.
pub fn sort_index_args(c: &mut Ctx) {
    let mut hints: Vec<(bool, u32, i64)> =
        c.pt.p_sort_index
            .iter()
            .map(|(&u, &v)| (true, u, v))
            .collect();
    hints.extend(c.pt.t_sort_index.iter().map(|(&u, &v)| (false, u, v)));
    hints.sort_unstable();
    for (process, id, value) in hints {
        let (key, sets) = if process {
            ("process_sort_index_hint", &mut c.pt.p_args)
        } else {
            ("thread_sort_index_hint", &mut c.pt.t_args)
        };
        let arg = (key.to_owned(), Some(ArgVal::Int(value as i128)));
        match sets.get(&id).copied() {
            // a set still growing (Chrome process args) takes it in place
            Some(set) if c.args.is_growing(set) => c.args.extend_set(set, &[arg]),
            Some(set) => {
                let mut items = c.args.items_of(set);
                items.push(arg);
                sets.insert(id, c.args.add_set(&items));
            }
            None => {
                sets.insert(id, c.args.add_set(&[arg]));
            }
        }
    }
}

/// ParseThreadDescriptor: the thread and its name.
fn thread_descriptor(c: &mut Ctx, t: &ThreadDesc) -> u32 {
    let utid = c.pt.update_thread(t.tid, t.pid);
    // its name, else (an empty one too) its legacy chrome_thread_type's
    let name = match t.name.as_deref().filter(|n| !n.is_empty()) {
        Some(n) => Some(n),
        None => t.chrome_type.and_then(chrome_thread_name),
    };
    if let Some(n) = name {
        c.pt.set_thread_name(utid, &Some(Arc::from(n)), PRIO_TRACK_DESCRIPTOR);
    }
    // ParseChromeThreadDescriptor: its thread_type's name, below a name of
    // its own
    if let Some(n) = t.chrome_thread_type.and_then(chrome_thread_name) {
        c.pt.set_thread_name(utid, &Some(Arc::from(n)), PRIO_TRACK_DESCRIPTOR_THREAD_TYPE);
    }
    utid
}

/// ParseProcessDescriptor: the process, its name (below the system's) and
/// start time.
fn process_descriptor(c: &mut Ctx, p: &ProcessDesc) -> u32 {
    let upid = c.pt.get_or_create_process(p.pid as u32 as i64);
    if let Some(n) = p.name.as_deref().filter(|n| !n.is_empty()) {
        c.pt.set_process_name(upid, &Some(Arc::from(n)), PNAME_TRACK_DESCRIPTOR);
    }
    if let Some(t) = p.start_ts.filter(|&t| t > 0) {
        if c.pt.p_start[upid as usize].is_none() {
            c.pt.p_start[upid as usize] = Some(t);
        }
    }
    // the legacy chrome_process_type: its name (a renderer's above a track
    // descriptor's, the others' below)
    if let Some(t) = p.chrome_type {
        let name = chrome_process_name(t).map(Arc::from);
        c.pt.set_process_name(upid, &name, chrome_process_name_priority(t));
    }
    if !p.labels.is_empty() {
        let keys: Vec<String> = (0..p.labels.len())
            .map(|i| format!("chrome.process_label[{i}]"))
            .collect();
        let items: Vec<(&str, Option<ArgVal>)> = (keys.iter().zip(&p.labels))
            .map(|(k, l)| (k.as_str(), Some(ArgVal::Str(l.clone()))))
            .collect();
        crate::trackers::core::process::add_process_args(c, upid, &items);
    }
    if let Some(cp) = &p.chrome {
        chrome_process(c, upid, cp);
    }
    upid
}

/// ProcessNamePriority of a Chrome process type's name: a renderer's
/// (PROCESS_RENDERER, 2) is above a track descriptor's name, the others'
/// below it.
fn chrome_process_name_priority(process_type: i64) -> u8 {
    if process_type == 2 {
        PNAME_CHROME_LABEL_RENDERER
    } else {
        PNAME_CHROME_LABEL
    }
}

/// ParseChromeProcessDescriptor: the type's name (below a track
/// descriptor's, a renderer's above it) and the process's chrome args.
fn chrome_process(c: &mut Ctx, upid: u32, cp: &ChromeProcess) {
    let name = chrome_process_name(cp.process_type);
    let prio = chrome_process_name_priority(cp.process_type);
    c.pt.set_process_name(upid, &name.map(Arc::from), prio);
    let mut items: Vec<(&str, Option<ArgVal>)> = vec![(
        "chrome.process_type",
        Some(name.map_or(ArgVal::NullStr, |n| ArgVal::Str(n.into()))),
    )];
    if let Some(h) = &cp.host_app {
        items.push(("chrome.host_app_package_name", Some(ArgVal::Str(h.clone()))));
    }
    if let Some(id) = cp.crash_trace_id {
        items.push(("chrome.crash_trace_id", Some(ArgVal::Uint(id))));
    }
    crate::trackers::core::process::add_process_args(c, upid, &items);
}

/// An `M` event: thread_name / process_name from its first annotation.
/// A thread_name / process_name metadata event (ParseMetadataEvent):
/// Ok(false) for any other name.
fn metadata_event(c: &mut Ctx, a: &Assoc, e: &TrackEventData) -> Result<bool, ()> {
    let name = e.name.as_deref().ok_or(())?;
    let first_string = e
        .args
        .iter()
        .find(|(k, _)| k.starts_with("debug."))
        .and_then(|(_, v)| match v {
            ArgVal::Str(s) => Some(s.clone()),
            _ => None,
        });
    match name {
        "thread_name" => {
            let utid = a.utid.ok_or(())?;
            if let Some(n) = first_string.filter(|n| !n.is_empty()) {
                c.pt.set_thread_name(
                    utid,
                    &Some(Arc::from(n.as_str())),
                    PRIO_TRACK_DESCRIPTOR_THREAD_TYPE,
                );
            }
            Ok(true)
        }
        "process_name" => {
            let upid = a.upid.ok_or(())?;
            if let Some(n) = first_string.filter(|n| !n.is_empty()) {
                c.pt.set_process_name(upid, &Some(Arc::from(n.as_str())), PNAME_TRACK_DESCRIPTOR);
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}
