"""thread_state on random event streams, through the embedded engine.

The oracle replays trace_processor's thread_state_tracker.cc (contract
section 2.4) one event at a time over the events the test itself wrote
(sched_switch, sched_waking, task_newtask, sched_blocked_reason, dense in
few threads with the idle thread among them and equal timestamps), in the
order trace_processor's sorter gives them (`tp_order`); the engine must give
exactly the same rows in the same order (a spurious wakeup leaves no row;
trace_processor keeps no stat of it).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from perfetto.trace_builder.proto_builder import TraceProtoBuilder

from artscope.engines import load_trace

#: raw prev_state (kernel 4.4 layout, trace_processor's default) -> end_state
STATES = {0: "R", 1: "S", 2: "D", 0x800: "R+", 0x82: "DK", 0x402: "I"}
TIDS = list(range(0, 7))  # few threads, the idle thread 0 included: dense collisions


def random_events(seed: int, n_events: int) -> list[tuple]:
    """(0, ts, cpu, prev, raw_state, next) per switch; (1, ts, wakee, waker)
    per waking; (2, ts, new, parent) per new task (always a fresh tid);
    (3, ts, tid, io_wait) per sched_blocked_reason."""
    rnd = random.Random(seed)
    events: list[tuple] = []
    ts, fresh = 1000, 100
    for _ in range(n_events):
        ts += rnd.choice((0, 0, 1, 5))  # equal timestamps too
        r = rnd.random()
        if r < 0.5:
            events.append((0, ts, rnd.randrange(4), rnd.choice(TIDS), rnd.choice(list(STATES)),
                           rnd.choice(TIDS)))
        elif r < 0.8:
            events.append((1, ts, rnd.choice(TIDS), rnd.choice(TIDS)))
        elif r < 0.88:
            fresh += 1
            events.append((2, ts, fresh, rnd.choice(TIDS)))
        else:
            events.append((3, ts, rnd.choice(TIDS), rnd.randrange(2)))
    return events


def encode(events: list[tuple]) -> bytes:
    b = TraceProtoBuilder()
    for ev in events:
        kind, ts = ev[0], ev[1]
        p = b.add_packet()
        p.trusted_packet_sequence_id = 1
        p.ftrace_events.cpu = ev[2] if kind == 0 else 0
        e = p.ftrace_events.event.add()
        e.timestamp = ts
        if kind == 0:
            _, _, _, prev, state, nxt = ev
            e.pid = prev
            s = e.sched_switch
            s.prev_pid, s.prev_comm, s.prev_state, s.prev_prio = prev, f"t{prev}", state, 120
            s.next_pid, s.next_comm, s.next_prio = nxt, f"t{nxt}", 120
        elif kind == 1:
            _, _, wakee, waker = ev
            e.pid = waker
            w = e.sched_waking
            w.pid, w.comm, w.prio, w.target_cpu = wakee, f"t{wakee}", 120, 0
        elif kind == 2:
            _, _, new, parent = ev
            e.pid = parent
            e.task_newtask.pid, e.task_newtask.comm = new, f"t{new}"
        else:
            _, _, tid, io_wait = ev
            e.pid = tid
            e.sched_blocked_reason.pid, e.sched_blocked_reason.io_wait = tid, io_wait
    return b.serialize()


def event_cpu(ev: tuple) -> int:
    """The ftrace bundle's CPU `encode` writes an event in."""
    return ev[2] if ev[0] == 0 else 0


def tp_order(events: list[tuple]) -> list[tuple]:
    """The events (in arrival order) as trace_processor v58.2's TraceSorter
    hands them on for a file read whole: one queue per CPU (numbered by CPU:
    a CPU's first event creates the queues of every CPU up to it), each in
    (ts, arrival) order; then, repeatedly, the queue with the earliest front
    (the lowest number on a tie) is drained through the other queues'
    earliest front, ties included."""
    queues: dict[int, list[tuple[int, int]]] = {}
    for i, ev in enumerate(events):
        queues.setdefault(event_cpu(ev), []).append((ev[1], i))
    for q in queues.values():
        q.sort()
    at = dict.fromkeys(queues, 0)
    out = []
    while True:
        fronts = sorted((q[at[c]][0], c) for c, q in queues.items() if at[c] < len(q))
        if not fronts:
            return out
        cpu, through = fronts[0][1], fronts[1][0] if len(fronts) > 1 else float("inf")
        q = queues[cpu]
        while at[cpu] < len(q) and q[at[cpu]][0] <= through:
            out.append(events[q[at[cpu]][1]])
            at[cpu] += 1


def oracle_rows(events: list[tuple]) -> list[tuple]:
    """Rows as (ts, dur, cpu, tid, state, io_wait, waker tid, irq_context):
    thread_state_tracker.cc one event at a time, in trace_processor's sorter
    order. irq_context: a new task's is 0; a sched_waking's is NULL (its
    ftrace event's common_flags are not passed on), as every switch's."""
    events = tp_order(events)
    rows: list[list[Any]] = []
    last: dict[int, int] = {}
    # the last blocked row (any state but Running and R, R+ included) since
    # the thread last ran: where a sched_blocked_reason's io_wait goes, also
    # after a waking opened R (last_blocked_row)
    last_blocked: dict[int, int] = {}

    def close(ts: int, tid: int) -> None:
        i = last.get(tid)
        if i is not None and rows[i][1] == -1:
            rows[i][1] = ts - rows[i][0]

    def open_(ts: int, tid: int, state: str, cpu: int | None = None,
              waker: int | None = None, irq: int | None = None) -> None:
        if tid == 0:
            return
        last[tid] = len(rows)
        if state == "Running":
            last_blocked.pop(tid, None)
        elif state != "R":
            last_blocked[tid] = len(rows)
        rows.append([ts, -1, cpu, tid, state, None, waker, irq])

    for ev in events:
        kind, ts = ev[0], ev[1]
        if kind == 0:
            _, _, cpu, prev, raw, nxt = ev
            if prev != 0:
                i = last.get(prev)
                if not (i is not None and rows[i][4] != "Running"):
                    close(ts, prev)
                open_(ts, prev, STATES[raw])
            if nxt != 0:
                close(ts, nxt)
                open_(ts, nxt, "Running", cpu)
        elif kind == 1:
            _, _, wakee, waker = ev
            if wakee == 0:
                continue
            i = last.get(wakee)
            if i is None:
                open_(ts, wakee, "R", None, waker)
                continue
            if rows[i][4] in ("Running", "R"):  # spurious: no row
                continue
            close(ts, wakee)
            open_(ts, wakee, "R", None, waker)
        elif kind == 2:
            _, _, new, parent = ev
            close(ts, new)
            open_(ts, new, "R", None, parent, 0)
        else:
            _, _, tid, io_wait = ev
            i = last_blocked.get(tid)
            if i is not None:
                rows[i][5] = io_wait
    return [tuple(r) for r in rows]


def check(tmp_path: Path, events: list[tuple]) -> int:
    path = tmp_path / "t.pftrace"
    path.write_bytes(encode(events))
    with load_trace(path, engine="embedded") as eng:
        got = eng.query(
            "SELECT s.ts, s.dur, s.cpu, t.tid, s.state, s.io_wait, w.tid AS waker, "
            "s.irq_context FROM thread_state s JOIN thread t USING (utid) "
            "LEFT JOIN thread w ON w.utid = s.waker_utid ORDER BY s.id").rows()
    assert got == oracle_rows(events)
    return len(got)


def rnd_size(seed: int) -> int:
    return (1, 2, 3, 5)[seed] if seed < 4 else 200 + 97 * seed


@pytest.mark.parametrize("seed", range(40))
def test_random_streams(tmp_path, seed: int) -> None:
    check(tmp_path, random_events(seed, rnd_size(seed)))


@pytest.mark.parametrize("seed", (101, 102))
def test_long_streams_order_ties_as_trace_processor(tmp_path, seed: int) -> None:
    # long queues: equal timestamps across CPUs still replay in
    # trace_processor's order
    check(tmp_path, random_events(seed, 20_000))


def test_streams_written_out_of_order_across_cpus(tmp_path) -> None:
    # ftrace writes each CPU's events in bundles: written bundle by bundle
    # (64 events of one CPU at a time), the events are out of ts order across
    # CPUs and the replay's sort must restore it (distinct timestamps: the
    # order is then unambiguous)
    events = [(ev[0], 10 * (i + 1), *ev[2:])
              for i, ev in enumerate(random_events(103, 20_000))]
    cpu = [event_cpu(ev) for ev in events]
    order = sorted(range(len(events)), key=lambda i: (i // 256, cpu[i]))
    assert order != sorted(order)
    path = tmp_path / "t.pftrace"
    path.write_bytes(encode([events[i] for i in order]))
    with load_trace(path, engine="embedded") as eng:
        got = eng.query(
            "SELECT s.ts, s.dur, s.cpu, t.tid, s.state, s.io_wait, w.tid AS waker, "
            "s.irq_context FROM thread_state s JOIN thread t USING (utid) "
            "LEFT JOIN thread w ON w.utid = s.waker_utid ORDER BY s.ts, s.id").rows()
    assert got == sorted(oracle_rows(events), key=lambda r: r[0])


def test_only_wakings_new_tasks_and_blocked_reasons(tmp_path) -> None:
    # a waking opens R for an unseen thread, a second one is spurious (no
    # row); a new
    # task starts runnable, woken by its parent; blocked reasons on threads
    # that were never blocked (or the idle thread) change nothing.
    events = [(1, 5, 3, 1), (1, 6, 3, 2), (3, 7, 3, 1),
              (2, 8, 104, 3), (3, 9, 0, 1), (1, 9, 0, 1)]
    assert check(tmp_path, events) == 2
