//! The `stats` table as trace_processor lists it: every stat it knows, zeros
//! included (`tp_stats::STATS`, its list as data), with the values the
//! importer counted under trace_processor's names.
//!
//! Rows, in trace_processor's order: the single-valued stats of the global
//! scope (the processor's own run: parse timings, clock cache), then those of
//! the trace (machine and trace scope), both in key order; then the indexed
//! stats that were set (per cpu / buffer), in the order they were first set;
//! then the embedded engine's own stats (names trace_processor does not know,
//! `artscope_*`: skipped packet kinds, corrupt packets), key NULL.

use crate::events::{Scope, StatDef, Stats};
use crate::tp_stats::STATS;

/// A stats row: (name, key, idx, severity, source, value, description).
pub struct StatRow<'a> {
    pub name: &'a str,
    pub key: Option<i64>,
    pub idx: Option<i64>,
    pub severity: &'a str,
    pub source: &'a str,
    pub value: i64,
    pub description: &'a str,
    /// a stat of trace_processor's own run (global scope: machine_id and
    /// trace_id NULL), not of the trace (machine 0, trace 0)
    pub global: bool,
}

/// trace_processor's key of the stat `name` (its index in `STATS`).
pub fn key_of(name: &str) -> Option<usize> {
    STATS.iter().position(|s| s.name == name)
}

/// The rows of the stats table for the counted `stats`.
pub fn rows(stats: &Stats) -> Vec<StatRow<'_>> {
    let mut out = Vec::with_capacity(STATS.len() + stats.entries.len());
    for scope in [Scope::Global, Scope::MachineAndTrace] {
        for (key, def) in STATS.iter().enumerate() {
            if def.indexed || def.scope != scope {
                continue;
            }
            out.push(row(def, key, None, stats.get(def.name, None).unwrap_or(0)));
        }
    }
    for ((name, idx), value) in &stats.entries {
        match key_of(name) {
            Some(key) if STATS[key].indexed && idx.is_some() => {
                out.push(row(&STATS[key], key, *idx, *value))
            }
            Some(_) => {} // single-valued: listed above
            None => out.push(StatRow {
                name,
                key: None,
                idx: *idx,
                severity: own_severity(name),
                source: "analysis",
                value: *value,
                description: own_description(name),
                global: false,
            }),
        }
    }
    out
}

fn row(def: &StatDef, key: usize, idx: Option<i64>, value: i64) -> StatRow<'static> {
    StatRow {
        name: def.name,
        key: Some(key as i64),
        idx,
        severity: def.severity,
        source: def.source,
        value,
        description: def.description,
        global: def.scope == Scope::Global,
    }
}

fn own_severity(name: &str) -> &'static str {
    if name == "artscope_corrupt_packets" {
        "data_loss"
    } else {
        "info"
    }
}

fn own_description(name: &str) -> &'static str {
    if name == "artscope_corrupt_packets" {
        "Packets that did not parse (cut short or corrupt) and were skipped whole."
    } else if name == "artscope_atrace_unnestable_begin_ignored" {
        "atrace async begins (S) whose cookie was already open on the same track: \
         ignored (trace_processor v58 opens them as legacy_unnestable slices)."
    } else if name.starts_with(crate::decoder::proto::SKIPPED_STAT_PREFIX) {
        "Packets of this TracePacket kind, which the embedded engine does not import \
         (trace_processor would fill its tables from them)."
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_single_stat_is_listed_once_zeros_included() {
        let mut st = Stats::default();
        st.add("misplaced_end_event", 2, None);
        st.set("ftrace_cpu_overrun_end", 5, Some(3));
        st.add("artscope_skipped_track_event", 7, None);
        let rows = rows(&st);
        let singles = STATS.iter().filter(|s| !s.indexed).count();
        assert_eq!(rows.len(), singles + 2);
        let find = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
        assert_eq!(find("misplaced_end_event").value, 2);
        assert_eq!(find("misplaced_end_event").severity, "data_loss");
        assert_eq!(find("mismatched_sched_switch_tids").value, 0);
        let overrun = find("ftrace_cpu_overrun_end");
        assert_eq!((overrun.idx, overrun.value), (Some(3), 5));
        let own = find("artscope_skipped_track_event");
        assert_eq!((own.key, own.value), (None, 7));
        // global stats come first
        assert_eq!(rows[0].name, "deobfuscate_location_parse_error");
    }
}
