//! One module per tracker, as trace_processor's importers are split. Each
//! works on the shared [`Ctx`] (identity, tracks/args, stats) plus its own
//! rows.
//!
//! `core` holds the importers behind the tables the metrics read (process
//! and thread identity, sched and thread_state, slices, counter tracks, the
//! ftrace_event table, frame timeline, cpus, import logs) and the tracks and
//! args every importer shares; `extra` the ones that give trace_processor's
//! other tables for data the metrics do not read (power, binder, GPUs,
//! profiles, logs, track events, device and network events, ...).

/// The importers behind the tables the metrics read.
pub mod core;
/// trace_processor parity: the importers of the other tables.
pub mod extra;

use std::collections::BTreeSet;

use self::core::process::ProcessTracker;
use self::core::tracks::{Args, Tracks};
use crate::events::Stats;

/// `s` as the reference's `base::StackString<N>` keeps it: at most
/// `size - 1` bytes (cut at a character boundary).
pub fn stack_string(mut s: String, size: usize) -> String {
    if s.len() >= size {
        let mut end = size - 1;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// State every tracker shares.
pub struct Ctx {
    pub pt: ProcessTracker,
    pub args: Args,
    pub tracks: Tracks,
    pub stats: Stats,
    /// each machine's stats but the host's (`stats`), by machine (index 0
    /// unused), once the replay ended
    pub machine_stats: Vec<Stats>,
    /// stats of the trace, not of a machine (import logs: trace_processor's
    /// ImportLogsTracker is per trace), counted while another machine's
    /// event is replayed: the host's once the replay ends
    pub trace_stats: Stats,
    pub slices: core::slices::SliceTracker,
    pub counters: core::counters::Counters,
    pub memory: core::memory::MemoryTracker,
    pub thread_state: core::sched::ThreadStateTracker,
    pub states: core::sched::EndStates,
    pub power: extra::power::PowerTracker,
    /// flow rows (slice_out, slice_in, trace_id) in creation order: the
    /// binder transactions' inferred flows and others (trace_id NULL), track
    /// events' flows (their flow id)
    pub flows: Vec<(u32, u32, Option<i64>)>,
    /// flow row -> its arg set (legacy flow v1's name and category)
    pub flow_args: rustc_hash::FxHashMap<u32, i64>,
    /// the `state` table (tracing sessions' states)
    pub state_rows: extra::sessions::StateRows,
    /// the `__intrinsic_logs` table (logcat)
    pub logs: extra::logs::LogRows,
    /// `_trace_import_logs` rows
    pub import_logs: Vec<core::import_logs::ImportLog>,
    /// callstacks (`stack_profile_*`), track events' callstacks and CPU
    /// profile samples
    pub stack_profile: extra::stack_profile::StackProfile,
    /// heapprofd's dumps (`heap_profile`, `heap_profile_allocation`)
    pub heap_profiles: extra::heap_profile::HeapProfiles,
    /// utsname.machine, lowercased (syscall numbering)
    pub machine: String,
    /// (major, minor) of the traced kernel from utsname (4.4 when unknown,
    /// as trace_processor assumes): CMA events' layouts depend on it
    pub kernel_version: (u32, u32),
    /// SystemInfo's page size (0 without SystemInfo): sys_stats block sizes
    pub page_size: u32,
    /// the trace is systrace text (some events' absent fields mean nothing
    /// there, 0 in protobuf)
    pub systrace: bool,
}

impl Ctx {
    /// Adds `counts[m]` to machine m's stat `name` (once the replay ended).
    pub fn add_per_machine(&mut self, name: &str, counts: &[i64]) {
        for (m, &n) in counts.iter().enumerate().filter(|x| *x.1 != 0) {
            let stats = match self.machine_stats.get_mut(m).filter(|_| m != 0) {
                Some(s) => s,
                None => &mut self.stats,
            };
            stats.add(name, n, None);
        }
    }

    /// Counts a stat of the trace (an import log's): the host's, whichever
    /// machine's event is replayed.
    pub fn count_trace_stat(&mut self, name: &str) {
        match self.pt.machine {
            0 => self.stats.add(name, 1, None),
            _ => self.trace_stats.add(name, 1, None),
        }
    }

    /// The slice track of `type_` for `cpu` (dimension cpu, shown as a
    /// `cpu_track`): irq / softirq, hrtimer and the idle task's funcgraph
    /// tracks.
    pub fn cpu_slice_track(&mut self, type_: &'static str, name: &str, cpu: i64) -> u32 {
        self.tracks.intern(
            &mut self.args,
            type_,
            Some(name),
            "slice",
            vec![("cpu", core::tracks::Dim::Int(cpu))],
            core::tracks::Owner {
                cpu: Some(cpu),
                ..Default::default()
            },
            0,
        )
    }
}

/// A value per integer key: a slot per key below `SMALL` (lookups per
/// event: a hash map's showed in profiles), a map for any other.
pub struct SmallKeyMap<T, const SMALL: usize> {
    small: Vec<Option<T>>,
    other: rustc_hash::FxHashMap<i64, T>,
}

/// A value per cpu.
pub type PerCpu<T> = SmallKeyMap<T, SMALL_CPUS>;

impl<T, const SMALL: usize> Default for SmallKeyMap<T, SMALL> {
    fn default() -> Self {
        SmallKeyMap {
            small: Vec::new(),
            other: Default::default(),
        }
    }
}

/// Cpu numbers below this are kept in a slot each (`PerCpu`, `CpuSet`);
/// any other (corrupt or exotic input) in a map.
const SMALL_CPUS: usize = 4096;

impl<T, const SMALL: usize> SmallKeyMap<T, SMALL> {
    #[inline]
    pub fn get(&self, key: i64) -> Option<&T> {
        match usize::try_from(key) {
            Ok(k) if k < SMALL => self.small.get(k).and_then(Option::as_ref),
            _ => self.other.get(&key),
        }
    }

    /// Sets `key`'s value, returning the one it replaces.
    #[inline]
    pub fn insert(&mut self, key: i64, value: T) -> Option<T> {
        match usize::try_from(key) {
            Ok(k) if k < self.small.len() => self.small[k].replace(value),
            _ => self.insert_new_slot(key, value),
        }
    }

    /// `insert` of a key without a slot yet: a slot made, or the map.
    #[cold]
    #[inline(never)]
    fn insert_new_slot(&mut self, key: i64, value: T) -> Option<T> {
        match usize::try_from(key) {
            Ok(k) if k < SMALL => {
                self.small.resize_with(k + 1, || None);
                self.small[k].replace(value)
            }
            _ => self.other.insert(key, value),
        }
    }

    /// Removes `key`'s value, returning it.
    pub fn remove(&mut self, key: i64) -> Option<T> {
        match usize::try_from(key) {
            Ok(k) if k < SMALL => self.small.get_mut(k).and_then(Option::take),
            _ => self.other.remove(&key),
        }
    }
}

/// A set of cpu numbers: a flag per small one (an insert per event or row:
/// a BTreeSet's showed in profiles), a set for any other.
#[derive(Default)]
pub struct CpuSet {
    small: Vec<bool>,
    other: BTreeSet<i64>,
}

impl CpuSet {
    #[inline]
    pub fn insert(&mut self, cpu: i64) {
        match usize::try_from(cpu) {
            Ok(c) if c < SMALL_CPUS => {
                if c >= self.small.len() {
                    self.small.resize(c + 1, false);
                }
                self.small[c] = true;
            }
            _ => {
                self.other.insert(cpu);
            }
        }
    }

    pub fn into_set(self) -> BTreeSet<i64> {
        let mut set = self.other;
        set.extend((0..self.small.len() as i64).filter(|&c| self.small[c as usize]));
        set
    }
}

#[cfg(test)]
mod tests {
    use super::SmallKeyMap;

    /// Keys in a slot and keys in the map (negative, past `SMALL`) behave
    /// alike: insert returns the value replaced, remove the value removed,
    /// and a removed key is gone.
    #[test]
    fn small_key_map_holds_slot_and_map_keys_alike() {
        let mut m: SmallKeyMap<u32, 8> = SmallKeyMap::default();
        for key in [0i64, 7, 8, -1, 1 << 40] {
            assert_eq!(m.get(key), None);
            assert_eq!(m.insert(key, 1), None);
            assert_eq!(m.insert(key, 2), Some(1));
            assert_eq!(m.get(key), Some(&2));
        }
        assert_eq!(m.remove(7), Some(2));
        assert_eq!(m.remove(1 << 40), Some(2));
        assert_eq!((m.get(7), m.get(1 << 40)), (None, None));
        assert_eq!(
            (m.remove(7), m.remove(5), m.remove(100)),
            (None, None, None)
        );
        assert_eq!(
            (m.get(0), m.get(8), m.get(-1)),
            (Some(&2), Some(&2), Some(&2))
        );
    }
}
