"""Which thread a bare tid names (a sched_switch's pids, an ftrace event's
common pid) when /proc dumps and ftrace disagree about it, as the reference
build of trace_processor (v58.2 and later fixes) resolves it: its
ProcessTracker keeps a cache, tid -> thread (`live_tid_`), set when a thread
starts or is reaffirmed in its process, refreshed only when a thread ends or
its process ends or is replaced.

The first schedule (a thread reaffirmed in its process, perfetto #7085):

    t=100  process tree: process 40 ("app") with thread 50 (tgid 40)
    t=200  process tree: process 60 ("other") with thread 50 (tgid 60): an
           out-of-order dump; tid 50 is a new thread of process 60
    t=300  process tree: thread 50 (tgid 40) again: the first thread of tid 50
           is reaffirmed in process 40 and is the tid's thread again
    t=400  sched_switch on cpu 0 to pid 50; t=500 sched_switch from it

A bare lookup of tid 50 (the sched_switch) finds the thread of process 40:
both threads are alive, and the reaffirmed one is the newest. Before the
fix (and in v58.2) it found the thread of process 60, created later.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    t = pb.Trace()
    uts = t.packet.add().system_info.utsname
    uts.sysname, uts.release = "Linux", "5.10.0"
    for ts, processes, threads in [(100, [(40, "app")], [(50, 40)]),
                                   (200, [(60, "other")], [(50, 60)]),
                                   (300, [], [(50, 40)])]:
        tree = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1).process_tree
        for pid, name in processes:
            tree.processes.add(pid=pid, ppid=1, cmdline=[name])
        for tid, tgid in threads:
            tree.threads.add(tid=tid, tgid=tgid)
    bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    for ts, prev, nxt in [(400, 0, 50), (500, 50, 0)]:
        sw = bundle.event.add(timestamp=ts, pid=prev).sched_switch
        sw.prev_pid, sw.prev_comm, sw.prev_state, sw.prev_prio = prev, "x", 1, 120
        sw.next_pid, sw.next_comm, sw.next_prio = nxt, "x", 120
    return t.SerializeToString()


def test_a_reaffirmed_thread_is_the_tids_thread_again(load_embedded) -> None:
    eng = load_embedded(_trace())
    threads = eng.query("SELECT t.tid, p.pid FROM thread t JOIN process p USING (upid) "
                        "WHERE t.tid = 50 ORDER BY t.utid").rows()
    assert threads == [(50, 40), (50, 60)]
    running = eng.query("SELECT s.ts, s.dur, p.pid FROM sched s JOIN thread t USING (utid) "
                        "JOIN process p USING (upid) WHERE t.tid = 50").rows()
    assert running == [(400, 100, 40)]
    states = eng.query("SELECT s.ts, s.state, p.pid FROM thread_state s "
                       "JOIN thread t USING (utid) JOIN process p USING (upid) "
                       "WHERE t.tid = 50 ORDER BY s.ts").rows()
    assert states == [(400, "Running", 40), (500, "S", 40)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tp_diffs) -> None:
    differ, compared = tp_diffs(_trace())
    assert {"thread", "process", "sched", "thread_state"} <= compared
    assert differ == {}


# The second schedule (the cache keeps its answer until a refresh):
#
#   t=100  process tree: process 5 (thread A: tid 5, its main thread)
#   t=110  pid 7 forks pid 1 (task_newtask): process P1
#   t=120  process tree: thread 5 of process 1: a new thread B of P1, the
#          tid's newest: bare lookups of 5 find B
#   t=130  pid 7 forks pid 1 again: process P2 replaces P1, whose threads'
#          lookups are refreshed: B is dead (pid 1 names P2), 5 finds A
#   t=140  sched_process_free of pid 1: P2 ends and pid 1 names no process,
#          so P1 counts alive again (and B with it), but only P2's threads'
#          lookups are refreshed: 5 still finds A
#   t=150  a sched_waking from pid 5 (of pid 9): its waker and its
#          ftrace_event row are A, of process 5


def _trace_cached_lookup() -> bytes:
    t = pb.Trace()
    uts = t.packet.add().system_info.utsname
    uts.sysname, uts.release = "Linux", "5.10.0"
    t.packet.add(timestamp=100, trusted_packet_sequence_id=1).process_tree.processes.add(
        pid=5, ppid=1, cmdline=["five"])
    t.packet.add(timestamp=120, trusted_packet_sequence_id=1).process_tree.threads.add(
        tid=5, tgid=1)
    bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    for ts, comm in [(110, "one"), (130, "again")]:
        fork = bundle.event.add(timestamp=ts, pid=7).task_newtask
        fork.pid, fork.comm, fork.clone_flags = 1, comm, 0
    bundle.event.add(timestamp=140, pid=7).sched_process_free.pid = 1
    w = bundle.event.add(timestamp=150, pid=5).sched_waking
    w.pid, w.comm, w.prio, w.success, w.target_cpu = 9, "nine", 120, 1, 0
    return t.SerializeToString()


def test_a_bare_lookup_keeps_its_thread_until_a_refresh(load_embedded) -> None:
    eng = load_embedded(_trace_cached_lookup())
    threads = eng.query("SELECT p.pid, p.start_ts FROM thread t JOIN process p USING (upid) "
                        "WHERE t.tid = 5 ORDER BY t.utid").rows()
    assert threads == [(5, None), (1, 110)]  # A, then B (of P1)
    waker = eng.query("SELECT p.pid FROM thread_state s JOIN thread w ON w.utid = s.waker_utid "
                      "JOIN process p ON p.upid = w.upid WHERE s.ts = 150").rows()
    assert waker == [(5,)]
    raw = eng.query("SELECT p.pid FROM ftrace_event f JOIN thread t USING (utid) "
                    "JOIN process p USING (upid) WHERE f.name = 'sched_waking'").rows()
    assert raw == [(5,)]


@pytest.mark.tp
def test_cached_lookup_same_as_trace_processor(tp_diffs) -> None:
    differ, compared = tp_diffs(_trace_cached_lookup())
    assert {"thread", "process", "thread_state", "ftrace_event"} <= compared
    assert differ == {}


def _trace_absent_comms() -> bytes:
    """A sched_switch or sched_waking without its comm field names no thread
    (trace_processor's null string): cpu 0 switches from swapper to 10
    ("app") at 1000, then at 2000 from 10 to 11 with neither comm, and at
    3000 pid 11 wakes 12 without a comm. Thread 10 stays "app", 11 and 12
    stay unnamed; the second switch's prev_comm / next_comm args are NULL
    strings."""
    t = pb.Trace()
    bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    s = bundle.event.add(timestamp=1000, pid=0).sched_switch
    s.prev_comm, s.prev_pid, s.prev_state = "swapper/0", 0, 0
    s.next_comm, s.next_pid, s.next_prio = "app", 10, 120
    s = bundle.event.add(timestamp=2000, pid=10).sched_switch
    s.prev_pid, s.prev_state, s.next_pid, s.next_prio = 10, 1, 11, 120
    w = bundle.event.add(timestamp=3000, pid=11).sched_waking
    w.pid, w.target_cpu = 12, 0
    return t.SerializeToString()


ABSENT_COMM_THREADS = "SELECT tid, name FROM thread WHERE tid > 0 ORDER BY utid"
EXPECTED_ABSENT_COMM_THREADS = [(10, "app"), (11, None), (12, None)]
SWITCH_COMM_ARGS = ("SELECT a.key, a.string_value, a.value_type FROM ftrace_event e "
                    "JOIN args a USING (arg_set_id) WHERE e.ts = 2000 AND a.key GLOB '*_comm' "
                    "ORDER BY a.key")
EXPECTED_SWITCH_COMM_ARGS = [("next_comm", None, "string"), ("prev_comm", None, "string")]


def test_absent_comms_name_no_thread(load_embedded) -> None:
    eng = load_embedded(_trace_absent_comms())
    assert eng.query(ABSENT_COMM_THREADS).rows() == EXPECTED_ABSENT_COMM_THREADS
    assert eng.query(SWITCH_COMM_ARGS).rows() == EXPECTED_SWITCH_COMM_ARGS


@pytest.mark.tp
def test_absent_comms_same_as_trace_processor(tp_rows, tp_diffs) -> None:
    trace = _trace_absent_comms()
    assert tp_rows(trace, ABSENT_COMM_THREADS) == EXPECTED_ABSENT_COMM_THREADS
    assert tp_rows(trace, SWITCH_COMM_ARGS) == EXPECTED_SWITCH_COMM_ARGS
    differ, _ = tp_diffs(trace)
    assert differ == {}


def _trace_rename_without_newcomm() -> bytes:
    """A task_rename without newcomm renames nothing (the null string): the
    process tree names process 30 "app" (its main thread stays unnamed); at
    1000 a task_rename of pid 30 without newcomm leaves both as they are; at
    2000 one to "renamed" renames both (the main thread names its
    process)."""
    t = pb.Trace()
    tree = t.packet.add(timestamp=1, trusted_packet_sequence_id=1).process_tree
    tree.processes.add(pid=30, ppid=1, cmdline=["app"])
    bundle = t.packet.add(trusted_packet_sequence_id=1).ftrace_events
    bundle.cpu = 0
    bundle.event.add(timestamp=1000, pid=30).task_rename.pid = 30
    r = bundle.event.add(timestamp=2000, pid=30).task_rename
    r.pid, r.newcomm = 30, "renamed"
    return t.SerializeToString()


RENAMES = ("SELECT t.name, p.name FROM thread t JOIN process p USING (upid) "
           "WHERE t.tid = 30")


def test_a_rename_without_newcomm_renames_nothing(load_embedded) -> None:
    trace = _trace_rename_without_newcomm()
    assert load_embedded(trace).query(RENAMES).rows() == [("renamed", "renamed")]
    # cut before the second rename: as the process tree left them
    cut = pb.Trace()
    cut.ParseFromString(trace)
    del cut.packet[1].ftrace_events.event[1]
    assert load_embedded(cut.SerializeToString()).query(RENAMES).rows() == [(None, "app")]


@pytest.mark.tp
def test_rename_without_newcomm_same_as_trace_processor(tp_rows) -> None:
    cut = pb.Trace()
    cut.ParseFromString(_trace_rename_without_newcomm())
    del cut.packet[1].ftrace_events.event[1]
    assert tp_rows(cut.SerializeToString(), RENAMES) == [(None, "app")]
    assert tp_rows(_trace_rename_without_newcomm(), RENAMES) == [("renamed", "renamed")]
