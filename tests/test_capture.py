"""`artscope capture` against a fake adb that logs its calls and plays a device."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from perfetto.trace_builder.proto_builder import TraceProtoBuilder

from artscope import capture as capture_mod
from artscope import configs
from artscope.cli import main

SERIAL = "emulator-5554"
APP = "com.example.app"
CFG = "/data/misc/perfetto-configs/artscope.pbtxt"
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
        s + ["shell", "perfetto", "--txt", "-c", CFG, "-o", TRACE],
        s + ["pull", TRACE, "<part>"],
    ]


def _normalised(calls: list[list[str]]) -> list[list[str]]:
    """Temp paths vary per run: replace them by placeholders."""
    out = []
    for call in calls:
        if "push" in call:
            call = [a if not a.endswith("artscope.pbtxt") or a == CFG else "<local>" for a in call]
        if "pull" in call:
            call = call[:-1] + ["<part>"]
        out.append(call)
    return out


def _error(result) -> tuple[int, str, str]:
    return result.exit_code, result.stdout, result.stderr


# Progress line printed on stderr once the device is ready, before recording.
RECORDING = f"recording 2 s with artscope-light on {SERIAL} ...\n"


def test_capture_success_flow_with_summary_stubbed(fake, monkeypatch):
    seen = []

    def summary(path):
        seen.append(Path(path).read_bytes())
        return capture_mod.TraceSummary(2_500_000_000, {"sched slices": 3, "frames": 0})

    monkeypatch.setattr(capture_mod, "summarize_trace", summary)
    result = fake.run()
    size = len(fake.trace.read_bytes())
    assert _error(result) == (
        0,
        f"wrote {fake.out} ({size} B, artscope-light on {SERIAL}): 2.50 s; sched slices 3; missing: frames\n",
        RECORDING,
    )
    assert _normalised(fake.calls()) == _full_flow()
    assert fake.out.read_bytes() == fake.trace.read_bytes() == seen[0]
    assert fake.leftovers() == ["run.pftrace"]  # the .part file was renamed, not copied
    pushed = (fake.root / CFG.lstrip("/")).read_text()
    assert pushed == configs.render_config("artscope-light", app=APP, duration="2s")
    assert configs.parse_config(pushed).duration_ms == 2000


def test_capture_success_end_to_end_summary(fake):
    """The real embedded engine reads the pulled trace and counts what arrived."""
    result = fake.run()
    size = len(fake.trace.read_bytes())
    assert _error(result) == (
        0,
        f"wrote {fake.out} ({size} B, artscope-light on {SERIAL}): 2.50 s; "
        "sched slices 3, cpufreq samples 2, named processes 1; "
        "missing: device freq samples, slices, GC slices, frames\n",
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
        capture_mod, "summarize_trace", lambda p: capture_mod.TraceSummary(1, {"sched slices": 1})
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
        capture_mod, "summarize_trace", lambda p: capture_mod.TraceSummary(1, {"sched slices": 1})
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
