//! Legacy systrace (HTML) and ftrace / atrace text -> [`Sink`].
//!
//! Mirrors trace_processor's systrace reader (google/perfetto, HEAD ec5d16b
//! era):
//!
//! * `src/trace_processor/importers/systrace/systrace_trace_parser.cc` --
//!   the outer state machine: strip everything up to atrace's `TRACE:\n`
//!   marker (first 64 bytes) and a trace-cmd `cpus=<n>` first line; a buffer
//!   starting with `<` is HTML: only `<script class="trace-data"
//!   type="application/text">` blocks are read, ftrace lines only after the
//!   `# ... TASK-PID` header, up to the first `</script>` after it, and
//!   **nothing after that block** (a later PROCESS DUMP is never read).
//!   `PROCESS DUMP` (long `ps` format) / `USER PID TID CMD` (short) blocks
//!   met before it feed process/thread association. Lines are split on `\n`
//!   only; a final line without `\n` is never parsed. Lines starting with
//!   `#` and empty lines are skipped; lines that do not tokenize count the
//!   stat `systrace_parse_failure`.
//! * `systrace_line_tokenizer.cc` -- its line regex, read by hand: anchor
//!   on the first `[<digits>]` (the CPU), walk back over an optional
//!   `(tgid)` / `(-----)` to `-<pid>` and the task name (trimmed; it may
//!   hold spaces and dashes); then, as its pattern
//!   `\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):` reads them,
//!   the optional irq-flags column, the timestamp and the event name (up to
//!   the last `:` of its word); the rest (trimmed) is the args string. `ts` is
//!   `int64(strtod(ts) * 1e9)` -- truncation, so `538.064659` becomes
//!   `538064658999`; mirrored exactly with f64.
//! * `systrace_line_parser.cc` -- per line: GetOrCreateThread(pid) and name it
//!   with the task at ftrace priority unless the task is `<...>`; when the
//!   TGID column holds a number, `UpdateThread(pid, tgid)`. Args are split on
//!   spaces; `k=v` tokens (split on `=` skipping empties: `a=b=c` ->
//!   `a: c`), bare tokens under key `name`; the first occurrence of a key
//!   wins. Handled events: sched_switch, print/tracing_mark_write/`0`,
//!   sched_waking, cpu_frequency, cpu_frequency_limits, cpu_idle, binder_*,
//!   clock_set_rate, clock_enable/clock_disable, workqueue_execute_start/end,
//!   thermal_temperature, cdev_update, sched_blocked_reason, rss_stat. Every
//!   other event (sched_wakeup, sched_wakeup_new, task_newtask, task_rename,
//!   sched_process_free/exit, devfreq_frequency, clk_set_rate, ...) is ignored
//!   by trace_processor's text reader and is ignored here (one warning).
//!   A handled event whose fields do not parse is dropped without a stat.
//! * `src/trace_processor/types/task_state.cc` -- `prev_state` letters go
//!   through `TaskState::FromSystrace(...).ToRawStateOnlyForSystraceConversions()`:
//!   an int in the **4.4 kernel layout** (`prev_state_to_raw`). Systrace has
//!   no kernel version, so the replay decodes it with its 4.4 default and the
//!   same end_state strings come out (`S`, `R+`, `DK`, `I`...).
//!
//! The decoder only fills the sink: sched_switch / sched_waking, generic ftrace
//! events under the proto field names (print's `buf` goes to the shared atrace
//! tracker), and three packet kinds the replay applies to the process tracker:
//! `ThreadName` (task column), `ThreadTgid` (TGID column) and `SystraceDump`.
//!
//! Works on bytes: every rule is ASCII. Strings are converted at the end:
//! invalid UTF-8 becomes U+FFFD, except in print buffers, where it is dropped
//! (CheckAsciiAndRemoveInvalidUTF8).

use std::collections::{HashMap, HashSet};

use memchr::memmem;

use super::atrace::{parse_print, Parsed};
use super::c_numbers::{
    c_double, c_i32, c_i64, c_u32, c_u32_base, c_u64, is_ws, lstrip, strtol16, U64,
};

use super::sink::Sink;
use crate::events::*;

fn rstrip(s: &[u8]) -> &[u8] {
    let i = s.iter().rev().take_while(|&&b| is_ws(b)).count();
    &s[..s.len() - i]
}

fn strip(s: &[u8]) -> &[u8] {
    rstrip(lstrip(s))
}

/// Invalid UTF-8 -> U+FFFD (Python's "replace").
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Invalid UTF-8 dropped (Python's "ignore"; trace_processor's print buffers).
fn text_drop_invalid(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => b.utf8_chunks().map(|c| c.valid()).collect(),
    }
}

/// One tokenized ftrace text line (SystraceLineTokenizer).
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub task: &'a [u8],
    pub pid: i64,
    pub tgid: &'a [u8],
    pub cpu: i64,
    pub ts: i64,
    pub event: &'a [u8],
    pub args: &'a [u8],
}

/// A digit run as `int(s)` clamped to u64 then cast to u32.
fn digits_u32(s: &[u8]) -> i64 {
    let mut v: u128 = 0;
    for &b in s {
        v = (v * 10 + (b - b'0') as u128).min(U64 + 1);
    }
    (v.min(U64) as u64 & 0xffff_ffff) as i64
}

/// First `[<digits>]`: (start of '[', digits, end after ']').
fn find_cpu(line: &[u8]) -> Option<(usize, &[u8], usize)> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'[', &line[from..]).map(|i| from + i) {
        let n = line[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if n > 0 && line.get(i + 1 + n) == Some(&b']') {
            return Some((i, &line[i + 1..i + 1 + n], i + 2 + n));
        }
        from = i + 1;
    }
    None
}

/// `<digits>.<digits>:` at `p`: (the number, end after ':').
fn ts_at(line: &[u8], p: usize) -> Option<(&[u8], usize)> {
    let digits = |p: usize| line[p..].iter().take_while(|b| b.is_ascii_digit()).count();
    let a = digits(p);
    if a == 0 || line.get(p + a) != Some(&b'.') {
        return None;
    }
    let b = digits(p + a + 1);
    let end = p + a + 1 + b;
    (b > 0 && line.get(end) == Some(&b':')).then(|| (&line[p..end], end + 1))
}

/// After the CPU, trace_processor's pattern
/// `\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):` (an ECMAScript regex:
/// the first alternative that matches wins): the irq-flags column, when
/// present, is 3 letters or dots then one or two hex digits or dots, and a
/// timestamp written right after the flags loses its first digit(s) to them
/// (`....316.196720` is 16.196720 s, as trace_processor reads it).
fn find_ts(line: &[u8], cpu_end: usize) -> Option<(&[u8], usize)> {
    let skip_ws = |mut p: usize| {
        while p < line.len() && is_ws(line[p]) {
            p += 1;
        }
        p
    };
    let p = skip_ws(cpu_end);
    let head = |c: &u8| c.is_ascii_alphabetic() || *c == b'.';
    let tail = |c: &u8| matches!(c, b'0'..=b'9' | b'a'..=b'f' | b'.');
    if line.len() >= p + 4 && line[p..p + 3].iter().all(head) {
        for n in [2, 1] {
            let end = p + 3 + n;
            if line.len() >= end && line[p + 3..end].iter().all(tail) {
                if let Some(found) = ts_at(line, skip_ws(end)) {
                    return Some(found);
                }
            }
        }
    }
    ts_at(line, p)
}

/// Splits one ftrace text line like trace_processor's SystraceLineTokenizer;
/// None where its Tokenize() returns an error.
pub fn tokenize_line(line: &[u8]) -> Option<Line<'_>> {
    let (cpu_at, cpu_digits, cpu_end) = find_cpu(line)?;
    let mut head = rstrip(&line[..cpu_at]);
    let mut tgid: &[u8] = b"";
    if head.last() == Some(&b')') {
        let k = head[..head.len() - 1].iter().rposition(|&b| b == b'(')?;
        tgid = strip(&head[k + 1..head.len() - 1]);
        head = rstrip(&head[..k]);
    }
    let n = head.len() - head.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    if n == head.len() || n == 0 || head[n - 1] != b'-' {
        return None;
    }
    let (ts_text, ts_end) = find_ts(line, cpu_end)?;
    // `:\s+(\S+):` -- at least one space, then the event name: the
    // non-space run up to its last ':' (the pattern's greedy \S+)
    let mut p = ts_end;
    while p < line.len() && is_ws(line[p]) {
        p += 1;
    }
    if p == ts_end {
        return None;
    }
    let ev_start = p;
    let run = line[p..].iter().take_while(|&&b| !is_ws(b)).count();
    p = ev_start
        + line[ev_start..ev_start + run]
            .iter()
            .rposition(|&b| b == b':')?;
    if p == ev_start {
        return None;
    }
    // int(float(ts) * 1e9): truncation, as trace_processor's int64(strtod * 1e9)
    let secs: f64 = std::str::from_utf8(ts_text).ok()?.parse().ok()?;
    if !secs.is_finite() {
        return None;
    }
    Some(Line {
        task: strip(&head[..n - 1]),
        pid: digits_u32(&head[n..]),
        tgid,
        cpu: digits_u32(cpu_digits),
        ts: (secs * 1e9) as i64,
        event: &line[ev_start..p],
        args: strip(&line[p + 1..]),
    })
}

/// SystraceLineParser's args map (first occurrence of a key wins).
struct Args<'a>(Vec<(&'a [u8], &'a [u8])>);

impl<'a> Args<'a> {
    fn parse(args: &'a [u8]) -> Self {
        let mut d: Vec<(&[u8], &[u8])> = Vec::with_capacity(8);
        for tok in args.split(|&b| b == b' ') {
            if tok.is_empty() {
                continue;
            }
            let (key, val): (&[u8], &[u8]) = if !tok.contains(&b'=') {
                (b"name", tok)
            } else {
                let mut parts = tok.split(|&b| b == b'=').filter(|p| !p.is_empty());
                match parts.next() {
                    None => (b"", b""),
                    Some(k) => (k, parts.next_back().unwrap_or(b"")),
                }
            };
            if !d.iter().any(|(k, _)| *k == key) {
                d.push((key, val));
            }
        }
        Args(d)
    }

    fn get(&self, key: &str) -> Option<&'a [u8]> {
        self.0
            .iter()
            .find(|(k, _)| *k == key.as_bytes())
            .map(|(_, v)| *v)
    }

    /// `a.get(key, "")`
    fn s(&self, key: &str) -> &'a [u8] {
        self.get(key).unwrap_or(b"")
    }
}

/// The decoder's view of what the replay's ProcessTracker did to `tid`, so
/// it can leave out names and tgids that would change nothing: after
/// UpdateThread(tid, tgid) (`tgid` Some) or GetOrCreateProcess(tid) (None),
/// tid's thread may be a new one, to be named and associated again.
fn updated_thread(
    assoc: &mut HashMap<i64, i64>,
    cur_name: &mut HashMap<i64, &[u8]>,
    tid: i64,
    tgid: Option<i64>,
) {
    cur_name.remove(&tid);
    match tgid {
        Some(tgid) => {
            assoc.insert(tid, tgid);
            // (its process's main thread, as GetOrCreateProcess)
            if tgid != tid {
                assoc.remove(&tgid);
                cur_name.remove(&tgid);
            }
        }
        None => {
            assoc.remove(&tid);
        }
    }
}

// TaskState::FromSystrace letters -> 4.4-layout raw bits
// (ToRawStateOnlyForSystraceConversions): S D T t X Z keep their bits,
// x=0x40 (TASK_DEAD), K=0x80, W=0x100, P=0x200, N=0x400, I = D|N.
const RAW_INVALID: i64 = 0xffff;
const RAW_PREEMPTED_44: i64 = 0x800;

/// sched_switch `prev_state` text -> the raw int trace_processor stores
/// (4.4 layout; empty or unknown -> 0xffff, as trace_processor).
pub fn prev_state_to_raw(s: &[u8]) -> i64 {
    if s.is_empty() {
        return RAW_INVALID;
    }
    if s[0] == b'R' {
        return if s == b"R+" { RAW_PREEMPTED_44 } else { 0 };
    }
    let mut raw = 0;
    for &c in s {
        raw |= match c {
            b'|' => 0,
            b'S' => 0x1,
            b'D' => 0x2,
            b'T' => 0x4,
            b't' => 0x8,
            b'X' => 0x10,
            b'Z' => 0x20,
            b'x' => 0x40,
            b'K' => 0x80,
            b'W' => 0x100,
            b'P' => 0x200,
            b'N' => 0x400,
            b'I' => 0x402,
            _ => return RAW_INVALID, // includes 'R' and '+' after the first char
        };
    }
    raw
}

/// Events trace_processor's SystraceLineParser handles (others are ignored).
const HANDLED_EVENTS: [&str; 25] = [
    "sched_switch",
    "tracing_mark_write",
    "0",
    "print",
    "sched_waking",
    "cpu_frequency",
    "cpu_frequency_limits",
    "cpu_idle",
    "binder_transaction",
    "binder_transaction_received",
    "binder_command",
    "binder_return",
    "binder_lock",
    "binder_locked",
    "binder_unlock",
    "binder_transaction_alloc_buf",
    "clock_set_rate",
    "clock_enable",
    "clock_disable",
    "workqueue_execute_start",
    "workqueue_execute_end",
    "thermal_temperature",
    "cdev_update",
    "sched_blocked_reason",
    "rss_stat",
];

type Fields = Vec<(&'static str, FieldVal)>;

fn int(v: i64) -> FieldVal {
    FieldVal::Int(v as i128)
}

/// Fields (proto names) of the less common handled events; None = the
/// event's fields do not parse (the event is dropped).
fn other_event(event: &'static str, args: &[u8]) -> Option<Fields> {
    if event == "workqueue_execute_start" {
        let parts: Vec<&[u8]> = memmem::find_iter(args, b"function ")
            .chain(std::iter::once(args.len()))
            .scan(0usize, |start, end| {
                let piece = &args[*start..end];
                *start = end + "function ".len();
                Some(piece)
            })
            .filter(|p| !p.is_empty())
            .collect();
        let f = parts.get(1)?;
        return Some(vec![("function", FieldVal::Str(text(f)))]);
    }
    if event == "workqueue_execute_end" {
        return Some(vec![]);
    }
    let a = Args::parse(args);
    match event {
        "cpu_frequency" | "cpu_idle" => {
            let cpu_id = c_u32(a.s("cpu_id"))?;
            let state = c_double(a.s("state"))?;
            Some(vec![
                ("state", FieldVal::Real(state)),
                ("cpu_id", int(cpu_id)),
            ])
        }
        "cpu_frequency_limits" => {
            let cpu_id = c_u32(a.s("cpu_id"))?;
            let mx = c_double(a.get("max").unwrap_or(a.s("max_freq")));
            let mn = c_double(a.get("min").unwrap_or(a.s("min_freq")));
            if mx.is_none() && mn.is_none() {
                return None;
            }
            let mut f = vec![("cpu_id", int(cpu_id))];
            if let Some(v) = mx {
                f.push(("max_freq", FieldVal::Real(v)));
            }
            if let Some(v) = mn {
                f.push(("min_freq", FieldVal::Real(v)));
            }
            Some(f)
        }
        "clock_set_rate" | "clock_enable" | "clock_disable" => {
            let rate = c_u32(a.s("state"))?;
            let mut f = vec![
                ("name", FieldVal::Str(text(a.s("name")))),
                ("state", int(rate)),
            ];
            if let Some(cpu_id) = c_u32(a.s("cpu_id")) {
                f.push(("cpu_id", int(cpu_id)));
            }
            Some(f)
        }
        "sched_blocked_reason" => {
            let pid = c_u32(a.s("pid"))?;
            let io_wait = c_i32(a.s("iowait"))?;
            Some(vec![
                ("pid", int(pid)),
                ("io_wait", int(io_wait)),
                ("caller", FieldVal::Str(text(a.s("caller")))),
            ])
        }
        "thermal_temperature" => {
            let temp = c_i32(a.s("temp"))?;
            Some(vec![
                ("thermal_zone", FieldVal::Str(text(a.s("thermal_zone")))),
                ("temp", int(temp)),
            ])
        }
        "cdev_update" => {
            let target = c_double(a.s("target"))?;
            Some(vec![
                ("type", FieldVal::Str(text(a.s("type")))),
                ("target", FieldVal::Real(target)),
            ])
        }
        "rss_stat" => {
            let size = c_i64(a.s("size"))?;
            let member = c_u32(a.s("member"))?;
            let mut f = vec![("size", int(size)), ("member", int(member))];
            if let Some(mm_id) = a.get("mm_id").and_then(c_i64) {
                f.push(("mm_id", int(mm_id)));
            }
            // trace_processor's text reader never passes `curr` (inverted check).
            Some(f)
        }
        _ => binder(event, &a),
    }
}

/// binder_* text fields -> BinderTracker inputs under proto field names
/// (as trace_processor's systrace_line_parser.cc reads them).
fn binder(event: &str, a: &Args<'_>) -> Option<Fields> {
    match event {
        "binder_transaction" => {
            let tid = c_i32(a.s("transaction"))?;
            let node = c_i32(a.s("dest_node"))?;
            let proc_ = c_u32(a.s("dest_proc"))?;
            let thread = c_u32(a.s("dest_thread"))?;
            let reply = c_i32(a.s("reply"))?;
            Some(vec![
                ("debug_id", int(tid)),
                ("target_node", int(node)),
                ("to_proc", int(proc_)),
                ("to_thread", int(thread)),
                ("reply", int((reply == 1) as i64)),
                ("flags", int(strtol16(a.s("flags")))),
                ("code", FieldVal::Str(text(a.s("code")))),
            ])
        }
        "binder_transaction_received" => Some(vec![("debug_id", int(c_i32(a.s("transaction"))?))]),
        "binder_command" | "binder_return" => {
            Some(vec![("cmd", int(c_u32_base(a.s("cmd"), true)?))])
        }
        "binder_lock" | "binder_locked" | "binder_unlock" => Some(vec![]),
        "binder_transaction_alloc_buf" => {
            let ds = c_u64(a.s("data_size"))?;
            let os = c_u64(a.s("offsets_size"))?;
            Some(vec![
                ("data_size", FieldVal::Int(ds)),
                ("offsets_size", FieldVal::Int(os)),
            ])
        }
        _ => None,
    }
}

// -- the decoder -------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    HtmlBefore,
    TraceData,
    Systrace,
    PdLong,
    PdShort,
    Cgroup,
    End,
}

const TRACE_DATA_SECTION: &[u8] = b"<script class=\"trace-data\" type=\"application/text\">";

/// The text is not time-ordered: redo without the name/tgid filter.
struct Unsorted;

/// Decodes systrace HTML / ftrace text into a new sink; returns it and the
/// number of ftrace lines read.
pub fn decode_systrace(data: &[u8]) -> (Sink, usize) {
    // trace_processor's systrace reader pushes every line into one stream
    let new_sink = || Sink {
        single_stream: true,
        ..Sink::default()
    };
    let mut sink = new_sink();
    match decode(data, &mut sink, true) {
        Ok(n) => (sink, n),
        Err(Unsorted) => {
            let mut sink = new_sink();
            let n = decode(data, &mut sink, false).unwrap_or(0);
            (sink, n)
        }
    }
}

/// The byte offset of the `n`th char of `data` decoded as Python's
/// surrogateescape does (an invalid byte is one char).
fn char_offset(data: &[u8], n: usize) -> usize {
    let (mut chars, mut off) = (0, 0);
    for chunk in data.utf8_chunks() {
        for c in chunk.valid().chars() {
            if chars == n {
                return off;
            }
            chars += 1;
            off += c.len_utf8();
        }
        for _ in chunk.invalid() {
            if chars == n {
                return off;
            }
            chars += 1;
            off += 1;
        }
    }
    off
}

/// SystraceTraceParser::Parse, state kBeforeParse.
fn strip_preamble(mut text: &[u8]) -> &[u8] {
    let look = char_offset(&text[..text.len().min(64 * 4)], 64);
    if let Some(i) = memmem::find(&text[..look], b"TRACE:\n") {
        text = &text[i + 7..];
    }
    if let Some(nl) = memchr::memchr(b'\n', text) {
        let first = &text[..nl];
        if first.starts_with(b"cpus=") && first[5..].iter().all(|b| b.is_ascii_digit()) {
            text = &text[nl + 1..];
        }
    }
    text
}

type DumpProc = (i64, i64, String);
type DumpThread = (i64, i64, String);

fn flush_dump(sink: &mut Sink, dump: Option<(Vec<DumpProc>, Vec<DumpThread>)>) {
    if let Some((processes, threads)) = dump {
        if !processes.is_empty() || !threads.is_empty() {
            sink.push_packet(0, PacketData::SystraceDump { processes, threads });
        }
    }
}

/// Python's repr() of the first 80 chars of a line (warnings only).
fn py_repr80(b: &[u8]) -> String {
    let mut chars: Vec<Result<char, u8>> = Vec::new();
    'outer: for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            if chars.len() == 80 {
                break 'outer;
            }
            chars.push(Ok(c));
        }
        for &x in chunk.invalid() {
            if chars.len() == 80 {
                break 'outer;
            }
            chars.push(Err(x));
        }
    }
    let has = |q: char| chars.contains(&Ok(q));
    let quote = if has('\'') && !has('"') { '"' } else { '\'' };
    let mut out = String::from(quote);
    for c in chars {
        match c {
            Err(x) => out += &format!("\\udc{x:02x}"),
            Ok('\\') => out += "\\\\",
            Ok('\t') => out += "\\t",
            Ok('\n') => out += "\\n",
            Ok('\r') => out += "\\r",
            Ok(c) if c == quote => {
                out.push('\\');
                out.push(c)
            }
            Ok(c) if (c as u32) < 0x20 || (0x7f..=0xa0).contains(&(c as u32)) || c == '\u{ad}' => {
                out += &format!("\\x{:02x}", c as u32)
            }
            Ok(c) => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Counter.most_common(): by count descending, first seen first on ties.
fn most_common(c: &[(&[u8], usize)]) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = c.iter().map(|(k, n)| (text(k), *n)).collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.1)); // stable: first seen first
    v
}

fn count(c: &mut Vec<(&'static str, usize)>, k: &'static str) {
    match c.iter_mut().find(|(n, _)| *n == k) {
        Some(e) => e.1 += 1,
        None => c.push((k, 1)),
    }
}

fn decode(data: &[u8], sink: &mut Sink, dedupe: bool) -> Result<usize, Unsorted> {
    let body = strip_preamble(data);
    if body.is_empty() {
        sink.warnings.push("systrace: no ftrace data found".into());
        return Ok(0);
    }
    let mut state = if body[0] == b'<' {
        State::HtmlBefore
    } else {
        State::Systrace
    };
    // a final line without '\n' is never parsed (as trace_processor)
    let (lines_end, tail) = match memchr::memrchr(b'\n', body) {
        Some(i) => (i + 1, &body[i + 1..]),
        None => (0, body),
    };
    let script_end = memmem::Finder::new(b"</script>");
    let trace_data = memmem::Finder::new(TRACE_DATA_SECTION);

    let mut seen: HashSet<i64> = HashSet::new(); // tids given a thread
    let mut cur_name: HashMap<i64, &[u8]> = HashMap::new(); // last ftrace name
    let mut assoc: HashMap<i64, i64> = HashMap::new(); // last tgid per tid
    let mut ignored: Vec<(&[u8], usize)> = Vec::new();
    let mut ignored_at: HashMap<&[u8], usize> = HashMap::new();
    let mut bad_fields: Vec<(&'static str, usize)> = Vec::new();
    let mut n_malformed = 0usize;
    let mut first_malformed: Option<&[u8]> = None;
    let mut n_lines = 0usize;
    let mut last_ts = i64::MIN;
    let mut dump: Option<(Vec<DumpProc>, Vec<DumpThread>)> = None;
    let mut dump_errors = 0usize;

    for line in body[..lines_end.saturating_sub(1)].split(|&b| b == b'\n') {
        if lines_end == 0 {
            break;
        }
        match state {
            State::Systrace => {
                if script_end.find(line).is_some() {
                    state = State::End;
                    break;
                }
                if line.is_empty() || line[0] == b'#' {
                    continue;
                }
                let Some(tl) = tokenize_line(line) else {
                    n_malformed += 1;
                    first_malformed.get_or_insert(line);
                    sink.stats.add("systrace_parse_failure", 1, None);
                    continue;
                };
                let (pid, ts, cpu) = (tl.pid, tl.ts, tl.cpu);
                n_lines += 1;
                if ts < last_ts && dedupe {
                    return Err(Unsorted);
                }
                last_ts = ts;

                // -- SystraceLineParser::ParseLine prologue ----------------
                let name = (tl.task != b"<...>").then_some(tl.task);
                let emit_name = if !dedupe {
                    true
                } else if let Some(nm) = name {
                    if cur_name.get(&pid) != Some(&nm) {
                        seen.insert(pid);
                        cur_name.insert(pid, nm);
                        true
                    } else {
                        false
                    }
                } else {
                    seen.insert(pid)
                };
                if emit_name {
                    sink.push_packet(
                        ts,
                        PacketData::ThreadName {
                            tid: pid,
                            name: name.map(text),
                        },
                    );
                }
                let mut tgid_update = None;
                if !tl.tgid.is_empty() && tl.tgid != b"-----" {
                    if let Some(tgid) = c_u32(tl.tgid) {
                        if assoc.get(&pid) != Some(&tgid) || !dedupe {
                            tgid_update = Some(PacketData::ThreadTgid { tid: pid, tgid });
                            updated_thread(&mut assoc, &mut cur_name, pid, Some(tgid));
                        }
                    }
                }
                // workqueue slices go on the thread the line's pid named
                // before its tgid was applied (ParseLine's prologue `utid`):
                // their event goes first (events of one ts replay in order).
                // A waking's waker is that thread too, but its wakee is
                // looked up after: it stays after (see engine-core/README)
                let before_tgid = tl.event.starts_with(b"workqueue_execute_");
                if !before_tgid {
                    if let Some(update) = tgid_update.take() {
                        sink.push_packet(ts, update);
                    }
                }

                // -- events ---------------------------------------------------
                let Some(&event) = HANDLED_EVENTS.iter().find(|e| e.as_bytes() == tl.event) else {
                    match ignored_at.get(tl.event) {
                        Some(&i) => ignored[i].1 += 1,
                        None => {
                            ignored_at.insert(tl.event, ignored.len());
                            ignored.push((tl.event, 1));
                        }
                    }
                    continue;
                };
                let args = tl.args;
                match event {
                    "sched_switch" => {
                        let a = Args::parse(args);
                        let (Some(prev_pid), Some(prev_prio), Some(next_pid), Some(next_prio)) = (
                            c_u32(a.s("prev_pid")),
                            c_i32(a.s("prev_prio")),
                            c_u32(a.s("next_pid")),
                            c_i32(a.s("next_prio")),
                        ) else {
                            count(&mut bad_fields, event);
                            continue;
                        };
                        let (prev_comm, next_comm) = (a.s("prev_comm"), a.s("next_comm"));
                        let sw = Switch {
                            ts,
                            cpu,
                            compact: false,
                            prev_pid,
                            prev_comm: sink.strings.intern(&text(prev_comm)),
                            prev_prio,
                            prev_state: prev_state_to_raw(a.s("prev_state")),
                            next_pid,
                            next_comm: sink.strings.intern(&text(next_comm)),
                            next_prio,
                        };
                        sink.push_switch(sw);
                        seen.insert(prev_pid);
                        seen.insert(next_pid);
                        // (PushSchedSwitch names next, then prev: for one
                        // tid, prev_comm is its name after)
                        cur_name.insert(next_pid, next_comm);
                        cur_name.insert(prev_pid, prev_comm);
                    }
                    "tracing_mark_write" | "print" | "0" => {
                        let buf = text_drop_invalid(args);
                        // An atrace point names its tgid's process (which
                        // may start its main thread); B, I and E also tie
                        // pid to it (UpdateThread), which may start a new
                        // utid: the names and tgids sent after follow them
                        if let Parsed::Point(p) = parse_print(&buf) {
                            let tgid = p.tgid as i64;
                            if tgid != 0 {
                                updated_thread(&mut assoc, &mut cur_name, tgid, None);
                                if matches!(p.phase, 'B' | 'I' | 'E') {
                                    updated_thread(&mut assoc, &mut cur_name, pid, Some(tgid));
                                }
                            }
                        }
                        sink.push_ftrace(FtraceEv {
                            ts,
                            raw_ts: ts,
                            cpu,
                            pid,
                            name: "print",
                            fields: vec![("buf", FieldVal::Str(buf))],
                            generic: false,
                        });
                    }
                    "sched_waking" => {
                        let a = Args::parse(args);
                        let Some(wakee) = c_u32(a.s("pid")) else {
                            count(&mut bad_fields, event);
                            continue;
                        };
                        let comm = a.s("comm");
                        let comm_id = sink.strings.intern(&text(comm));
                        sink.push_waking(Waking {
                            ts,
                            cpu,
                            compact: false,
                            pid: Some(pid),
                            wakee_pid: wakee,
                            comm: comm_id,
                            // no raw rows from text: its args are not kept
                            prio: 0,
                            target_cpu: 0,
                            success: 0,
                            present: 0,
                        });
                        seen.insert(wakee);
                        cur_name.insert(wakee, comm);
                    }
                    _ => match other_event(event, args) {
                        Some(fields) => sink.push_ftrace(FtraceEv {
                            ts,
                            raw_ts: ts,
                            cpu,
                            pid,
                            name: event,
                            fields,
                            generic: false,
                        }),
                        None => count(&mut bad_fields, event),
                    },
                }
                if let Some(update) = tgid_update {
                    sink.push_packet(ts, update);
                }
            }
            State::HtmlBefore => {
                if trace_data.find(line).is_some() {
                    state = State::TraceData;
                }
            }
            State::TraceData => {
                if line.starts_with(b"#") && memmem::find(line, b"TASK-PID").is_some() {
                    state = State::Systrace;
                } else if line.starts_with(b"PROCESS DUMP") {
                    state = State::PdLong;
                    dump = Some((Vec::new(), Vec::new()));
                } else if line.starts_with(b"CGROUP DUMP") {
                    state = State::Cgroup;
                } else if script_end.find(line).is_some() {
                    state = State::HtmlBefore;
                }
            }
            State::PdLong | State::PdShort => {
                if script_end.find(line).is_some() {
                    state = State::HtmlBefore;
                    flush_dump(sink, dump.take());
                    continue;
                }
                // tokens: runs of non-space bytes, with their offsets
                let mut toks: Vec<(usize, &[u8])> = Vec::new();
                let mut i = 0;
                while i < line.len() {
                    if line[i] == b' ' {
                        i += 1;
                        continue;
                    }
                    let n = line[i..].iter().take_while(|&&b| b != b' ').count();
                    toks.push((i, &line[i..i + n]));
                    i += n;
                }
                let words: Vec<&[u8]> = toks.iter().map(|t| t.1).collect();
                let Some((procs, threads)) = dump.as_mut() else {
                    continue;
                };
                if words == [&b"USER"[..], b"PID", b"TID", b"CMD"] {
                    state = State::PdShort;
                } else if words.len() > 4 && words[..4] == [&b"USER"[..], b"PID", b"PPID", b"VSZ"] {
                    state = State::PdLong;
                } else if state == State::PdLong && words.len() >= 10 {
                    // user pid ppid vsz rss wchan pc s name cmd...
                    match (c_u32(words[1]), c_u32(words[2])) {
                        (Some(p), Some(pp)) => procs.push((p, pp, text(words[8]))),
                        _ => dump_errors += 1,
                    }
                } else if state == State::PdShort && words.len() >= 4 {
                    // user pid(tgid) tid cmd...
                    match (c_u32(words[1]), c_u32(words[2])) {
                        (Some(tg), Some(tid)) => threads.push((tid, tg, text(&line[toks[3].0..]))),
                        _ => dump_errors += 1,
                    }
                }
            }
            State::Cgroup => {
                if script_end.find(line).is_some() {
                    state = State::HtmlBefore;
                }
            }
            State::End => unreachable!("the loop stops at End"),
        }
    }
    flush_dump(sink, dump);

    // -- warnings ------------------------------------------------------------
    let w = &mut sink.warnings;
    if state == State::Systrace && !tail.is_empty() && !tail.starts_with(b"#") {
        w.push(
            "systrace: the last line has no newline and was not imported \
             (as in trace_processor)"
                .into(),
        );
    }
    if n_lines == 0 {
        w.push("systrace: no ftrace events found".into());
    }
    if !ignored.is_empty() {
        let total: usize = ignored.iter().map(|e| e.1).sum();
        let top = most_common(&ignored);
        let list: Vec<String> = top
            .iter()
            .take(8)
            .map(|(k, v)| format!("{k} x{v}"))
            .collect();
        let more = if ignored.len() > 8 {
            format!(", +{} more types", ignored.len() - 8)
        } else {
            String::new()
        };
        w.push(format!(
            "systrace: ignored {total} event(s) of {} type(s) that trace_processor does not \
             import from text: {}{more}",
            ignored.len(),
            list.join(", ")
        ));
    }
    if n_malformed > 0 {
        w.push(format!(
            "systrace: skipped {n_malformed} malformed line(s) (stat systrace_parse_failure); \
             first: {}",
            py_repr80(first_malformed.unwrap_or(b""))
        ));
    }
    if !bad_fields.is_empty() {
        let bad: Vec<(&[u8], usize)> = bad_fields.iter().map(|(k, n)| (k.as_bytes(), *n)).collect();
        let list: Vec<String> = most_common(&bad)
            .iter()
            .map(|(k, v)| format!("{k} x{v}"))
            .collect();
        w.push(format!(
            "systrace: dropped {} event(s) whose fields did not parse: {}",
            bad.iter().map(|e| e.1).sum::<usize>(),
            list.join(", ")
        ));
    }
    if dump_errors > 0 {
        w.push(format!(
            "systrace: skipped {dump_errors} unparseable PROCESS DUMP line(s) \
             (trace_processor rejects the whole trace on these)"
        ));
    }
    Ok(n_lines)
}
