//! raw_syscalls sys_enter / sys_exit -> syscall slices on the thread's track
//! (trace_processor's importers/syscalls/syscall_tracker.h).
//!
//! A slice is named by the syscall table of the trace's architecture
//! (utsname.machine: aarch64, armv8l / armv7l, x86_64, i686), "sys_<n>"
//! for a number with no name there or on any other architecture; numbers
//! from 550 on make no slice. sys_enter's arguments become `args[i]`
//! args, sys_exit's return value `ret`. sys_rt_sigreturn never returns: an
//! instant. An atrace write (ftrace `print`) inside sys_write would cross
//! the slices' nesting, so the ongoing sys_write is ended where the atrace
//! event is (`truncated_sys_write_duration`) and its sys_exit ignored.

use std::borrow::Cow;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::atrace::thread_track;
use super::syscall_table;
use super::tracks::ArgVal;
use super::Ctx;
use crate::events::FtraceEv;

/// Numbers from this on are no syscall (trace_processor's kMaxSyscalls).
const MAX_SYSCALLS: i128 = 550;
const SYS_WRITE: &str = "sys_write";
const SYS_RT_SIGRETURN: &str = "sys_rt_sigreturn";

type ArgList = Vec<(String, Option<ArgVal>)>;

#[derive(Default)]
pub struct SyscallTracker {
    /// threads inside a sys_write slice
    in_sys_write: HashSet<u32>,
    /// open syscall slices with arguments: their args (the exit's set
    /// adds `ret` to them)
    enter_args: HashMap<u32, ArgList>,
}

/// The syscall table of utsname.machine (lowercased), if it has one.
fn table(machine: &str) -> &'static [&'static str] {
    match machine {
        "aarch64" => &syscall_table::ARM64,
        "armv8l" | "armv7l" => &syscall_table::ARM32,
        "x86_64" => &syscall_table::X86_64,
        "i686" => &syscall_table::X86,
        _ => &[],
    }
}

fn syscall_name(machine: &str, num: i128) -> Option<Cow<'static, str>> {
    if !(0..MAX_SYSCALLS).contains(&num) {
        return None;
    }
    match table(machine).get(num as usize) {
        Some(n) if !n.is_empty() => Some(Cow::Borrowed(n)),
        _ => Some(Cow::Owned(format!("sys_{num}"))),
    }
}

/// sys_enter's `args` (the decoder keeps a repeated field as its list
/// text, "[1, 2, 3]") as `args[i]` args.
fn enter_args(e: &FtraceEv) -> ArgList {
    let list = e.str("args").unwrap_or("");
    let inner = list.trim_start_matches('[').trim_end_matches(']');
    inner
        .split(", ")
        .filter_map(|x| x.parse::<u64>().ok())
        .enumerate()
        .map(|(i, v)| (format!("args[{i}]"), Some(ArgVal::Uint(v))))
        .collect()
}

impl SyscallTracker {
    pub fn enter(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let utid = c.pt.get_or_create_thread(e.pid);
        let Some(name) = syscall_name(&c.machine, e.int("id").unwrap_or(-1)) else {
            return;
        };
        let track = thread_track(c, utid);
        let items = enter_args(e);
        let set = (!items.is_empty()).then(|| c.args.add_set(&items));
        let dur = if name == SYS_RT_SIGRETURN { 0 } else { -1 };
        if name == SYS_WRITE {
            self.in_sys_write.insert(utid);
        }
        let row = c.slices.begin(track, ts, name.into_owned(), dur, set);
        if let Some(row) = row.filter(|_| dur == -1 && !items.is_empty()) {
            self.enter_args.insert(row, items);
        }
    }

    pub fn exit(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let utid = c.pt.get_or_create_thread(e.pid);
        let Some(name) = syscall_name(&c.machine, e.int("id").unwrap_or(-1)) else {
            return;
        };
        // an exit with no entry, or a write already ended by an atrace event
        if name == SYS_WRITE && !self.in_sys_write.remove(&utid) {
            return;
        }
        let track = thread_track(c, utid);
        if let Some(row) = c.slices.end(track, ts) {
            let mut items = self.enter_args.remove(&row).unwrap_or_default();
            if let Some(ret) = e.int("ret") {
                items.push(("ret".into(), Some(ArgVal::Int(ret))));
            }
            if !items.is_empty() {
                // a new set (the enter's stays, as trace_processor's does)
                c.slices.rows[row as usize].arg_set = Some(c.args.add_set(&items));
            }
        }
    }

    /// Before an atrace `print` by `pid`: ends its ongoing sys_write here.
    pub fn truncate_write(&mut self, c: &mut Ctx, ts: i64, pid: i64) {
        let Some(utid) = c.pt.get_thread(pid, None) else {
            return;
        };
        if !self.in_sys_write.remove(&utid) {
            return;
        }
        c.stats.add("truncated_sys_write_duration", 1, None);
        let track = thread_track(c, utid);
        c.slices.end(track, ts);
    }
}
