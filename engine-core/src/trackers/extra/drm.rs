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
//!
//! Display vblanks (drm_vblank_event / _delivered) are `signal` /
//! `deliver` instants with their `vblank seqno` on a `vblank-<crtc>` track.
//! GPU scheduler jobs: a queued job (drm_sched_job, drm_sched_job_queue) is
//! a `drm_sched_job_queue` instant on the queueing thread (args `gpu sched
//! ring` and the job's id); each ring (`sched-<ring>`) runs its jobs one at
//! a time as `job` slices, in the order they were run (drm_run_job,
//! drm_sched_job_run), each ended by the next completion on the ring
//! (drm_sched_process_job, drm_sched_job_done), with a flow from its queue
//! instant to its slice.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

const UNBOUND_TIMELINE: &str = "unbound";

struct Timeline {
    track: u32,
    pending: VecDeque<i128>,
    has_emit: bool,
}

/// A GPU scheduler job's identity, as the events name it: by fence
/// (context, seqno), else by a global id (the fence pointer) and / or a
/// local id (the job id). Two jobs are the same when they share a kind of
/// id and agree on it (DrmTracker::SchedJob).
#[derive(Clone, Copy)]
struct SchedJob {
    fence: Option<(u64, u64)>,
    global: Option<u64>,
    local: Option<u64>,
}

/// Ids a job is found by in the reference's hash maps (equal jobs share
/// them): by fence, else by its global id (`Global`: running jobs) or its
/// local id (`Local`: queued jobs).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum JobKey {
    Fence(u64, u64),
    Global(u64),
    Local(u64),
}

impl SchedJob {
    fn global_key(&self) -> JobKey {
        match self.fence {
            Some((c, s)) => JobKey::Fence(c, s),
            None => JobKey::Global(self.global.unwrap_or(0)),
        }
    }

    fn local_key(&self) -> JobKey {
        match self.fence {
            Some((c, s)) => JobKey::Fence(c, s),
            None => JobKey::Local(self.local.unwrap_or(0)),
        }
    }

    /// The job's args (InsertSchedJobArgs).
    fn args(&self) -> Vec<(&'static str, Option<ArgVal>)> {
        match self.fence {
            Some((context, seqno)) => vec![
                ("fence context", Some(ArgVal::Uint(context))),
                ("fence seqno", Some(ArgVal::Uint(seqno))),
            ],
            None => vec![("gpu sched job", Some(ArgVal::Uint(self.local.unwrap_or(0))))],
        }
    }
}

/// A GPU scheduler ring: its track, its jobs run but not done (the front
/// one's slice open), and the queue instants of jobs not yet run.
struct SchedRing {
    track: u32,
    running: VecDeque<SchedJob>,
    queued: HashMap<JobKey, u32>,
}

/// Fence timelines by context; GPU scheduler rings by name.
#[derive(Default)]
pub struct DrmTracker {
    timelines: HashMap<i128, Timeline>,
    rings: HashMap<String, SchedRing>,
    /// running job -> its ring
    busy: HashMap<JobKey, String>,
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
            c.slices.begin(tl.track, ts, "fence".into(), -1, Some(set));
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

    /// drm_vblank_event / drm_vblank_event_delivered.
    pub fn vblank(c: &mut Ctx, e: &FtraceEv, delivered: bool) {
        let crtc = e.int("crtc").unwrap_or(0) as u32;
        let track = c.tracks.intern(
            &mut c.args,
            "drm_vblank",
            Some(&format!("vblank-{crtc}")),
            "slice",
            vec![("drm_crtc", Dim::Int(crtc as i64))],
            Owner::default(),
            0,
        );
        let seqno = e.int("seq").unwrap_or(0) as u32;
        let set = c
            .args
            .add_set(&[("vblank seqno", Some(ArgVal::Uint(seqno as u64)))]);
        let name = if delivered { "deliver" } else { "signal" };
        c.slices.begin(track, e.ts, name.into(), 0, Some(set));
    }

    /// The GPU scheduler's job events (the module's header).
    pub fn sched_job(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let u = |f: &str| e.int(f).unwrap_or(0) as u64;
        let by_fence = || SchedJob {
            fence: Some((u("fence_context"), u("fence_seqno"))),
            global: None,
            local: None,
        };
        let name = e.str("name").unwrap_or("");
        match e.name {
            "drm_sched_job" => {
                let job = SchedJob {
                    fence: None,
                    global: None,
                    local: Some(u("id")),
                };
                self.queue(c, e, name, job);
            }
            "drm_sched_job_queue" => self.queue(c, e, name, by_fence()),
            "drm_run_job" => {
                let job = SchedJob {
                    fence: None,
                    global: Some(u("fence")),
                    local: Some(u("id")),
                };
                self.run(c, e.ts, name, job);
            }
            "drm_sched_job_run" => self.run(c, e.ts, name, by_fence()),
            "drm_sched_process_job" => {
                let job = SchedJob {
                    fence: None,
                    global: Some(u("fence")),
                    local: None,
                };
                self.done(c, e.ts, job);
            }
            _ => self.done(c, e.ts, by_fence()),
        }
    }

    fn ring<'a>(&'a mut self, c: &mut Ctx, name: &str) -> &'a mut SchedRing {
        self.rings
            .entry(name.to_owned())
            .or_insert_with(|| SchedRing {
                track: c.tracks.intern(
                    &mut c.args,
                    "drm_sched_ring",
                    Some(&format!("sched-{name}")),
                    "slice",
                    vec![("name", Dim::Str(name.to_owned()))],
                    Owner::default(),
                    0,
                ),
                running: VecDeque::new(),
                queued: HashMap::default(),
            })
    }

    fn queue(&mut self, c: &mut Ctx, e: &FtraceEv, ring: &str, job: SchedJob) {
        let utid = c.pt.get_or_create_thread(e.pid);
        let track = thread_track(c, utid);
        let mut args = vec![("gpu sched ring", Some(ArgVal::Str(ring.to_owned())))];
        args.extend(job.args());
        let set = c.args.add_set(&args);
        let name = "drm_sched_job_queue".to_owned();
        if let Some(row) = c.slices.begin(track, e.ts, name, 0, Some(set)) {
            self.ring(c, ring).queued.insert(job.local_key(), row);
        }
    }

    fn run(&mut self, c: &mut Ctx, ts: i64, name: &str, job: SchedJob) {
        let ring = self.ring(c, name);
        ring.running.push_back(job);
        let first = ring.running.len() == 1;
        self.busy.insert(job.global_key(), name.to_owned());
        if first {
            self.begin_job(c, ts, name);
        }
    }

    fn done(&mut self, c: &mut Ctx, ts: i64, job: SchedJob) {
        let Some(name) = self.busy.remove(&job.global_key()) else {
            return;
        };
        let ring = self.ring(c, &name);
        // the ring's oldest running job is the one that ends
        ring.running.pop_front();
        let (track, more) = (ring.track, !ring.running.is_empty());
        c.slices.end(track, ts);
        if more {
            self.begin_job(c, ts, &name);
        }
    }

    /// The ring's front running job's `job` slice, with a flow from its
    /// queue instant.
    fn begin_job(&mut self, c: &mut Ctx, ts: i64, name: &str) {
        let ring = self.ring(c, name);
        let Some(&job) = ring.running.front() else {
            return;
        };
        let track = ring.track;
        let set = c.args.add_set_unique(&job.args());
        let Some(row) = c.slices.begin(track, ts, "job".into(), -1, Some(set)) else {
            return;
        };
        if let Some(queued) = self.ring(c, name).queued.remove(&job.local_key()) {
            c.flows.push((queued, row, None));
        }
    }

    pub fn wait_start(c: &mut Ctx, ts: i64, pid: i64, context: i128, seqno: i128) {
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        let set = c.args.add_set(&[
            ("fence context", Some(ArgVal::Uint(context as u64))),
            ("fence seqno", Some(ArgVal::Uint(seqno as u64))),
        ]);
        c.slices
            .begin(track, ts, "dma_fence_wait".into(), -1, Some(set));
    }

    pub fn wait_end(c: &mut Ctx, ts: i64, pid: i64) {
        let utid = c.pt.get_or_create_thread(pid);
        let track = thread_track(c, utid);
        c.slices.end(track, ts);
    }
}
