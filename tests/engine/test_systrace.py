"""Legacy systrace input through the embedded engine (the compiled core's
engine-core/src/decoder/systrace.rs and container.rs): tokenizer, fields,
decoder, format detection, proto parity. Each test writes the text to a file,
loads it and checks the tables trace_processor's systrace reader would fill.
"""

from __future__ import annotations

import gzip
import os
import re
import zipfile
import zlib
from collections import Counter
from pathlib import Path

import pytest

from artscope.engines import load_trace
from artscope.engines.embedded import core
from artscope.engines.embedded.formats import read_file
from artscope.errors import TraceError

from conftest import SHARED_TRACES  # noqa: E402

REAL = SHARED_TRACES / "trappy-surfaceflinger.html"

HEADER = (
    "# tracer: nop\n#\n"
    "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
    "#              | |        |      |   ||||       |         |\n"
)

#: A line every test trace may end with, so that a trace whose other lines
#: import nothing is still a trace (a thread 99998 and one cpu_idle counter).
FILLER = "filler-99998 [000] 999.000000: cpu_idle: state=1 cpu_id=0\n"


class Loaded:
    """One systrace text loaded by the embedded engine: its LoadInfo and the
    rows of any query."""

    def __init__(self, tmp_path: Path, text: str | bytes, name: str = "t.txt") -> None:
        path = tmp_path / name
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        self.engine = load_trace(path, engine="embedded")
        self.warnings = list(self.engine.info.warnings)

    def rows(self, sql: str) -> list[tuple]:
        return self.engine.query(sql).rows()

    def stat(self, name: str) -> int:
        got = self.rows(f"SELECT value FROM stats WHERE name = '{name}'")
        return got[0][0] if got else 0

    def thread(self, tid: int) -> tuple:
        """(name, pid of its process or None) of the one thread ``tid``."""
        (row,) = self.rows("SELECT t.name, p.pid FROM thread t LEFT JOIN process p "
                           f"USING (upid) WHERE t.tid = {tid}")
        return row

    def counters(self, track_type: str) -> list[tuple]:
        """(ts, value, track name) of every counter on tracks of ``track_type``."""
        return self.rows("SELECT c.ts, c.value, t.name FROM counter c JOIN track t "
                         f"ON c.track_id = t.id WHERE t.type = '{track_type}' ORDER BY c.ts")

    def close(self) -> None:
        self.engine.close()


@pytest.fixture
def load(tmp_path):
    opened: list[Loaded] = []

    def _load(text: str | bytes, name: str = "t.txt") -> Loaded:
        opened.append(Loaded(tmp_path, text, f"{len(opened)}-{name}"))
        return opened[-1]

    yield _load
    for one in opened:
        one.close()


# -- (a) tokenizer -------------------------------------------------------------


@pytest.mark.parametrize(
    "line, task, pid, tgid, cpu, ts, event, args",
    [
        # TGID column with padding, flags present.
        ("kworker/u17:1-959   (  959) [006] d..3   538.064659: sched_switch: prev_comm=a",
         "kworker/u17:1", 959, "959", 6, 538064659000, "sched_switch", "prev_comm=a"),
        # TGID column unknown.
        ("          <idle>-0     (-----) [006] d..2   538.064674: cpu_idle: state=2 cpu_id=6",
         # int64(538.064674 * 1e9) truncates: trace_processor gives ...673999.
         "<idle>", 0, "-----", 6, 538064673999, "cpu_idle", "state=2 cpu_id=6"),
        # No TGID column.
        ("<idle>-0     [000] ...2     0.002188: task_newtask: pid=1 comm=init",
         "<idle>", 0, "", 0, 2188000, "task_newtask", "pid=1 comm=init"),
        # No flags column either.
        ("<idle>-0     [000]  0.002188: task_newtask: pid=1",
         "<idle>", 0, "", 0, 2188000, "task_newtask", "pid=1"),
        # Task names with spaces and dashes; the pid is the last -<digits>.
        ("Binder: 1-2-3 x-1234  ( 1200) [002] ...1 100.000001: tracing_mark_write: B|1200|f",
         "Binder: 1-2-3 x", 1234, "1200", 2, 100000001000, "tracing_mark_write", "B|1200|f"),
        ("surface flinger-600 [003] .... 1.5: print: E|600",
         "surface flinger", 600, "", 3, 1500000000, "print", "E|600"),
        ("<...>-7952  (-----) [000] ...1   538.064761: tracing_mark_write: "
         "trace_event_clock_sync: parent_ts=538.064758",
         "<...>", 7952, "-----", 0, 538064761000, "tracing_mark_write",
         "trace_event_clock_sync: parent_ts=538.064758"),
        ("<7952>-7952  (-----) [000] dn.4   538.064912: sched_wakeup: comm=k pid=682",
         "<7952>", 7952, "-----", 0, 538064912000, "sched_wakeup", "comm=k pid=682"),
        # The "0:" print form and a 5-char flags column.
        ("kworker/u16:1-77    (   77) [004] .N.1.   316.196720: 0: B|77|__scm_call|0",
         "kworker/u16:1", 77, "77", 4, 316196720000, "0", "B|77|__scm_call|0"),
        # A timestamp written right after the flags: trace_processor's pattern
        # takes the flags as 3 letters/dots + up to 2 hex digits/dots, so the
        # ts loses its first digit to them ("....3" then 16.196720).
        ("kworker/u16:1-77    (   77) [004] ....316.196720: tracing_mark_write: B|77|a",
         "kworker/u16:1", 77, "77", 4, int(16.196720 * 1e9), "tracing_mark_write", "B|77|a"),
        ("test-123    (  123) [002] d...316.196740: tracing_mark_write: B|123|b",
         "test", 123, "123", 2, int(16.196740 * 1e9), "tracing_mark_write", "B|123|b"),
        # An event name is the word up to its last ':' (the pattern's \S+:).
        ("a-1 [000] 1.5: print:: B|1|c", "a", 1, "", 0, 1500000000, "print:", "B|1|c"),
        # ts conversion truncates like int64(strtod * 1e9).
        ("a-1 [0] 0.000000001: print: x", "a", 1, "", 0, 1, "print", "x"),
        ("a-1 [0] 1.1: print: x", "a", 1, "", 0, int(1.1 * 1e9), "print", "x"),
        # Trailing CR and spaces are trimmed from args.
        ("a-1 [001] 2.000000: print: B|1|n  \r", "a", 1, "", 1, 2000000000, "print", "B|1|n"),
    ],
)
def test_tokenize(load, line, task, pid, tgid, cpu, ts, event, args):
    # The line itself: its thread (named by the task column unless it is
    # "<...>"; the idle thread keeps its name), its process (TGID column) and
    # what its event imports.
    t = load(HEADER + line + "\n" + FILLER)
    name, process = t.thread(pid)
    assert name == ("swapper" if pid == 0 else None if task == "<...>" else task)
    if tgid.strip().isdigit():
        assert process == int(tgid)
    slices = t.rows("SELECT ts, name FROM slice")
    if event in ("print", "tracing_mark_write", "0") and args.startswith("B|"):
        assert slices == [(ts, args.split("|", 2)[2])]
    else:
        assert slices == []
    if event == "cpu_idle":
        state, cpu_id = re.fullmatch(r"state=(\d+) cpu_id=(\d+)", args).groups()
        assert t.rows("SELECT c.ts, c.value, t.cpu FROM counter c JOIN cpu_counter_track t "
                      "ON c.track_id = t.id WHERE t.name = 'cpuidle' ORDER BY c.ts")[0] == (
            ts, float(state), int(cpu_id))
    if event in ("task_newtask", "sched_wakeup"):
        assert any(f"{event} x1" in w for w in t.warnings)
    # The same prefix before a sched_switch to thread 99999: its sched row
    # starts at the line's timestamp on the line's CPU.
    prefix = line[:re.compile(r"\d+\.\d+: ").search(line, line.index("]")).end()]
    t = load(HEADER + prefix + "sched_switch: prev_comm=p prev_pid=1 prev_prio=120 "
             "prev_state=S ==> next_comm=n next_pid=99999 next_prio=120\n")
    assert t.rows("SELECT s.ts, s.cpu FROM sched s JOIN thread USING (utid) "
                  "WHERE tid = 99999") == [(ts, cpu)]


@pytest.mark.parametrize("line", [
    "hello world",
    "no cpu bracket-12 1.0: x: y",
    "task-12 [0a] 1.0: x: y",          # cpu must be digits
    "task [000] 1.0: x: y",            # no -pid
    "task-12 [000] 1: x: y",           # ts must have a dot
    "task-12 [000] 1.0 : x: y",        # ts must be followed by ':'
    "task-12 [000] 1.0: x y",          # event must end with ':'
    "task-12 [000] 1.0:x: y",          # a space must follow the ts
    "task-12 [000] xyz 1.0: x: y",     # only irq flags may precede the ts
    "task-12 ( 5 [000] 1.0: x: y",     # no ')' before '[': pid not found
    "task-12 5) [000] 1.0: x: y",      # ')' without '('
    "-12 [000] 1.0: x: y",             # dash at start: task empty is fine? no: pos==0
    "",                                # empty lines are skipped, not failures
])
def test_tokenize_rejects(load, line):
    t = load(HEADER + line + "\n" + FILLER)
    if line == "-12 [000] 1.0: x: y":
        # '-' at position 0 is allowed by the tokenizer (task is empty).
        assert t.stat("systrace_parse_failure") == 0
        assert t.rows("SELECT name FROM thread WHERE tid = 12") == [("",)]
        return
    assert t.stat("systrace_parse_failure") == (0 if line == "" else 1)
    assert t.rows("SELECT count(*) FROM thread WHERE tid = 12") == [(0,)]


def test_parse_args_rules(load):
    t = load(HEADER
             + "a-1 [000] 1.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=D|K "
               "==> next_comm=b next_pid=2 next_prio=120\n"
             # bare tokens are 'name' (first wins), a=b=c keeps the last
             # value, duplicate keys: first wins.
             + "s-5 [000] 2.0: clock_set_rate: perfcl_clk other cpu_id=x=0 state=300000000 "
               "state=2 cpu_id=1\n")
    assert t.rows("SELECT state FROM thread_state JOIN thread USING (utid) "
                  "WHERE tid = 1") == [("DK",)]
    assert t.counters("clock_frequency") == [(2_000_000_000, 300000000.0,
                                               "perfcl_clk Frequency")]


@pytest.mark.parametrize("text, value", [
    ("42", 42), ("-1", 0xFFFFFFFF), ("99999999999999999999999", 0xFFFFFFFF),
    ("1x", None), ("", None),
])
def test_number_parsing_like_strtoul(load, text, value):
    # clock_set_rate's state is base::StringToUInt32; a field that does not
    # parse drops the event.
    t = load(HEADER + f"s-5 [000] 2.0: clock_set_rate: clk state={text} cpu_id=0\n" + FILLER)
    got = t.counters("clock_frequency")
    assert got == ([] if value is None else [(2_000_000_000, float(value), "clk Frequency")])


@pytest.mark.parametrize("text, value", [("-5", -5), ("4294967295", -1), ("7", 7)])
def test_number_parsing_like_strtol(load, text, value):
    # sched_switch's next_prio (sched.priority) is base::StringToInt32
    # (strtol, cast).
    t = load(HEADER + "a-1 [000] 1.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
             f"prev_state=S ==> next_comm=b next_pid=2 next_prio={text}\n")
    assert t.rows("SELECT priority FROM sched") == [(value,)]


@pytest.mark.parametrize("text, raw, letters", [
    ("S", 0x1, "S"), ("D", 0x2, "D"), ("R", 0, "R"), ("R+", 0x800, "R+"),
    ("D|K", 0x82, "DK"), ("x", 0x40, "x"), ("I", 0x402, "I"), ("P", 0x200, "P"),
    ("W", 0x100, "W"), ("", 0xFFFF, None), ("Q", 0xFFFF, None), ("S+", 0xFFFF, None),
])
def test_prev_state_roundtrip(load, text, raw, letters):
    # prev_state letters go to the 4.4-layout raw state and back to letters.
    if letters is not None:
        assert _decode_44(raw) == letters
    t = load(HEADER + f"a-1 [000] 1.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
             f"prev_state={text} ==> next_comm=b next_pid=2 next_prio=120\n")
    # (an unknown spelling is raw 0xFFFF: "SDT" after the 3-letter cut)
    assert t.rows("SELECT state FROM thread_state JOIN thread USING (utid) "
                  "WHERE tid = 1") == [(_decode_44(raw),)]


def _decode_44(raw: int) -> str:
    """trace_processor's TaskState(raw, 4.4 layout).ToString(), for the test."""
    parsed = raw & 0x3F
    extra = {0x40: "x", 0x80: "K", 0x100: "W", 0x200: "P", 0x400: "N"}
    flags = {c for b, c in extra.items() if raw & b}
    pre = bool(raw & 0x800)
    if parsed == 0x2 and flags == {"N"}:
        return "I"
    if not parsed and not flags:
        return "R+" if pre else "R"
    order = "SDTtXZPxKWNI"
    base = {c for i, c in enumerate("SDTtXZ") if parsed & (1 << i)}
    return "".join(c for c in order if c in base | flags)[:3]


# -- decoder on synthetic text --------------------------------------------------


def test_decoder_events_and_packets(load):
    text = HEADER + "\n".join([
        "   app-101   (  100) [001] d..3  10.000000: sched_switch: prev_comm=app prev_pid=101 "
        "prev_prio=120 prev_state=D|K ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        "   app-101   (  100) [001] ...1  10.000001: tracing_mark_write: B|100|doFrame",
        "  <...>-102  (-----) [002] d..4  10.000002: sched_waking: comm=rt pid=103 prio=110 target_cpu=002",
        " <idle>-0    (-----) [000] d..2  10.000003: cpu_frequency: state=1800000 cpu_id=0",
        " <idle>-0    (-----) [000] d..2  10.000004: cpu_frequency_limits: min=300000 max=2400000 cpu_id=0",
        " <idle>-0    (-----) [000] d..2  10.000005: cpu_idle: state=4294967295 cpu_id=0",
        " sugov-5  (    5) [007] ...1  10.000006: clock_set_rate: 17000010.devfreq_mif state=2093000 cpu_id=7",
        " sugov-5  (    5) [007] ...1  10.000007: clk_set_rate: foo rate=1",
        " sugov-5  (    5) [007] ...1  10.000008: task_newtask: pid=9 comm=x clone_flags=0",
        "garbage line",
        " sugov-5  (    5) [007] ...1  10.000009: sched_switch: prev_comm=a",  # bad fields
        "",
    ])
    t = load(text)
    # one sched_switch: app (101) leaves in D|K, idle comes in
    assert t.rows("SELECT ts, cpu, utid FROM sched") == [(10_000_000_000, 1, 0)]
    assert t.rows("SELECT ts, s.state, t.tid, w.tid FROM thread_state s JOIN thread t "
                  "USING (utid) LEFT JOIN thread w ON w.utid = s.waker_utid ORDER BY ts") == [
        (10_000_000_000, "DK", 101, None), (10_000_002_000, "R", 103, 102)]
    assert t.rows("SELECT ts, name FROM slice") == [(10_000_001_000, "doFrame")]
    assert t.counters("cpu_frequency") == [(10_000_003_000, 1800000.0, "cpufreq")]
    assert t.counters("cpu_max_frequency_limit") == [
        (10_000_004_000, 2400000.0, "Cpu 0 Max Freq Limit")]
    assert t.counters("cpu_min_frequency_limit") == [
        (10_000_004_000, 300000.0, "Cpu 0 Min Freq Limit")]
    assert t.counters("cpu_idle") == [(10_000_005_000, 4294967295.0, "cpuidle")]
    assert t.counters("clock_frequency") == [
        (10_000_006_000, 2093000.0, "17000010.devfreq_mif Frequency")]
    assert t.rows("SELECT name, value FROM stats WHERE value > 0 AND "
                  "name NOT IN ('guess_trace_type_duration_ns', 'parse_trace_duration_ns')") == [
        ("systrace_parse_failure", 1)]
    # TGID column: pid 101 -> 100, pid 5 -> 5; task names at ftrace priority
    # (not "<...>"); the waking's comm names the wakee.
    assert t.thread(101) == ("app", 100)
    assert t.thread(5) == ("sugov", 5)
    assert t.thread(102) == (None, None)
    joined = " | ".join(t.warnings)
    assert "clk_set_rate x1" in joined and "task_newtask x1" in joined
    assert "malformed" in joined and "sched_switch x1" in joined


def test_decoder_unsorted_input_is_not_filtered(load):
    lines = [
        "a-1 (1) [000] .... 2.0: print: B|1|x",
        "b-1 (1) [000] .... 1.0: print: E|1",
        "a-1 (1) [000] .... 3.0: print: B|1|y",
    ]
    t = load("\n".join(lines) + "\n")
    # every line names its thread, in time order: the last name is a's
    assert t.thread(1) == ("a", 1)
    assert t.rows("SELECT ts, name, dur FROM slice ORDER BY ts") == [
        (2_000_000_000, "x", -1), (3_000_000_000, "y", -1)]


def test_last_line_without_newline_is_dropped_like_trace_processor(load):
    t = load("a-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\na-1 [000] 2.0: cpu_idle: state=2 cpu_id=0")
    assert t.counters("cpu_idle") == [(1_000_000_000, 1.0, "cpuidle")]
    assert any("no newline" in w for w in t.warnings)


def test_atrace_marker_and_cpus_header(load):
    t = load("capturing trace... done\nTRACE:\ncpus=8\n"
             "a-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n")
    assert t.counters("cpu_idle") == [(1_000_000_000, 1.0, "cpuidle")]
    assert t.rows("SELECT name FROM stats WHERE value > 0 AND "
                  "name NOT IN ('guess_trace_type_duration_ns', 'parse_trace_duration_ns')") == []


def test_html_process_dump_and_sections(load):
    html = (
        "<!DOCTYPE html>\n<html><head></head><body>\n"
        '<script class="trace-data" type="application/text">\n'
        "PROCESS DUMP\n"
        "USER PID PPID VSZ RSS WCHAN PC S NAME COMM\n"
        "root 1 0 100 10 0 0 S init /init --second-stage\n"
        "u0_a1 100 1 100 10 0 0 S com.example.app com.example.app\n"
        "</script>\n"
        '<script class="trace-data" type="application/text">\n'
        "PROCESS DUMP\n"
        "USER PID TID CMD\n"
        "u0_a1 100 101 RenderThread\n"
        "u0_a1 100 102 Heap thread pool worker\n"
        "</script>\n"
        '<script class="trace-data" type="application/text">\n'
        "ignored-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n"
        + HEADER +
        "app-101 (100) [000] .... 2.0: cpu_idle: state=1 cpu_id=0\n"
        "</script>\n"
        '<script class="trace-data" type="application/text">\n'
        "app-101 (100) [000] .... 3.0: cpu_idle: state=1 cpu_id=0\n"
        "</script>\n</body></html>\n"
    )
    t = load(html, "t.html")
    # only the block after the header is read, and nothing after it
    assert t.counters("cpu_idle") == [(2_000_000_000, 1.0, "cpuidle")]
    # both PROCESS DUMPs (long and short ps format) apply before the events
    assert t.rows("SELECT p.pid, pp.pid, p.name FROM process p LEFT JOIN process pp "
                  "ON p.parent_upid = pp.upid WHERE p.pid IN (1, 100) ORDER BY p.pid") == [
        (1, 0, "init"), (100, 1, "com.example.app")]
    assert t.thread(102) == ("Heap thread pool worker", 100)
    # thread 101: named by the dump, then by the ftrace line's task column
    assert t.thread(101) == ("app", 100)


def test_process_dump_processes_have_no_cmdline(tmp_path):
    """trace_processor (v58) stores a PROCESS DUMP process's empty cmdline
    as NULL, its ps NAME as the name."""
    html = ('<!DOCTYPE html>\n<script class="trace-data" type="application/text">\n'
            "PROCESS DUMP\nUSER PID PPID VSZ RSS WCHAN PC S NAME COMM\n"
            "u0_a1 100 1 100 10 0 0 S com.example.app com.example.app\n</script>\n"
            '<script class="trace-data" type="application/text">\n' + HEADER
            + "app-101 (100) [000] .... 2.0: cpu_idle: state=1 cpu_id=0\n</script>\n")
    (tmp_path / "t.html").write_text(html)
    with load_trace(tmp_path / "t.html", engine="embedded") as e:
        rows = e.query("SELECT pid, name, cmdline FROM process WHERE pid = 100").rows()
    assert rows == [(100, "com.example.app", None)]


def test_invalid_utf8_is_cleaned(load):
    t = load(b"a\xff-1 [000] 1.0: print: B|1|x\xfey\n")
    # dropped from print buffers, U+FFFD elsewhere
    assert t.rows("SELECT name FROM slice") == [("xy",)]
    assert t.thread(1) == ("a\ufffd", 1)


# -- (b) the real trace -----------------------------------------------------------


@pytest.mark.skipif(not REAL.exists(), reason="shared real traces not present")
def test_real_trappy_trace_counts(load):
    raw = REAL.read_bytes()
    # Independent grep-like count over the ftrace block.
    text = raw.decode()
    start = text.index("TASK-PID")
    block = text[start:text.index("</script>", start)]
    lines = [ln for ln in block.split("\n")[1:] if ln.strip() and not ln.startswith("#")]

    def count(ev: str) -> int:
        return sum(1 for ln in lines if f" {ev}: " in ln)

    expected = {
        "sched_switch": count("sched_switch"),
        "print": count("tracing_mark_write"),
        "cpu_idle": count("cpu_idle"),
        "cpu_frequency": count("cpu_frequency"),
        "clock_set_rate": count("clock_set_rate"),
        "sched_blocked_reason": count("sched_blocked_reason"),
    }
    assert expected == {"sched_switch": 715, "print": 160, "cpu_idle": 621,
                        "cpu_frequency": 104, "clock_set_rate": 88,
                        "sched_blocked_reason": 31}

    assert core.inspect(raw, str(REAL)).kind == "systrace"
    t = load(raw, "t.html")
    assert any("JSON" in w for w in t.warnings)
    # one sched row per switch, one counter per cpu_idle / cpu_frequency /
    # clock_set_rate line, no wakings
    assert t.rows("SELECT count(*) FROM sched") == [(expected["sched_switch"],)]
    assert len(t.counters("cpu_idle")) == expected["cpu_idle"]
    assert len(t.counters("cpu_frequency")) == expected["cpu_frequency"]
    assert len(t.counters("clock_frequency")) == expected["clock_set_rate"]
    assert count("sched_waking") == 0
    assert t.rows("SELECT count(*) FROM thread_state WHERE waker_utid IS NOT NULL") == [(0,)]
    assert t.stat("systrace_parse_failure") == 0  # every line tokenizes
    ign = [w for w in t.warnings if w.startswith("systrace: ignored")]
    assert len(ign) == 1
    assert f"sched_wakeup x{count('sched_wakeup')}" in ign[0]
    assert f"sugov_set_iowait_boost x{count('sugov_set_iowait_boost')}" in ign[0]
    assert count("sched_wakeup") + count("sugov_set_iowait_boost") + sum(expected.values()) \
        == len(lines)
    # end_state letters seen in the text survive the raw round trip: one
    # thread_state row per switch away from a thread other than idle.
    states = Counter(ln.split("prev_state=")[1].split()[0] for ln in lines
                     if "prev_state=" in ln and " prev_pid=0 " not in ln)
    assert Counter(dict(t.rows(
        "SELECT state, count(*) FROM thread_state WHERE state != 'Running' GROUP BY state"))) \
        == Counter({k.replace("|", ""): v for k, v in states.items()})
    # TGID column: threads joined to their processes.
    assert t.thread(959)[1] == 959 and t.thread(5851)[1] == 5833

# -- (c) format detection ----------------------------------------------------------


def _proto_bytes() -> bytes:
    from perfetto.trace_builder.proto_builder import TraceProtoBuilder

    b = TraceProtoBuilder()
    p = b.add_packet()
    p.timestamp = 1000
    p.trusted_packet_sequence_id = 1
    p.ftrace_events.cpu = 0
    ev = p.ftrace_events.event.add()
    ev.timestamp = 1000
    ev.pid = 1
    ev.cpu_frequency.state = 1000
    ev.cpu_frequency.cpu_id = 0
    return b.serialize()


SYSTRACE_TEXT = (HEADER + "a-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n").encode()


def test_detect_every_kind(tmp_path):
    proto = _proto_bytes()
    cases = {
        "t.pftrace": (proto, "proto"),
        "t.gz": (gzip.compress(proto), "proto"),
        "t.txt": (SYSTRACE_TEXT, "systrace"),
        "noheader.txt": (b"a-1 (1) [000] d..3 1.0: cpu_idle: state=1 cpu_id=0\n", "systrace"),
        "t.html": (REAL.read_bytes() if REAL.exists() else
                   b'<!DOCTYPE html>\n<script class="trace-data" type="application/text">\n'
                   + SYSTRACE_TEXT + b"</script>\n", "systrace"),
        "t.html.gz": (gzip.compress(SYSTRACE_TEXT), "systrace"),
        "atrace.txt": (b"TRACE:\n" + SYSTRACE_TEXT, "systrace"),
        "ctrace": (b"TRACE:\n" + zlib.compress(SYSTRACE_TEXT), "systrace"),
        "proto.bin": (proto, "proto"),  # extension is irrelevant
    }
    for name, (data, kind) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        assert core.inspect(read_file(p), str(p)).kind == kind, name
    z = tmp_path / "one.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("trace.perfetto-trace.gz", gzip.compress(proto))
    (tmp_path / "plain.pftrace").write_bytes(proto)
    assert core.inspect(read_file(z), str(z)) == ("proto", False, [])
    sql = "SELECT c.ts, c.value, t.name FROM counter c JOIN track t ON c.track_id = t.id"
    with load_trace(z, engine="embedded") as zipped, \
            load_trace(tmp_path / "plain.pftrace", engine="embedded") as plain:
        assert zipped.query(sql).rows() == plain.query(sql).rows() == [(1000, 1000.0, "cpufreq")]


def test_bad_inputs(tmp_path):
    def err(p) -> str:
        with pytest.raises(TraceError) as e:
            load_trace(p, engine="embedded")
        msg = str(e.value)
        assert "\n" not in msg
        return msg

    assert "no such file" in err(tmp_path / "missing.pftrace")
    assert "directory" in err(tmp_path)
    (tmp_path / "empty").write_bytes(b"")
    assert "empty" in err(tmp_path / "empty")
    (tmp_path / "random").write_bytes(os.urandom(4096).replace(b"\n", b"x").lstrip(b"\x0a\x1fPK"))
    assert "not a Perfetto or systrace trace" in err(tmp_path / "random")
    (tmp_path / "text.txt").write_bytes(b"Hello,\nthis is just a text file.\n" * 20)
    assert "not a Perfetto or systrace trace" in err(tmp_path / "text.txt")
    (tmp_path / "nl.txt").write_bytes(b"\nhello world, a text starting with a newline\n")
    assert "not a Perfetto or systrace trace" in err(tmp_path / "nl.txt")
    (tmp_path / "page.html").write_bytes(b"<!DOCTYPE html><html><body>hi</body></html>\n")
    assert "not a Perfetto or systrace trace" in err(tmp_path / "page.html")
    z2 = tmp_path / "two.zip"
    with zipfile.ZipFile(z2, "w") as zf:
        zf.writestr("a.pftrace", _proto_bytes())
        zf.writestr("b.pftrace", _proto_bytes())
    assert "2 files" in err(z2)
    z0 = tmp_path / "zero.zip"
    with zipfile.ZipFile(z0, "w") as zf:
        zf.writestr("dir/", b"")
    assert "no trace" in err(z0)
    (tmp_path / "badzip.zip").write_bytes(z2.read_bytes()[:60])
    assert "zip" in err(tmp_path / "badzip.zip")
    (tmp_path / "badgz.gz").write_bytes(b"\x1f\x8b\x08\x00garbagegarbage")
    assert "gzip" in err(tmp_path / "badgz.gz")
    # a central directory offset past its end (zipfile raises ValueError)
    bad_cd = bytearray(z0.read_bytes())
    bad_cd[bad_cd.rfind(b"PK\x05\x06") + 16] = 0xFF
    (tmp_path / "badcd.zip").write_bytes(bad_cd)
    assert "zip" in err(tmp_path / "badcd.zip")


def test_truncated_gzip_yields_intact_prefix(tmp_path):
    # (a cut gzip: the intact prefix of the text is imported)
    body = SYSTRACE_TEXT + b"".join(
        f"a-1 [000] {i}.5: cpu_idle: state=1 cpu_id=0\n".encode() for i in range(2, 20000))
    gz = gzip.compress(body)
    p = tmp_path / "t.txt.gz"
    p.write_bytes(gz[: len(gz) // 2])
    all_ts = [1_000_000_000] + [i * 1_000_000_000 + 500_000_000 for i in range(2, 20000)]
    sql = "SELECT c.ts FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.ts"
    assert core.inspect(read_file(p), str(p)).kind == "systrace"
    with load_trace(p, engine="embedded") as e:
        assert e.info.partial
        assert any("truncated" in w for w in e.info.warnings)
        got = [ts for (ts,) in e.query(sql).rows()]
    assert 0 < len(got) < len(all_ts) and got == all_ts[:len(got)]
    # multi-member gzip is read completely, also when the first member ends
    # past the first 64 KiB decompression step (stored blocks: ~200 KB)
    for cut, level in ((1000, 9), (200_000, 0)):
        p.write_bytes(gzip.compress(body[:cut], compresslevel=level) + gzip.compress(body[cut:]))
        with load_trace(p, engine="embedded") as e:
            assert not e.info.partial and not e.info.warnings
            assert [ts for (ts,) in e.query(sql).rows()] == all_ts


# -- (d) proto vs systrace parity through the embedded engine ------------------------

# One small schedule: (ts_ns, cpu, pid, tgid, task, event, proto fields, text args)
APP, MAIN, RT = 100, 101, 102


def _schedule():
    ev = []

    def sw(ts, cpu, prev, pcomm, pstate_txt, pstate_raw, nxt, ncomm):
        ev.append((ts, cpu, prev, "sched_switch",
                   dict(prev_comm=pcomm, prev_pid=prev, prev_prio=120, prev_state=pstate_raw,
                        next_comm=ncomm, next_pid=nxt, next_prio=120),
                   f"prev_comm={pcomm} prev_pid={prev} prev_prio=120 prev_state={pstate_txt} "
                   f"==> next_comm={ncomm} next_pid={nxt} next_prio=120"))

    def pr(ts, cpu, pid, buf):
        ev.append((ts, cpu, pid, "print", dict(buf=buf + "\n"), buf))

    def freq(ts, cpu, khz):
        ev.append((ts, cpu, 0, "cpu_frequency", dict(state=khz, cpu_id=cpu),
                   f"state={khz} cpu_id={cpu}"))

    def wake(ts, cpu, waker, wakee, comm):
        ev.append((ts, cpu, waker, "sched_waking",
                   dict(comm=comm, pid=wakee, prio=120, target_cpu=cpu),
                   f"comm={comm} pid={wakee} prio=120 target_cpu={cpu:03d}"))

    freq(1_000_000_000, 0, 1800000)
    freq(1_000_000_000, 1, 1800000)
    sw(1_000_010_000, 0, 0, "swapper/0", "R", 0, MAIN, "app")
    pr(1_000_020_000, 0, MAIN, f"B|{APP}|Choreographer#doFrame 1")
    pr(1_000_030_000, 0, MAIN, f"B|{APP}|traversal")
    pr(1_000_040_000, 0, MAIN, f"C|{APP}|Heap size (KB)|4096")
    wake(1_000_050_000, 0, MAIN, RT, "RenderThread")
    sw(1_000_060_000, 1, 0, "swapper/1", "R", 0, RT, "RenderThread")
    pr(1_000_070_000, 1, RT, f"B|{APP}|DrawFrame 1")
    pr(1_000_080_000, 0, MAIN, f"E|{APP}")
    pr(1_000_090_000, 0, MAIN, f"E|{APP}")
    freq(1_000_100_000, 1, 2400000)
    sw(1_000_110_000, 0, MAIN, "app", "S", 1, 0, "swapper/0")
    pr(1_000_120_000, 1, RT, f"E|{APP}")
    sw(1_000_130_000, 1, RT, "RenderThread", "D|K", 0x82, 0, "swapper/1")
    sw(1_000_140_000, 0, 0, "swapper/0", "R", 0, MAIN, "app")
    sw(1_000_150_000, 0, MAIN, "app", "R+", 0x800, 0, "swapper/0")
    return ev


def _text_ts(ts: int) -> str:
    return f"{ts // 10**9}.{ts % 10**9 // 1000:06d}"


def _write_proto(path: Path) -> None:
    from perfetto.trace_builder.proto_builder import TraceProtoBuilder

    b = TraceProtoBuilder()
    for ts, cpu, pid, name, fields, _ in _schedule():
        # The same instant as trace_processor reads it from text:
        # int64(strtod("1.000020") * 1e9) == 1000019999, not 1000020000.
        ts = int(float(_text_ts(ts)) * 1e9)
        p = b.add_packet()
        p.trusted_packet_sequence_id = 1
        p.ftrace_events.cpu = cpu
        e = p.ftrace_events.event.add()
        e.timestamp = ts
        e.pid = pid
        msg = getattr(e, name)
        for k, v in fields.items():
            setattr(msg, k, v)
    path.write_bytes(b.serialize())


def _write_text(path: Path) -> None:
    comm = {0: "<idle>", MAIN: "app", RT: "RenderThread"}
    out = [HEADER]
    for ts, cpu, pid, name, _, args in _schedule():
        tgid = f"{APP:5d}" if pid in (MAIN, RT) else "-----"
        ev = "tracing_mark_write" if name == "print" else name
        out.append(f"{comm[pid]:>16}-{pid:<5} ({tgid}) [{cpu:03d}] d..3 "
                   f"{_text_ts(ts)}: {ev}: {args}\n")
    path.write_text("".join(out))


PARITY_SQL = {
    "sched": "SELECT s.ts, s.dur, s.cpu, t.tid, s.end_state, s.priority "
             "FROM sched s JOIN thread t USING (utid) ORDER BY s.ts, s.cpu",
    "thread": "SELECT t.tid, t.name, p.pid FROM thread t LEFT JOIN process p USING (upid) "
              "ORDER BY t.tid, t.name",
    "slice": "SELECT s.ts, s.dur, s.name, s.depth, t.tid FROM slice s "
             "JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) "
             "ORDER BY s.ts",
    "counter": "SELECT c.ts, c.value, tr.name, tr.type FROM counter c "
               "JOIN track tr ON c.track_id = tr.id ORDER BY c.ts, tr.name",
}


@pytest.mark.parametrize("what", sorted(PARITY_SQL))
def test_proto_and_systrace_give_identical_tables(tmp_path, what):
    from artscope.engines import load_trace

    _write_proto(tmp_path / "s.pftrace")
    _write_text(tmp_path / "s.txt")
    with load_trace(tmp_path / "s.pftrace", engine="embedded") as ep, \
            load_trace(tmp_path / "s.txt", engine="embedded") as et:
        a = ep.query(PARITY_SQL[what])
        b = et.query(PARITY_SQL[what])
    assert a.height > 0
    assert a.to_dicts() == b.to_dicts()


def test_systrace_raw_ftrace_rows_are_its_sched_switches(tmp_path):
    """As trace_processor's text reader: one ftrace_event row per
    sched_switch line (on the prev thread; flags 0 though the lines say
    d..3), none for the other events (prints, wakings, cpu_frequency)."""
    from artscope.engines import load_trace

    _write_text(tmp_path / "s.txt")
    with load_trace(tmp_path / "s.txt", engine="embedded") as et:
        rows = et.query("SELECT f.ts, f.name, f.cpu, t.tid, f.common_flags "
                        "FROM ftrace_event f JOIN thread t USING (utid) "
                        "ORDER BY f.ts").rows()
    assert rows == [
        (1_000_010_000, "sched_switch", 0, 0, 0),
        (1_000_060_000, "sched_switch", 1, 0, 0),
        (1_000_110_000, "sched_switch", 0, MAIN, 0),
        (1_000_130_000, "sched_switch", 1, RT, 0),
        (1_000_140_000, "sched_switch", 0, 0, 0),
        (1_000_150_000, "sched_switch", 0, MAIN, 0),
    ]


def test_proto_and_systrace_give_identical_metrics(tmp_path):
    import artscope

    _write_proto(tmp_path / "s.pftrace")
    _write_text(tmp_path / "s.txt")
    results = []
    for name in ("s.pftrace", "s.txt"):
        with artscope.open(tmp_path / name, pid=APP, cpus="0", engine="embedded") as runs:
            (r,) = runs.results
            r.pop("trace")
            results.append(r)
    proto, text = results
    assert proto["gc"]["app_cpu_ns"] > 0
    assert proto["pinning"]["off_mask_cpu_ns"] > 0  # RenderThread ran on CPU 1
    assert proto == text
