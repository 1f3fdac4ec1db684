"""CPU and GPU frequency from a kernel traced without ftrace (TracePackets
`generic_kernel_cpu_freq_event` and `generic_gpu_frequency_event`,
GenericKernelParser in trace_processor).

The schedule: cpu 2 at 1.8 GHz from t=1000, at 600 MHz from t=2000; cpu 0
at 1 GHz from t=1500; gpu 1 at 500 MHz from t=1200. trace_processor puts
each cpu's on its `cpufreq` counter track, the one ftrace's cpu_frequency
events fill, in kHz (so the frequency metric's `cpufreq` source reads them
as it reads ftrace's), and the gpu's on its `gpufreq` track, as ftrace's
gpu_frequency.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SAMPLES = [(1000, 2, 1_800_000_000), (1500, 0, 1_000_000_000), (2000, 2, 600_000_000)]


def _trace() -> bytes:
    trace = pb.Trace()
    for ts, cpu, hz in SAMPLES:
        event = trace.packet.add(timestamp=ts, trusted_packet_sequence_id=1)
        event.generic_kernel_cpu_freq_event.cpu = cpu
        event.generic_kernel_cpu_freq_event.freq_hz = hz
    gpu = trace.packet.add(timestamp=1200, trusted_packet_sequence_id=1)
    gpu.generic_gpu_frequency_event.gpu_id = 1
    gpu.generic_gpu_frequency_event.frequency_khz = 500_000
    return trace.SerializeToString()


CPUFREQ = ("SELECT c.ts, t.cpu, c.value FROM counter c "
           "JOIN cpu_counter_track t ON c.track_id = t.id "
           "WHERE t.name = 'cpufreq' ORDER BY c.ts")


def test_each_sample_is_a_cpufreq_counter_in_khz(load_embedded):
    eng = load_embedded(_trace())
    assert eng.query(CPUFREQ).rows() == [
        (1000, 2, 1_800_000.0), (1500, 0, 1_000_000.0), (2000, 2, 600_000.0)]
    assert eng.query("SELECT c.ts, t.name, c.value FROM counter c JOIN gpu_counter_track t "
                     "ON c.track_id = t.id").rows() == [(1200, "gpufreq", 500_000.0)]
    assert eng.query("SELECT count(*) FROM stats WHERE name LIKE 'artscope_skipped%' "
                     "AND value > 0").rows() == [(0,)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_diffs, tp_rows, load_embedded):
    differ, compared = tp_diffs(_trace())
    assert "counter" in compared
    assert differ == {}
    assert load_embedded(_trace()).query(CPUFREQ).rows() == tp_rows(_trace(), CPUFREQ)
