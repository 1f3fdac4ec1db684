"""ftrace_event.common_flags, as trace_processor stores them:
compact_sched wakings carry theirs (CompactSched.waking_common_flags);
every other row has 0 - trace_processor v58 does not read
FtraceEvent.common_flags. The compiled core keeps only the non-zero flags
while importing (they are rare), so the column costs a byte a row. And a
legacy generic event (FtraceEvent.generic: one the producer had no proto
for, e.g. mali_* on some Pixel builds) is named by its event_name with its
fields as args, as trace_processor reads it."""

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
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 1
    sw = bundle.event.add(timestamp=1_000, pid=0)
    sw.sched_switch.prev_comm, sw.sched_switch.prev_pid = "swapper/1", 0
    sw.sched_switch.next_comm, sw.sched_switch.next_pid = "app", 42
    pr = bundle.event.add(timestamp=2_000, pid=42)
    getattr(pr, "print").buf = "B|42|work\n"
    # three compact wakings by the running task (app), the second without
    # flags (0), the others with need-resched / irqs-off bits
    c = bundle.compact_sched
    c.intern_table.extend(["worker", "other"])
    c.waking_timestamp.extend([3_000, 500, 500])  # delta-encoded
    c.waking_pid.extend([43, 44, 43])
    c.waking_target_cpu.extend([1, 1, 1])
    c.waking_prio.extend([120, 120, 120])
    c.waking_comm_index.extend([0, 1, 0])
    c.waking_common_flags.extend([0x8d, 0, 0x1])
    # an event the producer had no proto for (FtraceEvent.generic)
    g = bundle.event.add(timestamp=5_000, pid=42).generic
    g.event_name = "mali_pm_status"
    g.field.add(name="event", uint_value=4)
    g.field.add(name="value", int_value=-3)
    g.field.add(name="gpu", str_value="mali0")
    return trace.SerializeToString()


GENERIC_ARGS = ("SELECT f.name, a.key, a.int_value, a.string_value, a.value_type "
                "FROM ftrace_event f JOIN args a USING (arg_set_id) "
                "WHERE f.name = 'mali_pm_status' ORDER BY a.id")


def test_a_generic_event_is_named_by_itself_with_its_fields_as_args():
    e = EmbeddedEngine(ingest_ftrace_in_raw=True)
    e.load_bytes(_trace(), "generic")
    try:
        rows = e.query(GENERIC_ARGS).rows()
    finally:
        e.close()
    assert rows == [("mali_pm_status", "event", 4, None, "int"),
                    ("mali_pm_status", "value", -3, None, "int"),
                    ("mali_pm_status", "gpu", None, "mali0", "string")]


def test_common_flags_are_the_events_flags_or_zero():
    e = EmbeddedEngine(ingest_ftrace_in_raw=True)
    e.load_bytes(_trace(), "flags")
    try:
        rows = e.query("SELECT ts, name, common_flags FROM ftrace_event ORDER BY ts").rows()
    finally:
        e.close()
    assert rows == [(1_000, "sched_switch", 0), (2_000, "print", 0),
                    (3_000, "sched_waking", 0x8d), (3_500, "sched_waking", 0),
                    (4_000, "sched_waking", 0x1), (5_000, "mali_pm_status", 0)]


@pytest.mark.tp
def test_same_ftrace_event_as_trace_processor(tmp_path, tp_bin):
    path = tmp_path / "flags.pftrace"
    path.write_bytes(_trace())
    diffs = {d.table: set(d.aspects) for d in compare_tp.compare_trace(path, tp_bin)
             if d.table == "ftrace_event" and d.aspects}
    # sched_switch / sched_waking rows with their args too
    assert diffs == {}

    from artscope.engines.trace_processor import TraceProcessorEngine

    tp = TraceProcessorEngine(tp_bin=tp_bin)
    try:
        tp.load(path)
        assert tp.query(GENERIC_ARGS).rows() == [
            ("mali_pm_status", "event", 4, None, "int"),
            ("mali_pm_status", "value", -3, None, "int"),
            ("mali_pm_status", "gpu", None, "mali0", "string")]
    finally:
        tp.close()


def _generic_named_as_typed() -> bytes:
    """Legacy generic events whose names are typed events' names."""
    trace = pb.Trace()
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 0
    for ts, name in ((1_000, "cpu_frequency"), (2_000, "gpu_power_state")):
        g = bundle.event.add(timestamp=ts, pid=7).generic
        g.event_name = name
        g.field.add(name="state", uint_value=1)
    return trace.SerializeToString()


def test_a_generic_event_is_never_parsed_as_the_typed_event_of_its_name(load_embedded):
    # trace_processor keeps a generic event's raw row and nothing else: no
    # cpufreq counter, no powervr slice, nothing reported as skipped
    eng = load_embedded(_generic_named_as_typed(), "generic_typed")
    assert eng.query("SELECT ts, name FROM ftrace_event ORDER BY ts").rows() == [
        (1_000, "cpu_frequency"), (2_000, "gpu_power_state")]
    assert eng.query("SELECT (SELECT count(*) FROM counter) + (SELECT count(*) FROM slice) "
                     "+ (SELECT count(*) FROM stats WHERE name LIKE 'artscope_skipped%' "
                     "AND value > 0)").item() == 0


@pytest.mark.tp
def test_generic_named_as_typed_as_trace_processor(tp_diffs):
    diffs, compared = tp_diffs(_generic_named_as_typed())
    assert {"ftrace_event", "counter", "slice", "args"} <= compared
    assert diffs == {}
