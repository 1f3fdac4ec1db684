//! Video4Linux2 buffer events as instants (trace_processor's V4l2Tracker):
//! each of v4l2_qbuf, v4l2_dqbuf and the vb2_v4l2_* events is an instant of
//! category `Video 4 Linux 2` on the thread's track, named by the event and
//! its buffer (`VIDIOC_QBUF minor=.. seq=.. type=.. index=..`), with the
//! buffer's fields as args (type, field, flags and timecode decoded to the
//! kernel's names); a buffer's dequeue has a flow from its queueing. As in
//! the reference, vb2_v4l2_dqbuf's instant is named `vb2_v4l2_qbuf ...`.

use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::{stack_string, Ctx};

const CATEGORY: &str = "Video 4 Linux 2";

#[derive(Default)]
pub struct V4l2Tracker {
    /// (minor, sequence, type, index) of a queued buffer -> its instant
    queued: HashMap<(i32, u32, u32, u32), Option<u32>>,
}

/// A buffer type's name (linux/videodev2.h V4L2_BUF_TYPE_*).
fn buf_type(t: u32) -> Option<&'static str> {
    const TYPES: [&str; 14] = [
        "VIDEO_CAPTURE",
        "VIDEO_OUTPUT",
        "VIDEO_OVERLAY",
        "VBI_CAPTURE",
        "VBI_OUTPUT",
        "SLICED_VBI_CAPTURE",
        "SLICED_VBI_OUTPUT",
        "VIDEO_OUTPUT_OVERLAY",
        "VIDEO_CAPTURE_MPLANE",
        "VIDEO_OUTPUT_MPLANE",
        "SDR_CAPTURE",
        "SDR_OUTPUT",
        "META_CAPTURE",
        "META_OUTPUT",
    ];
    match t {
        0x80 => Some("PRIVATE"),
        1..=14 => Some(TYPES[t as usize - 1]),
        _ => None,
    }
}

/// A buffer field order's name (V4L2_FIELD_*).
fn buf_field(f: u32) -> Option<&'static str> {
    const FIELDS: [&str; 10] = [
        "ANY",
        "NONE",
        "TOP",
        "BOTTOM",
        "INTERLACED",
        "SEQ_TB",
        "SEQ_BT",
        "ALTERNATE",
        "INTERLACED_TB",
        "INTERLACED_BT",
    ];
    FIELDS.get(f as usize).copied()
}

/// A timecode type's name (V4L2_TC_TYPE_*).
fn timecode_type(t: u32) -> Option<&'static str> {
    const TYPES: [&str; 5] = ["24FPS", "25FPS", "30FPS", "50FPS", "60FPS"];
    t.checked_sub(1)
        .and_then(|i| TYPES.get(i as usize))
        .copied()
}

/// A buffer's flags (V4L2_BUF_FLAG_*), `|`-joined as the reference lists
/// them (the timestamp / source masks included).
fn buf_flags(flags: u32) -> String {
    let bits: [(bool, &str); 22] = [
        (flags & 0x1 != 0, "MAPPED"),
        (flags & 0x2 != 0, "QUEUED"),
        (flags & 0x4 != 0, "DONE"),
        (flags & 0x8 != 0, "KEYFRAME"),
        (flags & 0x10 != 0, "PFRAME"),
        (flags & 0x20 != 0, "BFRAME"),
        (flags & 0x40 != 0, "ERROR"),
        (flags & 0x80 != 0, "IN_REQUEST"),
        (flags & 0x100 != 0, "TIMECODE"),
        (flags & 0x200 != 0, "M2M_HOLD_CAPTURE_BUF"),
        (flags & 0x400 != 0, "PREPARED"),
        (flags & 0x800 != 0, "NO_CACHE_INVALIDATE"),
        (flags & 0x1000 != 0, "NO_CACHE_CLEAN"),
        (flags & 0xe000 != 0, "TIMESTAMP_MASK"),
        (flags == 0, "TIMESTAMP_UNKNOWN"),
        (flags & 0x2000 != 0, "TIMESTAMP_MONOTONIC"),
        (flags & 0x4000 != 0, "TIMESTAMP_COPY"),
        (flags & 0x70000 != 0, "TSTAMP_SRC_MASK"),
        (flags == 0, "TSTAMP_SRC_EOF"),
        (flags & 0x10000 != 0, "TSTAMP_SRC_SOE"),
        (flags & 0x100000 != 0, "LAST"),
        (flags & 0x800000 != 0, "REQUEST_FD"),
    ];
    let names: Vec<&str> = bits.iter().filter(|b| b.0).map(|b| b.1).collect();
    names.join("|")
}

/// A timecode's flags (V4L2_TC_FLAG_* / USERBITS_*).
fn timecode_flags(flags: u32) -> String {
    let bits: [(bool, &str); 7] = [
        (flags == 0, "USERBITS_USERDEFINED"),
        (flags & 0x1 != 0, "FLAG_DROPFRAME"),
        (flags & 0x2 != 0, "FLAG_COLORFRAME"),
        (flags & 0xC == 0x4, "USERBITS_field(01)"),
        (flags & 0xC == 0x8, "USERBITS_field(10)"),
        (flags & 0xC == 0xC, "USERBITS_field(11)"),
        (flags & 0x8 != 0, "USERBITS_8BITCHARS"),
    ];
    let names: Vec<&str> = bits.iter().filter(|b| b.0).map(|b| b.1).collect();
    names.join("|")
}

fn opt_str(s: Option<&'static str>) -> Option<ArgVal> {
    Some(s.map_or(ArgVal::NullStr, |s| ArgVal::Str(s.into())))
}

impl V4l2Tracker {
    /// v4l2_qbuf / v4l2_dqbuf / vb2_v4l2_buf_queue / _buf_done / _qbuf /
    /// _dqbuf.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let u = |f: &str| e.int(f).unwrap_or(0) as u32;
        let minor = e.int("minor").unwrap_or(0) as i32;
        let seq = u("sequence");
        let v4l2 = matches!(e.name, "v4l2_qbuf" | "v4l2_dqbuf");
        let name = match e.name {
            "v4l2_qbuf" | "v4l2_dqbuf" => {
                let ioctl = if e.name == "v4l2_qbuf" {
                    "QBUF"
                } else {
                    "DQBUF"
                };
                format!(
                    "VIDIOC_{ioctl} minor={minor} seq={seq} type={} index={}",
                    u("type"),
                    u("index")
                )
            }
            // the reference names vb2_v4l2_dqbuf's instant as a qbuf
            "vb2_v4l2_dqbuf" => format!("vb2_v4l2_qbuf minor={minor} seq={seq} type=0 index=0"),
            other => format!("{other} minor={minor} seq={seq} type=0 index=0"),
        };
        let int = |f: &str| Some(ArgVal::Int(u(f) as i128));
        let mut args = vec![("minor", Some(ArgVal::Int(minor as i128)))];
        if v4l2 {
            args.push(("index", int("index")));
            args.push(("type", opt_str(buf_type(u("type")))));
            args.push(("bytesused", int("bytesused")));
        }
        args.extend([
            ("flags", Some(ArgVal::Str(buf_flags(u("flags"))))),
            ("field", opt_str(buf_field(u("field")))),
            (
                "timestamp",
                Some(ArgVal::Int(e.int("timestamp").unwrap_or(0) as i64 as i128)),
            ),
            ("timecode_type", opt_str(timecode_type(u("timecode_type")))),
            (
                "timecode_flags",
                Some(ArgVal::Str(timecode_flags(u("timecode_flags")))),
            ),
            ("timecode_frames", int("timecode_frames")),
            ("timecode_seconds", int("timecode_seconds")),
            ("timecode_minutes", int("timecode_minutes")),
            ("timecode_hours", int("timecode_hours")),
            ("timecode_userbits0", int("timecode_userbits0")),
            ("timecode_userbits1", int("timecode_userbits1")),
            ("timecode_userbits2", int("timecode_userbits2")),
            ("timecode_userbits3", int("timecode_userbits3")),
            ("sequence", int("sequence")),
        ]);
        let utid = c.pt.get_or_create_thread(e.pid);
        let track = thread_track(c, utid);
        let set = c.args.add_set(&args);
        let name = stack_string(name, 64);
        let row = c.slices.begin_in(CATEGORY, track, e.ts, name, 0, Some(set));
        let key = (minor, seq, u("type"), u("index"));
        match e.name {
            "v4l2_qbuf" => {
                self.queued.insert(key, row);
            }
            "v4l2_dqbuf" => {
                if let Some(queued) = self.queued.remove(&key) {
                    if let (Some(out), Some(r)) = (queued, row) {
                        c.flows.push((out, r, None));
                    }
                }
            }
            _ => {}
        }
    }
}
