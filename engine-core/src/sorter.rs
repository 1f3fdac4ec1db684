//! The replay's event order: every event by timestamp, arrival order
//! breaking ties (as trace_processor's sorter within one stream).
//!
//! Events arrive in runs already in ts order: an ftrace bundle's events of
//! one CPU (compact_sched's switches, then its wakings), a sequence's
//! packets. Runs of different CPUs overlap in time, but only a few at a time
//! (about one per CPU). So the order is a k-way merge of the arrival runs,
//! driven lazily by the replay, with a heap of only the runs that overlap
//! the current timestamp:
//! - nothing is sorted or copied: the events are read where they lie, each
//!   run front to back, which keeps the replay's reads of the events
//!   sequential (a radix-sorted index made them random: cache misses on
//!   every switch);
//! - stable: a tie between runs goes to the earlier run, and runs are
//!   contiguous stretches of arrival order.
//!
//! Input that is not in runs (many short ones, as an unsorted text trace)
//! is radix-sorted instead, where a merge would need a deep heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::events::EvRef;

/// Fewer events per run than this on average: sort instead of merging.
const MIN_MEAN_RUN: usize = 32;

pub struct TsOrder {
    events: Vec<(i64, EvRef)>,
    mode: Mode,
}

enum Mode {
    /// `events` is in order: read it front to back.
    Sorted(usize),
    Merge(Merge),
}

struct Merge {
    /// (start, end) of each run in `events`, by (first ts, arrival)
    runs: Vec<(u32, u32)>,
    /// the next run of `runs` to join the heap
    next_run: usize,
    /// the active runs' fronts: (ts, run start = arrival rank, cursor, end)
    heap: BinaryHeap<Reverse<(i64, u32, u32, u32)>>,
}

impl TsOrder {
    pub fn new(events: Vec<(i64, EvRef)>) -> Self {
        let mut starts = Vec::new();
        let mut prev = i64::MIN;
        for (i, &(ts, _)) in events.iter().enumerate() {
            if ts < prev || i == 0 {
                starts.push(i as u32);
            }
            prev = ts;
        }
        if starts.len() <= 1 {
            return TsOrder {
                events,
                mode: Mode::Sorted(0),
            };
        }
        if events.len() / starts.len() < MIN_MEAN_RUN || events.len() > u32::MAX as usize {
            let mut events = events;
            radix_sort_by_ts(&mut events);
            return TsOrder {
                events,
                mode: Mode::Sorted(0),
            };
        }
        let n = events.len() as u32;
        let mut runs: Vec<(u32, u32)> = starts
            .iter()
            .zip(starts.iter().skip(1).chain([&n]))
            .map(|(&a, &b)| (a, b))
            .collect();
        // stable on the arrival rank: equal first timestamps keep run order
        runs.sort_by_key(|&(a, _)| (events[a as usize].0, a));
        if std::env::var_os("ARTSCOPE_CORE_TIMINGS").is_some() {
            eprintln!("core: {} events in {} runs", events.len(), runs.len());
        }
        TsOrder {
            events,
            mode: Mode::Merge(Merge {
                runs,
                next_run: 0,
                heap: BinaryHeap::new(),
            }),
        }
    }

    /// Every event, including those already yielded.
    pub fn total(&self) -> usize {
        self.events.len()
    }
}

impl Iterator for TsOrder {
    type Item = (i64, EvRef);

    #[inline]
    fn next(&mut self) -> Option<(i64, EvRef)> {
        let m = match &mut self.mode {
            Mode::Sorted(i) => {
                let e = self.events.get(*i).copied();
                *i += 1;
                return e;
            }
            Mode::Merge(m) => m,
        };
        // runs starting before the heap's front (or tied with it and
        // earlier in arrival) join first
        while let Some(&(start, end)) = m.runs.get(m.next_run) {
            let key = (self.events[start as usize].0, start);
            match m.heap.peek() {
                Some(Reverse((ts, rank, _, _))) if (*ts, *rank) < key => break,
                _ => {}
            }
            m.heap.push(Reverse((key.0, start, start, end)));
            m.next_run += 1;
        }
        let mut front = m.heap.peek_mut()?;
        let Reverse((_, rank, cursor, end)) = *front;
        let e = self.events[cursor as usize];
        let next = cursor + 1;
        if next < end {
            // the run's next event replaces it in place (one sift down)
            *front = Reverse((self.events[next as usize].0, rank, next, end));
        } else {
            std::collections::binary_heap::PeekMut::pop(front);
        }
        Some(e)
    }
}

/// Sorts events by ts, stably. An LSD radix sort on the offsets from the
/// smallest ts, 12 bits a pass and only as many passes as the trace's span
/// needs (3 for a minute of nanoseconds): about 1.5x faster than a
/// comparison sort on millions of events.
fn radix_sort_by_ts(order: &mut Vec<(i64, EvRef)>) {
    const BITS: u32 = 12;
    const MASK: u64 = (1 << BITS) - 1;
    if order.len() < 4096 {
        order.sort_by_key(|e| e.0);
        return;
    }
    let lo = order.iter().map(|e| e.0).min().unwrap_or(0);
    let hi = order.iter().map(|e| e.0).max().unwrap_or(0);
    // the offset from lo as an unsigned number (exact even across i64's range)
    let key = |ts: i64| ts.wrapping_sub(lo) as u64;
    let span_bits = 64 - key(hi).leading_zeros();
    let mut src = std::mem::take(order);
    let mut dst = vec![(0i64, EvRef::Packet(0)); src.len()];
    let mut shift = 0;
    while shift < span_bits {
        let mut start = vec![0usize; 1 << BITS];
        for e in &src {
            start[((key(e.0) >> shift) & MASK) as usize] += 1;
        }
        let mut sum = 0;
        for c in start.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for e in &src {
            let digit = ((key(e.0) >> shift) & MASK) as usize;
            dst[start[digit]] = *e;
            start[digit] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        shift += BITS;
    }
    *order = src;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ts: &[i64]) {
        let events: Vec<(i64, EvRef)> = ts
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, EvRef::Ftrace(i as u32)))
            .collect();
        let mut want = events.clone();
        want.sort_by_key(|e| e.0); // std's sort is stable
        let got: Vec<_> = TsOrder::new(events).collect();
        let key = |v: &[(i64, EvRef)]| -> Vec<(i64, u32)> {
            v.iter()
                .map(|&(t, r)| match r {
                    EvRef::Ftrace(i) => (t, i),
                    _ => unreachable!(),
                })
                .collect()
        };
        assert_eq!(key(&got), key(&want));
    }

    #[test]
    fn merges_overlapping_runs_stably() {
        check(&[]);
        check(&[5]);
        check(&[1, 2, 3]);
        // two CPUs' bundles interleaved, ties across and within runs
        let mut ts = Vec::new();
        for b in 0..50 {
            for i in 0..40 {
                ts.push(b * 100 + i * 5);
            }
            for i in 0..40 {
                ts.push(b * 100 + i * 5 + (i % 3));
            }
        }
        check(&ts);
        // a late run starting before everything, and equal first timestamps
        ts.extend((0..40).map(|i| i * 2));
        ts.extend((0..40).map(|i| i * 2));
        check(&ts);
    }

    #[test]
    fn sorts_input_not_in_runs() {
        let ts: Vec<i64> = (0..20_000).map(|i| (i * 7919) % 1000).collect();
        check(&ts);
    }
}
