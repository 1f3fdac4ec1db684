//! trace_processor's import log (`_trace_import_logs`): a row per problem
//! found while importing, named after the stat it also increments, with
//! the stat's severity and an arg set saying what was wrong. The embedded
//! engine records the parser / collection logs of the data it imports
//! (android_aflags errors, concurrent session events of an unknown state:
//! ts, no byte_offset) and the tokenizer's logs of packets skipped for
//! their sequence's invalid incremental state (byte_offset: the packet's
//! payload offset in the decoded bytes, the file's unless the trace is
//! compressed; no ts), which come first as the tokenizer runs first, and
//! the ftrace setup errors FtraceStats reports (no ts, no byte_offset).

use crate::events::TokenizerLog;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

#[derive(Debug, Clone)]
pub struct ImportLog {
    pub ts: Option<i64>,
    pub byte_offset: Option<i64>,
    pub severity: &'static str,
    pub name: &'static str,
    pub arg_set_id: Option<i64>,
}

impl ImportLog {
    /// Increments stat `name` and logs it at `ts` with `args` (identical
    /// sets shared, as trace_processor's args tracker stores them).
    pub fn record(c: &mut Ctx, ts: i64, name: &'static str, args: Vec<(&str, Option<ArgVal>)>) {
        c.count_trace_stat(name);
        let severity = severity(name);
        let arg_set_id = (!args.is_empty()).then(|| c.args.add_set(&args));
        c.import_logs.push(ImportLog {
            ts: Some(ts),
            byte_offset: None,
            severity,
            name,
            arg_set_id,
        });
    }
}

impl ImportLog {
    /// An analysis log (RecordAnalysisLog: no ts, no byte_offset).
    pub fn record_analysis(c: &mut Ctx, name: &'static str, args: Vec<(&str, Option<ArgVal>)>) {
        c.count_trace_stat(name);
        let arg_set_id = (!args.is_empty()).then(|| c.args.add_set(&args));
        c.import_logs.push(ImportLog {
            ts: None,
            byte_offset: None,
            severity: severity(name),
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

fn severity(stat: &str) -> &'static str {
    crate::tp_stats::STATS
        .iter()
        .find(|d| d.name == stat)
        .map_or("error", |d| d.severity)
}

/// The tokenizer's logs: a packet skipped for its sequence's invalid
/// incremental state (the decoder counted it in
/// packet_skipped_seq_needs_incremental_state_invalid), its sequence id as
/// arg.
pub fn skipped_packets(c: &mut Ctx, logs: &[(i64, u32)]) {
    const NAME: &str = "packet_skipped_seq_needs_incremental_state_invalid";
    for &(offset, seq) in logs {
        let args = c
            .args
            .add_set(&[("packet_sequence_id", Some(ArgVal::Uint(seq as u64)))]);
        c.import_logs.push(ImportLog {
            ts: None,
            byte_offset: Some(offset),
            severity: severity(NAME),
            name: NAME,
            arg_set_id: Some(args),
        });
    }
}

/// The tokenizer's errors with their args (RecordTokenizationLog: no ts,
/// the packet's byte offset; the decoder counted their stats).
pub fn tokenizer_logs(c: &mut Ctx, logs: &[TokenizerLog]) {
    for TokenizerLog { name, offset, args } in logs {
        let items: Vec<(&str, Option<ArgVal>)> =
            args.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
        let arg_set_id = (!items.is_empty()).then(|| c.args.add_set(&items));
        c.import_logs.push(ImportLog {
            ts: None,
            byte_offset: Some(*offset),
            severity: severity(name),
            name,
            arg_set_id,
        });
    }
}

/// The default clock (BOOTTIME) found unrelated to the trace's clock
/// `target`: its stat and analysis log.
pub fn unrelatable_clock(c: &mut Ctx, target: i64) {
    let args = vec![
        ("source_clock_id", Some(ArgVal::Int(6))),
        ("target_clock_id", Some(ArgVal::Int(target as i128))),
    ];
    ImportLog::record_analysis(c, "clock_sync_unrelatable_clock_domains", args);
}

/// Timestamps that did not convert to trace time (the decoder counted
/// them): an analysis log each, no ts, args the source clock and time and
/// the target clock.
pub fn clock_sync_failures(c: &mut Ctx, logs: &[(&'static str, i64, i64, i64)]) {
    for &(name, source, ts, target) in logs {
        let args = c.args.add_set(&[
            ("source_clock_id", Some(ArgVal::Int(source as i128))),
            ("source_timestamp", Some(ArgVal::Int(ts as i128))),
            ("target_clock_id", Some(ArgVal::Int(target as i128))),
        ]);
        c.import_logs.push(ImportLog {
            ts: None,
            byte_offset: None,
            severity: severity(name),
            name,
            arg_set_id: Some(args),
        });
    }
}

/// The ftrace setup errors FtraceStats reported (the decoder counted them
/// in ftrace_setup_errors): a collection log each, no ts, arg `message`.
pub fn ftrace_setup_errors(c: &mut Ctx, messages: &[String]) {
    const NAME: &str = "ftrace_setup_errors";
    for message in messages {
        let args = c
            .args
            .add_set(&[("message", Some(ArgVal::Str(message.clone())))]);
        c.import_logs.push(ImportLog {
            ts: None,
            byte_offset: None,
            severity: severity(NAME),
            name: NAME,
            arg_set_id: Some(args),
        });
    }
}
