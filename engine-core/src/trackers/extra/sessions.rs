//! Tracing sessions' state over time (TracePacket.concurrent_session_event,
//! recorded by traced for every session on the device), as trace_processor's
//! ConcurrentSessionsModule imports them: one `concurrent_tracing_sessions`
//! state track per session id, named after the session ("Session <id>" when
//! unnamed, " (clone)" for a clone, whose first event is CLONED_READ_ONLY),
//! each event a row of the `state` table whose value is the state's name,
//! with the session's consumer_uid and num_data_sources as args. A state
//! lasts until the next different one on its track; DISABLED is terminal
//! and closed at once (a zero-length marker).

use crate::events::SessionEvent;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;
use rustc_hash::FxHashMap as HashMap;

/// The `state` table's rows (trace_processor's StateTracker: a state track
/// holds one active state; a new value closes it, the same value keeps it,
/// its args unchanged: a session's events all carry the same args).
#[derive(Default)]
pub struct StateRows {
    pub ts: Vec<i64>,
    /// -1 while active (trace_processor's pending duration)
    pub dur: Vec<i64>,
    pub track: Vec<u32>,
    pub value: Vec<std::borrow::Cow<'static, str>>,
    /// state.category (a track event state's categories)
    pub category: Vec<Option<String>>,
    pub arg_set: Vec<Option<i64>>,
    /// track -> its active row
    active: HashMap<u32, usize>,
}

impl StateRows {
    /// UpdateState: `value` None only closes the track's active state.
    fn update(&mut self, ts: i64, track: u32, value: Option<&'static str>, args: Option<i64>) {
        if self.same_as_active(track, value) {
            return;
        }
        self.close(ts, track);
        if let Some(v) = value {
            self.push(ts, track, std::borrow::Cow::Borrowed(v), None, args);
        }
    }

    /// Whether `value` is the track's active state.
    fn same_as_active(&self, track: u32, value: Option<&str>) -> bool {
        self.active
            .get(&track)
            .is_some_and(|&row| Some(self.value[row].as_ref()) == value)
    }

    /// Ends the track's active state at `ts`, if it has one.
    fn close(&mut self, ts: i64, track: u32) {
        if let Some(row) = self.active.remove(&track) {
            self.dur[row] = ts - self.ts[row];
        }
    }

    fn push(
        &mut self,
        ts: i64,
        track: u32,
        value: std::borrow::Cow<'static, str>,
        category: Option<String>,
        args: Option<i64>,
    ) {
        self.active.insert(track, self.ts.len());
        self.ts.push(ts);
        self.dur.push(-1);
        self.track.push(track);
        self.value.push(value);
        self.category.push(category);
        self.arg_set.push(args);
    }

    /// StateTracker::UpdateState of a track event state: a new value closes
    /// the active one and opens its own row (with its category and args);
    /// the same value keeps the active row, its args merged in; no value
    /// only closes.
    pub fn update_with_args(
        &mut self,
        args: &mut crate::trackers::core::tracks::Args,
        ts: i64,
        track: u32,
        value: Option<String>,
        category: Option<String>,
        items: &[(&str, Option<ArgVal>)],
    ) {
        if self.same_as_active(track, value.as_deref()) {
            let row = self.active[&track];
            if !items.is_empty() {
                match self.arg_set[row] {
                    Some(set) => args.extend_set(set, items),
                    None => self.arg_set[row] = Some(args.add_set_unique(items)),
                }
            }
            return;
        }
        self.close(ts, track);
        if let Some(v) = value {
            let set = (!items.is_empty()).then(|| args.add_set_unique(items));
            self.push(ts, track, std::borrow::Cow::Owned(v), category, set);
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
            crate::trackers::core::import_logs::ImportLog::record(c, ts, name, args);
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
