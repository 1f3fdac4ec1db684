//! Android logcat (TracePacket.android_log) as trace_processor's
//! AndroidProbesParser imports it: one `__intrinsic_logs` row per log event
//! (the `android_logs` and `logs` views), at its REALTIME timestamp
//! converted to trace time (an event no clock snapshot converts is dropped,
//! as there), by the thread `tid` of process `pid` (UpdateThread). A log
//! event's structured args are appended to its message as ` name=value`
//! (strings quoted, floats `%f`); priority 0 (unset) reads as INFO (4).
//!
//! trace_processor re-serializes each event before parsing it (to sort it
//! by its own timestamp), always writing tag, message and each arg's name:
//! so a missing tag or message reads as "" (not NULL), a message-less event
//! with args has a message starting with a space, a nameless arg is kept
//! (` =8`), and an arg's value is its int, else float, else string.
//!
//! Track events' log messages add rows too (`push_utid`, from
//! trackers::extra::track_event): the event's thread, its source location as tag
//! (NULL without one), its body as message.

use crate::events::LogEvent;
use crate::trackers::core::process::ProcessTracker;

/// The `__intrinsic_logs` rows, in trace-time order.
#[derive(Default)]
pub struct LogRows {
    pub ts: Vec<i64>,
    pub utid: Vec<u32>,
    pub prio: Vec<i64>,
    /// (None: NULL, a track event log message without a source location)
    pub tag: Vec<Option<String>>,
    pub msg: Vec<String>,
}

impl LogRows {
    pub fn push(&mut self, pt: &mut ProcessTracker, ts: i64, e: &LogEvent) {
        self.ts.push(ts);
        self.utid.push(pt.update_thread(e.tid, e.pid));
        self.prio.push(if e.prio == 0 { PRIO_INFO } else { e.prio });
        self.tag.push(Some(e.tag.clone()));
        self.msg.push(e.msg.clone());
    }

    /// A track event's log message (TrackEventEventImporter's
    /// ParseLogMessage) by thread `utid`.
    pub fn push_utid(&mut self, ts: i64, utid: u32, prio: i64, tag: Option<String>, msg: String) {
        self.ts.push(ts);
        self.utid.push(utid);
        self.prio.push(prio);
        self.tag.push(tag);
        self.msg.push(msg);
    }

    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

/// Android's log priority INFO, what an unset priority reads as.
const PRIO_INFO: i64 = 4;
