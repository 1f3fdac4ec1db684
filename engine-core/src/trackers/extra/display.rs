//! Pixel display driver events (trace_processor's PixelDisplayTracker,
//! FtraceParser::ParseDpuDispDpuUnderrun and ParseGramCollision): display
//! pipeline faults as instants, each kind on its own track per display or
//! panel, with the event's counters as args:
//!
//! - dpu_disp_dpu_underrun: `disp_dpu_underrun` on `underrun[<id>]`;
//! - dpu_disp_dpu_line_underrun: `disp_line_dpu_underrun` on
//!   `line_underrun[<id>]`;
//! - dpu_disp_frame_{start,done}_{timeout,missing}: `frame_<...>` on
//!   `frame_<...>[<output_id>]`;
//! - gram_collision: `ddic_underrun` on `ddic_underrun[<panel_index>]`;
//!
//! and dpu_disp_vblank_irq_enable as `disp_vblank_irq_enable` slices (begun
//! by an enable, ended by a disable) on `vblank_irq_en[<output_id>]`; the
//! panel's settings (panel_settings_full / _lite) as instants of that name
//! on `panel_settings_full[<panel_index>]` / `..._lite[...]`, with the
//! settings as args.

use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

/// Whether `name` is one of the events above.
pub fn takes(name: &str) -> bool {
    matches!(
        name,
        "dpu_disp_dpu_underrun"
            | "dpu_disp_dpu_line_underrun"
            | "dpu_disp_frame_start_timeout"
            | "dpu_disp_frame_done_timeout"
            | "dpu_disp_frame_start_missing"
            | "dpu_disp_frame_done_missing"
            | "gram_collision"
            | "dpu_disp_vblank_irq_enable"
            | "panel_settings_full"
            | "panel_settings_lite"
    )
}

/// Imports `e`, one of the events `takes`.
pub fn event(c: &mut Ctx, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0) as i64;
    // the reference's dimensions and track names take the value as uint32
    let id32 = |f: &str| int(f) as u32;
    let arg = |f: &str| Some(ArgVal::Int(int(f) as i128));
    match e.name {
        "dpu_disp_dpu_underrun" | "dpu_disp_dpu_line_underrun" => {
            let line = e.name == "dpu_disp_dpu_line_underrun";
            let (type_, track_name, slice, pending_key) = if line {
                (
                    "disp_dpu_line_underrun",
                    "line_underrun",
                    "disp_line_dpu_underrun",
                    "frames_pending",
                )
            } else {
                (
                    "disp_dpu_underrun",
                    "underrun",
                    "disp_dpu_underrun",
                    "pending_frame",
                )
            };
            let track = track(c, type_, track_name, "display_id", id32("id"));
            let args = [
                ("vsync_count", arg("vsync_count")),
                (pending_key, arg("frames_pending")),
            ];
            instant(c, track, e.ts, slice, &args);
        }
        "gram_collision" => {
            let track = track(
                c,
                "ddic_underrun",
                "ddic_underrun",
                "panel_index",
                id32("panel_index"),
            );
            instant(
                c,
                track,
                e.ts,
                "ddic_underrun",
                &[("collision_cnt", arg("collision_cnt"))],
            );
        }
        "panel_settings_full" | "panel_settings_lite" => {
            let flag = |f: &str| Some(ArgVal::Bool(int(f) != 0));
            let (type_, args) = if e.name == "panel_settings_full" {
                let args = vec![
                    ("hbm", flag("hbm")),
                    ("irc", arg("irc")),
                    ("h_pwm", flag("h_pwm")),
                    ("fi_auto", flag("fi_auto")),
                    ("fi_manual", flag("fi_manual")),
                    ("early_exit", flag("early_exit")),
                    ("min_rr", arg("min_rr")),
                    ("max_rr", arg("max_rr")),
                    ("te_freq", arg("te_freq")),
                ];
                ("panel_settings_full", args)
            } else {
                let args = vec![
                    ("vrr", flag("vrr")),
                    ("min_rr", arg("min_rr")),
                    ("max_rr", arg("max_rr")),
                    ("te_freq", arg("te_freq")),
                ];
                ("panel_settings_lite", args)
            };
            let track = track(c, type_, type_, "panel_index", id32("panel_index"));
            instant(c, track, e.ts, type_, &args);
        }
        "dpu_disp_vblank_irq_enable" => {
            let track = track(
                c,
                "disp_vblank_irq_enable",
                "vblank_irq_en",
                "display_id",
                id32("output_id"),
            );
            if int("enable") != 0 {
                let set = c
                    .args
                    .add_set_unique(&[("display_id", arg("id")), ("output_id", arg("output_id"))]);
                c.slices
                    .begin(track, e.ts, "disp_vblank_irq_enable".into(), -1, Some(set));
            } else {
                c.slices.end(track, e.ts);
            }
        }
        _ => {
            // dpu_disp_frame_{start,done}_{timeout,missing}
            let kind = &e.name["dpu_disp_".len()..];
            let type_ = match kind {
                "frame_start_timeout" => "disp_frame_start_timeout",
                "frame_done_timeout" => "disp_frame_done_timeout",
                "frame_start_missing" => "disp_frame_start_missing",
                _ => "disp_frame_done_missing",
            };
            let track = track(c, type_, kind, "panel_index", id32("output_id"));
            let mut args = vec![
                ("display_id", arg("display_id")),
                ("output_id", arg("output_id")),
                ("frames_pending", arg("frames_pending")),
                ("te_count", arg("te_count")),
            ];
            if kind == "frame_done_timeout" {
                args.push(("during_disable", arg("during_disable")));
            }
            instant(c, track, e.ts, kind, &args);
        }
    }
}

/// The `<name>[<value>]` track of `type_` with dimension `dim` = value.
fn track(c: &mut Ctx, type_: &'static str, name: &str, dim: &'static str, value: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(&format!("{name}[{value}]")),
        "slice",
        vec![(dim, Dim::Int(value as i64))],
        Owner::default(),
        0,
    )
}

fn instant(c: &mut Ctx, track: u32, ts: i64, name: &str, args: &[(&str, Option<ArgVal>)]) {
    let set = c.args.add_set(args);
    c.slices.begin(track, ts, name.into(), 0, Some(set));
}
