"""GPU counters (GpuCounterEvent, the `gpu.counters` data source) and GPU
logs as
trace_processor v58.2's GraphicsEventModule and GpuEventParser import them:
a descriptor, interned per sequence or inline (legacy: counter
ids global), makes a `gpu_counter` track per (gpu, counter name) with its
unit and description when the packet is tokenized; each sample goes on its
counter's track, a backwards-looking one as a 0 at its time with the value
given to the track's previous row. The rows are derived by hand; the
tables are compared with the real trace_processor's.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

G = pb.GpuCounterDescriptor
SPEC = G.GpuCounterSpec


def _gpu_counter_trace() -> bytes:
    """Sequence 1, descriptor iid 1 on gpu 0: counter 1 'gpu_util' (%,
    forwards looking, 'GPU busy'), counter 2 'l2_reads' (B/s, backwards
    looking, no description). ts 100: 1 = 50, 2 = 10.5; ts 200: 1 = 60,
    2 = 20, 3 = 5 (no such counter). Legacy, gpu 1: ts 300 counter 7
    'freq' (MHz) and a spec without a name; 7 = 400; ts 350 counter 7
    described again (ignored) as 'freq2'; 7 = 500. A sample packet without
    a timestamp."""
    t = pb.Trace()
    p = t.packet.add(timestamp=100, trusted_packet_sequence_id=1)
    p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    d = p.interned_data.gpu_counter_descriptors.add(iid=1, gpu_id=0).counter_descriptor
    d.specs.add(counter_id=1, name="gpu_util", description="GPU busy",
                numerator_units=[G.PERCENT], value_direction=SPEC.VALUE_DIRECTION_FORWARDS_LOOKING)
    d.specs.add(counter_id=2, name="l2_reads", numerator_units=[G.BYTE],
                denominator_units=[G.SECOND], value_direction=SPEC.VALUE_DIRECTION_BACKWARDS_LOOKING)

    def samples(e: pb.GpuCounterEvent, values: list[tuple[int, float]]) -> None:
        for cid, v in values:
            c = e.counters.add(counter_id=cid)
            if isinstance(v, int):
                c.int_value = v
            else:
                c.double_value = v

    p.gpu_counter_event.counter_descriptor_iid = 1
    samples(p.gpu_counter_event, [(1, 50), (2, 10.5)])
    p = t.packet.add(timestamp=200, trusted_packet_sequence_id=1,
                     sequence_flags=pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE)
    p.gpu_counter_event.counter_descriptor_iid = 1
    samples(p.gpu_counter_event, [(1, 60), (2, 20.0), (3, 5)])
    p = t.packet.add(timestamp=300)
    p.gpu_counter_event.gpu_id = 1
    p.gpu_counter_event.counter_descriptor.specs.add(counter_id=7, name="freq",
                                                     numerator_units=[G.MEGAHERTZ])
    p.gpu_counter_event.counter_descriptor.specs.add(counter_id=8)
    samples(p.gpu_counter_event, [(7, 400)])
    p = t.packet.add(timestamp=350)
    p.gpu_counter_event.gpu_id = 1
    p.gpu_counter_event.counter_descriptor.specs.add(counter_id=7, name="freq2")
    samples(p.gpu_counter_event, [(7, 500)])
    samples(t.packet.add().gpu_counter_event, [(7, 1)])
    return t.SerializeToString()


def test_gpu_counters(load_embedded) -> None:
    eng = load_embedded(_gpu_counter_trace())
    tracks = eng.query(
        "SELECT name, type, unit, description, extract_arg(dimension_arg_set_id, 'gpu') "
        "FROM counter_track ORDER BY id").rows()
    assert tracks == [("gpu_util", "gpu_counter", "%", "GPU busy", 0),
                      ("l2_reads", "gpu_counter", "B/s", None, 0),
                      ("freq", "gpu_counter", "MHz", None, 1)]
    values = eng.query("SELECT t.name, c.ts, c.value FROM counter c "
                       "JOIN counter_track t ON t.id = c.track_id ORDER BY t.id, c.ts").rows()
    # l2_reads looks backwards: 10.5 (no interval before it) is lost, 20
    # belongs to the interval ending at 200, i.e. the row at 100
    assert values == [("gpu_util", 100, 50.0), ("gpu_util", 200, 60.0),
                      ("l2_reads", 100, 20.0), ("l2_reads", 200, 0.0),
                      # freq's direction is unspecified: backwards looking too
                      ("freq", 300, 500.0), ("freq", 350, 0.0)]
    stats = eng.query("SELECT name, value FROM stats WHERE name GLOB 'gpu_counters_*' "
                      "AND value != 0 ORDER BY name").rows()
    # invalid specs: counter 3's sample, the nameless spec, counter 7 again
    assert stats == [("gpu_counters_invalid_spec", 3), ("gpu_counters_missing_timestamp", 1)]


@pytest.mark.tp
def test_gpu_counter_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_gpu_counter_trace())
    assert {"counter", "counter_track", "gpu_counter_track", "args", "stats"} <= compared
    assert diffs == {}


def _gpu_log_trace() -> bytes:
    """GPU logs: at 10 a warning with a tag and a message; at 20 an error
    with only a message; at 30 a severity past ERROR (UNKNOWN_SEVERITY)
    with nothing else."""
    t = pb.Trace()
    t.packet.add(timestamp=10).gpu_log.MergeFrom(
        pb.GpuLog(severity=pb.GpuLog.LOG_SEVERITY_WARNING, tag="vk", log_message="oom"))
    t.packet.add(timestamp=20).gpu_log.MergeFrom(
        pb.GpuLog(severity=pb.GpuLog.LOG_SEVERITY_ERROR, log_message="lost"))
    p = t.packet.add(timestamp=30)
    p.gpu_log.SetInParent()
    raw = bytearray(t.SerializeToString())
    # severity 9: past the enum (the protos reject it as an enum value)
    return bytes(raw) + bytes([0x0A, 7, 0x40, 30, 0xFA, 0x03, 2, 0x08, 9])


def test_gpu_logs(load_embedded) -> None:
    eng = load_embedded(_gpu_log_trace())
    rows = eng.query("SELECT s.ts, s.dur, s.name, t.name, extract_arg(s.arg_set_id, 'tag'), "
                     "extract_arg(s.arg_set_id, 'message') FROM slice s "
                     "JOIN track t ON t.id = s.track_id ORDER BY s.ts").rows()
    assert rows == [(10, 0, "WARNING", "GPU Log", "vk", "oom"),
                    (20, 0, "ERROR", "GPU Log", None, "lost"),
                    (30, 0, "UNSPECIFIED", "GPU Log", None, None),
                    (30, 0, "UNKNOWN_SEVERITY", "GPU Log", None, None)]


@pytest.mark.tp
def test_gpu_log_tables_equal_trace_processor(tp_diffs) -> None:
    diffs, compared = tp_diffs(_gpu_log_trace())
    assert {"slice", "track", "args"} <= compared
    assert diffs == {}
