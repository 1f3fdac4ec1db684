"""The `machine` table and packets' machine_id (TracePacket field 98), as
trace_processor v58.2 routes them (ProtoTraceReader::ParsePacket), and the
machine_id / trace_id of `metadata` and `stats` rows.

Two schedules:

* adopted: every packet carries machine_id 1001 and the host has no data of
  its own, so the host's row (id 0) takes raw_id 1001 and the whole trace is
  machine 0's. SystemInfo: Linux 6.1 aarch64, 8 cpus, an Android 12
  fingerprint (sdk 31 parsed from it), 8e9 bytes of RAM (8 GB).
    ts 100 cpu 1: swapper -> tid 42 "worker"
* remote: the host records first (SystemInfo Linux, a switch to tid 10 at
  100 on cpu 0); then machine 7 sends a SystemInfo (Darwin, named "vm"), a
  switch to tid 20 at 150 on its cpu 0 and a process tree for pid 20 (ppid
  1, "guest"). Machine 7 is a second machine with pid, tid and cpu spaces
  of its own: its cpu 0 is ucpu 4096, its idle process and swapper thread
  are its own (made when it is first seen: upid / utid 1), its tid 20 is
  not the host's.
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


def test_a_second_machine_has_its_own_threads_processes_and_cpus(load):
    eng = load(_remote_trace())
    assert eng.query("SELECT id, raw_id, name, sysname, label_index FROM machine").rows() == [
        (0, 0, None, "Linux", 0), (1, 7, "vm", "Darwin", 1)]
    assert eng.query("SELECT count(*) FROM stats "
                     "WHERE name = 'artscope_skipped_remote_machine_packets'").rows() == [(0,)]
    # utid 0 / 1: each machine's swapper; 2: the host's tid 10; 3: the
    # guest's tid 20 (its switch), 4: the tree's pid 1 (20's parent)
    assert eng.query("SELECT utid, tid, name, upid, is_idle, machine_id FROM thread "
                     "ORDER BY utid").rows() == [
        (0, 0, "swapper", 0, 1, 0), (1, 0, "swapper", 1, 1, 1),
        (2, 10, "host_task", None, 0, 0), (3, 20, "guest_task", 3, 0, 1),
        (4, 1, None, 2, 0, 1)]
    assert eng.query("SELECT upid, pid, name, parent_upid, machine_id FROM process "
                     "ORDER BY upid").rows() == [
        (0, 0, None, None, 0), (1, 0, None, None, 1), (2, 1, None, None, 1),
        (3, 20, "guest", 2, 1)]
    # the guest's cpu 0 is ucpu 4096, in every cpu column
    assert eng.query("SELECT ts, cpu, ucpu, utid FROM sched ORDER BY ts").rows() == [
        (100, 0, 0, 2), (150, 4096, 4096, 3)]
    assert eng.query("SELECT ts, cpu, utid, state FROM thread_state ORDER BY ts").rows() == [
        (100, 0, 2, "Running"), (150, 4096, 3, "Running")]
    assert eng.query("SELECT ts, cpu, utid FROM ftrace_event ORDER BY ts").rows() == [
        (100, 0, 0), (150, 4096, 1)]
    assert eng.query("SELECT id, cpu, machine_id FROM cpu ORDER BY id").rows() == [
        (0, 0, 0), (4096, 0, 1)]
    assert eng.query("SELECT str_value, machine_id FROM metadata "
                     "WHERE name = 'system_name' ORDER BY machine_id").rows() == [
        ("Linux", 0), ("Darwin", 1)]
    # to_ftrace names the machine's cpu
    assert eng.query("SELECT to_ftrace(id) FROM ftrace_event WHERE ts = 150"
                     ).rows()[0][0].split("[")[1].startswith("000]")


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
    assert {"machine", "metadata", "stats", "cpu", "thread", "process", "sched",
            "thread_state", "ftrace_event", "args", "clock_snapshot"} <= compared
    assert differ == {}
    assert load(trace()).query(METADATA_FUNCTIONS).rows() == tp_rows(
        trace(), METADATA_FUNCTIONS)


# Remote machines' clocks. The host's ClockSnapshot (BOOTTIME 0, MONOTONIC 0)
# makes BOOTTIME the trace's clock. Machine 5 syncs with the host in three
# rounds of (client BOOTTIME, host BOOTTIME):
#   r1 (1_000_000, 1_500_000), r2 (1_000_400, 1_500_600),
#   r3 (100_000_000_000, 100_000_500_000)
# r1 -> r2 is one round trip pair (400 ns apart < 30 s): client-initiated
# (1_000_000 + 1_000_400) / 2 - 1_500_000 = -499_800 and host-initiated
# 1_000_400 - (1_500_000 + 1_500_600) / 2 = -499_900; r2 -> r3 is 99 s apart,
# a new round, no pair. Offset (client - host) = mean = -499_850: a client
# BOOTTIME t is host time t + 499_850. Its snapshot relates the host's last
# reading (r3: 100_000_500_000) to the client's 100_000_500_000 - 499_850.
# Machine 9 never syncs: its BOOTTIME is bridged to the trace's time as
# aligned (zero offset), once. Packets (sys_stats, one cpu_stat each):
#   machine 5, BOOTTIME 2_000_000, cpu 2 user_ns 7 -> ts 2_499_850
#   machine 5, no clock, 3_000_000, cpu 2 user_ns 8 -> ts 3_499_850 (in the
#     trace's default clock when the machine was first seen: the host's
#     snapshot's BOOTTIME)
#   machine 5, REALTIME 3_500_000: no path to the trace's clock -> dropped,
#     logged as clock_sync_failure_unknown_source_clock
#   machine 9, BOOTTIME 4_000_000, cpu 0 user_ns 9 -> ts 4_000_000
CLIENT_HOST_ROUNDS = [(1_000_000, 1_500_000), (1_000_400, 1_500_600),
                      (100_000_000_000, 100_000_500_000)]


def _synced_trace() -> bytes:
    trace = pb.Trace()
    p = trace.packet.add(trusted_packet_sequence_id=1)
    p.clock_snapshot.clocks.add(clock_id=6, timestamp=0)
    p.clock_snapshot.clocks.add(clock_id=3, timestamp=0)
    p = trace.packet.add(timestamp=1000, trusted_packet_sequence_id=1)
    p.system_info.utsname.sysname = "Linux"
    p = trace.packet.add(machine_id=5, trusted_packet_sequence_id=2)
    for client, host in CLIENT_HOST_ROUNDS:
        r = p.remote_clock_sync.synced_clocks.add()
        r.client_clocks.clocks.add(clock_id=6, timestamp=client)
        r.host_clocks.clocks.add(clock_id=6, timestamp=host)
    for ts, clock, cpu, user_ns in [(2_000_000, 6, 2, 7), (3_000_000, None, 2, 8),
                                    (3_500_000, 1, 2, 10)]:
        p = trace.packet.add(machine_id=5, timestamp=ts, trusted_packet_sequence_id=2)
        if clock is not None:
            p.timestamp_clock_id = clock
        p.sys_stats.cpu_stat.add(cpu_id=cpu, user_ns=user_ns)
    p = trace.packet.add(machine_id=9, timestamp=4_000_000, timestamp_clock_id=6,
                         trusted_packet_sequence_id=3)
    p.sys_stats.cpu_stat.add(cpu_id=0, user_ns=9)
    return trace.SerializeToString()


def test_remote_machines_counters_are_on_their_own_tracks_at_host_time(load):
    eng = load(_synced_trace())
    rows = eng.query(
        "SELECT c.ts, c.value, t.machine_id, t.cpu FROM counter c "
        "JOIN cpu_counter_track t ON c.track_id = t.id "
        "WHERE t.name = 'cpu.times.user_ns' ORDER BY c.ts").rows()
    assert rows == [(2_499_850, 7.0, 1, 2), (3_499_850, 8.0, 1, 2), (4_000_000, 9.0, 2, 0)]
    # their cpus: ucpu = machine * 4096 + cpu
    assert eng.query("SELECT id, ucpu, cpu, machine_id FROM cpu ORDER BY id").rows() == [
        (4098, 4098, 2, 1), (8192, 8192, 0, 2)]
    # the REALTIME packet: dropped, as the reference drops a packet whose
    # clock has no path
    assert eng.query("SELECT name, value FROM stats WHERE name GLOB 'clock_sync_failure*' "
                     "AND value > 0 ORDER BY name").rows() == [
        ("clock_sync_failure_undeferrable_packet_loss", 1),
        ("clock_sync_failure_unknown_source_clock", 1)]
    # snapshot 0: the host's; 1-3: the sync's rounds (one clock each: no
    # rows); 4: the offset, relating the two machines' BOOTTIME at the
    # host's reading; 5: machine 9's bridge to the trace's clock
    anchor = 100_000_500_000
    assert eng.query("SELECT ts, clock_id, clock_value, snapshot_id, machine_id "
                     "FROM clock_snapshot ORDER BY id").rows() == [
        (0, 6, 0, 0, 0), (0, 3, 0, 0, 0),
        (anchor, 6, anchor, 4, 0), (anchor, 6, anchor - 499_850, 4, 1),
        (0, 6, 0, 5, 2), (0, 6, 0, 5, 0)]


@pytest.mark.tp
def test_remote_machines_clocks_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_synced_trace())
    assert {"counter", "cpu_counter_track", "cpu", "clock_snapshot", "stats",
            "machine", "metadata", "process", "thread"} <= compared
    assert differ == {}


def _same_sequence_ids_trace() -> bytes:
    """The host and machine 7 each write on their sequence 1 (cleared), each
    interning kernel symbol iid 1 ("host_fn" / "guest_fn") and entering and
    leaving it on their cpu 0 from pid 5: at 100-200 on the host, 107-207
    on machine 7."""
    trace = pb.Trace()
    trace.packet.add().system_info.utsname.sysname = "Linux"
    for machine, name in [(0, "host_fn"), (7, "guest_fn")]:
        p = trace.packet.add(trusted_packet_sequence_id=1, sequence_flags=1)
        if machine:
            p.machine_id = machine
        p.interned_data.kernel_symbols.add(iid=1, str=name.encode())
        p.ftrace_events.cpu = 0
        for ts, event in [(100 + machine, "funcgraph_entry"), (200 + machine, "funcgraph_exit")]:
            ev = p.ftrace_events.event.add(timestamp=ts, pid=5)
            getattr(ev, event).func = 1
    return trace.SerializeToString()


def test_a_machines_sequences_and_threads_are_its_own(load):
    eng = load(_same_sequence_ids_trace())
    # each sequence 1's symbol, each pid 5 a thread of its machine
    assert eng.query(
        "SELECT s.ts, s.dur, s.name, th.tid, th.machine_id FROM slice s "
        "JOIN thread_track tt ON s.track_id = tt.id JOIN thread th USING (utid) "
        "ORDER BY s.ts").rows() == [(100, 100, "host_fn", 5, 0), (107, 100, "guest_fn", 5, 1)]


@pytest.mark.tp
def test_machines_sequences_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_same_sequence_ids_trace())
    assert {"slice", "thread", "ftrace_event", "args"} <= compared
    assert differ == {}


def _suspends_trace() -> bytes:
    """Both machines suspend at once, by suspend_resume events on their cpu 0
    (ts, machine, action, val, start):
      100 host suspend_enter(3) begins; 110 machine 7's begins
      120 host freeze_processes begins; 130 machine 7's begins
      140 host freeze_processes ends; 150 machine 7 thaw_processes begins
      160 host suspend_enter ends
      170 machine 7 thaw_processes ends: inside freeze_processes, its
          suspend_prepare() failed, so its suspend_enter ends here (its
          freeze_processes never does); 180 its suspend_enter end: none open
    Each machine's suspend state and track lanes are its own: its slices do
    not end the other's."""
    trace = pb.Trace()
    trace.packet.add().system_info.utsname.sysname = "Linux"
    events = [(100, 0, "suspend_enter", 3, 1), (110, 7, "suspend_enter", 3, 1),
              (120, 0, "freeze_processes", 0, 1), (130, 7, "freeze_processes", 0, 1),
              (140, 0, "freeze_processes", 0, 0), (150, 7, "thaw_processes", 0, 1),
              (160, 0, "suspend_enter", 3, 0), (170, 7, "thaw_processes", 0, 0),
              (180, 7, "suspend_enter", 3, 0)]
    for ts, machine, action, val, start in events:
        p = trace.packet.add(trusted_packet_sequence_id=2 if machine else 1)
        if machine:
            p.machine_id = machine
        p.ftrace_events.cpu = 0
        ev = p.ftrace_events.event.add(timestamp=ts, pid=1).suspend_resume
        ev.action, ev.val, ev.start = action, val, start
    return trace.SerializeToString()


def test_a_machines_suspends_are_its_own(load):
    eng = load(_suspends_trace())
    assert eng.query(
        "SELECT s.ts, s.dur, s.name, t.machine_id, extract_arg(s.arg_set_id, 'cpu') "
        "FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts").rows() == [
        (100, 60, "suspend_enter(3)", 0, 0), (110, 60, "suspend_enter(3)", 1, 0),
        (120, 20, "freeze_processes(0)", 0, 0), (130, -1, "freeze_processes(0)", 1, 0),
        (150, 20, "thaw_processes(0)", 1, 0)]


@pytest.mark.tp
def test_machines_suspends_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_suspends_trace())
    assert {"slice", "track", "args"} <= compared
    assert differ == {}


def _streams_trace() -> bytes:
    """Each machine's events go to sorter queues of its own, and a field-
    stamped event's copy keeps its field's time (trace time) on any machine.
    The host records first (clock snapshot, SystemInfo, a cpu 1 bundle:
    prints "h1" at 2_400_000 and "h2" at 2_500_000), then machine 7 syncs
    its clocks (CLIENT_HOST_ROUNDS: host = client + 499_850) and sends a
    cpu 0 bundle (print "r0" at client 1_950_150 = host 2_450_000, a
    thermal_exynos_acpm_bulk at client 1_950_200 = host 2_450_050 stamped
    1_000_000) and a cpu 1 bundle (print "r1" at client 2_000_150 = host
    2_500_000).
    - "h2" and "r1" tie at 2_500_000: machine 7's cpu 1 queue was made after
      the host's, so "h2" comes first. (Were machine 7's cpus one queue,
      that queue, drained from "r0" on, would take "r1" first.)
    - the bulk's temperature and cooling device counters are at 1_000_000,
      its field's value, not converted by machine 7's offset."""
    trace = pb.Trace()
    p = trace.packet.add(trusted_packet_sequence_id=1)
    p.clock_snapshot.clocks.add(clock_id=6, timestamp=0)
    p.clock_snapshot.clocks.add(clock_id=3, timestamp=0)
    trace.packet.add(timestamp=1000, trusted_packet_sequence_id=1).system_info.utsname.sysname = (
        "Linux")

    def bundle(cpu, machine=0):
        p = trace.packet.add(trusted_packet_sequence_id=2 if machine else 1)
        if machine:
            p.machine_id = machine
        p.ftrace_events.cpu = cpu
        return p.ftrace_events

    def prints(b, *events):
        for ts, text in events:
            b.event.add(timestamp=ts, pid=1).print.buf = text

    prints(bundle(1), (2_400_000, "h1"), (2_500_000, "h2"))
    p = trace.packet.add(machine_id=7, trusted_packet_sequence_id=2)
    for client, host in CLIENT_HOST_ROUNDS:
        r = p.remote_clock_sync.synced_clocks.add()
        r.client_clocks.clocks.add(clock_id=6, timestamp=client)
        r.host_clocks.clocks.add(clock_id=6, timestamp=host)
    b = bundle(0, machine=7)
    prints(b, (1_950_150, "r0"))
    bulk = b.event.add(timestamp=1_950_200, pid=1).thermal_exynos_acpm_bulk
    bulk.tz_id, bulk.current_temp, bulk.cdev_state, bulk.timestamp = 0, 40, 2, 1_000_000
    prints(bundle(1, machine=7), (2_000_150, "r1"))
    return trace.SerializeToString()


STREAM_EVENTS = "SELECT ts, name, ucpu FROM ftrace_event ORDER BY id"
EXPECTED_STREAM_EVENTS = [
    (2_400_000, "print", 1), (2_450_000, "print", 4096),
    (2_450_050, "thermal_exynos_acpm_bulk", 4096), (2_500_000, "print", 1),
    (2_500_000, "print", 4097)]
BULK_COUNTERS = ("SELECT c.ts, c.value, t.machine_id FROM counter c "
                 "JOIN track t ON c.track_id = t.id ORDER BY c.id")
EXPECTED_BULK_COUNTERS = [(1_000_000, 40.0, 1), (1_000_000, 2.0, 1)]


def test_each_machine_has_its_own_sorter_queues(load):
    eng = load(_streams_trace())
    assert eng.query(STREAM_EVENTS).rows() == EXPECTED_STREAM_EVENTS
    assert eng.query(BULK_COUNTERS).rows() == EXPECTED_BULK_COUNTERS


@pytest.mark.tp
def test_machines_sorter_queues_as_trace_processor(tp_diffs, tp_rows):
    trace = _streams_trace()
    assert tp_rows(trace, STREAM_EVENTS) == EXPECTED_STREAM_EVENTS
    assert tp_rows(trace, BULK_COUNTERS) == EXPECTED_BULK_COUNTERS
    differ, compared = tp_diffs(trace)
    assert {"ftrace_event", "counter", "track"} <= compared
    assert differ == {}


def _memory_counters_trace() -> bytes:
    """Machine 7's memory counters, whose tracks are chosen when the trace
    ends (the thread's process known by then): the remote trace, then on
    machine 7's cpu 0 at 200 an oom_score_adj_update of its pid 20 (adj 100)
    and at 210 an rss_stat of task 20 (anon, 4096 bytes). Both tracks are
    machine 7's (machine_id 1), on its process 20."""
    trace = pb.Trace()
    trace.ParseFromString(_remote_trace())
    p = trace.packet.add(trusted_packet_sequence_id=4, machine_id=7)
    p.ftrace_events.cpu = 0
    oom = p.ftrace_events.event.add(timestamp=200, pid=20).oom_score_adj_update
    oom.comm, oom.pid, oom.oom_score_adj = "guest", 20, 100
    rss = p.ftrace_events.event.add(timestamp=210, pid=20).rss_stat
    rss.member, rss.size = 1, 4096
    return trace.SerializeToString()


MEMORY_TRACKS = ("SELECT c.ts, c.value, t.name, t.machine_id, p.pid, p.machine_id "
                 "FROM counter c JOIN process_counter_track t ON c.track_id = t.id "
                 "JOIN process p USING (upid) ORDER BY c.ts")
EXPECTED_MEMORY_TRACKS = [(200, 100.0, "oom_score_adj", 1, 20, 1),
                          (210, 4096.0, "mem.rss.anon", 1, 20, 1)]


def test_a_machines_memory_counters_are_on_its_tracks(load):
    eng = load(_memory_counters_trace())
    assert eng.query(MEMORY_TRACKS).rows() == EXPECTED_MEMORY_TRACKS


@pytest.mark.tp
def test_machines_memory_counters_as_trace_processor(tp_diffs, tp_rows):
    trace = _memory_counters_trace()
    assert tp_rows(trace, MEMORY_TRACKS) == EXPECTED_MEMORY_TRACKS
    differ, compared = tp_diffs(trace)
    assert {"counter", "process_counter_track", "track"} <= compared
    assert differ == {}
