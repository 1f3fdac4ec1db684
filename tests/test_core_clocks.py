"""The `clock_snapshot` table and trace_processor's time functions
(TO_REALTIME, TO_MONOTONIC, ABS_TIME_STR, TO_TIMECODE) on the embedded
engine (issue 18).

The schedule, a BOOTTIME trace with two ClockSnapshots:
    snapshot 0: BOOTTIME 1000, REALTIME R0, MONOTONIC 500
    snapshot 1: BOOTTIME 2000, REALTIME R0 + 900, MONOTONIC 1500
R0 = 1_700_000_000 s since the epoch (2023-11-14T22:13:20 UTC). REALTIME ran
slower than BOOTTIME between them (900 ns in 1000), so a conversion between
the two snapshots is the earlier one's value plus the time since, capped at
the later one's value; before the first it is the first's value, after the
last the last's plus the time since.

And two traces without a ClockSnapshot: one whose ftrace event goes through
trace_processor's clock tracker (which then relates BOOTTIME to the file's
own clock, id 11, by a zero-offset snapshot) and one whose only packet has a
plain timestamp (no conversion, no rows).
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.errors import QueryError

R0 = 1_700_000_000 * 10**9
FUNCTIONS = ("SELECT to_realtime(500), to_realtime(1000), to_realtime(1500), "
             "to_realtime(1950), to_realtime(2500), to_monotonic(1500), "
             "abs_time_str(1000), to_timecode(3723004005006), to_realtime(NULL)")


def _snapshot_trace() -> bytes:
    trace = pb.Trace()
    for boot, real, mono in [(1000, R0, 500), (2000, R0 + 900, 1500)]:
        snap = trace.packet.add(trusted_packet_sequence_id=1).clock_snapshot
        for clock, ts in [(6, boot), (1, real), (3, mono)]:
            snap.clocks.add(clock_id=clock, timestamp=ts)
    p = trace.packet.add(timestamp=1500, trusted_packet_sequence_id=2)
    p.process_tree.processes.add(pid=7, ppid=1, cmdline=["app"])
    return trace.SerializeToString()


def _ftrace_only_trace() -> bytes:
    trace = pb.Trace()
    bundle = trace.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    ev = bundle.event.add(timestamp=100, pid=0)
    ev.sched_switch.next_pid, ev.sched_switch.next_comm = 3, "a"
    return trace.SerializeToString()


def _plain_timestamp_trace() -> bytes:
    trace = pb.Trace()
    p = trace.packet.add(timestamp=100, trusted_packet_sequence_id=1)
    p.process_tree.processes.add(pid=7, ppid=1, cmdline=["app"])
    return trace.SerializeToString()


@pytest.fixture
def load(load_embedded):
    return lambda data, name="clocks": load_embedded(data, name)


def test_each_snapshot_is_a_row_per_clock_at_its_trace_time(load):
    eng = load(_snapshot_trace())
    assert eng.query("SELECT id, ts, clock_id, clock_name, clock_value, snapshot_id, "
                     "machine_id FROM clock_snapshot").rows() == [
        (0, 1000, 6, "BOOTTIME", 1000, 0, 0),
        (1, 1000, 1, "REALTIME", R0, 0, 0),
        (2, 1000, 3, "MONOTONIC", 500, 0, 0),
        (3, 2000, 6, "BOOTTIME", 2000, 1, 0),
        (4, 2000, 1, "REALTIME", R0 + 900, 1, 0),
        (5, 2000, 3, "MONOTONIC", 1500, 1, 0)]


def test_time_functions_convert_through_the_snapshots(load):
    eng = load(_snapshot_trace())
    assert eng.query(FUNCTIONS).rows() == [(
        R0, R0, R0 + 500, R0 + 900, R0 + 1400, 1000,
        "2023-11-14T22:13:20.000000000", "01:02:03 004 005 006", None)]
    with pytest.raises(QueryError, match="TO_REALTIME: first argument should be timestamp"):
        eng.query("SELECT to_realtime('x')")


def test_a_trace_without_snapshots_has_only_the_bridge_a_conversion_makes(load):
    eng = load(_ftrace_only_trace())
    assert eng.query("SELECT ts, clock_id, clock_name, clock_value, snapshot_id "
                     "FROM clock_snapshot").rows() == [
        (0, 6, "BOOTTIME", 0, 0), (0, 11, None, 0, 0)]
    # nothing relates the trace to REALTIME
    assert eng.query("SELECT to_realtime(100), abs_time_str(100)").rows() == [(None, None)]
    eng = load(_plain_timestamp_trace())
    assert eng.query("SELECT count(*) FROM clock_snapshot").rows() == [(0,)]


@pytest.mark.tp
@pytest.mark.parametrize("trace", [_snapshot_trace, _ftrace_only_trace, _plain_timestamp_trace])
def test_same_as_trace_processor(tp_diffs, tp_rows, load, trace):
    differ, compared = tp_diffs(trace())
    assert "clock_snapshot" in compared
    assert "clock_snapshot" not in differ
    assert load(trace()).query(FUNCTIONS).rows() == tp_rows(trace(), FUNCTIONS)
