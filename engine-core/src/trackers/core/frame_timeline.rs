//! FrameTimeline events -> expected/actual timeline slices with args and the
//! frame-timeline table columns (importers/proto/frame_timeline_event_parser.cc).

use std::collections::{HashMap, HashSet};

use crate::events::FrameEv;
use crate::trackers::core::compressor::{lane_dims, Nesting, TrackCompressor};
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

const JANK_BITS: [(i64, &str); 15] = [
    (2, "SurfaceFlinger Scheduling"),
    (4, "Prediction Error"),
    (8, "Display HAL"),
    (16, "SurfaceFlinger CPU Deadline Missed"),
    (32, "SurfaceFlinger GPU Deadline Missed"),
    (64, "App Deadline Missed"),
    (4096, "App Resynced Jitter"),
    (128, "Buffer Stuffing"),
    (256, "Unknown Jank"),
    (512, "SurfaceFlinger Stuffing"),
    (1024, "Dropped Frame"),
    (2048, "Non Animating"),
    (8192, "Display not ON"),
    (16384, "ModeChange in progress"),
    (32768, "PowerModeChange in progress"),
];
const PRESENT_TYPES: [&str; 6] = [
    "Unspecified Present",
    "On-time Present",
    "Late Present",
    "Early Present",
    "Dropped Frame",
    "Unknown Present",
];
const PREDICTION_TYPES: [&str; 4] = [
    "Unspecified Prediction",
    "Valid Prediction",
    "Expired Prediction",
    "Unknown Prediction",
];
const SEVERITY_TYPES: [&str; 4] = ["Unknown", "None", "Partial", "Full"];
const NOT_JANK: [i64; 4] = [0, 1, 2048, 8192];
const DISPLAY_JANK_BITS: i64 = 2 | 4 | 8 | 16 | 32;
const SURFACE_JANK_BITS: i64 = 64 | 4096 | 256;
const NON_PERCEIVABLE: [i64; 3] = [2048, 8192, 32768];
const PRESENT_DROPPED: i64 = 4;

fn pick(table: &[&'static str], v: i64) -> &'static str {
    if v >= 0 && (v as usize) < table.len() {
        table[v as usize]
    } else {
        table[0]
    }
}

pub fn jank_type_string(bits: i64) -> String {
    match bits {
        0 => "Unspecified".into(),
        1 => "None".into(),
        _ => {
            let names: Vec<&str> = JANK_BITS
                .iter()
                .filter(|(b, _)| bits & b != 0)
                .map(|(_, n)| *n)
                .collect();
            if names.is_empty() {
                "Unspecified".into()
            } else {
                names.join(", ")
            }
        }
    }
}

fn severity_string(v: Option<i64>, bits: i64) -> &'static str {
    match v {
        None => {
            if bits == 1 {
                "None"
            } else {
                "Unknown"
            }
        }
        Some(v) if v >= 0 && (v as usize) < SEVERITY_TYPES.len() => SEVERITY_TYPES[v as usize],
        Some(_) => "Unknown",
    }
}

fn display_janky(v: i64) -> bool {
    !NOT_JANK.contains(&v) && v & DISPLAY_JANK_BITS != 0
}

fn surface_janky(v: i64) -> bool {
    !NOT_JANK.contains(&v) && v & SURFACE_JANK_BITS != 0
}

fn display_jank_tag(v: i64) -> &'static str {
    if v == 0 {
        "Unspecified"
    } else if display_janky(v) {
        "Self Jank"
    } else if v == 512 {
        "SurfaceFlinger Stuffing"
    } else if v == 1024 {
        "Dropped Frame"
    } else if NON_PERCEIVABLE.contains(&v) {
        "Non-perceivable Jank"
    } else {
        "No Jank"
    }
}

fn surface_jank_tag(v: i64, present: i64) -> &'static str {
    if v == 0 {
        "Unspecified"
    } else if surface_janky(v) {
        "Self Jank"
    } else if display_janky(v) {
        "Other Jank"
    } else if v == 128 {
        "Buffer Stuffing"
    } else if v == 512 {
        "SurfaceFlinger Stuffing"
    } else if present == PRESENT_DROPPED {
        "Dropped Frame"
    } else if NON_PERCEIVABLE.contains(&v) {
        "Non-perceivable Jank"
    } else {
        "No Jank"
    }
}

/// The frame-timeline table columns of one slice.
pub struct FrameCols {
    pub expected: bool,
    pub display_frame_token: Option<i64>,
    pub surface_frame_token: Option<i64>,
    pub upid: u32,
    pub layer_name: Option<String>,
    // actual frames only
    pub present_type: &'static str,
    pub on_time_finish: i64,
    pub gpu_composition: i64,
    pub jank_type: String,
    pub jank_severity_type: &'static str,
    pub prediction_type: &'static str,
    pub jank_tag: &'static str,
    pub jank_tag_experimental: Option<&'static str>,
    pub jank_score: Option<f64>,
    pub latched_unsignaled_count: Option<i64>,
    pub addressable_unsignaled_latch_count: Option<i64>,
    pub latched_fence_state: Option<i64>,
}

#[derive(Default)]
pub struct FrameTimelineTracker {
    /// cookie -> (slice, its process, expected?) of a frame still open;
    /// None: an expected surface frame whose token the process already had
    /// (no slice, but trace_processor maps its cookie: its end is paired)
    cookie: HashMap<i64, Option<(u32, u32, bool)>>,
    /// the Expected / Actual Timeline lanes per process
    lanes: TrackCompressor,
    expected_seen: HashSet<(u32, i64)>,
    /// (slice id, columns) in creation order
    pub rows: Vec<(u32, FrameCols)>,
    row_of: HashMap<u32, usize>,
    /// display frame token -> the actual surface frames waiting for it
    surfaces_of_display: HashMap<i64, Vec<u32>>,
}

/// A frame timeline track's (type, name).
fn timeline(expected: bool) -> (&'static str, &'static str) {
    if expected {
        ("android_expected_frame_timeline", "Expected Timeline")
    } else {
        ("android_actual_frame_timeline", "Actual Timeline")
    }
}

impl FrameTimelineTracker {
    pub fn event(&mut self, c: &mut Ctx, ts: i64, d: &FrameEv) {
        if ts < 0 {
            return;
        }
        if d.kind == 5 {
            let Some(cookie) = d.cookie else {
                c.stats.add("frame_timeline_event_parser_errors", 1, None);
                return;
            };
            let Some(open) = self.cookie.remove(&cookie) else {
                c.stats.add("frame_timeline_unpaired_end_event", 1, None);
                return;
            };
            let Some((sid, upid, expected)) = open else {
                return; // the end of a frame that made no slice
            };
            let dims = vec![("upid", Dim::Int(upid as i64))];
            self.lanes.end(timeline(expected).0, &dims, cookie as i128);
            let row = &mut c.slices.rows[sid as usize];
            if row.dur == -1 {
                row.dur = ts - row.ts;
            }
            return;
        }
        let (Some(cookie), Some(token), Some(pid)) = (d.cookie, d.token, d.pid) else {
            c.stats.add("frame_timeline_event_parser_errors", 1, None);
            return;
        };
        if (d.kind == 3 || d.kind == 4) && d.display_frame_token.is_none() {
            c.stats.add("frame_timeline_event_parser_errors", 1, None);
            return;
        }
        let upid = c.pt.get_or_create_process(pid);
        let expected = d.kind == 1 || d.kind == 3;
        if d.kind == 3 && !self.expected_seen.insert((upid, token)) {
            self.cookie.insert(cookie, None);
            return;
        }
        let (type_, name) = timeline(expected);
        // overlapping frames of a process go to parallel same-named tracks,
        // one per lane (track_compressor_idx), each frame at depth 0
        let dims = vec![("upid", Dim::Int(upid as i64))];
        let lane = self
            .lanes
            .begin(type_, &dims, cookie as i128, Nesting::Nestable);
        let track = c.tracks.intern(
            &mut c.args,
            type_,
            Some(name),
            "slice",
            lane_dims(dims, lane),
            Owner {
                upid: Some(upid),
                ..Default::default()
            },
            0,
        );
        let surface = d.kind == 3 || d.kind == 4;
        let display_token = if surface {
            d.display_frame_token
        } else {
            Some(token)
        };
        // an expected surface frame without a layer name has a NULL one; an
        // actual one's is trace_processor's uninitialized StringId (not
        // followed: an empty name here)
        let layer = match (&d.layer_name, expected) {
            (Some(name), _) => Some(name.clone()),
            (None, true) => None,
            (None, false) => Some(String::new()),
        };
        let mut cols = FrameCols {
            expected,
            display_frame_token: display_token,
            // display frames have no surface token: NULL, as the reference
            // trace_processor (v58.2) gives
            surface_frame_token: if surface { Some(token) } else { None },
            upid,
            layer_name: if surface { layer.clone() } else { None },
            present_type: "",
            on_time_finish: 0,
            gpu_composition: 0,
            jank_type: String::new(),
            jank_severity_type: "",
            prediction_type: "",
            jank_tag: "",
            jank_tag_experimental: None,
            jank_score: None,
            latched_unsignaled_count: None,
            addressable_unsignaled_latch_count: None,
            latched_fence_state: None,
        };
        let mut args: Vec<(&str, Option<ArgVal>)> = vec![(
            "Display frame token",
            display_token.map(|t| ArgVal::Int(t as i128)),
        )];
        if surface {
            args.push(("Surface frame token", Some(ArgVal::Int(token as i128))));
            args.push((
                "Layer name",
                Some(layer.map_or(ArgVal::NullStr, ArgVal::Str)),
            ));
        }
        if !expected {
            // an enum value out of range is an error (ValidatePresentType /
            // ValidatePredictionType) and reads as the table's first name
            let invalid = |v: Option<i64>, max: usize| v.is_some_and(|v| v < 1 || v >= max as i64);
            let errors = invalid(d.present_type, PRESENT_TYPES.len()) as i64
                + invalid(d.present_type_experimental, PRESENT_TYPES.len()) as i64
                + invalid(d.prediction_type, PREDICTION_TYPES.len()) as i64;
            if errors > 0 {
                c.stats
                    .add("frame_timeline_event_parser_errors", errors, None);
            }
            let bits = d.jank_type.unwrap_or(0);
            let present = d.present_type.unwrap_or(0);
            cols.present_type = pick(&PRESENT_TYPES, present);
            cols.on_time_finish = d.on_time_finish.unwrap_or(false) as i64;
            cols.gpu_composition = d.gpu_composition.unwrap_or(false) as i64;
            cols.jank_type = jank_type_string(bits);
            cols.jank_severity_type = severity_string(d.jank_severity_type, bits);
            cols.prediction_type = pick(&PREDICTION_TYPES, d.prediction_type.unwrap_or(0));
            cols.jank_tag = if surface {
                surface_jank_tag(bits, present)
            } else {
                display_jank_tag(bits)
            };
            // v58 fills both for every actual frame: score 0 and the tag of
            // JANK_UNSPECIFIED when the trace has none
            cols.jank_score = Some(d.jank_severity_score.unwrap_or(0.0));
            cols.latched_unsignaled_count = d.latched_unsignaled_count;
            cols.addressable_unsignaled_latch_count = d.addressable_unsignaled_latch_count;
            cols.latched_fence_state = d.latched_fence_state;
            // (the experimental tag reads the experimental present type
            // only: none is not the main one's)
            let be = d.jank_type_experimental.unwrap_or(0);
            let pe = d.present_type_experimental.unwrap_or(0);
            cols.jank_tag_experimental = Some(if surface {
                surface_jank_tag(be, pe)
            } else {
                display_jank_tag(be)
            });
            // v58's args of an actual frame: every one present, defaults
            // (0.0, 'Unspecified ...') where the trace has none
            let real = |v: Option<f64>| Some(ArgVal::Real(v.unwrap_or(0.0)));
            let present_exp = pick(&PRESENT_TYPES, d.present_type_experimental.unwrap_or(0));
            args.push(("Present Delay (ms)", real(d.present_delay_millis)));
            if surface {
                args.push((
                    "Vsync Resynced Jitter (ms)",
                    real(d.vsync_resynced_jitter_millis),
                ));
            }
            args.push(("Present type", Some(ArgVal::Str(cols.present_type.into()))));
            args.push((
                "Present type (experimental)",
                Some(ArgVal::Str(present_exp.into())),
            ));
            args.push((
                "On time finish",
                Some(ArgVal::Int(cols.on_time_finish as i128)),
            ));
            args.push((
                "GPU composition",
                Some(ArgVal::Int(cols.gpu_composition as i128)),
            ));
            args.push(("Jank type", Some(ArgVal::Str(cols.jank_type.clone()))));
            args.push((
                "Jank type (experimental)",
                Some(ArgVal::Str(jank_type_string(be))),
            ));
            args.push((
                "Jank severity type",
                Some(ArgVal::Str(cols.jank_severity_type.into())),
            ));
            args.push(("Jank Severity Score", real(cols.jank_score)));
            args.push((
                "Prediction type",
                Some(ArgVal::Str(cols.prediction_type.into())),
            ));
            args.push(("Jank tag", Some(ArgVal::Str(cols.jank_tag.into()))));
            args.push((
                "Jank tag (experimental)",
                cols.jank_tag_experimental.map(|t| ArgVal::Str(t.into())),
            ));
            if surface {
                let v = match d.is_buffer {
                    Some(true) => "Yes",
                    Some(false) => "No",
                    None => "Unspecified",
                };
                args.push(("Is Buffer?", Some(ArgVal::Str(v.into()))));
            }
            args.push((
                "Jank Metadata (debugging only)",
                real(d.jank_debug_metadata),
            ));
        }
        let arg_set = c.args.add_set(&args);
        c.slices
            .begin(track, ts, token.to_string(), -1, Some(arg_set));
        // (the newest slice, as the reference does even when the begin was dropped)
        let sid = c.slices.rows.len() as u32 - 1;
        self.cookie.insert(cookie, Some((sid, upid, expected)));
        // a flow from each actual surface frame of an app to the actual
        // display frame it was composited into (the surface frames come
        // first), as trace_processor's FrameTimelineEventParser
        match (d.kind, display_token) {
            (4, Some(display)) => self
                .surfaces_of_display
                .entry(display)
                .or_default()
                .push(sid),
            (2, _) => {
                for surface in self.surfaces_of_display.remove(&token).unwrap_or_default() {
                    c.flows.push((surface, sid, None));
                }
            }
            _ => {}
        }
        match self.row_of.get(&sid) {
            Some(&i) => self.rows[i].1 = cols,
            None => {
                self.row_of.insert(sid, self.rows.len());
                self.rows.push((sid, cols));
            }
        }
    }
}
