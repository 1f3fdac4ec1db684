//! The trackers of kernel ftrace events beyond sched / atrace / binder /
//! rss_stat (ion and oom kills, syscalls, kprobes, block io, funcgraph,
//! Adreno GPU command batches, Mali MCU states and CSF interrupts, Pixel
//! display faults, network, I2C transfers, F2FS, V4L2, Trusty calls, Pixel
//! firmware slices; workqueue, reclaim, hrtimer, kswapd and CMA slices:
//! `kernel_slices`), and which events each imports: the replay hands them
//! every ftrace event its own match does not take.

use crate::decoder::adreno::GPU_SLICE_EVENT;
use crate::events::FtraceEv;
use crate::trackers::core::memory::IonTracker;
use crate::trackers::core::syscalls::SyscallTracker;
use crate::trackers::extra::adreno::AdrenoTracker;
use crate::trackers::Ctx;

#[derive(Default)]
pub struct KernelTrackers {
    pub devices: crate::trackers::extra::devices::DeviceTrackers,
    pub ion: IonTracker,
    pub syscalls: SyscallTracker,
    pub adreno: AdrenoTracker,
    pub mali: crate::trackers::extra::mali::MaliTracker,
    pub net: crate::trackers::extra::net::NetTracker,
    pub i2c: crate::trackers::extra::i2c::I2cTracker,
    pub virtio_gpu: crate::trackers::extra::virtio::VirtioGpuTracker,
    pub v4l2: crate::trackers::extra::v4l2::V4l2Tracker,
    pub pkvm: crate::trackers::extra::pkvm::PkvmTracker,
    /// fwtp_perfetto_slice's one track (see `fwtp_slice`)
    fwtp_track: Option<u32>,
    /// its slices' categories (firmware-defined: a few), each stored once
    fwtp_categories: Vec<&'static str>,
}

impl KernelTrackers {
    /// The end of the trace: the slices' arg sets, made once every arg is
    /// known.
    pub fn finish(self, c: &mut Ctx) {
        self.pkvm.finish(c);
        self.syscalls.finish(c);
    }

    /// Imports `e` if one of these trackers takes it.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let ts = e.ts;
        match e.name {
            "ion_heap_grow" => self.ion.ion_heap(c, ts, e, true),
            "ion_heap_shrink" => self.ion.ion_heap(c, ts, e, false),
            "ion_stat" => self.ion.ion_stat(c, ts, e),
            "sys_enter" => self.syscalls.enter(c, ts, e),
            "sys_exit" => self.syscalls.exit(c, ts, e),
            "mark_victim" => crate::trackers::core::memory::oom_kill(c, ts, e),
            "kprobe_event" => crate::trackers::extra::kprobes::kprobe(c, ts, e),
            "block_io_start" => crate::trackers::extra::block_io::start(c, ts, e),
            "block_io_done" => crate::trackers::extra::block_io::done(c, ts, e),
            "funcgraph_entry" => crate::trackers::extra::funcgraph::entry(c, ts, e),
            "funcgraph_exit" => crate::trackers::extra::funcgraph::exit(c, ts, e),
            "kgsl_adreno_cmdbatch_queued" => self.adreno.queued(e),
            GPU_SLICE_EVENT => self.adreno.retired(c, ts, e),
            name if crate::trackers::extra::mali::takes(name) => self.mali.event(c, e),
            name if crate::trackers::extra::pkvm::is_event(name) => self.pkvm.event(c, e),
            name if crate::trackers::extra::display::takes(name) => {
                crate::trackers::extra::display::event(c, e)
            }
            name if crate::trackers::extra::net::takes(name) => self.net.event(c, e),
            "i2c_read" | "i2c_write" | "i2c_result" => self.i2c.event(c, e),
            "f2fs_iostat" | "f2fs_iostat_latency" => crate::trackers::extra::f2fs::iostat(c, e),
            "v4l2_qbuf" | "v4l2_dqbuf" | "vb2_v4l2_buf_queue" | "vb2_v4l2_buf_done"
            | "vb2_v4l2_qbuf" | "vb2_v4l2_dqbuf" => self.v4l2.event(c, e),
            "f2fs_write_checkpoint" => crate::trackers::extra::f2fs::write_checkpoint(c, e),
            "trusty_smc"
            | "trusty_smc_done"
            | "trusty_std_call32"
            | "trusty_std_call32_done"
            | "trusty_share_memory"
            | "trusty_share_memory_done"
            | "trusty_reclaim_memory"
            | "trusty_reclaim_memory_done"
            | "trusty_irq"
            | "trusty_ipc_handle_event"
            | "trusty_ipc_connect"
            | "trusty_ipc_connect_end"
            | "trusty_ipc_write"
            | "trusty_ipc_read"
            | "trusty_ipc_read_end"
            | "trusty_ipc_poll"
            | "trusty_ipc_rx"
            | "trusty_enqueue_nop" => crate::trackers::extra::trusty::event(c, e),
            _ => crate::trackers::core::kernel_slices::event(c, e),
        }
    }
}

impl KernelTrackers {
    /// fwtp_perfetto_slice (FtraceParser::ParseFwtpPerfettoSlice), as its
    /// copy at its own timestamp: a begin ends the open slice and opens one
    /// named by the event (category its category), an end ends it. All are
    /// on one `pixel_fwtp_slices` track, named by the first event's name:
    /// the reference keys that track by its blueprint alone.
    pub fn fwtp_slice(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let name = e.str("name").unwrap_or("");
        let track = *self.fwtp_track.get_or_insert_with(|| {
            c.tracks.intern(
                &mut c.args,
                "pixel_fwtp_slices",
                Some(name),
                "slice",
                vec![],
                Default::default(),
                0,
            )
        });
        c.slices.end(track, ts);
        if e.int("begin").unwrap_or(0) != 0 {
            let category = e.str("category").unwrap_or("");
            let category = match self.fwtp_categories.iter().find(|&&k| k == category) {
                Some(&k) => k,
                None => {
                    let k: &'static str = Box::leak(category.into());
                    self.fwtp_categories.push(k);
                    k
                }
            };
            c.slices
                .begin_in(category, track, ts, name.to_owned(), -1, None);
        }
    }
}
