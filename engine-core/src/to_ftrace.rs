//! TO_FTRACE(id): an `ftrace_event` row as the line the kernel's text ftrace
//! would have printed for it (trace_processor's SystraceSerializer,
//! plugins/to_ftrace/to_ftrace.cc): the task / pid / tgid / cpu / time
//! prefix, then the event's args, with the special layouts trace_processor
//! gives the events it knows (sched_switch's `==>`, print as
//! tracing_mark_write, binder, workqueue, irq, softirq, i2c, ...).
//!
//! The kernel layouts of prev_state and gfp_flags are 4.4's whatever the
//! trace's utsname says: trace_processor v58.2 records the kernel version on
//! the importer's context, which its to_ftrace plugin does not read (on a
//! 5.10 kernel it prints a preempted task's state as `W`, not `R+`), and
//! the lines are its lines. So only 4.4's GFP flag table is ported (the
//! reference's 3.4, 3.10 and 4.14 tables are unreachable from to_ftrace).
//!
//! One deliberate difference: trace_processor finds a special event's fields
//! by their position in the first arg set of that event name it printed;
//! here each row's own set is searched by key. The two agree whenever the
//! events of one name carry the same fields, as one kernel's always do.

use std::fmt::Write;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::columns::{Table, V};
use crate::trackers::core::sched::task_state_str;
use crate::trackers::extra::irq::SOFTIRQ_ACTIONS;

/// One arg of a set, as its row gives it.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Int(i64),
    Uint(u64),
    Bool(bool),
    Real(f64),
    Str(&'a str),
    Null,
}

/// The kernel version whose prev_state layout lines use (see the module's
/// header; gfp_flags is 4.4's too).
const KERNEL: (u32, u32) = (4, 4);

/// The tables a line is made of, and the args grouped by set (built once).
pub struct FtraceText {
    raw: Arc<Table>,
    thread: Arc<Table>,
    process: Arc<Table>,
    args: Arc<Table>,
    sets: OnceLock<ArgSets>,
}

/// The args table's rows ordered by (set, row), and each set's range in
/// them (start, count).
type ArgSets = (Vec<u32>, FxHashMap<i64, (u32, u32)>);

impl FtraceText {
    pub fn new(raw: Arc<Table>, thread: Arc<Table>, process: Arc<Table>, args: Arc<Table>) -> Self {
        FtraceText {
            raw,
            thread,
            process,
            args,
            sets: OnceLock::new(),
        }
    }

    /// The line of ftrace_event row `id`; Err with trace_processor's message
    /// for a row it cannot print.
    pub fn line(&self, id: i64) -> Result<String, String> {
        let cannot = || format!("to_ftrace: Cannot serialize row id {id}");
        let raw = &self.raw;
        let Some([ts_c, name_c, cpu_c, utid_c, set_c]) =
            raw.columns(["ts", "name", "cpu", "utid", "arg_set_id"])
        else {
            return Err(cannot());
        };
        let row = usize::try_from(id)
            .ok()
            .filter(|&r| r < raw.n)
            .ok_or_else(cannot)?;
        let name = text_at(raw, name_c, row).unwrap_or("");
        if name.starts_with("chrome_event.") || name.starts_with("track_event.") {
            return Err(cannot());
        }
        let int = |c: usize| int_at(raw, c, row);
        let mut out = String::with_capacity(128);
        self.prefix(
            &mut out,
            int(ts_c).unwrap_or(0),
            int(cpu_c).unwrap_or(0),
            int(utid_c).unwrap_or(0),
        );
        out.push(' ');
        out.push_str(match name {
            "print" | "g2d_tracing_mark_write" | "dpu_tracing_mark_write" => "tracing_mark_write",
            other => other,
        });
        out.push(':');
        let args = self.set(int(set_c).unwrap_or(0));
        if !args.is_empty() {
            Line {
                out: &mut out,
                args: &args,
            }
            .event(name);
        }
        // the reference's line is a C string: it ends at a NUL (e.g. a
        // tracing mark whose type character is 0)
        if let Some(nul) = out.find('\0') {
            out.truncate(nul);
        }
        Ok(out)
    }

    /// `<task>-<tid> (<tgid>) [<cpu>] .... <secs>.<micros>:`
    fn prefix(&self, out: &mut String, ts: i64, cpu: i64, utid: i64) {
        let (tid, task, upid) = match (
            self.thread.columns(["tid", "name", "upid"]),
            usize::try_from(utid),
        ) {
            (Some([tid_c, name_c, upid_c]), Ok(r)) if r < self.thread.n => {
                let t = &self.thread;
                (
                    int_at(t, tid_c, r),
                    text_at(t, name_c, r),
                    int_at(t, upid_c, r),
                )
            }
            _ => (None, None, None),
        };
        let tid = tid.unwrap_or(0);
        let p = &self.process;
        let tgid = match (
            p.columns(["pid"]),
            upid.and_then(|u| usize::try_from(u).ok()),
        ) {
            (Some([pid_c]), Some(r)) if r < p.n => int_at(p, pid_c, r).unwrap_or(0),
            _ => 0,
        };
        let task = task.unwrap_or("");
        let task = if tid == 0 {
            "<idle>"
        } else if task.is_empty() {
            "<unknown>"
        } else {
            task
        };
        // padded to 16 bytes, as the reference counts them
        for _ in task.len()..16 {
            out.push(' ');
        }
        out.push_str(&task.replace('-', "_"));
        out.push('-');
        let _ = write!(out, "{tid:<5} (");
        if tgid == 0 {
            out.push_str("-----");
        } else {
            padded(out, tgid, ' ', 5);
        }
        out.push_str(") [");
        // (a ucpu: the machine's cpu)
        padded(out, crate::machines::machine_cpu(cpu), '0', 3);
        out.push_str("] .... ");
        let secs = ts / 1_000_000_000;
        let micros = (ts - secs * 1_000_000_000) / 1000;
        let _ = write!(out, "{secs}.");
        padded(out, micros, '0', 6);
        out.push(':');
    }

    /// The (key, value) args of set `id`, in their table order.
    fn set(&self, id: i64) -> Vec<(&str, Arg<'_>)> {
        let a = &self.args;
        let Some([set_c, key_c, int_c, str_c, real_c, type_c]) = a.columns([
            "arg_set_id",
            "key",
            "int_value",
            "string_value",
            "real_value",
            "value_type",
        ]) else {
            return Vec::new();
        };
        let (rows, index) = self.sets.get_or_init(|| {
            let set_of = |r: u32| match a.get(set_c, r as usize) {
                V::Int(s) => s,
                _ => i64::MIN,
            };
            let mut rows: Vec<u32> = (0..a.n as u32).collect();
            rows.sort_by_key(|&r| (set_of(r), r));
            let mut index = FxHashMap::default();
            for (i, &r) in rows.iter().enumerate() {
                let e = index.entry(set_of(r)).or_insert((i as u32, 0));
                e.1 += 1;
            }
            (rows, index)
        });
        let Some(&(start, len)) = index.get(&id) else {
            return Vec::new();
        };
        rows[start as usize..(start + len) as usize]
            .iter()
            .map(|&r| {
                let r = r as usize;
                let key = match a.get(key_c, r) {
                    V::Text(k) => k,
                    _ => "",
                };
                let int = match a.get(int_c, r) {
                    V::Int(i) => Some(i),
                    _ => None,
                };
                let value = match (a.get(type_c, r), int) {
                    (V::Text("uint" | "pointer"), Some(i)) => Arg::Uint(i as u64),
                    (V::Text("bool"), Some(i)) => Arg::Bool(i != 0),
                    (V::Text("int"), Some(i)) => Arg::Int(i),
                    (V::Text("real"), _) => match a.get(real_c, r) {
                        V::Real(x) => Arg::Real(x),
                        _ => Arg::Null,
                    },
                    (V::Text("string" | "json"), _) => match a.get(str_c, r) {
                        V::Text(s) => Arg::Str(s),
                        _ => Arg::Str(""),
                    },
                    _ => Arg::Null,
                };
                (key, value)
            })
            .collect()
    }
}

fn int_at(t: &Table, col: usize, row: usize) -> Option<i64> {
    match t.get(col, row) {
        V::Int(i) => Some(i),
        _ => None,
    }
}

fn text_at(t: &Table, col: usize, row: usize) -> Option<&str> {
    match t.get(col, row) {
        V::Text(s) => Some(s),
        _ => None,
    }
}

/// `value` right-aligned in `width` with `pad`, a minus sign before the
/// padding (DynamicStringWriter::AppendPaddedInt).
fn padded(out: &mut String, value: i64, pad: char, width: usize) {
    let digits = value.unsigned_abs().to_string();
    if value < 0 {
        out.push('-');
    }
    for _ in digits.len()..width {
        out.push(pad);
    }
    out.push_str(&digits);
}

/// `%.16g` (DynamicStringWriter::AppendDouble).
fn g16(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    const P: i32 = 16;
    let sci = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = sci.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("a number");
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-4..P).contains(&exp) {
        trim(format!("{:.*}", (P - 1 - exp) as usize, x))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim(mantissa.to_string()),
            exp.unsigned_abs()
        )
    }
}

/// The args part of one line.
struct Line<'o, 'a> {
    out: &'o mut String,
    args: &'a [(&'a str, Arg<'a>)],
}

impl<'a> Line<'_, 'a> {
    fn find(&self, field: &str) -> Option<Arg<'a>> {
        self.args.iter().find(|(k, _)| *k == field).map(|&(_, v)| v)
    }

    /// ` <field>=<value>` (WriteArgForField with the default writer), or
    /// nothing when the event lacks the field.
    fn arg(&mut self, field: &str) {
        self.arg_as(field, field, |l, v| l.value(v));
    }

    /// ` <label>=` then `write` of the field's value, when present.
    fn arg_as(&mut self, field: &str, label: &str, write: impl FnOnce(&mut Self, Arg)) {
        if let Some(v) = self.find(field) {
            self.key_value(label, v, write);
        }
    }

    fn key_value(&mut self, key: &str, v: Arg, write: impl FnOnce(&mut Self, Arg)) {
        self.out.push(' ');
        self.out.push_str(key);
        self.out.push('=');
        if key == "gfp_flags" {
            let flags = gfp_flags(as_u64(v));
            self.out.push_str(&flags);
        } else {
            write(self, v);
        }
    }

    /// The field's value alone (WriteValueForField), when present.
    fn value_of(&mut self, field: &str, write: impl FnOnce(&mut Self, Arg)) {
        if let Some(v) = self.find(field) {
            write(self, v);
        }
    }

    /// DVW: the value as its type prints.
    fn value(&mut self, v: Arg) {
        let _ = match v {
            Arg::Int(i) => write!(self.out, "{i}"),
            Arg::Uint(u) => write!(self.out, "{u}"),
            Arg::Bool(b) => write!(self.out, "{b}"),
            Arg::Real(x) => write!(self.out, "{}", g16(x)),
            Arg::Str(s) => write!(self.out, "{s}"),
            Arg::Null => write!(self.out, "[NULL]"),
        };
    }

    fn hex(&mut self, v: Arg) {
        let _ = write!(self.out, "{:x}", as_u64(v));
    }

    fn u32_of(&mut self, v: Arg) {
        let _ = write!(self.out, "{}", as_u64(v) as u32);
    }

    /// A kernel function: its symbol, else its address in hex.
    fn kernel_fn(&mut self, v: Arg) {
        match v {
            Arg::Str(_) => self.value(v),
            _ => self.hex(v),
        }
    }

    fn lit(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// A tracing_mark_write-like event's type as one char (its low byte, as the reference's `char` cast).
    /// A byte past ASCII is left out: the reference writes it raw, invalid
    /// UTF-8 that its query results (and so the trace_processor engine)
    /// drop.
    fn type_char(&mut self, v: Arg) {
        let byte = as_u64(v) as u8;
        if byte.is_ascii() {
            self.out.push(byte as char);
        }
    }

    /// `<type>|<pid>|<name>|<value>` of the vendors' tracing_mark_write events.
    fn mark(&mut self, type_field: &str, name_field: &str) {
        self.value_of(type_field, Self::type_char);
        self.lit("|");
        self.value_of("pid", Self::value);
        self.lit("|");
        self.value_of(name_field, Self::value);
        self.lit("|");
        self.value_of("value", Self::value);
    }

    fn i2c(&mut self) {
        self.lit(" i2c-");
        self.value_of("adapter_nr", Self::value);
        self.lit(" #");
        self.value_of("msg_nr", Self::value);
        self.arg_as("addr", "a", |l, v| {
            let _ = write!(l.out, "{:03x}", as_u64(v));
        });
        self.arg_as("flags", "f", |l, v| {
            let _ = write!(l.out, "{:04x}", as_u64(v));
        });
        self.arg_as("len", "l", Self::value);
    }

    fn i2c_buf(&mut self) {
        self.value_of("buf", |l, v| {
            let Arg::Str(s) = v else { return };
            l.lit(" [");
            let hex: Vec<String> = s.bytes().take(64).map(|b| format!("{b:02x}")).collect();
            l.lit(&hex.join("-"));
            l.lit("]");
        });
    }

    fn softirq(&mut self) {
        self.arg("vec");
        self.lit(" [action=");
        self.value_of("vec", |l, v| {
            let vec = as_u64(v);
            match SOFTIRQ_ACTIONS.get(vec as usize) {
                Some(a) => l.lit(a),
                None => {
                    let _ = write!(l.out, "{vec}");
                }
            }
        });
        self.lit("]");
    }

    /// ArgsSerializer::SerializeArgs.
    fn event(&mut self, name: &str) {
        match name {
            "sched_switch" => {
                for f in ["prev_comm", "prev_pid", "prev_prio"] {
                    self.arg(f);
                }
                self.arg_as("prev_state", "prev_state", |l, v| {
                    let state = task_state_str(as_u64(v) as i64, KERNEL, Some('|'));
                    l.lit(state.as_deref().unwrap_or("?"));
                });
                self.lit(" ==>");
                for f in ["next_comm", "next_pid", "next_prio"] {
                    self.arg(f);
                }
            }
            "sched_wakeup" => {
                for f in ["comm", "pid", "prio"] {
                    self.arg(f);
                }
                self.arg_as("target_cpu", "target_cpu", |l, v| {
                    padded(l.out, as_u64(v) as i64, '0', 3)
                });
            }
            "clock_set_rate" | "clock_enable" | "clock_disable" => {
                if name == "clock_set_rate" {
                    self.lit(" ");
                }
                self.value_of("name", Self::value);
                self.arg("state");
                self.arg("cpu_id");
            }
            "clk_set_rate" => {
                self.lit(" ");
                self.value_of("name", Self::value);
                self.lit(" ");
                self.value_of("rate", Self::value);
            }
            "binder_transaction" => {
                self.lit(" transaction=");
                self.value_of("debug_id", Self::u32_of);
                self.lit(" dest_node=");
                self.value_of("target_node", Self::u32_of);
                self.lit(" dest_proc=");
                self.value_of("to_proc", Self::value);
                self.lit(" dest_thread=");
                self.value_of("to_thread", Self::value);
                self.lit(" reply=");
                self.value_of("reply", Self::value);
                self.lit(" flags=0x");
                self.value_of("flags", Self::hex);
                self.lit(" code=0x");
                self.value_of("code", Self::hex);
            }
            "binder_transaction_alloc_buf" => {
                self.lit(" transaction=");
                self.value_of("debug_id", Self::u32_of);
                self.arg("data_size");
                self.arg("offsets_size");
            }
            "binder_transaction_received" => {
                self.lit(" transaction=");
                self.value_of("debug_id", Self::u32_of);
            }
            "mm_filemap_add_to_page_cache" => {
                self.lit(" dev ");
                self.value_of("s_dev", |l, v| {
                    let _ = write!(l.out, "{}", as_u64(v) >> 20);
                });
                self.lit(":");
                self.value_of("s_dev", |l, v| {
                    let _ = write!(l.out, "{}", as_u64(v) & ((1 << 20) - 1));
                });
                self.lit(" ino ");
                self.value_of("i_ino", Self::hex);
                self.lit(" page=0000000000000000 pfn=");
                self.value_of("pfn", Self::value);
                self.lit(" ofs=");
                self.value_of("index", |l, v| {
                    let _ = write!(l.out, "{}", as_u64(v).wrapping_shl(12));
                });
            }
            "print" => {
                self.lit(" ");
                self.value_of("buf", |l, v| {
                    if let Arg::Str(s) = v {
                        l.lit(s.strip_suffix('\n').unwrap_or(s));
                    }
                });
            }
            "sched_blocked_reason" => {
                self.arg("pid");
                self.arg_as("io_wait", "iowait", Self::value);
                self.arg_as("caller", "caller", Self::kernel_fn);
            }
            "workqueue_activate_work" | "workqueue_execute_end" => {
                self.lit(" work struct ");
                self.value_of("work", Self::hex);
            }
            "workqueue_execute_start" => {
                self.lit(" work struct ");
                self.value_of("work", Self::hex);
                self.lit(": function ");
                self.value_of("function", Self::kernel_fn);
            }
            "workqueue_queue_work" => {
                self.lit(" work struct=");
                self.value_of("work", Self::hex);
                self.arg_as("function", "function", Self::kernel_fn);
                // (the workqueue is a string field: trace_processor reads
                // it as an integer and prints its string pool id in hex;
                // here its name, as the kernel's own format)
                self.arg_as("workqueue", "workqueue", Self::value);
                self.value_of("req_cpu", Self::value);
                self.value_of("cpu", Self::value);
            }
            "irq_handler_entry" => {
                self.arg("irq");
                self.arg("name");
            }
            "irq_handler_exit" => {
                self.arg("irq");
                self.lit(" ret=");
                self.value_of("ret", |l, v| {
                    l.lit(if as_u64(v) != 0 {
                        "handled"
                    } else {
                        "unhandled"
                    })
                });
            }
            "softirq_entry" | "softirq_exit" => self.softirq(),
            "tracing_mark_write" => {
                self.value_of("trace_begin", |l, v| {
                    l.lit(if as_u64(v) != 0 { "B" } else { "E" })
                });
                self.lit("|");
                self.value_of("pid", Self::value);
                self.lit("|");
                self.value_of("trace_name", Self::value);
            }
            "dpu_tracing_mark_write" | "panel_write_generic" | "g2d_tracing_mark_write" => {
                self.mark("type", "name")
            }
            "samsung_tracing_mark_write" => self.mark("trace_type", "trace_name"),
            "cgroup_attach_task" => {
                self.arg("dst_root");
                self.arg("dst_id");
                self.arg_as("cname", "cgroup", Self::value);
                for f in ["dst_level", "dst_path", "pid", "comm"] {
                    self.arg(f);
                }
            }
            "hrtimer_expire_entry" => self.arg_as("function", "function", Self::kernel_fn),
            "i2c_write" | "i2c_reply" => {
                self.i2c();
                self.i2c_buf();
            }
            "i2c_read" => self.i2c(),
            "i2c_result" => {
                self.lit(" i2c-");
                self.value_of("adapter_nr", Self::value);
                self.arg_as("nr_msgs", "n", Self::value);
                self.arg_as("ret", "ret", Self::value);
            }
            _ => {
                for &(key, v) in self.args {
                    self.key_value(key, v, |l, v| l.value(v));
                }
            }
        }
    }
}

/// An arg's bits as unsigned (the reference reads its Variadic's union).
fn as_u64(v: Arg) -> u64 {
    match v {
        Arg::Int(i) => i as u64,
        Arg::Uint(u) => u,
        Arg::Bool(b) => b as u64,
        Arg::Real(x) => x.to_bits(),
        Arg::Str(_) | Arg::Null => 0,
    }
}

/// 4.4's GFP flag names, most specific first (types/gfp_flags.cc's v4_4,
/// after the kernel's trace_print_flags_seq()).
type Flags = &'static [(u64, &'static str)];

/// 4.4's reclaim bits: __GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM
const RECLAIM_4_4: u64 = 0x400000 | 0x2000000;

const GFP_4_4: Flags = &[
    (
        (RECLAIM_4_4 | 0x40 | 0x80 | 0x20000 | 0x02 | 0x08 | 0x4000 | 0x10000 | 0x1000 | 0x200)
            & !0x2000000,
        "GFP_TRANSHUGE",
    ),
    (
        RECLAIM_4_4 | 0x40 | 0x80 | 0x20000 | 0x02 | 0x08,
        "GFP_HIGHUSER_MOVABLE",
    ),
    (RECLAIM_4_4 | 0x40 | 0x80 | 0x20000 | 0x02, "GFP_HIGHUSER"),
    (RECLAIM_4_4 | 0x40 | 0x80 | 0x20000, "GFP_USER"),
    (RECLAIM_4_4 | 0x40 | 0x80 | 0x10, "GFP_TEMPORARY"),
    (RECLAIM_4_4 | 0x40 | 0x80, "GFP_KERNEL"),
    (RECLAIM_4_4 | 0x40, "GFP_NOFS"),
    (0x20 | 0x80000 | 0x2000000, "GFP_ATOMIC"),
    (RECLAIM_4_4, "GFP_NOIO"),
    (0x20, "GFP_HIGH"),
    (0x80000, "GFP_ATOMIC"),
    (0x40, "GFP_IO"),
    (0x100, "GFP_COLD"),
    (0x200, "GFP_NOWARN"),
    (0x400, "GFP_REPEAT"),
    (0x800, "GFP_NOFAIL"),
    (0x1000, "GFP_NORETRY"),
    (0x4000, "GFP_COMP"),
    (0x8000, "GFP_ZERO"),
    (0x10000, "GFP_NOMEMALLOC"),
    (0x2000, "GFP_MEMALLOC"),
    (0x20000, "GFP_HARDWALL"),
    (0x40000, "GFP_THISNODE"),
    (0x10, "GFP_RECLAIMABLE"),
    (0x08, "GFP_MOVABLE"),
    (0x200000, "GFP_NOTRACK"),
    (0x400000, "GFP_DIRECT_RECLAIM"),
    (0x2000000, "GFP_KSWAPD_RECLAIM"),
    (0x800000, "GFP_OTHER_NODE"),
];

/// A gfp_flags value as a 4.4 kernel's format prints it (WriteGfpFlag): the
/// names of the masks it holds, most specific first, `|`-joined, then any
/// bits left over in hex.
fn gfp_flags(mut value: u64) -> String {
    if value == 0 {
        return "GFP_NOWAIT".into();
    }
    let mut names: Vec<&str> = Vec::new();
    for &(mask, name) in GFP_4_4 {
        if value & mask == mask {
            value &= !mask;
            names.push(name);
        }
    }
    let mut out = names.join("|");
    if value != 0 {
        if !out.is_empty() {
            out.push('|');
        }
        let _ = write!(out, "0x{value:x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfp_flags_as_the_kernel_prints_them() {
        const RECLAIM: u64 = 0x400000 | 0x2000000;
        assert_eq!(gfp_flags(0), "GFP_NOWAIT");
        // GFP_KERNEL: reclaim | IO | FS
        assert_eq!(gfp_flags(RECLAIM | 0x40 | 0x80), "GFP_KERNEL");
        assert_eq!(
            gfp_flags(RECLAIM | 0x40 | 0x80 | 0x8000),
            "GFP_KERNEL|GFP_ZERO"
        );
        // the composite GFP_ATOMIC before its parts
        assert_eq!(gfp_flags(0x20 | 0x80000 | 0x2000000), "GFP_ATOMIC");
        // a bit no name holds is left over in hex
        assert_eq!(
            gfp_flags(RECLAIM | 0x40 | 0x80 | 0x4000000),
            "GFP_KERNEL|0x4000000"
        );
        assert_eq!(gfp_flags(0x4000000), "0x4000000");
    }

    #[test]
    fn doubles_as_percent_16g() {
        assert_eq!(g16(1.5), "1.5");
        assert_eq!(g16(100.0), "100");
        assert_eq!(g16(0.0001), "0.0001");
        assert_eq!(g16(0.00001), "1e-05");
        assert_eq!(g16(1e16), "1e+16");
        assert_eq!(g16(123456789012345.6), "123456789012345.6");
        assert_eq!(g16(0.1), "0.1");
    }
}
