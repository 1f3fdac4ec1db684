//! Packet timestamps in another clock than BOOTTIME (TracePacket
//! `timestamp_clock_id`, e.g. a producer's custom clock), converted to
//! BOOTTIME through the ClockSnapshots seen so far, as trace_processor's
//! ClockTracker does for a direct path: the snapshot holding both clocks
//! whose source timestamp is the latest not after the packet's (else the
//! first such snapshot), offset applied, in ns (a clock's unit_multiplier_ns
//! applied). Sequence-scoped clocks (ids 64 to 127) are looked up on the
//! packet's sequence. Snapshots are validated as trace_processor's
//! ClockSynchronizer does (`ClockSync::snapshot`). Multi-hop paths and
//! incremental clocks are not supported: such a timestamp is kept as it
//! is. The same conversion the other way gives a BOOTTIME time in
//! the trace's clock (the service events' metadata times).

use rustc_hash::FxHashMap as HashMap;

const BOOTTIME: u32 = 6;

/// A clock as the snapshots key it: (sequence for sequence-scoped clocks
/// else 0, clock id).
type ClockKey = (u32, u32);

fn key(seq: u32, clock: u32) -> ClockKey {
    if (64..128).contains(&clock) {
        (seq, clock)
    } else {
        (0, clock)
    }
}

/// A snapshot's clock as the packet gives it.
pub struct SnapshotClock {
    pub id: u32,
    pub timestamp: i64,
    /// unit_multiplier_ns (1 when unset or 0)
    pub unit_ns: i64,
    pub incremental: bool,
}

impl SnapshotClock {
    /// A clock reading `timestamp` ns, absolute.
    pub fn ns(id: u32, timestamp: i64) -> Self {
        SnapshotClock {
            id,
            timestamp,
            unit_ns: 1,
            incremental: false,
        }
    }
}

/// A clock domain, registered by the first snapshot that names it
/// (ClockSynchronizer's ClockDomain): its unit and encoding, and per group
/// of snapshots naming the same clocks in the same order (trace_processor's
/// snapshot hash) the last snapshot id and time (in ns) seen.
#[derive(Default)]
struct Domain {
    unit_ns: i64,
    incremental: bool,
    groups: HashMap<Vec<ClockKey>, (u32, i64)>,
}

#[derive(Default)]
pub struct ClockSync {
    /// Each valid snapshot's (clock key, time in ns) pairs, in file order.
    snapshots: Vec<Vec<(ClockKey, i64)>>,
    /// every clock a snapshot named, valid or not
    domains: HashMap<ClockKey, Domain>,
    /// snapshots added, valid or not (ClockSynchronizer's snapshot ids)
    snapshot_count: u32,
    /// per (from, to) clock keys converted: their snapshots' times
    pairs: std::cell::RefCell<HashMap<(ClockKey, ClockKey), Pairs>>,
    /// A timestamp was converted (or tried): as trace_processor's clock
    /// tracker, a later ClockSnapshot no longer sets the trace's clock.
    used: bool,
    /// how many snapshots had been seen at the first conversion
    snapshots_at_first_use: usize,
}

impl ClockSync {
    /// Adds a ClockSnapshot; false when trace_processor's ClockSynchronizer
    /// rejects it (an invalid_clock_snapshots stat, no clock_snapshot rows,
    /// no conversions through it): a non-sequence clock first seen
    /// incremental, a clock whose unit or encoding changed, the trace's
    /// clock (`trace_clock`) not in ns or going back in time, a clock twice
    /// in one snapshot. As there, the clocks before the offending one stay
    /// registered.
    pub fn snapshot(&mut self, seq: u32, clocks: &[SnapshotClock], trace_clock: u32) -> bool {
        let id = self.snapshot_count;
        self.snapshot_count += 1;
        let group: Vec<ClockKey> = clocks.iter().map(|c| key(seq, c.id)).collect();
        let mut stamps = Vec::with_capacity(clocks.len());
        for (c, &k) in clocks.iter().zip(&group) {
            let d = self.domains.entry(k).or_default();
            if d.groups.is_empty() {
                if c.incremental && !(64..128).contains(&c.id) {
                    return false;
                }
                d.unit_ns = c.unit_ns;
                d.incremental = c.incremental;
            } else if d.unit_ns != c.unit_ns || d.incremental != c.incremental {
                return false;
            }
            let is_trace_clock = k == (0, trace_clock);
            if is_trace_clock && d.unit_ns != 1 {
                return false;
            }
            let ns = c.timestamp.wrapping_mul(d.unit_ns);
            let last = d
                .groups
                .entry(group.clone())
                .or_insert((u32::MAX, i64::MIN));
            if last.0 == id || (is_trace_clock && last.0 != u32::MAX && ns < last.1) {
                // (another clock going back in time is only no longer a
                // conversion source there; not modelled)
                return false;
            }
            *last = (id, ns);
            stamps.push((k, ns));
        }
        self.snapshots.push(stamps);
        true
    }

    /// The stat a failed conversion from `clock` counts in:
    /// clock_sync_failure_no_path when a snapshot so far has the clock, else
    /// clock_sync_failure_unknown_source_clock.
    pub fn failure_stat(&self, seq: u32, clock: u32) -> &'static str {
        if self.domains.contains_key(&key(seq, clock)) {
            "clock_sync_failure_no_path"
        } else {
            "clock_sync_failure_unknown_source_clock"
        }
    }

    /// Whether a ClockSnapshot was seen (valid or not).
    pub fn has_snapshots(&self) -> bool {
        self.snapshot_count > 0
    }

    /// Whether a conversion was made or tried (`to_boottime`).
    pub fn used(&self) -> bool {
        self.used
    }

    /// `ts` of `clock` as BOOTTIME, when a snapshot relates the two.
    pub fn to_boottime(&mut self, seq: u32, clock: u32, ts: i64) -> Option<i64> {
        self.use_();
        if clock == BOOTTIME {
            return Some(ts);
        }
        self.convert(key(seq, clock), (0, BOOTTIME), ts)
    }

    /// `ts` of `clock` in the trace's clock `trace_clock` (ClockTracker::
    /// ToTraceTime), when a snapshot relates the two.
    pub fn to_trace_clock(
        &mut self,
        seq: u32,
        clock: u32,
        ts: i64,
        trace_clock: u32,
    ) -> Option<i64> {
        self.use_();
        if clock == trace_clock {
            return Some(ts);
        }
        self.convert(key(seq, clock), key(seq, trace_clock), ts)
    }

    /// A time was converted elsewhere (BOOTTIME ftrace in a BOOTTIME trace,
    /// kept as it is): as any conversion, the trace's clock is now fixed.
    pub fn mark_used(&mut self) {
        self.use_();
    }

    fn use_(&mut self) {
        if !self.used {
            self.used = true;
            self.snapshots_at_first_use = self.snapshots.len();
        }
    }

    /// The trace's clock, if the proto trace's default clock (BOOTTIME)
    /// could not be related to it when the first timestamp was converted
    /// (ClockTracker::FlushDeferredClockSync / BridgeToTraceTime: a
    /// different clock domain that no snapshot seen by then connects to
    /// BOOTTIME, even through other clocks). `trace_clock` is None while no
    /// snapshot set it (the trace's own clock, which any clock maps to).
    pub fn unrelatable_default_clock(&self, trace_clock: Option<u32>) -> Option<u32> {
        let g = trace_clock?;
        if !self.used || g == BOOTTIME {
            return None;
        }
        // clocks reached from BOOTTIME through the snapshots seen by then
        let seen = &self.snapshots[..self.snapshots_at_first_use];
        let mut reached = vec![(0, BOOTTIME)];
        let mut grew = true;
        while grew {
            grew = false;
            for s in seen {
                if s.iter().any(|(c, _)| reached.contains(c)) {
                    for (c, _) in s {
                        if !reached.contains(c) {
                            reached.push(*c);
                            grew = true;
                        }
                    }
                }
            }
        }
        (!reached.contains(&(0, g))).then_some(g)
    }

    /// BOOTTIME `ts` in `clock` (the trace's clock when it is not
    /// BOOTTIME), when a snapshot relates the two.
    pub fn from_boottime(&self, seq: u32, clock: u32, ts: i64) -> Option<i64> {
        if clock == BOOTTIME {
            return Some(ts);
        }
        self.convert((0, BOOTTIME), key(seq, clock), ts)
    }

    /// `ts` of clock `from` in clock `to` through the snapshot holding both
    /// whose `from` time is the latest not after `ts` (else the first).
    fn convert(&self, from: ClockKey, to: ClockKey, ts: i64) -> Option<i64> {
        let ts = ts.wrapping_mul(self.domains.get(&from).map_or(1, |d| d.unit_ns));
        let mut pairs = self.pairs.borrow_mut();
        let pairs = pairs.entry((from, to)).or_default();
        pairs.extend_from(&self.snapshots, from, to);
        let (src, dst) = pairs.at(ts)?;
        Some(dst.wrapping_add(ts.wrapping_sub(src)))
    }
}

/// The (from, to) times of the snapshots holding two clocks, in file
/// order, kept up to date as snapshots come: a timestamp's pair is found
/// by a binary search while the `from` times only grow (the usual case: an
/// ftrace clock paired with BOOTTIME in every bundle).
#[derive(Default)]
struct Pairs {
    /// snapshots read so far
    read: usize,
    times: Vec<(i64, i64)>,
    /// whether `times`' `from` times never go down
    sorted: bool,
}

impl Pairs {
    fn extend_from(&mut self, snapshots: &[Vec<(ClockKey, i64)>], from: ClockKey, to: ClockKey) {
        if self.read == 0 {
            self.sorted = true;
        }
        let find =
            |s: &[(ClockKey, i64)], k: ClockKey| s.iter().find(|(c, _)| *c == k).map(|&(_, t)| t);
        for s in &snapshots[self.read..] {
            if let (Some(src), Some(dst)) = (find(s, from), find(s, to)) {
                self.sorted &= self.times.last().map_or(true, |&(last, _)| src >= last);
                self.times.push((src, dst));
            }
        }
        self.read = snapshots.len();
    }

    /// The pair whose `from` time is the latest not after `ts` (on a tie,
    /// the later snapshot), else the first.
    fn at(&self, ts: i64) -> Option<(i64, i64)> {
        let first = *self.times.first()?;
        if self.sorted {
            let after = self.times.partition_point(|&(src, _)| src <= ts);
            return Some(if after == 0 {
                first
            } else {
                self.times[after - 1]
            });
        }
        let mut best: Option<(i64, i64)> = None;
        for &(src, dst) in &self.times {
            if src <= ts && best.map_or(true, |(b, _)| src >= b) {
                best = Some((src, dst));
            }
        }
        Some(best.unwrap_or(first))
    }
}

#[cfg(test)]
mod tests {
    use super::Pairs;

    /// The pair of the latest `from` time not after a timestamp (a tie:
    /// the later snapshot), else the first pair; the same whether the
    /// times grow (binary search) or not (scan).
    #[test]
    fn pairs_pick_the_latest_snapshot_not_after() {
        let sorted = Pairs {
            read: 3,
            times: vec![(100, 1), (200, 2), (200, 3), (300, 4)],
            sorted: true,
        };
        let unsorted = Pairs {
            sorted: false,
            times: vec![(200, 2), (100, 1), (300, 4), (200, 3)],
            ..Pairs::default()
        };
        for pairs in [&sorted, &unsorted] {
            assert_eq!(pairs.at(50), Some(pairs.times[0]));
            assert_eq!(pairs.at(150), Some((100, 1)));
            assert_eq!(pairs.at(250), Some((200, 3)));
            assert_eq!(pairs.at(1000), Some((300, 4)));
        }
        assert_eq!(Pairs::default().at(0), None);
    }
}
