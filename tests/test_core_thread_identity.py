"""Which thread a bare tid names after /proc dumps disagree about its process,
as the reference build of trace_processor (v58.2 and later fixes: its
ProcessTracker's `live_tid_` update when a thread is reaffirmed in its
process, perfetto #7085) resolves it.

The schedule:

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
