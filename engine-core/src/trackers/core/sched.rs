//! sched_switch -> `sched` (per-CPU pending slices) and `thread_state`
//! (trace_processor's sched tracker and thread_state_tracker.cc).

use rustc_hash::FxHashMap as HashMap;

use crate::ints::Ints;
use crate::trackers::PerCpu;

/// major.minor from utsname; trace_processor assumes 4.4 when unknown.
pub fn kernel_version(sysname: Option<&str>, release: Option<&str>) -> (u32, u32) {
    if sysname == Some("Linux") {
        if let Some(r) = release {
            let mut it = r.splitn(3, '.');
            let a = it.next().unwrap_or("");
            let b = it.next().unwrap_or("");
            let b: String = b.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_digit()) && !b.is_empty() {
                if let (Ok(x), Ok(y)) = (a.parse(), b.parse()) {
                    return (x, y);
                }
            }
        }
    }
    (4, 4)
}

/// A raw prev_state as trace_processor's TaskState prints it
/// (FromRawPrevState(raw, version).ToString(separator)): its flags' letters
/// in the kernel's order (at most 3 characters, separators included), R /
/// R+ for a runnable task; None for a state that kernel cannot report.
pub fn task_state_str(raw: i64, version: (u32, u32), separator: Option<char>) -> Option<String> {
    const NEW: &[(i64, char)] = &[
        (0x01, 'S'),
        (0x02, 'D'),
        (0x04, 'T'),
        (0x08, 't'),
        (0x10, 'X'),
        (0x20, 'Z'),
        (0x40, 'P'),
        (0x80, 'I'),
    ];
    const OLD: &[(i64, char)] = &[
        (0x01, 'S'),
        (0x02, 'D'),
        (0x04, 'T'),
        (0x08, 't'),
        (0x10, 'X'),
        (0x20, 'Z'),
        (0x40, 'x'),
        (0x80, 'K'),
        (0x100, 'W'),
        (0x200, 'P'),
        (0x400, 'N'),
    ];
    let new = version >= (4, 14);
    let v = raw & 0xFFFF;
    if new && v & 0xFE00 != 0 {
        return None;
    }
    let preempted = if new {
        0x100
    } else if version >= (4, 8) {
        0x1000
    } else {
        0x800
    };
    let letters = if new { NEW } else { OLD };
    let mut flags: Vec<char> = letters
        .iter()
        .filter(|(bit, _)| v & bit != 0)
        .map(|&(_, c)| c)
        .collect();
    if flags.is_empty() {
        return Some(if v & preempted != 0 { "R+" } else { "R" }.into());
    }
    if !new && flags.len() == 2 && flags.contains(&'D') && flags.contains(&'N') {
        // uninterruptible + no-load is TASK_IDLE
        flags = vec!['I'];
    }
    const ORDER: &str = "SDTtXZPxKWNI";
    flags.sort_by_key(|c| ORDER.find(*c).unwrap());
    let mut out = String::new();
    for c in flags {
        if let (Some(sep), false) = (separator, out.is_empty()) {
            out.push(sep);
        }
        out.push(c);
    }
    // TaskStateStr holds 3 characters
    out.truncate(3);
    Some(out)
}

/// Decodes a raw prev_state into trace_processor's end_state string; the
/// strings are interned into small ids (`names`), decoded once per value.
pub struct EndStates {
    version: (u32, u32),
    /// raw prev_state -> id (a lookup per switch; the values a kernel
    /// reports are small)
    cache: crate::trackers::SmallKeyMap<u16, 4096>,
    pub names: Vec<Option<String>>,
    ids: HashMap<Option<String>, u16>,
    /// switches whose prev_state is no valid task state (task_state_invalid),
    /// by machine
    pub invalid: Vec<i64>,
}

/// Ids of the states thread_state treats specially.
pub const RUNNING: i64 = 0;
pub const R: i64 = 1;

impl EndStates {
    pub fn new(version: (u32, u32)) -> Self {
        let mut s = EndStates {
            version,
            cache: Default::default(),
            names: Vec::new(),
            ids: HashMap::default(),
            invalid: Vec::new(),
        };
        s.intern(Some("Running".into()));
        s.intern(Some("R".into()));
        s
    }

    pub fn intern(&mut self, name: Option<String>) -> u16 {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.names.len() as u16;
        self.names.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// A switch's prev_state as an end state id (`NO_STATE`, NULL, for an
    /// invalid one, counted for `machine`).
    pub fn decode(&mut self, raw: i64, machine: u16) -> i64 {
        let id = match self.cache.get(raw) {
            Some(&id) => id,
            None => {
                let id = self.intern(task_state_str(raw, self.version, None));
                self.cache.insert(raw, id);
                id
            }
        };
        if self.names[id as usize].is_none() {
            let m = machine as usize;
            if m >= self.invalid.len() {
                self.invalid.resize(m + 1, 0);
            }
            self.invalid[m] += 1;
            return NO_STATE;
        }
        id as i64
    }
}

/// sched rows, in replay order of the switches that made them (the
/// integer columns as narrow as their values: `Ints`).
#[derive(Default)]
pub struct SchedTable {
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    pub cpu: Ints,
    pub utid: Ints,
    /// end_state id (`EndStates::decode`), NO_STATE = NULL
    pub end_state: Ints,
    pub prio: Ints,
}

impl SchedTable {
    pub fn reserve(&mut self, n: usize) {
        self.ts.reserve_exact(n);
        self.dur.reserve_exact(n);
        self.cpu.reserve_exact(n);
        self.utid.reserve_exact(n);
        self.end_state.reserve_exact(n);
        self.prio.reserve_exact(n);
    }
}

/// The end_state / state of a row that has none (NULL).
pub const NO_STATE: i64 = -1;

/// The per-CPU pending slice: a row is closed by the next kept switch on its
/// CPU (dur = the gap, end_state = that switch's prev_state), unless that
/// switch is a regular one whose prev_pid is not the row's next_pid: the row
/// then stays open and mismatched_sched_switch_tids counts it.
#[derive(Default)]
pub struct SchedTracker {
    pub table: SchedTable,
    pending: PerCpu<(usize, i64)>, // cpu -> (row, next_pid)
    /// mismatched switches, by machine (a cpu is a ucpu)
    mismatched: Vec<i64>,
}

impl SchedTracker {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        ts: i64,
        cpu: i64,
        compact: bool,
        prev_pid: i64,
        prev_state: i64,
        next_pid: i64,
        next_utid: u32,
        next_prio: i64,
    ) {
        let t = &mut self.table;
        if let Some(&(row, pid)) = self.pending.get(cpu) {
            if compact || prev_pid == pid {
                t.dur[row] = ts - t.ts[row];
                t.end_state.set(row, prev_state);
            } else {
                let machine = (cpu / crate::machines::MAX_CPUS_PER_MACHINE).max(0) as usize;
                if machine >= self.mismatched.len() {
                    self.mismatched.resize(machine + 1, 0);
                }
                self.mismatched[machine] += 1;
            }
        }
        let row = t.ts.len();
        t.ts.push(ts);
        t.dur.push(-1);
        // cpu: a uint32 field; prio: an int32 field (as trace_processor reads them)
        t.cpu.push(cpu as u32 as i64);
        t.utid.push(next_utid as i64);
        t.end_state.push(NO_STATE);
        t.prio.push(next_prio as i32 as i64);
        self.pending.insert(cpu, (row, next_pid));
    }

    /// The mismatched switches' count, by machine.
    pub fn mismatched(&self) -> &[i64] {
        &self.mismatched
    }
}

/// thread_state rows, ids in creation (replay) order (the integer columns
/// as narrow as their values: `Ints`).
#[derive(Default)]
pub struct ThreadStateTable {
    pub ts: Vec<i64>,
    pub dur: Vec<i64>,
    /// -1 = NULL
    pub cpu: Ints,
    pub utid: Ints,
    /// state id (`EndStates::decode`), NO_STATE = NULL
    pub state: Ints,
    /// 0 / 1, -1 = NULL (trace_processor keeps it as a bool)
    pub io_wait: Vec<i8>,
    /// -1 = NULL
    pub waker: Ints,
    /// irq_context: -1 = NULL (switches, wakings without common_flags),
    /// else 0 / 1 (a compact_sched waking's flags: in a hard or soft irq;
    /// a new task: 0)
    pub irq_context: Vec<i8>,
    /// blocked_function, sparse (few rows have one): (row, function) in
    /// the order set, a later one for a row winning
    pub blocked_function: Vec<(u32, Box<str>)>,
}

impl ThreadStateTable {
    pub fn reserve(&mut self, n: usize) {
        self.ts.reserve_exact(n);
        self.dur.reserve_exact(n);
        self.cpu.reserve_exact(n);
        self.utid.reserve_exact(n);
        self.state.reserve_exact(n);
        self.io_wait.reserve_exact(n);
        self.waker.reserve_exact(n);
        self.irq_context.reserve_exact(n);
    }
}

/// Every event is an action on one utid (utid 0 has no rows): a switch is
/// "prev out" (opens the end_state; closes the last row only if it is
/// Running, else data loss leaves it open) then "next in" (closes the last
/// row, opens Running on the cpu); task_newtask closes the last row and opens
/// R with the parent as waker; sched_waking does the same only if the wakee
/// has no rows or its last row is blocked (not Running / R), else it is
/// spurious; sched_blocked_reason sets io_wait on the thread's last blocked
/// row, which stays its target after a waking opened R (the reason is
/// usually emitted at wake-up) until the thread runs again, as
/// thread_state_tracker.cc's `last_blocked_row` (every state but Running and
/// R is blocked, R+ included).
pub struct ThreadStateTracker {
    pub table: ThreadStateTable,
    last: Vec<u32>,         // utid -> last row (u32::MAX = none)
    last_blocked: Vec<u32>, // utid -> last blocked row since it last ran
    pub spurious: i64,
    r_plus: Option<u16>,
    /// the remote machines' idle threads (the host's is utid 0): no thread
    /// states, as the host's
    pub remote_idle: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl ThreadStateTracker {
    pub fn new() -> Self {
        ThreadStateTracker {
            table: Default::default(),
            last: Vec::new(),
            last_blocked: Vec::new(),
            spurious: 0,
            r_plus: None,
            remote_idle: Vec::new(),
        }
    }

    fn last_row(&self, utid: u32) -> Option<usize> {
        match self.last.get(utid as usize) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        }
    }

    fn open(&mut self, utid: u32, ts: i64, state: i64, cpu: i64, waker: u32, irq: Option<bool>) {
        let t = &mut self.table;
        let row = t.ts.len() as u32;
        t.ts.push(ts);
        t.dur.push(-1);
        t.cpu.push(cpu as i32 as i64);
        t.utid.push(utid as i64);
        t.state.push(state);
        t.io_wait.push(-1);
        t.waker.push(if waker == NONE { -1 } else { waker as i64 });
        t.irq_context.push(irq.map_or(-1, |i| i as i8));
        let u = utid as usize;
        if self.last.len() <= u {
            self.last.resize(u + 1, NONE);
            self.last_blocked.resize(u + 1, NONE);
        }
        self.last[u] = row;
        if state == RUNNING {
            self.last_blocked[u] = NONE;
        } else if state != R {
            self.last_blocked[u] = row;
        }
    }

    #[inline]
    fn is_idle(&self, utid: u32) -> bool {
        utid == 0 || (!self.remote_idle.is_empty() && self.remote_idle.contains(&utid))
    }

    fn close_last(&mut self, utid: u32, ts: i64) {
        if let Some(r) = self.last_row(utid) {
            self.table.dur[r] = ts - self.table.ts[r];
        }
    }

    pub fn switch_out(&mut self, utid: u32, ts: i64, state: i64) {
        if self.is_idle(utid) {
            return;
        }
        if let Some(r) = self.last_row(utid) {
            if self.table.state.get(r) == RUNNING {
                self.table.dur[r] = ts - self.table.ts[r];
            }
        }
        self.open(utid, ts, state, -1, NONE, None);
    }

    pub fn switch_in(&mut self, utid: u32, ts: i64, cpu: i64) {
        if self.is_idle(utid) {
            return;
        }
        self.close_last(utid, ts);
        self.open(utid, ts, RUNNING, cpu, NONE, None);
    }

    /// `common_flags`: the waking's (compact_sched records them; a
    /// sched_waking event's are not passed on: NULL irq_context, as
    /// trace_processor's ParseSchedWaking).
    /// A waking: opens an R row unless the thread is idle or already
    /// runnable (spurious). Whether it opened one.
    pub fn waking(
        &mut self,
        utid: u32,
        ts: i64,
        waker: Option<u32>,
        common_flags: Option<u32>,
    ) -> bool {
        if self.is_idle(utid) {
            return false;
        }
        if let Some(r) = self.last_row(utid) {
            let st = self.table.state.get(r);
            if st == RUNNING || st == R {
                self.spurious += 1;
                return false;
            }
        }
        self.close_last(utid, ts);
        // TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ: woken from an interrupt
        let irq = common_flags.map(|f| f & (0x08 | 0x10) != 0);
        self.open(utid, ts, R, -1, waker.unwrap_or(NONE), irq);
        true
    }

    pub fn new_task(&mut self, utid: u32, ts: i64, parent: u32) {
        if self.is_idle(utid) {
            return;
        }
        self.close_last(utid, ts);
        self.open(utid, ts, R, -1, parent, Some(false));
    }

    pub fn set_r_plus(&mut self, id: Option<u16>) {
        self.r_plus = id;
    }

    /// sched_blocked_reason: io_wait and (when known) the function the
    /// thread blocked in, on its last blocked row.
    pub fn blocked_reason(&mut self, utid: u32, io_wait: bool, function: Option<&str>) {
        if self.is_idle(utid) {
            return;
        }
        match self.last_blocked.get(utid as usize) {
            Some(&r) if r != NONE => {
                self.table.io_wait[r as usize] = io_wait as i8;
                if let Some(f) = function {
                    self.table.blocked_function.push((r, f.into()));
                }
            }
            _ => {}
        }
    }
}

impl Default for ThreadStateTracker {
    fn default() -> Self {
        Self::new()
    }
}
