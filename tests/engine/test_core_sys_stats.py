"""SysStats counters as trace_processor's SystemProbesParser makes them:
vmstat, per-cpu times (/proc/stat), hard and soft irq counts and
their totals, forks, buddy allocator blocks, pressure stall information and
slab caches, besides meminfo, devfreq, cpufreq, disk, thermal, cpuidle and
gpufreq; in the reference's order within a packet. Expected values are
derived by hand from the schedule below; the tables are also compared with
the real trace_processor's.

Schedule (one SysStats payload per packet):

* ts 100: meminfo MemTotal 8 kB; devfreq ddr 1000; cpufreq 300000 / 400000
  kHz; vmstat nr_free_pages (1) 500, key 999 (unknown: vmstat_unknown_keys)
  7, key 0 (VmstatUnspecified) 3; cpu 1's times 10, 20, ... 80 ns and a
  CpuTimes without cpu_id (invalid_cpu_times); irq 5: 11, irq -1: 12 (the
  dimension is unsigned: 4294967295); softirq 2: 13; forks 14, irq total 15,
  softirq total 16; buddyinfo node 0 zone Normal, orders 0..2: 9, 8, 7
  blocks; slab kmalloc-64: 2 pages per slab, 3 slabs; disk sda; thermal
  cpu_therm 40; gpufreq 500; cpuidle cpu 0 C1 9 us.
* ts 200: disk sda again; psi cpu.some 1000 ns, then resource 9 (unknown:
  psi_unknown_resource, and the reference stops reading the packet: io.full
  2000 and thermal 41 make no counter).
* ts 300: forks 20.  ts 400: only collection_end_timestamp (no counter).

The page size that sizes buddyinfo blocks and slabs is SystemInfo's: 16384
when it says so, 4096 when it has none, 0 without SystemInfo.
"""

from __future__ import annotations

import pytest
from make_fixtures import f_bytes, f_varint
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _sys_stats_packet(ts: int, s: pb.SysStats, raw: bytes = b"") -> bytes:
    """A packet of one SysStats payload: `s` plus `raw` fields (values the
    protos cannot set, e.g. unknown enum numbers)."""
    return f_varint(8, ts) + f_bytes(pb.TracePacket.SYS_STATS_FIELD_NUMBER,
                                          s.SerializeToString() + raw)


def _trace(page_size: int | None) -> bytes:
    """page_size None: no SystemInfo; 0: a SystemInfo without page_size."""
    packets = []
    if page_size is not None:
        p = pb.TracePacket()
        p.system_info.utsname.sysname = "Linux"
        if page_size:
            p.system_info.page_size = page_size
        packets.append(p.SerializeToString())
    s = pb.SysStats()
    s.meminfo.add(key=1, value=8)
    s.devfreq.add(key="ddr", value=1000)
    s.cpufreq_khz.extend([300000, 400000])
    s.vmstat.add(key=1, value=500)
    s.cpu_stat.add(cpu_id=1, user_ns=10, user_nice_ns=20, system_mode_ns=30, idle_ns=40,
                   io_wait_ns=50, irq_ns=60, softirq_ns=70, steal_ns=80)
    s.cpu_stat.add(user_ns=5)
    s.num_irq.add(irq=5, count=11)
    s.num_irq.add(irq=-1, count=12)
    s.num_softirq.add(irq=2, count=13)
    s.num_forks, s.num_irq_total, s.num_softirq_total = 14, 15, 16
    s.buddy_info.add(node="0", zone="Normal").order_pages.extend([9, 8, 7])
    s.slab_info.add(name="kmalloc-64", pages_per_slab=2, num_slabs=3)
    s.disk_stat.add(device_name="sda", read_sectors=10)
    s.thermal_zone.add(name="tz", temp=40, type="cpu_therm")
    s.gpufreq_mhz.append(500)
    s.cpuidle_state.add(cpu_id=0).cpuidle_state_entry.add(state="C1", duration_us=9)
    unknown_vmstat = (f_bytes(2, f_varint(1, 999) + f_varint(2, 7))
                      + f_bytes(2, f_varint(1, 0) + f_varint(2, 3)))
    packets.append(_sys_stats_packet(100, s, unknown_vmstat))
    s = pb.SysStats()
    s.disk_stat.add(device_name="sda", read_sectors=2058, read_time_ms=1000)
    s.psi.add(resource=1, total_ns=1000)
    after_unknown_psi = (f_bytes(14, f_varint(1, 9) + f_varint(2, 5))
                         + f_bytes(14, f_varint(1, 4) + f_varint(2, 2000))
                         + f_bytes(15, f_bytes(1, b"tz") + f_varint(2, 41)
                                      + f_bytes(3, b"cpu_therm")))
    packets.append(_sys_stats_packet(200, s, after_unknown_psi))
    packets.append(_sys_stats_packet(300, pb.SysStats(num_forks=20)))
    packets.append(_sys_stats_packet(400, pb.SysStats(collection_end_timestamp=450)))
    return b"".join(f_bytes(1, p) for p in packets)


PAGE_SIZES = {"16k_pages": (16384, 16384), "default_pages": (0, 4096), "no_system_info": (None, 0)}


def _counters(eng, types: str) -> list[tuple]:
    return eng.query(
        "SELECT c.ts, t.name, c.value FROM counter c JOIN counter_track t ON t.id = c.track_id "
        f"WHERE t.type IN ({types}) ORDER BY c.ts, c.id").rows()


def test_vmstat_cpu_times_irqs_and_forks(load_embedded) -> None:
    eng = load_embedded(_trace(16384))
    assert _counters(eng, "'vmstat'") == [(100, "nr_free_pages", 500.0),
                                         (100, "VmstatUnspecified", 3.0)]
    times = ["user_ns", "user_nice_ns", "system_mode_ns", "idle_ns", "io_wait_ns", "irq_ns",
             "softirq_ns", "steal_ns"]
    assert _counters(eng, "'cpustat'") == [
        (100, f"cpu.times.{k}", 10.0 * (i + 1)) for i, k in enumerate(times)]
    assert eng.query("SELECT DISTINCT cpu FROM cpu_counter_track WHERE type = 'cpustat'").rows() \
        == [(1,)]
    dims = eng.query("SELECT a.key, a.display_value FROM track t JOIN args a "
                     "ON a.arg_set_id = t.dimension_arg_set_id "
                     "WHERE t.name = 'cpu.times.idle_ns' ORDER BY a.key").rows()
    assert dims == [("cpu", "1"), ("cpustat_key", "idle_ns")]
    assert _counters(eng, "'num_irq', 'num_softirq', 'num_forks', 'num_irq_total', "
                          "'num_softirq_total'") == [
        (100, "num_irq (id: 5)", 11.0), (100, "num_irq (id: 4294967295)", 12.0),
        (100, "num_softirq (id: 2)", 13.0), (100, "num_forks", 14.0),
        (100, "num_irq_total", 15.0), (100, "num_softirq_total", 16.0),
        (300, "num_forks", 20.0)]
    stats = dict(eng.query("SELECT name, value FROM stats WHERE name IN "
                           "('vmstat_unknown_keys', 'invalid_cpu_times', 'psi_unknown_resource')"
                           ).rows())
    assert stats == {"vmstat_unknown_keys": 1, "invalid_cpu_times": 1, "psi_unknown_resource": 1}


def test_psi_stops_the_packet_at_an_unknown_resource(load_embedded) -> None:
    eng = load_embedded(_trace(16384))
    assert _counters(eng, "'psi'") == [(200, "psi.cpu.some", 1000.0)]
    assert _counters(eng, "'thermal_temperature_sys'") == [(100, "cpu_therm", 40.0)]
    # (the disk's second sample, before psi, still makes its counters)
    assert eng.query("SELECT count(*) FROM counter c JOIN counter_track t ON t.id = c.track_id "
                     "WHERE t.name GLOB 'diskstat.*' AND c.ts = 200").item() > 0


@pytest.mark.parametrize("case", PAGE_SIZES)
def test_buddyinfo_and_slabs_are_sized_by_systeminfo_page_size(load_embedded, case) -> None:
    page_size, effective = PAGE_SIZES[case]
    eng = load_embedded(_trace(page_size))
    kb = [(effective << order) // 1024 for order in range(3)]
    if effective:
        assert _counters(eng, "'buddyinfo'") == [
            (100, f"mem.buddyinfo[0][Normal][{kb[0]} kB]", 9.0),
            (100, f"mem.buddyinfo[0][Normal][{kb[1]} kB]", 8.0),
            (100, f"mem.buddyinfo[0][Normal][{kb[2]} kB]", 7.0)]
    else:  # every order's block is 0 kB: one track, three counters
        assert _counters(eng, "'buddyinfo'") == [
            (100, "mem.buddyinfo[0][Normal][0 kB]", v) for v in (9.0, 8.0, 7.0)]
    slab = eng.query("SELECT c.value, t.unit, extract_arg(c.arg_set_id, 'pages_per_slab'), "
                     "extract_arg(c.arg_set_id, 'num_slabs') FROM counter c "
                     "JOIN counter_track t ON t.id = c.track_id "
                     "WHERE t.name = 'mem.slab.kmalloc-64'").rows()
    assert slab == [(2.0 * 3 * effective, "bytes", 2, 3)]


def test_counter_tracks_follow_the_reference_order(load_embedded) -> None:
    eng = load_embedded(_trace(16384))
    types = [t for (t,) in eng.query(
        "SELECT type FROM counter_track GROUP BY type ORDER BY min(id)").rows()]
    # ts 100 in the reference's order (a disk's first sample makes no
    # counter), then ts 200's disk counters and psi
    assert types == ["meminfo", "clock_frequency", "cpu_frequency", "vmstat", "cpustat",
                     "num_irq", "num_softirq", "num_forks", "num_irq_total",
                     "num_softirq_total", "buddyinfo", "thermal_temperature_sys",
                     "cpu_idle_state", "gpu_frequency", "slabinfo", "diskstat", "psi"]


@pytest.mark.tp
@pytest.mark.parametrize("case", PAGE_SIZES)
def test_sys_stats_tables_equal_trace_processor(tp_diffs, case) -> None:
    diffs, compared = tp_diffs(_trace(PAGE_SIZES[case][0]))
    assert {"counter", "counter_track", "track", "args", "stats", "cpu"} <= compared
    assert diffs == {}


def _absent_key_trace() -> bytes:
    """ts 100: devfreq without key (6 kHz), then with an empty key (5 kHz):
    one track (a string view dimension: absent is the empty string), whose
    dimension is NULL (the event that made it had no key)."""
    payload = (f_bytes(10, f_varint(2, 6))
               + f_bytes(10, f_bytes(1, b"") + f_varint(2, 5)))
    packet = f_varint(8, 100) + f_bytes(pb.TracePacket.SYS_STATS_FIELD_NUMBER, payload)
    return f_bytes(1, packet)


def test_an_absent_key_is_the_empty_ones_track(load_embedded) -> None:
    eng = load_embedded(_absent_key_trace())
    rows = eng.query("SELECT t.name, c.value, extract_arg(t.dimension_arg_set_id, 'linux_device') "
                     "FROM counter c JOIN counter_track t ON t.id = c.track_id "
                     "ORDER BY c.id").rows()
    assert rows == [(" Frequency", 6.0, None), (" Frequency", 5.0, None)]
    assert eng.query("SELECT count(*) FROM counter_track").item() == 1


@pytest.mark.tp
def test_absent_key_as_trace_processor(tp_diffs) -> None:
    assert tp_diffs(_absent_key_trace())[0] == {}
