"""The embedded engine's memory and gpu counters as trace_processor keeps them:
process_stats memory on `process_memory` tracks keyed by
process_memory_key with their description, oom_score_adj per process, the
kernel's rss_stat / oom_score_adj_update events resolved to the process of
their thread at the end of the trace (a `*_thread_fallback` track for a
thread whose process stays unknown), sys_stats meminfo in bytes, gpu_frequency
per gpu; a sched_process_free of a thread never seen creates no thread; an
atrace end without its begin gives its thread a track. Expected values are
derived by hand from the trace built here."""

from __future__ import annotations

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

APP_PID, APP_TID, ORPHAN_TID, GHOST_TID = 100, 101, 300, 400
MM_APP = 0xAB


def _trace() -> bytes:
    """pid 100 (threads 100, 101) from the process tree; tid 300 of no known
    process; events:

    * ts 10 process_stats of 100: vm_size_kb 2000, vm_rss_kb 500,
      oom_score_adj -100;
    * ts 20 sys_stats meminfo: MemTotal (1) 4000 kB, MemFree (2) 1000 kB;
      thermal zone x86_pkg_temp 45 C; cpu 2 idle state C8 700 us;
    * ftrace on cpu 0: rss_stat by 101 (mm 0xAB, curr 1, member 1 anon,
      size 8192) at 30; rss_stat by 300 of mm 0xAB (curr 0, member 0 file,
      size 4096) at 40 -> the app's mm; rss_stat by 300, curr 0, of an mm
      never seen (mm 0xCD) at 45 -> dropped; rss_stat by 300 without mm_id
      (member 3 shmem, 1024) at 50 -> thread 300's own; oom_score_adj_update
      of 300 (adj 900) at 55; gpu_frequency gpu 1 state 585000 at 60;
      sched_process_free of tid 400 (never seen) at 70; print 'E|100' by 101
      at 80 (nothing begun).
    """
    t = pb.Trace()
    p = t.packet.add(timestamp=1)
    proc = p.process_tree.processes.add(pid=APP_PID, ppid=1)
    proc.cmdline.append("com.example.app")
    p.process_tree.threads.add(tid=APP_TID, tgid=APP_PID)
    p = t.packet.add(timestamp=10)
    sp = p.process_stats.processes.add(pid=APP_PID)
    sp.vm_size_kb = 2000
    sp.vm_rss_kb = 500
    sp.oom_score_adj = -100
    p = t.packet.add(timestamp=20)
    p.sys_stats.meminfo.add(key=1, value=4000)
    p.sys_stats.meminfo.add(key=2, value=1000)
    p.sys_stats.thermal_zone.add(name="tz0", temp=45, type="x86_pkg_temp")
    p.sys_stats.cpuidle_state.add(cpu_id=2).cpuidle_state_entry.add(state="C8", duration_us=700)
    p = t.packet.add()
    b = p.ftrace_events
    b.cpu = 0

    def rss(ts: int, pid: int, member: int, size: int, mm_id: int | None = None,
            curr: int | None = None) -> None:
        ev = b.event.add(timestamp=ts, pid=pid)
        ev.rss_stat.member = member
        ev.rss_stat.size = size
        if mm_id is not None:
            ev.rss_stat.mm_id = mm_id
            ev.rss_stat.curr = curr

    rss(30, APP_TID, 1, 8192, MM_APP, 1)
    rss(40, ORPHAN_TID, 0, 4096, MM_APP, 0)
    rss(45, ORPHAN_TID, 0, 2048, 0xCD, 0)
    rss(50, ORPHAN_TID, 3, 1024)
    ev = b.event.add(timestamp=55, pid=ORPHAN_TID)
    ev.oom_score_adj_update.pid = ORPHAN_TID
    ev.oom_score_adj_update.oom_score_adj = 900
    ev.oom_score_adj_update.comm = "orphan"
    ev = b.event.add(timestamp=60, pid=0)
    ev.gpu_frequency.gpu_id = 1
    ev.gpu_frequency.state = 585000
    ev = b.event.add(timestamp=70, pid=0)
    ev.sched_process_free.pid = GHOST_TID
    ev.sched_process_free.comm = "ghost"
    ev = b.event.add(timestamp=80, pid=APP_TID)
    ev.print.buf = "E|100\n"
    return t.SerializeToString()


def _engine(tmp_path) -> EmbeddedEngine:
    path = tmp_path / "memory.pftrace"
    path.write_bytes(_trace())
    eng = EmbeddedEngine()
    eng.load(path)
    return eng


def _counters(eng: EmbeddedEngine, where: str) -> list[tuple]:
    return [tuple(r) for r in eng.query(
        "SELECT c.ts, t.name, t.type, c.value FROM counter c "
        f"JOIN counter_track t ON t.id = c.track_id WHERE {where} "
        "ORDER BY c.ts, t.name").iter_rows()]


def test_process_stats_memory_tracks_are_keyed_and_described(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = _counters(eng, "c.ts = 10")
        assert rows == [(10, "mem.rss", "process_memory", 500 * 1024.0),
                        (10, "mem.virt", "process_memory", 2000 * 1024.0),
                        (10, "oom_score_adj", "oom_score_adj", -100.0)]
        dims = eng.query(
            "SELECT t.name, a.key, a.display_value FROM track t "
            "JOIN args a ON a.arg_set_id = t.dimension_arg_set_id "
            "WHERE t.name IN ('mem.rss', 'mem.virt', 'oom_score_adj') AND t.type != 'oom_score_adj_thread_fallback' "
            "ORDER BY t.name, a.key").rows()
        upid = eng.query(f"SELECT upid FROM process WHERE pid = {APP_PID}").item()
        assert dims == [("mem.rss", "process_memory_key", "rss"), ("mem.rss", "upid", str(upid)),
                        ("mem.virt", "process_memory_key", "virt"),
                        ("mem.virt", "upid", str(upid)), ("oom_score_adj", "upid", str(upid))]
        desc = dict(eng.query("SELECT name, description FROM process_counter_track "
                              "WHERE name IN ('mem.virt', 'oom_score_adj')").rows())
        assert desc["mem.virt"].startswith("Virtual memory size (VmSize): ")
        assert desc["oom_score_adj"] is None
    finally:
        eng.close()


def test_rss_stat_follows_the_mm_owner_and_falls_back_to_the_thread(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = _counters(eng, "c.ts BETWEEN 30 AND 55")
        assert rows == [
            (30, "mem.rss.anon", "process_memory", 8192.0),        # thread 101 -> pid 100
            (40, "mem.rss.file", "process_memory", 4096.0),        # mm 0xAB is the app's
            (50, "mem.rss.shmem", "process_memory_thread_fallback", 1024.0),  # tid 300
            (55, "oom_score_adj", "oom_score_adj_thread_fallback", 900.0),
        ]
        owners = eng.query(
            "SELECT c.ts, th.tid FROM counter c JOIN args a ON a.arg_set_id = c.arg_set_id "
            "JOIN thread th ON th.utid = a.int_value WHERE a.key = 'utid' ORDER BY c.ts").rows()
        assert owners == [(30, APP_TID), (40, APP_TID), (50, ORPHAN_TID), (55, ORPHAN_TID)]
        fallback = eng.query("SELECT t.name, th.tid FROM thread_counter_track t "
                             "JOIN thread th USING (utid) ORDER BY t.name").rows()
        assert fallback == [("mem.rss.shmem", ORPHAN_TID), ("oom_score_adj", ORPHAN_TID)]
        stat = eng.query("SELECT value FROM stats "
                         "WHERE name = 'rss_stat_unknown_thread_for_mm_id'").item()
        assert stat == 1  # the event at 45
    finally:
        eng.close()


def test_sys_stats_and_gpu_frequency(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = [tuple(r) for r in eng.query(
            "SELECT c.ts, t.name, t.type, t.unit, c.value FROM counter c "
            "JOIN counter_track t ON t.id = c.track_id "
            "WHERE t.type NOT LIKE '%memory%' AND t.type NOT LIKE 'oom%' "
            "ORDER BY c.ts, t.name").iter_rows()]
        assert rows == [(20, "MemFree", "meminfo", "bytes", 1000 * 1024.0),
                        (20, "MemTotal", "meminfo", "bytes", 4000 * 1024.0),
                        (20, "cpuidle2.C8", "cpu_idle_state", "us", 700.0),
                        (20, "x86_pkg_temp", "thermal_temperature_sys", "C", 45.0),
                        (60, "gpufreq", "gpu_frequency", "kHz", 585000.0)]
        dims = eng.query("SELECT a.key, a.int_value FROM counter_track t "
                         "JOIN args a ON a.arg_set_id = t.dimension_arg_set_id "
                         "WHERE t.type = 'gpu_frequency' ORDER BY a.key").rows()
        assert dims == [("gpu", 1), ("ugpu", 0)]  # the first gpu seen
    finally:
        eng.close()


def test_thread_identity_from_free_and_unmatched_end(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        tids = eng.query("SELECT tid FROM thread ORDER BY tid").to_series().to_list()
        assert GHOST_TID not in tids
        # the parent named by the process tree (pid 1) gets its main thread
        assert tids == [0, 1, APP_PID, APP_TID, ORPHAN_TID]
        tracks = eng.query("SELECT th.tid, (SELECT count(*) FROM slice s "
                           "WHERE s.track_id = t.id) FROM thread_track t "
                           "JOIN thread th USING (utid)").rows()
        assert tracks == [(APP_TID, 0)]
    finally:
        eng.close()
