//! Interned profiling data of a sequence's IncrementalState (InternedData's
//! function names, build ids, mapping and source paths, mappings, frames,
//! callstacks) and the callstacks events refer to, resolved in the replay
//! against all the data their IncrementalState was given
//! (StackProfileSequenceState's lookups). The rows they make
//! (`stack_profile_*`) are made in the replay, in timestamp order
//! (`trackers::extra::stack_profile`), where trace_processor makes them.
//!
//! Each lookup that fails is one `interned_data_tokenizer_errors` (as
//! IncrementalState::GetInternedMessageView counts it) plus the
//! `stackprofile_*` stat of what was looked up; they are counted in the
//! replay each time the callstack is resolved there (a failed resolution is
//! not cached, as trace_processor's caches hold only successes).

use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::profiles::{CallstackRef, ModuleSymbols, RawMapping};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

type R<T> = Result<T, WireError>;

/// The stats a failed (or partly failed) lookup counts, in order.
pub type StatList = Vec<&'static str>;

const TOKENIZER_ERRORS: &str = "interned_data_tokenizer_errors";
const INVALID_STRING: &str = "stackprofile_invalid_string_id";

/// ProfilePacketUtils::MakeMappingName: the path components joined, each
/// after a '/' (one of a single full path's two leading slashes dropped).
pub fn mapping_name<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    let mut name = String::new();
    for p in parts {
        name.push('/');
        name.push_str(p);
    }
    if name.starts_with("//") {
        name.remove(0);
    }
    name
}

impl RawMapping {
    /// The mapping as made (CreateMappingParams), its strings resolved.
    pub fn desc(
        &self,
        iid: u64,
        build_id: Option<Vec<u8>>,
        name: String,
        stats: StatList,
    ) -> MappingDesc {
        MappingDesc {
            iid,
            build_id,
            exact_offset: self.exact_offset,
            start_offset: self.start_offset,
            start: self.start,
            end: self.end,
            load_bias: self.load_bias,
            name,
            stats,
        }
    }

    /// A Mapping message: its iid (0 when absent) and fields.
    pub fn parse(m: &[u8]) -> R<(u64, RawMapping)> {
        let (mut iid, mut r) = (0, RawMapping::default());
        for f in Fields::new(m) {
            match f? {
                (1, Value::Varint(x)) => iid = x,
                (2, Value::Varint(x)) => r.build_id = x,
                (8, Value::Varint(x)) => r.exact_offset = x,
                (3, Value::Varint(x)) => r.start_offset = x,
                (4, Value::Varint(x)) => r.start = x,
                (5, Value::Varint(x)) => r.end = x,
                (6, Value::Varint(x)) => r.load_bias = x,
                (7, v) => push_varints(v, &mut r.path_string_ids)?,
                _ => {}
            }
        }
        Ok((iid, r))
    }
}

#[derive(Debug, Clone, Default)]
struct RawFrame {
    function_name_id: u64,
    mapping_id: u64,
    rel_pc: u64,
    source_path_iid: Option<u64>,
    line_number: Option<u32>,
    kind: Option<u64>,
    kind_str: Option<String>,
}

/// A sequence's interned profiling data (reset with its interned data).
#[derive(Debug, Clone, Default)]
pub struct ProfileInterned {
    /// (an InternedString without its str: None, a NULL string)
    function_names: HashMap<u64, Option<Arc<str>>>,
    mapping_paths: HashMap<u64, Option<Arc<str>>>,
    source_paths: HashMap<u64, Option<Arc<str>>>,
    build_ids: HashMap<u64, Arc<[u8]>>,
    mappings: HashMap<u64, RawMapping>,
    frames: HashMap<u64, RawFrame>,
    callstacks: HashMap<u64, Vec<u64>>,
}

/// A mapping, its strings resolved (CreateMappingParams).
#[derive(Debug, Clone, PartialEq)]
pub struct MappingDesc {
    pub iid: u64,
    /// the raw build id, None without one (Some(empty): a build id string
    /// that is empty, a different mapping)
    pub build_id: Option<Vec<u8>>,
    pub exact_offset: u64,
    pub start_offset: u64,
    pub start: u64,
    pub end: u64,
    pub load_bias: u64,
    /// the path components joined (ProfilePacketUtils::MakeMappingName)
    pub name: String,
    /// lookups of path components that failed (the name stops there):
    /// counted when the mapping is made
    pub stats: StatList,
}

/// Which mapping a frame is in.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameMapping {
    /// mapping_id 0: the sequence's dummy mapping for interned frames
    Dummy,
    Mapping(MappingDesc),
}

/// A frame, its strings and mapping resolved (None: a NULL string, as
/// trace_processor interns a string it never had).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameDesc {
    pub iid: u64,
    pub function_name: Option<Arc<str>>,
    pub source_file: Option<Arc<str>>,
    pub line_number: Option<u32>,
    /// whether it has a source file (even a NULL one) or a line: a frame in
    /// a mapping then gets a symbol
    pub symbolized: bool,
    pub rel_pc: u64,
    /// stack_profile_frame.type (Frame.kind as a label, or kind_str)
    pub kind: Option<Arc<str>>,
    pub mapping: FrameMapping,
}

/// An interned callstack, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct InternedCallstack {
    /// whether the iid was interned
    pub found: bool,
    /// its frames, up to the first that failed
    pub frames: Vec<FrameDesc>,
    /// the stats of the frame that failed, if one did
    pub failure: Option<StatList>,
}

/// A frame of an inline callstack: (function name, source file, line).
pub type InlineFrame = (Option<Arc<str>>, Option<Arc<str>>, Option<u32>);

/// A track event's callstack.
#[derive(Debug, Clone, PartialEq)]
pub enum CallstackDesc {
    Interned(CallstackRef),
    Inline(Vec<InlineFrame>),
}

/// The (iid, str) of an InternedString.
pub fn interned_string(b: &[u8]) -> R<(Option<u64>, Option<&[u8]>)> {
    let (mut iid, mut s) = (None, None);
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => iid = Some(x),
            (2, Value::Bytes(v)) => s = Some(v),
            _ => {}
        }
    }
    Ok((iid, s))
}

/// The iid of an interned message.
fn iid_of(b: &[u8]) -> R<Option<u64>> {
    for f in Fields::new(b) {
        if let (1, Value::Varint(x)) = f? {
            return Ok(Some(x));
        }
    }
    Ok(None)
}

fn frame_kind(kind: u64) -> Option<&'static str> {
    Some(match kind {
        1 => "native",
        2 => "kernel",
        3 => "interpreted",
        4 => "jit",
        5 => "gc",
        6 => "runtime",
        _ => return None,
    })
}

impl ProfileInterned {
    /// One InternedData field, if it is a profiling one (else false). As
    /// IncrementalState::InternMessage, an iid already interned keeps its
    /// first message, and one without an iid is an error
    /// (`missing_iids`, interned_data_tokenizer_errors).
    pub fn intern(&mut self, field: u32, m: &[u8], missing_iids: &mut i64) -> R<bool> {
        if !matches!(field, 5..=7 | 16..=19) {
            return Ok(false);
        }
        let Some(iid) = iid_of(m)? else {
            *missing_iids += 1;
            return Ok(true);
        };
        match field {
            5 | 17 | 18 => {
                let (_, s) = interned_string(m)?;
                let map = match field {
                    5 => &mut self.function_names,
                    17 => &mut self.mapping_paths,
                    _ => &mut self.source_paths,
                };
                map.entry(iid)
                    .or_insert_with(|| s.map(|s| Arc::from(text(s))));
            }
            16 => {
                let s = interned_string(m)?.1.unwrap_or(&[]);
                self.build_ids.entry(iid).or_insert_with(|| Arc::from(s));
            }
            19 => {
                let (_, r) = RawMapping::parse(m)?;
                self.mappings.entry(iid).or_insert(r);
            }
            6 => {
                let mut r = RawFrame::default();
                for f in Fields::new(m) {
                    match f? {
                        (2, Value::Varint(x)) => r.function_name_id = x,
                        (3, Value::Varint(x)) => r.mapping_id = x,
                        (4, Value::Varint(x)) => r.rel_pc = x,
                        (5, Value::Varint(x)) => r.source_path_iid = Some(x),
                        (6, Value::Varint(x)) => r.line_number = Some(x as u32),
                        (7, Value::Varint(x)) => {
                            r.kind = Some(x);
                            r.kind_str = None;
                        }
                        (8, Value::Bytes(s)) => {
                            r.kind_str = Some(text(s));
                            r.kind = None;
                        }
                        _ => {}
                    }
                }
                self.frames.entry(iid).or_insert(r);
            }
            _ => {
                let mut frames = Vec::new();
                for f in Fields::new(m) {
                    if let (2, v) = f? {
                        push_varints(v, &mut frames)?;
                    }
                }
                self.callstacks.entry(iid).or_insert(frames);
            }
        }
        Ok(true)
    }

    /// An interned string (function names, source paths: iid 0 looked up
    /// as trace_processor's callers decide).
    fn string(
        map: &HashMap<u64, Option<Arc<str>>>,
        iid: u64,
        stats: &mut StatList,
    ) -> Option<Option<Arc<str>>> {
        let s = map.get(&iid).cloned();
        if s.is_none() {
            stats.extend([TOKENIZER_ERRORS, INVALID_STRING]);
        }
        s
    }

    /// FindOrInsertMappingImpl's lookups: Err(stats) when the mapping
    /// cannot be made.
    fn mapping(&self, iid: u64) -> Result<MappingDesc, StatList> {
        let Some(m) = self.mappings.get(&iid) else {
            return Err(vec![TOKENIZER_ERRORS, "stackprofile_invalid_mapping_id"]);
        };
        let mut stats = Vec::new();
        // (a path that does not resolve ends the name, not the mapping)
        let parts: Vec<Option<Arc<str>>> = m
            .path_string_ids
            .iter()
            .map_while(|&p| Self::string(&self.mapping_paths, p, &mut stats))
            .collect();
        let name = mapping_name(parts.iter().map(|s| s.as_deref().unwrap_or("")));
        let build_id = if m.build_id == 0 {
            None
        } else {
            match self.build_ids.get(&m.build_id) {
                Some(b) => Some(b.to_vec()),
                None => {
                    stats.extend([TOKENIZER_ERRORS, INVALID_STRING]);
                    return Err(stats);
                }
            }
        };
        if m.start > m.end {
            // trace_processor aborts on such a range (AddressRange's CHECK);
            // the frame fails here instead
            return Err(stats);
        }
        Ok(m.desc(iid, build_id, name, stats))
    }

    /// FindOrInsertFrame's lookups.
    fn frame(&self, iid: u64) -> Result<FrameDesc, StatList> {
        let Some(f) = self.frames.get(&iid) else {
            return Err(vec![TOKENIZER_ERRORS, "stackprofile_invalid_frame_id"]);
        };
        let mut stats = Vec::new();
        let function_name = match f.function_name_id {
            0 => None,
            id => Self::string(&self.function_names, id, &mut stats).ok_or(stats.clone())?,
        };
        let source_file = match f.source_path_iid {
            None => None,
            // (iid 0: no source file, and the frame fails)
            Some(0) => return Err(stats),
            Some(id) => Self::string(&self.source_paths, id, &mut stats).ok_or(stats.clone())?,
        };
        let mapping = match f.mapping_id {
            0 => FrameMapping::Dummy,
            id => FrameMapping::Mapping(self.mapping(id)?),
        };
        let kind = match (&f.kind, &f.kind_str) {
            (Some(k), _) => frame_kind(*k).map(Arc::from),
            (None, Some(s)) => Some(Arc::from(s.as_str())),
            (None, None) => None,
        };
        Ok(FrameDesc {
            iid,
            function_name,
            source_file,
            line_number: f.line_number,
            symbolized: f.source_path_iid.is_some() || f.line_number.is_some(),
            rel_pc: f.rel_pc,
            kind,
            mapping,
        })
    }

    /// Whether callstack `iid` was interned.
    pub fn has_callstack(&self, iid: u64) -> bool {
        self.callstacks.contains_key(&iid)
    }

    /// An interned callstack, resolved (FindOrInsertCallstack's lookups).
    pub fn callstack(&self, r: &CallstackRef) -> InternedCallstack {
        let mut c = InternedCallstack {
            found: false,
            frames: Vec::new(),
            failure: None,
        };
        let Some(frame_ids) = self.callstacks.get(&r.iid) else {
            return c;
        };
        c.found = true;
        for &f in frame_ids {
            match self.frame(f) {
                Ok(d) => c.frames.push(d),
                Err(stats) => {
                    c.failure = Some(stats);
                    break;
                }
            }
        }
        c
    }
}

/// A TrackEvent.InlineCallstack's frames.
pub fn inline_callstack(b: &[u8]) -> R<Vec<InlineFrame>> {
    let mut frames = Vec::new();
    for f in Fields::new(b) {
        if let (1, Value::Bytes(m)) = f? {
            let (mut name, mut file, mut line) = (None, None, None);
            for g in Fields::new(m) {
                match g? {
                    (1, Value::Bytes(s)) => name = Some(Arc::from(text(s))),
                    (2, Value::Bytes(s)) => file = Some(Arc::from(text(s))),
                    (3, Value::Varint(x)) => line = Some(x as u32),
                    _ => {}
                }
            }
            frames.push((name, file, line));
        }
    }
    Ok(frames)
}

impl ModuleSymbols {
    pub fn parse(b: &[u8]) -> R<ModuleSymbols> {
        let mut m = ModuleSymbols::default();
        for f in Fields::new(b) {
            match f? {
                (1, Value::Bytes(s)) => m.path = text(s),
                (2, Value::Bytes(s)) => m.build_id = s.to_vec(),
                (3, Value::Bytes(a)) => {
                    let (mut address, mut lines) = (0, Vec::new());
                    for g in Fields::new(a) {
                        match g? {
                            (1, Value::Varint(x)) => address = x,
                            (2, Value::Bytes(l)) => {
                                let mut line = (String::new(), String::new(), None);
                                for h in Fields::new(l) {
                                    match h? {
                                        (1, Value::Bytes(s)) => line.0 = text(s),
                                        (2, Value::Bytes(s)) => line.1 = text(s),
                                        (3, Value::Varint(x)) => line.2 = Some(x as u32),
                                        _ => {}
                                    }
                                }
                                lines.push(line);
                            }
                            _ => {}
                        }
                    }
                    m.addresses.push((address, lines));
                }
                _ => {}
            }
        }
        Ok(m)
    }
}

/// A build id as stack_profile_mapping shows it (BuildId::ToHex): a
/// 33-byte one is Chrome's hex module id, kept as it is; others in
/// lowercase hex.
pub fn build_id_hex(raw: &[u8]) -> String {
    if raw.len() == 33 {
        return String::from_utf8_lossy(raw).into_owned();
    }
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_ids_in_hex() {
        assert_eq!(build_id_hex(b"buildid"), "6275696c646964");
        assert_eq!(build_id_hex(&[0x00, 0xab]), "00ab");
        let chrome = "0123456789abcdef0123456789abcdef0";
        assert_eq!(build_id_hex(chrome.as_bytes()), chrome);
    }
}
