//! block_io_start / block_io_done -> a "block_io" slice per request on its
//! device's `block_io` track (trace_processor's FtraceParser::ParseBlockIo*),
//! with the request's `sector` as arg.

use super::tracks::{ArgVal, Dim, Owner};
use super::Ctx;
use crate::events::FtraceEv;

const NAME: &str = "block_io";

fn device_track(c: &mut Ctx, e: &FtraceEv) -> u32 {
    // (a uint64 field in the reference's 32-bit dimension)
    let dev = e.int("dev").unwrap_or(0) as u32 as i64;
    // trace_processor's blueprint for these is a counter one (its tracks
    // are counter tracks though they hold slices)
    c.tracks.intern(
        &mut c.args,
        "block_io",
        None,
        "counter",
        vec![("block_device", Dim::Int(dev))],
        Owner::default(),
        0,
    )
}

fn sector_args(c: &mut Ctx, e: &FtraceEv) -> i64 {
    let sector = e.int("sector").unwrap_or(0).clamp(0, u64::MAX as i128) as u64;
    c.args.add_set(&[("sector", Some(ArgVal::Uint(sector)))])
}

pub fn start(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = device_track(c, e);
    let set = sector_args(c, e);
    c.slices.begin(track, ts, NAME.into(), -1, Some(set));
}

/// The done event's sector replaces the start's (the same key).
pub fn done(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = device_track(c, e);
    if let Some(row) = c.slices.end(track, ts) {
        let set = sector_args(c, e);
        c.slices.rows[row as usize].arg_set = Some(set);
    }
}
