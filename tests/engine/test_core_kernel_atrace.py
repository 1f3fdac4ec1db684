"""Kernel atrace: drivers write atrace points through the
`zero` and `dpu_tracing_mark_write` ftrace events (Pixel / Exynos kernels:
DM_CALL, acpm_ipc_send_data, exynos_cpufreq_target, ...). The compiled core
turns them into thread slices and process counters as trace_processor's
SystraceParser does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compare_tp  # noqa: E402

KWORKER = 101   # the emitting kernel thread (common pid)
TGID = 100      # the tgid the kernel macro puts in the payload


def _trace() -> bytes:
    trace = pb.Trace()
    p = trace.packet.add()
    tree = p.process_tree
    tree.processes.add(pid=TGID, ppid=2, cmdline=["exynos-drv"])
    tree.threads.add(tid=KWORKER, tgid=TGID)
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 2

    def zero(ts, flag, name, value=0, tgid=TGID):
        ev = bundle.event.add(timestamp=ts, pid=KWORKER)
        ev.zero.flag, ev.zero.name, ev.zero.pid, ev.zero.value = flag, name, tgid, value

    def dpu(ts, phase, name, value=0):
        ev = bundle.event.add(timestamp=ts, pid=KWORKER)
        ev.dpu_tracing_mark_write.type = ord(phase)
        ev.dpu_tracing_mark_write.name = name
        ev.dpu_tracing_mark_write.pid = TGID
        ev.dpu_tracing_mark_write.value = value

    zero(1_000, 1, "DM_CALL")                 # begin (flag bit 0)
    dpu(1_200, "B", "dpu_commit")             # nested begin
    dpu(1_300, "E", "")                       # its end
    zero(1_500, 4, "acpm_pending", value=7)   # counter (bit 2)
    zero(2_000, 2, "")                        # end of DM_CALL (bit 1)
    zero(2_500, 0, "bogus")                   # no phase bit: a parse failure
    dpu(2_600, "C", "dpu_bw", value=42)       # counter
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def eng(tmp_path_factory):
    path = tmp_path_factory.mktemp("katrace") / "kernel_atrace.pftrace"
    path.write_bytes(_trace())
    e = EmbeddedEngine()
    e.load(path)
    yield e
    e.close()


def test_kernel_atrace_becomes_thread_slices(eng):
    rows = eng.query(
        "SELECT s.ts, s.dur, s.name, s.depth, t.tid FROM slice s "
        "JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) "
        "ORDER BY s.ts").rows()
    assert rows == [(1_000, 1_000, "DM_CALL", 0, KWORKER),
                    (1_200, 100, "dpu_commit", 1, KWORKER)]


def test_kernel_atrace_counters_belong_to_the_tgid(eng):
    rows = eng.query(
        "SELECT c.ts, c.value, t.name, p.pid FROM counter c "
        "JOIN process_counter_track t ON c.track_id = t.id JOIN process p USING (upid) "
        "ORDER BY c.ts").rows()
    assert rows == [(1_500, 7.0, "acpm_pending", TGID), (2_600, 42.0, "dpu_bw", TGID)]


def test_a_zero_event_without_phase_is_a_parse_failure(eng):
    assert eng.query("SELECT value FROM stats WHERE name = 'systrace_parse_failure'"
                     ).rows() == [(1,)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tmp_path, tp_bin):
    path = tmp_path / "kernel_atrace.pftrace"
    path.write_bytes(_trace())
    tables = ("slice", "thread_track", "counter", "process_counter_track", "thread", "process")
    assert compare_tp.differing_tables(path, tables, tp_bin) == {}


def _variants_trace() -> bytes:
    """mali / samsung tracing_mark_write (the other kernel atrace events,
    ported in the diff tests only for mdss, sde and g2d)."""
    trace = pb.Trace()
    tree = trace.packet.add().process_tree
    tree.processes.add(pid=TGID, ppid=2, cmdline=["gpu-drv"])
    tree.threads.add(tid=KWORKER, tgid=TGID)
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 0

    def mali(ts, phase, name, value=0):
        ev = bundle.event.add(timestamp=ts, pid=KWORKER).mali_tracing_mark_write
        ev.type, ev.name, ev.pid, ev.value = ord(phase), name, TGID, value

    def samsung(ts, phase, name, value=0):
        ev = bundle.event.add(timestamp=ts, pid=KWORKER).samsung_tracing_mark_write
        ev.trace_type, ev.trace_name, ev.pid, ev.value = ord(phase), name, TGID, value

    mali(1_000, "B", "gpu_job")
    samsung(1_100, "C", "gpu_queue", value=3)
    mali(1_400, "E", "")
    mali(1_500, "X", "bogus")        # not a phase: a parse failure
    samsung(1_600, "C", "gpu_queue", value=1)
    return trace.SerializeToString()


def test_mali_and_samsung_tracing_mark_write(tmp_path):
    path = tmp_path / "variants.pftrace"
    path.write_bytes(_variants_trace())
    e = EmbeddedEngine()
    e.load(path)
    try:
        slices = e.query("SELECT ts, dur, name FROM slice").rows()
        counters = e.query("SELECT c.ts, c.value, t.name FROM counter c "
                           "JOIN process_counter_track t ON c.track_id = t.id "
                           "ORDER BY c.ts").rows()
        failures = e.query("SELECT value FROM stats "
                           "WHERE name = 'systrace_parse_failure'").rows()
    finally:
        e.close()
    assert slices == [(1_000, 400, "gpu_job")]
    assert counters == [(1_100, 3.0, "gpu_queue"), (1_600, 1.0, "gpu_queue")]
    assert failures == [(1,)]


@pytest.mark.tp
def test_variants_same_tables_as_trace_processor(tmp_path, tp_bin):
    path = tmp_path / "variants.pftrace"
    path.write_bytes(_variants_trace())
    tables = ("slice", "thread_track", "counter", "process_counter_track")
    assert compare_tp.differing_tables(path, tables, tp_bin) == {}
