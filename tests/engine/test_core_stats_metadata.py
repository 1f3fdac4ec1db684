"""The embedded engine's `stats`, `metadata` and `trace_bounds` as
trace_processor fills them: every stat trace_processor knows is
listed, zeros included; the counters traced / the ftrace ring buffer recorded
are there under trace_processor's names; the metadata keys come from the same
packets. Expected values are derived by hand from the traces built here."""

from __future__ import annotations

import gzip

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

FINGERPRINT = "google/bench/bench:11/RQ3A.210805.001/7474174:user/release-keys"


def _trace() -> bytes:
    """System info, a TraceUuid, tracing service events, ftrace stats at the
    start and end, one TraceStats, and ftrace events before and after tracing
    started."""
    t = pb.Trace()
    p = t.packet.add(timestamp=10)
    si = p.system_info
    si.utsname.sysname = "Linux"
    si.utsname.release = "5.10.43"
    si.utsname.machine = "aarch64"
    si.android_build_fingerprint = FINGERPRINT  # no sdk version: 11 -> 30
    si.tracing_service_version = "Perfetto v40.0"
    si.system_ram_bytes = 7_600_000_000  # rounds to 8 GB
    p = t.packet.add()
    p.trace_uuid.msb = 0x0123456789ABCDEF
    p.trace_uuid.lsb = 0x0FEDCBA987654321
    p = t.packet.add(timestamp=100)
    p.service_event.tracing_started = True
    p = t.packet.add(timestamp=120)
    p.service_event.all_data_sources_started = True
    p = t.packet.add(timestamp=20, trusted_packet_sequence_id=3)
    fs = p.ftrace_stats
    fs.phase = pb.FtraceStats.START_OF_TRACE
    fs.cpu_stats.add(cpu=0, entries=5, overrun=1, bytes_read=100, now_ts=1.5)
    fs.failed_ftrace_events.extend(["sched/sched_foo", "sched/sched_bar"])
    fs.atrace_errors = "no such category"
    # two ftrace events before tracing started (dropped), one after
    p = t.packet.add()
    bundle = p.ftrace_events
    bundle.cpu = 0
    for ts in (50, 60, 150):
        ev = bundle.event.add(timestamp=ts, pid=0)
        ev.cpu_frequency.state = 1_000_000
        ev.cpu_frequency.cpu_id = 0
    p = t.packet.add(timestamp=400, trusted_packet_sequence_id=3)
    fs = p.ftrace_stats
    fs.phase = pb.FtraceStats.END_OF_TRACE
    fs.cpu_stats.add(cpu=0, entries=9, overrun=4, bytes_read=250, now_ts=2.0)
    p = t.packet.add(timestamp=200)
    p.service_event.all_data_sources_flushed = True
    p = t.packet.add(timestamp=300)
    p.service_event.all_data_sources_flushed = True
    p = t.packet.add(timestamp=410)
    p.service_event.tracing_disabled = True
    p = t.packet.add(timestamp=420)
    ts_ = p.trace_stats
    ts_.producers_connected = 2
    ts_.chunks_discarded = 7
    buf = ts_.buffer_stats.add()
    buf.buffer_size = 4096
    buf.bytes_written = 1000
    buf.chunks_overwritten = 3
    return t.SerializeToString()


def _open(tmp_path, data: bytes, name: str = "t.pftrace") -> EmbeddedEngine:
    path = tmp_path / name
    path.write_bytes(data)
    eng = EmbeddedEngine()
    eng.load(path)
    return eng


@pytest.fixture
def engine(tmp_path):
    eng = _open(tmp_path, _trace())
    yield eng
    eng.close()


def _stat(eng, name: str, idx: int | None = None) -> list[int]:
    where = "idx IS NULL" if idx is None else f"idx = {idx}"
    return [r[0] for r in eng.query(
        f"SELECT value FROM stats WHERE name = '{name}' AND {where}").rows()]


def test_every_single_stat_is_listed_with_trace_processors_description(engine):
    rows = engine.query("SELECT name, key, severity, source, value, description "
                        "FROM stats WHERE idx IS NULL AND key IS NOT NULL").rows()
    names = [r[0] for r in rows]
    assert len(names) == len(set(names))
    # stats.h entries (the data list): zeros included
    by_name = {r[0]: r[1:] for r in rows}
    assert by_name["mismatched_sched_switch_tids"][1:4] == ("error", "analysis", 0)
    assert by_name["misplaced_end_event"][1:4] == ("data_loss", "analysis", 0)
    assert by_name["sorter_push_event_out_of_order"][4].startswith(
        "Trace events are out of order event after sorting.")
    # the processor's own run (global scope) is listed first
    assert names[:2] == ["deobfuscate_location_parse_error", "guess_trace_type_duration_ns"]
    assert engine.query("SELECT value FROM stats WHERE name = "
                        "'parse_trace_duration_ns'").rows()[0][0] > 0


def test_ftrace_and_traced_stats_under_trace_processors_names(engine):
    # start -> end per cpu, the delta only for counters recorded at the start
    assert _stat(engine, "ftrace_cpu_entries_begin", 0) == [5]
    assert _stat(engine, "ftrace_cpu_entries_end", 0) == [9]
    assert _stat(engine, "ftrace_cpu_entries_delta", 0) == [4]
    assert _stat(engine, "ftrace_cpu_overrun_delta", 0) == [3]
    assert _stat(engine, "ftrace_cpu_bytes_delta", 0) == [150]
    assert _stat(engine, "ftrace_cpu_now_ts_begin", 0) == [1_500_000_000]
    assert _stat(engine, "ftrace_cpu_now_ts_delta", 0) == []  # no such stat
    # two failed events and one atrace error, counted once for the sequence
    assert _stat(engine, "ftrace_setup_errors") == [3]
    # the two events before tracing_started are dropped and counted
    assert _stat(engine, "ftrace_packet_before_tracing_start") == [2]
    assert engine.query("SELECT count(*) FROM counter").rows() == [(1,)]
    assert _stat(engine, "traced_producers_connected") == [2]
    assert _stat(engine, "traced_chunks_discarded") == [7]
    assert _stat(engine, "traced_buf_bytes_written", 0) == [1000]
    assert _stat(engine, "traced_buf_chunks_overwritten", 0) == [3]
    assert _stat(engine, "traced_buf_padding_bytes_written", 0) == [0]


def test_metadata_from_the_same_packets(engine, tmp_path):
    rows = engine.query("SELECT name, key_type, int_value, str_value FROM metadata").rows()
    md = {(n, i if i is not None else s) for n, _, i, s in rows}
    size = (tmp_path / "t.pftrace").stat().st_size
    assert md == {
        ("trace_uuid", "01234567-89ab-cdef-0fed-cba987654321"),
        ("trace_type", "proto"),
        ("trace_size_bytes", size),
        ("system_name", "Linux"),
        ("system_release", "5.10.43"),
        ("system_machine", "aarch64"),
        ("system_version", None),  # utsname without a version: NULL
        ("android_build_fingerprint", FINGERPRINT),
        ("android_incremental_build", "7474174"),
        ("android_sdk_version", 30),
        ("tracing_service_version", "Perfetto v40.0"),
        ("system_ram_bytes", 7_600_000_000),
        ("system_ram_gb", 8),
        ("tracing_started_ns", 100),
        ("all_data_source_started_ns", 120),
        ("all_data_source_flushed_ns", 200),
        ("all_data_source_flushed_ns", 300),
        ("tracing_disabled_ns", 410),
    }
    multi = [r for r in rows if r[1] == "multi"]
    assert sorted(r[2] for r in multi) == [200, 300]
    assert all(r[0] == "all_data_source_flushed_ns" for r in multi)


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def test_trace_without_uuid_or_timestamps(tmp_path):
    """No UUID recorded: trace_processor's is the FNV-1a hash of the file's
    first 4 KiB as read (a gzip file's compressed bytes), and the size is the
    trace's inside its container. No timestamped data: bounds (0, 0)."""
    t = pb.Trace()
    t.packet.add().system_info.utsname.sysname = "Linux"
    raw = t.SerializeToString()
    data = gzip.compress(raw)
    eng = _open(tmp_path, data, "t.pftrace.gz")
    try:
        md = dict((n, i if i is not None else s) for n, i, s in eng.query(
            "SELECT name, int_value, str_value FROM metadata").rows())
        h = f"{_fnv1a64(data[:4096]):016x}"
        assert md["trace_uuid"] == f"00000000-0000-0000-{h[:4]}-{h[4:]}"
        assert md["trace_size_bytes"] == len(raw)
        assert md["trace_type"] == "proto"
        assert eng.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [(0, 0)]
    finally:
        eng.close()


def test_empty_and_absent_metadata_strings(tmp_path):
    """A string field present but empty is '' (trace_processor interns it);
    an absent utsname field is NULL (its null string id); all four utsname
    keys are recorded either way."""
    t = pb.Trace()
    si = t.packet.add().system_info
    si.utsname.sysname = "Linux"
    si.utsname.release = ""
    si.android_build_fingerprint = ""
    eng = _open(tmp_path, t.SerializeToString(), "t.pftrace")
    try:
        assert eng.query(
            "SELECT name, str_value FROM metadata WHERE name LIKE 'system_%' "
            "OR name = 'android_build_fingerprint'").rows() == [
            ("system_name", "Linux"), ("system_version", None), ("system_release", ""),
            ("system_machine", None), ("android_build_fingerprint", "")]
    finally:
        eng.close()


def _android_trace() -> bytes:
    """CpuInfo (cpu 0 with an ARM identifier and feature bits mte + an
    unknown bit 2), one cpu_frequency event read on cpu 3 for cpu 5, a
    packages list naming one package twice, triggers out of file order (no
    producer: no args) and trace attributes in the config and in a later
    packet."""
    t = pb.Trace()
    p = t.packet.add()
    c0 = p.cpu_info.cpus.add(processor="A55")
    c0.arm_identifier.implementer = 0x41
    c0.arm_identifier.architecture = 8
    c0.arm_identifier.variant = 1
    c0.arm_identifier.part = 0xD05
    c0.arm_identifier.revision = 0
    c0.features = 0b101
    p.cpu_info.cpus.add(processor="A55")
    p = t.packet.add()
    p.trace_config.trace_attributes.attribute.add(key="build", string_value="b1")
    p.trace_config.trace_attributes.attribute.add(key="variant", string_value="arm64")
    p = t.packet.add()
    p.trace_attributes.attribute.add(key="variant", string_value="x86")
    p.trace_attributes.attribute.add(key="runs", long_value=3)
    p = t.packet.add()
    bundle = p.ftrace_events
    bundle.cpu = 3
    ev = bundle.event.add(timestamp=1_000, pid=0)
    ev.cpu_frequency.state = 1_000_000
    ev.cpu_frequency.cpu_id = 5
    p = t.packet.add()
    p.packages_list.packages.add(name="com.a", uid=10001, version_code=1)
    p.packages_list.packages.add(name="com.b", uid=10002)
    p = t.packet.add()
    p.packages_list.packages.add(name="com.a", uid=10001, version_code=2)
    p.packages_list.read_error = True
    for ts, name in ((3_000, "late"), (2_000, "early")):
        p = t.packet.add(timestamp=ts)
        p.trigger.trigger_name = name
    return t.SerializeToString()


def test_cpu_rows_args_packages_triggers_and_attributes(tmp_path):
    eng = _open(tmp_path, _android_trace())
    try:
        # cpu rows: CpuInfo's cpus, the cpu an ftrace event was read on and
        # the cpu a counter track is for
        cpus = eng.query("SELECT cpu, processor, arg_set_id FROM cpu ORDER BY cpu").rows()
        assert [c[:2] for c in cpus] == [(0, "A55"), (1, "A55"), (3, None), (5, None)]
        assert [c[2] is None for c in cpus] == [False, True, True, True]
        args = eng.query(f"SELECT key, int_value, value_type FROM args "
                         f"WHERE arg_set_id = {cpus[0][2]} ORDER BY key").rows()
        assert args == [("arm_cpu_architecture", 8, "uint"),
                        ("arm_cpu_implementer", 0x41, "uint"),
                        ("arm_cpu_part", 0xD05, "uint"),
                        ("arm_cpu_revision", 0, "uint"),
                        ("arm_cpu_variant", 1, "uint"),
                        ("cpu_features.mte", 1, "bool"),
                        ("cpu_features.raw_bitmap", 5, "uint")]
        assert _stat(eng, "cpu_info_unknown_cpu_features") == [1]
        # each package once, as first listed
        assert eng.query("SELECT package_name, version_code FROM package_list "
                         "ORDER BY package_name").rows() == [("com.a", 1), ("com.b", 0)]
        assert _stat(eng, "packages_list_has_read_errors") == [1]
        md = dict((n, i if i is not None else s) for n, i, s in eng.query(
            "SELECT name, int_value, str_value FROM metadata").rows())
        assert md["trace_trigger"] == "early"  # the first in time
        # each trigger: an instant on the trace's "Trace Triggers" track
        assert eng.query("SELECT s.ts, s.dur, s.name, t.name, t.type FROM slice s "
                         "JOIN track t ON t.id = s.track_id ORDER BY s.ts").rows() == [
            (2_000, 0, "early", "Trace Triggers", "triggers"),
            (3_000, 0, "late", "Trace Triggers", "triggers")]
        assert {k: v for k, v in md.items() if k.startswith("trace_attribute.")} == {
            "trace_attribute.build": "b1", "trace_attribute.variant": "x86",
            "trace_attribute.runs": 3}
    finally:
        eng.close()


def _config_and_range_trace() -> bytes:
    """A trace config whose statsd metadata names the subscription that
    triggered it, a TrackEventRangeOfInterest starting at 1234 us and one
    without a start."""
    t = pb.Trace()
    cfg = t.packet.add(trusted_packet_sequence_id=1).trace_config
    cfg.buffers.add(size_kb=1024)
    cfg.statsd_metadata.triggering_subscription_id = 42
    for ts, start_us in [(2_000, 1234), (3_000, None)]:
        roi = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1).track_event_range_of_interest
        if start_us is None:
            roi.SetInParent()
        else:
            roi.start_us = start_us
    return t.SerializeToString()


RANGE_AND_SUBSCRIPTION = (
    "SELECT name, int_value FROM metadata WHERE name IN "
    "('statsd_triggering_subscription_id', 'range_of_interest_start_us') ORDER BY name")


def test_statsd_subscription_and_range_of_interest(tmp_path):
    eng = _open(tmp_path, _config_and_range_trace())
    assert eng.query(RANGE_AND_SUBSCRIPTION).rows() == [
        ("range_of_interest_start_us", 1234), ("statsd_triggering_subscription_id", 42)]
    assert _stat(eng, "track_event_range_of_interest_missing_start_us") == [1]


@pytest.mark.tp
def test_statsd_subscription_and_range_of_interest_as_trace_processor(tp_diffs, tp_rows, tmp_path):
    differ, _ = tp_diffs(_config_and_range_trace())
    assert differ == {}
    eng = _open(tmp_path, _config_and_range_trace())
    assert eng.query(RANGE_AND_SUBSCRIPTION).rows() == tp_rows(_config_and_range_trace(),
                                                                RANGE_AND_SUBSCRIPTION)


def _wallpaper_trace() -> bytes:
    """The wallpaper's system properties (read as metadata by the reference
    build, after v58.2): the class name, then the package name twice, among
    a boot-profiling property and the screen state."""
    t = pb.Trace()
    for ts, props in [(1000, [("debug.tracing.wallpaper.class_name", "W"),
                              ("debug.tracing.profile_system_server", "1"),
                              ("debug.tracing.wallpaper.package_name", "com.wall")]),
                      (2000, [("debug.tracing.wallpaper.package_name", "com.wall2"),
                              ("debug.tracing.screen_state", "2")])]:
        p = t.packet.add(timestamp=ts, trusted_packet_sequence_id=1).android_system_property
        for name, value in props:
            p.values.add(name=name, value=value)
    return t.SerializeToString()


WALLPAPER = "SELECT name, str_value, machine_id, trace_id FROM metadata WHERE name GLOB '*wallpaper*'"


def test_wallpaper_properties_are_metadata(tmp_path):
    eng = _open(tmp_path, _wallpaper_trace())
    # named by the property, in the order first set, the last value winning;
    # like other keys the reference has no fixed scope for, of machine 0 and
    # trace 0
    assert eng.query(WALLPAPER).rows() == [
        ("debug.tracing.wallpaper.class_name", "W", 0, 0),
        ("debug.tracing.wallpaper.package_name", "com.wall2", 0, 0)]
    assert eng.query("SELECT int_value FROM metadata "
                     "WHERE name = 'android_profile_system_server'").item() == 1


@pytest.mark.tp
def test_wallpaper_properties_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_wallpaper_trace())
    assert "metadata" in compared and differ == {}


def _nameless_packages_trace() -> bytes:
    """Packages without a name (the null string): the first one is a row
    with a NULL package_name; a second one is the same package by name ("",
    as ParseAndroidPackagesList dedupes) and no row; one named "" is that
    package too."""
    t = pb.Trace()
    p = t.packet.add()
    p.packages_list.packages.add(uid=10001, version_code=1)
    p.packages_list.packages.add(uid=10002, version_code=2)
    p.packages_list.packages.add(name="", uid=10003, version_code=3)
    p.packages_list.packages.add(name="com.a", uid=10004, version_code=4)
    return t.SerializeToString()


NAMELESS_PACKAGES = "SELECT package_name, uid, version_code FROM package_list ORDER BY id"
EXPECTED_NAMELESS_PACKAGES = [(None, 10001, 1), ("com.a", 10004, 4)]


def test_a_package_without_a_name(tmp_path):
    eng = _open(tmp_path, _nameless_packages_trace())
    try:
        assert eng.query(NAMELESS_PACKAGES).rows() == EXPECTED_NAMELESS_PACKAGES
    finally:
        eng.close()


@pytest.mark.tp
def test_a_package_without_a_name_as_trace_processor(tp_rows):
    assert tp_rows(_nameless_packages_trace(), NAMELESS_PACKAGES) == EXPECTED_NAMELESS_PACKAGES
