//! kprobe_event -> slices on the probed thread's track (trace_processor's
//! FtraceParser::ParseKprobe): a begin / end pair is a slice named by the
//! probe, an instant probe a slice of dur 0.

use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::Ctx;

const BEGIN: i128 = 1;
const END: i128 = 2;
const INSTANT: i128 = 3;

pub fn kprobe(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let name = e.str("name").unwrap_or("");
    let utid = c.pt.get_or_create_thread(e.pid);
    let track = thread_track(c, utid);
    match e.int("type").unwrap_or(0) {
        BEGIN => {
            c.slices.begin(track, ts, name.into(), -1, None);
        }
        // (the innermost open slice of its name)
        END => {
            c.slices.end_matching(track, ts, None, Some(name));
        }
        INSTANT => {
            c.slices.begin(track, ts, name.into(), 0, None);
        }
        _ => {}
    }
}
