//! Raw ftrace ingestion (`ftrace_event`): one row per ftrace event replayed,
//! in replay order, with its common pid's utid and its fields as args.

use super::tracks::{ArgVal, Args};
use crate::decoder::ftrace_schema::generic_fields;
use crate::decoder::proto::{symbol_address_field, FieldKind, SYMBOL_FIELD};
use crate::events::{FieldVal, FtraceEv};

/// ftrace_event rows, narrow (millions of rows on a real trace): names as
/// ids into `names`, NULLs as u32::MAX.
#[derive(Default)]
pub struct RawTable {
    pub ts: Vec<i64>,
    pub name: Vec<u16>,
    /// the distinct event names, in order of first appearance
    pub names: Vec<&'static str>,
    /// the cpu field (uint32)
    pub cpu: Vec<u32>,
    /// u32::MAX = NULL
    pub utid: Vec<u32>,
    /// u32::MAX = NULL
    pub arg_set: Vec<u32>,
    /// first / last ts of the rows that are not sched_switch rows of sched
    /// (trace bounds, as the reference computes them)
    pub other_first_last: Option<(i64, i64)>,
    /// (row, common_flags) of the rows whose flags are not 0: sparse, as
    /// they are rare (the column is built from it, 1 byte a row when all
    /// fit)
    pub flags: Vec<(u32, u32)>,
    /// the common_flags of the next row pushed (set by the replay)
    pub next_flags: u32,
}

impl RawTable {
    pub fn reserve(&mut self, n: usize) {
        self.ts.reserve_exact(n);
        self.name.reserve_exact(n);
        self.cpu.reserve_exact(n);
        self.utid.reserve_exact(n);
        self.arg_set.reserve_exact(n);
    }

    pub fn push(
        &mut self,
        ts: i64,
        name: &'static str,
        cpu: i64,
        utid: Option<u32>,
        arg_set: Option<i64>,
        sched_row: bool,
    ) {
        self.ts.push(ts);
        let id = match self
            .names
            .iter()
            .position(|&n| std::ptr::eq(n, name) || n == name)
        {
            Some(i) => i,
            None => {
                self.names.push(name);
                self.names.len() - 1
            }
        };
        if self.next_flags != 0 {
            self.flags.push((self.name.len() as u32, self.next_flags));
            self.next_flags = 0;
        }
        self.name.push(id as u16);
        self.cpu.push(cpu as u32);
        self.utid.push(utid.unwrap_or(u32::MAX));
        self.arg_set
            .push(arg_set.map_or(u32::MAX, |a| u32::try_from(a).unwrap_or(u32::MAX - 1)));
        if !sched_row {
            self.other_first_last = Some(match self.other_first_last {
                None => (ts, ts),
                Some((a, _)) => (a, ts),
            });
        }
    }
}

/// The common_flags column: 0 where the event had none.
pub enum FlagsColumn {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl RawTable {
    pub fn flags_column(&self) -> FlagsColumn {
        let rows = self.ts.len();
        if self.flags.iter().all(|&(_, f)| f <= u8::MAX as u32) {
            let mut v = vec![0u8; rows];
            for &(r, f) in &self.flags {
                v[r as usize] = f as u8;
            }
            FlagsColumn::Narrow(v)
        } else {
            let mut v = vec![0u32; rows];
            for &(r, f) in &self.flags {
                v[r as usize] = f;
            }
            FlagsColumn::Wide(v)
        }
    }
}

/// The arg set of an ftrace event's raw row: its fields, unsigned ones
/// (uint32 / uint64 in the event's proto) typed 'uint' and an interned
/// kernel symbol's iid replaced by the symbol, as trace_processor gives
/// them; each distinct set stored once (trace_processor shares them).
pub fn event_args(args: &mut Args, e: &FtraceEv) -> i64 {
    let specs = generic_fields(e.name).unwrap_or(&[]);
    let symbol = e.str(SYMBOL_FIELD);
    let symbol_field = symbol.and(symbol_address_field(e.name));
    let items: Vec<(&str, Option<ArgVal>)> = e
        .fields
        .iter()
        .filter(|(k, _)| *k != SYMBOL_FIELD)
        .map(|(k, v)| {
            let unsigned = specs
                .iter()
                .any(|s| s.1 == *k && matches!(s.2, FieldKind::U32 | FieldKind::U64));
            let value = match v {
                _ if Some(*k) == symbol_field => ArgVal::Str(symbol.unwrap_or("").to_owned()),
                FieldVal::Int(i) if unsigned && *i >= 0 && *i <= u64::MAX as i128 => {
                    ArgVal::Uint(*i as u64)
                }
                FieldVal::Int(i) => ArgVal::Int(*i),
                FieldVal::Str(s) => ArgVal::Str(s.clone()),
                FieldVal::Bool(b) => ArgVal::Bool(*b),
                FieldVal::Real(r) => ArgVal::Real(*r),
            };
            (*k, Some(value))
        })
        .collect();
    args.add_set(&items)
}
