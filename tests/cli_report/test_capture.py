"""`artscope capture` against a fake adb that logs its calls and plays a device."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
from perfetto.trace_builder.proto_builder import TraceProtoBuilder

from artscope import capture as capture_mod
from artscope import configs
from artscope.cli import main

SERIAL = "emulator-5554"
APP = "com.example.app"
CFG = "/data/misc/perfetto-configs/artscope.pb"
TRACE = "/data/misc/perfetto-traces/artscope.pftrace"

# A stand-in for adb: appends its argv to a log, keeps "device" files under a
# directory, and behaves as the scenario JSON says.
FAKE_ADB = '''\
import json, os, shutil, sys
cfg = json.load(open(os.environ["FAKE_ADB_CONFIG"]))
args = sys.argv[1:]
with open(cfg["log"], "a") as f:
    f.write(json.dumps(args) + "\\n")
dev = lambda p: os.path.join(cfg["root"], p.lstrip("/"))
if args[:1] == ["-s"]:
    args = args[2:]
if args == ["devices"]:
    print("* daemon not running; starting now at tcp:5037")
    print("List of devices attached")
    for serial, state in cfg["devices"]:
        print(serial + "\\t" + state)
    print()
    sys.exit(0)
if args[0] == "push":
    os.makedirs(os.path.dirname(dev(args[2])), exist_ok=True)
    shutil.copy(args[1], dev(args[2]))
    print(args[1] + ": 1 file pushed, 0 skipped.")
    sys.exit(0)
if args[0] == "pull":
    if not os.path.exists(dev(args[1])):
        print("adb: error: failed to stat remote object '" + args[1] + "': No such file or directory", file=sys.stderr)
        sys.exit(1)
    shutil.copy(dev(args[1]), args[2])
    print(args[1] + ": 1 file pulled, 0 skipped.")
    sys.exit(0)
cmd = args[1:]
if cmd[:2] == ["command", "-v"]:
    if cfg["perfetto"]:
        print("/system/bin/perfetto")
        sys.exit(0)
    sys.exit(1)
if cmd[:2] == ["rm", "-f"]:
    if os.path.exists(dev(cmd[2])):
        os.remove(dev(cmd[2]))
    sys.exit(0)
if cmd[0] == "perfetto":
    if cfg.get("perfetto_error"):
        print(cfg["perfetto_error"], file=sys.stderr)
        sys.exit(1)
    if not os.path.exists(dev(cmd[cmd.index("-c") + 1])):
        sys.exit(3)
    out = dev(cmd[cmd.index("-o") + 1])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copy(cfg["trace"], out)
    sys.exit(0)
print("fake adb: unexpected " + " ".join(args), file=sys.stderr)
sys.exit(1)
'''


LIGHT_EVENTS = [  # artscope-light's ftrace events, in file order
    "sched/sched_switch", "sched/sched_process_exit", "sched/sched_process_free",
    "task/task_newtask", "task/task_rename", "power/cpu_frequency", "power/cpu_frequency_limits",
    "power/clock_set_rate", "devfreq/devfreq_frequency", "dcvs/qcom_dcvs_update",
    "dcvs/memlat_dev_update", "dcvs/bw_hwmon_update",
]
# What a Pixel 6 kernel (5.10) does not have: perfetto reports them unknown.
TENSOR_UNKNOWN = ["devfreq/devfreq_frequency", "dcvs/qcom_dcvs_update",
                  "dcvs/memlat_dev_update", "dcvs/bw_hwmon_update"]


def make_trace() -> bytes:
    """3 sched_switch on CPU 0 over 2.5 s, 2 cpu_frequency, 1 named process."""
    b = TraceProtoBuilder()
    pkt = b.add_packet()
    pkt.timestamp = 1_000_000_000
    proc = pkt.process_tree.processes.add()
    proc.pid, proc.ppid = 1234, 1
    proc.cmdline.append(APP)
    pkt = b.add_packet()
    bundle = pkt.ftrace_events
    bundle.cpu = 0
    for ts, (prev, nxt) in zip(
        (1_000_000_000, 2_000_000_000, 3_500_000_000),
        ((0, 1234), (1234, 1240), (1240, 0)),
    ):
        ev = bundle.event.add()
        ev.timestamp, ev.pid = ts, prev
        sw = ev.sched_switch
        sw.prev_pid, sw.prev_comm, sw.prev_prio, sw.prev_state = prev, f"t{prev}", 120, 0
        sw.next_pid, sw.next_comm, sw.next_prio = nxt, f"t{nxt}", 120
    for ts, khz in ((1_100_000_000, 1_800_000), (2_100_000_000, 2_400_000)):
        ev = bundle.event.add()
        ev.timestamp, ev.pid = ts, 0
        ev.cpu_frequency.state, ev.cpu_frequency.cpu_id = khz, 0
    return b.serialize()


def device_trace(
    *,
    config: str | None = "artscope-light",
    unknown: list[str] | tuple[str, ...] = tuple(TENSOR_UNKNOWN),
    failed: list[str] | tuple[str, ...] = (),
    atrace_errors: str = "",
    absent: tuple[str, ...] = (),
    overrun: tuple[int, int] = (0, 0),
    markers: int = 1,
    gcs: int = 2,
    debuggable: bool = False,
    profileable: bool = True,
    app_process: bool = True,
    suspend_ns: int = 0,
) -> bytes:
    """A trace as a Pixel 6 sends it with ``config`` (recorded in the trace
    as its TraceConfig): FtraceStats naming ``unknown`` / ``failed`` events
    at the start, one event of each of artscope-light's kernel events except
    the refused ones and ``absent``, CPU 2's overrun counter at the start and
    end (``overrun``), ``markers`` "App Benchmark" and ``gcs`` GC slices on
    the app's main thread, and the app's package flags."""
    t = pb.Trace()
    if config is not None:
        t.packet.add(timestamp=1).trace_config.CopyFrom(
            configs.parse_config(configs.render_config(config, app=APP, duration="2s")))
    p = t.packet.add(timestamp=10, trusted_packet_sequence_id=2)
    fs = p.ftrace_stats
    fs.phase = pb.FtraceStats.START_OF_TRACE
    fs.cpu_stats.add(cpu=2, overrun=overrun[0])
    fs.unknown_ftrace_events.extend(unknown)
    fs.failed_ftrace_events.extend(failed)
    if atrace_errors:
        fs.atrace_errors = atrace_errors
    p = t.packet.add(timestamp=20)
    if app_process:
        proc = p.process_tree.processes.add(pid=1234, ppid=1)
        proc.cmdline.append(APP)
    pkg = t.packet.add(timestamp=20).packages_list.packages.add()
    pkg.name, pkg.uid, pkg.debuggable, pkg.profileable_from_shell = APP, 10100, debuggable, profileable
    bundle = t.packet.add().ftrace_events
    bundle.cpu = 0
    ms = 1_000_000
    refused = set(unknown) | set(failed)

    def add(event: str, ts_ms: float, pid: int = 1234):
        if event in refused or event in absent:
            return None
        ev = bundle.event.add(timestamp=int(1000 * ms + ts_ms * ms), pid=pid)
        return ev

    if ev := add("sched/sched_switch", 0, 0):
        ev.sched_switch.prev_pid, ev.sched_switch.prev_comm, ev.sched_switch.prev_state = 0, "swapper", 0
        ev.sched_switch.next_pid, ev.sched_switch.next_comm = 1234, "example.app"
    if ev := add("sched/sched_switch", 900):
        ev.sched_switch.prev_pid, ev.sched_switch.prev_comm, ev.sched_switch.prev_state = 1234, "example.app", 1
        ev.sched_switch.next_pid, ev.sched_switch.next_comm = 0, "swapper"
    if ev := add("task/task_newtask", 1):
        ev.task_newtask.pid, ev.task_newtask.comm, ev.task_newtask.clone_flags = 1240, "example.app", 0x10000
    if ev := add("task/task_rename", 2, 1240):
        ev.task_rename.pid, ev.task_rename.oldcomm, ev.task_rename.newcomm = 1240, "example.app", "HeapTaskDaemon"
    if ev := add("power/cpu_frequency", 3, 0):
        ev.cpu_frequency.state, ev.cpu_frequency.cpu_id = 1_800_000, 0
    if ev := add("power/cpu_frequency_limits", 4, 0):
        lim = ev.cpu_frequency_limits
        lim.min_freq, lim.max_freq, lim.cpu_id = 300_000, 1_800_000, 0
    if ev := add("power/clock_set_rate", 5, 0):
        ev.clock_set_rate.name, ev.clock_set_rate.state, ev.clock_set_rate.cpu_id = "17000010.devfreq_mif", 3_172_000, 0
    for i in range(markers):  # App Benchmark from 10 + 100i ms to 60 + 100i ms
        if ev := add("ftrace/print", 10 + 100 * i):
            ev.print.buf = "B|1234|App Benchmark\n"
        if ev := add("ftrace/print", 60 + 100 * i):
            ev.print.buf = "E|1234\n"
    for i in range(gcs):  # each GC inside a marker
        if ev := add("ftrace/print", 20 + 100 * i):
            ev.print.buf = "B|1234|young concurrent mark compact GC\n"
        if ev := add("ftrace/print", 30 + 100 * i):
            ev.print.buf = "E|1234\n"
    if ev := add("sched/sched_process_exit", 800, 1240):
        ev.sched_process_exit.pid, ev.sched_process_exit.tgid, ev.sched_process_exit.comm = 1240, 1234, "HeapTaskDaemon"
    if ev := add("sched/sched_process_free", 810, 0):
        ev.sched_process_free.pid, ev.sched_process_free.comm = 1240, "HeapTaskDaemon"
    if suspend_ns:
        for start in (1, 0):
            ev = bundle.event.add(timestamp=1000 * ms + 850 * ms + (0 if start else suspend_ns), pid=0)
            ev.suspend_resume.action, ev.suspend_resume.val, ev.suspend_resume.start = "machine_suspend", 3, start
    p = t.packet.add(timestamp=2000 * ms, trusted_packet_sequence_id=2)
    fs = p.ftrace_stats
    fs.phase = pb.FtraceStats.END_OF_TRACE
    fs.cpu_stats.add(cpu=2, overrun=overrun[1])
    return t.SerializeToString()


class Fake:
    """The fake adb's scenario, its call log and the fake device's files."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        adb = self.bin / "adb"
        adb.write_text(f"#!{sys.executable}\n" + FAKE_ADB)
        adb.chmod(0o755)
        self.log = tmp_path / "adb.log"
        self.root = tmp_path / "device"
        self.trace = tmp_path / "canned.pftrace"
        self.trace.write_bytes(make_trace())
        self.out_dir = tmp_path / "out"
        self.out_dir.mkdir()
        self.out = self.out_dir / "run.pftrace"
        self.scenario = {
            "log": str(self.log), "root": str(self.root), "trace": str(self.trace),
            "devices": [[SERIAL, "device"]], "perfetto": True,
        }
        self.config_file = tmp_path / "fake-adb.json"
        monkeypatch.setenv("FAKE_ADB_CONFIG", str(self.config_file))
        monkeypatch.setenv("PATH", str(self.bin) + os.pathsep + os.environ.get("PATH", ""))
        monkeypatch.delenv(capture_mod.ADB_ENV, raising=False)

    def run(self, *extra: str, duration: str = "2s"):
        self.config_file.write_text(json.dumps(self.scenario))
        args = ["capture", "--config", "light", "--app", APP, "--duration", duration, "-o", str(self.out), *extra]
        return CliRunner().invoke(main, args)

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def leftovers(self) -> list[str]:
        return sorted(p.name for p in self.out_dir.iterdir())


@pytest.fixture
def fake(tmp_path, monkeypatch) -> Fake:
    return Fake(tmp_path, monkeypatch)


def _full_flow(serial: str = SERIAL) -> list[list[str]]:
    s = ["-s", serial]
    return [
        ["devices"],
        s + ["shell", "command", "-v", "perfetto"],
        s + ["push", "<local>", CFG],
        s + ["shell", "rm", "-f", TRACE],
        s + ["shell", "perfetto", "-c", CFG, "-o", TRACE],
        s + ["pull", TRACE, "<part>"],
    ]


def _normalised(calls: list[list[str]]) -> list[list[str]]:
    """Temp paths vary per run: replace them by placeholders."""
    out = []
    for call in calls:
        if "push" in call:
            call = [a if not a.endswith("artscope.pb") or a == CFG else "<local>" for a in call]
        if "pull" in call:
            call = call[:-1] + ["<part>"]
        out.append(call)
    return out


def _error(result) -> tuple[int, str, str]:
    return result.exit_code, result.stdout, result.stderr


# Progress line printed on stderr once the device is ready, before recording.
RECORDING = f"recording 2 s with artscope-light on {SERIAL} ...\n"


def _stub_inspect(summary: capture_mod.TraceSummary, seen: list | None = None):
    """An inspect_trace that reports ``summary`` and a check with no findings."""

    def inspect(path, config, app, marker=None):
        if seen is not None:
            seen.append((Path(path).read_bytes(), config, app, marker))
        return summary, capture_mod.CaptureCheck([], [])

    return inspect


def test_capture_success_flow_with_summary_stubbed(fake, monkeypatch):
    seen: list = []
    summary = capture_mod.TraceSummary(2_500_000_000, {"sched slices": 3, "frames": 0})
    monkeypatch.setattr(capture_mod, "inspect_trace", _stub_inspect(summary, seen))
    result = fake.run()
    size = len(fake.trace.read_bytes())
    assert _error(result) == (
        0,
        f"wrote {fake.out} ({size} B, artscope-light on {SERIAL}): 2.50 s; sched slices 3; missing: frames\n",
        RECORDING,
    )
    assert _normalised(fake.calls()) == _full_flow()
    assert fake.out.read_bytes() == fake.trace.read_bytes() == seen[0][0]
    assert fake.leftovers() == ["run.pftrace"]  # the .part file was renamed, not copied
    # The device gets the rendered config as a binary TraceConfig (perfetto
    # reads it ignoring fields it does not know), and the check gets it too.
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

    pushed = TraceConfig.FromString((fake.root / CFG.lstrip("/")).read_bytes())
    assert pushed == configs.parse_config(configs.render_config("artscope-light", app=APP, duration="2s"))
    assert pushed.duration_ms == 2000
    assert seen[0][1:] == (pushed, APP, None)


def test_capture_success_end_to_end_summary(fake):
    """The real embedded engine reads the pulled trace, counts what arrived
    and checks it against the config: make_trace has sched_switch and
    cpu_frequency only, the app's process but no slice at all, no
    FtraceStats (nothing refused, nothing lost) and no package list."""
    result = fake.run()
    size = len(fake.trace.read_bytes())
    empty = [e for e in LIGHT_EVENTS if e not in ("sched/sched_switch", "power/cpu_frequency")]
    assert _error(result) == (
        0,
        f"wrote {fake.out} ({size} B, artscope-light on {SERIAL}): 2.50 s; "
        "sched slices 3, cpufreq samples 2, named processes 1; "
        "missing: device freq samples, slices, GC slices, frames\n"
        "refused by the kernel: none\n"
        f"recorded nothing: {', '.join(empty)} (rare events such as kills, reclaim or suspend can be absent)\n"
        "buffers: no overruns, no lost events\n"
        'app markers: no "App Benchmark" slice (its debuggable/profileable state is not in the trace; '
        f"markers need {capture_mod.MARKERS_NEED}; see docs/capturing.md)\n"
        f'GC slices: none in {APP} (atrace "dalvik" was on: no GC ran, or the run was too short)\n',
        RECORDING,
    )


def test_summarize_trace_counts(fake):
    summary = capture_mod.summarize_trace(fake.trace)
    assert summary.duration_ns == 2_500_000_000
    assert summary.counts == {
        "sched slices": 3, "cpufreq samples": 2, "device freq samples": 0, "slices": 0,
        "GC slices": 0, "frames": 0, "named processes": 1,
    }


def test_serial_picks_one_of_several_devices(fake, monkeypatch):
    monkeypatch.setattr(
        capture_mod, "inspect_trace", _stub_inspect(capture_mod.TraceSummary(1, {"sched slices": 1}))
    )
    fake.scenario["devices"] = [[SERIAL, "device"], ["0A1B2C", "device"]]
    result = fake.run("--serial", "0A1B2C")
    assert result.exit_code == 0
    assert _normalised(fake.calls()) == _full_flow("0A1B2C")


@pytest.mark.parametrize(
    "devices, extra, message",
    [
        ([], (), "no device connected (adb devices lists none): connect one with USB debugging on"),
        ([[SERIAL, "unauthorized"]], (),
         f"device {SERIAL} is unauthorized: unlock it and accept the USB debugging prompt"),
        ([[SERIAL, "offline"]], (),
         f"device {SERIAL} is offline: reconnect it or restart adb (adb kill-server)"),
        ([[SERIAL, "recovery"]], (), f"device {SERIAL} is in state 'recovery', expected 'device'"),
        ([[SERIAL, "device"], ["0A1B2C", "device"]], (),
         f"several devices connected ({SERIAL}, 0A1B2C): choose one with --serial"),
        ([[SERIAL, "device"]], ("--serial", "XYZ"),
         f"device XYZ is not connected (adb devices lists: {SERIAL})"),
    ],
)
def test_device_problems(fake, devices, extra, message):
    fake.scenario["devices"] = devices
    result = fake.run(*extra)
    assert _error(result) == (2, "", f"artscope: error: {message}\n")
    assert fake.calls() == [["devices"]]
    assert fake.leftovers() == []


def test_perfetto_missing_on_device(fake):
    fake.scenario["perfetto"] = False
    result = fake.run()
    assert _error(result) == (
        2, "", f"artscope: error: perfetto not found on device {SERIAL}: it ships with Android 9 and newer\n"
    )
    assert fake.calls() == [["devices"], ["-s", SERIAL, "shell", "command", "-v", "perfetto"]]
    assert fake.leftovers() == []


def test_perfetto_failing_on_device(fake):
    fake.scenario["perfetto_error"] = "[perfetto] perfetto_cmd.cc:231 The TraceConfig is invalid"
    result = fake.run()
    assert _error(result) == (
        2, "",
        RECORDING + f"artscope: error: perfetto failed on {SERIAL} (exit 1): "
        "[perfetto] perfetto_cmd.cc:231 The TraceConfig is invalid\n",
    )
    assert fake.leftovers() == []


def test_empty_trace_pulled_leaves_previous_output_untouched(fake):
    fake.trace.write_bytes(b"")
    fake.out.write_bytes(b"previous run")
    result = fake.run()
    assert _error(result) == (
        2, "",
        RECORDING + "artscope: error: the pulled trace is empty: perfetto recorded nothing "
        f"(see adb -s {SERIAL} logcat -s perfetto)\n",
    )
    assert _normalised(fake.calls()) == _full_flow()
    assert fake.out.read_bytes() == b"previous run"
    assert fake.leftovers() == ["run.pftrace"]


def test_unreadable_trace_pulled(fake):
    fake.trace.write_bytes(b"this is not a trace, just some text\n" * 4)
    result = fake.run()
    assert result.exit_code == 2
    assert result.stderr.startswith(RECORDING + "artscope: error: the pulled trace is unreadable: ")
    assert result.stderr.count("\n") == 2
    assert fake.leftovers() == []


def test_trace_without_events(fake):
    b = TraceProtoBuilder()
    b.add_packet().timestamp = 5  # a packet, but no data source delivered anything
    fake.trace.write_bytes(b.serialize())
    result = fake.run()
    assert _error(result) == (
        2, "",
        RECORDING + "artscope: error: the pulled trace holds no events: check the config's data sources "
        f"(see adb -s {SERIAL} logcat -s perfetto)\n",
    )
    assert fake.leftovers() == []


def test_adb_missing(fake, monkeypatch, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = fake.run()
    assert _error(result) == (
        2, "",
        "artscope: error: adb not found: install Android platform-tools and put adb on PATH, "
        "or pass --adb / set ARTSCOPE_ADB\n",
    )


def test_adb_from_option_and_env(fake, monkeypatch, tmp_path):
    monkeypatch.setattr(
        capture_mod, "inspect_trace", _stub_inspect(capture_mod.TraceSummary(1, {"sched slices": 1}))
    )
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert fake.run("--adb", str(fake.bin / "adb")).exit_code == 0
    monkeypatch.setenv(capture_mod.ADB_ENV, str(fake.bin / "adb"))
    assert fake.run().exit_code == 0
    assert len(fake.calls()) == 2 * len(_full_flow())
    result = fake.run("--adb", str(tmp_path / "no-adb"))
    assert _error(result) == (2, "", f"artscope: error: adb not found at {tmp_path / 'no-adb'} (--adb)\n")


def test_bad_arguments_fail_before_touching_the_device(fake):
    fake.out = fake.out_dir / "missing-dir" / "run.pftrace"
    result = fake.run()
    assert _error(result) == (
        2, "", f"artscope: error: output directory does not exist: {fake.out_dir / 'missing-dir'}\n"
    )
    result = fake.run(duration="soon")
    assert result.exit_code == 2
    assert result.stderr == (
        "artscope: error: invalid duration 'soon': expected e.g. 30s, 500ms, 2m, 1500us "
        "or an integer number of ns\n"
    )
    assert fake.calls() == []


def test_summary_leaves_out_probes_the_engine_cannot_answer(monkeypatch):
    import polars as pl

    import artscope.engines

    class PartialEngine:
        """Answers trace_bounds and sched only, like an engine without frame tables."""

        def query(self, sql):
            if "trace_bounds" in sql:
                return pl.DataFrame({"start_ts": [10], "end_ts": [1_000_000_010]})
            if "FROM sched" in sql:
                return pl.DataFrame({"n": [7]})
            raise RuntimeError("no such table")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(artscope.engines, "load_trace", lambda path, engine: PartialEngine())
    summary = capture_mod.summarize_trace("ignored.pftrace")
    assert summary == capture_mod.TraceSummary(1_000_000_000, {"sched slices": 7})
    assert summary.describe() == "1.00 s; sched slices 7"


# -- the capture check: what the pulled trace says about its own capture -------

# The line every device_trace() gets for Tensor's missing memory-controller
# events (the SQL lists them by name).
NOT_HERE = (
    "not on this device (expected; other SoCs or kernels have them): "
    "dcvs/bw_hwmon_update, dcvs/memlat_dev_update, dcvs/qcom_dcvs_update "
    "(Snapdragon 8 Gen 1 and later (bus_dcvs)); "
    "devfreq/devfreq_frequency (devfreq devices on kernels 5.11+ (not Pixel 6/7))"
)
GC_LINE = f"GC slices: 2 in {APP}"  # device_trace's two GC slices on the main thread


def _check_lines(result) -> list[str]:
    """The capture check's lines: stdout after the "wrote ..." line."""
    head, *lines = result.stdout.splitlines()
    assert head.startswith(f"wrote {Path(head.split()[1])}")
    return lines


def _fatal(result, *headings: str) -> str:
    return (RECORDING + f"artscope: error: {result.stdout.split()[1]} cannot serve the metrics of "
            f"artscope-light: {'; '.join(headings)} (see above and docs/capturing.md)\n")


def test_check_of_a_healthy_pixel_capture(fake):
    """Every light event but Tensor's missing ones recorded, one marker, two
    GCs, a profileable app: nothing fatal, exit 0."""
    fake.trace.write_bytes(device_trace())
    result = fake.run()
    assert (result.exit_code, result.stderr) == (0, RECORDING)
    assert _check_lines(result) == [
        NOT_HERE,
        "recorded nothing: none (every configured event has data)",
        "buffers: no overruns, no lost events",
        f'app markers: 1 "App Benchmark" slices ({APP} is profileable)',
        GC_LINE,
    ]


def test_check_reports_refused_events_and_fails_on_a_metric_event(fake):
    """task_newtask (read by gc and pinning, which have no other source)
    refused: fatal; fence_init (read by nothing) is only named; Tensor's
    unknown events stay expected."""
    fake.trace.write_bytes(device_trace(failed=["task/task_newtask", "fence/fence_init"]))
    result = fake.run()
    assert result.exit_code == 2
    assert _check_lines(result)[:2] == [
        "refused by the kernel: task/task_newtask (read by gc/pinning), fence/fence_init",
        NOT_HERE,
    ]
    assert result.stderr == _fatal(result, "refused by the kernel")
    assert fake.out.exists()  # the trace is kept for a look in the UI


def test_check_a_refused_limit_loses_evidence_not_the_metric(fake):
    """cpu_frequency_limits refused: cpufreq still has its frequencies
    (cpu_frequency recorded); only throttling by a limit cannot be seen."""
    fake.trace.write_bytes(device_trace(failed=["power/cpu_frequency_limits"]))
    result = fake.run()
    assert result.exit_code == 0, result.stderr
    assert _check_lines(result)[0] == (
        "refused by the kernel: power/cpu_frequency_limits (cpufreq: throttling by a "
        "max-frequency limit cannot be seen)")


def test_check_refused_events_the_metrics_do_not_read_are_not_fatal(fake):
    fake.trace.write_bytes(device_trace(unknown=TENSOR_UNKNOWN + ["mdss/mdp_commit"]))
    result = fake.run()
    assert result.exit_code == 0, result.stderr
    assert _check_lines(result)[0] == "refused by the kernel: mdss/mdp_commit"


def test_check_reports_events_that_recorded_nothing(fake):
    fake.trace.write_bytes(device_trace(absent=("task/task_rename", "sched/sched_process_free")))
    result = fake.run()
    assert result.exit_code == 0, result.stderr
    # in the config's order: process_free comes before task_rename
    assert _check_lines(result)[1] == (
        "recorded nothing: sched/sched_process_free, task/task_rename "
        "(rare events such as kills, reclaim or suspend can be absent)")


def test_check_fails_when_sched_switch_recorded_nothing(fake):
    fake.trace.write_bytes(device_trace(absent=("sched/sched_switch",)))
    result = fake.run()
    assert result.exit_code == 2
    assert _check_lines(result)[1] == (
        "recorded nothing: sched/sched_switch (rare events such as kills, reclaim or suspend can be absent)")
    assert result.stderr == _fatal(result, "recorded nothing")


def test_check_reports_overflowed_buffers(fake):
    """CPU 2's overrun counter reads 5 at the start and 12 at the end: 7 lost."""
    fake.trace.write_bytes(device_trace(overrun=(5, 12)))
    result = fake.run()
    assert result.exit_code == 2
    assert _check_lines(result)[2] == (
        "buffers overflowed: ftrace_cpu_overrun[CPU 2]=7 — the trace lost events; record with "
        "bigger buffers (buffers size_kb, buffer_size_kb) or artscope-light")
    assert result.stderr == _fatal(result, "buffers overflowed")


def test_check_reports_missing_markers_with_what_the_app_needs(fake):
    fake.trace.write_bytes(device_trace(markers=0, profileable=False))
    result = fake.run()
    assert result.exit_code == 0, result.stderr  # the analysis falls back to the process window
    assert _check_lines(result)[3] == (
        f'app markers: no "App Benchmark" slice ({APP} is neither debuggable nor profileable; '
        'markers need a debuggable app, or <profileable android:shell="true"/> in its manifest '
        "(Android 10+); see docs/capturing.md)")


def test_check_fails_when_the_requested_marker_is_missing(fake):
    fake.trace.write_bytes(device_trace(debuggable=True, profileable=False))
    result = fake.run("--marker", "Iteration")
    assert result.exit_code == 2
    assert _check_lines(result)[3] == (
        f'app markers: no "Iteration" slice ({APP} is debuggable, so its markers are recorded: '
        "if it marks runs by another name, pass --marker NAME)")
    assert result.stderr == _fatal(result, "app markers")


def test_check_fails_without_the_app_or_atrace(fake):
    fake.trace.write_bytes(device_trace(app_process=False, atrace_errors="Failed to enable dalvik"))
    result = fake.run()
    assert result.exit_code == 2
    lines = _check_lines(result)
    assert lines[1] == "atrace failed: Failed to enable dalvik (the GC slices and markers need atrace)"
    assert lines[-1] == f"app {APP}: not in the trace (start it while the capture runs)"
    assert result.stderr == _fatal(result, "atrace failed", f"app {APP}")


def test_check_reports_a_suspend(fake):
    fake.trace.write_bytes(device_trace(suspend_ns=250_000_000))
    result = fake.run()
    assert result.exit_code == 0, result.stderr
    assert _check_lines(result)[-1] == (
        "device suspended 1 time for 0.25 s during the trace — keep it awake (adb shell svc power stayon true)")


PROBLEMS = dict(failed=["task/task_newtask"], absent=("task/task_rename",), overrun=(5, 12),
                markers=0, profileable=False, suspend_ns=250_000_000)
PROBLEM_LINES = [
    "refused by the kernel: task/task_newtask (read by gc/pinning)",
    NOT_HERE,
    "recorded nothing: task/task_rename (rare events such as kills, reclaim or suspend can be absent)",
    "buffers overflowed: ftrace_cpu_overrun[CPU 2]=7 — the trace lost events; record with "
    "bigger buffers (buffers size_kb, buffer_size_kb) or artscope-light",
    f'app markers: no "App Benchmark" slice ({APP} is neither debuggable nor profileable; markers '
    f"need {capture_mod.MARKERS_NEED}; see docs/capturing.md)",
    GC_LINE,
    "device suspended 1 time for 0.25 s during the trace — keep it awake (adb shell svc power stayon true)",
]


def test_check_reads_the_config_the_trace_recorded(tmp_path):
    """A trace taken elsewhere: the check takes the TraceConfig from the trace."""
    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(**PROBLEMS))
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines == PROBLEM_LINES
    assert check.fatal == [PROBLEM_LINES[0], PROBLEM_LINES[3]]
    path.write_bytes(device_trace(config=None))
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines[1] == "recorded nothing: unknown (the trace does not record its TraceConfig)"


@pytest.mark.tp
def test_check_is_the_same_on_trace_processor(tmp_path, tp_bin):
    from artscope.engines import load_trace

    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(**PROBLEMS))
    with load_trace(path, engine="trace_processor", tp_bin=tp_bin) as engine:
        config = capture_mod.recorded_config(engine)
        check = capture_mod.check_capture(engine, config, APP)
    assert check.lines == PROBLEM_LINES


def test_artscope_check_adds_the_capture_lines(tmp_path):
    """`artscope check` of a trace taken elsewhere: its verdict table as
    before, then the same lines under "capture of TRACE:"."""
    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(**PROBLEMS))
    result = CliRunner().invoke(main, ["check", str(path), "--app", APP, "--cpus", "0"])
    assert result.exit_code in (0, 1), result.stderr
    tail = result.stdout.split(f"capture of {path}:\n", 1)[1]
    assert tail == "".join(f"  {line}\n" for line in PROBLEM_LINES)


def test_capture_help_has_an_example_and_the_guide():
    result = CliRunner().invoke(main, ["capture", "--help"])
    assert result.exit_code == 0
    assert "artscope capture --config full --app com.example.app --duration 60s -o run1.pftrace" in result.stdout
    assert "docs/capturing.md" in result.stdout
    assert '<profileable android:shell="true"/>' in " ".join(result.stdout.split())


def test_verdict_ignores_other_socs_events_but_not_a_missing_metric_event(tmp_path):
    """The Tensor trace's unknown devfreq/bus_dcvs events are expected and
    make no data_loss reason; an unknown clock_set_rate (Tensor's memory
    controller, read by memfreq) does."""
    import artscope

    def data_loss(trace: bytes) -> list[str]:
        path = tmp_path / "t.pftrace"
        path.write_bytes(trace)
        rs = artscope.open(str(path), app=APP, cpus="0", engine="embedded")
        return [r["message"] for r in rs.results[0]["health"]["reasons"] if r["id"] == "data_loss"]

    assert data_loss(device_trace()) == []
    (message,) = data_loss(device_trace(unknown=TENSOR_UNKNOWN + ["power/clock_set_rate"]))
    assert message.startswith("this kernel has no power/clock_set_rate — ")


def test_verdict_notes_a_refused_devfreq_the_clock_stood_in_for(tmp_path):
    """devfreq_frequency refused, the memory controller recorded through
    clock_set_rate: the run's memfreq is known, the refusal an info line."""
    import artscope

    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(unknown=TENSOR_UNKNOWN[1:], failed=["devfreq/devfreq_frequency"]))
    with artscope.open(str(path), app=APP, cpus="0", engine="embedded") as rs:
        (r,) = rs.results
    assert [m["device"] for m in r["memfreq"]] == ["17000010.devfreq_mif"]
    (loss,) = [x for x in r["health"]["reasons"] if x["id"] == "data_loss"]
    assert loss["severity"] == "info"
    assert loss["evidence"]["ftrace_events"] == ["devfreq/devfreq_frequency"]


def test_check_of_affinity_debug_on_a_user_build(tmp_path):
    """A user build refuses raw_syscalls (they exist, but are not allowed):
    that loses what affinity-debug is taken for, pinning_evidence."""
    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(config="artscope-affinity-debug",
                                  failed=["raw_syscalls/sys_enter", "raw_syscalls/sys_exit"]))
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines[0] == (
        "refused by the kernel: raw_syscalls/sys_enter (read by pinning_evidence), "
        "raw_syscalls/sys_exit (read by pinning_evidence)")
    assert check.fatal[0] == check.lines[0]


def test_check_forgives_a_refused_devfreq_when_the_clock_served_the_controller(tmp_path):
    """The kernel has devfreq_frequency but refused it; the same capture
    recorded the memory controller through clock_set_rate
    (17000010.devfreq_mif): memfreq has its data, an info line says so."""
    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(unknown=TENSOR_UNKNOWN[1:], failed=["devfreq/devfreq_frequency"]))
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines[0] == ("refused by the kernel: devfreq/devfreq_frequency (memfreq: served "
                              "by clock 17000010.devfreq_mif)")
    assert check.fatal == []


def test_check_fails_a_refused_devfreq_when_no_source_served_the_controller(tmp_path):
    """The same refusal with clock_set_rate recording nothing: memfreq has
    no source at all."""
    path = tmp_path / "t.pftrace"
    path.write_bytes(device_trace(unknown=TENSOR_UNKNOWN[1:], failed=["devfreq/devfreq_frequency"],
                                  absent=("power/clock_set_rate",)))
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines[0] == "refused by the kernel: devfreq/devfreq_frequency (read by memfreq)"
    assert check.fatal[0] == check.lines[0]


def test_check_markers_of_an_app_the_config_did_not_name(tmp_path):
    """A trace recorded for another app: atrace_apps names com.other.app only."""
    trace = pb.Trace()
    trace.ParseFromString(device_trace(markers=0))
    ftrace = [ds.config.ftrace_config for ds in trace.packet[0].trace_config.data_sources
              if ds.config.name == "linux.ftrace"][0]
    ftrace.atrace_apps[:] = ["com.other.app"]
    path = tmp_path / "t.pftrace"
    path.write_bytes(trace.SerializeToString())
    _, check = capture_mod.inspect_trace(path, None, APP)
    assert check.lines[3] == (
        f'app markers: no "App Benchmark" slice (the config\'s atrace_apps does not name {APP}: '
        f"record with --app {APP})")


def test_check_counts_throttled_rss_stat_as_rss_stat(tmp_path):
    """artscope-full asks for kmem/rss_stat with throttle_rss_stat: a kernel
    with the synthetic rss_stat_throttled event records that instead."""
    trace = pb.Trace()
    trace.ParseFromString(device_trace(config="artscope-full"))
    ev = trace.packet.add().ftrace_events.event.add(timestamp=1_000_500_000_000, pid=1234)
    ev.rss_stat_throttled.curr, ev.rss_stat_throttled.member, ev.rss_stat_throttled.size = 1, 1, 4096 * 1000
    path = tmp_path / "t.pftrace"
    path.write_bytes(trace.SerializeToString())
    _, check = capture_mod.inspect_trace(path, None, APP)
    (empty,) = [line for line in check.lines if line.startswith("recorded nothing: ")]
    assert "rss_stat" not in empty and "sched/sched_waking" in empty
