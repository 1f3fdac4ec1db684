"""The embedded engine's kernel ftrace importers on a trace built
here with perfetto's protos: rss_stat process memory counters (mm_id
ownership, direct reclaim, unknown mm, negative sizes, threads of no
process), a binder transaction ended by BR_FAILED_REPLY, syscall slices
(names from the aarch64 table, sys_write cut short by an atrace write,
sys_rt_sigreturn as an instant, `ret` args), kprobes, oom kills in the
`instant` view, funcgraph slices and thread_state.blocked_function named by
interned kernel symbols. Every expected value is derived by hand from the
schedule below, not from the engine's output."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

APP, APP_THREAD, SERVICE, LONE = 100, 101, 200, 300
BC_TRANSACTION, BR_FAILED_REPLY = 0x40406300, 0x7211
SYS_IOCTL, SYS_WRITE, SYS_RT_SIGRETURN = 29, 64, 139  # aarch64 numbers
SEQ = 7


def _trace() -> bytes:
    t = pb.Trace()
    p = t.packet.add()
    p.system_info.utsname.machine = "aarch64"
    p = t.packet.add(timestamp=1)
    proc = p.process_tree.processes.add(pid=APP, ppid=1)
    proc.cmdline.append("com.example.app")
    proc = p.process_tree.processes.add(pid=SERVICE, ppid=1)
    proc.cmdline.append("service")
    p.process_tree.threads.add(tid=APP_THREAD, tgid=APP)

    p = t.packet.add(trusted_packet_sequence_id=SEQ, sequence_flags=1)
    p.interned_data.kernel_symbols.add(iid=5, str=b"do_sys_open")
    bundle = p.ftrace_events
    bundle.cpu = 0

    def ev(ts: int, pid: int) -> pb.FtraceEvent:
        return bundle.event.add(timestamp=ts, pid=pid)

    # rss_stat: the app thread's own mm (curr), then the service reclaiming
    # it (not curr, same mm_id), an mm nobody owns, a negative size, and a
    # thread of no process on a kernel without mm_id
    e = ev(1000, APP_THREAD).rss_stat
    e.member, e.size, e.mm_id, e.curr = 1, 4096, 0x77, 1
    e = ev(1100, SERVICE).rss_stat
    e.member, e.size, e.mm_id, e.curr = 1, 8192, 0x77, 0
    e = ev(1200, SERVICE).rss_stat
    e.member, e.size, e.mm_id, e.curr = 0, 1, 0x99, 0
    e = ev(1300, APP_THREAD).rss_stat
    e.member, e.size, e.mm_id, e.curr = 0, -5, 0x77, 1
    e = ev(1400, LONE).rss_stat
    e.member, e.size = 2, 300
    # binder: the app's transaction to the service fails
    ev(2000, APP_THREAD).binder_command.cmd = BC_TRANSACTION
    e = ev(2010, APP_THREAD).binder_transaction
    e.debug_id, e.target_node, e.to_proc, e.to_thread, e.code = 9, 3, SERVICE, 0, 1
    ev(2500, APP_THREAD).binder_return.cmd = BR_FAILED_REPLY
    # syscalls: a sys_write cut by an atrace begin, then an ioctl
    ev(3000, APP_THREAD).sys_enter.id = SYS_WRITE
    ev(3100, APP_THREAD).print.buf = f"B|{APP}|draw\n"
    e = ev(3200, APP_THREAD).sys_exit
    e.id, e.ret = SYS_WRITE, 4
    ev(3300, APP_THREAD).print.buf = "E|100\n"
    ev(4000, APP_THREAD).sys_enter.id = SYS_IOCTL
    e = ev(4050, APP_THREAD).sys_exit
    e.id, e.ret = SYS_IOCTL, -1
    ev(4100, APP_THREAD).sys_enter.id = SYS_RT_SIGRETURN
    # a kprobe hit and an oom kill
    e = ev(4500, SERVICE).kprobe_event
    e.name, e.type = "vfs_read", pb.KprobeEvent.KPROBE_TYPE_INSTANT
    ev(4600, 1).mark_victim.pid = APP_THREAD
    # funcgraph: an interned symbol, an address with none
    e = ev(5000, APP_THREAD).funcgraph_entry
    e.depth, e.func = 0, 5
    e = ev(5010, APP_THREAD).funcgraph_entry
    e.depth, e.func = 1, 6
    e = ev(5020, APP_THREAD).funcgraph_exit
    e.depth, e.func = 1, 6
    e = ev(5100, APP_THREAD).funcgraph_exit
    e.depth, e.func = 0, 5
    # the app thread blocks (D) in do_sys_open
    sw = ev(6000, APP_THREAD).sched_switch
    sw.prev_comm, sw.prev_pid, sw.prev_state = "app", APP_THREAD, 2
    sw.next_comm, sw.next_pid = "swapper/0", 0
    e = ev(6010, 0).sched_blocked_reason
    e.pid, e.caller, e.io_wait = APP_THREAD, 5, 1
    return t.SerializeToString()


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    path = tmp_path_factory.mktemp("kernel") / "kernel.pftrace"
    path.write_bytes(_trace())
    e = EmbeddedEngine()
    e.load(path)
    yield e
    e.close()


def rows(eng, sql: str) -> list[tuple]:
    return [tuple(r) for r in eng.query(sql).iter_rows()]


def stat(eng, name: str) -> int:
    return rows(eng, f"SELECT value FROM stats WHERE name = '{name}' AND idx IS NULL")[0][0]


def test_rss_stat_counters_follow_the_mm_owner(eng) -> None:
    # 1000: the app's own mm; 1100: the service reclaims mm 0x77, still the
    # app's; 1200 (mm 0x99, never curr) and 1300 (negative) are dropped
    assert rows(eng, """
        SELECT c.ts, t.name, p.pid, c.value FROM counter c
        JOIN process_counter_track t ON c.track_id = t.id JOIN process p USING (upid)
        ORDER BY c.ts""") == [(1000, "mem.rss.anon", APP, 4096.0),
                              (1100, "mem.rss.anon", APP, 8192.0)]
    assert stat(eng, "rss_stat_unknown_thread_for_mm_id") == 1
    assert stat(eng, "rss_stat_negative_size") == 1
    # the counters name the thread the mm belongs to
    assert rows(eng, """
        SELECT DISTINCT t.tid FROM counter c JOIN args a USING (arg_set_id)
        JOIN thread t ON t.utid = a.int_value WHERE a.key = 'utid'
        ORDER BY t.tid""") == [(APP_THREAD,), (LONE,)]


def test_rss_stat_of_a_thread_of_no_process_gets_a_thread_track(eng) -> None:
    assert rows(eng, """
        SELECT c.ts, t.name, t.type, th.tid, c.value FROM counter c
        JOIN thread_counter_track t ON c.track_id = t.id JOIN thread th USING (utid)
        """) == [(1400, "mem.swap", "process_memory_thread_fallback", LONE, 300.0)]


def test_process_memory_track_has_its_description(eng) -> None:
    [(description,)] = rows(eng, "SELECT description FROM process_counter_track")
    assert description.startswith("Anonymous resident memory (RssAnon)")


def test_failed_binder_reply_ends_the_transaction(eng) -> None:
    assert rows(eng, "SELECT ts, dur FROM slice WHERE name = 'binder transaction'") \
        == [(2010, 490)]


def test_syscall_slices(eng) -> None:
    got = rows(eng, """
        SELECT s.ts, s.dur, s.name, s.depth FROM slice s
        JOIN thread_track tt ON s.track_id = tt.id JOIN thread USING (utid)
        WHERE tid = 101 AND s.name LIKE 'sys_%' ORDER BY s.ts""")
    # sys_write ends where the atrace begin is (its exit is then ignored)
    assert got == [(3000, 100, "sys_write", 0), (4000, 50, "sys_ioctl", 0),
                   (4100, 0, "sys_rt_sigreturn", 0)]
    assert rows(eng, "SELECT ts, dur FROM slice WHERE name = 'draw'") == [(3100, 200)]
    assert stat(eng, "truncated_sys_write_duration") == 1
    assert rows(eng, """
        SELECT a.int_value FROM slice s JOIN args a USING (arg_set_id)
        WHERE s.name = 'sys_ioctl' AND a.key = 'ret'""") == [(-1,)]


def test_kprobe_and_oom_kill_instants(eng) -> None:
    assert rows(eng, """
        SELECT i.ts, i.name, t.tid FROM instant i
        JOIN thread_track tt ON i.track_id = tt.id JOIN thread t USING (utid)
        WHERE i.name IN ('vfs_read', 'mem.oom_kill') ORDER BY i.ts""") == [
        (4500, "vfs_read", SERVICE), (4600, "mem.oom_kill", APP_THREAD)]


def test_funcgraph_slices_named_by_kernel_symbols(eng) -> None:
    assert rows(eng, """
        SELECT s.ts, s.dur, s.name, s.depth, t.name FROM slices s
        JOIN track t ON s.track_id = t.id WHERE t.type = 'thread_funcgraph'
        ORDER BY s.ts""") == [(5000, 100, "do_sys_open", 0, "Funcgraph"),
                              (5010, 10, "0x6", 1, "Funcgraph")]
    # the raw row's func arg is the symbol, as trace_processor gives it
    assert rows(eng, """
        SELECT a.string_value FROM ftrace_event f JOIN args a USING (arg_set_id)
        WHERE f.ts = 5000 AND a.key = 'func'""") == [("do_sys_open",)]


def test_blocked_function_from_interned_symbol(eng) -> None:
    assert rows(eng, """
        SELECT ts, state, io_wait, blocked_function FROM thread_state
        JOIN thread USING (utid) WHERE tid = 101 AND state = 'D'""") == [
        (6000, "D", 1, "do_sys_open")]
