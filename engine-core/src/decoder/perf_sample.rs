//! PerfSample packets (traced_perf, the `linux.perf` data source): the
//! fields ProfileModule::ParsePerfSample reads (v58.2
//! importers/proto/profile_module.cc), made into rows in the replay by
//! `trackers::extra::perf_sample`; and the sequence's PerfSampleDefaults,
//! which that tracker reads when a sampling stream is first met
//! (`PerfDefaults::parse`).

use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::profiles::{CallstackRef, PerfDefaults, PerfEvent, PerfSampleEv};

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

impl PerfEvent {
    /// Parses a Timebase (counter 4, tracepoint 3, raw_event 5, modifiers
    /// 12, name 10) or a FollowerEvent (1, 2, 3, 5, 4): `fields` gives
    /// those numbers in that order.
    fn parse(b: &[u8], [counter, tracepoint, raw, modifiers, name]: [u32; 5]) -> PerfEvent {
        let mut e = PerfEvent::default();
        for (num, v) in Fields::new(b).map_while(Result::ok) {
            match (num, v) {
                (n, Value::Varint(x)) if n == counter => e.counter = Some(x as i32),
                (n, Value::Bytes(t)) if n == tracepoint => {
                    let mut tp = String::new();
                    for f in Fields::new(t).map_while(Result::ok) {
                        if let (1, Value::Bytes(s)) = f {
                            tp = text(s);
                        }
                    }
                    e.tracepoint = Some(tp);
                }
                (n, Value::Bytes(r)) if n == raw => {
                    let mut ev = (0u32, 0u64, 0u64, 0u64);
                    for f in Fields::new(r).map_while(Result::ok) {
                        match f {
                            (1, Value::Varint(x)) => ev.0 = x as u32,
                            (2, Value::Varint(x)) => ev.1 = x,
                            (3, Value::Varint(x)) => ev.2 = x,
                            (4, Value::Varint(x)) => ev.3 = x,
                            _ => {}
                        }
                    }
                    e.raw_event = Some(ev);
                }
                (n, v) if n == modifiers => {
                    let _ = push_varints(v, &mut e.modifiers);
                }
                (n, Value::Bytes(s)) if n == name => e.name = text(s),
                _ => {}
            }
        }
        e
    }
}

impl PerfDefaults {
    /// A PerfSampleDefaults message (read when its stream is first met).
    pub fn parse(b: &[u8]) -> PerfDefaults {
        let mut d = PerfDefaults {
            timebase: PerfEvent::default(),
            followers: Vec::new(),
            process_shard_count: 0,
            chosen_process_shard: 0,
        };
        for (num, v) in Fields::new(b).map_while(Result::ok) {
            match (num, v) {
                (1, Value::Bytes(t)) => d.timebase = PerfEvent::parse(t, [4, 3, 5, 12, 10]),
                (4, Value::Bytes(f)) => d.followers.push(PerfEvent::parse(f, [1, 2, 3, 5, 4])),
                (2, Value::Varint(x)) => d.process_shard_count = x as u32,
                (3, Value::Varint(x)) => d.chosen_process_shard = x as u32,
                _ => {}
            }
        }
        d
    }
}
