//! Device activity ftrace events as counters and slices (trace_processor's
//! FtraceParser): UFS storage commands and clock gating, CPU hotplug,
//! dma-buf heap allocations, android_fs data reads, GPU power states.
//!
//! - ufshcd_command (ParseUfshcdCommand): the commands in flight on the
//!   global "io.ufs.command.count" counter (the doorbell's set bits; without
//!   a doorbell 1 for a send, 0 for a completion), and per command tag a
//!   slice track "io.ufs.command.tag[NNN]": a send (str_t 0) opens a slice
//!   named by its SCSI opcode (and group id), a completion closes it;
//! - ufshcd_clk_gating (ParseUfshcdClkGating): the clock gating state on
//!   "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)" (the kernel's ON 1,
//!   REQ_OFF 2, REQ_ON 3 renumbered 3, 1, 2);
//! - cpuhp_enter / cpuhp_multi_enter (ParseCpuhpEnter): a slice
//!   "cpuhp(<idx>)" of category "cpu" on the hotplugged cpu's "CPU Hotplug
//!   N" track, args action_cpu (the cpu the event ran on) and cpuhp_idx;
//!   cpuhp_exit closes the innermost open slice there (cpuhp_pause: nothing,
//!   as in trace_processor);
//! - dma_heap_stat (ParseDmaHeapStat): the heaps' total on the global
//!   "mem.dma_heap" counter, the change on the thread's
//!   "mem.dma_heap_change" counter (arg inode), and each buffer as a slice
//!   "<len / 1024> kB" on the "mem.dma_buffer" tracks, from its allocation
//!   (len > 0) to its free, lanes keyed by the buffer's inode.
//! - android_fs_dataread_start (ParseAndroidFsDatareadStart): a slice
//!   "android_fs_data_read" (args file_path, offset_start, bytes_read_start)
//!   on the "android_fs" tracks, lanes keyed by the reading thread's tid;
//!   android_fs_dataread_end with the same inode and offset closes it
//!   (args offset_end, bytes_read_end); an end matching no start is ignored.
//! - gpu_power_state (ParseGpuPowerState, PowerVR): the state as a slice
//!   ("OFF", "PG", "ON", else "Unknown") on the "powervr_gpu_power_state"
//!   track, each new state closing the last; mali_gpu_power_state
//!   (ParseMaliGpuPowerState): the new state on the "mali_gpu_power_state"
//!   counter;
//! - fastrpc_dma_stat (ParseFastRpcDmaStat): a DSP's DMA memory on its
//!   `mem.fastrpc[<DSP>]` counter and the thread's change on its
//!   `mem.fastrpc_change[<DSP>]` counter (DSPs ASDP, MDSP, SDSP, CDSP by
//!   channel id, else the id);
//! - google_icc_event / google_irm_event (Pixel interconnect): instants
//!   named by the event's text, of that category, on the global
//!   `Interconnect Events` track.
//!
//! An absent field reads as 0 (protozero's default).

use crate::machines::machine_cpu;
use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::atrace::AsyncSlots;
use crate::trackers::core::compressor::{lane_dims, Nesting};
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

/// What the events above carry from one to the next.
#[derive(Default)]
pub struct DeviceTrackers {
    /// android_fs reads in progress: (inode, offset) -> the reading tid
    fs_reads: HashMap<(i128, i128), i64>,
}

impl DeviceTrackers {
    /// Imports `e` if it is one of the events above.
    pub fn event(&mut self, c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
        match e.name {
            "android_fs_dataread_start" => self.fs_read_start(c, slots, e),
            "android_fs_dataread_end" => self.fs_read_end(c, slots, e),
            _ => event(c, slots, e),
        }
    }

    fn fs_read_start(&mut self, c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
        let int = |f: &str| e.int(f).unwrap_or(0);
        self.fs_reads.insert((int("ino"), int("offset")), e.pid);
        let idx = slots
            .compressor
            .begin(FS_TYPE, &vec![], e.pid as i128, Nesting::Nestable);
        let track = fs_track(c, idx);
        let args = [
            // an absent path is a NULL string (trace_processor's null StringId)
            (
                "file_path",
                Some(
                    e.str("pathbuf")
                        .map_or(ArgVal::NullStr, |p| ArgVal::Str(p.into())),
                ),
            ),
            ("offset_start", Some(ArgVal::Int(int("offset")))),
            ("bytes_read_start", Some(ArgVal::Int(int("bytes")))),
        ];
        let set = c.args.add_set_unique(&args);
        c.slices
            .begin(track, e.ts, "android_fs_data_read".into(), -1, Some(set));
    }

    fn fs_read_end(&mut self, c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
        let int = |f: &str| e.int(f).unwrap_or(0);
        let Some(tid) = self.fs_reads.remove(&(int("ino"), int("offset"))) else {
            return;
        };
        let idx = slots.compressor.end(FS_TYPE, &vec![], tid as i128);
        let track = fs_track(c, idx);
        let Some(row) = c.slices.end(track, e.ts) else {
            return;
        };
        let args = [
            ("offset_end", Some(ArgVal::Int(int("offset")))),
            ("bytes_read_end", Some(ArgVal::Int(int("bytes")))),
        ];
        let row = &mut c.slices.rows[row as usize];
        match row.arg_set {
            Some(set) => c.args.extend_set(set, &args),
            None => row.arg_set = Some(c.args.add_set_unique(&args)),
        }
    }
}

const FS_TYPE: &str = "android_fs";

fn fs_track(c: &mut Ctx, idx: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        FS_TYPE,
        Some("android_fs"),
        "slice",
        lane_dims(vec![], idx),
        Owner::default(),
        0,
    )
}

/// The stateless events above.
fn event(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let uint = |f: &str| e.int(f).unwrap_or(0) as u64;
    match e.name {
        "ufshcd_command" => {
            let doorbell = uint("doorbell") as u32;
            let str_t = uint("str_t");
            let in_flight = match doorbell {
                0 => (str_t != 1) as u32,
                d => d.count_ones(),
            };
            let count = global_track(c, "ufs_command_count", "io.ufs.command.count", "counter");
            c.counters.push(e.ts, count, in_flight as f64, None);
            let tag = uint("tag") as u32;
            let track = c.tracks.intern(
                &mut c.args,
                "ufs_command_tag",
                Some(&format!("io.ufs.command.tag[{tag:03}]")),
                "slice",
                vec![("ufs_tag", Dim::Int(tag as i64))],
                Owner::default(),
                0,
            );
            if str_t == 0 {
                let name = ufs_command_name(uint("opcode") as u32, uint("group_id") as u32);
                c.slices.begin(track, e.ts, name, -1, None);
            } else {
                c.slices.end(track, e.ts);
            }
        }
        "ufshcd_clk_gating" => {
            let state = match e.int("state").unwrap_or(0) {
                1 => 3,
                2 => 1,
                3 => 2,
                _ => 0,
            };
            let name = "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)";
            let track = global_track(c, "ufs_clkgating", name, "counter");
            c.counters.push(e.ts, track, state as f64, None);
        }
        "cpuhp_enter" | "cpuhp_multi_enter" => {
            let idx = e.int("idx").unwrap_or(0) as i32;
            let track = hotplug_track(c, uint("cpu") as u32);
            let args = [
                ("action_cpu", Some(ArgVal::Uint(machine_cpu(e.cpu) as u64))),
                ("cpuhp_idx", Some(ArgVal::Int(idx as i128))),
            ];
            let set = c.args.add_set_unique(&args);
            let name = format!("cpuhp({idx})");
            c.slices.begin_in("cpu", track, e.ts, name, -1, Some(set));
        }
        "cpuhp_exit" => {
            let track = hotplug_track(c, uint("cpu") as u32);
            c.slices.end(track, e.ts);
        }
        "dma_heap_stat" => dma_heap_stat(c, slots, e),
        "gpu_power_state" => {
            let track = global_track(
                c,
                "powervr_gpu_power_state",
                "powervr_gpu_power_state",
                "slice",
            );
            c.slices.end(track, e.ts);
            let name = match e.int("new_state").unwrap_or(0) {
                0 => "OFF",
                1 => "PG",
                2 => "ON",
                _ => "Unknown",
            };
            c.slices.begin(track, e.ts, name.into(), -1, None);
        }
        "fastrpc_dma_stat" => {
            let cid = e.int("cid").unwrap_or(0) as i32 as u32;
            let dsp = match cid {
                0 => "ASDP".to_owned(),
                1 => "MDSP".to_owned(),
                2 => "SDSP".to_owned(),
                3 => "CDSP".to_owned(),
                other => other.to_string(),
            };
            let total = c.tracks.intern(
                &mut c.args,
                "fastrpc",
                Some(&format!("mem.fastrpc[{dsp}]")),
                "counter",
                vec![("cid", Dim::Int(cid as i64))],
                Owner::default(),
                0,
            );
            c.counters
                .push(e.ts, total, uint("total_allocated") as f64, None);
            let utid = c.pt.get_or_create_thread(e.pid);
            let change = c.tracks.intern(
                &mut c.args,
                "fastrpc_change",
                Some(&format!("mem.fastrpc_change[{dsp}]")),
                "counter",
                vec![
                    ("cid", Dim::Int(cid as i64)),
                    ("utid", Dim::Int(utid as i64)),
                ],
                Owner {
                    utid: Some(utid),
                    ..Default::default()
                },
                0,
            );
            let len = e.int("len").unwrap_or(0) as i64;
            c.counters.push(e.ts, change, len as f64, None);
        }
        "google_icc_event" | "google_irm_event" => {
            let track = global_track(c, "interconnect_events", "Interconnect Events", "slice");
            let name = e.str("event").unwrap_or("").to_owned();
            c.slices.begin_in(e.name, track, e.ts, name, 0, None);
        }
        "mali_gpu_power_state" => {
            let track = global_track(c, "mali_gpu_power_state", "mali_gpu_power_state", "counter");
            let state = e.int("to_state").unwrap_or(0) as f64;
            c.counters.push(e.ts, track, state, None);
        }
        _ => {}
    }
}

/// A track with no dimensions (one for the whole trace).
fn global_track(c: &mut Ctx, type_: &'static str, name: &str, event_type: &'static str) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(name),
        event_type,
        vec![],
        Owner::default(),
        0,
    )
}

fn hotplug_track(c: &mut Ctx, cpu: u32) -> u32 {
    c.cpu_slice_track("cpu_hotplug", &format!("CPU Hotplug {cpu}"), cpu as i64)
}

fn dma_heap_stat(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let total = e.int("total_allocated").unwrap_or(0) as u64;
    let len = e.int("len").unwrap_or(0) as i64;
    let inode = e.int("inode").unwrap_or(0) as u64;
    let heap = global_track(c, "android_dma_heap", "mem.dma_heap", "counter");
    c.counters.push(e.ts, heap, total as f64, None);
    let utid = c.pt.get_or_create_thread(e.pid);
    let change = c.tracks.intern(
        &mut c.args,
        "android_dma_heap_change",
        Some("mem.dma_heap_change"),
        "counter",
        vec![("utid", Dim::Int(utid as i64))],
        Owner {
            utid: Some(utid),
            ..Default::default()
        },
        0,
    );
    let set = c.args.add_set(&[("inode", Some(ArgVal::Uint(inode)))]);
    c.counters.push(e.ts, change, len as f64, Some(set));
    const TYPE: &str = "android_dma_allocations";
    let cookie = inode as i64 as i128;
    let lanes = &mut slots.compressor;
    let (idx, begin) = if len > 0 {
        (lanes.begin(TYPE, &vec![], cookie, Nesting::Nestable), true)
    } else {
        (lanes.end(TYPE, &vec![], cookie), false)
    };
    let track = c.tracks.intern(
        &mut c.args,
        TYPE,
        Some("mem.dma_buffer"),
        "slice",
        lane_dims(vec![], idx),
        Owner::default(),
        0,
    );
    if begin {
        let name = format!("{} kB", len / 1024);
        c.slices.begin(track, e.ts, name, -1, None);
    } else {
        c.slices.end(track, e.ts);
    }
}

/// A UFS command's slice name: its SCSI opcode's name, with the group id
/// when it has one (GetUfsCmdString).
fn ufs_command_name(opcode: u32, group_id: u32) -> String {
    let name = match opcode {
        4 => "FORMAT UNIT",
        18 => "INQUIRY",
        85 => "MODE SELECT (10)",
        90 => "MODE SENSE (10)",
        52 => "PRE-FETCH (10)",
        144 => "PRE-FETCH (16)",
        8 => "READ (6)",
        40 => "READ (10)",
        136 => "READ (16)",
        60 => "READ BUFFER",
        37 => "READ CAPACITY (10)",
        158 => "READ CAPACITY (16)",
        160 => "REPORT LUNS",
        3 => "REQUEST SENSE",
        162 => "SECURITY PROTOCOL IN",
        181 => "SECURITY PROTOCOL OUT",
        29 => "SEND DIAGNOSTIC",
        27 => "START STOP UNIT",
        53 => "SYNCHRONIZE CACHE (10)",
        145 => "SYNCHRONIZE CACHE (16)",
        0 => "TEST UNIT READY",
        66 => "UNMAP",
        47 => "VERIFY",
        10 => "WRITE (6)",
        42 => "WRITE (10)",
        138 => "WRITE (16)",
        59 => "WRITE BUFFER",
        _ => "UNDEFINED",
    };
    if group_id > 0 {
        format!("{name} (GID={group_id:#x})")
    } else {
        name.to_owned()
    }
}
