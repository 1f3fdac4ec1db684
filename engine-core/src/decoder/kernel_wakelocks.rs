//! KernelWakelockData (the `android.kernel_wakelocks` data source) as
//! trace_processor v58.2's AndroidKernelWakelocksModule reads it when it
//! tokenizes a packet (importers/proto/android_kernel_wakelocks_module.cc),
//! in file order:
//!
//! - per sequence (one state per incremental state interval) the wakelocks
//!   a packet names (id -> name, type; an id named twice is
//!   `kernel_wakelock_reused_id`) and each name's time held, summed from
//!   the packets' deltas (an unknown id is `kernel_wakelock_unknown_id`);
//! - after each packet, every name's total is pushed, in the iteration
//!   order of trace_processor's `base::FlatHashMap` (replayed by
//!   [`FlatHashMapOrder`]: its hash, probing and growth), as a counter of
//!   its `android_kernel_wakelock` track (made then, in that order) through
//!   SparseCounterTracker: a value is written when it changes (and the
//!   previous value at its last time, if that was not written), into a
//!   sorter stream of its own.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::sink::Sink;
use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::{PacketData, TokenizedTrack, WakelockTrack};

const ZERO_VALUE: u64 = 1;
const NON_MONOTONIC_VALUE: u64 = 2;
const IMPLAUSIBLY_LARGE_VALUE: u64 = 4;

#[derive(Default)]
pub struct KernelWakelocks {
    /// per stack profile state (a sequence's incremental state interval)
    states: FxHashMap<u32, SequenceState>,
    /// track -> its index in `Sink::tokenized_tracks`
    tracks: FxHashMap<WakelockTrack, u32>,
    /// SparseCounterTracker's state per track
    sparse: FxHashMap<u32, Sparse>,
}

#[derive(Default)]
struct SequenceState {
    /// wakelock id -> (name, type)
    wakelocks: FxHashMap<u32, (String, &'static str)>,
    /// name -> (time held in ms, type), in FlatHashMap order
    last_values: FlatHashMapOrder<String, (u64, &'static str)>,
}

struct Sparse {
    last_value: f64,
    last_time: i64,
    written: bool,
}

fn type_name(t: u64) -> &'static str {
    match t {
        1 => "kernel",
        2 => "native",
        _ => "unknown",
    }
}

impl KernelWakelocks {
    /// One KernelWakelockData at trace time `ts` on the sequence's state
    /// `state`: its counters pushed to `sink` (their tracks in
    /// `sink.tokenized_tracks`, in the order they are made).
    pub fn packet(
        &mut self,
        sink: &mut Sink,
        state: u32,
        ts: i64,
        b: &[u8],
    ) -> Result<(), WireError> {
        let s = self.states.entry(state).or_default();
        let (mut ids, mut held, mut errors) = (Vec::new(), Vec::new(), 0u64);
        for f in Fields::new(b) {
            match f? {
                (1, Value::Bytes(w)) => {
                    let (mut id, mut name, mut kind) = (0u32, String::new(), 0u64);
                    for g in Fields::new(w) {
                        match g? {
                            (1, Value::Varint(x)) => id = x as u32,
                            (2, Value::Bytes(n)) => name = text(n),
                            (3, Value::Varint(x)) => kind = x,
                            _ => {}
                        }
                    }
                    match s.wakelocks.entry(id) {
                        Entry::Occupied(_) => sink.stats.add("kernel_wakelock_reused_id", 1, None),
                        Entry::Vacant(e) => {
                            e.insert((name, type_name(kind)));
                        }
                    }
                }
                (2, v) => push_varints(v, &mut ids)?,
                (3, v) => push_varints(v, &mut held)?,
                (4, Value::Varint(x)) => errors = x,
                _ => {}
            }
        }
        for (&id, &delta) in ids.iter().zip(&held) {
            let Some((name, kind)) = s.wakelocks.get(&(id as u32)) else {
                sink.stats.add("kernel_wakelock_unknown_id", 1, None);
                continue;
            };
            let last =
                s.last_values
                    .entry(name.clone(), murmur_hash_bytes(name.as_bytes()), (0, kind));
            last.0 = last.0.wrapping_add(delta);
            last.1 = kind;
        }
        for (bit, stat) in [
            (ZERO_VALUE, "kernel_wakelock_zero_value_reported"),
            (
                NON_MONOTONIC_VALUE,
                "kernel_wakelock_non_monotonic_value_reported",
            ),
            (
                IMPLAUSIBLY_LARGE_VALUE,
                "kernel_wakelock_implausibly_large_value_reported",
            ),
        ] {
            if errors & bit != 0 {
                sink.stats.add(stat, 1, None);
            }
        }
        let totals: Vec<(String, (u64, &'static str))> =
            s.last_values.iter().map(|(k, v)| (k.clone(), *v)).collect();
        for (name, (value, kind)) in totals {
            let key = (name, kind);
            let track = *self.tracks.entry(key.clone()).or_insert_with(|| {
                sink.tokenized_tracks.push(TokenizedTrack::Wakelock(key));
                (sink.tokenized_tracks.len() - 1) as u32
            });
            self.push_counter(sink, ts, track, 1e6 * value as f64);
        }
        Ok(())
    }

    /// SparseCounterTracker::PushCounter.
    fn push_counter(&mut self, sink: &mut Sink, ts: i64, track: u32, value: f64) {
        let mut inserted = false;
        let s = self.sparse.entry(track).or_insert_with(|| {
            inserted = true;
            Sparse {
                last_value: 0.0,
                last_time: 0,
                written: false,
            }
        });
        let different = s.last_value != value;
        let mut push = |t: i64, v: f64| {
            sink.push_packet(t, PacketData::SparseCounter { track, value: v });
        };
        if different && !inserted && !s.written {
            push(s.last_time, s.last_value);
        }
        s.written = false;
        if inserted || different {
            push(ts, value);
            s.written = true;
        }
        s.last_value = value;
        s.last_time = ts;
    }
}

/// perfetto's MurmurHashBytes (base/murmur_hash.h): a string key's hash in
/// its FlatHashMap.
pub fn murmur_hash_bytes(data: &[u8]) -> u64 {
    const SEED: u64 = 0xe17a1465;
    const MUL: u64 = 0xc6a4a7935bd1e995;
    const SHIFT: u32 = 47;
    let mut h = SEED ^ (data.len() as u64).wrapping_mul(MUL);
    let mut blocks = data.chunks_exact(8);
    for block in &mut blocks {
        let mut k = u64::from_le_bytes(block.try_into().unwrap());
        k = k.wrapping_mul(MUL);
        k ^= k >> SHIFT;
        k = k.wrapping_mul(MUL);
        h ^= k;
        h = h.wrapping_mul(MUL);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate().rev() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(MUL);
    }
    h ^= h >> SHIFT;
    h = h.wrapping_mul(MUL);
    h ^= h >> SHIFT;
    h
}

/// The slot order of perfetto's `base::FlatHashMap` (FlatHashMapV1 with
/// QuadraticProbe, 75% load limit; inserts only): iteration visits the
/// slots in index order, so the order of its entries is their slots'.
/// A map of `slot_bytes`-wide slots (key + value in the C++ map) grows 8x
/// below 1 MiB, else 2x, to at least 1024 slots.
pub struct FlatHashMapOrder<K, V> {
    /// slot -> entry
    slots: Vec<Option<u32>>,
    entries: Vec<(K, u64, V)>,
    /// sizeof(Key) + sizeof(Value) in the C++ map
    slot_bytes: usize,
}

impl<K, V> Default for FlatHashMapOrder<K, V> {
    fn default() -> Self {
        // std::string (32 B) -> {uint64, enum} (16 B): the wakelock map's
        FlatHashMapOrder {
            slots: Vec::new(),
            entries: Vec::new(),
            slot_bytes: 48,
        }
    }
}

impl<K: PartialEq, V> FlatHashMapOrder<K, V> {
    fn probe(cap: usize, hash: u64, step: usize) -> usize {
        (hash as usize).wrapping_add(2 * step * step + step) & (cap - 1)
    }

    /// The entry of `key` (`hash` its hash), inserted with `default` when
    /// absent.
    pub fn entry(&mut self, key: K, hash: u64, default: V) -> &mut V {
        loop {
            let cap = self.slots.len();
            let mut free = None;
            for step in 0..cap {
                let idx = Self::probe(cap, hash, step);
                match self.slots[idx] {
                    None => {
                        free = Some(idx);
                        break;
                    }
                    Some(e) if self.entries[e as usize].0 == key => {
                        return &mut self.entries[e as usize].2;
                    }
                    Some(_) => {}
                }
            }
            if self.entries.len() >= cap * 75 / 100 {
                self.grow();
                continue;
            }
            let idx = free.expect("a free slot under the load limit");
            self.slots[idx] = Some(self.entries.len() as u32);
            self.entries.push((key, hash, default));
            let last = self.entries.len() - 1;
            return &mut self.entries[last].2;
        }
    }

    /// MaybeGrowAndRehash: the entries inserted again in slot order.
    fn grow(&mut self) {
        let cap = self.slots.len();
        let factor = if cap * self.slot_bytes < 1024 * 1024 {
            8
        } else {
            2
        };
        let new_cap = (cap * factor).max(1024);
        let order: Vec<u32> = self.slots.iter().flatten().copied().collect();
        self.slots = vec![None; new_cap];
        for e in order {
            let hash = self.entries[e as usize].1;
            let idx = (0..new_cap)
                .map(|step| Self::probe(new_cap, hash, step))
                .find(|&i| self.slots[i].is_none())
                .expect("a free slot after growing");
            self.slots[idx] = Some(e);
        }
    }

    /// The entries in iteration (slot) order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots
            .iter()
            .flatten()
            .map(|&e| (&self.entries[e as usize].0, &self.entries[e as usize].2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts only: every key keeps its entry; iteration visits each once.
    #[test]
    fn order_holds_every_key_across_growth() {
        let mut m: FlatHashMapOrder<u32, u32> = FlatHashMapOrder::default();
        for k in 0..3000u32 {
            *m.entry(k, murmur_hash_bytes(&k.to_le_bytes()), 0) += k;
        }
        for k in 0..3000u32 {
            assert_eq!(*m.entry(k, murmur_hash_bytes(&k.to_le_bytes()), 7), k);
        }
        let mut seen: Vec<u32> = m.iter().map(|(k, _)| *k).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..3000).collect::<Vec<_>>());
    }
}
