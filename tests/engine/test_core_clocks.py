"""The `clock_snapshot` table and trace_processor's time functions
(TO_REALTIME, TO_MONOTONIC, ABS_TIME_STR, TO_TIMECODE) on the embedded
engine.

The schedule, a BOOTTIME trace with two ClockSnapshots:
    snapshot 0: BOOTTIME 1000, REALTIME R0, MONOTONIC 500
    snapshot 1: BOOTTIME 2000, REALTIME R0 + 900, MONOTONIC 1500
R0 = 1_700_000_000 s since the epoch (2023-11-14T22:13:20 UTC). REALTIME ran
slower than BOOTTIME between them (900 ns in 1000), so a conversion between
the two snapshots is the earlier one's value plus the time since, capped at
the later one's value; before the first it is the first's value, after the
last the last's plus the time since.

A trace of seven snapshots, four of which trace_processor's
ClockSynchronizer rejects (`_rejected_snapshots_trace`):
    S0: BOOTTIME 1000, MONOTONIC 500             (BOOTTIME becomes the trace's clock)
    S1: REALTIME 5, incremental; primary REALTIME (the trace's clock: REALTIME)
        rejected: a global clock cannot be incremental
    S2: MONOTONIC_RAW 10, MONOTONIC 300 x 5 ns
        rejected at MONOTONIC, which S0 registered in ns; MONOTONIC_RAW,
        before it, stays registered (in ns)
    S3: BOOTTIME 900, MONOTONIC 1000             (BOOTTIME again)
        rejected: the trace's clock goes back from S0's 1000
    S4: BOOTTIME 3000, MONOTONIC 2500, REALTIME 7 x 1000 ns; primary MONOTONIC
        (S1 left REALTIME unregistered: valid)
    S5: BOOTTIME 4000, MONOTONIC 3500; primary BOOTTIME
    S6: MONOTONIC_RAW 20 x 2 ns
        rejected: MONOTONIC_RAW's unit changed (the rejected S2 registered it)
No timestamp is converted before the last snapshot, so every snapshot may
set the trace's clock: S5 leaves BOOTTIME. Then a battery counter at
REALTIME 8 x 1000 ns: through S4, BOOTTIME 3000 + 1000. Each snapshot
takes a snapshot id, rejected or not; a valid one's rows are at its time in
the trace's clock as it was then (S4: MONOTONIC 2500; its clocks are 500 ns
apart in S0 too), clock values in ns.

A trace whose ftrace is not in BOOTTIME (`_ftrace_clock_trace`, no
ClockSnapshot packet): each bundle names its events' clock and pairs a
reading of it with BOOTTIME, a snapshot the events convert through (the
latest whose reading is not after theirs, else the first):
    cpu 0, MONOTONIC_RAW, pair 5000 <-> 105000: switches at 1000, 2000
        -> 101000, 102000
    cpu 0, MONOTONIC_RAW, pair 9000 <-> 109100: switches at 6000 (before
        this pair: the first one's, 106000) and 9500 (109600)
    cpu 1, "global" clock (a clock of the sequence, id 64), pair
        50 <-> 200000: a switch at 40 -> 199990
No ClockSnapshot chose the trace's clock: it is the file's own (11), which
the first conversion bridges to BOOTTIME (snapshot 1, after the first
pair's). So the first pair, older than the bridge, has no rows; the
others are at their BOOTTIME reading.

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


def _rejected_snapshots_trace() -> bytes:
    trace = pb.Trace()
    snapshots = [
        ([(6, 1000, 1, False), (3, 500, 1, False)], 0),
        ([(1, 5, 1, True)], 1),
        ([(5, 10, 1, False), (3, 300, 5, False)], 0),
        ([(6, 900, 1, False), (3, 1000, 1, False)], 0),
        ([(6, 3000, 1, False), (3, 2500, 1, False), (1, 7, 1000, False)], 3),
        ([(6, 4000, 1, False), (3, 3500, 1, False)], 6),
        ([(5, 20, 2, False)], 0),
    ]
    for clocks, primary in snapshots:
        snap = trace.packet.add(trusted_packet_sequence_id=1).clock_snapshot
        for clock, ts, unit, incremental in clocks:
            snap.clocks.add(clock_id=clock, timestamp=ts, unit_multiplier_ns=unit,
                            is_incremental=incremental)
        if primary:
            snap.primary_trace_clock = primary
    # REALTIME 8 x 1000 ns: S4 relates it to BOOTTIME, 1000 ns later
    p = trace.packet.add(timestamp=8, timestamp_clock_id=1, trusted_packet_sequence_id=1)
    p.battery.charge_counter_uah = 5
    return trace.SerializeToString()


def _ftrace_clock_trace() -> bytes:
    trace = pb.Trace()
    mono_raw, global_clock = 4, 2
    for cpu, clock, reading, boottime, switches in [
        (0, mono_raw, 5000, 105000, [(1000, 0, 10, "a"), (2000, 10, 11, "b")]),
        (0, mono_raw, 9000, 109100, [(6000, 11, 10, "a"), (9500, 10, 0, "swapper")]),
        (1, global_clock, 50, 200000, [(40, 0, 12, "c")]),
    ]:
        bundle = trace.packet.add(trusted_packet_sequence_id=1).ftrace_events
        bundle.cpu, bundle.ftrace_clock = cpu, clock
        bundle.ftrace_timestamp, bundle.boot_timestamp = reading, boottime
        for ts, prev, nxt, comm in switches:
            sw = bundle.event.add(timestamp=ts, pid=prev).sched_switch
            sw.prev_pid, sw.prev_comm, sw.prev_state = prev, "p", 1
            sw.next_pid, sw.next_comm = nxt, comm
    return trace.SerializeToString()


def _monotonic_trace(snapshot_first: bool = True) -> bytes:
    """A snapshot choosing MONOTONIC (primary_trace_clock), BOOTTIME 1000 =
    MONOTONIC 500, and ftrace (always BOOTTIME) at 2000 and 3000; then a
    battery counter at 4000 in no clock of its own.

    Snapshot first, MONOTONIC is the trace's clock: ftrace moves 500
    earlier. Snapshot after the ftrace (`_late_snapshot_trace`): ftrace's
    times were converted already (to the file's own clock, bridged to
    BOOTTIME as it is), so the trace's clock stays; the snapshot still
    makes MONOTONIC the clock of packets naming none: the counter's
    MONOTONIC 4000 is BOOTTIME 4500."""
    trace = pb.Trace()

    def snapshot():
        snap = trace.packet.add(trusted_packet_sequence_id=1).clock_snapshot
        snap.primary_trace_clock = 3
        for clock, ts in [(6, 1000), (3, 500)]:
            snap.clocks.add(clock_id=clock, timestamp=ts)

    if snapshot_first:
        snapshot()
    bundle = trace.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    for ts, prev, nxt in [(2000, 0, 10), (3000, 10, 0)]:
        sw = bundle.event.add(timestamp=ts, pid=prev).sched_switch
        sw.prev_pid, sw.prev_comm, sw.next_pid, sw.next_comm = prev, "p", nxt, "n"
    if not snapshot_first:
        snapshot()
    p = trace.packet.add(timestamp=4000, trusted_packet_sequence_id=1)
    p.battery.charge_counter_uah = 5
    return trace.SerializeToString()


def _late_snapshot_trace() -> bytes:
    return _monotonic_trace(snapshot_first=False)


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


def test_rejected_snapshots_are_counted_and_take_an_id_but_no_rows(load):
    eng = load(_rejected_snapshots_trace())
    assert eng.query("SELECT id, ts, clock_id, clock_value, snapshot_id "
                     "FROM clock_snapshot").rows() == [
        (0, 1000, 6, 1000, 0), (1, 1000, 3, 500, 0),
        (2, 2500, 6, 3000, 4), (3, 2500, 3, 2500, 4), (4, 2500, 1, 7000, 4),
        (5, 4000, 6, 4000, 5), (6, 4000, 3, 3500, 5)]
    assert eng.query("SELECT value FROM stats "
                     "WHERE name = 'invalid_clock_snapshots'").rows() == [(4,)]
    assert eng.query("SELECT int_value FROM metadata "
                     "WHERE name = 'trace_time_clock_id'").rows() == [(6,)]
    assert eng.query("SELECT ts, value FROM counter").rows() == [(4000, 5.0)]


def test_ftrace_in_another_clock_converts_through_its_bundles_pairs(load):
    eng = load(_ftrace_clock_trace())
    assert eng.query("SELECT ts, cpu FROM sched ORDER BY ts").rows() == [
        (101000, 0), (102000, 0), (106000, 0), (109600, 0), (199990, 1)]
    assert eng.query("SELECT ts, clock_id, clock_value, snapshot_id "
                     "FROM clock_snapshot").rows() == [
        (0, 6, 0, 1), (0, 11, 0, 1),
        (109100, 5, 9000, 2), (109100, 6, 109100, 2),
        (200000, 64, 50, 3), (200000, 6, 200000, 3)]


def test_boottime_ftrace_in_a_monotonic_trace_is_converted(load):
    eng = load(_monotonic_trace())
    assert eng.query("SELECT ts, dur FROM sched").rows() == [(1500, 1000), (2500, -1)]
    assert eng.query("SELECT ts FROM counter").rows() == [(4000,)]


def test_a_snapshot_after_converted_times_sets_only_the_packets_clock(load):
    eng = load(_late_snapshot_trace())
    assert eng.query("SELECT ts, dur FROM sched").rows() == [(2000, 1000), (3000, -1)]
    assert eng.query("SELECT ts FROM counter").rows() == [(4500,)]
    assert eng.query("SELECT count(*) FROM metadata "
                     "WHERE name = 'trace_time_clock_id'").rows() == [(0,)]
    assert eng.query("SELECT ts, clock_id, clock_value, snapshot_id "
                     "FROM clock_snapshot").rows() == [
        (0, 6, 0, 0), (0, 11, 0, 0), (1000, 6, 1000, 1), (1000, 3, 500, 1)]


@pytest.mark.tp
@pytest.mark.parametrize("trace", [_snapshot_trace, _rejected_snapshots_trace, _ftrace_clock_trace,
                                   _monotonic_trace, _late_snapshot_trace,
                                   _ftrace_only_trace, _plain_timestamp_trace])
def test_same_as_trace_processor(tp_diffs, tp_rows, load, trace):
    differ, compared = tp_diffs(trace())
    assert "clock_snapshot" in compared
    assert "clock_snapshot" not in differ
    if trace in (_rejected_snapshots_trace, _ftrace_clock_trace, _monotonic_trace,
                 _late_snapshot_trace):
        assert differ == {}
    assert load(trace()).query(FUNCTIONS).rows() == tp_rows(trace(), FUNCTIONS)
