//! ProfilePacket (heapprofd's and the Java heap profiler's allocation
//! dumps): the fields ProfileModule::ParseProfilePacket reads (v58.2
//! importers/proto/profile_module.cc), made into rows in the replay by
//! `trackers::extra::heap_profile`. A dump's times are CLOCK_MONOTONIC_COARSE,
//! converted to trace time once every clock snapshot is known
//! (`ProtoDecoder::decode`'s last step), as trace_processor converts them
//! when the sorted packet is parsed.

use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::profiles::{
    HeapSample, ProcessDump, ProfilePacketEv, RawMapping, SmapsEv, SmapsRow,
};

type R<T> = Result<T, WireError>;

/// CLOCK_MONOTONIC_COARSE: the clock of a dump's timestamps.
pub const MONOTONIC_COARSE: u32 = 4;

fn flag(v: Value) -> bool {
    matches!(v, Value::Varint(x) if x != 0)
}

pub fn profile_packet(b: &[u8]) -> R<ProfilePacketEv> {
    let mut p = ProfilePacketEv::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Bytes(s)) => {
                let (iid, s) = super::stack_profile::interned_string(s)?;
                p.strings
                    .push((iid.unwrap_or(0), s.map(text).unwrap_or_default()));
            }
            (4, Value::Bytes(m)) => p.mappings.push(RawMapping::parse(m)?),
            (2, Value::Bytes(m)) => {
                let mut fr = (0, 0, 0, 0);
                for g in Fields::new(m) {
                    match g? {
                        (1, Value::Varint(x)) => fr.0 = x,
                        (2, Value::Varint(x)) => fr.1 = x,
                        (3, Value::Varint(x)) => fr.2 = x,
                        (4, Value::Varint(x)) => fr.3 = x,
                        _ => {}
                    }
                }
                p.frames.push(fr);
            }
            (3, Value::Bytes(m)) => {
                let (mut iid, mut frames) = (0, Vec::new());
                for g in Fields::new(m) {
                    match g? {
                        (1, Value::Varint(x)) => iid = x,
                        (2, v) => push_varints(v, &mut frames)?,
                        _ => {}
                    }
                }
                p.callstacks.push((iid, frames));
            }
            (5, Value::Bytes(d)) => p.dumps.push(process_dump(d)?),
            (6, v) => p.continued = flag(v),
            (7, Value::Varint(x)) => p.index = x,
            _ => {}
        }
    }
    Ok(p)
}

fn process_dump(b: &[u8]) -> R<ProcessDump> {
    let mut d = ProcessDump::default();
    let mut ts = 0u64;
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => d.pid = x,
            (4, v) => d.rejected_concurrent = flag(v),
            (6, v) => d.disconnected = flag(v),
            (7, v) => d.buffer_overran = flag(v),
            (8, v) => d.buffer_corrupted = flag(v),
            (10, v) => d.hit_guardrail = flag(v),
            (14, Value::Varint(x)) => d.client_error = x as i32,
            (11, Value::Bytes(s)) => d.heap_name = (!s.is_empty()).then(|| text(s)),
            (12, Value::Varint(x)) => d.sampling_interval_bytes = x,
            (13, Value::Varint(x)) => d.orig_sampling_interval_bytes = x,
            (9, Value::Varint(x)) => ts = x,
            (15, Value::Varint(x)) => d.start_timestamp = Some(x as i64),
            (5, Value::Bytes(s)) => {
                for g in Fields::new(s) {
                    match g? {
                        (5, Value::Varint(x)) => d.unwind_time_us = x,
                        (2, Value::Varint(x)) => d.heap_samples = x,
                        (6, Value::Varint(x)) => d.spinlock_blocked_us = x,
                        _ => {}
                    }
                }
            }
            (2, Value::Bytes(s)) => d.samples.push(heap_sample(s)?),
            _ => {}
        }
    }
    // (an absent timestamp is 0, as protozero reads it)
    d.timestamp = Some(ts as i64);
    Ok(d)
}

fn heap_sample(b: &[u8]) -> R<HeapSample> {
    let mut s = HeapSample::default();
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => s.callstack_id = x,
            (2, Value::Varint(x)) => s.self_allocated = x,
            (3, Value::Varint(x)) => s.self_freed = x,
            (8, Value::Varint(x)) => s.self_max = Some(x),
            (9, Value::Varint(x)) => s.self_max_count = x,
            (5, Value::Varint(x)) => s.alloc_count = x,
            (6, Value::Varint(x)) => s.free_count = x,
            _ => {}
        }
    }
    Ok(s)
}

/// InternSmapsPath: the path, and without a " (deleted)" suffix (None: no
/// path field).
fn smaps_path(row: &mut SmapsRow, path: Option<&[u8]>) {
    const DELETED: &[u8] = b" (deleted)";
    let Some(path) = path else { return };
    row.path = Some(text(path));
    let trimmed = path.strip_suffix(DELETED);
    row.is_deleted = trimmed.is_some();
    row.path_trimmed = Some(text(trimmed.unwrap_or(path)));
}

pub fn smaps_packet(b: &[u8]) -> R<SmapsEv> {
    use crate::events::profiles::smaps_value::*;
    let mut ev = SmapsEv::default();
    let (mut entries, mut packed) = (Vec::new(), None);
    for f in Fields::new(b) {
        match f? {
            (1, Value::Varint(x)) => ev.pid = x as u32,
            (2, Value::Bytes(e)) => entries.push(e),
            (3, Value::Bytes(p)) => packed = Some(p),
            _ => {}
        }
    }
    if let Some(p) = packed {
        packed_smaps(p, &mut ev);
        return Ok(ev);
    }
    for e in entries {
        let mut row = SmapsRow {
            aggregate_count: 1,
            ..Default::default()
        };
        let mut path = None;
        for f in Fields::new(e) {
            match f? {
                (1, Value::Bytes(s)) => path = Some(s),
                (5, Value::Bytes(s)) => row.file_name = Some(text(s)),
                (8, Value::Bytes(s)) => row.module_debugid = Some(text(s)),
                (9, Value::Bytes(s)) => row.module_debug_path = Some(text(s)),
                (10, Value::Varint(x)) => row.protection_flags = x as u32 as i32,
                (n, Value::Varint(x)) => {
                    let at = match n {
                        2 => SIZE,
                        3 => PRIVATE_DIRTY,
                        4 => SWAP,
                        6 => START_ADDRESS,
                        7 => MODULE_TIMESTAMP,
                        11 => PRIVATE_CLEAN,
                        12 => SHARED_DIRTY,
                        13 => SHARED_CLEAN,
                        14 => LOCKED,
                        15 => PSS,
                        _ => continue,
                    };
                    row.values[at] = x as i64;
                }
                _ => {}
            }
        }
        smaps_path(&mut row, path);
        ev.rows.push(row);
    }
    Ok(ev)
}

/// ParsePackedSmaps: a string table and parallel packed columns; with
/// `aggregate_count` the rows are the string table's, in order, else each
/// names its string by `name_id`. The rows stop at the first column that
/// runs out; columns of different lengths (or a name past the table) are a
/// parser error.
fn packed_smaps(b: &[u8], ev: &mut SmapsEv) {
    use crate::events::profiles::smaps_value::*;
    // packed fields 4..=15 -> SmapsRow::values
    const COLUMNS: [(u32, usize); 12] = [
        (4, SIZE),
        (5, RSS),
        (6, ANONYMOUS),
        (7, SWAP),
        (8, SHARED_CLEAN),
        (9, SHARED_DIRTY),
        (10, PRIVATE_CLEAN),
        (11, PRIVATE_DIRTY),
        (12, LOCKED),
        (13, PSS),
        (14, PSS_DIRTY),
        (15, SWAP_PSS),
    ];
    let mut strings: Vec<&[u8]> = Vec::new();
    let (mut name_ids, mut counts) = (Vec::new(), Vec::new());
    let mut aggregated = false;
    let mut columns: Vec<Vec<u64>> = vec![Vec::new(); COLUMNS.len()];
    let mut error = false;
    for f in Fields::new(b) {
        let Ok((num, v)) = f else {
            error = true;
            break;
        };
        let got = match num {
            1 => {
                if let Value::Bytes(s) = v {
                    strings.push(s);
                }
                Ok(())
            }
            2 => push_varints(v, &mut name_ids),
            3 => {
                aggregated = true;
                push_varints(v, &mut counts)
            }
            n => match COLUMNS.iter().position(|&(c, _)| c == n) {
                Some(i) => push_varints(v, &mut columns[i]),
                None => Ok(()),
            },
        };
        error |= got.is_err();
    }
    let mut used = vec![0usize; COLUMNS.len()];
    let (mut names_used, mut i) = (0usize, 0usize);
    loop {
        let names_left = if aggregated {
            i < counts.len()
        } else {
            names_used < name_ids.len()
        };
        let columns_left = columns
            .iter()
            .zip(&used)
            .all(|(c, &u)| c.is_empty() || u < c.len());
        if !names_left || !columns_left {
            break;
        }
        let name = if aggregated {
            i
        } else {
            names_used += 1;
            name_ids[names_used - 1] as u32 as usize
        };
        let Some(path) = strings.get(name) else {
            error = true;
            break;
        };
        let mut row = SmapsRow {
            aggregate_count: if aggregated { counts[i] as u32 } else { 1 },
            ..Default::default()
        };
        smaps_path(&mut row, Some(path));
        for (k, &(_, at)) in COLUMNS.iter().enumerate() {
            if let Some(&x) = columns[k].get(used[k]) {
                row.values[at] = x as i64;
                used[k] += 1;
            }
        }
        ev.rows.push(row);
        i += 1;
    }
    let all_used = columns.iter().zip(&used).all(|(c, &u)| u == c.len())
        && (aggregated || names_used == name_ids.len())
        && (!aggregated || (i == counts.len() && name_ids.is_empty() && i == strings.len()));
    ev.parser_error = error || !all_used;
}
