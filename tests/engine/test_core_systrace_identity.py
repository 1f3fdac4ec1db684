"""Systrace text: which thread a line's pid is, as trace_processor's
SystraceLineParser resolves it, found by `tools/packet_fuzz.py --kind
systrace`. Each line first looks up its pid's thread (and names it), then
applies its TGID column (UpdateThread: the pid's thread in that process,
maybe a new one); workqueue slices go on the thread of the first lookup.

    100.000000  <idle>-0 (0)  sched_waking of pid 0: the idle thread gets no
                              thread_state row, so no trace bound either
    100.000010  sf-10 (10)    B|10|draw
    100.000020  <idle>-0 (0)  F|10|as|1: names process 10, but does not tie
                              pid 0 to it (only B, I and E do)
    100.000030  <idle>-0 (10) pid 0 in process 10: a new thread (swapper is
                              process 0's), unnamed ...
    100.000040  <idle>-0 (-)  ... named "<idle>" by this line
    100.000050  kw-3 (3)      workqueue fn_a begins on kw's thread (process 3)
    100.000060  kw-3 (10)     tid 3 in process 10: a new thread; the
                              workqueue end still goes on the thread of
                              process 3, ending fn_a (dur 10)
    100.000070  sf-10 (10)    E|10: ends draw (dur 60)
"""

from __future__ import annotations

import pytest

HEADER = ("TRACE:\n# tracer: nop\n#\n"
          "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
          "#              | |        |      |   ||||       |         |\n")
LINES = [
    "          <idle>-0     (    0) [000] d..2 100.000000: sched_waking: comm=swapper pid=0 "
    "prio=120 target_cpu=000",
    "  surfaceflinger-10    (   10) [000] d..2 100.000010: tracing_mark_write: B|10|draw",
    "          <idle>-0     (    0) [001] d..2 100.000020: tracing_mark_write: F|10|as|1",
    "          <idle>-0     (   10) [001] d..2 100.000030: cpu_idle: state=1 cpu_id=1",
    "          <idle>-0     (-----) [001] d..2 100.000040: cpu_idle: state=4294967295 cpu_id=1",
    "     kworker/0:1-3     (    3) [000] ...1 100.000050: workqueue_execute_start: "
    "work struct 0001: function fn_a",
    "     kworker/0:1-3     (   10) [000] ...1 100.000060: workqueue_execute_end: "
    "work struct 0001",
    "  surfaceflinger-10    (   10) [000] d..2 100.000070: tracing_mark_write: E|10",
]


def _trace() -> bytes:
    return (HEADER + "\n".join(LINES) + "\n").encode()


def test_lines_resolve_threads_as_trace_processor(load_embedded) -> None:
    eng = load_embedded(_trace())
    assert eng.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [
        (100_000_010_000, 100_000_070_000)]
    idle = eng.query("SELECT t.name, p.pid FROM thread t JOIN process p USING (upid) "
                     "WHERE t.tid = 0 ORDER BY t.utid").rows()
    assert idle == [("swapper", 0), ("<idle>", 10)]
    kworker = eng.query("SELECT p.pid FROM thread t JOIN process p USING (upid) "
                        "WHERE t.tid = 3 ORDER BY t.utid").rows()
    assert kworker == [(3,), (10,)]
    slices = eng.query(
        "SELECT s.ts, s.dur, s.name, p.pid FROM slice s JOIN thread_track tt ON tt.id = s.track_id "
        "JOIN thread t USING (utid) JOIN process p USING (upid) ORDER BY s.ts").rows()
    assert slices == [(100_000_010_000, 60_000, "draw", 10), (100_000_050_000, 10_000, "fn_a", 3)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_diffs) -> None:
    differ, compared = tp_diffs(_trace())
    assert {"thread", "process", "slice", "trace_bounds", "thread_track"} <= compared
    assert differ == {}


# A sched_switch names its next thread, then its prev thread: a switch of
# tid 11 to itself without a prev_comm leaves it named "" (found by
# `tools/packet_fuzz.py --kind systrace`). The next line's task name
# "Binder:10_2" therefore names it again (on tid 11's thread of process 11,
# before the line's TGID column moves tid 11 to process 10: a new, unnamed
# thread).
RENAME_LINES = [
    "     Binder:10_2-11    (   11) [000] ...1 100.000010: clock_set_rate: clk1 state=0 cpu_id=0",
    "  surfaceflinger-10    (   10) [001] ...1 100.000020: sched_switch: prev_pid=11 "
    "prev_prio=120 prev_state=S ==> next_comm=Binder:10_2 next_pid=11 next_prio=120",
    "     Binder:10_2-11    (   10) [000] ...1 100.000030: cpu_frequency: state=1000 cpu_id=1",
]
RENAMED = ("SELECT t.tid, p.pid, t.name FROM thread t JOIN process p USING (upid) "
           "WHERE t.tid = 11 ORDER BY t.utid")
EXPECTED_RENAMED = [(11, 11, "Binder:10_2"), (11, 10, None)]


def _rename_trace() -> bytes:
    return (HEADER + "\n".join(RENAME_LINES) + "\n").encode()


def test_a_switch_names_prev_last(load_embedded) -> None:
    assert load_embedded(_rename_trace()).query(RENAMED).rows() == EXPECTED_RENAMED


@pytest.mark.tp
def test_rename_same_as_trace_processor(tp_diffs, tp_rows) -> None:
    assert tp_rows(_rename_trace(), RENAMED) == EXPECTED_RENAMED
    differ, compared = tp_diffs(_rename_trace())
    assert {"thread", "process", "sched"} <= compared
    assert differ == {}
