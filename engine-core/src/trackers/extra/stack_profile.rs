//! Callstacks as trace_processor stores them (`stack_profile_mapping`,
//! `stack_profile_frame`, `stack_profile_callsite`, `stack_profile_symbol`),
//! made in timestamp order by the events that refer to them: track events'
//! callstacks (`__intrinsic_track_event_callstacks`) and streaming profile
//! samples (`cpu_profile_stack_sample`). The model is trace_processor
//! v58.2's StackProfileSequenceState (per-sequence caches by (upid, iid)),
//! MappingTracker (user mappings per process, interned mappings, the kernel
//! mapping, dummy mappings), VirtualMemoryMapping / DummyMemoryMapping
//! (frames interned per mapping, symbols for source locations) and
//! StackProfileTracker::InternCallsite.
//!
//! Not modelled: JIT caches (no importer here records JIT code ranges).

use crate::decoder::stack_profile::{
    build_id_hex, FrameDesc, FrameMapping, InlineFrame, MappingDesc, ProfileInterned,
};
use crate::events::profiles::{CallstackRef, ModuleSymbols};
use crate::events::Stats;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// A string trace_processor may intern as NULL (one it never had).
type Name = Option<Arc<str>>;

/// A stack_profile_mapping row.
pub struct MappingRow {
    pub build_id: String,
    pub exact_offset: i64,
    pub start_offset: i64,
    pub start: i64,
    pub end: i64,
    pub load_bias: i64,
    pub name: String,
}

/// A stack_profile_frame row.
pub struct FrameRow {
    pub name: Name,
    pub mapping: u32,
    pub rel_pc: i64,
    pub symbol_set_id: Option<u32>,
    pub type_: Option<Arc<str>>,
}

/// A stack_profile_symbol row.
pub struct SymbolRow {
    /// its set (a frame's symbols: one row per line of its address)
    pub symbol_set_id: u32,
    pub name: Name,
    pub source_file: Option<Arc<str>>,
    pub line_number: Option<u32>,
}

/// A stack_profile_callsite row.
pub struct CallsiteRow {
    pub depth: u32,
    pub parent: Option<u32>,
    pub frame: u32,
}

/// An `__intrinsic_track_event_callstacks` row.
pub struct TrackEventCallstackRow {
    pub slice: u32,
    pub track: u32,
    pub callsite: Option<u32>,
    pub end_callsite: Option<u32>,
    pub weight: Option<f64>,
}

/// A profiler sample (trace_processor's `__intrinsic_profiler_sample`):
/// a `cpu_profile_stack_sample` or a `perf_sample` row, ids shared.
pub struct SampleRow {
    pub ts: i64,
    pub callsite: Option<u32>,
    pub utid: u32,
    pub source: SampleSource,
}

pub enum SampleSource {
    /// Chrome's StreamingProfilePacket
    Chrome { process_priority: i64 },
    /// traced_perf's PerfSample (trackers::extra::perf_sample)
    Perf {
        cpu: Option<u32>,
        /// None: MODE_UNKNOWN
        cpu_mode: Option<&'static str>,
        unwind_error: Option<&'static str>,
        session: u32,
    },
}

/// The identity of a mapping trace_processor interns (CreateMappingParams).
type MappingKey = (u64, u64, u64, u64, u64, String, Option<Vec<u8>>);

/// (stack profile state, upid, iid): the key of a sequence's caches.
type CacheKey = (u32, Option<u32>, u64);

#[derive(Default)]
pub struct StackProfile {
    pub mappings: Vec<MappingRow>,
    pub frames: Vec<FrameRow>,
    pub symbols: Vec<SymbolRow>,
    pub callsites: Vec<CallsiteRow>,
    pub track_event_callstacks: Vec<TrackEventCallstackRow>,
    pub samples: Vec<SampleRow>,
    /// `perf_session` rows (trackers::extra::perf_sample; their cmdline is NULL
    /// in a protobuf trace)
    pub perf_sessions: u32,
    /// per mapping: its frames by (rel_pc, name)
    frames_by_pc: HashMap<(u32, u64, Name), u32>,
    /// per mapping: its frames at a rel_pc (VirtualMemoryMapping::
    /// FindFrameIds: module symbols name them)
    frames_by_rel_pc: HashMap<(u32, u64), Vec<u32>>,
    /// the mappings of a name and build id (MappingTracker::FindMappings)
    by_name_and_build_id: HashMap<(String, Option<Vec<u8>>), Vec<u32>>,
    /// per dummy mapping: its frames by (name, source file, line)
    dummy_frames: HashMap<(u32, InlineFrame), u32>,
    callsite_ids: HashMap<(u32, Option<u32>, u32), u32>,
    interned_mappings: HashMap<MappingKey, u32>,
    kernel: Option<u32>,
    /// the dummy mapping of inline track event callstacks
    inline_mapping: Option<u32>,
    /// per sequence state: its dummy mapping for frames without one
    interned_frames_mapping: HashMap<u32, u32>,
    cached_mappings: HashMap<CacheKey, u32>,
    cached_frames: HashMap<CacheKey, u32>,
    cached_callstacks: HashMap<CacheKey, u32>,
}

impl StackProfile {
    fn add_mapping(&mut self, m: &MappingDesc) -> u32 {
        let id = self.mappings.len() as u32;
        self.by_name_and_build_id
            .entry((m.name.clone(), m.build_id.clone()))
            .or_default()
            .push(id);
        self.mappings.push(MappingRow {
            build_id: build_id_hex(m.build_id.as_deref().unwrap_or_default()),
            exact_offset: m.exact_offset as i64,
            start_offset: m.start_offset as i64,
            start: m.start as i64,
            end: m.end as i64,
            load_bias: m.load_bias as i64,
            name: m.name.clone(),
        });
        (self.mappings.len() - 1) as u32
    }

    /// MappingTracker::CreateDummyMapping: a mapping over the whole address
    /// space.
    fn dummy_mapping(&mut self, name: &str) -> u32 {
        self.add_mapping(&MappingDesc {
            iid: 0,
            build_id: None,
            exact_offset: 0,
            start_offset: 0,
            start: 0,
            end: u64::MAX,
            load_bias: 0,
            name: name.to_owned(),
            stats: Vec::new(),
        })
    }

    /// InternMemoryMapping: one row per distinct mapping.
    fn interned_mapping(&mut self, m: &MappingDesc) -> u32 {
        let key = (
            m.start,
            m.end,
            m.exact_offset,
            m.start_offset,
            m.load_bias,
            m.name.clone(),
            m.build_id.clone(),
        );
        if let Some(&id) = self.interned_mappings.get(&key) {
            return id;
        }
        let id = self.add_mapping(m);
        self.interned_mappings.insert(key, id);
        id
    }

    /// FindOrInsertMappingImpl after its lookups.
    fn mapping(
        &mut self,
        state: u32,
        upid: Option<u32>,
        m: &MappingDesc,
        stats: &mut Stats,
    ) -> u32 {
        let key = (state, upid, m.iid);
        if let Some(&id) = self.cached_mappings.get(&key) {
            return id;
        }
        for s in &m.stats {
            stats.add(s, 1, None);
        }
        let kernel = m.start == 0
            && m.end == 0
            && m.exact_offset == 0
            && m.build_id.as_ref().map_or(true, Vec::is_empty)
            && m.name == "/kernel";
        let id = if kernel {
            // the kernel (not a module: its range is empty): one mapping
            match self.kernel {
                Some(k) => k,
                None => {
                    let k = self.add_mapping(m);
                    self.kernel = Some(k);
                    k
                }
            }
        } else if m.start == m.end || upid.is_none() {
            self.interned_mapping(m)
        } else {
            // CreateUserMemoryMapping: a mapping of the process each time
            self.add_mapping(m)
        };
        self.cached_mappings.insert(key, id);
        id
    }

    /// VirtualMemoryMapping::CreateSymbol: its symbol set id.
    fn symbol(&mut self, name: &Name, file: &Option<Arc<str>>, line: Option<u32>) -> u32 {
        self.symbols.push(SymbolRow {
            symbol_set_id: self.symbols.len() as u32,
            name: name.clone(),
            source_file: file.clone(),
            line_number: line,
        });
        (self.symbols.len() - 1) as u32
    }

    /// DummyMemoryMapping::InternDummyFrame.
    fn dummy_frame(
        &mut self,
        mapping: u32,
        name: &Name,
        file: &Option<Arc<str>>,
        line: Option<u32>,
    ) -> u32 {
        let key = (mapping, (name.clone(), file.clone(), line));
        if let Some(&id) = self.dummy_frames.get(&key) {
            return id;
        }
        let symbol = self.symbol(name, file, line);
        let id = self.push_frame(name, mapping, 0, Some(symbol));
        self.dummy_frames.insert(key, id);
        id
    }

    /// VirtualMemoryMapping::InternFrame (no JIT cache).
    fn mapped_frame(&mut self, mapping: u32, f: &FrameDesc) -> u32 {
        let key = (mapping, f.rel_pc, f.function_name.clone());
        if let Some(&id) = self.frames_by_pc.get(&key) {
            return id;
        }
        let symbol = f
            .symbolized
            .then(|| self.symbol(&f.function_name, &f.source_file, f.line_number));
        let id = self.push_frame(&f.function_name, mapping, f.rel_pc as i64, symbol);
        self.frames_by_pc.insert(key, id);
        self.frames_by_rel_pc
            .entry((mapping, f.rel_pc))
            .or_default()
            .push(id);
        id
    }

    fn push_frame(&mut self, name: &Name, mapping: u32, rel_pc: i64, symbol: Option<u32>) -> u32 {
        self.frames.push(FrameRow {
            name: name.clone(),
            mapping,
            rel_pc,
            symbol_set_id: symbol,
            type_: None,
        });
        (self.frames.len() - 1) as u32
    }

    /// FindOrInsertFrame after its lookups.
    fn frame(&mut self, state: u32, upid: Option<u32>, f: &FrameDesc, stats: &mut Stats) -> u32 {
        let key = (state, upid, f.iid);
        if let Some(&id) = self.cached_frames.get(&key) {
            return id;
        }
        let id = match &f.mapping {
            FrameMapping::Dummy => {
                let mapping = match self.interned_frames_mapping.get(&state) {
                    Some(&m) => m,
                    None => {
                        let m = self.dummy_mapping("");
                        self.interned_frames_mapping.insert(state, m);
                        m
                    }
                };
                self.dummy_frame(mapping, &f.function_name, &f.source_file, f.line_number)
            }
            FrameMapping::Mapping(m) => {
                let mapping = self.mapping(state, upid, m, stats);
                self.mapped_frame(mapping, f)
            }
        };
        if let Some(kind) = &f.kind {
            self.frames[id as usize].type_ = Some(Arc::clone(kind));
        }
        self.cached_frames.insert(key, id);
        id
    }

    /// MappingTracker::InternMemoryMapping (a ProfilePacket's mappings).
    pub fn memory_mapping(&mut self, m: &MappingDesc) -> u32 {
        self.interned_mapping(m)
    }

    /// VirtualMemoryMapping::InternFrame of a named frame at `rel_pc` (a
    /// ProfilePacket's frames).
    pub fn mapping_frame(&mut self, mapping: u32, rel_pc: u64, name: &str) -> u32 {
        let f = FrameDesc {
            iid: 0,
            function_name: Some(Arc::from(name)),
            mapping: FrameMapping::Dummy,
            rel_pc,
            source_file: None,
            line_number: None,
            kind: None,
            symbolized: false,
        };
        self.mapped_frame(mapping, &f)
    }

    /// ProfileModule::ParseModuleSymbols: each address's lines become a
    /// symbol set (one stack_profile_symbol row per line), given to the
    /// frames at that address in the mappings of `path` and `build_id`.
    pub fn module_symbols(&mut self, m: &ModuleSymbols, stats: &mut Stats) {
        let key = (
            m.path.clone(),
            (!m.build_id.is_empty()).then(|| m.build_id.clone()),
        );
        let Some(mappings) = self.by_name_and_build_id.get(&key).cloned() else {
            stats.add("stackprofile_invalid_mapping_id", 1, None);
            return;
        };
        for (address, lines) in &m.addresses {
            let symbol_set = self.symbols.len() as u32;
            for (function, file, line) in lines {
                let file = (!file.is_empty()).then(|| Arc::from(file.as_str()));
                self.symbols.push(SymbolRow {
                    symbol_set_id: symbol_set,
                    name: Some(Arc::from(function.as_str())),
                    line_number: if file.is_some() { *line } else { None },
                    source_file: file,
                });
            }
            if lines.is_empty() {
                continue;
            }
            let mut found = false;
            for &mapping in &mappings {
                for &frame in self
                    .frames_by_rel_pc
                    .get(&(mapping, *address))
                    .into_iter()
                    .flatten()
                {
                    self.frames[frame as usize].symbol_set_id = Some(symbol_set);
                    found = true;
                }
            }
            if !found {
                stats.add("stackprofile_invalid_frame_id", 1, None);
            }
        }
    }

    /// StackProfileTracker::InternCallsite.
    pub fn callsite(&mut self, parent: Option<u32>, frame: u32, depth: u32) -> u32 {
        let next = self.callsites.len() as u32;
        let id = *self
            .callsite_ids
            .entry((depth, parent, frame))
            .or_insert(next);
        if id == next {
            self.callsites.push(CallsiteRow {
                depth,
                parent,
                frame,
            });
        }
        id
    }

    /// FindOrInsertCallstack: the leaf callsite of an interned callstack of
    /// `upid` (None and its stats counted when it cannot be made).
    pub fn interned_callstack(
        &mut self,
        profile: &ProfileInterned,
        r: &CallstackRef,
        upid: Option<u32>,
        stats: &mut Stats,
    ) -> Option<u32> {
        let key = (r.stack_state, upid, r.iid);
        if let Some(&id) = self.cached_callstacks.get(&key) {
            return Some(id);
        }
        let c = profile.callstack(r);
        if !c.found {
            stats.add("interned_data_tokenizer_errors", 1, None);
            stats.add("stackprofile_invalid_callstack_id", 1, None);
            return None;
        }
        // (the frames before one that fails are made, as their callsites)
        let mut leaf = None;
        for (depth, f) in c.frames.iter().enumerate() {
            let frame = self.frame(r.stack_state, upid, f, stats);
            leaf = Some(self.callsite(leaf, frame, depth as u32));
        }
        if let Some(failure) = &c.failure {
            for s in failure {
                stats.add(s, 1, None);
            }
            return None;
        }
        let Some(leaf) = leaf else {
            stats.add("stackprofile_empty_callstack", 1, None);
            return None;
        };
        self.cached_callstacks.insert(key, leaf);
        Some(leaf)
    }

    /// A track event's inline callstack: its frames on the
    /// `track_event_inline` dummy mapping.
    pub fn inline_callstack(&mut self, frames: &[InlineFrame]) -> Option<u32> {
        let mapping = match self.inline_mapping {
            Some(m) => m,
            None => {
                let m = self.dummy_mapping("track_event_inline");
                self.inline_mapping = Some(m);
                m
            }
        };
        let mut leaf = None;
        for (depth, (name, file, line)) in frames.iter().enumerate() {
            let frame = self.dummy_frame(mapping, name, file, *line);
            leaf = Some(self.callsite(leaf, frame, depth as u32));
        }
        leaf
    }
}
