"""UFS commands and clock gating, CPU hotplug, dma-buf heap and throttled
CPU / Adreno GPU frequencies in the compiled core: on a hand-made
schedule (events out of order across CPUs, overlapping buffers, a buffer
still allocated at the end), the counters, tracks and slices
trace_processor's FtraceParser makes (ParseUfshcdCommand /
ParseUfshcdClkGating, ParseCpuhpEnter / Exit, ParseDmaHeapStat,
ParseCpuFreqThrottle, ParseKgslGpuFreq), derived by hand below; and the same
tables as the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    trace = pb.Trace()

    def bundle(cpu):
        b = trace.packet.add().ftrace_events
        b.cpu = cpu
        return b

    # CPU 1, first in the file though later in time: CPU 2 hotplugged with
    # a nested step, and a throttled CPU 3
    b1 = bundle(1)
    h = b1.event.add(timestamp=1_000, pid=20).cpuhp_enter
    h.cpu, h.idx, h.target = 2, 5, 0
    h = b1.event.add(timestamp=1_100, pid=20).cpuhp_multi_enter
    h.cpu, h.idx = 2, 7
    b1.event.add(timestamp=1_150, pid=20).cpuhp_pause.cpus = 4
    b1.event.add(timestamp=1_200, pid=20).cpuhp_exit.cpu = 2
    b1.event.add(timestamp=1_300, pid=20).cpuhp_exit.cpu = 2
    d = b1.event.add(timestamp=1_400, pid=0).dcvsh_freq
    d.cpu, d.freq = 3, 1_200_000
    # CPU 0: two UFS commands, clock gating, the GPU clock, dma-buf buffers
    b0 = bundle(0)

    def ev(ts):
        return b0.event.add(timestamp=ts, pid=30)

    u = ev(500).ufshcd_command
    u.str_t, u.tag, u.opcode, u.doorbell = 0, 3, 42, 0x5
    u = ev(600).ufshcd_command
    u.str_t, u.tag, u.opcode, u.group_id = 0, 4, 40, 1
    u = ev(700).ufshcd_command
    u.str_t, u.tag = 1, 3
    u = ev(800).ufshcd_command
    u.str_t, u.tag, u.doorbell = 1, 4, 0x1
    for ts, state in ((900, 1), (950, 2), (960, 0)):
        ev(ts).ufshcd_clk_gating.state = state
    g = ev(2_000).kgsl_gpu_frequency
    g.gpu_id, g.gpu_freq = 0, 585_000
    for ts, inode, length, total in ((3_000, 11, 8_192, 8_192), (3_100, 12, 4_096, 12_288),
                                     (3_200, 11, -8_192, 4_096), (3_300, 12, -4_096, 0),
                                     (3_400, 13, 2_048, 2_048)):
        h = ev(ts).dma_heap_stat
        h.inode, h.len, h.total_allocated = inode, length, total
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.name AS track,
       extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') AS lane
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (500, 200, "WRITE (10)", None, 0, "io.ufs.command.tag[003]", None),
    (600, 200, "READ (10) (GID=0x1)", None, 0, "io.ufs.command.tag[004]", None),
    (1_000, 300, "cpuhp(5)", "cpu", 0, "CPU Hotplug 2", None),
    (1_100, 100, "cpuhp(7)", "cpu", 1, "CPU Hotplug 2", None),
    (3_000, 200, "8 kB", None, 0, "mem.dma_buffer", 0),
    (3_100, 200, "4 kB", None, 0, "mem.dma_buffer", 1),
    # the idle first lane takes the next buffer
    (3_400, -1, "2 kB", None, 0, "mem.dma_buffer", 0),
]
HOTPLUG_ARGS = """
SELECT s.name, a.key, a.value_type, a.display_value
FROM slice s JOIN args a USING (arg_set_id) WHERE s.category = 'cpu' ORDER BY s.ts, a.key
"""
EXPECTED_HOTPLUG_ARGS = [
    ("cpuhp(5)", "action_cpu", "uint", "1"), ("cpuhp(5)", "cpuhp_idx", "int", "5"),
    ("cpuhp(7)", "action_cpu", "uint", "1"), ("cpuhp(7)", "cpuhp_idx", "int", "7"),
]
COUNTERS = """
SELECT c.ts, t.name, c.value, extract_arg(c.arg_set_id, 'inode') AS inode
FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.ts, t.name
"""
UFS_COUNT, CLKGATING = "io.ufs.command.count", "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)"
EXPECTED_COUNTERS = [
    (500, UFS_COUNT, 2.0, None),    # doorbell 0b101: two commands in flight
    (600, UFS_COUNT, 1.0, None),    # no doorbell: a send counts 1
    (700, UFS_COUNT, 0.0, None),    # no doorbell: a completion counts 0
    (800, UFS_COUNT, 1.0, None),
    (900, CLKGATING, 3.0, None),    # ON
    (950, CLKGATING, 1.0, None),    # REQ_OFF
    (960, CLKGATING, 0.0, None),    # OFF
    (1_400, "cpufreq_throttle", 1_200_000.0, None),
    (2_000, "gpufreq", 585_000_000.0, None),
    (3_000, "mem.dma_heap", 8_192.0, None),
    (3_000, "mem.dma_heap_change", 8_192.0, 11),
    (3_100, "mem.dma_heap", 12_288.0, None),
    (3_100, "mem.dma_heap_change", 4_096.0, 12),
    (3_200, "mem.dma_heap", 4_096.0, None),
    (3_200, "mem.dma_heap_change", -8_192.0, 11),
    (3_300, "mem.dma_heap", 0.0, None),
    (3_300, "mem.dma_heap_change", -4_096.0, 12),
    (3_400, "mem.dma_heap", 2_048.0, None),
    (3_400, "mem.dma_heap_change", 2_048.0, 13),
]


@pytest.fixture(scope="module")
def eng():
    from artscope.engines.embedded import EmbeddedEngine

    e = EmbeddedEngine()
    e.load_bytes(_trace(), "devices")
    yield e
    e.close()


def test_slices(eng):
    assert eng.query(SLICES).rows() == EXPECTED_SLICES


def test_hotplug_args(eng):
    assert eng.query(HOTPLUG_ARGS).rows() == EXPECTED_HOTPLUG_ARGS


def test_counters(eng):
    assert eng.query(COUNTERS).rows() == EXPECTED_COUNTERS



@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    data = _trace()
    assert tp_rows(data, SLICES) == EXPECTED_SLICES
    assert tp_rows(data, HOTPLUG_ARGS) == EXPECTED_HOTPLUG_ARGS
    assert tp_rows(data, COUNTERS) == EXPECTED_COUNTERS
    diffs, compared = tp_diffs(data)
    assert {"slice", "counter", "track", "counter_track", "cpu_track", "args",
            "stats", "ftrace_event"} <= compared
    assert diffs == {}


# --- android_fs data reads ------------------------------------------------------

APK = "/data/app/com.example/base.apk"


def _fs_trace() -> bytes:
    trace = pb.Trace()
    b = trace.packet.add().ftrace_events
    b.cpu = 0

    def read(ts, pid, start, ino, offset, nbytes, path=None):
        ev = b.event.add(timestamp=ts, pid=pid)
        r = ev.android_fs_dataread_start if start else ev.android_fs_dataread_end
        r.ino, r.offset, r.bytes = ino, offset, nbytes
        if path is not None:
            r.pathbuf = path

    read(5_000, 70, True, 100, 0, 4_096, APK)
    read(5_100, 71, True, 100, 4_096, 8_192, APK)      # overlaps: a second lane
    read(5_200, 70, False, 100, 0, 4_096)
    read(5_300, 70, False, 999, 0, 1)                  # no such read: ignored
    read(5_400, 71, False, 100, 4_096, 8_192)
    read(5_500, 70, True, 101, 0, 10)                  # no path; open at the end
    return trace.SerializeToString()


FS_SLICES = """
SELECT s.ts, s.dur, s.name, t.name AS track,
       extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') AS lane
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_FS_SLICES = [
    (5_000, 200, "android_fs_data_read", "android_fs", 0),
    (5_100, 300, "android_fs_data_read", "android_fs", 1),
    (5_500, -1, "android_fs_data_read", "android_fs", 0),
]
FS_ARGS = """
SELECT s.ts, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.ts, a.key
"""
EXPECTED_FS_ARGS = [
    (5_000, "bytes_read_end", "4096"), (5_000, "bytes_read_start", "4096"),
    (5_000, "file_path", APK), (5_000, "offset_end", "0"), (5_000, "offset_start", "0"),
    (5_100, "bytes_read_end", "8192"), (5_100, "bytes_read_start", "8192"),
    (5_100, "file_path", APK), (5_100, "offset_end", "4096"),
    (5_100, "offset_start", "4096"),
    (5_500, "bytes_read_start", "10"), (5_500, "file_path", None),   # no path: NULL
    (5_500, "offset_start", "0"),
]


def test_fs_reads(load_embedded):
    eng = load_embedded(_fs_trace(), "fs")
    assert eng.query(FS_SLICES).rows() == EXPECTED_FS_SLICES
    assert eng.query(FS_ARGS).rows() == EXPECTED_FS_ARGS


@pytest.mark.tp
def test_fs_reads_same_as_trace_processor(tp_rows, tp_diffs):
    data = _fs_trace()
    assert tp_rows(data, FS_SLICES) == EXPECTED_FS_SLICES
    assert tp_rows(data, FS_ARGS) == EXPECTED_FS_ARGS
    diffs, _ = tp_diffs(data)
    assert diffs == {}


# --- GPU power states -------------------------------------------------------------

def _gpu_power_trace() -> bytes:
    trace = pb.Trace()
    b = trace.packet.add().ftrace_events
    b.cpu = 0
    for ts, state in ((1_000, 2), (2_000, 1), (3_000, 0), (3_500, 7)):
        p = b.event.add(timestamp=ts, pid=0).gpu_power_state
        p.old_state, p.new_state = 0, state
    for ts, state in ((1_500, 1), (2_500, 0)):
        m = b.event.add(timestamp=ts, pid=0).mali_gpu_power_state
        m.from_state, m.to_state = 1 - state, state
    return trace.SerializeToString()


GPU_POWER = """
SELECT s.ts, s.dur, s.name, t.name FROM slice s JOIN track t ON s.track_id = t.id
UNION ALL
SELECT c.ts, NULL, CAST(CAST(c.value AS INT) AS TEXT), t.name FROM counter c JOIN track t ON c.track_id = t.id
ORDER BY 1
"""
POWERVR = "powervr_gpu_power_state"
EXPECTED_GPU_POWER = [
    (1_000, 1_000, "ON", POWERVR),
    (1_500, None, "1", "mali_gpu_power_state"),
    (2_000, 1_000, "PG", POWERVR),
    (2_500, None, "0", "mali_gpu_power_state"),
    (3_000, 500, "OFF", POWERVR),
    (3_500, -1, "Unknown", POWERVR),    # an unknown state; open at the end
]


def test_gpu_power_states(load_embedded):
    eng = load_embedded(_gpu_power_trace(), "gpu_power")
    assert eng.query(GPU_POWER).rows() == EXPECTED_GPU_POWER


@pytest.mark.tp
def test_gpu_power_states_same_as_trace_processor(tp_rows, tp_diffs):
    data = _gpu_power_trace()
    assert tp_rows(data, GPU_POWER) == EXPECTED_GPU_POWER
    diffs, _ = tp_diffs(data)
    assert diffs == {}


# --- DSP memory (fastrpc) and interconnect events ------------------------------

def _dsp_trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event
    f = events.add(timestamp=1_000, pid=300).fastrpc_dma_stat
    f.cid, f.len, f.total_allocated = 3, 4_096, 4_096
    f = events.add(timestamp=1_100, pid=301).fastrpc_dma_stat
    f.cid, f.len, f.total_allocated = 3, -1_024, 3_072
    f = events.add(timestamp=1_200, pid=300).fastrpc_dma_stat
    f.cid, f.len, f.total_allocated = 7, 512, 512
    events.add(timestamp=2_000, pid=0).google_icc_event.event = "vote: bw=100"
    events.add(timestamp=2_100, pid=0).google_irm_event.event = "update"
    return trace.SerializeToString()


DSP_COUNTERS = """
SELECT c.ts, t.name, c.value, extract_arg(t.dimension_arg_set_id, 'utid') IS NOT NULL
FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.name
"""
EXPECTED_DSP_COUNTERS = [
    # the DSP's total, and the change on the thread's own track
    (1_000, "mem.fastrpc[CDSP]", 4_096.0, 0),
    (1_000, "mem.fastrpc_change[CDSP]", 4_096.0, 1),
    (1_100, "mem.fastrpc[CDSP]", 3_072.0, 0),
    (1_100, "mem.fastrpc_change[CDSP]", -1_024.0, 1),
    # a channel id with no DSP name is named by itself
    (1_200, "mem.fastrpc[7]", 512.0, 0),
    (1_200, "mem.fastrpc_change[7]", 512.0, 1),
]
CHANGE_TRACKS = "SELECT count(*) FROM thread_counter_track WHERE type = 'fastrpc_change'"
INTERCONNECT = """
SELECT s.ts, s.dur, s.category, s.name, t.name FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts
"""
EXPECTED_INTERCONNECT = [
    (2_000, 0, "google_icc_event", "vote: bw=100", "Interconnect Events"),
    (2_100, 0, "google_irm_event", "update", "Interconnect Events"),
]


def test_dsp_memory_and_interconnect(load_embedded):
    e = load_embedded(_dsp_trace())
    assert e.query(DSP_COUNTERS).rows() == EXPECTED_DSP_COUNTERS
    # one per (DSP, thread)
    assert e.query(CHANGE_TRACKS).item() == 3
    assert e.query(INTERCONNECT).rows() == EXPECTED_INTERCONNECT


@pytest.mark.tp
def test_dsp_memory_and_interconnect_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_dsp_trace(), DSP_COUNTERS) == EXPECTED_DSP_COUNTERS
    assert tp_rows(_dsp_trace(), CHANGE_TRACKS) == [(3,)]
    assert tp_rows(_dsp_trace(), INTERCONNECT) == EXPECTED_INTERCONNECT
    diffs, compared = tp_diffs(_dsp_trace())
    assert {"counter", "counter_track", "thread_counter_track", "slice"} <= compared
    assert diffs == {}
