"""The `machine` table and packets' machine_id (TracePacket field 98), as
trace_processor v58.2 routes them (ProtoTraceReader::ParsePacket), and the
machine_id / trace_id of `metadata` and `stats` rows (issue 18).

Two schedules:

* adopted: every packet carries machine_id 1001 and the host has no data of
  its own, so the host's row (id 0) takes raw_id 1001 and the whole trace is
  machine 0's. SystemInfo: Linux 6.1 aarch64, 8 cpus, an Android 12
  fingerprint (sdk 31 parsed from it), 8e9 bytes of RAM (8 GB).
    ts 100 cpu 1: swapper -> tid 42 "worker"
* remote: the host records first (SystemInfo Linux, a switch to tid 10 at
  100 on cpu 0); then machine 7 sends a SystemInfo (Darwin, named "vm"), a
  switch to tid 20 at 150 and a process tree for pid 20. Machine 7 is a
  second machine: its row is imported, its two data packets are not (counted
  as skipped and named on the first query).
"""

from __future__ import annotations

import gzip

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded.coverage import SkippedDataWarning

FINGERPRINT = "google/x/x:12/SP1A.210812.015/123:user/release-keys"
MACHINE_COLUMNS = ("id, raw_id, name, sysname, release, version, arch, num_cpus, "
                   "android_build_fingerprint, android_device_manufacturer, "
                   "android_sdk_version, system_ram_bytes, system_ram_gb, label_index")


def _switch(p: pb.TracePacket, cpu: int, ts: int, next_pid: int, next_comm: str) -> None:
    bundle = p.ftrace_events
    bundle.cpu = cpu
    ev = bundle.event.add(timestamp=ts, pid=0)
    ev.sched_switch.prev_comm, ev.sched_switch.prev_pid = "swapper/0", 0
    ev.sched_switch.prev_state = 0
    ev.sched_switch.next_comm, ev.sched_switch.next_pid = next_comm, next_pid
    ev.sched_switch.next_prio = 120


def _adopted_trace(uuid: tuple[int, int] | None = None) -> bytes:
    trace = pb.Trace()
    if uuid is not None:
        p = trace.packet.add(machine_id=1001)
        p.trace_uuid.msb, p.trace_uuid.lsb = uuid
    p = trace.packet.add(timestamp=10, trusted_packet_sequence_id=1, machine_id=1001)
    info = p.system_info
    info.utsname.sysname, info.utsname.release, info.utsname.machine = "Linux", "6.1", "aarch64"
    info.num_cpus = 8
    info.android_build_fingerprint = FINGERPRINT
    info.system_ram_bytes = 8_000_000_000
    p = trace.packet.add(trusted_packet_sequence_id=2, machine_id=1001)
    _switch(p, cpu=1, ts=100, next_pid=42, next_comm="worker")
    return trace.SerializeToString()


def _remote_trace() -> bytes:
    trace = pb.Trace()
    p = trace.packet.add(timestamp=5, trusted_packet_sequence_id=1)
    p.system_info.utsname.sysname = "Linux"
    p = trace.packet.add(trusted_packet_sequence_id=2)
    _switch(p, cpu=0, ts=100, next_pid=10, next_comm="host_task")
    p = trace.packet.add(timestamp=6, trusted_packet_sequence_id=3, machine_id=7)
    p.system_info.utsname.sysname = "Darwin"
    p.system_info.machine_name = "vm"
    p = trace.packet.add(trusted_packet_sequence_id=4, machine_id=7)
    _switch(p, cpu=0, ts=150, next_pid=20, next_comm="guest_task")
    p = trace.packet.add(timestamp=160, trusted_packet_sequence_id=4, machine_id=7)
    p.process_tree.processes.add(pid=20, ppid=1, cmdline=["guest"])
    return trace.SerializeToString()


@pytest.fixture
def load(load_embedded):
    return lambda data, name="machines": load_embedded(data, name)


def test_a_trace_wholly_from_one_machine_is_adopted_by_the_host(load):
    eng = load(_adopted_trace())
    assert eng.query(f"SELECT {MACHINE_COLUMNS} FROM machine").rows() == [
        (0, 1001, None, "Linux", "6.1", None, "aarch64", 8, FINGERPRINT, None,
         31, 8_000_000_000, 8, 1)]
    # its data is the host's: imported, on machine 0
    assert eng.query("SELECT tid, machine_id FROM thread ORDER BY tid").rows() == [
        (0, 0), (42, 0)]
    assert eng.query("SELECT DISTINCT machine_id FROM cpu").rows() == [(0,)]
    assert eng.query("SELECT ts, utid FROM sched").rows() == [
        (100, eng.query("SELECT utid FROM thread WHERE tid = 42").rows()[0][0])]
    assert eng.query("SELECT count(*) FROM stats "
                     "WHERE name = 'artscope_skipped_remote_machine_packets'").rows() == [(0,)]


def test_a_second_machine_gets_its_row_and_its_data_is_said_to_be_skipped(load):
    eng = load(_remote_trace())
    with pytest.warns(SkippedDataWarning) as record:
        rows = eng.query("SELECT id, raw_id, name, sysname, label_index FROM machine").rows()
    assert rows == [(0, 0, None, "Linux", 0), (1, 7, "vm", "Darwin", 1)]
    msg = str(record[0].message)
    assert "2 remote_machine_packets packet(s)" in msg and "machine_id > 0" in msg
    assert eng.query("SELECT value FROM stats "
                     "WHERE name = 'artscope_skipped_remote_machine_packets'").rows() == [(2,)]
    # the host's data only: no guest thread, no guest process, the host's system_name
    assert eng.query("SELECT tid FROM thread ORDER BY tid").rows() == [(0,), (10,)]
    assert eng.query("SELECT pid FROM process").rows() == [(0,)]
    assert eng.query("SELECT str_value, machine_id FROM metadata "
                     "WHERE name = 'system_name'").rows() == [("Linux", 0)]
    assert eng.query("SELECT ts FROM sched").rows() == [(100,)]


def test_metadata_and_stats_rows_name_their_machine_and_trace(load):
    eng = load(_adopted_trace())
    scope = dict(((n, (m, t)) for n, m, t in eng.query(
        "SELECT name, machine_id, trace_id FROM metadata").rows()))
    # a machine's property, a trace's, and the trace's UUID: the file's hash,
    # which trace_processor records before any trace exists
    assert scope["system_name"] == (0, None)
    assert scope["android_sdk_version"] == (0, None)
    assert scope["trace_type"] == (None, 0)
    assert scope["trace_size_bytes"] == (None, 0)
    assert scope["trace_uuid"] == (None, None)
    stats = eng.query("SELECT name, machine_id, trace_id FROM stats "
                      "WHERE name IN ('parse_trace_duration_ns', 'misplaced_end_event') "
                      "ORDER BY name").rows()
    assert stats == [("misplaced_end_event", 0, 0), ("parse_trace_duration_ns", None, None)]


METADATA_FUNCTIONS = (
    "SELECT extract_metadata('system_name'), extract_metadata('system_ram_gb'), "
    "extract_metadata_for_machine(0, 'system_name'), "
    "extract_metadata_for_machine(1, 'system_name'), "
    "extract_metadata_for_trace(0, 'trace_type'), "
    "extract_metadata_for_trace(0, 'system_name'), "
    "extract_exact_metadata(0, 0, 'system_name'), extract_metadata(NULL)")


def test_metadata_functions_pick_rows_by_machine_and_trace(load):
    eng = load(_adopted_trace())
    # system_name belongs to machine 0 and no trace; trace_type to trace 0
    assert eng.query(METADATA_FUNCTIONS).rows() == [
        ("Linux", 8, "Linux", None, "proto", None, None, None)]


def test_trace_id_is_the_trace_files_id_inside_its_containers(load):
    # gzip: the gzip file is trace_file 0, the trace inside it 1; a UUID the
    # trace records belongs to the trace
    eng = load(gzip.compress(_adopted_trace(uuid=(1, 2))), "machines.pftrace.gz")
    assert eng.query("SELECT name, str_value, trace_id FROM metadata "
                     "WHERE name IN ('trace_uuid', 'trace_type') ORDER BY name").rows() == [
        ("trace_type", "proto", 1),
        ("trace_uuid", "00000000-0000-0001-0000-000000000002", 1)]
    assert eng.query("SELECT DISTINCT trace_id FROM stats "
                     "WHERE machine_id IS NOT NULL").rows() == [(1,)]


@pytest.mark.tp
@pytest.mark.parametrize("trace", [_adopted_trace, _remote_trace])
def test_machine_tables_as_trace_processor(tp_diffs, tp_rows, load, trace):
    differ, compared = tp_diffs(trace())
    assert {"machine", "metadata", "stats", "cpu", "thread"} <= compared
    if trace is _adopted_trace:
        assert differ == {}
        assert load(trace()).query(METADATA_FUNCTIONS).rows() == tp_rows(
            trace(), METADATA_FUNCTIONS)
    else:
        # trace_processor imports the second machine's rows (and its events
        # bound the trace); the embedded engine its machine row only
        remote = {"thread": {"rows"}, "process": {"rows"}, "metadata": {"rows"},
                  "stats": {"rows"}, "sched": {"rows"}, "sched_slice": {"rows"},
                  "thread_state": {"rows"}, "cpu": {"rows"}, "trace_bounds": {"end_ts"},
                  "clock_snapshot": {"rows"}, "ftrace_event": {"rows"}, "raw": {"rows"},
                  "args": {"rows"}, "to_ftrace": {"rows"}}
        assert differ == remote
        assert "machine" not in differ

