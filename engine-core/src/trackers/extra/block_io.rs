//! block_io_start / block_io_done -> a "block_io" slice per request on its
//! device's `block_io` track (trace_processor's FtraceParser::ParseBlockIo*),
//! with the request's `sector` as arg.

use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

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

fn sector(e: &FtraceEv) -> [(&'static str, Option<ArgVal>); 1] {
    let sector = e.int("sector").unwrap_or(0).clamp(0, u64::MAX as i128) as u64;
    [("sector", Some(ArgVal::Uint(sector)))]
}

/// The slice's args are one set, completed when it ends (trace_processor
/// commits a slice's args then): the start's sector, replaced by the done
/// event's (the same key).
pub fn start(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = device_track(c, e);
    let set = c.args.add_set_unique(&sector(e));
    c.slices.begin(track, ts, NAME.into(), -1, Some(set));
}

pub fn done(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = device_track(c, e);
    let row = c.slices.end(track, ts);
    crate::trackers::core::kernel_slices::add_end_args(c, row, &sector(e));
}
