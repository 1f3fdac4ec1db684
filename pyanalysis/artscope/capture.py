"""Record a trace on an Android device with a curated config, over adb.

The flow is: find adb, pick exactly one ready device, check the device has
perfetto, push the rendered config, run perfetto for the requested duration,
pull the trace and only then move it to the output path (atomically: an error
at any step leaves no half-written output). The pulled trace is loaded with
the embedded engine to prove it is readable and to say which data arrived,
because a trace that silently lacks, say, frequency data is exactly what
artscope exists to catch — better now than after the benchmark campaign.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

from artscope import configs
from artscope.errors import ArtscopeError, TraceError, UsageError

#: Where the config goes on the device. Since Android 12, perfetto only reads
#: config files from this directory (SELinux), and the shell user may write it.
DEVICE_CONFIG = "/data/misc/perfetto-configs/artscope.pbtxt"
#: Where perfetto writes the trace; the only directory it may write to.
DEVICE_TRACE = "/data/misc/perfetto-traces/artscope.pftrace"
#: Environment variable naming the adb binary (after --adb, before PATH).
ADB_ENV = "ARTSCOPE_ADB"

# Quick adb commands (devices, push, pull) must never hang the CLI.
_ADB_TIMEOUT_S = 60.0
# perfetto itself runs for the trace duration plus start-up, flush and stop.
_PERFETTO_SLACK_S = 120.0

# (label, SQL returning one count) over trace_processor-shaped tables: what
# the one-line summary reports, in this order.
_PROBES: tuple[tuple[str, str], ...] = (
    ("sched slices", "SELECT count(*) FROM sched"),
    (
        "cpufreq samples",
        "SELECT count(*) FROM counter c JOIN cpu_counter_track t ON c.track_id = t.id "
        "WHERE t.name = 'cpufreq'",
    ),
    (
        "device freq samples",
        "SELECT count(*) FROM counter c JOIN counter_track t ON c.track_id = t.id "
        "WHERE t.name GLOB 'devfreq_*' OR t.name GLOB '* Frequency'",
    ),
    ("slices", "SELECT count(*) FROM slice"),
    ("GC slices", "SELECT count(*) FROM slice WHERE name GLOB '* GC'"),
    ("frames", "SELECT count(*) FROM actual_frame_timeline_slice"),
    ("named processes", "SELECT count(*) FROM process WHERE name IS NOT NULL"),
)


class DeviceError(ArtscopeError):
    """adb or the device cannot do what a capture needs."""


@dataclasses.dataclass(frozen=True)
class TraceSummary:
    """What a trace holds, enough to tell at a glance whether a capture worked."""

    duration_ns: int
    #: Probe label -> count, for every probe the engine could answer.
    counts: dict[str, int]

    @property
    def missing(self) -> list[str]:
        """Labels of the probes that found nothing."""
        return [label for label, n in self.counts.items() if n == 0]

    def describe(self) -> str:
        """``30.00 s; sched slices 1200, ...; missing: frames`` (one line)."""
        found = ", ".join(f"{label} {n}" for label, n in self.counts.items() if n)
        text = f"{self.duration_ns / 1e9:.2f} s; {found or 'no events'}"
        return text + (f"; missing: {', '.join(self.missing)}" if self.missing else "")


@dataclasses.dataclass(frozen=True)
class CaptureResult:
    """A finished capture: where the trace is, from which device, what it holds."""

    path: Path
    serial: str
    config: str
    size_bytes: int
    summary: TraceSummary

    def describe(self) -> str:
        """One line for the user: file, size, device, config and summary."""
        return (
            f"wrote {self.path} ({_human_size(self.size_bytes)}, {self.config} on {self.serial}): "
            f"{self.summary.describe()}"
        )


def capture(
    config: str,
    app: str,
    duration: str,
    out: str | os.PathLike[str],
    serial: str | None = None,
    adb: str | None = None,
    log: Callable[[str], None] | None = None,
) -> CaptureResult:
    """Record ``duration`` of trace with curated ``config`` for ``app`` into ``out``.

    ``adb`` overrides the adb binary (else $ARTSCOPE_ADB, else PATH); ``serial``
    picks the device when several are connected. ``log`` receives progress
    lines (the CLI prints them on stderr). Raises UsageError, DeviceError or
    TraceError with one-line messages; ``out`` is only written on success.
    """
    say = log or (lambda _msg: None)
    text = configs.render_config(config, app=app, duration=duration)
    name = configs.get_config(config).name
    seconds = math.ceil(configs.parse_duration(duration) / 1e9)
    out_path = Path(out)
    if not out_path.parent.is_dir():
        raise UsageError(f"output directory does not exist: {out_path.parent}")
    if out_path.is_dir():
        raise UsageError(f"output path is a directory: {out_path}")

    adb_path = _find_adb(adb)
    serial = _pick_device(_Adb(adb_path, None), serial)
    device = _Adb(adb_path, serial)
    _check_perfetto(device)

    with tempfile.TemporaryDirectory(prefix="artscope-capture-") as tmp:
        local_cfg = Path(tmp) / "artscope.pbtxt"
        local_cfg.write_text(text, encoding="utf-8")
        pushed = device.run(["push", str(local_cfg), DEVICE_CONFIG])
        _ok(pushed, device, f"could not push the config to {DEVICE_CONFIG}")
    device.run(["shell", "rm", "-f", DEVICE_TRACE])  # never pull a stale trace

    say(f"recording {seconds} s with {name} on {serial} ...")
    run = device.run(
        ["shell", "perfetto", "--txt", "-c", DEVICE_CONFIG, "-o", DEVICE_TRACE],
        timeout=seconds + _PERFETTO_SLACK_S,
    )
    if run.returncode == 127:  # the shell's "command not found"
        raise DeviceError(_no_perfetto(serial))
    _ok(run, device, "perfetto failed")

    fd, part = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".part", dir=out_path.parent)
    os.close(fd)
    try:
        _ok(device.run(["pull", DEVICE_TRACE, part]), device, "could not pull the trace")
        size = os.path.getsize(part)
        if size == 0:
            raise TraceError(
                f"the pulled trace is empty: perfetto recorded nothing "
                f"(see adb -s {serial} logcat -s perfetto)"
            )
        summary = summarize_trace(part)
        if not any(summary.counts.values()):
            raise TraceError(
                f"the pulled trace holds no events: check the config's data sources "
                f"(see adb -s {serial} logcat -s perfetto)"
            )
        os.replace(part, out_path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise
    return CaptureResult(out_path, serial, name, size, summary)


def summarize_trace(path: str | os.PathLike[str]) -> TraceSummary:
    """Load ``path`` with the embedded engine and count what it holds.

    Raises TraceError when the file is not a readable trace. A probe whose
    table the engine does not provide is left out rather than reported as
    missing data: the summary is a sanity check, not a metric.
    """
    from artscope.engines import load_trace

    try:
        engine = load_trace(path, engine="embedded")
    except ArtscopeError as e:
        raise TraceError(f"the pulled trace is unreadable: {e}") from None
    with engine:
        bounds = engine.query("SELECT start_ts, end_ts FROM trace_bounds")
        start, end = (int(v) for v in bounds.row(0)) if bounds.height else (0, 0)
        counts: dict[str, int] = {}
        for label, sql in _PROBES:
            try:
                frame = engine.query(sql)
            except Exception:  # noqa: BLE001 - engines raise their own SQL errors
                continue
            counts[label] = int(frame.item(0, 0) or 0)
    return TraceSummary(max(end - start, 0), counts)


class _Adb:
    """Runs adb (against one device once ``serial`` is set) with timeouts."""

    def __init__(self, path: str, serial: str | None) -> None:
        self.path = path
        self.serial = serial

    def run(self, args: list[str], timeout: float = _ADB_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        argv = [self.path] + (["-s", self.serial] if self.serial else []) + args
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise DeviceError(f"adb {' '.join(args[:2])} timed out after {timeout:.0f} s") from None
        except OSError as e:
            raise DeviceError(f"cannot run adb at {self.path}: {e.strerror or e}") from None


def _find_adb(explicit: str | None) -> str:
    """--adb, then $ARTSCOPE_ADB, then adb on PATH."""
    for given, origin in ((explicit, "--adb"), (os.environ.get(ADB_ENV), ADB_ENV)):
        if given:
            found = shutil.which(given)
            if not found:
                raise UsageError(f"adb not found at {given} ({origin})")
            return found
    found = shutil.which("adb")
    if not found:
        raise DeviceError(
            f"adb not found: install Android platform-tools and put adb on PATH, or pass --adb / set {ADB_ENV}"
        )
    return found


def _pick_device(adb: _Adb, serial: str | None) -> str:
    """The one ready device: ``serial`` if given, else the only one connected."""
    listing = _ok(adb.run(["devices"]), adb, "adb devices failed")
    states: dict[str, str] = {}
    for line in listing.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith(("*", "List of devices")):
            states[parts[0]] = parts[1]
    if serial is None:
        if not states:
            raise DeviceError("no device connected (adb devices lists none): connect one with USB debugging on")
        if len(states) > 1:
            raise DeviceError(f"several devices connected ({', '.join(states)}): choose one with --serial")
        serial = next(iter(states))
    elif serial not in states:
        listed = ", ".join(states) or "none"
        raise DeviceError(f"device {serial} is not connected (adb devices lists: {listed})")
    state = states[serial]
    if state == "unauthorized":
        raise DeviceError(f"device {serial} is unauthorized: unlock it and accept the USB debugging prompt")
    if state == "offline":
        raise DeviceError(f"device {serial} is offline: reconnect it or restart adb (adb kill-server)")
    if state != "device":
        raise DeviceError(f"device {serial} is in state {state!r}, expected 'device'")
    return serial


def _check_perfetto(adb: _Adb) -> None:
    found = adb.run(["shell", "command", "-v", "perfetto"])
    if found.returncode != 0 or not found.stdout.strip():
        raise DeviceError(_no_perfetto(adb.serial or "?"))


def _no_perfetto(serial: str) -> str:
    return f"perfetto not found on device {serial}: it ships with Android 9 and newer"


def _ok(
    proc: subprocess.CompletedProcess[str], adb: _Adb, what: str
) -> subprocess.CompletedProcess[str]:
    """``proc`` if it succeeded, else DeviceError naming its last output line."""
    if proc.returncode == 0:
        return proc
    lines = [ln.strip() for ln in (proc.stderr + "\n" + proc.stdout).splitlines() if ln.strip()]
    detail = lines[-1] if lines else "no output"
    where = f" on {adb.serial}" if adb.serial else ""
    raise DeviceError(f"{what}{where} (exit {proc.returncode}): {detail}")


def _human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"
