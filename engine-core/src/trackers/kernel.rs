//! The trackers of kernel ftrace events beyond sched / atrace / binder /
//! rss_stat (ion and oom kills, syscalls, kprobes, block io, funcgraph,
//! Adreno GPU command batches; workqueue, reclaim and hrtimer slices:
//! `kernel_slices`), and which events each imports: the replay
//! hands them every ftrace event its own match does not take.

use super::adreno::{AdrenoTracker, GPU_SLICE_EVENT};
use super::memory::IonTracker;
use super::syscalls::SyscallTracker;
use super::Ctx;
use crate::events::FtraceEv;

#[derive(Default)]
pub struct KernelTrackers {
    pub ion: IonTracker,
    pub syscalls: SyscallTracker,
    pub adreno: AdrenoTracker,
}

impl KernelTrackers {
    /// Imports `e` if one of these trackers takes it.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let ts = e.ts;
        match e.name {
            "ion_heap_grow" => self.ion.ion_heap(c, ts, e, true),
            "ion_heap_shrink" => self.ion.ion_heap(c, ts, e, false),
            "ion_stat" => self.ion.ion_stat(c, ts, e),
            "sys_enter" => self.syscalls.enter(c, ts, e),
            "sys_exit" => self.syscalls.exit(c, ts, e),
            "mark_victim" => super::memory::oom_kill(c, ts, e),
            "kprobe_event" => super::kprobes::kprobe(c, ts, e),
            "block_io_start" => super::block_io::start(c, ts, e),
            "block_io_done" => super::block_io::done(c, ts, e),
            "funcgraph_entry" => super::funcgraph::entry(c, ts, e),
            "funcgraph_exit" => super::funcgraph::exit(c, ts, e),
            "kgsl_adreno_cmdbatch_queued" => self.adreno.queued(e),
            GPU_SLICE_EVENT => self.adreno.retired(c, ts, e),
            _ => super::kernel_slices::event(c, e),
        }
    }
}
