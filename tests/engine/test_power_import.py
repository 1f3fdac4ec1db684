"""The embedded engine imports power data as trace_processor does:
battery counters (with charge and power derived), power rails, energy
estimation breakdown, entity state residency, cpu time per uid, disk stats,
wakelock and suspend/resume slices. Every expected value below is derived by
hand from the trace built here (see the comments), not from the engine."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine


def _trace() -> bytes:
    t = pb.Trace()
    # --- battery: one full sample, one with energy and voltage only
    p = t.packet.add(timestamp=1_000)
    b = p.battery
    b.name = "bat"
    b.charge_counter_uah = 4_000_000
    b.capacity_percent = 80.5
    b.current_ua = -500_000
    b.voltage_uv = 4_000_000
    p = t.packet.add(timestamp=2_000)
    p.battery.energy_counter_uwh = 15_000_000
    p.battery.voltage_uv = 3_000_000
    # --- power rails: a descriptor-only packet, then samples
    p = t.packet.add()
    p.power_rails.rail_descriptor.add(index=0, rail_name="S4M_VDD_CPUCL0",
                                      subsys_name="cpu", sampling_rate=10)
    p.power_rails.rail_descriptor.add(index=1, rail_name="VDD_FOO", sampling_rate=10)
    p = t.packet.add(timestamp=5_000_000)
    p.power_rails.energy_data.add(index=0, energy=100)  # at the packet's ts
    p.power_rails.energy_data.add(index=1, timestamp_ms=4, energy=7)  # at 4 ms
    p.power_rails.energy_data.add(index=9, energy=1)  # no such rail
    # --- energy breakdown: a descriptor, then data
    p = t.packet.add()
    p.android_energy_estimation_breakdown.energy_consumer_descriptor.energy_consumers.add(
        energy_consumer_id=2, ordinal=1, type="OTHER", name="GPU")
    p = t.packet.add(timestamp=6_000)
    e = p.android_energy_estimation_breakdown
    e.energy_consumer_id = 2
    e.energy_uws = 900
    e.per_uid_breakdown.add(uid=10123, energy_uws=300)
    e.per_uid_breakdown.add(energy_uws=5)  # no uid
    p = t.packet.add(timestamp=7_000)
    p.android_energy_estimation_breakdown.energy_consumer_id = 5  # no descriptor
    p.android_energy_estimation_breakdown.energy_uws = 1
    # --- entity residency: a known and an unknown state
    p = t.packet.add(timestamp=3_000)
    r = p.entity_state_residency
    r.power_entity_state.add(entity_index=0, state_index=0, entity_name="Wifi",
                             state_name="On")
    r.residency.add(entity_index=0, state_index=0, total_time_in_state_ms=1234)
    r.residency.add(entity_index=1, state_index=1, total_time_in_state_ms=1)
    # --- cpu per uid: 2 clusters; absolute values first, increments after
    p = t.packet.add(timestamp=10_000, trusted_packet_sequence_id=4)
    c = p.cpu_per_uid_data
    c.cluster_count = 2
    c.uid.extend([1000, 10123])
    c.total_time_ms.extend([100, 200, 300, 400])
    p = t.packet.add(timestamp=20_000, trusted_packet_sequence_id=4)
    p.cpu_per_uid_data.uid.extend([1000])
    p.cpu_per_uid_data.total_time_ms.extend([5, 0])
    # --- disk stats: two samples of sda
    for ts, read, read_ms, flushes in ((1_000, 2048, 100, 1), (2_000, 6144, 600, 4)):
        p = t.packet.add(timestamp=ts)
        d = p.sys_stats.disk_stat.add(device_name="sda", read_sectors=read,
                                      read_time_ms=read_ms, write_sectors=10,
                                      write_time_ms=5, flush_count=flushes)
    # --- ftrace: a wakelock held twice, a suspend whose prepare failed
    p = t.packet.add()
    bundle = p.ftrace_events
    bundle.cpu = 1
    for ts, kind in ((100, "a"), (150, "a"), (200, "d"), (300, "d")):
        ev = bundle.event.add(timestamp=ts, pid=0)
        w = ev.wakeup_source_activate if kind == "a" else ev.wakeup_source_deactivate
        w.name = "wl"
    for ts, action, val, start in ((1_000, "suspend_enter", 3, 1),
                                   (1_100, "freeze_processes", 0, 1),
                                   (1_200, "thaw_processes", 0, 1),
                                   (1_300, "thaw_processes", 0, 0),
                                   (1_400, "freeze_processes", 0, 0)):
        ev = bundle.event.add(timestamp=ts, pid=0)
        ev.suspend_resume.action = action
        ev.suspend_resume.val = val
        ev.suspend_resume.start = start
    for ts, start in ((2_000, 1), (2_500, 0)):
        ev = bundle.event.add(timestamp=ts, pid=0)
        ev.suspend_resume_minimal.start = start
    return t.SerializeToString()


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    path = tmp_path_factory.mktemp("power") / "power.pftrace"
    path.write_bytes(_trace())
    eng = EmbeddedEngine()
    eng.load(path)
    yield eng
    eng.close()


def _counters(eng, glob: str) -> list[tuple]:
    return eng.query(
        "SELECT t.name, c.ts, c.value FROM counter c JOIN counter_track t "
        f"ON t.id = c.track_id WHERE t.name GLOB '{glob}' ORDER BY t.name, c.ts").rows()


def _stat(eng, name: str) -> int:
    return eng.query(f"SELECT value FROM stats WHERE name = '{name}'").rows()[0][0]


def test_battery_counters_and_derived_charge_and_power(engine):
    assert _counters(engine, "batt.*") == [
        ("batt.bat.capacity_pct", 1_000, 80.5),
        ("batt.bat.charge_uah", 1_000, 4_000_000.0),
        ("batt.bat.current_ua", 1_000, -500_000.0),
        # |-500000 uA * 4000000 uV| / 1e9 = 2000 mW
        ("batt.bat.power_mw", 1_000, 2_000.0),
        ("batt.bat.voltage_uv", 1_000, 4_000_000.0),
        # unnamed battery: 15000000 uWh * 1e6 / 3000000 uV = 5000000 uAh
        ("batt.charge_uah", 2_000, 5_000_000.0),
        ("batt.voltage_uv", 2_000, 3_000_000.0),
    ]
    # an unnamed battery's dimension is a NULL string (the field is absent)
    assert engine.query(
        "SELECT value_type, string_value FROM args WHERE key = 'battery_name' "
        "AND string_value IS NULL").rows() == [("string", None)] * 2


def test_power_rails(engine):
    rows = engine.query(
        "SELECT t.name, c.ts, c.value, extract_arg(c.arg_set_id, 'packet_ts'), "
        "extract_arg(t.source_arg_set_id, 'subsystem_name') FROM counter c "
        "JOIN track t ON t.id = c.track_id WHERE t.type = 'power_rails' ORDER BY c.ts").rows()
    assert rows == [
        # timestamp_ms 4 -> 4,000,000 ns; a rail without subsystem
        ("power.VDD_FOO_uws", 4_000_000, 7.0, 5_000_000, None),
        # a well-known rail (its name's suffix) at the packet's timestamp
        ("power.rails.cpu.little", 5_000_000, 100.0, 5_000_000, "cpu"),
    ]
    assert _stat(engine, "power_rail_unknown_index") == 1
    assert _stat(engine, "power_rail_empty_packet") == 1


def test_energy_breakdown(engine):
    assert engine.query(
        "SELECT t.type, t.name, extract_arg(t.dimension_arg_set_id, 'uid'), "
        "extract_arg(t.source_arg_set_id, 'consumer_type'), "
        "extract_arg(t.source_arg_set_id, 'ordinal'), c.ts, c.value FROM counter c "
        "JOIN track t ON t.id = c.track_id WHERE t.type GLOB 'android_energy*' "
        "ORDER BY t.type").rows() == [
        ("android_energy_estimation_breakdown", "GPU", None, "OTHER", 1, 6_000, 900.0),
        ("android_energy_estimation_breakdown_per_uid", "GPU", 10123, None, None, 6_000, 300.0),
    ]
    assert _stat(engine, "energy_uid_breakdown_missing_values") == 1
    assert _stat(engine, "energy_breakdown_missing_values") == 1  # consumer 5


def test_entity_state_residency(engine):
    assert _counters(engine, "Entity residency*") == [
        ("Entity residency: Wifi is On", 3_000, 1234.0)]
    assert _stat(engine, "entity_state_residency_lookup_failed") == 1


def test_cpu_per_uid(engine):
    assert _counters(engine, "CPU for *") == [
        ("CPU for Apps CL0", 10_000, 0.0),
        ("CPU for Apps CL1", 10_000, 0.0),
        # uid 1000 is a system uid: its 5 ms more on cluster 0
        ("CPU for System CL0", 10_000, 0.0),
        ("CPU for System CL0", 20_000, 5.0),
        ("CPU for System CL1", 10_000, 0.0),
        ("CPU for UID 1000 CL0", 10_000, 100.0),
        ("CPU for UID 1000 CL0", 20_000, 105.0),
        # unchanged values are left out (sparse)
        ("CPU for UID 1000 CL1", 10_000, 200.0),
        ("CPU for UID 10123 CL0", 10_000, 300.0),
        ("CPU for UID 10123 CL1", 10_000, 400.0),
    ]
    assert engine.query("SELECT DISTINCT unit FROM counter_track "
                        "WHERE type GLOB 'android_cpu_per_uid*'").rows() == [("ms",)]
    assert engine.query(
        "SELECT uid, cluster, total_cpu_millis FROM __intrinsic_android_cpu_per_uid_track "
        "ORDER BY uid, cluster").rows() == [
        (1000, 0, 5), (1000, 1, 0), (10123, 0, 0), (10123, 1, 0)]


def test_disk_stats(engine):
    rows = engine.query(
        "SELECT t.name, t.unit, c.ts, c.value FROM counter c JOIN counter_track t "
        "ON t.id = c.track_id WHERE t.type = 'diskstat' ORDER BY t.name").rows()
    assert rows == [
        ("diskstat.[sda].discard_amount", "MB", 2_000, 0.0),
        ("diskstat.[sda].discard_throughput", "MB/s", 2_000, 0.0),
        ("diskstat.[sda].flush_amount", "count", 2_000, 3.0),
        ("diskstat.[sda].flush_time", "ms", 2_000, 0.0),
        # 4096 sectors of 512 bytes = 2 MB in 500 ms = 4 MB/s
        ("diskstat.[sda].read_amount", "MB", 2_000, 2.0),
        ("diskstat.[sda].read_throughput", "MB/s", 2_000, 4.0),
        ("diskstat.[sda].write_amount", "MB", 2_000, 0.0),
        ("diskstat.[sda].write_throughput", "MB/s", 2_000, 0.0),
    ]


def test_wakelock_and_suspend_resume_slices(engine):
    assert engine.query(
        "SELECT s.ts, s.dur, s.name FROM slice s JOIN track t ON t.id = s.track_id "
        "WHERE t.type = 'wakesource_wakelock'").rows() == [
        (100, 200, "Wakelock(wl)")]  # held from the first activation to the last release
    assert engine.query(
        "SELECT s.ts, s.dur, s.name, extract_arg(t.dimension_arg_set_id, "
        "'track_compressor_idx') FROM slice s JOIN track t ON t.id = s.track_id "
        "WHERE t.name = 'Suspend/Resume Latency' ORDER BY s.ts").rows() == [
        # thaw_processes ending inside freeze_processes closes suspend_enter too
        (1_000, 300, "suspend_enter(3)", 0),
        (1_100, 300, "freeze_processes(0)", 1),
        (1_200, 100, "thaw_processes(0)", 2),
    ]
    assert engine.query(
        "SELECT s.ts, s.dur, s.name FROM slice s JOIN track t ON t.id = s.track_id "
        "WHERE t.name = 'Suspend/Resume Minimal'").rows() == [(2_000, 500, "Suspended")]


def test_packet_in_a_custom_clock_is_converted_to_boottime(tmp_path):
    t = pb.Trace()
    p = t.packet.add(timestamp=1_000_000_000)
    p.clock_snapshot.clocks.add(clock_id=6, timestamp=1_000_000_000)  # BOOTTIME
    p.clock_snapshot.clocks.add(clock_id=128, timestamp=500)
    p = t.packet.add(timestamp=600, timestamp_clock_id=128)
    p.battery.capacity_percent = 50
    p = t.packet.add(timestamp=2_000_000_000)  # already BOOTTIME
    p.battery.capacity_percent = 40
    path = tmp_path / "clock.pftrace"
    path.write_bytes(t.SerializeToString())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        # 600 on clock 128 is 100 after the snapshot: 1_000_000_000 + 100
        assert _counters(eng, "batt.*") == [
            ("batt.capacity_pct", 1_000_000_100, 50.0),
            ("batt.capacity_pct", 2_000_000_000, 40.0),
        ]
    finally:
        eng.close()


def test_cpu_per_uid_times_are_absolute_again_after_incremental_state_is_cleared(tmp_path):
    t = pb.Trace()
    cleared, needs = 1, 2  # SEQ_INCREMENTAL_STATE_CLEARED, SEQ_NEEDS_INCREMENTAL_STATE
    for ts, flags, value in ((10_000, cleared, 100), (20_000, needs, 5),
                             (30_000, cleared, 200), (40_000, needs, 7)):
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=4, sequence_flags=flags)
        if flags == cleared:
            p.cpu_per_uid_data.cluster_count = 1
        p.cpu_per_uid_data.uid.append(1000)
        p.cpu_per_uid_data.total_time_ms.append(value)
    path = tmp_path / "uid.pftrace"
    path.write_bytes(t.SerializeToString())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        assert _counters(eng, "CPU for *") == [
            # increments since the previous value: 5, 200 - 105 = 95, 7
            ("CPU for System CL0", 10_000, 0.0),
            ("CPU for System CL0", 20_000, 5.0),
            ("CPU for System CL0", 30_000, 100.0),
            ("CPU for System CL0", 40_000, 107.0),
            # 100, +5, 200 absolute after the clear, +7
            ("CPU for UID 1000 CL0", 10_000, 100.0),
            ("CPU for UID 1000 CL0", 20_000, 105.0),
            ("CPU for UID 1000 CL0", 30_000, 200.0),
            ("CPU for UID 1000 CL0", 40_000, 207.0),
        ]
    finally:
        eng.close()
