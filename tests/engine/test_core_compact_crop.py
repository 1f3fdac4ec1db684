"""compact_sched events before the ftrace data's soft start, as
trace_processor v58's FtraceSchedEventTracker imports them.

Every CPU's first bundle says up to when its buffer had been read already
(last_read_event_timestamp); events before the latest of those are only
"soft" kept: an ftrace_event row, no sched / thread_state rows. A compact
switch still needs its CPU's previous one to infer prev_*: the first of a
CPU is skipped (compact_sched_switch_skipped) whether or not it is before
the soft start, and a compact waking on a CPU with no switch yet has no
waker and is skipped too (compact_sched_waking_skipped), with no row at all.

The schedule (soft start 1000 = cpu 1's last_read_event_timestamp):

    cpu 0 switches  500 ->a(40)  600 ->b(41)  1100 ->c(42)  1200 ->d(43)
    cpu 0 wakings   550 wakes 50 (by a)       1150 wakes 51 (by c)
    cpu 1           400 waking of 52 (no switch on cpu 1 yet), 1300 switch ->e(44)
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine


def _deltas(ts: list[int]) -> list[int]:
    return [t - p for t, p in zip(ts, [0, *ts])]


def _add_waking(c, ts: int, pid: int, target_cpu: int, comm_index: int) -> None:
    """One compact waking (the bundle's first: `ts` is its delta from 0)."""
    c.waking_timestamp.append(ts)
    c.waking_pid.append(pid)
    c.waking_target_cpu.append(target_cpu)
    c.waking_prio.append(120)
    c.waking_comm_index.append(comm_index)


def _loaded(data: bytes, name: str):
    e = EmbeddedEngine(ingest_ftrace_in_raw=True)
    e.load_bytes(data, name)
    yield e
    e.close()


def _trace() -> bytes:
    trace = pb.Trace()
    cpu0 = trace.packet.add().ftrace_events
    cpu0.cpu, cpu0.last_read_event_timestamp = 0, 0
    c = cpu0.compact_sched
    c.intern_table.extend(["a", "b", "c", "d", "w"])
    c.switch_timestamp.extend(_deltas([500, 600, 1100, 1200]))
    c.switch_next_pid.extend([40, 41, 42, 43])
    c.switch_prev_state.extend([1, 1, 1, 1])
    c.switch_next_prio.extend([120] * 4)
    c.switch_next_comm_index.extend([0, 1, 2, 3])
    c.waking_timestamp.extend(_deltas([550, 1150]))
    c.waking_pid.extend([50, 51])
    c.waking_target_cpu.extend([0, 0])
    c.waking_prio.extend([120, 120])
    c.waking_comm_index.extend([4, 4])
    cpu1 = trace.packet.add().ftrace_events
    cpu1.cpu, cpu1.last_read_event_timestamp = 1, 1000
    c = cpu1.compact_sched
    c.intern_table.extend(["e", "w"])
    c.switch_timestamp.append(1300)
    c.switch_next_pid.append(44)
    c.switch_prev_state.append(1)
    c.switch_next_prio.append(120)
    c.switch_next_comm_index.append(0)
    _add_waking(c, 400, 52, 1, 1)
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def engine():
    yield from _loaded(_trace(), "compact_crop")


def test_soft_dropped_compact_events_have_ftrace_rows_only(engine):
    # 550 / 600 are before the soft start: rows whose utid is the CPU's
    # running thread (a, inferred from the switch at 500, itself skipped)
    assert engine.query(
        "SELECT f.ts, f.name, f.cpu, t.tid FROM ftrace_event f JOIN thread t USING (utid) "
        "ORDER BY f.ts").rows() == [
        (550, "sched_waking", 0, 40), (600, "sched_switch", 0, 40),
        (1100, "sched_switch", 0, 41), (1150, "sched_waking", 0, 42),
        (1200, "sched_switch", 0, 42)]
    assert engine.query(
        "SELECT s.ts, s.dur, s.cpu, t.tid FROM sched s JOIN thread t USING (utid) "
        "ORDER BY s.ts").rows() == [(1100, 100, 0, 42), (1200, -1, 0, 43)]


def test_wakings_after_the_soft_start_only_open_thread_states(engine):
    assert engine.query(
        "SELECT t.tid, s.ts, s.state, w.tid FROM thread_state s JOIN thread t USING (utid) "
        "LEFT JOIN thread w ON w.utid = s.waker_utid WHERE t.tid IN (50, 51, 52)").rows() == [
        (51, 1150, "R", 42)]


def test_first_switches_and_wakings_without_a_running_thread_are_counted(engine):
    assert dict(engine.query(
        "SELECT name, value FROM stats WHERE name IN "
        "('compact_sched_switch_skipped', 'compact_sched_waking_skipped')").rows()) == {
        "compact_sched_switch_skipped": 2, "compact_sched_waking_skipped": 1}
    assert engine.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [(550, 1200)]
    # cpu 1's events were all skipped: no row made it a cpu
    assert engine.query("SELECT cpu FROM cpu").rows() == [(0,)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tp_diffs):
    differ, _ = tp_diffs(_trace())
    # the soft-dropped compact switches' raw rows included, with their args
    assert differ == {}


# A second schedule (soft start 1000 again), for what random compact_sched
# bundles found (tools/packet_fuzz.py --kind compact_sched):
#
#   cpu 0 switches  500 ->a(40)  600 ->b(41), prev_state 0x200 (no task state)
#                   1100 ->pid -1 ("neg")  1200 ->d(43)
#   cpu 0 waking    1150 wakes pid -2 (by the pid -1 thread)
#   cpu 1           900 a plain sched_switch 70 -> 71, before the soft start
U32 = 1 << 32


def _trace_pids_and_states() -> bytes:
    trace = pb.Trace()
    uts = trace.packet.add().system_info.utsname
    uts.sysname, uts.release, uts.machine = "Linux", "5.10.0", "aarch64"
    cpu0 = trace.packet.add().ftrace_events
    cpu0.cpu, cpu0.last_read_event_timestamp = 0, 0
    c = cpu0.compact_sched
    c.intern_table.extend(["a", "b", "neg", "d", "w"])
    c.switch_timestamp.extend(_deltas([500, 600, 1100, 1200]))
    c.switch_next_pid.extend([40, 41, -1, 43])
    c.switch_prev_state.extend([1, 0x200, 1, 1])
    c.switch_next_prio.extend([120] * 4)
    c.switch_next_comm_index.extend([0, 1, 2, 3])
    _add_waking(c, 1150, -2, 0, 4)
    cpu1 = trace.packet.add().ftrace_events
    cpu1.cpu, cpu1.last_read_event_timestamp = 1, 1000
    sw = cpu1.event.add(timestamp=900, pid=70).sched_switch
    sw.prev_pid, sw.prev_comm, sw.prev_state, sw.prev_prio = 70, "p", 1, 120
    sw.next_pid, sw.next_comm, sw.next_prio = 71, "n", 120
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def pids_engine():
    yield from _loaded(_trace_pids_and_states(), "compact_pids")


def test_a_plain_switch_before_the_soft_start_makes_nothing(pids_engine):
    # (its raw row is the switch parser's, which trace_processor skips there)
    assert pids_engine.query("SELECT ts, name FROM ftrace_event ORDER BY ts").rows() == [
        (600, "sched_switch"), (1100, "sched_switch"), (1150, "sched_waking"),
        (1200, "sched_switch")]
    assert pids_engine.query("SELECT count(*) FROM thread WHERE tid IN (70, 71)").item() == 0
    assert pids_engine.query("SELECT cpu FROM cpu").rows() == [(0,)]


def test_a_soft_dropped_compact_switch_counts_an_invalid_state(pids_engine):
    assert dict(pids_engine.query(
        "SELECT name, value FROM stats WHERE name IN "
        "('task_state_invalid', 'compact_sched_switch_skipped')").rows()) == {
        "task_state_invalid": 1, "compact_sched_switch_skipped": 1}


def test_compact_pids_are_read_as_uint32(pids_engine):
    assert pids_engine.query(
        "SELECT s.ts, s.dur, t.tid, t.name FROM sched s JOIN thread t USING (utid) "
        "ORDER BY s.ts").rows() == [(1100, 100, U32 - 1, "neg"), (1200, -1, 43, "d")]
    raw = pids_engine.query(
        "SELECT f.ts, a.key, a.int_value FROM ftrace_event f JOIN args a USING (arg_set_id) "
        "WHERE a.key IN ('next_pid', 'prev_pid', 'pid') AND f.ts >= 1100 ORDER BY f.ts, a.id"
    ).rows()
    assert raw == [(1100, "prev_pid", 41), (1100, "next_pid", U32 - 1),
                   (1150, "pid", U32 - 2),
                   (1200, "prev_pid", U32 - 1), (1200, "next_pid", 43)]
    assert pids_engine.query(
        "SELECT s.ts, s.state, t.tid, w.tid FROM thread_state s JOIN thread t USING (utid) "
        f"JOIN thread w ON w.utid = s.waker_utid WHERE t.tid = {U32 - 2}").rows() == [
        (1150, "R", U32 - 2, U32 - 1)]


@pytest.mark.tp
def test_pids_and_states_same_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_trace_pids_and_states())
    assert {"ftrace_event", "sched", "thread", "stats"} <= compared
    assert differ == {}
