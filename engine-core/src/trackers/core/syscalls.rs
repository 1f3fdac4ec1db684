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

use rustc_hash::FxHashSet as HashSet;

use crate::decoder::proto::REPEATED_FIELD;
use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::core::slices::PendingSliceArgs;
use crate::trackers::core::syscall_table;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

/// Numbers from this on are no syscall (trace_processor's kMaxSyscalls).
const MAX_SYSCALLS: i128 = 550;
const SYS_WRITE: &str = "sys_write";
const SYS_RT_SIGRETURN: &str = "sys_rt_sigreturn";

#[derive(Default)]
pub struct SyscallTracker {
    /// threads inside a sys_write slice
    in_sys_write: HashSet<u32>,
    /// the slices' args: the enter's, then the exit's `ret`, one set made
    /// once the trace is read (as the reference's slice args tracker
    /// commits them when the slice ends, or at the end)
    slice_args: PendingSliceArgs,
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

/// The event's syscall number as the reference reads it: its int64 id as
/// uint32 (an absent id is 0).
fn syscall_number(e: &FtraceEv) -> i128 {
    e.int("id").unwrap_or(0) as u32 as i128
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

/// sys_enter's `args` (every value of the repeated field, which the
/// decoder keeps apart) as `args[i]` args, unsigned.
fn enter_args(e: &FtraceEv) -> Vec<(String, ArgVal)> {
    e.list(REPEATED_FIELD)
        .iter()
        .enumerate()
        .map(|(i, &v)| (format!("args[{i}]"), ArgVal::Uint(v as u64)))
        .collect()
}

impl SyscallTracker {
    pub fn enter(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let utid = c.pt.get_or_create_thread(e.pid);
        let Some(name) = syscall_name(&c.machine, syscall_number(e)) else {
            return;
        };
        let track = thread_track(c, utid);
        let dur = if name == SYS_RT_SIGRETURN { 0 } else { -1 };
        if name == SYS_WRITE {
            self.in_sys_write.insert(utid);
        }
        if let Some(row) = c.slices.begin(track, ts, name.into_owned(), dur, None) {
            self.slice_args.add(row, enter_args(e));
        }
    }

    pub fn exit(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let utid = c.pt.get_or_create_thread(e.pid);
        let Some(name) = syscall_name(&c.machine, syscall_number(e)) else {
            return;
        };
        // an exit with no entry, or a write already ended by an atrace event
        if name == SYS_WRITE && !self.in_sys_write.remove(&utid) {
            return;
        }
        let track = thread_track(c, utid);
        // (the innermost open slice of the syscall's name)
        if let Some(row) = c.slices.end_matching(track, ts, None, Some(&name)) {
            let ret = e.int("ret").map(|ret| ("ret", ArgVal::Int(ret)));
            self.slice_args.add(row, ret);
        }
    }

    /// The syscall slices' arg sets.
    pub fn finish(self, c: &mut Ctx) {
        self.slice_args.commit(c);
    }

    /// Before an atrace `print` by `pid`: ends its ongoing sys_write here.
    pub fn truncate_write(&mut self, c: &mut Ctx, ts: i64, pid: i64) {
        let Some(utid) = c.pt.thread_or_none(pid) else {
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
