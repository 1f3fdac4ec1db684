//! virtio GPU command queues (trace_processor's VirtioGpuTracker), as an
//! Android emulator or VM guest traces them: for each of the `control` and
//! `cursor` queues, a command (virtio_gpu_cmd_queue) is a slice named by
//! its command type on the queue's `Virtgpu <Queue> Queue` lanes (one per
//! command in flight, keyed by its seqno) until its response
//! (virtio_gpu_cmd_response); both report the queue's free descriptors on
//! `Virtgpu <Queue> Free`, and a response to a command without a fence
//! adds the command's latency on `Virtgpu <Queue> Latency`. Other queues
//! are ignored.
//!
//! virtio video (trace_processor's VirtioVideoTracker): a queued resource
//! (virtio_video_resource_queue) is a `Resource #<id>` slice on its
//! stream's queue lanes (`virtio_video stream #<n> INPUT` / `OUTPUT`, keyed
//! by resource id) until it is done, which adds its stream, resource, queue
//! type, data sizes and timestamp as args; a command and its completion
//! (virtio_video_cmd / _done) are 100 us slices named by the command on the
//! stream's `Requests` / `Responses` lanes.

use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::atrace::AsyncSlots;
use crate::trackers::core::compressor::{lane_dims, Nesting};
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

const QUEUE_TYPE: &str = "virtgpu_queue_event";

#[derive(Default)]
pub struct VirtioGpuTracker {
    /// per queue (Control, Cursor): seqno -> when its command was queued
    /// (commands without a fence only)
    queued: [HashMap<u32, i64>; 2],
}

/// A command type's name (the kernel's VIRTIO_GPU_CMD_*), "" if unknown.
fn command_name(kind: u32) -> &'static str {
    const CMDS_2D: [&str; 14] = [
        "GET_DISPLAY_INFO",
        "RESOURCE_CREATE_2D",
        "RESOURCE_UNREF",
        "SET_SCANOUT",
        "RESOURCE_FLUSH",
        "TRANSFER_TO_HOST_2D",
        "RESOURCE_ATTACH_BACKING",
        "RESOURCE_DETACH_BACKING",
        "GET_CAPSET_INFO",
        "GET_CAPSET",
        "GET_EDID",
        "RESOURCE_ASSIGN_UUID",
        "RESOURCE_CREATE_BLOB",
        "SET_SCANOUT_BLOB",
    ];
    const CMDS_3D: [&str; 10] = [
        "CTX_CREATE",
        "CTX_DESTROY",
        "CTX_ATTACH_RESOURCE",
        "CTX_DETACH_RESOURCE",
        "RESOURCE_CREATE_3D",
        "TRANSFER_TO_HOST_3D",
        "TRANSFER_FROM_HOST_3D",
        "SUBMIT_3D",
        "RESOURCE_MAP_BLOB",
        "RESOURCE_UNMAP_BLOB",
    ];
    const CMDS_CURSOR: [&str; 2] = ["UPDATE_CURSOR", "MOVE_CURSOR"];
    let (table, base): (&[&str], u32) = match kind >> 8 {
        1 => (&CMDS_2D, 0x100),
        2 => (&CMDS_3D, 0x200),
        3 => (&CMDS_CURSOR, 0x300),
        _ => return "",
    };
    table.get((kind - base) as usize).copied().unwrap_or("")
}

impl VirtioGpuTracker {
    /// virtio_gpu_cmd_queue / virtio_gpu_cmd_response.
    pub fn event(&mut self, c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
        let (index, queue) = match e.str("name") {
            Some("control") => (0, "Control"),
            Some("cursor") => (1, "Cursor"),
            _ => return,
        };
        let u = |f: &str| e.int(f).unwrap_or(0) as u64;
        let free = counter_track(c, "virtgpu_num_free", queue, "Free");
        c.counters
            .push(e.ts, free, u("num_free") as u32 as f64, None);
        let seqno = u("seqno") as u32;
        let dims = vec![("virtgpu_name", Dim::Str(queue.to_owned()))];
        if e.name == "virtio_gpu_cmd_queue" {
            let idx = slots
                .compressor
                .begin(QUEUE_TYPE, &dims, seqno as i128, Nesting::Nestable);
            let track = lane_track(c, queue, dims, idx);
            let name = command_name(u("type") as u32).to_owned();
            c.slices.begin(track, e.ts, name, -1, None);
            // a fenced command may wait on the host: no latency for it
            if u("fence_id") == 0 {
                self.queued[index].insert(seqno, e.ts);
            }
        } else {
            let idx = slots.compressor.end(QUEUE_TYPE, &dims, seqno as i128);
            let track = lane_track(c, queue, dims, idx);
            c.slices.end(track, e.ts);
            if let Some(start) = self.queued[index].remove(&seqno) {
                let latency = counter_track(c, "virtgpu_latency", queue, "Latency");
                c.counters.push(e.ts, latency, (e.ts - start) as f64, None);
            }
        }
    }
}

fn lane_track(c: &mut Ctx, queue: &str, dims: Vec<(&'static str, Dim)>, idx: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        QUEUE_TYPE,
        Some(&format!("Virtgpu {queue} Queue")),
        "slice",
        lane_dims(dims, idx),
        Owner::default(),
        0,
    )
}

fn counter_track(c: &mut Ctx, type_: &'static str, queue: &str, what: &str) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(&format!("Virtgpu {queue} {what}")),
        "counter",
        vec![("virtgpu_name", Dim::Str(queue.to_owned()))],
        Owner::default(),
        0,
    )
}

/// How long a virtio video command slice lasts (the reference's fixed
/// kVirtioVideoCmdDuration: the events carry no duration).
const VIDEO_CMD_DUR: i64 = 100_000;
const VIDEO_QUEUE_TYPE: &str = "virtio_video_queue_event";
const VIDEO_CMD_TYPE: &str = "virtio_video_command";

/// A video queue type's name (VIRTIO_VIDEO_QUEUE_TYPE_*).
fn video_queue_name(queue_type: u32) -> &'static str {
    match queue_type {
        0x100 => "INPUT",
        0x101 => "OUTPUT",
        _ => "Unknown",
    }
}

/// A video command's name (VIRTIO_VIDEO_CMD_*), else `Unknown`.
fn video_command_name(kind: u64) -> &'static str {
    const CMDS: [&str; 15] = [
        "QUERY_CAPABILITY",
        "STREAM_CREATE",
        "STREAM_DESTROY",
        "STREAM_DRAIN",
        "RESOURCE_CREATE",
        "RESOURCE_QUEUE",
        "RESOURCE_DESTROY_ALL",
        "QUEUE_CLEAR",
        "GET_PARAMS",
        "SET_PARAMS",
        "QUERY_CONTROL",
        "GET_CONTROL",
        "SET_CONTROL",
        "GET_PARAMS_EXT",
        "SET_PARAMS_EXT",
    ];
    kind.checked_sub(0x100)
        .and_then(|i| CMDS.get(i as usize))
        .copied()
        .unwrap_or("Unknown")
}

/// virtio_video_resource_queue / _done, virtio_video_cmd / _done.
pub fn video(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0);
    let stream = int("stream_id") as u32;
    match e.name {
        "virtio_video_cmd" | "virtio_video_cmd_done" => {
            let response = e.name == "virtio_video_cmd_done";
            let dims = vec![
                ("virtio_stream_id", Dim::Int(stream as i64)),
                ("is_response", Dim::Int(response as i64)),
            ];
            let idx = slots
                .compressor
                .scoped(VIDEO_CMD_TYPE, &dims, e.ts, VIDEO_CMD_DUR);
            let which = if response { "Responses" } else { "Requests" };
            let track = c.tracks.intern(
                &mut c.args,
                VIDEO_CMD_TYPE,
                Some(&format!("virtio_video stream #{stream} {which}")),
                "slice",
                lane_dims(dims, idx),
                Owner::default(),
                0,
            );
            let name = video_command_name(int("type") as u64).to_owned();
            c.slices.begin(track, e.ts, name, VIDEO_CMD_DUR, None);
        }
        _ => {
            let done = e.name == "virtio_video_resource_queue_done";
            let queue_type = int("queue_type") as u32;
            let resource = int("resource_id") as i32;
            let dims = vec![
                ("virtio_stream_id", Dim::Int(stream as i64)),
                ("virtio_queue_type", Dim::Int(queue_type as i64)),
            ];
            let idx = if done {
                slots
                    .compressor
                    .end(VIDEO_QUEUE_TYPE, &dims, resource as i128)
            } else {
                slots
                    .compressor
                    .begin(VIDEO_QUEUE_TYPE, &dims, resource as i128, Nesting::Nestable)
            };
            let name = format!(
                "virtio_video stream #{stream} {}",
                video_queue_name(queue_type)
            );
            let track = c.tracks.intern(
                &mut c.args,
                VIDEO_QUEUE_TYPE,
                Some(&name),
                "slice",
                lane_dims(dims, idx),
                Owner::default(),
                0,
            );
            if !done {
                let name = format!("Resource #{resource}");
                c.slices.begin(track, e.ts, name, -1, None);
                return;
            }
            let arg = |f: &str| Some(ArgVal::Int(int(f)));
            let args = [
                (
                    "stream_id",
                    Some(ArgVal::Int(int("stream_id") as i32 as i128)),
                ),
                ("resource_id", Some(ArgVal::Int(resource as i128))),
                (
                    "queue_type",
                    Some(ArgVal::Str(video_queue_name(queue_type).into())),
                ),
                ("data_size0", arg("data_size0")),
                ("data_size1", arg("data_size1")),
                ("data_size2", arg("data_size2")),
                ("data_size3", arg("data_size3")),
                ("timestamp", Some(ArgVal::Uint(int("timestamp") as u64))),
            ];
            let row = c.slices.end(track, e.ts);
            crate::trackers::core::kernel_slices::add_end_args(c, row, &args);
        }
    }
}
