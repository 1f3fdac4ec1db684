"""irq, softirq and local timer slices on per-CPU tracks in the
compiled core, on a hand-made schedule: the slices, tracks and args
trace_processor's FtraceParser makes (ParseIrqHandlerEntry / Exit,
ParseSoftIrqEntry / Exit, ParseLocalTimerEntry / Exit), derived by hand
below, and the same tables as the real trace_processor where it is
available."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compare_tp  # noqa: E402


def _trace() -> bytes:
    trace = pb.Trace()

    def bundle(cpu):
        b = trace.packet.add().ftrace_events
        b.cpu = cpu
        return b

    # CPU 1, written first though later in time (events out of order across
    # CPUs): a timer tick nested in an irq, and an irq whose handler did not
    # handle it
    b1 = bundle(1)
    e = b1.event.add(timestamp=5_000, pid=0).irq_handler_entry
    e.irq, e.name, e.handler = 40, "arch_timer", 0
    b1.event.add(timestamp=5_100, pid=0).local_timer_entry.vector = 236
    b1.event.add(timestamp=5_200, pid=0).local_timer_exit.vector = 236
    x = b1.event.add(timestamp=5_300, pid=0).irq_handler_exit
    x.irq, x.ret = 40, 0
    # CPU 0: a handled irq, a softirq (NET_RX = vector 3), a softirq with an
    # unknown vector (no slice), an exit with nothing open, and an irq left
    # open at the trace's end
    b0 = bundle(0)
    e = b0.event.add(timestamp=1_000, pid=10).irq_handler_entry
    e.irq, e.name = 100, "ufshcd"
    x = b0.event.add(timestamp=1_250, pid=10).irq_handler_exit
    x.irq, x.ret = 100, 1
    b0.event.add(timestamp=2_000, pid=10).softirq_entry.vec = 3
    b0.event.add(timestamp=2_400, pid=10).softirq_exit.vec = 3
    b0.event.add(timestamp=2_500, pid=10).softirq_entry.vec = 12
    b0.event.add(timestamp=2_600, pid=10).softirq_exit.vec = 12
    e = b0.event.add(timestamp=3_000, pid=10).irq_handler_entry
    e.irq, e.name = 101, "dwc3"
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("irq") / "irq.pftrace"
    path.write_bytes(_trace())
    return path


@pytest.fixture(scope="module")
def eng(trace_path):
    e = EmbeddedEngine()
    e.load(trace_path)
    yield e
    e.close()


def test_irq_slices(eng):
    rows = eng.query("""
        SELECT s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.cpu,
               (SELECT group_concat(key || '=' || display_value, '; ')
                FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
        FROM slice s JOIN cpu_track t ON s.track_id = t.id
        ORDER BY s.ts""").rows()
    assert rows == [
        (1_000, 250, "IRQ (ufshcd)", "irq", 0, "Irq Cpu 0", 0, "ret=handled"),
        (2_000, 400, "NET_RX", "irq", 0, "SoftIrq Cpu 0", 0, "vec=3"),
        # open at the end of the trace
        (3_000, -1, "IRQ (dwc3)", "irq", 0, "Irq Cpu 0", 0, None),
        (5_000, 300, "IRQ (arch_timer)", "irq", 0, "Irq Cpu 1", 1, "ret=unhandled"),
        (5_100, 100, "IRQ (LocalTimer)", "irq", 1, "Irq Cpu 1", 1, None),
    ]


def test_cpu_tracks(eng):
    assert eng.query("SELECT name, type, cpu FROM cpu_track ORDER BY cpu, name").rows() == [
        ("Irq Cpu 0", "cpu_irq", 0), ("SoftIrq Cpu 0", "cpu_softirq", 0),
        ("Irq Cpu 1", "cpu_irq", 1)]


def test_exit_with_nothing_open_is_ignored(eng):
    # the unknown vector's softirq_exit finds no open softirq slice: nothing
    # closed, nothing counted (trace_processor's SliceTracker::End)
    assert eng.query("SELECT value FROM stats WHERE name = 'misplaced_end_event'"
                     ).item() == 0


@pytest.mark.tp
def test_same_tables_as_trace_processor(trace_path, tp_bin):
    tables = ("slice", "track", "cpu_track", "thread", "process", "stats", "trace_bounds")
    assert compare_tp.differing_tables(trace_path, tables, tp_bin) == {}
