"""Legacy systrace (HTML) and ftrace/atrace text -> :class:`EventSink`.

Mirrors trace_processor's systrace reader (google/perfetto, HEAD ec5d16b era):

* ``src/trace_processor/importers/systrace/systrace_trace_parser.cc`` --
  the outer state machine: strip everything up to atrace's ``TRACE:\\n``
  marker (first 64 bytes) and a trace-cmd ``cpus=<n>`` first line; a buffer
  starting with ``<`` is HTML: only ``<script class="trace-data"
  type="application/text">`` blocks are read, ftrace lines only after the
  ``# ... TASK-PID`` header, up to the first ``</script>`` after it, and
  **nothing after that block** (a later PROCESS DUMP is never read).
  ``PROCESS DUMP`` (long ``ps`` format) / ``USER PID TID CMD`` (short) blocks
  met before it feed process/thread association. Lines are split on ``\\n``
  only; a final line without ``\\n`` is never parsed. Lines starting with
  ``#`` and empty lines are skipped; lines that do not tokenize count the
  stat ``systrace_parse_failure``.
* ``systrace_line_tokenizer.cc`` -- the newest (non-regex) tokenizer: anchor
  on the first ``[<digits>]`` (the CPU), walk back over an optional
  ``(tgid)`` / ``(-----)`` to ``-<pid>`` and the task name (trimmed; it may
  hold spaces and dashes), walk forward to the first ``<digits>.<digits>:``
  (the timestamp; the irq-flags column may be absent), then the event name
  up to ``:``; the rest (trimmed) is the args string. ``ts`` is
  ``int64(strtod(ts) * 1e9)`` -- truncation, so ``538.064659`` becomes
  ``538064658999``; mirrored exactly with Python floats.
* ``systrace_line_parser.cc`` -- per line: GetOrCreateThread(pid) and name it
  with the task at ftrace priority unless the task is ``<...>``; when the
  TGID column holds a number, ``UpdateThread(pid, tgid)``. Args are split on
  spaces; ``k=v`` tokens (split on ``=`` skipping empties: ``a=b=c`` ->
  ``a: c``), bare tokens under key ``name``; the first occurrence of a key
  wins. Handled events: sched_switch, print/tracing_mark_write/``0``,
  sched_waking, cpu_frequency, cpu_frequency_limits, cpu_idle, binder_*,
  clock_set_rate, clock_enable/clock_disable, workqueue_execute_start/end,
  thermal_temperature, cdev_update, sched_blocked_reason, rss_stat. Every
  other event (sched_wakeup, sched_wakeup_new, task_newtask, task_rename,
  sched_process_free/exit, devfreq_frequency, clk_set_rate, ...) is ignored
  by trace_processor's text reader and is ignored here (one warning).
  A handled event whose fields do not parse is dropped without a stat.
* ``src/trace_processor/types/task_state.cc`` -- ``prev_state`` letters go
  through ``TaskState::FromSystrace(...).ToRawStateOnlyForSystraceConversions()``:
  an int in the **4.4 kernel layout** (``prev_state_to_raw``). Systrace has
  no kernel version, so tables.py decodes it with its 4.4 default and the
  same end_state strings come out (``S``, ``R+``, ``DK``, ``I``...).

Output (decoders only fill the sink; tables.py owns semantics):

* ``sink.sched_switch`` / ``sink.sched_waking`` for those events
  (waking ``prio``/``target_cpu`` default to 0 when absent: unused by TP).
* ``sink.ftrace_event(ts, cpu, pid, name, fields)`` with proto field names:
  ``print {buf}`` (for all three print spellings), ``cpu_frequency {state,
  cpu_id}``, ``cpu_idle {state, cpu_id}``, ``cpu_frequency_limits {cpu_id,
  max_freq?, min_freq?}`` (a key is absent when the text lacks it: TP then
  pushes only the other), ``clock_set_rate|clock_enable|clock_disable {name,
  state, cpu_id?}``, ``sched_blocked_reason {pid, io_wait, caller(str)}``,
  ``thermal_temperature {thermal_zone, temp}``, ``cdev_update {type, target}``,
  ``workqueue_execute_start {function(str)}``, ``workqueue_execute_end {}``,
  ``rss_stat {size, member, mm_id?}``, binder_* (see ``_binder``).
  Numeric states are ints when integral (TP's text reader parses them as
  doubles; counters are REAL either way).
* packets, in line order and before the line's event:
  ``thread_name {tid, name|None}`` -- GetOrCreateThread(tid) and, when name
  is not None, set its name at ftrace priority (NOT in events.py's list yet;
  see the report). Emitted when the thread is first seen or its name
  differs from the last ftrace-priority name this decoder gave it (task
  column, sched_switch comms, sched_waking comm) -- a no-op filter as long
  as the file is time-sorted; unsorted input is re-decoded unfiltered.
  ``thread_tgid {tid, tgid}`` -- ProcessTracker::UpdateThread(tid, tgid);
  emitted when the TGID column differs from the last association seen.
  ``process_tree`` -- one per PROCESS DUMP block, ts 0 (TP applies it at
  tokenize time, before every sorted event), see ``_flush_dump``.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any, NamedTuple

from artscope.engines.embedded.events import EventSink

_WS = " \t\n\v\f\r"  # C isspace() in the "C" locale
_U64 = (1 << 64) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

_CPU_RE = re.compile(r"\[([0-9]+)\]")
_TS_RE = re.compile(r"([0-9]+\.[0-9]+):")
_EV_RE = re.compile(r"[ \t\n\v\f\r]*([^: \t\n\v\f\r]*):")

_TRACE_DATA_SECTION = '<script class="trace-data" type="application/text">'


class SystraceLine(NamedTuple):
    task: str
    pid: int
    tgid_str: str
    cpu: int
    ts: int
    event: str
    args: str


def tokenize_line(line: str) -> SystraceLine | None:
    """Split one ftrace text line like trace_processor's SystraceLineTokenizer.

    Returns None where trace_processor's Tokenize() returns an error.
    """
    m = _CPU_RE.search(line)
    if m is None:
        return None
    head = line[: m.start()].rstrip(_WS)
    tgid = ""
    if head.endswith(")"):
        k = head.rfind("(", 0, len(head) - 1)
        if k < 0:
            return None
        tgid = head[k + 1 : -1].strip(_WS)
        head = head[:k].rstrip(_WS)
    h2 = head.rstrip("0123456789")
    n = len(h2)
    if n == len(head) or n == 0 or h2[-1] != "-":
        return None
    t = _TS_RE.search(line, m.end())
    if t is None:
        return None
    e = _EV_RE.match(line, t.end())
    if e is None:
        return None
    try:
        ts = int(float(t.group(1)) * 1e9)
    except OverflowError:
        return None
    return SystraceLine(
        h2[:-1].strip(_WS),
        _digits_u32(head[n:]),
        tgid,
        _digits_u32(m.group(1)),
        ts,
        e.group(1),
        line[e.end():].strip(_WS),
    )


def parse_args(args: str) -> dict[str, str]:
    """SystraceLineParser's args map (first occurrence of a key wins)."""
    d: dict[str, str] = {}
    for tok in args.split(" "):
        if not tok:
            continue
        if "=" not in tok:
            if "name" not in d:
                d["name"] = tok
            continue
        parts = [p for p in tok.split("=") if p]
        if not parts:
            key, val = "", ""
        else:
            key = parts[0]
            val = parts[-1] if len(parts) > 1 else ""
        if key not in d:
            d[key] = val
    return d


# TaskState::FromSystrace letters -> 4.4-layout raw bits
# (ToRawStateOnlyForSystraceConversions): S D T t X Z keep their bits,
# x=0x40 (TASK_DEAD), K=0x80, W=0x100, P=0x200, N=0x400, I = D|N.
_STATE_BITS = {
    "S": 0x1, "D": 0x2, "T": 0x4, "t": 0x8, "X": 0x10, "Z": 0x20,
    "x": 0x40, "K": 0x80, "W": 0x100, "P": 0x200, "N": 0x400, "I": 0x402,
}
_RAW_INVALID = 0xFFFF
_RAW_PREEMPTED_44 = 0x800


def prev_state_to_raw(s: str) -> int:
    """sched_switch ``prev_state`` text -> the raw int trace_processor stores.

    4.4 layout; decoding it with the 4.4 (default) rules gives back the
    letters (``D|K`` -> ``DK``). An empty or unknown string gives 0xffff,
    exactly as trace_processor (whose 4.4 decoding then yields ``SDT``).
    """
    if not s:
        return _RAW_INVALID
    if s[0] == "R":
        return _RAW_PREEMPTED_44 if s == "R+" else 0
    raw = 0
    for c in s:
        if c == "|":
            continue
        bit = _STATE_BITS.get(c)
        if bit is None:  # includes 'R' and '+' after the first char
            return _RAW_INVALID
        raw |= bit
    return raw


# -- C number parsing, as perfetto/ext/base/string_utils.h (strtoul & co.) ----

_INT10_RE = re.compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)\Z")
_INT0_RE = re.compile(
    r"[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\Z"
)
_INT16_RE = re.compile(r"[ \t\n\v\f\r]*([+-]?)(?:0[xX])?([0-9a-fA-F]+)")
_DBL_RE = re.compile(
    r"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|(?i:inf(?:inity)?|nan))\Z"
)
_HEXDBL_RE = re.compile(
    r"[ \t\n\v\f\r]*([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
    r"(?:[pP][+-]?[0-9]+)?)\Z"
)


def _digits_u32(s: str) -> int:
    v = int(s)
    return (_U64 if v > _U64 else v) & 0xFFFFFFFF


def _parse_int(s: str, base: int) -> tuple[bool, int] | None:
    m = (_INT10_RE if base == 10 else _INT0_RE).match(s)
    if m is None:
        return None
    digits = m.group(2)
    if base == 10:
        v = int(digits)
    elif digits[:2] in ("0x", "0X"):
        v = int(digits[2:], 16)
    elif len(digits) > 1 and digits[0] == "0":
        v = int(digits, 8)
    else:
        v = int(digits)
    return m.group(1) == "-", v


def c_u32(s: str, base: int = 10) -> int | None:
    """base::StringToUInt32: strtoul (wraps negatives, saturates), cast to u32."""
    r = _parse_int(s, base)
    if r is None:
        return None
    neg, v = r
    if v > _U64:
        v = _U64
    elif neg:
        v = (-v) & _U64
    return v & 0xFFFFFFFF


def c_u64(s: str) -> int | None:
    r = _parse_int(s, 10)
    if r is None:
        return None
    neg, v = r
    if v > _U64:
        return _U64
    return (-v) & _U64 if neg else v


def c_i64(s: str) -> int | None:
    r = _parse_int(s, 10)
    if r is None:
        return None
    neg, v = r
    v = -v if neg else v
    return min(max(v, _I64_MIN), _I64_MAX)


def c_i32(s: str) -> int | None:
    """base::StringToInt32: strtol (saturating long), cast to int32."""
    v = c_i64(s)
    if v is None:
        return None
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= (1 << 31) else v


def c_double(s: str) -> float | None:
    """base::StringToDouble: strtod, whole string consumed."""
    if _DBL_RE.match(s):
        return float(s.strip(_WS))
    m = _HEXDBL_RE.match(s)
    if m:
        return float.fromhex(m.group(1))
    return None


def _num(v: float) -> int | float:
    return int(v) if v == v and v not in (float("inf"), float("-inf")) and v.is_integer() else v


def _strtol16(s: str) -> int:
    """strtol(s, &end, 16) without validation (binder flags)."""
    m = _INT16_RE.match(s)
    if m is None:
        return 0
    v = int(m.group(2), 16)
    v = -v if m.group(1) == "-" else v
    v = min(max(v, _I64_MIN), _I64_MAX)
    return v & 0xFFFFFFFF


# -- the decoder -------------------------------------------------------------

_HTML_BEFORE, _TRACE_DATA, _SYSTRACE, _PD_LONG, _PD_SHORT, _CGROUP, _END = range(7)

#: Events trace_processor's SystraceLineParser handles (anything else is ignored).
HANDLED_EVENTS = frozenset({
    "sched_switch", "tracing_mark_write", "0", "print", "sched_waking",
    "cpu_frequency", "cpu_frequency_limits", "cpu_idle",
    "binder_transaction", "binder_transaction_received", "binder_command",
    "binder_return", "binder_lock", "binder_locked", "binder_unlock",
    "binder_transaction_alloc_buf", "clock_set_rate", "clock_enable",
    "clock_disable", "workqueue_execute_start", "workqueue_execute_end",
    "thermal_temperature", "cdev_update", "sched_blocked_reason", "rss_stat",
})


class _Unsorted(Exception):
    """The text is not time-ordered: redo without the name/tgid filter."""


def decode_systrace(data: bytes, sink: EventSink) -> None:
    """Decode systrace HTML / ftrace text ``data`` into ``sink``."""
    try:
        text = data.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        bad_utf8 = True
    tmp = EventSink()
    try:
        _decode(text, tmp, dedupe=True)
    except _Unsorted:
        tmp = EventSink()
        _decode(text, tmp, dedupe=False)
    if bad_utf8:
        _fix_strings(tmp)
    _merge(sink, tmp)


def _strip_preamble(text: str) -> str:
    # SystraceTraceParser::Parse, state kBeforeParse.
    i = text.find("TRACE:\n", 0, 64)
    if i >= 0:
        text = text[i + 7:]
    nl = text.find("\n")
    if nl >= 0:
        first = text[:nl]
        if first.startswith("cpus=") and all(c in "0123456789" for c in first[5:]):
            text = text[nl + 1:]
    return text


def _decode(text: str, sink: EventSink, dedupe: bool) -> None:
    text = _strip_preamble(text)
    if not text:
        sink.warnings.append("systrace: no ftrace data found")
        return
    state = _HTML_BEFORE if text[0] == "<" else _SYSTRACE
    lines = text.split("\n")
    tail = lines.pop()  # never newline-terminated: trace_processor drops it

    add_stat = sink.add_stat
    sched_switch = sink.sched_switch
    sched_waking = sink.sched_waking
    ftrace_event = sink.ftrace_event
    packet = sink.packet
    tokenize = tokenize_line
    pargs = parse_args
    to_raw = prev_state_to_raw

    seen: set[int] = set()  # tids this decoder created a thread for
    cur_name: dict[int, str] = {}  # last ftrace-priority name per tid
    assoc: dict[int, int] = {}  # last tgid association per tid
    ignored: Counter[str] = Counter()
    bad_fields: Counter[str] = Counter()
    n_malformed = 0
    first_malformed = None
    n_lines = 0
    last_ts = -(1 << 63)
    dump: dict[str, list[dict[str, Any]]] | None = None
    dump_errors = 0

    for line in lines:
        if state == _SYSTRACE:
            if "</script>" in line:
                state = _END
                break
            if not line or line[0] == "#":
                continue
            tl = tokenize(line)
            if tl is None:
                n_malformed += 1
                if first_malformed is None:
                    first_malformed = line
                add_stat("systrace_parse_failure")
                continue
            task, pid, tgid_str, cpu, ts, event, args = tl
            n_lines += 1
            if ts < last_ts and dedupe:
                raise _Unsorted
            last_ts = ts

            # -- SystraceLineParser::ParseLine prologue --------------------
            name = None if task == "<...>" else task
            if not dedupe:
                packet(ts, "thread_name", {"tid": pid, "name": name})
            elif name is None:
                if pid not in seen:
                    seen.add(pid)
                    packet(ts, "thread_name", {"tid": pid, "name": None})
            elif cur_name.get(pid) != name:
                seen.add(pid)
                cur_name[pid] = name
                packet(ts, "thread_name", {"tid": pid, "name": name})
            if tgid_str and tgid_str != "-----":
                tgid = c_u32(tgid_str)
                if tgid is not None:
                    old = assoc.get(pid)
                    if old != tgid or not dedupe:
                        packet(ts, "thread_tgid", {"tid": pid, "tgid": tgid})
                        assoc[pid] = tgid
                        if old is not None and old != tgid:
                            # UpdateThread may start a new utid: name it again.
                            cur_name.pop(pid, None)

            # -- events -----------------------------------------------------
            if event == "sched_switch":
                a = pargs(args)
                prev_pid = c_u32(a.get("prev_pid", ""))
                prev_prio = c_i32(a.get("prev_prio", ""))
                next_pid = c_u32(a.get("next_pid", ""))
                next_prio = c_i32(a.get("next_prio", ""))
                if prev_pid is None or prev_prio is None or next_pid is None or next_prio is None:
                    bad_fields[event] += 1
                    continue
                prev_comm = a.get("prev_comm", "")
                next_comm = a.get("next_comm", "")
                sched_switch(
                    ts, cpu, prev_pid, prev_comm, prev_prio,
                    to_raw(a.get("prev_state", "")), next_pid, next_comm, next_prio,
                )
                seen.add(prev_pid)
                seen.add(next_pid)
                cur_name[prev_pid] = prev_comm
                cur_name[next_pid] = next_comm
            elif event == "tracing_mark_write" or event == "print" or event == "0":
                ftrace_event(ts, cpu, pid, "print", {"buf": args})
                # An atrace payload ties pid to its tgid (UpdateThread), which
                # may start a new utid for pid: re-emit name/tgid afterwards.
                parts = args.split("|", 2)
                if len(parts) > 1:
                    t = c_u32(parts[1])
                    if t:
                        old = assoc.get(pid)
                        if old != t:
                            assoc[pid] = t
                            if old is not None:
                                cur_name.pop(pid, None)
            elif event == "sched_waking":
                a = pargs(args)
                wakee = c_u32(a.get("pid", ""))
                if wakee is None:
                    bad_fields[event] += 1
                    continue
                comm = a.get("comm", "")
                prio = c_i32(a.get("prio", ""))
                tcpu = c_i32(a.get("target_cpu", ""))
                sched_waking(ts, cpu, pid, wakee, comm,
                             0 if prio is None else prio, 0 if tcpu is None else tcpu)
                seen.add(wakee)
                cur_name[wakee] = comm
            elif event in HANDLED_EVENTS:
                fields = _other_event(event, args)
                if fields is None:
                    bad_fields[event] += 1
                    continue
                ftrace_event(ts, cpu, pid, event, fields)
            else:
                ignored[event] += 1

        elif state == _HTML_BEFORE:
            if _TRACE_DATA_SECTION in line:
                state = _TRACE_DATA
        elif state == _TRACE_DATA:
            if line.startswith("#") and "TASK-PID" in line:
                state = _SYSTRACE
            elif line.startswith("PROCESS DUMP"):
                state = _PD_LONG
                dump = {"processes": [], "threads": []}
            elif line.startswith("CGROUP DUMP"):
                state = _CGROUP
            elif "</script>" in line:
                state = _HTML_BEFORE
        elif state == _PD_LONG or state == _PD_SHORT:
            if "</script>" in line:
                state = _HTML_BEFORE
                _flush_dump(sink, dump)
                dump = None
                continue
            assert dump is not None
            toks = [(mm.start(), mm.group()) for mm in _TOKEN_RE.finditer(line)]
            words = [w for _, w in toks]
            if len(words) == 4 and words == ["USER", "PID", "TID", "CMD"]:
                state = _PD_SHORT
            elif len(words) > 4 and words[:4] == ["USER", "PID", "PPID", "VSZ"]:
                state = _PD_LONG
            elif state == _PD_LONG and len(words) >= 10:
                # user pid ppid vsz rss wchan pc s name cmd...
                p, pp = c_u32(words[1]), c_u32(words[2])
                if p is None or pp is None:
                    dump_errors += 1
                    continue
                dump["processes"].append({
                    "pid": p, "ppid": pp, "cmdline": [words[8]], "has_cmdline": True,
                    "uid": None,
                    "start_ts": None, "cmdline_is_comm": False,
                    "name": words[8], "cmdline_str": None,
                })
            elif state == _PD_SHORT and len(words) >= 4:
                # user pid(tgid) tid cmd...
                tg, tid = c_u32(words[1]), c_u32(words[2])
                if tg is None or tid is None:
                    dump_errors += 1
                    continue
                dump["threads"].append({"tid": tid, "tgid": tg, "name": line[toks[3][0]:]})
        elif state == _CGROUP:
            if "</script>" in line:
                state = _HTML_BEFORE
        # _END never reaches here (loop breaks).

    if dump is not None:
        _flush_dump(sink, dump)

    # -- warnings ------------------------------------------------------------
    w = sink.warnings
    if state != _END and tail and state == _SYSTRACE and not tail.startswith("#"):
        w.append("systrace: the last line has no newline and was not imported "
                 "(as in trace_processor)")
    if n_lines == 0:
        w.append("systrace: no ftrace events found")
    if ignored:
        total = sum(ignored.values())
        top = ", ".join(f"{k} x{v}" for k, v in ignored.most_common(8))
        more = f", +{len(ignored) - 8} more types" if len(ignored) > 8 else ""
        w.append(f"systrace: ignored {total} event(s) of {len(ignored)} type(s) "
                 f"that trace_processor does not import from text: {top}{more}")
    if n_malformed:
        w.append(f"systrace: skipped {n_malformed} malformed line(s) "
                 f"(stat systrace_parse_failure); first: {first_malformed[:80]!r}")
    if bad_fields:
        top = ", ".join(f"{k} x{v}" for k, v in bad_fields.most_common())
        w.append(f"systrace: dropped {sum(bad_fields.values())} event(s) whose "
                 f"fields did not parse: {top}")
    if dump_errors:
        w.append(f"systrace: skipped {dump_errors} unparseable PROCESS DUMP line(s) "
                 "(trace_processor rejects the whole trace on these)")


_TOKEN_RE = re.compile(r"[^ ]+")


def _flush_dump(sink: EventSink, dump: dict[str, list[dict[str, Any]]] | None) -> None:
    """One ``process_tree`` packet per PROCESS DUMP block.

    Fields filled: processes[i] = {pid, ppid, cmdline: [name], has_cmdline:
    True (the key proto.py adds), uid: None,
    start_ts: None, cmdline_is_comm: False} plus systrace-only hints
    ``name`` (= ps NAME column) and ``cmdline_str`` (None: trace_processor
    passes an empty cmdline, which its string pool stores as NULL -- checked
    with trace_processor_shell v58);
    threads[i] = {tid, tgid, name: CMD column (rest of the line)}.
    Top-level ``source: "systrace_ps"`` and ``thread_name_priority:
    "other"``: trace_processor applies these thread names at its lowest
    priority (kOther), so any ftrace comm overrides them -- unlike a proto
    process_tree (kProcessTree). Long rows: GetOrCreateProcess(ppid),
    GetOrCreateProcess(pid), UpdateProcessWithParent(upid, pupid, true),
    SetProcessMetadata(upid, name, ""). Short rows: UpdateThread(tid, tgid)
    then the kOther name.
    """
    if dump is None or not (dump["processes"] or dump["threads"]):
        return
    data: dict[str, Any] = dict(dump)
    data["source"] = "systrace_ps"
    data["thread_name_priority"] = "other"
    sink.packet(0, "process_tree", data)


def _other_event(event: str, args: str) -> dict[str, Any] | None:
    """Fields (proto names) for the less common handled events; None = bad."""
    if event == "workqueue_execute_start":
        parts = [p for p in args.split("function ") if p]
        if len(parts) < 2:
            return None
        return {"function": parts[1]}
    if event == "workqueue_execute_end":
        return {}
    a = parse_args(args)
    if event in ("cpu_frequency", "cpu_idle"):
        cpu_id = c_u32(a.get("cpu_id", ""))
        state = c_double(a.get("state", ""))
        if cpu_id is None or state is None:
            return None
        return {"state": _num(state), "cpu_id": cpu_id}
    if event == "cpu_frequency_limits":
        cpu_id = c_u32(a.get("cpu_id", ""))
        if cpu_id is None:
            return None
        mx = c_double(a["max"]) if "max" in a else c_double(a.get("max_freq", ""))
        mn = c_double(a["min"]) if "min" in a else c_double(a.get("min_freq", ""))
        if mx is None and mn is None:
            return None
        f: dict[str, Any] = {"cpu_id": cpu_id}
        if mx is not None:
            f["max_freq"] = _num(mx)
        if mn is not None:
            f["min_freq"] = _num(mn)
        return f
    if event in ("clock_set_rate", "clock_enable", "clock_disable"):
        rate = c_u32(a.get("state", ""))
        if rate is None:
            return None
        f = {"name": a.get("name", ""), "state": rate}
        cpu_id = c_u32(a.get("cpu_id", ""))
        if cpu_id is not None:
            f["cpu_id"] = cpu_id
        return f
    if event == "sched_blocked_reason":
        pid = c_u32(a.get("pid", ""))
        io_wait = c_i32(a.get("iowait", ""))
        if pid is None or io_wait is None:
            return None
        return {"pid": pid, "io_wait": io_wait, "caller": a.get("caller", "")}
    if event == "thermal_temperature":
        temp = c_i32(a.get("temp", ""))
        if temp is None:
            return None
        return {"thermal_zone": a.get("thermal_zone", ""), "temp": temp}
    if event == "cdev_update":
        target = c_double(a.get("target", ""))
        if target is None:
            return None
        return {"type": a.get("type", ""), "target": _num(target)}
    if event == "rss_stat":
        size = c_i64(a.get("size", ""))
        member = c_u32(a.get("member", ""))
        if size is None or member is None:
            return None
        f = {"size": size, "member": member}
        mm_id = c_i64(a.get("mm_id", "")) if "mm_id" in a else None
        if mm_id is not None:
            f["mm_id"] = mm_id
        # trace_processor's text reader never passes `curr` (inverted check).
        return f
    return _binder(event, a)


def _binder(event: str, a: dict[str, str]) -> dict[str, Any] | None:
    """binder_* text fields -> BinderTracker inputs under proto field names.

    binder_transaction: debug_id (text ``transaction``), target_node
    (``dest_node``), to_proc (``dest_proc``), to_thread (``dest_thread``),
    reply (0/1), flags (hex), code (the text ``code`` verbatim: TP's text
    reader names it "<code> Java Layer Dependent").
    """
    if event == "binder_transaction":
        tid = c_i32(a.get("transaction", ""))
        node = c_i32(a.get("dest_node", ""))
        proc = c_u32(a.get("dest_proc", ""))
        thread = c_u32(a.get("dest_thread", ""))
        reply = c_i32(a.get("reply", ""))
        if None in (tid, node, proc, thread, reply):
            return None
        return {"debug_id": tid, "target_node": node, "to_proc": proc,
                "to_thread": thread, "reply": 1 if reply == 1 else 0,
                "flags": _strtol16(a.get("flags", "")), "code": a.get("code", "")}
    if event == "binder_transaction_received":
        tid = c_i32(a.get("transaction", ""))
        return None if tid is None else {"debug_id": tid}
    if event in ("binder_command", "binder_return"):
        cmd = c_u32(a.get("cmd", ""), base=0)
        return None if cmd is None else {"cmd": cmd}
    if event in ("binder_lock", "binder_locked", "binder_unlock"):
        return {}
    if event == "binder_transaction_alloc_buf":
        ds = c_u64(a.get("data_size", ""))
        os_ = c_u64(a.get("offsets_size", ""))
        if ds is None or os_ is None:
            return None
        return {"data_size": ds, "offsets_size": os_}
    return None


# -- post-processing ---------------------------------------------------------


def _fix(s: Any, drop: bool = False) -> Any:
    if not isinstance(s, str):
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        raw = s.encode("utf-8", "surrogateescape")
        # print buffers: TP removes invalid UTF-8 (CheckAsciiAndRemoveInvalidUTF8).
        return raw.decode("utf-8", "ignore" if drop else "replace")


def _fix_strings(sink: EventSink) -> None:
    """The input had invalid UTF-8 (decoded with surrogateescape): clean it."""
    sw = sink.switches
    sw.prev_comm = [_fix(x) for x in sw.prev_comm]
    sw.next_comm = [_fix(x) for x in sw.next_comm]
    sink.wakings.comm = [_fix(x) for x in sink.wakings.comm]
    for ev in sink.ftrace:
        ev.fields = {k: _fix(v, drop=(k == "buf")) for k, v in ev.fields.items()}
    for p in sink.packets:
        if p.kind == "thread_name":
            p.data["name"] = _fix(p.data["name"])
        elif p.kind == "process_tree":
            for proc in p.data["processes"]:
                proc["name"] = _fix(proc["name"])
                proc["cmdline"] = [_fix(x) for x in proc["cmdline"]]
            for th in p.data["threads"]:
                th["name"] = _fix(th["name"])


def _merge(dst: EventSink, src: EventSink) -> None:
    """Move everything decoded into ``src`` into ``dst`` (keeping seq order)."""
    empty = (dst._seq == 0 and not dst.ftrace and not dst.packets
             and not len(dst.switches) and not len(dst.wakings))
    if empty:
        dst.switches, dst.wakings = src.switches, src.wakings
        dst.ftrace, dst.packets = src.ftrace, src.packets
        dst._seq = src._seq
    else:
        off = dst._seq
        for col in (dst.switches, dst.wakings):
            other = src.switches if col is dst.switches else src.wakings
            for f in dataclasses.fields(col):
                vals = getattr(other, f.name)
                if f.name == "seq":
                    vals = [v + off for v in vals]
                getattr(col, f.name).extend(vals)
        for ev in src.ftrace:
            ev.seq += off
            dst.ftrace.append(ev)
        for p in src.packets:
            p.seq += off
            dst.packets.append(p)
        dst._seq = off + src._seq
    for k, v in src.stats.items():
        dst.stats[k] = dst.stats.get(k, 0) + v
    dst.warnings.extend(src.warnings)
    dst.partial = dst.partial or src.partial
