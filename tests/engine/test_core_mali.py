"""Mali GPU driver events in the compiled core, as
trace_processor's MaliGpuEventTracker makes them: the MCU power state
machine as one slice per state on the `mali_mcu_state` track (each state
ended by the next), and CSF interrupts as `mali_CSF_INTERRUPT` slices on
per-CPU `Mali Irq Cpu N` tracks with their `info_val`. Expected rows are
derived by hand from the schedule below and checked against the real
trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    trace = pb.Trace()

    def bundle(cpu):
        pkt = trace.packet.add(trusted_packet_sequence_id=1)
        pkt.ftrace_events.cpu = cpu
        return pkt.ftrace_events.event

    # CPU 1 first in the file, its events interleaved in time with CPU 0's
    c1 = bundle(1)
    c1.add(timestamp=1_100, pid=0).mali_mali_CSF_INTERRUPT_START.info_val = 5
    c1.add(timestamp=1_150, pid=0).mali_mali_CSF_INTERRUPT_END.info_val = 6
    c0 = bundle(0)
    c0.add(timestamp=1_000, pid=0).mali_mali_PM_MCU_ON.SetInParent()
    c0.add(timestamp=1_200, pid=0).mali_mali_PM_MCU_ON_HWCNT_ENABLE.SetInParent()
    c0.add(timestamp=1_500, pid=0).mali_mali_PM_MCU_IN_SLEEP.SetInParent()
    c2 = bundle(2)
    # an end with nothing open is ignored; a start open at the trace's end
    c2.add(timestamp=1_300, pid=0).mali_mali_CSF_INTERRUPT_END.info_val = 1
    c2.add(timestamp=1_400, pid=0).mali_mali_CSF_INTERRUPT_START.info_val = 7
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, t.type, t.name AS track, s.depth
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (1_000, 200, "ON", "mali_mcu_state", None, 0),
    (1_100, 50, "mali_CSF_INTERRUPT", "cpu_mali_irq", "Mali Irq Cpu 1", 0),
    (1_200, 300, "ON_HWCNT_ENABLE", "mali_mcu_state", None, 0),
    (1_400, -1, "mali_CSF_INTERRUPT", "cpu_mali_irq", "Mali Irq Cpu 2", 0),
    (1_500, -1, "IN_SLEEP", "mali_mcu_state", None, 0),
]
ARGS = """
SELECT s.ts, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.ts, a.id
"""
# the end's info_val replaces the start's (an arg added with a key the set
# has updates it: ArgsInserter's kAddOrUpdate)
EXPECTED_ARGS = [
    (1_100, "info_val", "6"),
    (1_400, "info_val", "7"),
]
CPU_TRACKS = "SELECT name, cpu FROM cpu_track WHERE type = 'cpu_mali_irq' ORDER BY cpu"
EXPECTED_CPU_TRACKS = [("Mali Irq Cpu 1", 1), ("Mali Irq Cpu 2", 2)]


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_args(load_embedded):
    assert load_embedded(_trace()).query(ARGS).rows() == EXPECTED_ARGS


def test_irq_tracks_are_cpu_tracks(load_embedded):
    assert load_embedded(_trace()).query(CPU_TRACKS).rows() == EXPECTED_CPU_TRACKS


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), ARGS) == EXPECTED_ARGS
    assert tp_rows(_trace(), CPU_TRACKS) == EXPECTED_CPU_TRACKS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "track", "cpu_track", "args"} <= compared
    assert diffs == {}
