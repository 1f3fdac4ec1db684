"""AndroidSystemProperty packets, as trace_processor's
AndroidProbesParser reads them: the device state as an instant on the
global DeviceStateChanged track, integer properties as counters (screen
state, battery_stats.*, mcc / mnc, battery_status / plug_type), the
boot-profiling ones as metadata; other properties and non-integer values are
ignored. The diff tests test_android_system_property_* and
test_battery_stats_tracks cover the screen state, device state and
battery_stats; this covers the rest."""

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
    for ts, props in [
        (1_000, {"debug.tracing.mcc": "310", "debug.tracing.mnc": "260",
                 "debug.tracing.battery_status": "2", "debug.tracing.plug_type": "1",
                 "debug.tracing.profile_boot_classpath": "1",
                 "debug.tracing.unrelated": "5", "debug.tracing.screen_state": "on"}),
        (2_000, {"debug.tracing.plug_type": "0"}),
    ]:
        p = trace.packet.add(timestamp=ts)
        for name, value in props.items():
            p.android_system_property.values.add(name=name, value=value)
    return trace.SerializeToString()


COUNTERS = ("SELECT t.name, t.type, c.ts, c.value FROM counter c "
            "JOIN counter_track t ON c.track_id = t.id ORDER BY t.name, c.ts")


def test_system_properties_become_counters_and_metadata():
    e = EmbeddedEngine()
    e.load_bytes(_trace(), "sysprop")
    try:
        counters = e.query(COUNTERS).rows()
        meta = e.query("SELECT int_value FROM metadata "
                       "WHERE name = 'android_profile_boot_classpath'").rows()
    finally:
        e.close()
    assert counters == [("BatteryStatus", "sysprop_counter", 1_000, 2.0),
                        ("PlugType", "sysprop_counter", 1_000, 1.0),
                        ("PlugType", "sysprop_counter", 2_000, 0.0),
                        ("mcc", "sysprop_counter", 1_000, 310.0),
                        ("mnc", "sysprop_counter", 1_000, 260.0)]
    assert meta == [(1,)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tmp_path, tp_bin):
    path = tmp_path / "sysprop.pftrace"
    path.write_bytes(_trace())
    tables = ("counter", "counter_track", "track", "slice")
    assert compare_tp.differing_tables(path, tables, tp_bin) == {}
