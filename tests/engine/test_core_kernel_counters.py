"""GPU memory, clock state, thermal and cooling device counters and signal
instants in the compiled core: on a hand-made schedule, the
counters, tracks and slices trace_processor's FtraceParser makes from
gpu_mem_total, clock_enable / clock_disable, thermal_temperature,
cdev_update and signal_generate / signal_deliver (protobuf), and its
systrace text reader from the same events in text, derived by hand below;
and the same tables as the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

APP = 300       # a process with a live thread
GONE = 400      # no thread: its GPU memory event is dropped
APP_THREAD = 350  # a thread of APP, then named as a process's pid


def _proto() -> bytes:
    trace = pb.Trace()
    tree = trace.packet.add(timestamp=500).process_tree
    tree.processes.add(pid=APP, ppid=1, cmdline=["com.example.app"])
    tree.threads.add(tid=APP_THREAD, tgid=APP)
    b = trace.packet.add().ftrace_events
    b.cpu = 0

    def ev(ts, pid=10):
        return b.event.add(timestamp=ts, pid=pid)

    g = ev(1_000).gpu_mem_total
    g.gpu_id, g.pid, g.size = 0, 0, 1_000_000
    e = ev(1_100).clock_enable
    e.name, e.state, e.cpu_id = "ufs_clk", 1, 0
    e = ev(1_200).clock_disable
    e.name, e.state, e.cpu_id = "ufs_clk", 0, 0
    t = ev(1_300).thermal_temperature
    t.thermal_zone, t.id, t.temp_prev, t.temp = "skin", 1, 34_000, 35_000
    d = ev(1_400).cdev_update
    d.type, d.target = "thermal-cpufreq-0", 3
    s = ev(1_500).signal_generate
    s.pid, s.sig, s.comm = APP, 9, "com.example.app"
    s = ev(1_600, pid=APP).signal_deliver
    s.sig, s.sa_flags = 9, 0
    g = ev(2_000).gpu_mem_total
    g.gpu_id, g.pid, g.size = 0, APP, 4_096
    g = ev(2_500).gpu_mem_total
    g.gpu_id, g.pid, g.size = 1, 0, 5
    g = ev(3_000).gpu_mem_total
    g.gpu_id, g.pid, g.size = 0, GONE, 7
    # a pid that is a live thread of APP: it becomes its own process's main
    # thread, but the memory counts on the process of the thread found
    # before that (APP), as FtraceParser::ParseGpuMemTotal's opt_utid
    g = ev(3_500).gpu_mem_total
    g.gpu_id, g.pid, g.size = 0, APP_THREAD, 8
    return trace.SerializeToString()


COUNTERS = """
SELECT c.ts, t.name, t.type, c.value
FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.ts
"""
EXPECTED_COUNTERS = [
    (1_000, "GPU Memory", "gpu_memory", 1_000_000.0),
    (1_100, "ufs_clk State", "clock_state", 1.0),
    (1_200, "ufs_clk State", "clock_state", 0.0),
    (1_300, "skin Temperature", "thermal_temperature", 35_000.0),
    (1_400, "thermal-cpufreq-0 Cooling Device", "cooling_device_counter", 3.0),
    (2_000, "GPU Memory", "process_gpu_memory", 4_096.0),
    (2_500, "GPU Memory", "gpu_memory", 5.0),
    (3_500, "GPU Memory", "process_gpu_memory", 8.0),
]
# the GPU memory tracks: a gpu's whole memory, and the app's (its process)
GPU_TRACKS = """
SELECT t.type, t.unit, extract_arg(t.dimension_arg_set_id, 'ugpu') AS ugpu,
       extract_arg(t.dimension_arg_set_id, 'gpu') AS gpu, p.pid
FROM counter_track t LEFT JOIN process p
  ON p.upid = extract_arg(t.dimension_arg_set_id, 'upid')
WHERE t.name = 'GPU Memory' ORDER BY t.type, gpu
"""
EXPECTED_GPU_TRACKS = [
    ("gpu_memory", "bytes", 0, 0, None),
    ("gpu_memory", "bytes", 1, 1, None),
    ("process_gpu_memory", "bytes", 0, 0, APP),
]
# APP_THREAD's pid is a process of its own now, with a new main thread
THREADS_OF_APP_THREAD = """
SELECT t.tid, p.pid FROM thread t LEFT JOIN process p USING (upid)
WHERE t.tid = 350 ORDER BY t.utid
"""
EXPECTED_THREADS_OF_APP_THREAD = [(APP_THREAD, APP), (APP_THREAD, APP_THREAD)]
SIGNALS = """
SELECT s.ts, s.dur, s.name, th.tid, extract_arg(s.arg_set_id, 'signal.sig') AS sig
FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread th USING (utid)
ORDER BY s.ts
"""
EXPECTED_SIGNALS = [
    (1_500, 0, "signal_generate", APP, 9),
    (1_600, 0, "signal_deliver", APP, 9),
]

TEXT = (
    "# tracer: nop\n#\n"
    "          <idle>-0     (-----) [000] d..2   100.000000: clock_enable: "
    "ufs_clk state=1 cpu_id=0\n"
    "     kworker/0:1-50    (   50) [000] ....   100.000100: workqueue_execute_start: "
    "work struct ffffff8012345678: function do_work\n"
    "     kworker/0:1-50    (   50) [000] ....   100.000300: workqueue_execute_end: "
    "work struct ffffff8012345678\n"
    "          <idle>-0     (-----) [001] d..2   100.000400: thermal_temperature: "
    "thermal_zone=skin id=1 temp_prev=34000 temp=35000\n"
    "          <idle>-0     (-----) [001] d..2   100.000500: cdev_update: "
    "type=thermal-cpufreq-0 target=2.5\n"
)
TEXT_COUNTERS = [
    (100_000_000_000, "ufs_clk State", "clock_state", 1.0),
    (100_000_400_000, "skin Temperature", "thermal_temperature", 35_000.0),
    (100_000_500_000, "thermal-cpufreq-0 Cooling Device", "cooling_device_counter", 2.5),
]
# text names the work by its function and gives it no args
TEXT_SLICES = """
SELECT ts, dur, name, category, arg_set_id FROM slice ORDER BY ts
"""
EXPECTED_TEXT_SLICES = [(100_000_100_000, 200_000, "do_work", "workqueue", None)]


@pytest.fixture(scope="module")
def proto_eng():
    from artscope.engines.embedded import EmbeddedEngine

    e = EmbeddedEngine()
    e.load_bytes(_proto(), "kernel_counters")
    yield e
    e.close()


@pytest.fixture(scope="module")
def text_eng(tmp_path_factory):
    from artscope.engines.embedded import EmbeddedEngine

    path = tmp_path_factory.mktemp("text") / "kernel.systrace"
    path.write_text(TEXT)
    e = EmbeddedEngine()
    e.load(path)
    yield e
    e.close()


def test_counters(proto_eng):
    assert proto_eng.query(COUNTERS).rows() == EXPECTED_COUNTERS


def test_gpu_memory_tracks(proto_eng):
    assert proto_eng.query(GPU_TRACKS).rows() == EXPECTED_GPU_TRACKS


def test_gpu_memory_of_a_thread_pid(proto_eng):
    assert proto_eng.query(THREADS_OF_APP_THREAD).rows() == EXPECTED_THREADS_OF_APP_THREAD


def test_signals(proto_eng):
    assert proto_eng.query(SIGNALS).rows() == EXPECTED_SIGNALS


def test_text_counters(text_eng):
    assert text_eng.query(COUNTERS).rows() == TEXT_COUNTERS


def test_text_workqueue_slice(text_eng):
    assert text_eng.query(TEXT_SLICES).rows() == EXPECTED_TEXT_SLICES


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    data = _proto()
    assert tp_rows(data, COUNTERS) == EXPECTED_COUNTERS
    assert tp_rows(data, GPU_TRACKS) == EXPECTED_GPU_TRACKS
    assert tp_rows(data, SIGNALS) == EXPECTED_SIGNALS
    assert tp_rows(data, THREADS_OF_APP_THREAD) == EXPECTED_THREADS_OF_APP_THREAD
    diffs, compared = tp_diffs(data)
    assert {"counter", "counter_track", "track", "slice", "args", "process",
            "thread", "stats"} <= compared
    assert diffs == {}


@pytest.mark.tp
def test_text_same_as_trace_processor(tp_rows, tp_diffs):
    data = TEXT.encode()
    assert tp_rows(data, COUNTERS) == TEXT_COUNTERS
    assert tp_rows(data, TEXT_SLICES) == EXPECTED_TEXT_SLICES
    diffs, _ = tp_diffs(data)
    assert diffs == {}
