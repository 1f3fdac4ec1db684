"""Memory and power ftrace events in the compiled core:
dmabuf_rss_stat and mm_event_record counters (EventTracker's process
counters for a thread: the process's track, else the thread's fallback),
Pixel kswapd efficiency slices, CMA allocation slices (by kernel version:
5.10's cma_alloc_info, 6.1's cma_alloc_finish with the migrate range
counts), runtime PM (rpm_status) state slices and device PM callback
slices on the suspend / resume lanes, and battery current limiter (BCL)
throttling counters, as trace_processor's FtraceParser makes them. Expected rows are derived by hand from the schedules below,
then checked against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SEQ = 5
APP, WORKER, ORPHAN, KSWAPD = 300, 301, 999, 50


def _base(release: str | None) -> tuple[pb.Trace, object]:
    """A trace on a kernel of `release` (None: no utsname, 4.4 assumed),
    with process APP / thread WORKER, and its CPU 0 event list."""
    trace = pb.Trace()
    if release:
        uts = trace.packet.add(trusted_packet_sequence_id=SEQ).system_info.utsname
        uts.sysname, uts.release = "Linux", release
    tree = trace.packet.add(trusted_packet_sequence_id=SEQ, timestamp=1).process_tree
    tree.processes.add(pid=APP, ppid=1, cmdline=["com.example.app"])
    tree.threads.add(tid=WORKER, tgid=APP, name="worker")
    pkt = trace.packet.add(trusted_packet_sequence_id=SEQ)
    pkt.ftrace_events.cpu = 0
    return trace, pkt.ftrace_events.event


def _cma(events, *, info: bool) -> None:
    events.add(timestamp=2_000, pid=WORKER).cma_alloc_start.SetInParent()
    m = events.add(timestamp=2_100, pid=WORKER).mm_alloc_contig_migrate_range_info
    m.nr_migrated, m.nr_reclaimed, m.nr_mapped = 7, 3, 2
    f = events.add(timestamp=2_500, pid=WORKER).cma_alloc_finish
    f.name, f.pfn, f.count = "farawimg", 4660, 16
    if info:
        i = events.add(timestamp=2_400, pid=WORKER).cma_alloc_info
        i.name, i.pfn, i.count = "farawimg", 4660, 16
        i.nr_migrated, i.nr_reclaimed, i.nr_mapped = 5, 4, 1
        i.err_iso, i.err_mig, i.err_test = 1, 2, 3


def _trace_6_1() -> bytes:
    trace, ev = _base("6.1.25-android14")

    def add(ts, pid):
        return ev.add(timestamp=ts, pid=pid)

    add(1_000, WORKER).dmabuf_rss_stat.rss = 4096
    # a thread whose process is never known: its fallback track
    add(1_100, ORPHAN).dmabuf_rss_stat.rss = 8192
    m = add(1_200, WORKER).mm_event_record
    m.type, m.count, m.max_lat, m.avg_lat = 1, 5, 70, 30
    add(1_300, WORKER).mm_event_record.type = 9  # no such type
    _cma(ev, info=False)
    # on 6.1, cma_alloc_info (the 5.10 layout) is ignored
    add(2_600, WORKER).cma_alloc_info.name = "ignored"
    add(3_000, KSWAPD).pixel_mm_kswapd_wake.SetInParent()
    d = add(3_400, KSWAPD).pixel_mm_kswapd_done
    d.delta_nr_scanned, d.delta_nr_reclaimed, d.delta_nr_allocated = 300, 200, 40
    add(3_500, KSWAPD).pixel_mm_kswapd_wake.SetInParent()
    # only an allocation count: no scanned / reclaimed / efficiency
    add(3_600, KSWAPD).pixel_mm_kswapd_done.delta_nr_allocated = 8
    add(3_700, KSWAPD).pixel_mm_kswapd_wake.SetInParent()
    d = add(3_800, KSWAPD).pixel_mm_kswapd_done
    d.delta_nr_scanned, d.delta_nr_reclaimed = 0, 0
    for ts, status in [(4_000, 1), (4_100, 0), (4_500, 3), (4_600, 2), (4_700, 2), (4_800, -1)]:
        r = add(ts, WORKER).rpm_status
        r.name, r.status = "ufshcd", status
    s = add(5_000, WORKER).device_pm_callback_start
    s.device, s.driver, s.pm_ops, s.event = "1-0036", "i2c", "late suspend", 0x2
    s = add(5_010, WORKER).device_pm_callback_start
    s.device, s.driver, s.pm_ops, s.event = "mmc0", "mmc", "", 0x10
    e = add(5_050, WORKER).device_pm_callback_end
    e.device, e.driver = "1-0036", "i2c"
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, t.type, t.name AS track, s.depth
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (2_000, 500, "mm_cma_alloc", "thread_execution", None, 0),
    (3_000, 400, "kswapd_efficiency", "thread_execution", None, 0),
    (3_500, 100, "kswapd_efficiency", "thread_execution", None, 0),
    (3_700, 100, "kswapd_efficiency", "thread_execution", None, 0),
    # rpm_status: a new status ends the open one; SUSPENDED has no slice
    (4_000, 100, "Resuming", "linux_rpm", None, 0),
    (4_100, 400, "Active", "linux_rpm", None, 0),
    (4_500, 100, "Suspending", "linux_rpm", None, 0),
    (4_800, -1, "Invalid State", "linux_rpm", None, 0),
    # two callbacks in flight: two lanes
    (5_000, 50, "1-0036 i2c", "suspend_resume", "Suspend/Resume Latency", 0),
    (5_010, -1, "mmc0 mmc", "suspend_resume", "Suspend/Resume Latency", 0),
]
SLICE_ARGS = """
SELECT s.ts, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
WHERE a.key != 'utid' ORDER BY s.ts, a.key
"""
EXPECTED_SLICE_ARGS = [
    # 6.1: the counts of the migrate range info since the start
    (2_000, "cma_name", "farawimg"),
    (2_000, "cma_nr_mapped", "2"),
    (2_000, "cma_nr_migrated", "7"),
    (2_000, "cma_nr_reclaimed", "3"),
    (2_000, "cma_pfn", "4660"),
    (2_000, "cma_req_pages", "16"),
    # round(200 * 100 / 300) = 67
    (3_000, "efficiency %", "67"),
    (3_000, "pages allocated", "40"),
    (3_000, "pages reclaimed", "200"),
    (3_000, "pages scanned", "300"),
    (3_500, "pages allocated", "8"),
    # 0 * 100 / 0 is NaN: the reference's cast to uint64 on x86-64 gives 2^63
    (3_700, "efficiency %", "9223372036854775808"),
    (3_700, "pages reclaimed", "0"),
    (3_700, "pages scanned", "0"),
    (5_000, "callback_phase", "suspend:late"),
    (5_000, "cpu", "0"),
    (5_000, "device_name", "1-0036"),
    (5_000, "driver_name", "i2c"),
    (5_000, "event_type", "Device PM Suspend Event"),
    # an empty pm_ops on resume is the complete phase
    (5_010, "callback_phase", "resume:complete"),
    (5_010, "cpu", "0"),
    (5_010, "device_name", "mmc0"),
    (5_010, "driver_name", "mmc"),
    (5_010, "event_type", "Device PM Suspend Event"),
]
COUNTERS = """
SELECT c.ts, c.value, t.name, t.type FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name
"""
EXPECTED_COUNTERS = [
    (1_000, 4096.0, "mem.dmabuf_rss", "process_memory"),
    (1_100, 8192.0, "mem.dmabuf_rss", "process_memory_thread_fallback"),
    (1_200, 30.0, "mem.mm.maj_flt.avg_lat", "mm_event"),
    (1_200, 5.0, "mem.mm.maj_flt.count", "mm_event"),
    (1_200, 70.0, "mem.mm.maj_flt.max_lat", "mm_event"),
]
RPM_TRACK = "SELECT name, extract_arg(dimension_arg_set_id, 'linux_device') FROM counter_track " \
    "WHERE type = 'linux_rpm'"
EXPECTED_RPM_TRACK = [(None, "ufshcd")]
UNKNOWN_MM = "SELECT value FROM stats WHERE name = 'mm_unknown_type'"


def _trace_5_10() -> bytes:
    trace, ev = _base("5.10.43")
    _cma(ev, info=True)
    return trace.SerializeToString()


# 5.10: cma_alloc_info ends the allocation with its own counts; the
# migrate range info and cma_alloc_finish (6.1's) are ignored
EXPECTED_SLICES_5_10 = [(2_000, 400, "mm_cma_alloc", "thread_execution", None, 0)]
EXPECTED_SLICE_ARGS_5_10 = [
    (2_000, "cma_name", "farawimg"),
    (2_000, "cma_nr_isolate_fail", "1"),
    (2_000, "cma_nr_mapped", "1"),
    (2_000, "cma_nr_migrate_fail", "2"),
    (2_000, "cma_nr_migrated", "5"),
    (2_000, "cma_nr_reclaimed", "4"),
    (2_000, "cma_nr_test_fail", "3"),
    (2_000, "cma_pfn", "4660"),
    (2_000, "cma_req_pages", "16"),
]


def _trace_no_kernel() -> bytes:
    trace, ev = _base(None)
    _cma(ev, info=True)
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def engines():
    from artscope.engines.embedded import EmbeddedEngine

    out = {}
    for name, data in [("6.1", _trace_6_1()), ("5.10", _trace_5_10()),
                       ("4.4", _trace_no_kernel())]:
        out[name] = EmbeddedEngine()
        out[name].load_bytes(data, f"kernel_{name}")
    yield out
    for e in out.values():
        e.close()


def test_slices(engines):
    assert engines["6.1"].query(SLICES).rows() == EXPECTED_SLICES


def test_slice_args(engines):
    assert engines["6.1"].query(SLICE_ARGS).rows() == EXPECTED_SLICE_ARGS


def test_counters(engines):
    assert engines["6.1"].query(COUNTERS).rows() == EXPECTED_COUNTERS


def test_rpm_track(engines):
    assert engines["6.1"].query(RPM_TRACK).rows() == EXPECTED_RPM_TRACK


def test_unknown_mm_event_type_counted(engines):
    assert engines["6.1"].query(UNKNOWN_MM).item() == 1


def test_cma_on_5_10(engines):
    assert engines["5.10"].query(SLICES).rows() == EXPECTED_SLICES_5_10
    assert engines["5.10"].query(SLICE_ARGS).rows() == EXPECTED_SLICE_ARGS_5_10


def test_cma_before_5_10_ignored(engines):
    e = engines["4.4"]
    assert e.query(SLICES).rows() == []
    # no thread is made for the ignored events: only swapper, the parent
    # (ppid 1) and the process tree's
    assert sorted(e.query("SELECT tid FROM thread").to_series().to_list()) == [0, 1, APP, WORKER]



@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    data = _trace_6_1()
    assert tp_rows(data, SLICES) == EXPECTED_SLICES
    assert tp_rows(data, SLICE_ARGS) == EXPECTED_SLICE_ARGS
    assert tp_rows(data, COUNTERS) == EXPECTED_COUNTERS
    assert tp_rows(data, RPM_TRACK) == EXPECTED_RPM_TRACK
    for trace in (data, _trace_5_10(), _trace_no_kernel()):
        diffs, compared = tp_diffs(trace)
        assert {"slice", "args", "counter", "track", "thread"} <= compared
        assert diffs == {}
    assert tp_rows(_trace_5_10(), SLICES) == EXPECTED_SLICES_5_10
    assert tp_rows(_trace_5_10(), SLICE_ARGS) == EXPECTED_SLICE_ARGS_5_10


def _bcl_trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=SEQ)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event
    b = events.add(timestamp=1_000, pid=0).bcl_irq_trigger
    b.id, b.throttle, b.cpu0_limit, b.cpu1_limit, b.cpu2_limit = 3, 1, 1_700_000, 2_000_000, 1_500_000
    b.tpu_limit, b.gpu_limit, b.voltage, b.capacity = 0, 600_000, 3_400, 12
    # not throttling: no id (-1) and no limits (0), whatever the event says
    b = events.add(timestamp=2_000, pid=0).bcl_irq_trigger
    b.id, b.throttle, b.cpu0_limit, b.voltage, b.capacity = 3, 0, 1_700_000, 3_600, 11
    return trace.SerializeToString()


BCL = """
SELECT c.ts, t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
WHERE t.type = 'bcl_irq' ORDER BY c.ts, t.name
"""
EXPECTED_BCL = [
    (1_000, "bcl_irq_capacity", 12.0),
    (1_000, "bcl_irq_cpu0", 1_700_000.0),
    (1_000, "bcl_irq_cpu1", 2_000_000.0),
    (1_000, "bcl_irq_cpu2", 1_500_000.0),
    (1_000, "bcl_irq_gpu", 600_000.0),
    (1_000, "bcl_irq_id", 3.0),
    (1_000, "bcl_irq_throttle", 1.0),
    (1_000, "bcl_irq_tpu", 0.0),
    (1_000, "bcl_irq_voltage", 3_400.0),
    (2_000, "bcl_irq_capacity", 11.0),
    (2_000, "bcl_irq_cpu0", 0.0),
    (2_000, "bcl_irq_cpu1", 0.0),
    (2_000, "bcl_irq_cpu2", 0.0),
    (2_000, "bcl_irq_gpu", 0.0),
    (2_000, "bcl_irq_id", -1.0),
    (2_000, "bcl_irq_throttle", 0.0),
    (2_000, "bcl_irq_tpu", 0.0),
    (2_000, "bcl_irq_voltage", 3_600.0),
]


def test_bcl_throttling_counters(load_embedded):
    assert load_embedded(_bcl_trace()).query(BCL).rows() == EXPECTED_BCL


@pytest.mark.tp
def test_bcl_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_bcl_trace(), BCL) == EXPECTED_BCL
    diffs, compared = tp_diffs(_bcl_trace())
    assert {"counter", "counter_track", "track"} <= compared
    assert diffs == {}
