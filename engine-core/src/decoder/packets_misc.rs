//! Small TracePacket kinds, decoded as trace_processor's importers record
//! them: Chrome's metadata and triggers (metadata keys, a trigger slice),
//! Android aflags errors and game intervention lists. Where each goes is said per function.

use super::sink::Sink;
use super::wire::{i32v, text, Fields, Value, WireError};
use crate::events::{ArgText, GpuLog, LogEvent, PacketData, Trigger};
use crate::metadata::MetaVal;

type R<T> = Result<T, WireError>;

/// ChromeMetadataPacket: `cr-<letter>-*` metadata keys, the letter
/// counting the packets (a, b, ... wrapping after z: trace_processor
/// cannot tell Chrome instances apart), plus the background tracing
/// metadata (base64, and its scenario hash) under plain `cr-` keys.
/// Recorded when read (trace_processor does it at tokenization), each
/// value a row of its own.
pub fn chrome_metadata(sink: &mut Sink, buf: &[u8]) -> R<()> {
    let prefix = format!(
        "cr-{}-",
        (b'a' + (sink.chrome_metadata_packets % 26) as u8) as char
    );
    sink.chrome_metadata_packets += 1;
    let (mut version, mut categories, mut trials, mut package) = (None, None, Vec::new(), None);
    let (mut app_version, mut channel, mut os, mut background) = (None, None, None, None);
    for f in Fields::new(buf) {
        match f? {
            (1, Value::Bytes(b)) => background = Some(b),
            (2, Value::Varint(x)) => version = Some(x as i32 as i64),
            (3, Value::Bytes(s)) => categories = Some(text(s)),
            (4, Value::Bytes(b)) => {
                let (mut name, mut group) = (0u32, 0u32);
                for g in Fields::new(b) {
                    match g? {
                        (1, Value::Varint(x)) => name = x as u32,
                        (2, Value::Varint(x)) => group = x as u32,
                        _ => {}
                    }
                }
                trials.push((name, group));
            }
            (5, Value::Bytes(s)) => package = Some(text(s)),
            (6, Value::Bytes(s)) => app_version = Some(text(s)),
            (7, Value::Varint(x)) => channel = Some(x as u32 as i64),
            (8, Value::Bytes(s)) => os = Some(text(s)),
            _ => {}
        }
    }
    let md = &mut sink.metadata;
    let mut add = |key: &str, v: MetaVal| md.push_single(&format!("{prefix}{key}"), v);
    if let Some(v) = version {
        add("playstore_version_code", MetaVal::Int(v));
    }
    if let Some(v) = app_version {
        add("product-version", MetaVal::Str(v));
    }
    if let Some(v) = os {
        add("os-name", MetaVal::Str(v));
    }
    if let Some(v) = package {
        add("package-name", MetaVal::Str(v));
    }
    if let Some(v) = channel {
        add("channel", MetaVal::Int(v));
    }
    if let Some(v) = categories {
        add("enabled_categories", MetaVal::Str(v));
    }
    if !trials.is_empty() {
        add("field_trial_hashes", MetaVal::Str(field_trials(&trials)));
    }
    if let Some(b) = background {
        md.push_single(
            "cr-background_tracing_metadata",
            MetaVal::Str(crate::metadata::base64(b)),
        );
        for f in Fields::new(b) {
            // BackgroundTracingMetadata.scenario_name_hash (fixed32)
            if let (3, Value::Fixed32(h)) = f? {
                md.push_single("cr-scenario_name_hash", MetaVal::Int(h as i64));
            }
        }
    }
    Ok(())
}

/// Field trial hashes as trace_processor prints them: `{ name: N, group: G } `
/// each, a line break before every pair after the first.
fn field_trials(trials: &[(u32, u32)]) -> String {
    let mut out = String::new();
    for (i, (name, group)) in trials.iter().enumerate() {
        if i >= 2 && i % 2 == 0 {
            out.push('\n');
        }
        out.push_str(&format!("{{ name: {name}, group: {group} }} "));
    }
    out
}

/// ChromeTrigger: an instant slice on the "Trace Triggers" track (named
/// after the trigger, else `chrome_trigger`; its hash and name as args)
/// and a `cr-triggered_rule_name_hash` metadata row.
pub fn chrome_trigger(sink: &mut Sink, ts: i64, buf: &[u8]) -> R<()> {
    let (mut name, mut hash) = (None, 0u32);
    for f in Fields::new(buf) {
        match f? {
            (1, Value::Bytes(s)) => name = Some(text(s)),
            (2, Value::Fixed32(h)) => hash = h,
            _ => {}
        }
    }
    sink.metadata
        .push_single("cr-triggered_rule_name_hash", MetaVal::Int(hash as i64));
    let t = Trigger {
        name: name.clone().unwrap_or_else(|| "chrome_trigger".into()),
        chrome: Some((hash, name)),
        ..Default::default()
    };
    sink.push_packet(ts, PacketData::Trigger(Box::new(t)));
    Ok(())
}

/// AndroidAflags: an error is an import log (replayed); the flags
/// themselves (trace_processor's android_aflags table) are not imported:
/// false for such a packet (counted as skipped by the caller).
pub fn aflags(sink: &mut Sink, ts: i64, buf: &[u8]) -> R<bool> {
    let mut error = None;
    for f in Fields::new(buf) {
        if let (2, Value::Bytes(s)) = f? {
            error = Some(text(s));
        }
    }
    let imported = error.is_some();
    if let Some(e) = error {
        sink.push_packet(ts, PacketData::AflagsError(e));
    }
    Ok(imported)
}

/// AndroidGameInterventionList: android_game_intervention_list rows and
/// the list's error flags as stats (set, 0 or 1, by every list).
pub fn game_interventions(sink: &mut Sink, buf: &[u8]) -> R<()> {
    let (pkgs, parse_error, read_error) = super::game_interventions::decode(buf)?;
    sink.stats
        .set("game_intervention_has_read_errors", read_error as i64, None);
    sink.stats.set(
        "game_intervention_has_parse_errors",
        parse_error as i64,
        None,
    );
    sink.game_interventions.extend(pkgs);
    Ok(())
}

/// AndroidLogPacket.LogEvent: its REALTIME timestamp and the event, the
/// message already with its args appended.
pub fn log_event(buf: &[u8]) -> R<(i64, LogEvent)> {
    let mut e = LogEvent::default();
    let (mut realtime, mut message, mut args) = (0i64, String::new(), Vec::new());
    for f in Fields::new(buf) {
        match f? {
            (2, Value::Varint(x)) => e.pid = i32v(x),
            (3, Value::Varint(x)) => e.tid = i32v(x),
            (5, Value::Varint(x)) => realtime = x as i64,
            (6, Value::Bytes(s)) => e.tag = text(s),
            (7, Value::Varint(x)) => e.prio = x as i64,
            (8, Value::Bytes(s)) => message = text(s),
            (9, Value::Bytes(a)) => args.push(log_arg(a)?),
            _ => {}
        }
    }
    e.msg = LogEvent::message(&message, &args);
    Ok((realtime, e))
}

/// LogEvent.Arg: its name and value (int, else float, else string, as the
/// event trace_processor re-serializes keeps them).
fn log_arg(buf: &[u8]) -> R<(String, ArgText)> {
    let (mut name, mut int, mut float, mut string) = (String::new(), None, None, None);
    for f in Fields::new(buf) {
        match f? {
            (1, Value::Bytes(b)) => name = text(b),
            (2, Value::Varint(x)) => int = Some(x as i64),
            (3, Value::Fixed32(x)) => float = Some(f32::from_bits(x)),
            (4, Value::Bytes(b)) => string = Some(text(b)),
            _ => {}
        }
    }
    let v = match (int, float, string) {
        (Some(i), _, _) => ArgText::Int(i),
        (None, Some(f), _) => ArgText::Float(f),
        (None, None, Some(s)) => ArgText::Str(s),
        (None, None, None) => ArgText::None,
    };
    Ok((name, v))
}

impl GpuLog {
    pub fn parse(b: &[u8]) -> R<GpuLog> {
        let mut log = GpuLog::default();
        for f in Fields::new(b) {
            match f? {
                (1, Value::Varint(x)) => log.severity = x,
                (2, Value::Bytes(s)) => log.tag = Some(text(s)),
                (3, Value::Bytes(s)) => log.message = Some(text(s)),
                _ => {}
            }
        }
        Ok(log)
    }
}
