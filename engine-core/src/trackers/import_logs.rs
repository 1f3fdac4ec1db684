//! trace_processor's import log (`_trace_import_logs`): a row per problem
//! found while importing, named after the stat it also increments, with
//! the stat's severity and an arg set saying what was wrong. The embedded
//! engine records the parser / collection logs of the data it imports
//! (android_aflags errors, concurrent session events of an unknown state);
//! the tokenizer's per-packet logs (byte_offset) are not recorded.

use super::tracks::ArgVal;
use super::Ctx;

#[derive(Debug, Clone)]
pub struct ImportLog {
    pub ts: i64,
    pub severity: &'static str,
    pub name: &'static str,
    pub arg_set_id: Option<i64>,
}

impl ImportLog {
    /// Increments stat `name` and logs it at `ts` with `args` (identical
    /// sets shared, as trace_processor's args tracker stores them).
    pub fn record(c: &mut Ctx, ts: i64, name: &'static str, args: Vec<(&str, Option<ArgVal>)>) {
        c.stats.add(name, 1, None);
        let severity = crate::tp_stats::STATS
            .iter()
            .find(|d| d.name == name)
            .map_or("error", |d| d.severity);
        let arg_set_id = (!args.is_empty()).then(|| c.args.add_set_shared(&args));
        c.import_logs.push(ImportLog {
            ts,
            severity,
            name,
            arg_set_id,
        });
    }
}

/// AndroidAflags.error: the aflags tool failed (trace_processor imports no
/// flags from such a packet).
pub fn aflags_error(c: &mut Ctx, ts: i64, msg: &str) {
    let args = vec![("error", Some(ArgVal::Str(msg.to_owned())))];
    ImportLog::record(c, ts, "android_aflags_errors", args);
}
