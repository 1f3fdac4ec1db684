"""Process stats, process trees, CpuInfo and power rails as trace_processor's
system probes parsers read them, each schedule's expectations
derived by hand and its tables compared with the real trace_processor's:

* ProcessStats: smaps (`mem.smaps.<key>`, bytes), `mem.dmabuf_rss`, Chrome's
  private footprint / peak resident set (`chrome.<key>`, bytes) and
  `is_peak_rss_resettable` process arg; any field the parser does not read
  counts as proc_stat_unknown_counters (peak_resident_set_kb too: the
  reference's skip list names private_footprint_kb twice); pids are uint32.
* ProcessTree nspid / nstid: a TrackDescriptor of a packet with trusted_pid
  names threads and processes by their ids inside that process's pid
  namespace, resolved to the root-level ones; a thread's namespace given
  without its process's is a parser log (namespaced_thread_missing_process).
* CpuInfo twice: the second packet's capacity and cluster ids replace the
  first's, a missing processor keeps it, frequencies add up, args replace.
* PowerRails: session_uuid is a 32-bit dimension.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

PID, NS_PID, NS_TID, ROOT_TID = 1000, 5, 6, 1001


def _process_stats_trace() -> bytes:
    """ts 10: pid 300 with smr_rss 4, smr_pss_anon 2, dmabuf_rss 3 kB, chrome private footprint
    7 kB, peak resident set 9 kB, is_peak_rss_resettable, an fd; pid 301
    with only an fd (its process is made); ts 20: pid 300 smr_swap_pss 1."""
    t = pb.Trace()
    p = t.packet.add(timestamp=10)
    proc = p.process_stats.processes.add(pid=300)
    proc.smr_rss_kb, proc.smr_pss_anon_kb, proc.dmabuf_rss_kb = 4, 2, 3
    proc.chrome_private_footprint_kb, proc.chrome_peak_resident_set_kb = 7, 9
    proc.is_peak_rss_resettable = True
    proc.fds.add(fd=3, path="/dev/null")
    p.process_stats.processes.add(pid=301).fds.add(fd=4, path="/x")
    p = t.packet.add(timestamp=20)
    p.process_stats.processes.add(pid=300).smr_swap_pss_kb = 1
    return t.SerializeToString()


def _namespace_trace() -> bytes:
    """Process 1000 is pid 5 in its namespace, thread 1001 is tid 6; thread
    2001 of process 2000 gives a namespace its process never did. Track
    descriptors (packets with trusted_pid 1000 unless said): uuid 11 thread
    (5, 6) -> (1000, 1001); 12 process 5 -> 1000; 13 thread (5, 9) -> pid
    1000, tid 9 unresolved; 14 thread (5, 6) without trusted_pid -> as
    given. One instant on each at 30..33."""
    t = pb.Trace()
    p = t.packet.add(timestamp=10)
    proc = p.process_tree.processes.add(pid=PID, ppid=1)
    proc.cmdline.append("app")
    proc.nspid.extend([PID, NS_PID])
    p.process_tree.threads.add(tid=ROOT_TID, tgid=PID).nstid.extend([ROOT_TID, NS_TID])
    p.process_tree.threads.add(tid=2001, tgid=2000).nstid.extend([2001, 7])
    t.packet.add(timestamp=15, trusted_packet_sequence_id=7, sequence_flags=1)
    for uuid, pid, tid, trusted in [(11, NS_PID, NS_TID, PID), (12, NS_PID, None, PID),
                                    (13, NS_PID, 9, PID), (14, NS_PID, NS_TID, None)]:
        p = t.packet.add(timestamp=20, trusted_packet_sequence_id=7)
        if trusted is not None:
            p.trusted_pid = trusted
        p.track_descriptor.uuid = uuid
        if tid is None:
            p.track_descriptor.process.pid = pid
        else:
            p.track_descriptor.thread.pid, p.track_descriptor.thread.tid = pid, tid
    for i, uuid in enumerate([11, 12, 13, 14]):
        p = t.packet.add(timestamp=30 + i, trusted_packet_sequence_id=7)
        p.track_event.track_uuid = uuid
        p.track_event.type = pb.TrackEvent.TYPE_INSTANT
        p.track_event.name = f"ev{uuid}"
    return t.SerializeToString()


def _cpu_info_trace() -> bytes:
    """CpuInfo 1: cpu 0 'little' 100 / 200 kHz capacity 10, cpu 1 'big'
    300 kHz capacity 20, ARM ids on cpu 1; CpuInfo 2: cpu 0 (no processor)
    400 kHz capacity 30, cpu 1 500 kHz capacity 20 (cpu 0 is now the big
    one), mte on cpu 0. A power rail descriptor of session 2^40 + 3."""
    t = pb.Trace()
    p = t.packet.add()
    c0 = p.cpu_info.cpus.add(processor="little", capacity=10)
    c0.frequencies.extend([100, 200])
    c1 = p.cpu_info.cpus.add(processor="big", capacity=20)
    c1.frequencies.append(300)
    c1.arm_identifier.implementer, c1.arm_identifier.part = 65, 3
    p = t.packet.add()
    c0 = p.cpu_info.cpus.add(capacity=30, features=1)
    c0.frequencies.append(400)
    p.cpu_info.cpus.add(capacity=20).frequencies.append(500)
    p = t.packet.add(timestamp=50)
    p.power_rails.session_uuid = (1 << 40) + 3
    p.power_rails.rail_descriptor.add(index=0, rail_name="S4M_VDD", subsys_name="cpu")
    p.power_rails.energy_data.add(index=0, energy=42)
    return t.SerializeToString()


def test_process_stats_smaps_dmabuf_and_chrome(load_embedded) -> None:
    eng = load_embedded(_process_stats_trace())
    rows = eng.query(
        "SELECT c.ts, t.name, t.type, c.value FROM counter c "
        "JOIN process_counter_track t ON t.id = c.track_id ORDER BY c.ts, c.id").rows()
    # the fields in wire (here field-number) order, then Chrome's
    assert rows == [(10, "mem.smaps.rss", "smaps", 4 * 1024.0),
                    (10, "mem.smaps.pss.anon", "smaps", 2 * 1024.0),
                    (10, "mem.dmabuf_rss", "process_memory", 3 * 1024.0),
                    (10, "chrome.private_footprint_kb", "chrome_process_stats", 7 * 1024.0),
                    (10, "chrome.peak_resident_set_kb", "chrome_process_stats", 9 * 1024.0),
                    (20, "mem.smaps.swap.pss", "smaps", 1024.0)]
    pids = eng.query("SELECT pid, extract_arg(arg_set_id, 'is_peak_rss_resettable') "
                     "FROM process WHERE pid > 0 ORDER BY pid").rows()
    assert pids == [(300, 1), (301, None)]
    assert eng.query("SELECT value FROM stats WHERE name = 'proc_stat_unknown_counters'"
                     ).item() == 1  # peak_resident_set_kb


def test_track_descriptors_resolve_namespaced_ids(load_embedded) -> None:
    eng = load_embedded(_namespace_trace())
    rows = eng.query(
        "SELECT s.name, t.tid, p.pid FROM slice s "
        "LEFT JOIN thread_track tt ON s.track_id = tt.id LEFT JOIN thread t USING (utid) "
        "LEFT JOIN process_track pt ON s.track_id = pt.id "
        "LEFT JOIN process p ON p.upid = coalesce(t.upid, pt.upid) ORDER BY s.ts").rows()
    assert rows == [("ev11", ROOT_TID, PID), ("ev12", None, PID), ("ev13", 9, PID),
                    ("ev14", NS_TID, NS_PID)]
    logs = eng.query("SELECT ts, name FROM _trace_import_logs "
                     "WHERE name = 'namespaced_thread_missing_process'").rows()
    assert logs == [(10, "namespaced_thread_missing_process")]


def test_cpu_info_packets_apply_in_order(load_embedded) -> None:
    eng = load_embedded(_cpu_info_trace())
    cpus = eng.query("SELECT cpu, processor, capacity, cluster_id, "
                     "extract_arg(arg_set_id, 'arm_cpu_implementer'), "
                     "extract_arg(arg_set_id, 'cpu_features.mte') FROM cpu ORDER BY cpu").rows()
    assert cpus == [(0, "little", 30, 1, None, 1), (1, "big", 20, 0, 65, None)]
    freqs = eng.query("SELECT cpu, freq FROM cpu_available_frequencies ORDER BY id").rows()
    assert freqs == [(0, 100), (0, 200), (1, 300), (0, 400), (1, 500)]
    dims = eng.query("SELECT a.key, a.int_value FROM counter_track t JOIN args a "
                     "ON a.arg_set_id = t.dimension_arg_set_id "
                     "WHERE t.type = 'power_rails' AND a.key = 'session_uuid'").rows()
    assert dims == [("session_uuid", 3)]


@pytest.mark.tp
@pytest.mark.parametrize("trace", [_process_stats_trace, _namespace_trace, _cpu_info_trace],
                         ids=["process_stats", "namespaces", "cpu_info"])
def test_system_probes_tables_equal_trace_processor(tp_diffs, trace) -> None:
    diffs, compared = tp_diffs(trace())
    assert {"process", "thread", "counter_track", "cpu", "args"} <= compared
    assert diffs == {}


def _comm_names_newest_thread_trace() -> bytes:
    """ts 10: process 4 (cmdline x), and thread 4 of process 2 (pid 4's tid
    reused in another process); ts 20: process 4 again, cmdline_is_comm
    'kworker-ish': GetOrCreateThread(4) is the newest live thread of tid 4,
    the one in process 2, which takes the name; process 4's main thread
    keeps none."""
    t = pb.Trace()
    p = t.packet.add(timestamp=10)
    p.process_tree.processes.add(pid=4, ppid=1).cmdline.append("x")
    p.process_tree.processes.add(pid=2, ppid=1).cmdline.append("two")
    p.process_tree.threads.add(tid=4, tgid=2)
    p = t.packet.add(timestamp=20)
    proc = p.process_tree.processes.add(pid=4, ppid=1, cmdline_is_comm=True)
    proc.cmdline.append("comm")
    return t.SerializeToString()


def test_cmdline_is_comm_names_the_newest_thread(load_embedded) -> None:
    eng = load_embedded(_comm_names_newest_thread_trace())
    rows = eng.query("SELECT t.name, p.pid FROM thread t JOIN process p USING (upid) "
                     "WHERE t.tid = 4 ORDER BY t.utid").rows()
    assert rows == [(None, 4), ("comm", 2)]


@pytest.mark.tp
def test_cmdline_is_comm_as_trace_processor(tp_diffs) -> None:
    assert tp_diffs(_comm_names_newest_thread_trace())[0] == {}


def _gpu_mem_total_trace() -> bytes:
    """GpuMemTotalEvent packets: ts 100 gpu 1 in all (pid 0) 4096 bytes; ts
    200 gpu 1 of pid 50 (never seen: its process is made) 100 bytes."""
    t = pb.Trace()
    t.packet.add(timestamp=100).gpu_mem_total_event.MergeFrom(
        pb.GpuMemTotalEvent(gpu_id=1, pid=0, size=4096))
    t.packet.add(timestamp=200).gpu_mem_total_event.MergeFrom(
        pb.GpuMemTotalEvent(gpu_id=1, pid=50, size=100))
    return t.SerializeToString()


def test_gpu_mem_total_packets(load_embedded) -> None:
    eng = load_embedded(_gpu_mem_total_trace())
    rows = eng.query(
        "SELECT c.ts, t.name, t.type, t.unit, c.value, extract_arg(t.dimension_arg_set_id, 'gpu'), "
        "(SELECT pid FROM process p WHERE p.upid = extract_arg(t.dimension_arg_set_id, 'upid')) "
        "FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY c.ts").rows()
    assert rows == [(100, "GPU Memory", "gpu_memory", "bytes", 4096.0, 1, None),
                    (200, "GPU Memory", "process_gpu_memory", "bytes", 100.0, 1, 50)]
    assert eng.query("SELECT count(*) FROM stats WHERE name GLOB 'artscope_skipped*' "
                     "AND value > 0").item() == 0


@pytest.mark.tp
def test_gpu_mem_total_packets_as_trace_processor(tp_diffs) -> None:
    assert tp_diffs(_gpu_mem_total_trace())[0] == {}
