//! Adreno GPU command batches (kgsl_adreno_cmdbatch_*) -> a "GPU" slice per
//! retired batch, as trace_processor imports them (its FtraceTokenizer and
//! FtraceParser::ParseKgslAdrenoCmdbatch*).
//!
//! A retired batch carries its start and retire times in GPU clock ticks
//! (19.2 MHz XO); the batch's sync event maps them to trace time (its own
//! timestamp and its `ticks`, matched by the batch's `timestamp` field).
//! The decoder pairs them in file order (`decoder::adreno`): the retired
//! event keeps its ftrace_event row at its own time and a copy stamped at
//! the GPU start (`GPU_SLICE_EVENT`, no row) makes the slice. A retired
//! event seen before its sync gets its row twice, as trace_processor's does. The slice
//! goes on a `GPU <process> (Ctx=<id>, Prio=<prio>)` track per context and
//! priority (the process of the thread that queued the context; lanes for
//! overlapping batches, as trace_processor's track compressor).

use rustc_hash::FxHashMap as HashMap;

use crate::decoder::adreno::ticks_to_ns;
use crate::events::FtraceEv;
use crate::trackers::core::tracks::{Dim, Owner};
use crate::trackers::Ctx;

#[derive(Default)]
pub struct AdrenoTracker {
    /// context id -> the tid that queued a batch on it
    queued_by: HashMap<i128, i64>,
    /// per (context, prio): each lane's end
    lanes: HashMap<(i64, i64), Vec<i64>>,
}

impl AdrenoTracker {
    pub fn queued(&mut self, e: &FtraceEv) {
        self.queued_by.insert(e.int("id").unwrap_or(0), e.pid);
    }

    /// A retired batch's slice, at its GPU start (`e` is its GPU copy).
    pub fn retired(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let (start, retire) = (e.int("start").unwrap_or(0), e.int("retire").unwrap_or(0));
        if retire < start {
            return;
        }
        let dur = ticks_to_ns(retire, start);
        let context = e.int("id").unwrap_or(0) as u32 as i64;
        let prio = e.int("prio").unwrap_or(0) as u32 as i64;
        let process_name = self.queued_by.get(&(context as i128)).and_then(|&tid| {
            let utid = c.pt.get_or_create_thread(tid);
            let upid = c.pt.t_upid[utid as usize]?;
            c.pt.p_name[upid as usize].clone()
        });
        let name = match &process_name {
            Some(p) => format!("GPU {p} (Ctx={context}, Prio={prio})"),
            None => format!("GPU (Ctx={context}, Prio={prio})"),
        };
        // the lowest lane free at ts
        let lanes = self.lanes.entry((context, prio)).or_default();
        let lane = match lanes.iter().position(|&end| end <= ts) {
            Some(i) => i,
            None => {
                lanes.push(i64::MIN);
                lanes.len() - 1
            }
        };
        lanes[lane] = ts + dur;
        let track = c.tracks.intern(
            &mut c.args,
            "adreno_gpu_cmdbatch",
            Some(&name),
            "slice",
            vec![
                ("context_id", Dim::Int(context)),
                ("prio", Dim::Int(prio)),
                ("track_compressor_idx", Dim::Int(lane as i64)),
            ],
            Owner::default(),
            0,
        );
        // a track first named without its process takes the name once known
        if process_name.is_some() {
            c.tracks.rows[track as usize].name = Some(name);
        }
        c.slices.begin(track, ts, "GPU".into(), dur, None);
    }
}
