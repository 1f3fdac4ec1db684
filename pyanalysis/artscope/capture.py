"""Record a trace on an Android device with a curated config, over adb.

The flow is: find adb, pick exactly one ready device, check the device has
perfetto, push the rendered config, run perfetto for the requested duration,
pull the trace and only then move it to the output path (atomically: an error
at any step leaves no half-written output). The pulled trace is loaded with
the embedded engine to prove it is readable and to say which data arrived,
because a trace that silently lacks, say, frequency data is exactly what
artscope exists to catch — better now than after the benchmark campaign.

:func:`check_capture` then reads what the trace says about its own capture
(events the kernel refused, configured events that recorded nothing, lost
data, the app's markers and GC slices, suspends), one line each, and which
of those findings keep the trace from serving its config's metrics; `artscope
check` prints the same lines for a trace taken elsewhere.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from artscope import configs
from artscope.dvfs_capture import dvfs_findings
from artscope.errors import ArtscopeError, TraceError, UsageError

if TYPE_CHECKING:  # the trace protos take ~0.1 s to import
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

#: Where the config goes on the device. Since Android 12, perfetto only reads
#: config files from this directory (SELinux), and the shell user may write it.
#: The config is sent as a binary TraceConfig: perfetto reads binary configs
#: ignoring fields it does not know (``--txt`` rejects them), so one config
#: serves Android 13 to the newest release.
DEVICE_CONFIG = "/data/misc/perfetto-configs/artscope.pb"
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
    check: "CaptureCheck | None" = None

    def describe(self) -> str:
        """One line for the user: file, size, device, config and summary,
        then the capture check's lines."""
        head = (
            f"wrote {self.path} ({_human_size(self.size_bytes)}, {self.config} on {self.serial}): "
            f"{self.summary.describe()}"
        )
        return "\n".join([head] + (self.check.lines if self.check else []))


def capture(
    config: str,
    app: str,
    duration: str,
    out: str | os.PathLike[str],
    serial: str | None = None,
    adb: str | None = None,
    log: Callable[[str], None] | None = None,
    marker: str | None = None,
) -> CaptureResult:
    """Record ``duration`` of trace with curated ``config`` for ``app`` into ``out``.

    ``adb`` overrides the adb binary (else $ARTSCOPE_ADB, else PATH); ``serial``
    picks the device when several are connected. ``log`` receives progress
    lines (the CLI prints them on stderr). ``marker`` is the run marker the
    analysis will use (default: ``App Benchmark``, looked for but optional).
    Raises UsageError, DeviceError or TraceError with one-line messages;
    ``out`` is only written when a readable trace arrived. The result's
    ``check`` says whether the trace can serve the config's metrics.
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

    trace_config = configs.parse_config(text)
    with tempfile.TemporaryDirectory(prefix="artscope-capture-") as tmp:
        local_cfg = Path(tmp) / "artscope.pb"
        local_cfg.write_bytes(trace_config.SerializeToString())
        pushed = device.run(["push", str(local_cfg), DEVICE_CONFIG])
        _ok(pushed, device, f"could not push the config to {DEVICE_CONFIG}")
    device.run(["shell", "rm", "-f", DEVICE_TRACE])  # never pull a stale trace

    say(f"recording {seconds} s with {name} on {serial} ...")
    run = device.run(
        ["shell", "perfetto", "-c", DEVICE_CONFIG, "-o", DEVICE_TRACE],
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
        summary, check = inspect_trace(part, trace_config, app, marker)
        if not any(summary.counts.values()):
            raise TraceError(
                f"the pulled trace holds no events: check the config's data sources "
                f"(see adb -s {serial} logcat -s perfetto)"
            )
        os.replace(part, out_path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise
    return CaptureResult(out_path, serial, name, size, summary, check)


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
        return _summarize(engine)


def _summarize(engine) -> TraceSummary:
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


#: Where a user reads what each check below means and how to fix it.
CAPTURING_DOC = "docs/capturing.md"
#: The run marker the analysis uses when none is given (the harness marker of
#: android-benchmark-runner).
DEFAULT_MARKER = "App Benchmark"
#: What makes an app's own Trace.beginSection markers reach the trace.
MARKERS_NEED = 'a debuggable app, or <profileable android:shell="true"/> in its manifest (Android 10+)'


@dataclasses.dataclass(frozen=True)
class CaptureCheck:
    """What a trace says about its own capture, one line per finding.

    ``fatal`` holds the findings that keep the trace from serving the metrics
    its config was taken for (a refused required event, sched_switch empty,
    lost data, the app or a requested marker absent): ``artscope capture``
    exits 2 when it is not empty.
    """

    lines: list[str]
    fatal: list[str]


def inspect_trace(
    path: str | os.PathLike[str],
    config: "TraceConfig | None",
    app: str | None,
    marker: str | None = None,
    pid: int | None = None,
) -> tuple[TraceSummary, CaptureCheck]:
    """Load ``path`` once with the embedded engine: its summary and capture check.

    ``config`` is the TraceConfig the trace was taken with (None: read the
    one the trace records, if any). Raises TraceError for an unreadable file.
    """
    from artscope.engines import load_trace

    try:
        engine = load_trace(path, engine="embedded")
    except ArtscopeError as e:
        raise TraceError(f"the pulled trace is unreadable: {e}") from None
    with engine:
        summary = _summarize(engine)
        if config is None:
            config = recorded_config(engine)
        return summary, check_capture(engine, config, app, marker, pid)


def recorded_config(engine) -> "TraceConfig | None":
    """The TraceConfig a trace records about itself (trace_processor's
    ``trace_config_pbtxt`` metadata), or None when it has none."""
    from google.protobuf import text_format
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

    text = _scalar(engine, "SELECT str_value FROM metadata WHERE name = 'trace_config_pbtxt'")
    if not text:
        return None
    cfg = TraceConfig()
    try:  # a newer perfetto may know fields this one does not
        text_format.Parse(text, cfg, allow_unknown_field=True)
    except text_format.ParseError:
        return None
    return cfg


#: One finding of the check: its line, and whether it is fatal.
Finding = tuple[str, bool]


def check_capture(
    engine,
    config: "TraceConfig | None",
    app: str | None,
    marker: str | None = None,
    pid: int | None = None,
) -> CaptureCheck:
    """The capture check of a loaded trace (see :class:`CaptureCheck`).

    ``config`` None means the trace's TraceConfig is unknown: every metric's
    events count as needed and "recorded nothing" cannot be judged.
    """
    setup = _setup_errors(engine)
    findings = (
        _refused_findings(engine, setup, config)
        + _empty_findings(engine, config, set(setup[0]))
        + _loss_findings(engine)
        + _app_findings(engine, config, app, marker, pid)
        + _suspend_findings(engine)
        + dvfs_findings(engine, config)
    )
    return CaptureCheck([line for line, _ in findings], [line for line, fatal in findings if fatal])


def _readers(config: "TraceConfig | None") -> dict[str, list[str]]:
    """GROUP/EVENT -> the REQUIREMENTS keys ``config`` serves that read it."""
    served = configs.serves(config) if config is not None else list(configs.REQUIREMENTS)
    readers: dict[str, list[str]] = {}
    for key in served:
        for req in configs.REQUIREMENTS[key]:
            if req.startswith("ftrace:"):
                readers.setdefault(req[len("ftrace:"):], []).append(key)
            elif req.startswith("syscall:"):  # recorded through raw_syscalls
                for event in ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit"):
                    readers.setdefault(event, []).append(key)
    return readers


def _refused_findings(engine, setup: tuple[list[str], list[str], str, int],
                      config: "TraceConfig | None") -> list[Finding]:
    """Events and atrace the capture asked for and did not get (FtraceStats at
    the start of the trace, ``_setup_errors``): fatal when a metric of the
    config reads them and got its data from no other source (``_losses``)."""
    refused, unknown, atrace_errors, unnamed = setup
    readers = _readers(config)
    # An event listed for another SoC family that this kernel does not have
    # is expected; one it has but refused to enable is not.
    elsewhere = [e for e in unknown if e in configs.DEVICE_SPECIFIC]
    refused_here = [e for e in refused if e not in elsewhere]
    out: list[Finding] = []
    if refused_here:
        detail, fatal = [], False
        for e in refused_here:
            lost, kept = _losses(engine, e, readers.get(e, []))
            if lost:
                fatal = True
                detail.append(f"{e} (read by {'/'.join(lost)})")
            elif kept:
                detail.append(f"{e} ({'; '.join(kept)})")
        others = [e for e in refused_here if e not in readers]
        detail += _compact(others)
        out.append((f"refused by the kernel: {', '.join(detail)}", fatal))
    if elsewhere:
        by_family: dict[str, list[str]] = {}
        for e in elsewhere:
            by_family.setdefault(configs.DEVICE_SPECIFIC[e], []).append(e)
        out.append(("not on this device (expected; other SoCs or kernels have them): "
                    + "; ".join(f"{', '.join(es)} ({family})" for family, es in by_family.items()),
                    False))
    if atrace_errors:
        out.append((f"atrace failed: {atrace_errors} (the GC slices and markers need atrace)", True))
    if unnamed:
        out.append((f"{unnamed} ftrace setup errors (this trace does not name the events)", False))
    if not (refused or atrace_errors or unnamed):
        out.append(("refused by the kernel: none", False))
    return out


def _losses(engine, event: str, metrics: list[str]) -> tuple[list[str], list[str]]:
    """(the metrics that lose their data with ``event`` refused, notes for
    those that do not): a metric keeps its data when another of its
    interchangeable sources served it in this trace (configs.INTERCHANGEABLE:
    the Tensor memory controller through clock_set_rate when devfreq is
    refused), and loses only evidence when ``event`` is evidence
    (configs.EVIDENCE_ONLY)."""
    req = f"ftrace:{event}"
    lost, kept = [], []
    for m in metrics:
        if req in configs.EVIDENCE_ONLY:
            kept.append(f"{m}: {configs.EVIDENCE_ONLY[req]}")
            continue
        group = next((g for g in configs.INTERCHANGEABLE.get(m, ()) if req in g), None)
        served = _served_by(engine, m) if group else None
        if served:
            kept.append(f"{m}: served by {served}")
        else:
            lost.append(m)
    return lost, kept


def _served_by(engine, metric: str) -> str | None:
    """What served ``metric``'s data in the trace, for the metrics with
    interchangeable sources (configs.INTERCHANGEABLE); None when nothing did."""
    if metric == "cpufreq":
        n = _scalar(engine, "SELECT count(*) FROM counter c JOIN cpu_counter_track t "
                            "ON c.track_id = t.id WHERE t.name = 'cpufreq'")
        return f"{n} cpufreq samples" if n else None
    if metric == "memfreq":
        from artscope.metrics.compute import is_memory_controller

        rows = engine.query(
            "SELECT ct.type, ct.name, count(c.id) AS n FROM counter_track ct "
            "JOIN counter c ON c.track_id = ct.id "
            "WHERE ct.type IN ('clock_frequency', 'linux_device_frequency') GROUP BY ct.id").rows()
        names = [(("devfreq" if kind == "linux_device_frequency" else "clock"),
                  name[:-len(" Frequency")] if name.endswith(" Frequency") else name)
                 for kind, name, n in rows if n]
        found = [f"{kind} {name}" for kind, name in names if is_memory_controller(name, kind)]
        dcvs = _scalar(engine, "SELECT count(*) FROM ftrace_event WHERE name = 'qcom_dcvs_update'")
        found += ["bus_dcvs votes"] if dcvs else []
        return ", ".join(found) or None
    return None


def _empty_findings(engine, config: "TraceConfig | None", refused: set[str]) -> list[Finding]:
    """Configured events (not ``refused``) without a single event in the
    trace: fatal for sched_switch, which every metric needs."""
    if config is None:
        return [("recorded nothing: unknown (the trace does not record its TraceConfig)", False)]
    counts = dict(engine.query("SELECT name, count(*) AS n FROM ftrace_event GROUP BY name").rows())
    # throttle_rss_stat makes perfetto record rss_stat as the kernel's
    # synthetic rss_stat_throttled where the kernel offers it
    counts["rss_stat"] = counts.get("rss_stat", 0) + counts.get("rss_stat_throttled", 0)
    empty = [
        e for e in configs.ftrace_events(config)
        if e not in refused and not e.endswith("/*") and not counts.get(e.partition("/")[2])
    ]
    if not empty:
        return [("recorded nothing: none (every configured event has data)", False)]
    return [("recorded nothing: " + ", ".join(empty)
             + " (rare events such as kills, reclaim or suspend can be absent)",
             "sched/sched_switch" in empty)]


def _loss_findings(engine) -> list[Finding]:
    """Buffer overruns and lost packets (sql-metrics/data_loss.sql): fatal."""
    from artscope.metrics.runner import metric_sql

    loss = [r for r in engine.query(metric_sql("data_loss")).to_dicts() if r["name"] != "ftrace_setup_errors"]
    if not loss:
        return [("buffers: no overruns, no lost events", False)]
    what = ", ".join(f"{r['name']}[{_where(r['name'], r['idx'])}]={r['value']}" if r["idx"] is not None
                     else f"{r['name']}={r['value']}" for r in loss)
    return [(f"buffers overflowed: {what} — the trace lost events; record with bigger buffers "
             "(buffers size_kb, buffer_size_kb) or artscope-light", True)]


def _app_findings(engine, config: "TraceConfig | None", app: str | None, marker: str | None,
                  pid: int | None) -> list[Finding]:
    """The app: present (fatal when not), its run markers, its GC slices."""
    if app is None and pid is None:
        return []
    upids = _app_upids(engine, app, pid)
    label = app or f"pid {pid}"
    if not upids:
        return [(f"app {label}: not in the trace (start it while the capture runs)", True)]
    out = [_marker_finding(engine, app, marker, config)]
    in_app = ",".join(str(u) for u in upids)
    gcs = _scalar(engine, "SELECT count(*) FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
                          f"JOIN thread t USING (utid) WHERE t.upid IN ({in_app}) AND s.name GLOB '* GC'")
    if gcs:
        out.append((f"GC slices: {gcs} in {label}", False))
    elif _dalvik_recorded(engine) or (config is not None
                                      and not configs.missing(config, "atrace:dalvik")):
        out.append((f'GC slices: none in {label} (atrace "dalvik" was on: no GC ran, or the run was too short)',
                    False))
    elif config is None:
        out.append(("GC slices: none, and no sign of ART's atrace category \"dalvik\" "
                    "(GC numbers will be unknown)", False))
    else:
        out.append(('GC slices: not captured (the config has no atrace "dalvik")', True))
    return out


def _dalvik_recorded(engine) -> bool:
    """ART's dalvik category recorded (its heap counter, GC or other ART slices):
    the same test the analysis uses to tell 0 GCs from unknown."""
    from artscope.metrics.options import DEFAULT_GC_PATTERNS
    from artscope.metrics.runner import MetricRunner

    runner = MetricRunner(engine)
    runner.set_input("artscope_gc_pattern", [(p,) for p in DEFAULT_GC_PATTERNS])
    return bool(runner.run("dalvik_recorded")["recorded"][0])


def _suspend_findings(engine) -> list[Finding]:
    """A suspend inside the trace stops every clock (power/suspend_resume)."""
    suspends, suspended_ns = engine.query(
        "SELECT count(*), coalesce(sum(dur), 0) FROM slice WHERE name GLOB 'machine_suspend(*'").row(0)
    if not suspends:
        return []
    return [(f"device suspended {suspends} time{'s' if suspends > 1 else ''} for "
             f"{suspended_ns / 1e9:.2f} s during the trace — keep it awake (adb shell svc power stayon true)",
             False)]


def _compact(events: list[str], limit: int = 6) -> list[str]:
    """Event names for one line: all of them when few, else per group
    (``mdss: 23 events``) for groups with more than one."""
    if len(events) <= limit:
        return events
    groups: dict[str, list[str]] = {}
    for e in events:
        groups.setdefault(e.partition("/")[0], []).append(e)
    return [es[0] if len(es) == 1 else f"{g}: {len(es)} events" for g, es in groups.items()]


def _marker_finding(engine, app: str | None, marker: str | None,
                    config: "TraceConfig | None") -> Finding:
    """The run markers' line: found, or why not (not in atrace_apps, not
    debuggable / profileable); fatal when ``marker`` was asked for."""
    name = marker or DEFAULT_MARKER
    found = _scalar(engine, f"SELECT count(*) FROM slice WHERE name = {_quote(name)}")
    flags = None
    if app is not None:
        try:
            flags = engine.query(
                "SELECT max(debuggable), max(profileable_from_shell) FROM package_list "
                f"WHERE package_name = {_quote(app.split(':')[0])}").row(0)
        except Exception:  # noqa: BLE001 - an engine without package_list
            flags = None
    if flags is None or flags[0] is None:
        state = "its debuggable/profileable state is not in the trace"
    elif flags[0]:
        state = f"{app} is debuggable"
    elif flags[1]:
        state = f"{app} is profileable"
    else:
        state = f"{app} is neither debuggable nor profileable"
    if found:
        return (f"app markers: {found} \"{name}\" slices ({state})", False)
    if app is not None and config is not None and configs.missing(config, f"atrace_app:{app}"):
        why = f"the config's atrace_apps does not name {app}: record with --app {app}"
    elif flags is not None and flags[0] is not None and (flags[0] or flags[1]):
        why = f"{state}, so its markers are recorded: if it marks runs by another name, pass --marker NAME"
    else:
        why = f"{state}; markers need {MARKERS_NEED}; see {CAPTURING_DOC}"
    return (f"app markers: no \"{name}\" slice ({why})", marker is not None)


def _setup_errors(engine) -> tuple[list[str], list[str], str, int]:
    """(refused GROUP/EVENT names, the unknown ones among them, atrace error
    text, count of errors without names), from metrics.setup_errors."""
    from artscope.metrics.setup_errors import setup_errors

    named, unnamed = setup_errors(engine)
    refused = [r["what"] for r in named if r["kind"] in ("failed", "unknown")]
    unknown = [r["what"] for r in named if r["kind"] == "unknown"]
    other = [r["what"] for r in named if r["kind"] not in ("failed", "unknown")]
    return list(dict.fromkeys(refused)), unknown, "; ".join(other), unnamed


def _app_upids(engine, app: str | None, pid: int | None) -> list[int]:
    if app is not None:
        where = f"name = {_quote(app)}"
    elif pid is not None:
        where = f"pid = {int(pid)}"
    else:
        return []
    return [int(u) for (u,) in engine.query(f"SELECT upid FROM process WHERE {where} ORDER BY upid").rows()]


def _where(stat: str, idx: int) -> str:
    return f"CPU {idx}" if stat.startswith("ftrace_cpu_") else f"buffer {idx}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _scalar(engine, sql: str):
    frame = engine.query(sql)
    return frame.item(0, 0) if frame.height else None


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
