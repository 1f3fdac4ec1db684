//! Raw ftrace ingestion (`ftrace_event`): one row per ftrace event replayed,
//! in replay order, with its common pid's utid and its fields as args.

use crate::decoder::ftrace_schema::generic_fields;
use crate::decoder::proto::{symbol_address_field, SYMBOL_FIELD};
use crate::decoder::wire::FieldKind;
use crate::ints::Ints;
use crate::trackers::core::tracks::{ArgVal, ArgValue, Args};
use crate::trackers::PerCpu;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::events::{
    FieldVal, FtraceEv, StrId, Strings, Waking, NULL_STR, WAKING_COMM, WAKING_PID, WAKING_PRIO,
    WAKING_SUCCESS, WAKING_TARGET_CPU,
};

/// ftrace_event rows, narrow (millions of rows on a real trace): names as
/// ids into `names`, integers as narrow as their values (`Ints`), NULLs as
/// -1.
#[derive(Default)]
pub struct RawTable {
    pub ts: Vec<i64>,
    pub name: Ints,
    /// the distinct event names, in order of first appearance
    pub names: Vec<&'static str>,
    /// the cpu field (uint32)
    pub cpu: Ints,
    /// -1 = NULL
    pub utid: Ints,
    /// the trackers' arg set; -1 = NULL
    pub arg_set: Ints,
    /// first / last ts of the rows that are not sched_switch rows of sched
    /// (trace bounds, as the reference computes them)
    pub other_first_last: Option<(i64, i64)>,
    /// (row, common_flags) of the rows whose flags are not 0: sparse, as
    /// they are rare (the column is built from it, 1 byte a row when all
    /// fit)
    pub flags: Vec<(u32, u32)>,
    /// the common_flags of the next row pushed (set by the replay)
    pub next_flags: u32,
}

impl RawTable {
    pub fn reserve(&mut self, n: usize) {
        self.ts.reserve_exact(n);
        self.name.reserve_exact(n);
        self.cpu.reserve_exact(n);
        self.utid.reserve_exact(n);
        self.arg_set.reserve_exact(n);
    }

    pub fn push(
        &mut self,
        ts: i64,
        name: &'static str,
        cpu: i64,
        utid: Option<u32>,
        arg_set: Option<i64>,
        sched_row: bool,
    ) {
        self.ts.push(ts);
        // (by address first: the replay names its events from constants,
        // and comparing the text of "sched_switch" and "sched_waking" on
        // every waking showed in profiles)
        let id = match (self.names.iter().position(|&n| std::ptr::eq(n, name)))
            .or_else(|| self.names.iter().position(|&n| n == name))
        {
            Some(i) => i,
            None => {
                self.names.push(name);
                self.names.len() - 1
            }
        };
        if self.next_flags != 0 {
            self.flags.push((self.name.len() as u32, self.next_flags));
            self.next_flags = 0;
        }
        self.name.push(id as i64);
        self.cpu.push(cpu as u32 as i64);
        self.utid.push(utid.map_or(-1, i64::from));
        self.arg_set.push(arg_set.unwrap_or(-1));
        if !sched_row {
            self.other_first_last = Some(match self.other_first_last {
                None => (ts, ts),
                Some((a, _)) => (a, ts),
            });
        }
    }
}

/// The common_flags column: 0 where the event had none.
pub enum FlagsColumn {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl RawTable {
    pub fn flags_column(&self) -> FlagsColumn {
        let rows = self.ts.len();
        if self.flags.iter().all(|&(_, f)| f <= u8::MAX as u32) {
            let mut v = vec![0u8; rows];
            for &(r, f) in &self.flags {
                v[r as usize] = f as u8;
            }
            FlagsColumn::Narrow(v)
        } else {
            let mut v = vec![0u32; rows];
            for &(r, f) in &self.flags {
                v[r as usize] = f;
            }
            FlagsColumn::Wide(v)
        }
    }
}

/// The arg set of an ftrace event's raw row (0 without fields:
/// trace_processor's ftrace_event.arg_set_id is not nullable, a row without
/// args has 0, whatever set 0 is): its fields, unsigned ones
/// (uint32 / uint64 in the event's proto) typed 'uint' and an interned
/// kernel symbol's iid replaced by the symbol, as trace_processor gives
/// them; each distinct set stored once (trace_processor shares them).
pub fn event_args(args: &mut Args, e: &FtraceEv) -> i64 {
    // (`__*` fields are the importer's own)
    if e.fields.iter().all(|f| f.0.starts_with("__")) {
        return 0;
    }
    // a legacy generic event's fields are its own, whatever its name: no
    // typed event's schema says which are unsigned
    let specs = if e.generic {
        &[]
    } else {
        generic_fields(e.name).unwrap_or(&[])
    };
    let symbol = e.str(SYMBOL_FIELD);
    let symbol_field = symbol.and(symbol_address_field(e.name));
    let items: Vec<(&str, Option<ArgVal>)> = e
        .fields
        .iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .filter_map(|(k, v)| {
            let unsigned = specs
                .iter()
                .any(|s| s.1 == *k && matches!(s.2, FieldKind::U32 | FieldKind::U64));
            let value = match v {
                _ if Some(*k) == symbol_field => ArgVal::Str(symbol.unwrap_or("").to_owned()),
                FieldVal::Int(i) if unsigned && *i >= 0 && *i <= u64::MAX as i128 => {
                    ArgVal::Uint(*i as u64)
                }
                FieldVal::Int(i) => ArgVal::Int(*i),
                FieldVal::Str(s) => ArgVal::Str(s.clone()),
                FieldVal::Bool(b) => ArgVal::Bool(*b),
                FieldVal::Real(r) => ArgVal::Real(*r),
                // (only an importer's own field holds one)
                FieldVal::List(_) => return None,
            };
            Some((*k, Some(value)))
        })
        .collect();
    args.add_set(&items)
}

/// A comm in a sched event's args: a decoded string, or a thread's name
/// (compact_sched infers prev_comm from it).
pub enum Comm<'a> {
    Str(StrId),
    Name(&'a Arc<str>),
    Null,
}

impl Comm<'_> {
    fn arg(&self, strings: &Strings) -> ArgVal {
        match self {
            Comm::Str(NULL_STR) => ArgVal::NullStr,
            Comm::Str(id) => ArgVal::Str(strings.get(*id).to_owned()),
            Comm::Name(n) => ArgVal::Str(n.to_string()),
            Comm::Null => ArgVal::NullStr,
        }
    }

    /// The comm as one word of a cache key: a decoded string by its id, a
    /// thread name by its address (the cache holds every name it keys by,
    /// so no other string can take that address while it is cached).
    fn word(&self) -> u64 {
        match self {
            Comm::Str(id) => *id as u64,
            Comm::Name(n) => (1 << 63) | Arc::as_ptr(*n) as *const u8 as u64,
            Comm::Null => 1 << 62,
        }
    }
}

/// A sched_switch's raw args (FtraceSchedEventTracker::AddRawSchedSwitchEvent).
pub struct SwitchArgs<'a> {
    pub prev_comm: Comm<'a>,
    pub prev_pid: i64,
    pub prev_prio: i64,
    pub prev_state: i64,
    pub next_comm: StrId,
    pub next_pid: i64,
    pub next_prio: i64,
}

/// The arg sets of sched_switch / sched_waking raw rows. Millions of rows
/// share a few thousand distinct sets: each distinct set is made (and
/// deduplicated by content, `Args::add_set`) once, then found by its
/// fields in a hash map, without building its args again.
#[derive(Default)]
pub struct SchedArgs {
    /// switch args packed in five words (`SwitchArgs::key`), by their 64-bit
    /// mix (a fingerprint, as `Args::add_set` keys sets by a content hash:
    /// 16-byte entries keep the map small enough for the CPU caches, the
    /// lookup's cost) -> set
    switches: FingerprintMap,
    /// the thread names `switches` and `name_ids` key by address, kept
    /// alive (each once: `comm_value` adds it)
    names: Vec<Arc<str>>,
    wakings: FxHashMap<(StrId, i64, i32, i32, i32, u8), i64>,
    /// per CPU, the key of the switch the replay expects there next and its
    /// mix (`prefetch_switch` computes both): `switch` reuses the mix when
    /// the switch it is given has that key
    expected: PerCpu<(SwitchKey, u64)>,
    /// the switch sets' keys as `Args::key_id`s, once
    switch_keys: Option<[u32; 7]>,
    /// a comm's `Args::string_id`: by decoded string id (u32::MAX: not yet
    /// looked up), by thread name address (those names kept in `names`)
    comm_ids: Vec<u32>,
    name_ids: FxHashMap<usize, u32>,
    /// every switch set made, by its content ([prev_comm, prev_pid,
    /// prev_prio, prev_state, next_comm, next_pid, next_prio], a comm as its
    /// string id, -1 for NULL): two switch keys of one content (a name
    /// decoded and the same name held by a thread) get one set, as
    /// `Args::add_set` deduplicates
    by_content: FxHashMap<[i64; 7], i64>,
}

/// A switch set's keys, in the order trace_processor adds them
/// (FtraceSchedEventTracker::AddRawSchedSwitchEvent).
const SWITCH_KEYS: [&str; 7] = [
    "prev_comm",
    "prev_pid",
    "prev_prio",
    "prev_state",
    "next_comm",
    "next_pid",
    "next_prio",
];

/// Fingerprint -> set: open addressing, linear probing (fingerprint 0
/// marks an empty slot, so a fingerprint of 0 is kept as 1). A key's slot
/// is known before the lookup: the replay prefetches the slot of the switch
/// it expects next on a CPU (`SchedArgs::prefetch_switch`), whose lookup
/// would otherwise wait on a cache miss.
struct FingerprintMap {
    slots: Vec<(u64, u32)>,
    used: usize,
}

impl Default for FingerprintMap {
    fn default() -> Self {
        FingerprintMap {
            slots: vec![(0, 0); 1 << 10],
            used: 0,
        }
    }
}

impl FingerprintMap {
    #[inline]
    fn slot(&self, fingerprint: u64) -> usize {
        fingerprint as usize & (self.slots.len() - 1)
    }

    /// The slot holding `fingerprint` (kept as 1 when 0), else the empty
    /// slot where it would go.
    #[inline]
    fn find(&self, fingerprint: u64) -> usize {
        let mut i = self.slot(fingerprint);
        while self.slots[i].0 != 0 && self.slots[i].0 != fingerprint {
            i = (i + 1) & (self.slots.len() - 1);
        }
        i
    }

    #[inline]
    fn get(&self, fingerprint: u64) -> Option<u32> {
        match self.slots[self.find(fingerprint.max(1))] {
            (0, _) => None,
            (_, v) => Some(v),
        }
    }

    fn insert(&mut self, fingerprint: u64, value: u32) {
        if 2 * (self.used + 1) > self.slots.len() {
            let grown = vec![(0, 0); 2 * self.slots.len()];
            let old = std::mem::replace(&mut self.slots, grown);
            self.used = 0;
            for (k, v) in old.into_iter().filter(|e| e.0 != 0) {
                self.insert(k, v);
            }
        }
        let fingerprint = fingerprint.max(1);
        let i = self.find(fingerprint);
        if self.slots[i].0 == 0 {
            self.used += 1;
        }
        self.slots[i] = (fingerprint, value);
    }

    /// A hint: the slot of `fingerprint` brought into the cache.
    #[inline]
    fn prefetch(&self, fingerprint: u64) {
        crate::sorter::prefetch(&self.slots, self.slot(fingerprint.max(1)));
    }
}

/// A switch's args in five words.
#[derive(Clone, Copy, PartialEq, Eq)]
struct SwitchKey(u64, u64, u64, u64, u64);

impl SwitchKey {
    /// The words mixed into one (murmur3's finalizer).
    fn mixed(&self) -> u64 {
        fn mix(mut h: u64) -> u64 {
            h ^= h >> 33;
            h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
            h ^= h >> 33;
            h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
            h ^ (h >> 33)
        }
        let mut h = mix(self.0);
        for w in [self.1, self.2, self.3, self.4] {
            h = mix(h ^ w);
        }
        h
    }
}

impl SwitchArgs<'_> {
    /// The args as `Args::add_set` takes them.
    fn items(&self, strings: &Strings) -> [(&'static str, Option<ArgVal>); 7] {
        let next_comm = match self.next_comm {
            NULL_STR => ArgVal::NullStr,
            id => ArgVal::Str(strings.get(id).to_owned()),
        };
        let int = |v: i64| Some(ArgVal::Int(v as i128));
        let values = [
            Some(self.prev_comm.arg(strings)),
            int(self.prev_pid),
            int(self.prev_prio),
            int(self.prev_state),
            Some(next_comm),
            int(self.next_pid),
            int(self.next_prio),
        ];
        let mut values = values.into_iter();
        SWITCH_KEYS.map(|k| (k, values.next().flatten()))
    }

    /// The args packed for the cache; None when a value does not fit its
    /// 32 bits (such a switch's set is made, deduplicated by content, every
    /// time).
    fn key(&self) -> Option<SwitchKey> {
        let w32 = |v: i64| i32::try_from(v).ok().map(|v| v as u32 as u64);
        Some(SwitchKey(
            self.prev_comm.word(),
            self.next_comm as u64,
            w32(self.prev_pid)? << 32 | w32(self.next_pid)?,
            w32(self.prev_prio)? << 32 | w32(self.next_prio)?,
            self.prev_state as u64,
        ))
    }
}

impl SchedArgs {
    /// A hint: the cache slot of `a`, the switch expected next on `cpu`,
    /// fetched ahead of its lookup.
    #[inline]
    pub fn prefetch_switch(&mut self, cpu: i64, a: &SwitchArgs) {
        if let Some(k) = a.key() {
            let mixed = k.mixed();
            self.switches.prefetch(mixed);
            self.expected.insert(cpu, (k, mixed));
        }
    }

    /// The arg set of a switch on `cpu`.
    pub fn switch(&mut self, args: &mut Args, strings: &Strings, cpu: i64, a: SwitchArgs) -> i64 {
        let key = a.key().map(|k| match self.expected.get(cpu) {
            Some(&(expected, mixed)) if expected == k => mixed,
            _ => k.mixed(),
        });
        if let Some(set) = key.and_then(|k| self.switches.get(k)) {
            return set as i64;
        }
        let Some(key) = key else {
            // (a value past 32 bits: made and deduplicated as any set)
            return args.add_set(&a.items(strings));
        };
        // (a thread name in `key` is kept alive by `distinct_set`)
        let set = self.distinct_set(args, strings, &a);
        if let Ok(id) = u32::try_from(set) {
            self.switches.insert(key, id);
        }
        set
    }

    /// The set of `a`'s args: the one made for the same content before, else
    /// a new one (`Args::add_distinct_set`).
    fn distinct_set(&mut self, args: &mut Args, strings: &Strings, a: &SwitchArgs) -> i64 {
        let keys = *self
            .switch_keys
            .get_or_insert_with(|| SWITCH_KEYS.map(|k| args.key_id(k)));
        let prev_comm = self.comm_value(args, strings, &a.prev_comm);
        let next_comm = self.comm_value(args, strings, &Comm::Str(a.next_comm));
        let word = |v: &ArgValue| match v {
            ArgValue::Str(id) => *id as i64,
            _ => -1,
        };
        let content = [
            word(&prev_comm),
            a.prev_pid,
            a.prev_prio,
            a.prev_state,
            word(&next_comm),
            a.next_pid,
            a.next_prio,
        ];
        if let Some(&set) = self.by_content.get(&content) {
            return set;
        }
        let values = [
            prev_comm,
            ArgValue::Int(a.prev_pid),
            ArgValue::Int(a.prev_prio),
            ArgValue::Int(a.prev_state),
            next_comm,
            ArgValue::Int(a.next_pid),
            ArgValue::Int(a.next_prio),
        ];
        let set = args.add_distinct_set(keys.into_iter().zip(values));
        self.by_content.insert(content, set);
        set
    }

    /// A comm as an args value: its string's id, or the NULL string.
    fn comm_value(&mut self, args: &mut Args, strings: &Strings, comm: &Comm) -> ArgValue {
        match comm {
            Comm::Str(NULL_STR) | Comm::Null => ArgValue::NullStr,
            &Comm::Str(id) => {
                let i = id as usize;
                if i >= self.comm_ids.len() {
                    self.comm_ids.resize(i + 1, u32::MAX);
                }
                if self.comm_ids[i] == u32::MAX {
                    self.comm_ids[i] = args.string_id(strings.get(id));
                }
                ArgValue::Str(self.comm_ids[i])
            }
            Comm::Name(name) => {
                let at = Arc::as_ptr(*name) as *const u8 as usize;
                let id = match self.name_ids.get(&at) {
                    Some(&id) => id,
                    None => {
                        // (kept alive: no other string takes its address)
                        self.names.push(Arc::clone(name));
                        let id = args.string_id(name);
                        self.name_ids.insert(at, id);
                        id
                    }
                };
                ArgValue::Str(id)
            }
        }
    }

    /// A sched_waking's raw args: its fields present (compact: comm, pid,
    /// prio, target_cpu, as PushSchedWakingCompact adds them); 0, as
    /// `event_args`, with none.
    pub fn waking(&mut self, args: &mut Args, strings: &Strings, w: &Waking) -> i64 {
        if w.present == 0 {
            return 0;
        }
        let key = (
            w.comm,
            w.wakee_pid,
            w.prio,
            w.success,
            w.target_cpu,
            w.present,
        );
        if let Some(&set) = self.wakings.get(&key) {
            return set;
        }
        let has = |bit: u8| w.present & bit != 0;
        let int = |bit: u8, v: i64| has(bit).then_some(ArgVal::Int(v as i128));
        let items = [
            (
                "comm",
                has(WAKING_COMM).then(|| ArgVal::Str(strings.get(w.comm).to_owned())),
            ),
            ("pid", int(WAKING_PID, w.wakee_pid)),
            ("prio", int(WAKING_PRIO, w.prio as i64)),
            ("success", int(WAKING_SUCCESS, w.success as i64)),
            ("target_cpu", int(WAKING_TARGET_CPU, w.target_cpu as i64)),
        ];
        let set = args.add_set(&items);
        self.wakings.insert(key, set);
        set
    }
}

#[cfg(test)]
mod tests {
    use super::FingerprintMap;

    /// Every key inserted is found with its latest value across the table's
    /// growth (colliding slots probe on); others are not; 0 is kept as 1.
    #[test]
    fn fingerprint_map_finds_what_it_holds() {
        let mut m = FingerprintMap::default();
        let key = |i: u64| (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1 | (i % 7) << 1;
        for i in 0..5000u64 {
            m.insert(key(i), i as u32);
            // a key that lands in the same first slot as the one before
            m.insert(key(i) + (1 << 20), (i + 1) as u32);
        }
        m.insert(key(3), 77);
        for i in 0..5000u64 {
            let want = if i == 3 { 77 } else { i as u32 };
            assert_eq!(m.get(key(i)), Some(want));
            assert_eq!(m.get(key(i) + (1 << 20)), Some((i + 1) as u32));
        }
        assert_eq!(m.get(key(6000) + 12345), None);
        m.insert(0, 9);
        assert_eq!((m.get(0), m.get(1)), (Some(9), Some(9)));
        assert_eq!(m.used, 10_001);
    }
}
