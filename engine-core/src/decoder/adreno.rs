//! Adreno GPU command batches (kgsl_adreno_cmdbatch_*) as trace_processor's
//! FtraceTokenizer pairs them: a retired batch carries its start and retire
//! times in GPU clock ticks (19.2 MHz XO); the batch's sync event maps them
//! to trace time (its own timestamp and its `ticks`, matched by the batch's
//! `timestamp` field). [`Tokenizer`] pairs them in file order: the retired
//! event keeps its ftrace_event row at its own time and a copy stamped at
//! the GPU start ([`GPU_SLICE_EVENT`], no row) makes the slice
//! (`trackers::extra::adreno`). A retired event seen before its sync gets its row
//! twice, as trace_processor's does.

use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;

/// The copy of a retired event that makes its slice (at the GPU start).
pub const GPU_SLICE_EVENT: &str = "__kgsl_adreno_cmdbatch_gpu";

const XO_FREQ_HZ: i64 = 19_200_000;

/// GPU ticks after a sync point -> ns (trace_processor's int64 arithmetic).
pub fn ticks_to_ns(ticks: i128, since: i128) -> i64 {
    ((ticks as u64).wrapping_sub(since as u64) as i64).wrapping_mul(1_000_000_000) / XO_FREQ_HZ
}

/// Pairs retired batches with their sync points, in file order.
#[derive(Default)]
pub struct Tokenizer {
    /// batch timestamp -> (sync event's ts, its GPU ticks)
    sync: HashMap<i128, (i64, i128)>,
    /// retired events waiting for their sync, by batch timestamp
    pending: HashMap<i128, FtraceEv>,
}

impl Tokenizer {
    /// The events to store for `e` (an adreno event), in order.
    pub fn event(&mut self, e: FtraceEv) -> Vec<FtraceEv> {
        let batch = e.int("timestamp").unwrap_or(0);
        match e.name {
            "kgsl_adreno_cmdbatch_sync" => {
                let ticks = e.int("ticks").unwrap_or(0);
                let mut out = Vec::new();
                match self.pending.remove(&batch) {
                    Some(retired) => {
                        let gpu = gpu_copy(&retired, e.ts, ticks);
                        out.push(retired);
                        out.push(gpu);
                    }
                    None => {
                        self.sync.insert(batch, (e.ts, ticks));
                    }
                }
                out.push(e);
                out
            }
            "kgsl_adreno_cmdbatch_retired" => match self.sync.remove(&batch) {
                Some((sync_ts, ticks)) => {
                    let gpu = gpu_copy(&e, sync_ts, ticks);
                    vec![e, gpu]
                }
                None => {
                    self.pending.insert(batch, e.clone());
                    vec![e]
                }
            },
            _ => vec![e],
        }
    }
}

/// The retired event's slice-making copy, stamped at the batch's GPU start.
fn gpu_copy(retired: &FtraceEv, sync_ts: i64, sync_ticks: i128) -> FtraceEv {
    let start = retired.int("start").unwrap_or(0);
    FtraceEv {
        ts: sync_ts.wrapping_add(ticks_to_ns(start, sync_ticks)),
        name: GPU_SLICE_EVENT,
        ..retired.clone()
    }
}
