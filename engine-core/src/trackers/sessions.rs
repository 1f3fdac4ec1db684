//! Tracing sessions' state over time (TracePacket.concurrent_session_event,
//! recorded by traced for every session on the device), as trace_processor's
//! ConcurrentSessionsModule imports them: one `concurrent_tracing_sessions`
//! state track per session id, named after the session ("Session <id>" when
//! unnamed, " (clone)" for a clone, whose first event is CLONED_READ_ONLY),
//! each event a row of the `state` table whose value is the state's name,
//! with the session's consumer_uid and num_data_sources as args. A state
//! lasts until the next different one on its track; DISABLED is terminal
//! and closed at once (a zero-length marker).

use super::tracks::{ArgVal, Dim, Owner};
use super::Ctx;
use rustc_hash::FxHashMap as HashMap;

/// One ConcurrentSessionEvent.
#[derive(Debug, Clone, Default)]
pub struct SessionEvent {
    /// ConcurrentSessionEvent.State
    pub state: i64,
    pub name: String,
    pub session_id: u64,
    pub consumer_uid: i64,
    pub num_data_sources: u64,
}

/// The `state` table's rows (trace_processor's StateTracker: a state track
/// holds one active state; a new value closes it, the same value keeps it,
/// its args unchanged: a session's events all carry the same args).
#[derive(Default)]
pub struct StateRows {
    pub ts: Vec<i64>,
    /// -1 while active (trace_processor's pending duration)
    pub dur: Vec<i64>,
    pub track: Vec<u32>,
    pub value: Vec<&'static str>,
    pub arg_set: Vec<Option<i64>>,
    /// track -> its active row
    active: HashMap<u32, usize>,
}

impl StateRows {
    /// UpdateState: `value` None only closes the track's active state.
    fn update(&mut self, ts: i64, track: u32, value: Option<&'static str>, args: Option<i64>) {
        if let Some(&row) = self.active.get(&track) {
            if Some(self.value[row]) == value {
                return;
            }
            self.dur[row] = ts - self.ts[row];
            self.active.remove(&track);
        }
        if let Some(v) = value {
            self.active.insert(track, self.ts.len());
            self.ts.push(ts);
            self.dur.push(-1);
            self.track.push(track);
            self.value.push(v);
            self.arg_set.push(args);
        }
    }

    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }
}

const DISABLED: i64 = 1;
const CLONED_READ_ONLY: i64 = 5;

pub fn event(c: &mut Ctx, ts: i64, e: &SessionEvent) {
    let value = match e.state {
        DISABLED => "DISABLED",
        2 => "CONFIGURED",
        3 => "STARTED",
        4 => "DISABLING_WAITING_STOP_ACKS",
        CLONED_READ_ONLY => "CLONED_READ_ONLY",
        // STATE_UNSPECIFIED or a newer state: logged, not imported (the
        // log entry's arg set, the state, is in args as trace_processor's)
        _ => {
            let args = vec![("state", Some(ArgVal::Int(e.state as i128)))];
            let name = "concurrent_session_event_unknown_state";
            super::import_logs::ImportLog::record(c, ts, name, args);
            return;
        }
    };
    let mut name = if e.name.is_empty() {
        format!("Session {}", e.session_id)
    } else {
        e.name.clone()
    };
    if e.state == CLONED_READ_ONLY {
        name.push_str(" (clone)");
    }
    // the name is the first event's (the track is keyed by the session id)
    let track = c.tracks.intern(
        &mut c.args,
        "concurrent_tracing_sessions",
        Some(&name),
        "state",
        vec![("session_id", Dim::Int(e.session_id as i64))],
        Owner::default(),
        0,
    );
    let args = c.args.add_set(&[
        ("consumer_uid", Some(ArgVal::Int(e.consumer_uid as i128))),
        (
            "num_data_sources",
            Some(ArgVal::Int(e.num_data_sources as i128)),
        ),
    ]);
    c.state_rows.update(ts, track, Some(value), Some(args));
    if e.state == DISABLED {
        c.state_rows.update(ts, track, None, None);
    }
}
