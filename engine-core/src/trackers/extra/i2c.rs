//! I2C transfers as slices (trace_processor's I2cTracker): a thread's
//! transfer on adapter N is an `i2c-N` slice on its track, begun by its
//! first i2c_read / i2c_write message and ended by the i2c_result that
//! reports the adapter and as many messages as the transfer had (the
//! highest message number seen + 1); a result for another adapter or count
//! is ignored. Adapters from 256 on have no name and are ignored.

use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::Ctx;

const MAX_ADAPTERS: u32 = 256;

#[derive(Default)]
pub struct I2cTracker {
    /// per thread, its transfers in flight: (adapter, messages)
    inflight: HashMap<u32, Vec<(u32, u32)>>,
}

impl I2cTracker {
    /// i2c_read / i2c_write / i2c_result.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let adapter = e.int("adapter_nr").unwrap_or(0) as u32;
        let utid = c.pt.get_or_create_thread(e.pid);
        if adapter >= MAX_ADAPTERS {
            return;
        }
        let ops = self.inflight.entry(utid).or_default();
        if e.name == "i2c_result" {
            let nr_msgs = e.int("nr_msgs").unwrap_or(0) as u32;
            if ops.last() != Some(&(adapter, nr_msgs)) {
                return;
            }
            ops.pop();
            let track = thread_track(c, utid);
            c.slices
                .end_matching(track, e.ts, None, Some(&format!("i2c-{adapter}")));
            return;
        }
        let msg_nr = e.int("msg_nr").unwrap_or(0) as u32;
        let track = thread_track(c, utid);
        match ops.last_mut() {
            Some(op) => op.1 = op.1.max(msg_nr.wrapping_add(1)),
            None => {
                c.slices
                    .begin(track, e.ts, format!("i2c-{adapter}"), -1, None);
                ops.push((adapter, msg_nr.wrapping_add(1)));
            }
        }
    }
}
