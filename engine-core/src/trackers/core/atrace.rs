//! atrace (ftrace `print`, and the kernel's atrace events `zero` /
//! `dpu_tracing_mark_write`) -> thread slices, async slices and process
//! counters (importers/systrace/systrace_parser.cc).

use rustc_hash::FxHashMap as HashMap;

use crate::decoder::atrace::{parse_print, Parsed, TracePoint};
use crate::events::FtraceEv;
use crate::trackers::core::compressor::{lane_dims, Nesting, TrackCompressor};
use crate::trackers::core::tracks::{ArgVal, Dim, Dims, Owner};
use crate::trackers::Ctx;

/// The lanes of atrace's async slices (S/F, G/H/N): the tracks they are
/// spread over (trace_processor's TrackCompressor).
#[derive(Default)]
pub struct AsyncSlots {
    /// trace_processor's TrackCompressor (shared with dma-buf lanes)
    pub(crate) compressor: TrackCompressor,
    /// per S/F lane track: (begins so far, the last begin's ts)
    unnestable: HashMap<u32, (i64, i64)>,
}

/// A process's async track of one lane.
fn async_track(c: &mut Ctx, type_: &'static str, name: &str, upid: u32, dims: Dims) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(name),
        "slice",
        dims,
        upid_owner(upid),
        0,
    )
}

/// Ends the open slice of an async lane. An end whose lane had no track yet
/// (nothing begun there) still creates the track, as trace_processor does,
/// with no slice to end on it.
/// Returns the slice it ended and its track.
fn end_async(
    c: &mut Ctx,
    type_: &'static str,
    name: &str,
    upid: u32,
    dims: Dims,
    ts: i64,
) -> Option<(u32, u32)> {
    let had_track = c.tracks.lookup(type_, &dims).is_some();
    let track = async_track(c, type_, name, upid, dims);
    if !had_track {
        return None;
    }
    c.slices.end(track, ts).map(|row| (row, track))
}

pub(in crate::trackers) fn thread_track(c: &mut Ctx, utid: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        "thread_execution",
        None,
        "slice",
        vec![("utid", Dim::Int(utid as i64))],
        Owner {
            utid: Some(utid),
            ..Default::default()
        },
        0,
    )
}

fn upid_owner(upid: u32) -> Owner {
    Owner {
        upid: Some(upid),
        ..Default::default()
    }
}

pub fn print(c: &mut Ctx, slots: &mut AsyncSlots, ts: i64, pid: i64, buf: &str) {
    match parse_print(buf) {
        Parsed::Ignored => {}
        Parsed::Failure => c.stats.add("systrace_parse_failure", 1, None),
        Parsed::Point(tp) => point(c, slots, ts, pid, tp),
    }
}

/// A kernel atrace point of a `zero` event (msm-google kernels' atrace
/// macros: flag bit 0 begin, bit 1 end, bit 2 int64 counter), as
/// SystraceParser::ParseZeroEvent.
pub fn zero(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let flag = e.int("flag").unwrap_or(0);
    let phase = if flag & 1 != 0 {
        'B'
    } else if flag & 2 != 0 {
        'E'
    } else if flag & 4 != 0 {
        'C'
    } else {
        c.stats.add("systrace_parse_failure", 1, None);
        return;
    };
    kernel_point(c, slots, e, phase);
}

/// A kernel tracing_mark_write event (`dpu_tracing_mark_write`: type is the
/// phase character B/E/C/I), as SystraceParser::ParseKernelTracingMarkWrite.
pub fn kernel_mark(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let phase = u8::try_from(e.int("type").unwrap_or(0))
        .map(char::from)
        .unwrap_or('\0');
    if !matches!(phase, 'B' | 'E' | 'C' | 'I') {
        c.stats.add("systrace_parse_failure", 1, None);
        return;
    }
    kernel_point(c, slots, e, phase);
}

/// The other kernel tracing_mark_write events, as FtraceParser's
/// Parse{Mdss,Sde,G2d,Samsung,Mali}TracingMarkWrite then
/// SystraceParser::ParseKernelTracingMarkWrite: the phase is the
/// `type` / `trace_type` character (B/E/C/I), or B/E from `trace_begin`
/// where the event has no type (mdss's `tracing_mark_write`, and sde's when
/// it is 0); the name is `name` or `trace_name`, the tgid `pid`.
pub fn kernel_mark_variant(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv) {
    let kind = e.int("type").or_else(|| e.int("trace_type"));
    let begin = e.int("trace_begin");
    let valid = match e.name {
        "tracing_mark_write" => begin.is_some(),
        "sde_tracing_mark_write" => kind.is_some() || begin.is_some(),
        "samsung_tracing_mark_write" => kind.is_some(),
        _ => kind.unwrap_or(0) != 0, // g2d, mali
    };
    // samsung's event has no begin flag: type 0 reads as an end
    let begin = e.name != "samsung_tracing_mark_write" && begin.unwrap_or(0) != 0;
    let phase = match u8::try_from(kind.unwrap_or(0)).map(char::from) {
        Ok('\0') => Some(if begin { 'B' } else { 'E' }),
        Ok(p @ ('B' | 'E' | 'C' | 'I')) => Some(p),
        _ => None,
    };
    let (true, Some(phase)) = (valid, phase) else {
        c.stats.add("systrace_parse_failure", 1, None);
        return;
    };
    let tp = TracePoint {
        phase,
        // (the int32 pid read as uint32, as the reference)
        tgid: e.int("pid").unwrap_or(0) as u32 as i128,
        name: e
            .str("name")
            .or_else(|| e.str("trace_name"))
            .or_else(|| e.str("func_name"))
            .unwrap_or("")
            .into(),
        value: e.int("value").unwrap_or(0),
        cookie: 0,
        track: String::new(),
    };
    point(c, slots, e.ts, e.pid, tp);
}

/// The atrace point of a kernel event (`zero`, `dpu_tracing_mark_write`):
/// its `name`, `pid` (the tgid) and `value` fields, with `phase`.
fn kernel_point(c: &mut Ctx, slots: &mut AsyncSlots, e: &FtraceEv, phase: char) {
    // (the counter's utid arg is the emitting thread, as trace_processor
    // v58 records it)
    let tp = TracePoint {
        phase,
        // (the int32 pid read as uint32, as the reference)
        tgid: e.int("pid").unwrap_or(0) as u32 as i128,
        name: e.str("name").unwrap_or("").into(),
        value: e.int("value").unwrap_or(0),
        cookie: 0,
        track: String::new(),
    };
    point(c, slots, e.ts, e.pid, tp);
}

fn point(c: &mut Ctx, slots: &mut AsyncSlots, ts: i64, pid: i64, tp: TracePoint) {
    let tgid = tp.tgid as i64;
    match tp.phase {
        'B' | 'I' => {
            let utid = if tp.tgid > 0 {
                c.pt.update_thread(pid, tgid)
            } else {
                c.pt.get_or_create_thread(pid)
            };
            let track = thread_track(c, utid);
            let dur = if tp.phase == 'B' { -1 } else { 0 };
            c.slices.begin(track, ts, tp.name, dur, None);
        }
        'E' => {
            let utid = if tp.tgid == 0 {
                match c.pt.thread_or_none(pid) {
                    Some(u) => u,
                    None => return,
                }
            } else {
                c.pt.update_thread(pid, tgid)
            };
            // the thread's track is interned even for an end with nothing
            // ever begun on it, as trace_processor does (no slice to end there)
            let had_track = c.tracks.thread_track(utid).is_some();
            let track = thread_track(c, utid);
            if had_track {
                c.slices.end(track, ts);
            }
        }
        'C' if tp.name == "ScreenState" => {
            let track = screen_state_track(c);
            c.counters.push(ts, track, tp.value as f64, None);
        }
        'C' if tp.name.starts_with("battery_stats.") => {
            let track = battery_stats_track(c, &tp.name);
            c.counters.push(ts, track, tp.value as f64, None);
        }
        'C' => {
            let upid = c.pt.get_or_create_process(tgid);
            let track = c.tracks.intern(
                &mut c.args,
                "atrace_counter",
                Some(&tp.name),
                "counter",
                vec![
                    ("upid", Dim::Int(upid as i64)),
                    ("name", Dim::Str(tp.name.clone())),
                ],
                upid_owner(upid),
                0,
            );
            // the writing thread, if known (not created: GetThreadOrNull)
            let set =
                c.pt.thread_or_none(pid)
                    .map(|utid| c.args.add_set(&[("utid", Some(ArgVal::Uint(utid as u64)))]));
            c.counters.push(ts, track, tp.value as f64, set);
        }
        'S' | 'F' => {
            const TYPE: &str = "atrace_async_slice";
            let upid = c.pt.get_or_create_process(tgid);
            let dims = vec![
                ("upid", Dim::Int(upid as i64)),
                ("name", Dim::Str(tp.name.clone())),
            ];
            if tp.phase == 'S' {
                let absorbed = slots.compressor.is_open(TYPE, &dims, tp.cookie);
                let idx = slots
                    .compressor
                    .begin(TYPE, &dims, tp.cookie, Nesting::Saturating);
                let track = async_track(c, TYPE, &tp.name, upid, lane_dims(dims, idx));
                // every begin on the lane counts, absorbed ones included
                let (count, last) = slots.unnestable.entry(track).or_insert((0, 0));
                *count += 1;
                *last = ts;
                if absorbed {
                    // legacy unnestable: a begin on an open cookie is absorbed
                    c.stats
                        .add("artscope_atrace_unnestable_begin_ignored", 1, None);
                    return;
                }
                // its end adds the legacy_unnestable_* args to it
                let set = c
                    .args
                    .add_set_unique(&[("cookie", Some(ArgVal::Int(tp.cookie)))]);
                c.slices.begin(track, ts, tp.name, -1, Some(set));
            } else {
                let idx = slots.compressor.end(TYPE, &dims, tp.cookie);
                let ended = end_async(c, TYPE, &tp.name, upid, lane_dims(dims, idx), ts);
                // an ended slice records its lane's begins so far (the
                // legacy_unnestable_* args trace_processor v58 adds)
                if let Some((row, track)) = ended {
                    let (count, last) = slots.unnestable.get(&track).copied().unwrap_or((0, 0));
                    if let Some(set) = c.slices.rows[row as usize].arg_set {
                        c.args.extend_set(
                            set,
                            &[
                                (
                                    "legacy_unnestable_begin_count",
                                    Some(ArgVal::Int(count as i128)),
                                ),
                                (
                                    "legacy_unnestable_last_begin_ts",
                                    Some(ArgVal::Int(last as i128)),
                                ),
                            ],
                        );
                    }
                }
            }
        }
        'N' if tp.track == "DeviceStateChanged" => {
            let track = device_state_track(c);
            c.slices.begin(track, ts, tp.name, 0, None);
        }
        'N' | 'G' | 'H' => {
            const TYPE: &str = "atrace_async_slice_for_track";
            let upid = c.pt.get_or_create_process(tgid);
            let dims = vec![
                ("upid", Dim::Int(upid as i64)),
                ("name", Dim::Str(tp.track.clone())),
            ];
            let comp = &mut slots.compressor;
            // the writing thread: `utid` of a begin / instant, `end_utid` of
            // an end (as trace_processor records them)
            let utid = c.pt.get_or_create_thread(pid);
            let thread_arg = |key: &'static str| [(key, Some(ArgVal::Uint(utid as u64)))];
            match tp.phase {
                'N' => {
                    let idx = comp.scoped(TYPE, &dims, ts, 0);
                    let track = async_track(c, TYPE, &tp.track, upid, lane_dims(dims, idx));
                    let set = c.args.add_set(&thread_arg("utid"));
                    c.slices.begin(track, ts, tp.name, 0, Some(set));
                }
                'G' => {
                    let idx = comp.begin(TYPE, &dims, tp.cookie, Nesting::Nestable);
                    let track = async_track(c, TYPE, &tp.track, upid, lane_dims(dims, idx));
                    // its end adds `end_utid` to it
                    let set = c.args.add_set_unique(&thread_arg("utid"));
                    c.slices.begin(track, ts, tp.name, -1, Some(set));
                }
                _ => {
                    let idx = comp.end(TYPE, &dims, tp.cookie);
                    let ended = end_async(c, TYPE, &tp.track, upid, lane_dims(dims, idx), ts);
                    if let Some((row, _)) = ended {
                        let items = thread_arg("end_utid");
                        match c.slices.rows[row as usize].arg_set {
                            Some(set) => c.args.extend_set(set, &items),
                            None => {
                                c.slices.rows[row as usize].arg_set = Some(c.args.add_set(&items))
                            }
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Android's global state tracks, fed by atrace (SystraceParser promotes
/// `ScreenState`, `battery_stats.*` counters and `DeviceStateChanged`
/// instants to them) and by system properties (AndroidProbesParser).
fn screen_state_track(c: &mut Ctx) -> u32 {
    let owner = Default::default();
    c.tracks.intern(
        &mut c.args,
        "screen_state",
        Some("ScreenState"),
        "counter",
        vec![],
        owner,
        0,
    )
}

fn battery_stats_track(c: &mut Ctx, name: &str) -> u32 {
    let dims = vec![("counter_key", Dim::Str(name.into()))];
    let owner = Default::default();
    c.tracks.intern(
        &mut c.args,
        "battery_stats",
        Some(name),
        "counter",
        dims,
        owner,
        0,
    )
}

fn device_state_track(c: &mut Ctx) -> u32 {
    let owner = Default::default();
    let name = Some("DeviceStateChanged");
    c.tracks.intern(
        &mut c.args,
        "android_device_state",
        name,
        "slice",
        vec![],
        owner,
        0,
    )
}

/// InitialDisplayState: the screen state at the trace's start.
pub fn screen_state(c: &mut Ctx, ts: i64, state: i64) {
    let track = screen_state_track(c);
    c.counters.push(ts, track, state as f64, None);
}

/// An AndroidSystemProperty packet's values, as AndroidProbesParser reads
/// them: the device state as an instant, the screen state, battery_stats.*,
/// mcc / mnc / desktop_mode_visible_tasks, battery_status and plug_type as
/// counters (integer values only).
pub fn system_property(c: &mut Ctx, ts: i64, values: &[(String, String)]) {
    for (name, value) in values {
        if name == "debug.tracing.device_state" {
            let track = device_state_track(c);
            c.slices.begin(track, ts, value.as_str().into(), 0, None);
            continue;
        }
        let Ok(state) = value.trim().parse::<i32>() else {
            continue;
        };
        let short = name.strip_prefix("debug.tracing.").unwrap_or(name);
        let track = if name == "debug.tracing.screen_state" {
            screen_state_track(c)
        } else if short.starts_with("battery_stats.") && name.starts_with("debug.tracing.") {
            battery_stats_track(c, short)
        } else {
            let label = match name.as_str() {
                "debug.tracing.mcc"
                | "debug.tracing.mnc"
                | "debug.tracing.desktop_mode_visible_tasks" => short,
                "debug.tracing.battery_status" => "BatteryStatus",
                "debug.tracing.plug_type" => "PlugType",
                _ => continue,
            };
            let dims = vec![("sysprop_name", Dim::Str(name.clone()))];
            let owner = Default::default();
            c.tracks.intern(
                &mut c.args,
                "sysprop_counter",
                Some(label),
                "counter",
                dims,
                owner,
                0,
            )
        };
        c.counters.push(ts, track, state as f64, None);
    }
}
