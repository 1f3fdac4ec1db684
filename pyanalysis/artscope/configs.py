"""The curated Perfetto capture configs and what each metric needs from them.

The configs are TraceConfig textprotos in ``perfetto-configs/`` (shipped in the
wheel as ``artscope/perfetto_configs``). Each file is a complete config as
committed -- ``perfetto --txt -c FILE`` and the Perfetto UI accept it -- with
defaults of 30 s (``duration_ms``) and all apps (``atrace_apps: "*"``).
:func:`render_config` changes those two fields for one app and run length by
parsing the file into perfetto's TraceConfig message, setting the fields and
printing the message again; it never edits the text.

Printing a message drops comments. A rendered config therefore starts with the
file's header comment (what it records and why) and a line saying where it
came from and what was changed; the per-field comments stay in the shipped
file. When nothing changes, the file is returned byte for byte.

:data:`REQUIREMENTS` is the single "metric -> required data" table. Health
reasons use :func:`config_for` to name the config that captures missing data;
the tests use :func:`missing` to prove every curated config feeds every
metric it claims to.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from artscope._resources import resource_dir
from artscope.errors import UsageError
from artscope.units import parse_duration

if TYPE_CHECKING:  # the trace protos take ~0.1 s to import; only parse_config needs them
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig


#: What each metric (and each piece of optional evidence) needs in a
#: TraceConfig. A config that serves a metric carries all of its entries,
#: because which one a device actually emits depends on its SoC and kernel
#: (e.g. the Tensor memory controller only shows up as a clock, Snapdragon's
#: as bus_dcvs votes); :data:`DEVICE_SPECIFIC` says which.
#: Requirement strings:
#:   ``source:NAME``            a data source named NAME
#:   ``ftrace:GROUP/EVENT``     an ftrace event (``GROUP/*`` also counts)
#:   ``atrace:CATEGORY``        an atrace category
#:   ``atrace_app:NAME``        a process whose atrace markers are recorded
#:                              (``*`` in atrace_apps also counts)
#:   ``syscall:NAME``           syscall NAME recorded (raw_syscalls + filter)
#:   ``sys_stats:FIELD``        a sys_stats polling period FIELD > 0
#:   ``process_stats:FIELD``    a process_stats boolean FIELD set
REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "gc": (
        "ftrace:sched/sched_switch",  # CPU time (task clock) of app threads
        "atrace:dalvik",  # ART's "... GC" slices
        "ftrace:task/task_newtask",  # names of threads born during the run
        "ftrace:task/task_rename",  # HeapTaskDaemon / GC worker names
        "process_stats:scan_all_processes_on_start",  # the app's process + threads
    ),
    "gc_runnable": (
        "ftrace:sched/sched_waking",  # runnable-after-wakeup per GC
        "ftrace:sched/sched_wakeup_new",  # ... of threads born in the run
    ),
    "pinning": (
        "ftrace:sched/sched_switch",  # which CPU each slice ran on
        "ftrace:task/task_newtask",
        "process_stats:scan_all_processes_on_start",
        "source:linux.system_info",  # CPU max freqs/capacities for big/mid/little
    ),
    "pinning_evidence": (
        "syscall:sys_sched_setaffinity",  # the app re-pinning itself
        "ftrace:cgroup/cgroup_attach_task",  # cgroup moves reset masks
    ),
    "jank": (
        "source:android.surfaceflinger.frametimeline",
        "atrace:view",  # Choreographer#doFrame fallback
        "source:android.packages_list",  # package match without process names
    ),
    "cpufreq": (
        "ftrace:power/cpu_frequency",
        "ftrace:power/cpu_frequency_limits",  # throttling
        "sys_stats:cpufreq_period_ms",  # value at run start without a change
    ),
    "cpufreq_evidence": (  # what a cpufreq_throttled reason names
        "ftrace:thermal/thermal_temperature",  # zone temperatures
        "ftrace:thermal/cdev_update",  # cooling-device states
        "ftrace:dcvsh/dcvsh_freq",  # Snapdragon hardware (LMh) CPU caps
        "sys_stats:thermal_period_ms",  # every zone, even without a trip
    ),
    "memfreq": (
        "ftrace:power/clock_set_rate",  # Tensor: clock 17000010.devfreq_mif
        "ftrace:devfreq/devfreq_frequency",  # devfreq devices, kernels 5.11+
        "ftrace:dcvs/qcom_dcvs_update",  # Snapdragon 8 Gen 1+: bus_dcvs votes
        "ftrace:dcvs/memlat_dev_update",
        "ftrace:dcvs/bw_hwmon_update",
        "sys_stats:devfreq_period_ms",  # value at run start without a change
    ),
    "memory": (
        "ftrace:vmscan/mm_vmscan_direct_reclaim_begin",  # direct_reclaim_ns
        "ftrace:vmscan/mm_vmscan_direct_reclaim_end",
        "ftrace:sched/sched_blocked_reason",  # io_wait_ns (thread_state.io_wait)
        "ftrace:vmscan/mm_vmscan_kswapd_wake",  # memory_pressure evidence
        "ftrace:vmscan/mm_vmscan_kswapd_sleep",
        "ftrace:lowmemorykiller/lowmemory_kill",  # kills: in-kernel LMK
        "ftrace:oom/mark_victim",  # kills: kernel OOM killer
        "ftrace:oom/oom_score_adj_update",  # kills: the victim's state
        "atrace_app:lmkd",  # kills: userspace lmkd (Android 10+)
        "ftrace:kmem/rss_stat",  # rss_start_kb / rss_peak_kb / rss_end_kb
        "sys_stats:vmstat_period_ms",  # major_faults, refaults
    ),
    "startups": ("atrace:am",),  # bindApplication, activityStart, launching:
}

#: A metric's sources that stand in for each other: metric -> groups of
#: requirements of which one with data serves the metric (which one a device
#: emits depends on its SoC and kernel). The capture check forgives a refused
#: member of a group when the metric got its data from another.
INTERCHANGEABLE: dict[str, tuple[tuple[str, ...], ...]] = {
    "memfreq": (("ftrace:power/clock_set_rate", "ftrace:devfreq/devfreq_frequency",
                 "ftrace:dcvs/qcom_dcvs_update", "ftrace:dcvs/memlat_dev_update",
                 "ftrace:dcvs/bw_hwmon_update", "sys_stats:devfreq_period_ms"),),
    "cpufreq": (("ftrace:power/cpu_frequency", "sys_stats:cpufreq_period_ms"),),
}

#: Requirements that add evidence to a metric without being its data:
#: refusing one loses that evidence (said in the check), not the metric.
EVIDENCE_ONLY: dict[str, str] = {
    "ftrace:power/cpu_frequency_limits": "throttling by a max-frequency limit cannot be seen",
}

#: Events a curated config lists although only some kernels have them, with
#: the devices that do. Perfetto reports them as unknown on the others
#: (ftrace_setup_errors); the capture check calls that "not on this device",
#: not an error.
DEVICE_SPECIFIC: dict[str, str] = {
    "devfreq/devfreq_frequency": "devfreq devices on kernels 5.11+ (not Pixel 6/7)",
    "dcvs/qcom_dcvs_update": "Snapdragon 8 Gen 1 and later (bus_dcvs)",
    "dcvs/memlat_dev_update": "Snapdragon 8 Gen 1 and later (bus_dcvs)",
    "dcvs/bw_hwmon_update": "Snapdragon 8 Gen 1 and later (bus_dcvs)",
    "dcvsh/dcvsh_freq": "Snapdragon (LMh hardware throttling)",
    "lowmemorykiller/lowmemory_kill": "kernels with the in-kernel LMK (before GKI)",
}

# Which config to recommend first when several capture a requirement: the
# complete one is the default, the others are specialisations.
_PREFERENCE = ("artscope-full", "artscope-light", "artscope-affinity-debug")
_SUFFIX = ".pbtxt"
_APP_RE = re.compile(r"^(\*|[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*(:[A-Za-z0-9_.]+)?)$")
_REQ_KINDS = ("source", "ftrace", "atrace", "atrace_app", "syscall", "sys_stats", "process_stats")


@dataclasses.dataclass(frozen=True)
class ConfigInfo:
    """One curated config: its name (file stem), file and one-line summary."""

    name: str
    path: Path
    summary: str


def list_configs() -> list[ConfigInfo]:
    """All curated configs, sorted by name."""
    out = []
    for path in sorted(resource_dir("perfetto_configs").glob("*" + _SUFFIX)):
        out.append(ConfigInfo(path.stem, path, _summary(path)))
    return out


def render_config(name: str, app: str | None = None, duration: str | None = None) -> str:
    """Config ``name`` as textproto, with ``atrace_apps`` and ``duration_ms`` set.

    ``app`` (a package or process name, or ``*`` for all apps) replaces
    ``*`` in the atrace_apps of every ftrace data source; named system
    processes there (``lmkd``, whose markers are the low-memory kills) stay.
    ``duration`` (see
    :func:`parse_duration`) is rounded up to whole ms, the unit of
    TraceConfig.duration_ms. ``None`` keeps the file's value. The fields are
    set on the parsed TraceConfig, which is then printed with protobuf's
    text_format under the file's header comment and a provenance line; if
    nothing changed, the file is returned as it is, comments and all.
    """
    info = get_config(name)
    text = info.path.read_text(encoding="utf-8")
    shipped = parse_config(text)
    cfg = type(shipped)()
    cfg.CopyFrom(shipped)
    if app is not None:
        if not _APP_RE.match(app):
            raise UsageError(f"invalid app {app!r}: expected a package name like com.example.app")
        for ds in cfg.data_sources:
            if ds.config.name == "linux.ftrace":
                apps = ds.config.ftrace_config.atrace_apps
                kept = [a for a in apps if a not in ("*", app)]
                del apps[:]
                apps.extend([app] + kept)
    if duration is not None:
        ns = parse_duration(duration)
        if ns <= 0:
            raise UsageError(f"invalid duration {duration!r}: must be longer than 0")
        cfg.duration_ms = math.ceil(ns / 10**6)
    if cfg == shipped:
        return text
    from google.protobuf import text_format

    apps = sorted({a for ds in cfg.data_sources for a in ds.config.ftrace_config.atrace_apps})
    quoted = " ".join(f'"{a}"' for a in apps) or "none"
    title, _, rest = _header(text).partition("\n")
    provenance = (
        f"#\n# Rendered by artscope from perfetto-configs/{info.name}{_SUFFIX}:\n"
        f"# duration_ms {cfg.duration_ms}, atrace_apps {quoted}, set on the\n"
        "# parsed TraceConfig and printed by protobuf, so the file's per-field\n"
        "# comments are not repeated; the defaults named below are the file's.\n"
    )
    return f"{title}\n{provenance}{rest}\n{text_format.MessageToString(cfg)}"


def parse_config(text: str) -> "TraceConfig":
    """Parse a rendered textproto into perfetto's TraceConfig message.

    Uses the TraceConfig shipped in the perfetto package's trace protos (it is
    embedded in TracePacket.trace_config), so field names are checked against
    the same schema the device's perfetto uses.
    """
    from google.protobuf import text_format
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

    cfg = TraceConfig()
    try:
        text_format.Parse(text, cfg)
    except text_format.ParseError as e:
        raise UsageError(f"not a valid TraceConfig: {e}") from None
    return cfg


def ftrace_events(config: "TraceConfig") -> list[str]:
    """The GROUP/EVENT names ``config`` asks the kernel for, in file order.

    Includes raw_syscalls/sys_enter and sys_exit when syscall_events is set
    (perfetto enables them for the filter even when they are not listed).
    """
    events: list[str] = []
    for ds in config.data_sources:
        if ds.config.name != "linux.ftrace":
            continue
        f = ds.config.ftrace_config
        implied = ["raw_syscalls/sys_enter", "raw_syscalls/sys_exit"] if f.syscall_events else []
        for event in list(f.ftrace_events) + implied:
            if event not in events:
                events.append(event)
    return events


def serves(config: "TraceConfig") -> list[str]:
    """The keys of :data:`REQUIREMENTS` that ``config`` captures completely."""
    return [key for key in REQUIREMENTS if not missing(config, key)]


def missing(config: "TraceConfig", requirement: str) -> list[str]:
    """The parts of ``requirement`` that ``config`` does not capture.

    ``requirement`` is a key of :data:`REQUIREMENTS` (all its entries are
    checked) or a single requirement string such as ``atrace:dalvik``.
    """
    return [r for r in _expand(requirement) if not _captures(config, r)]


def config_for(requirement: str) -> str:
    """Name of the curated config to recommend for capturing ``requirement``.

    ``requirement`` is a metric key of :data:`REQUIREMENTS` or a single
    requirement string. The answer is computed from the config files, so it
    stays right when they change.
    """
    atoms = _expand(requirement)
    names = [c.name for c in list_configs()]
    ordered = [n for n in _PREFERENCE if n in names] + [n for n in names if n not in _PREFERENCE]
    for name in ordered:
        cfg = _parsed(name)
        if all(_captures(cfg, a) for a in atoms):
            return name
    raise UsageError(f"no curated config captures {requirement!r}")


def get_config(name: str) -> ConfigInfo:
    """Config ``name``; ``full`` and ``artscope-full.pbtxt`` also work (less typing)."""
    configs = {c.name: c for c in list_configs()}
    stem = name[: -len(_SUFFIX)] if name.endswith(_SUFFIX) else name
    for candidate in (stem, f"artscope-{stem}"):
        if candidate in configs:
            return configs[candidate]
    raise UsageError(f"unknown config {name!r} (available: {', '.join(sorted(configs))})")


def _header(text: str) -> str:
    """The leading comment block of a config file (up to the first blank line)."""
    lines = []
    for line in text.splitlines(keepends=True):
        if not line.startswith("#"):
            break
        lines.append(line)
    return "".join(lines)


def _summary(path: Path) -> str:
    """The first header line after ``# <name>:``, the file's one-line summary."""
    with path.open(encoding="utf-8") as f:
        first = f.readline().lstrip("#").strip()
    prefix = f"{path.stem}:"
    return first[len(prefix) :].strip() if first.startswith(prefix) else first


@functools.lru_cache(maxsize=None)
def _parsed(name: str) -> "TraceConfig":
    return parse_config(get_config(name).path.read_text(encoding="utf-8"))


def _expand(requirement: str) -> tuple[str, ...]:
    if requirement in REQUIREMENTS:
        return REQUIREMENTS[requirement]
    kind, sep, value = requirement.partition(":")
    if not sep or kind not in _REQ_KINDS or not value:
        raise UsageError(
            f"unknown requirement {requirement!r} (a metric: {', '.join(REQUIREMENTS)}; "
            f"or KIND:VALUE with KIND in {', '.join(_REQ_KINDS)})"
        )
    return (requirement,)


def _captures(cfg: "TraceConfig", requirement: str) -> bool:
    kind, _, value = requirement.partition(":")
    sources = [ds.config for ds in cfg.data_sources]
    ftrace = [s.ftrace_config for s in sources if s.name == "linux.ftrace"]
    if kind == "source":
        return any(s.name == value for s in sources)
    if kind == "ftrace":
        group, _, event = value.partition("/")
        accepted = {value, f"{group}/*", event}
        return any(accepted & set(f.ftrace_events) for f in ftrace)
    if kind == "atrace":
        return any(value in f.atrace_categories for f in ftrace)
    if kind == "atrace_app":
        return any({value, "*"} & set(f.atrace_apps) for f in ftrace)
    if kind == "syscall":
        # perfetto v43+ needs only the filter; older ones also need the raw
        # events. No filter at all with the raw events records every syscall.
        raw = {"raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "raw_syscalls/*"}
        return any(
            value in f.syscall_events
            or (not f.syscall_events and bool(raw & set(f.ftrace_events)))
            for f in ftrace
        )
    if kind == "sys_stats":
        return any(
            s.name == "linux.sys_stats" and getattr(s.sys_stats_config, value, 0) > 0 for s in sources
        )
    if kind == "process_stats":
        return any(
            s.name == "linux.process_stats" and bool(getattr(s.process_stats_config, value, False))
            for s in sources
        )
    raise AssertionError(kind)  # _expand validated the kind
