//! Raw ftrace ingestion (`ftrace_event`): one row per ftrace event replayed,
//! in replay order, with its common pid's utid and its fields as args.

/// ftrace_event rows; names are interned static event names.
#[derive(Default)]
pub struct RawTable {
    pub ts: Vec<i64>,
    pub name: Vec<&'static str>,
    pub cpu: Vec<i64>,
    /// u32::MAX = NULL
    pub utid: Vec<u32>,
    pub arg_set: Vec<Option<i64>>,
    /// first / last ts of the rows that are not sched_switch rows of sched
    /// (trace bounds, as the reference computes them)
    pub other_first_last: Option<(i64, i64)>,
}

impl RawTable {
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
        self.name.push(name);
        self.cpu.push(cpu);
        self.utid.push(utid.unwrap_or(u32::MAX));
        self.arg_set.push(arg_set);
        if !sched_row {
            self.other_first_last = Some(match self.other_first_last {
                None => (ts, ts),
                Some((a, _)) => (a, ts),
            });
        }
    }
}
