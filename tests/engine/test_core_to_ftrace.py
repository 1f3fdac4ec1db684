"""TO_FTRACE(id) in the compiled core: each ftrace_event row as
the line text ftrace prints, as trace_processor's SystraceSerializer makes
it (plugins/to_ftrace/to_ftrace.cc). The lines below are derived by hand
from a hand-made schedule: the `<task>-<tid> (<tgid>) [<cpu>] .... <s>.<us>:`
prefix (task padded to 16 bytes, '-' in it written '_', `<idle>` for tid 0,
`-----` without a process), then the layouts of the events it knows and
`key=value` args for the others; and they are checked against the real
trace_processor where it is available. tools/compare_tp.py compares
TO_FTRACE over every fixture, shared trace and conformance input too."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SEQ = 3
APP, RENDER, WORKER, KWORKER = 100, 101, 102, 50
GFP_KERNEL_4_4 = 0x400000 | 0x2000000 | 0x40 | 0x80  # 4.4's GFP_KERNEL
GFP_ZERO = 0x8000


def _trace() -> bytes:
    trace = pb.Trace()
    # a 5.10 kernel: trace_processor v58.2 prints with 4.4's layouts anyway
    uts = trace.packet.add(trusted_packet_sequence_id=SEQ).system_info.utsname
    uts.sysname, uts.release = "Linux", "5.10.101"
    p = trace.packet.add(trusted_packet_sequence_id=SEQ, sequence_flags=1)
    p.interned_data.kernel_symbols.add(iid=1, str=b"do_work")
    tree = trace.packet.add(trusted_packet_sequence_id=SEQ, timestamp=1).process_tree
    tree.processes.add(pid=APP, ppid=1, cmdline=["com.example.app"])
    tree.threads.add(tid=RENDER, tgid=APP, name="Render-Thread")
    tree.threads.add(tid=WORKER, tgid=APP, name="HeapTaskDaemon-worker")

    def bundle(cpu):
        pkt = trace.packet.add(trusted_packet_sequence_id=SEQ)
        pkt.ftrace_events.cpu = cpu
        return pkt.ftrace_events.event

    # CPU 3 first in the file, later in time
    c3 = bundle(3)
    c3.add(timestamp=3_000_000_000, pid=0).cpu_idle.SetInParent()
    c3[-1].cpu_idle.state, c3[-1].cpu_idle.cpu_id = 1, 3
    c2 = bundle(2)

    def ev(ts, pid):
        c2.add(timestamp=ts, pid=pid)
        return c2[-1]

    s = ev(1_000_000_000, RENDER).sched_switch
    s.prev_comm, s.prev_pid, s.prev_prio, s.prev_state = "Render-Thread", RENDER, 120, 0x100
    s.next_comm, s.next_pid, s.next_prio = "kworker/2:1", KWORKER, 120
    w = ev(1_000_250_000, KWORKER).workqueue_execute_start
    w.work, w.function = 0xABC, 1
    q = ev(1_000_300_000, KWORKER).workqueue_queue_work
    q.work, q.function, q.workqueue, q.req_cpu, q.cpu = 0xABC, 1, "events_highpri", 2, 3
    ev(1_000_500_999, KWORKER).softirq_entry.vec = 3
    x = ev(1_000_600_000, KWORKER).irq_handler_exit
    x.irq, x.ret = 7, 1
    k = ev(1_000_700_000, KWORKER).kmalloc
    k.bytes_alloc, k.bytes_req, k.call_site, k.gfp_flags, k.ptr = (
        64, 60, 4096, GFP_KERNEL_4_4 | GFP_ZERO, 8192)
    k = ev(1_000_800_000, KWORKER).kmalloc
    k.bytes_alloc, k.gfp_flags = 32, GFP_KERNEL_4_4 | 0x4000000
    ev(1_000_900_000, RENDER).print.buf = f"B|{APP}|draw\n"
    ev(1_000_950_000, WORKER).print.buf = f"C|{APP}|heap|42"
    m = ev(1_000_960_000, WORKER).dpu_tracing_mark_write
    m.type, m.pid, m.name, m.value = 0x1FF, APP, "fence", 1
    c = ev(2_500_000_000, RENDER).clock_set_rate
    c.name, c.state, c.cpu_id = "ddr", 1000, 2
    wk = ev(2_600_000_000, RENDER).sched_waking
    wk.comm, wk.pid, wk.prio, wk.success, wk.target_cpu = "Render-Thread", RENDER, 120, 1, 3
    return trace.SerializeToString()


LINES = "SELECT to_ftrace(id) AS line FROM ftrace_event ORDER BY ts"
EXPECTED = [
    # 0x100 is TASK_WAKING in 4.4's layout (R+ on this 5.10 kernel's)
    "   Render_Thread-101   (  100) [002] .... 1.000000: sched_switch: prev_comm=Render-Thread"
    " prev_pid=101 prev_prio=120 prev_state=W ==> next_comm=kworker/2:1 next_pid=50 next_prio=120",
    "     kworker/2:1-50    (-----) [002] .... 1.000250: workqueue_execute_start:"
    " work struct abc: function do_work",
    # req_cpu and cpu as bare values after the workqueue, as trace_processor
    # writes them; the workqueue (a string) by its name
    "     kworker/2:1-50    (-----) [002] .... 1.000300: workqueue_queue_work:"
    " work struct=abc function=do_work workqueue=events_highpri23",
    # 500,999 ns: 500 us, truncated
    "     kworker/2:1-50    (-----) [002] .... 1.000500: softirq_entry: vec=3 [action=NET_RX]",
    "     kworker/2:1-50    (-----) [002] .... 1.000600: irq_handler_exit: irq=7 ret=handled",
    "     kworker/2:1-50    (-----) [002] .... 1.000700: kmalloc: bytes_alloc=64 bytes_req=60"
    " call_site=4096 gfp_flags=GFP_KERNEL|GFP_ZERO ptr=8192",
    # a bit no 4.4 flag names is printed in hex after the names
    "     kworker/2:1-50    (-----) [002] .... 1.000800: kmalloc: bytes_alloc=32"
    " gfp_flags=GFP_KERNEL|0x4000000",
    # print is written as tracing_mark_write, its buffer without the newline
    "   Render_Thread-101   (  100) [002] .... 1.000900: tracing_mark_write: B|100|draw",
    # a task name of 16 bytes or more is not padded
    "HeapTaskDaemon_worker-102   (  100) [002] .... 1.000950: tracing_mark_write: C|100|heap|42",
    # the type is written as one char, its low byte (0xff): not ASCII, so
    # left out (trace_processor writes it raw, and its results drop it)
    "HeapTaskDaemon_worker-102   (  100) [002] .... 1.000960: tracing_mark_write:|100|fence|1",
    "   Render_Thread-101   (  100) [002] .... 2.500000: clock_set_rate: ddr state=1000 cpu_id=2",
    # no layout of its own: every arg as key=value
    "   Render_Thread-101   (  100) [002] .... 2.600000: sched_waking: comm=Render-Thread"
    " pid=101 prio=120 success=1 target_cpu=3",
    "          <idle>-0     (-----) [003] .... 3.000000: cpu_idle: state=1 cpu_id=3",
]


@pytest.fixture(scope="module")
def eng():
    from artscope.engines.embedded import EmbeddedEngine

    e = EmbeddedEngine()
    e.load_bytes(_trace(), "to_ftrace")
    yield e
    e.close()


def test_lines(eng):
    assert eng.query(LINES)["line"].to_list() == EXPECTED


def test_not_an_id(eng):
    with pytest.raises(Exception, match=r"Usage: to_ftrace\(id\)"):
        eng.query("SELECT to_ftrace('x')")


def test_no_such_row(eng):
    with pytest.raises(Exception, match="to_ftrace: Cannot serialize row id 99"):
        eng.query("SELECT to_ftrace(99)")


def _up_to_workqueue(line: str) -> str:
    """trace_processor prints a workqueue_queue_work's workqueue (a string
    field) as its string pool id in hex: lines compared up to it."""
    return line.split(" workqueue=")[0] if "workqueue_queue_work" in line else line


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows):
    tp_lines = [_up_to_workqueue(r[0]) for r in tp_rows(_trace(), LINES)]
    assert tp_lines == [_up_to_workqueue(line) for line in EXPECTED]
