//! Raw ftrace ingestion (`ftrace_event`): one row per ftrace event replayed,
//! in replay order, with its common pid's utid and its fields as args.

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
