//! PerfSample packets (traced_perf, the `linux.perf` data source): the
//! fields ProfileModule::ParsePerfSample reads (v58.2
//! importers/proto/profile_module.cc), made into rows in the replay by
//! `trackers::extra::perf_sample`.

use super::wire::{push_varints, Fields, Value, WireError};
use crate::events::profiles::{CallstackRef, PerfSampleEv};

/// The fields of a PerfSample; `callstack` resolves a callstack_iid.
pub fn perf_sample(
    b: &[u8],
    mut callstack: impl FnMut(u64) -> CallstackRef,
) -> Result<PerfSampleEv, WireError> {
    let mut s = PerfSampleEv::default();
    let int32 = |x: u64| x as i32;
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => s.cpu = Some(x as u32),
            (2, Value::Varint(x)) => s.pid = x as u32,
            (3, Value::Varint(x)) => s.tid = x as u32,
            (4, Value::Varint(x)) => s.callstack = Some(callstack(x)),
            (5, Value::Varint(x)) => s.cpu_mode = int32(x),
            (6, Value::Varint(x)) => s.timebase_count = Some(x),
            (7, v) => push_varints(v, &mut s.follower_counts)?,
            (16, Value::Varint(x)) => s.unwind_error = Some(int32(x)),
            (17, Value::Varint(x)) => s.kernel_records_lost = x,
            (18, Value::Varint(x)) => s.skipped_reason = Some(int32(x)),
            (19, Value::Bytes(e)) => {
                let mut reason = 0;
                for g in Fields::new(e) {
                    if let (1, Value::Varint(x)) = g? {
                        reason = int32(x);
                    }
                }
                s.producer_stop_reason = Some(reason);
            }
            _ => {}
        }
    }
    Ok(s)
}
