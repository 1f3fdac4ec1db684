//! dma_fence ftrace events -> fence timeline slices and dma_fence_wait
//! thread slices (trace_processor's importers/ftrace/drm_tracker.cc).
//!
//! A timeline (fence context) gets a `drm_fence` track named
//! `fence-<timeline>-<context>` the first time one of its events is seen;
//! its pending fences form a queue: the front one is the open `fence` slice
//! (arg `fence seqno`). dma_fence_init feeds the queue unless the timeline
//! has dma_fence_emit, which then takes over. dma_fence_wait_start/end are a
//! `dma_fence_wait` slice on the waiting thread (args `fence context`,
//! `fence seqno`). The "unbound" timeline is ignored.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use super::atrace::thread_track;
use super::tracks::{ArgVal, Dim, Owner};
use super::Ctx;

const UNBOUND_TIMELINE: &str = "unbound";

struct Timeline {
    track: u32,
    pending: VecDeque<i128>,
    has_emit: bool,
}

/// Fence timelines by context.
#[derive(Default)]
pub struct DrmTracker {
    timelines: HashMap<i128, Timeline>,
}

#[derive(Clone, Copy, PartialEq)]
pub enum FenceEvent {
    Init,
    Emit,
    Signaled,
}

impl DrmTracker {
    fn timeline<'a>(&'a mut self, c: &mut Ctx, name: &str, context: i128) -> &'a mut Timeline {
        self.timelines.entry(context).or_insert_with(|| {
            let track = c.tracks.intern(
                &mut c.args,
                "drm_fence",
                Some(&format!("fence-{name}-{context}")),
                "slice",
                vec![
                    ("name", Dim::Str(name.to_owned())),
                    ("context", Dim::Int(context as i64)),
                ],
                Owner::default(),
                0,
            );
            Timeline {
                track,
                pending: VecDeque::new(),
                has_emit: false,
            }
        })
    }

    fn begin_front(c: &mut Ctx, tl: &Timeline, ts: i64) {
        if let Some(&seqno) = tl.pending.front() {
            let set = c
                .args
                .add_set(&[("fence seqno", Some(ArgVal::Uint(seqno as u64)))]);
            c.slices
                .begin(&mut c.stats, tl.track, ts, "fence".into(), -1, Some(set));
        }
    }

    pub fn fence(
        &mut self,
        c: &mut Ctx,
        what: FenceEvent,
        ts: i64,
        name: &str,
        context: i128,
        seqno: i128,
    ) {
        if name == UNBOUND_TIMELINE {
            return;
        }
        let tl = self.timeline(c, name, context);
        match what {
            FenceEvent::Init => {
                if tl.has_emit {
                    return;
                }
                tl.pending.push_back(seqno);
            }
            FenceEvent::Emit => {
                if !tl.has_emit {
                    tl.has_emit = true;
                    if !tl.pending.is_empty() {
                        c.slices.end(tl.track, ts);
                        tl.pending.clear();
                    }
                }
                tl.pending.push_back(seqno);
            }
            FenceEvent::Signaled => {
                match tl.pending.front() {
                    Some(&front) if seqno >= front => {}
                    _ => return,
                }
                tl.pending.pop_front();
                c.slices.end(tl.track, ts);
                Self::begin_front(c, tl, ts);
                return;
            }
        }
        if tl.pending.len() == 1 {
            Self::begin_front(c, tl, ts);
        }
    }

    pub fn wait_start(c: &mut Ctx, ts: i64, pid: i64, context: i128, seqno: i128) {
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        let set = c.args.add_set(&[
            ("fence context", Some(ArgVal::Uint(context as u64))),
            ("fence seqno", Some(ArgVal::Uint(seqno as u64))),
        ]);
        c.slices.begin(
            &mut c.stats,
            track,
            ts,
            "dma_fence_wait".into(),
            -1,
            Some(set),
        );
    }

    pub fn wait_end(c: &mut Ctx, ts: i64, pid: i64) {
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        c.slices.end(track, ts);
    }
}
