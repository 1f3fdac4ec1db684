//! Tracks (identity = type + dimension args + slot) and the args table.

use rustc_hash::FxHashMap as HashMap;

pub use crate::events::ArgVal;

/// One args row, compact (hundreds of thousands on a real trace, all held
/// at the import's peak): the key as an id into `Args::keys`, the value
/// typed; flat_key follows from the key (`flat_key`), and value_type /
/// int_value / string_value /
/// real_value / display_value all follow from the value (`ArgValue`).
pub struct ArgRow {
    pub set_id: u32,
    pub key: u32,
    pub value: ArgValue,
}

/// A stored arg's value (trace_processor's Variadic as the args table shows
/// it).
pub enum ArgValue {
    Int(i64),
    /// value_type 'uint': the int64 bit pattern of a uint64
    Uint(i64),
    Bool(bool),
    Real(f64),
    /// an id into `Args::strings`
    Str(u32),
    /// value_type 'string', every value NULL
    NullStr,
    /// value_type 'pointer': the int64 bit pattern of the address
    Pointer(i64),
}

impl ArgValue {
    /// The value as the importers give it (the inverse of `Args::add_set`'s
    /// conversion); `strings`: `Args::strings`.
    fn to_arg(&self, strings: &[Box<str>]) -> ArgVal {
        match self {
            ArgValue::Int(i) => ArgVal::Int(*i as i128),
            ArgValue::Uint(u) => ArgVal::Uint(*u as u64),
            ArgValue::Bool(b) => ArgVal::Bool(*b),
            ArgValue::Real(r) => ArgVal::Real(*r),
            ArgValue::Str(s) => ArgVal::Str(strings[*s as usize].to_string()),
            ArgValue::NullStr => ArgVal::NullStr,
            ArgValue::Pointer(p) => ArgVal::Pointer(*p as u64),
        }
    }

    pub fn value_type(&self) -> &'static str {
        match self {
            ArgValue::Int(_) => "int",
            ArgValue::Uint(_) => "uint",
            ArgValue::Bool(_) => "bool",
            ArgValue::Real(_) => "real",
            ArgValue::Str(_) | ArgValue::NullStr => "string",
            ArgValue::Pointer(_) => "pointer",
        }
    }

    pub fn int_value(&self) -> Option<i64> {
        match *self {
            ArgValue::Int(i) | ArgValue::Uint(i) | ArgValue::Pointer(i) => Some(i),
            ArgValue::Bool(b) => Some(b as i64),
            _ => None,
        }
    }

    pub fn real_value(&self) -> Option<f64> {
        match *self {
            ArgValue::Real(r) => Some(r),
            _ => None,
        }
    }

    /// The value as text (display_value); `strings`: `Args::strings`.
    pub fn display<'a>(&self, strings: &'a [Box<str>]) -> Option<std::borrow::Cow<'a, str>> {
        use std::borrow::Cow;
        Some(match self {
            ArgValue::Int(i) => Cow::Owned(i.to_string()),
            ArgValue::Uint(bits) => Cow::Owned((*bits as u64).to_string()),
            ArgValue::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            ArgValue::Real(r) => Cow::Owned(sqlite_real_text(*r)),
            ArgValue::Str(s) => Cow::Borrowed(&strings[*s as usize]),
            ArgValue::Pointer(p) => Cow::Owned(format!("0x{:x}", *p as u64)),
            ArgValue::NullStr => return None,
        })
    }
}

#[derive(Default)]
pub struct Args {
    pub rows: Vec<ArgRow>,
    /// the distinct keys, by id (few: keys repeat on every row)
    pub keys: Vec<Box<str>>,
    key_ids: HashMap<Box<str>, u32>,
    /// the distinct string values, by id (`ArgValue::Str`: comms, names
    /// and paths repeat on many rows)
    pub strings: Vec<Box<str>>,
    string_ids: HashMap<Box<str>, u32>,
    next_id: i64,
    /// every set added by `add_set`, by a 64-bit hash of its content (as
    /// trace_processor's ArgSetHash)
    by_content: HashMap<u64, i64>,
    /// the sets `add_set_unique` made, stored once only by `commit_pending`
    pending: Vec<i64>,
    /// the rows of each such set while it may grow (`extend_set` updates
    /// a key it already has), by set id: the run of rows its first args
    /// made (start, len; NOT_GROWING for the other sets) ...
    growing: Vec<(u32, u32)>,
    /// ... and the rows added to it later (few sets grow)
    grown: HashMap<i64, Vec<u32>>,
}

const NOT_GROWING: (u32, u32) = (u32::MAX, 0);

impl Args {
    /// Adds one arg set (None values skipped) and returns its id; a set
    /// equal to one added before is not added again, its id is returned
    /// (trace_processor's GlobalArgsTracker stores each distinct set once:
    /// e.g. the same dimensions of two tracks, the `packet_ts` of every
    /// power rail sample of a packet, repeated print events' args).
    ///
    /// A key given twice is one arg, where it came first, with the last
    /// value (ArgsInserter::AddArg's kAddOrUpdate: e.g. a generic ftrace
    /// event naming a field twice).
    pub fn add_set<K: AsRef<str>>(&mut self, items: &[(K, Option<ArgVal>)]) -> i64 {
        if let Some(collapsed) = collapse_repeated_keys(items) {
            return self.add_set(&collapsed);
        }
        let content = content_hash(
            items
                .iter()
                .filter_map(|(k, v)| v.as_ref().map(|v| (k.as_ref(), v.hashed()))),
        );
        if let Some(&id) = self.by_content.get(&content) {
            return id;
        }
        let id = self.new_set(items, false);
        self.by_content.insert(content, id);
        id
    }

    /// Adds one arg set that may get more args later (`extend_set`: an
    /// async slice's end adds its own). trace_processor commits such a
    /// row's args when its event completes, storing equal sets once:
    /// `commit_pending` does that at the end of the import.
    pub fn add_set_unique<K: AsRef<str>>(&mut self, items: &[(K, Option<ArgVal>)]) -> i64 {
        let id = self.new_set(items, true);
        self.pending.push(id);
        id
    }

    fn new_set<K: AsRef<str>>(&mut self, items: &[(K, Option<ArgVal>)], growing: bool) -> i64 {
        let set_id = self.open_set(growing);
        self.extend_set(set_id, items);
        set_id
    }

    /// A new set's id, its rows to follow (from the next row on, if it may
    /// grow).
    fn open_set(&mut self, growing: bool) -> i64 {
        let set_id = self.next_id;
        self.next_id += 1;
        self.growing.resize(set_id as usize, NOT_GROWING);
        self.growing.push(if growing {
            (self.rows.len() as u32, 0)
        } else {
            NOT_GROWING
        });
        set_id
    }

    /// The rows of `set_id` if it may still grow.
    fn growing_rows(&self, set_id: i64) -> Option<impl Iterator<Item = u32> + '_> {
        let &(start, len) = self.growing.get(usize::try_from(set_id).ok()?)?;
        let later = self.grown.get(&set_id).map_or(&[][..], |v| v.as_slice());
        (start != NOT_GROWING.0).then(|| (start..start + len).chain(later.iter().copied()))
    }

    /// Stores each `add_set_unique` set, as completed, once with any equal
    /// set: returns the sets dropped -> the equal set that replaces them
    /// (their rows are removed; the caller repoints what referenced them).
    pub fn commit_pending(&mut self) -> HashMap<i64, i64> {
        self.growing.clear();
        self.grown.clear();
        let mut replaced = HashMap::default();
        if self.pending.is_empty() {
            return replaced;
        }
        // (set ids are dense: a flag per set)
        let mut is_pending = vec![false; self.next_id.max(0) as usize];
        for &id in &self.pending {
            is_pending[id as usize] = true;
        }
        let mut ids = std::mem::take(&mut self.pending);
        ids.sort_unstable();
        ids.dedup();
        // the pending sets' rows, grouped by set in row order (a stable sort)
        let mut rows: Vec<u32> = (0..self.rows.len() as u32)
            .filter(|&r| is_pending[self.rows[r as usize].set_id as usize])
            .collect();
        rows.sort_by_key(|&r| self.rows[r as usize].set_id);
        let mut next_row = 0;
        for id in ids {
            let first = next_row;
            while next_row < rows.len() && self.rows[rows[next_row] as usize].set_id as i64 == id {
                next_row += 1;
            }
            let hash = content_hash(rows[first..next_row].iter().map(|&r| {
                let row = &self.rows[r as usize];
                (
                    &*self.keys[row.key as usize],
                    row.value.hashed(&self.strings),
                )
            }));
            match self.by_content.get(&hash) {
                Some(&equal) => {
                    replaced.insert(id, equal);
                }
                None => {
                    self.by_content.insert(hash, id);
                }
            }
        }
        if !replaced.is_empty() {
            self.rows
                .retain(|r| !replaced.contains_key(&(r.set_id as i64)));
        }
        replaced
    }

    /// Adds `items` to the set `set_id` (one made by `add_set_unique`:
    /// args added to a row after it was created); a key the set has gets
    /// the new value in place (ArgsInserter::AddArg's kAddOrUpdate).
    pub fn extend_set<K: AsRef<str>>(&mut self, set_id: i64, items: &[(K, Option<ArgVal>)]) {
        for (key, value) in items {
            let Some(value) = value else { continue };
            let key = self.key_id(key.as_ref());
            let value = match value {
                ArgVal::Bool(b) => ArgValue::Bool(*b),
                ArgVal::Uint(u) => ArgValue::Uint(*u as i64),
                // uint64 args keep their int64 bit pattern (Variadic::UnsignedInteger)
                ArgVal::Int(i) if *i > i64::MAX as i128 => ArgValue::Uint(*i as u64 as i64),
                ArgVal::Int(i) => ArgValue::Int(*i as i64),
                ArgVal::Real(r) => ArgValue::Real(*r),
                ArgVal::Str(s) => ArgValue::Str(self.string_id(s)),
                ArgVal::NullStr => ArgValue::NullStr,
                ArgVal::Pointer(p) => ArgValue::Pointer(*p as i64),
            };
            let found = self
                .growing_rows(set_id)
                .map(|mut rows| rows.find(|&r| self.rows[r as usize].key == key));
            if let Some(found) = found {
                if let Some(r) = found {
                    self.rows[r as usize].value = value;
                    continue;
                }
                let row = self.rows.len() as u32;
                let (start, len) = &mut self.growing[set_id as usize];
                if row == *start + *len {
                    *len += 1;
                } else {
                    self.grown.entry(set_id).or_default().push(row);
                }
            }
            // (set ids are dense from 0: far from u32's range)
            self.rows.push(ArgRow {
                set_id: set_id as u32,
                key,
                value,
            });
        }
    }

    /// Each set's public id, by set id: the row id of its first arg, as
    /// trace_processor numbers arg sets (an arg set id is the id of the
    /// set's first row in `args`); None for a set without args (the
    /// reference gives such a row no arg set). Read once the import ended.
    pub fn public_ids(&self) -> Vec<Option<i64>> {
        let mut ids = vec![None; self.next_id.max(0) as usize];
        for (row, r) in self.rows.iter().enumerate() {
            let id = &mut ids[r.set_id as usize];
            if id.is_none() {
                *id = Some(row as i64);
            }
        }
        ids
    }

    /// Whether `set_id` was made by `add_set_unique` and may still grow.
    pub fn is_growing(&self, set_id: i64) -> bool {
        self.growing_rows(set_id).is_some()
    }

    /// The set `set_id`'s args (key, value), in row order.
    pub fn items_of(&self, set_id: i64) -> Vec<(String, Option<ArgVal>)> {
        self.rows
            .iter()
            .filter(|r| r.set_id as i64 == set_id)
            .map(|r| {
                (
                    self.keys[r.key as usize].to_string(),
                    Some(r.value.to_arg(&self.strings)),
                )
            })
            .collect()
    }

    /// Whether the set `set_id` has an arg `key` (kSkipIfExists).
    pub fn has_key(&self, set_id: i64, key: &str) -> bool {
        let Some(&key) = self.key_ids.get(key) else {
            return false;
        };
        match self.growing_rows(set_id) {
            Some(mut rows) => rows.any(|r| self.rows[r as usize].key == key),
            None => self
                .rows
                .iter()
                .any(|r| r.set_id as i64 == set_id && r.key == key),
        }
    }

    /// Adds one arg set of `args` ((`key_id`, value), in order) without
    /// looking for an equal set: for a caller that keeps
    /// its own sets distinct by content (`SchedArgs`, whose sets no other
    /// importer makes: the sched_switch fields as keys).
    pub fn add_distinct_set(&mut self, args: impl IntoIterator<Item = (u32, ArgValue)>) -> i64 {
        let set_id = self.open_set(false);
        for (key, value) in args {
            // (set ids are dense from 0: far from u32's range)
            self.rows.push(ArgRow {
                set_id: set_id as u32,
                key,
                value,
            });
        }
        set_id
    }

    pub fn key_id(&mut self, key: &str) -> u32 {
        intern(&mut self.keys, &mut self.key_ids, key)
    }

    pub fn string_id(&mut self, s: &str) -> u32 {
        intern(&mut self.strings, &mut self.string_ids, s)
    }
}

/// The id of `s` in `list` (by `ids`), added if new.
fn intern(list: &mut Vec<Box<str>>, ids: &mut HashMap<Box<str>, u32>, s: &str) -> u32 {
    if let Some(&id) = ids.get(s) {
        return id;
    }
    let id = list.len() as u32;
    list.push(s.into());
    ids.insert(s.into(), id);
    id
}

/// `items` with each repeated key kept once, at its first place, with its
/// last value (None values are no args); None when no key repeats (the
/// usual case, checked without allocating).
fn collapse_repeated_keys<K: AsRef<str>>(
    items: &[(K, Option<ArgVal>)],
) -> Option<Vec<(&str, Option<ArgVal>)>> {
    let present = || {
        items
            .iter()
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| k.as_ref())
    };
    // (a scan for small sets, as ArgsInserter below 32 args)
    let repeats = if items.len() <= 32 {
        present()
            .enumerate()
            .any(|(i, key)| present().skip(i + 1).any(|k| k == key))
    } else {
        let mut seen = rustc_hash::FxHashSet::default();
        !present().all(|k| seen.insert(k))
    };
    if !repeats {
        return None;
    }
    let mut kept: Vec<(&str, Option<ArgVal>)> = Vec::with_capacity(items.len());
    let mut place: HashMap<&str, usize> = HashMap::default();
    for (key, value) in items.iter().filter(|(_, v)| v.is_some()) {
        match place.get(key.as_ref()) {
            Some(&i) => kept[i].1 = value.clone(),
            None => {
                place.insert(key.as_ref(), kept.len());
                kept.push((key.as_ref(), value.clone()));
            }
        }
    }
    Some(kept)
}

/// A 64-bit hash of an arg set's content (None values are no args; each
/// value's type counts), as trace_processor's ArgSetHash. Hashed field by
/// field (aHash with fixed seeds), without formatting the set.
fn content_hash<'a>(args: impl Iterator<Item = (&'a str, Hashed<'a>)>) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    // fixed seeds: the same content hashes the same in every import
    let mut h = ahash::RandomState::with_seeds(
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    )
    .build_hasher();
    for (key, value) in args {
        key.hash(&mut h);
        match value {
            Hashed::Int(i) => (0u8, i).hash(&mut h),
            Hashed::Uint(u) => (1u8, u).hash(&mut h),
            Hashed::Real(bits) => (2u8, bits).hash(&mut h),
            Hashed::Str(s) => (3u8, s).hash(&mut h),
            Hashed::Bool(b) => (4u8, b).hash(&mut h),
            Hashed::NullStr => 5u8.hash(&mut h),
            Hashed::Pointer(p) => (6u8, p).hash(&mut h),
        }
    }
    h.finish()
}

/// An arg's value as `content_hash` reads it: the same for a value given
/// (`ArgVal`) and the same value stored (`ArgValue`).
enum Hashed<'a> {
    Int(i128),
    Uint(u64),
    Real(u64),
    Str(&'a str),
    Bool(bool),
    NullStr,
    Pointer(u64),
}

impl ArgVal {
    fn hashed(&self) -> Hashed<'_> {
        match self {
            ArgVal::Int(i) => Hashed::Int(*i),
            ArgVal::Uint(u) => Hashed::Uint(*u),
            ArgVal::Real(r) => Hashed::Real(r.to_bits()),
            ArgVal::Str(s) => Hashed::Str(s),
            ArgVal::Bool(b) => Hashed::Bool(*b),
            ArgVal::NullStr => Hashed::NullStr,
            ArgVal::Pointer(p) => Hashed::Pointer(*p),
        }
    }
}

impl ArgValue {
    /// As `to_arg()`'s value hashes.
    fn hashed<'a>(&self, strings: &'a [Box<str>]) -> Hashed<'a> {
        match self {
            ArgValue::Int(i) => Hashed::Int(*i as i128),
            ArgValue::Uint(u) => Hashed::Uint(*u as u64),
            ArgValue::Real(r) => Hashed::Real(r.to_bits()),
            ArgValue::Str(s) => Hashed::Str(&strings[*s as usize]),
            ArgValue::Bool(b) => Hashed::Bool(*b),
            ArgValue::NullStr => Hashed::NullStr,
            ArgValue::Pointer(p) => Hashed::Pointer(*p as u64),
        }
    }
}

/// An arg's flat_key: its key without array indices ("args[0]" -> "args"),
/// as trace_processor flattens them.
pub fn flat_key(key: &str) -> std::borrow::Cow<'_, str> {
    if !key.contains('[') {
        return key.into();
    }
    let mut out = String::with_capacity(key.len());
    let mut depth = 0;
    for ch in key.chars() {
        match ch {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out.into()
}

/// A dimension's value, which tells a track apart from the others of its
/// type.
#[derive(Debug, Clone)]
pub enum Dim {
    Int(i64),
    /// an unsigned dimension (trace_processor's UintDimensionBlueprint:
    /// value_type 'uint'), e.g. track_compressor_idx, ugpu
    Uint(u64),
    Str(String),
    /// a null interned string (see `ArgVal::NullStr`): a value of its own
    NullStr,
    /// an absent string field given as a string view: NULL in the track's
    /// args, but the same track as the empty string (trace_processor hashes
    /// a string view dimension's characters)
    NullView,
}

impl Dim {
    /// A string view dimension of a field that may be absent.
    pub fn opt_str(s: Option<&str>) -> Dim {
        s.map_or(Dim::NullView, |s| Dim::Str(s.to_owned()))
    }

    /// The value a track's identity reads.
    fn content(&self) -> (u8, i128, &str) {
        match self {
            Dim::Int(i) => (0, *i as i128, ""),
            Dim::Uint(u) => (1, *u as i128, ""),
            Dim::Str(s) => (2, 0, s),
            Dim::NullView => (2, 0, ""),
            Dim::NullStr => (3, 0, ""),
        }
    }
}

impl PartialEq for Dim {
    fn eq(&self, other: &Self) -> bool {
        self.content() == other.content()
    }
}

impl Eq for Dim {}

impl std::hash::Hash for Dim {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.content().hash(state);
    }
}

pub type Dims = Vec<(&'static str, Dim)>;

pub struct TrackRow {
    pub name: Option<String>,
    pub type_: &'static str,
    pub dimension_arg_set_id: Option<i64>,
    pub event_type: &'static str,
    pub utid: Option<u32>,
    pub upid: Option<u32>,
    pub cpu: Option<i64>,
    /// counter_track.unit (the blueprint's unit)
    pub unit: Option<std::borrow::Cow<'static, str>>,
    /// track.parent_id (track_event tracks nested in their parent's)
    pub parent: Option<u32>,
    /// the track's description (a `description` arg in its source arg set,
    /// which counter_track.description shows)
    pub source_arg_set_id: Option<i64>,
    pub description: Option<String>,
    /// the machine it belongs to (`crate::machines`)
    pub machine: u16,
}

#[derive(Default)]
pub struct Tracks {
    pub rows: Vec<TrackRow>,
    by_key: HashMap<(&'static str, Dims, Option<String>, u32, u16), u32>,
    /// The ucpus (machine * 4096 + cpu) named by a track's `cpu` dimension
    /// (trace_processor's MarkCpuValid: each gets a `cpu` row).
    pub cpus: std::collections::BTreeSet<i64>,
    /// The machine whose tracks `intern` makes and finds (its own, as
    /// trace_processor's per-machine TrackTracker): set by the replay for
    /// a remote machine's packet, 0 (the host) otherwise.
    pub machine: u16,
}

/// Which table view a track belongs to (its `_utid` / `_upid` / `_cpu`).
#[derive(Default, Clone, Copy)]
pub struct Owner {
    pub utid: Option<u32>,
    pub upid: Option<u32>,
    pub cpu: Option<i64>,
}

impl Tracks {
    #[allow(clippy::too_many_arguments)]
    pub fn intern(
        &mut self,
        args: &mut Args,
        type_: &'static str,
        name: Option<&str>,
        event_type: &'static str,
        dims: Dims,
        owner: Owner,
        slot: u32,
    ) -> u32 {
        let ucpu_base = self.machine as i64 * crate::machines::MAX_CPUS_PER_MACHINE;
        let (mut dims, mut owner) = (dims, owner);
        let mut renamed = None;
        if ucpu_base > 0 {
            // a remote machine's event names its cpu by ucpu: its tracks, by
            // the machine's cpu (the machine is the track's), in their
            // dimensions, owner and name
            let mut ucpu = None;
            let mut cpu = |c: i64| {
                if c < ucpu_base {
                    return c;
                }
                ucpu = Some(c);
                c - ucpu_base
            };
            for (k, v) in dims.iter_mut() {
                if let ("cpu", Dim::Int(c)) = (*k, &*v) {
                    *v = Dim::Int(cpu(*c));
                }
            }
            owner.cpu = owner.cpu.map(&mut cpu);
            if let (Some(u), Some(n)) = (ucpu, name) {
                renamed = Some(n.replace(&u.to_string(), &(u - ucpu_base).to_string()));
            }
        }
        let name = renamed.as_deref().or(name);
        let key_name = if dims.is_empty() {
            name.map(str::to_owned)
        } else {
            None
        };
        let key = (type_, dims, key_name, slot, self.machine);
        if let Some(&id) = self.by_key.get(&key) {
            return id;
        }
        let id = self.rows.len() as u32;
        for (k, v) in &key.1 {
            if let ("cpu", Dim::Int(c)) = (*k, v) {
                self.cpus.insert(ucpu_base + *c);
            }
        }
        let dim_id = if key.1.is_empty() {
            None
        } else {
            let items: Vec<(&str, Option<ArgVal>)> = key
                .1
                .iter()
                .map(|(k, v)| {
                    (
                        *k,
                        Some(match v {
                            Dim::Int(i) => ArgVal::Int(*i as i128),
                            Dim::Uint(u) => ArgVal::Uint(*u),
                            Dim::Str(s) => ArgVal::Str(s.clone()),
                            Dim::NullStr | Dim::NullView => ArgVal::NullStr,
                        }),
                    )
                })
                .collect();
            Some(args.add_set(&items))
        };
        self.rows.push(TrackRow {
            name: name.map(str::to_owned),
            type_,
            dimension_arg_set_id: dim_id,
            event_type,
            utid: owner.utid,
            upid: owner.upid,
            cpu: owner.cpu,
            unit: None,
            parent: None,
            source_arg_set_id: None,
            description: None,
            machine: self.machine,
        });
        self.by_key.insert(key, id);
        id
    }

    /// `intern`, plus what trace_processor's blueprints set when they create
    /// a track: its unit and its source args (`source_args` runs only when
    /// the track is new, as TrackTracker's args callback).
    #[allow(clippy::too_many_arguments)]
    pub fn intern_with(
        &mut self,
        args: &mut Args,
        type_: &'static str,
        name: Option<&str>,
        event_type: &'static str,
        dims: Dims,
        owner: Owner,
        unit: Option<&'static str>,
        source_args: impl FnOnce() -> Vec<(&'static str, Option<ArgVal>)>,
    ) -> u32 {
        let before = self.rows.len();
        let id = self.intern(args, type_, name, event_type, dims, owner, 0);
        if id as usize == before {
            let items = source_args();
            let row = &mut self.rows[id as usize];
            row.unit = unit.map(std::borrow::Cow::Borrowed);
            if !items.is_empty() {
                row.source_arg_set_id = Some(args.add_set(&items));
            }
        }
        id
    }

    /// Gives track `id` its description (once, as a blueprint does when it
    /// creates the track): counter_track.description and a `description`
    /// arg in its source arg set.
    pub fn describe(&mut self, args: &mut Args, id: u32, description: &str) {
        let Some(row) = self.rows.get_mut(id as usize) else {
            return;
        };
        if row.description.is_some() {
            return;
        }
        row.description = Some(description.to_owned());
        row.source_arg_set_id =
            Some(args.add_set(&[("description", Some(ArgVal::Str(description.to_owned())))]));
    }

    /// The track of `type_` with dimensions `dims` (not empty), if interned.
    pub fn lookup(&self, type_: &'static str, dims: &Dims) -> Option<u32> {
        self.by_key
            .get(&(type_, dims.clone(), None, 0, self.machine))
            .copied()
    }

    pub fn thread_track(&self, utid: u32) -> Option<u32> {
        let key = (
            "thread_execution",
            vec![("utid", Dim::Int(utid as i64))],
            None,
            0u32,
            self.machine,
        );
        self.by_key.get(&key).copied()
    }
}

/// A real as SQLite's CAST(x AS TEXT) writes it (`%!.15g`: 15 significant
/// digits, at least one after the point, e.g. "16.6000003814697",
/// "1.0e+20"): trace_processor's args view makes display_value with
/// `cast_string!(real_value)`. Written by the bundled SQLite itself, so the
/// two agree to the digit.
fn sqlite_real_text(x: f64) -> String {
    // SAFETY: a NUL-terminated format taking one double; the result is
    // NUL-terminated text owned by SQLite (NULL only when out of memory),
    // copied, then freed with sqlite3_free.
    unsafe {
        let p = rusqlite::ffi::sqlite3_mprintf(c"%!.15g".as_ptr(), x);
        if p.is_null() {
            return x.to_string();
        }
        let text = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        rusqlite::ffi::sqlite3_free(p.cast());
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_are_written_as_sqlite_casts_them() {
        let cases = [
            (16.600000381469727, "16.6000003814697"),
            (1e20, "1.0e+20"),
            (1.0, "1.0"),
            (1e-5, "1.0e-05"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123456789012345678.0, "1.23456789012346e+17"),
        ];
        for (x, want) in cases {
            assert_eq!(sqlite_real_text(x), want);
        }
    }

    #[test]
    fn equal_arg_sets_are_stored_once_unless_extendable() {
        let mut args = Args::default();
        let a = args.add_set(&[("cpu", Some(ArgVal::Int(1))), ("name", None)]);
        // the same content (a None value is no arg): the same set
        assert_eq!(args.add_set(&[("cpu", Some(ArgVal::Int(1)))]), a);
        // another type or value: another set
        let b = args.add_set(&[("cpu", Some(ArgVal::Uint(1)))]);
        let c = args.add_set(&[("cpu", Some(ArgVal::Int(2)))]);
        assert!(a != b && b != c && a != c);
        // a set that gets more args later is its own until committed, then
        // stored once with an equal set
        let d = args.add_set_unique(&[("cpu", Some(ArgVal::Int(1)))]);
        assert_ne!(d, a);
        args.extend_set(d, &[("end", Some(ArgVal::Int(9)))]);
        let e = args.add_set_unique(&[("cpu", Some(ArgVal::Int(1)))]);
        args.extend_set(e, &[("end", Some(ArgVal::Int(9)))]);
        let f = args.add_set_unique(&[("cpu", Some(ArgVal::Int(2)))]);
        assert_eq!(args.rows.iter().filter(|r| r.set_id as i64 == a).count(), 1);
        assert_eq!(args.rows.iter().filter(|r| r.set_id as i64 == d).count(), 2);
        let replaced = args.commit_pending();
        // e equals d; f (cpu 2) equals c
        assert_eq!(replaced.len(), 2);
        assert_eq!((replaced[&e], replaced[&f]), (d, c));
        assert!(args
            .rows
            .iter()
            .all(|r| r.set_id as i64 != e && r.set_id as i64 != f));
        assert_eq!(args.rows.iter().filter(|r| r.set_id as i64 == d).count(), 2);
    }
}
