//! CpuPerUidData as trace_processor tokenizes it (importers/proto/
//! android_cpu_per_uid_module.cc): a packet's times are absolute the first
//! time a (uid, cluster) is seen on its sequence and increments after; uids
//! of the shared / isolated ranges are summed into their group's uid;
//! "System" / "Apps" totals per cluster add up the increments. Every packet
//! re-emits every counter through a sparse counter stream (a value equal to
//! the track's last one is left out, unless the next value differs: then the
//! last one is written back at its own timestamp so the step shows). The
//! replay only interns the tracks and pushes the counters
//! (`trackers::extra::cpu_per_uid`).

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use crate::events::power::UidTrack;

fn key(uid: u32, cluster: u32) -> u64 {
    ((uid as u64) << 32) | cluster as u64
}

fn split(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// A uid's app id (the uid without its user).
fn app_id(uid: u32) -> u32 {
    uid % 100_000
}

/// Uids of the anonymous ranges (shared, isolated) are counted as a group.
fn is_grouped(uid: u32) -> bool {
    let a = app_id(uid);
    (50_000..60_000).contains(&a) || (90_000..100_000).contains(&a)
}

/// The group's uid (1090123 -> 1090000).
fn grouped_uid(uid: u32) -> u32 {
    if is_grouped(uid) {
        uid - uid % 10_000
    } else {
        uid
    }
}

#[derive(Default)]
struct SeqState {
    cluster_count: u32,
    /// (uid, cluster) -> the counter's absolute value on this sequence
    last_values: BTreeMap<u64, u64>,
}

#[derive(Clone, Copy)]
struct Sparse {
    last_value: f64,
    last_ts: i64,
    written: bool,
}

/// The tokenize-time state (per sequence and trace-wide).
#[derive(Default)]
pub struct Tokenizer {
    seqs: HashMap<u32, SeqState>,
    /// (uid, cluster) -> the last absolute value on any sequence
    last_value: HashMap<u64, u64>,
    /// (grouped uid, cluster) -> the sum of non-negative increments
    cumulative: BTreeMap<u64, u64>,
    system_totals: BTreeMap<u32, u64>,
    app_totals: BTreeMap<u32, u64>,
    sparse: HashMap<UidTrack, Sparse>,
}

impl Tokenizer {
    /// A sequence's incremental state was cleared: its next times are
    /// absolute again (trace-wide totals and last values stay).
    pub fn clear_sequence(&mut self, seq: u32) {
        self.seqs.remove(&seq);
    }

    /// One CpuPerUidData packet of sequence `seq` at `ts`: the counters it
    /// emits, each with its timestamp, appended to `out`.
    pub fn packet(
        &mut self,
        seq: u32,
        ts: i64,
        cluster_count: Option<u32>,
        uids: &[u32],
        times: &[u64],
        out: &mut Vec<(i64, UidTrack, f64)>,
    ) {
        let state = self.seqs.entry(seq).or_default();
        if let Some(n) = cluster_count {
            state.cluster_count = n;
        }
        let mut cluster = 0u32;
        let mut uid_at = 0usize;
        for &raw in times {
            let Some(&uid) = uids.get(uid_at) else { break };
            let k = key(uid, cluster);
            // absolute the first time on this sequence, an increment after
            let value = match state.last_values.entry(k) {
                Entry::Vacant(e) => *e.insert(raw),
                Entry::Occupied(mut e) => {
                    let v = e.get().wrapping_add(raw);
                    *e.get_mut() = v;
                    v
                }
            };
            let global = self.last_value.entry(k).or_insert(value);
            let delta = value.saturating_sub(*global);
            *global = value;
            let group = grouped_uid(uid);
            *self.cumulative.entry(key(group, cluster)).or_insert(0) += delta;
            let totals = if app_id(group) < 10_000 {
                &mut self.system_totals
            } else {
                &mut self.app_totals
            };
            *totals.entry(cluster).or_insert(0) += delta;
            cluster += 1;
            if cluster >= state.cluster_count {
                cluster = 0;
                uid_at += 1;
            }
        }
        let mut emit: Vec<(UidTrack, u64)> = Vec::new();
        for (&cluster, &v) in &self.system_totals {
            emit.push((
                UidTrack::Totals {
                    apps: false,
                    cluster,
                },
                v,
            ));
        }
        for (&cluster, &v) in &self.app_totals {
            emit.push((
                UidTrack::Totals {
                    apps: true,
                    cluster,
                },
                v,
            ));
        }
        for (&k, &v) in &self.cumulative {
            let (uid, cluster) = split(k);
            if is_grouped(uid) {
                emit.push((UidTrack::Uid { uid, cluster }, v));
            }
        }
        for (&k, &v) in &state.last_values {
            let (uid, cluster) = split(k);
            if !is_grouped(uid) {
                emit.push((UidTrack::Uid { uid, cluster }, v));
            }
        }
        for (track, v) in emit {
            self.sparse_push(ts, track, v as f64, out);
        }
    }

    /// SparseCounterTracker::PushCounter
    fn sparse_push(
        &mut self,
        ts: i64,
        track: UidTrack,
        value: f64,
        out: &mut Vec<(i64, UidTrack, f64)>,
    ) {
        match self.sparse.get_mut(&track) {
            None => {
                out.push((ts, track, value));
                self.sparse.insert(
                    track,
                    Sparse {
                        last_value: value,
                        last_ts: ts,
                        written: true,
                    },
                );
            }
            Some(s) => {
                let different = s.last_value != value;
                if different && !s.written {
                    out.push((s.last_ts, track, s.last_value));
                }
                s.written = different;
                if different {
                    out.push((ts, track, value));
                }
                s.last_value = value;
                s.last_ts = ts;
            }
        }
    }

    /// The `__intrinsic_android_cpu_per_uid_track` rows: (uid, cluster, total
    /// cpu ms) per grouped (uid, cluster).
    pub fn totals(&self) -> Vec<(u32, u32, i64)> {
        self.cumulative
            .iter()
            .map(|(&k, &v)| {
                let (uid, cluster) = split(k);
                (uid, cluster, v as i64)
            })
            .collect()
    }
}
