"""Explicit configuration of an analysis: what to measure and the thresholds.

Parsing of the user-facing syntaxes (CPU lists, windows, durations) lives
here too, so the CLI and the Python API accept exactly the same strings.
"""

from __future__ import annotations

import dataclasses
import re

from artscope.errors import UsageError
from artscope.units import parse_duration

DEFAULT_GC_THREADS = ("HeapTaskDaemon", "Heap thread pool worker*")
DEFAULT_GC_PATTERNS = ("* GC",)
#: The Choreographer frame deadline when neither --frame-deadline nor the
#: trace (frame timeline, VSYNC counters) gives one: a 60 Hz vsync.
DEFAULT_FRAME_DEADLINE_NS = 16_666_667
#: Device names that are the memory controller's frequency (and not per-CPU
#: votes or bandwidth monitors), per docs/metrics.md "Frequency stability".
DEFAULT_MEM_DEVICE_INCLUDE = r"(?i)(mif|ddr|llcc|dmc|memfreq|-l3-|bw)"
DEFAULT_MEM_DEVICE_EXCLUDE = r"(?i)(memlat|BTS_|throughput|gpu)"


#: The android-benchmark-runner harness's run marker: the default runs.
APP_BENCHMARK_SLICE = "App Benchmark"


@dataclasses.dataclass(frozen=True)
class HealthThresholds:
    """Verdict thresholds (docs/metrics.md "Health"); each is overridable."""

    #: fail when off_mask_share exceeds this fraction.
    off_mask_share_fail: float = 0.01
    #: warn when any off-mask time exists (ns strictly above this).
    off_mask_ns_warn: int = 0
    #: warn when interference_share exceeds this fraction.
    interference_share_warn: float = 0.05
    #: a series is stable when known_share >= this and it never changed.
    stable_known_share: float = 0.99
    #: throttled when below the dominant frequency for more than this share of W.
    throttle_share: float = 0.01
    #: memory_pressure (warn) when the target's time in direct reclaim exceeds
    #: this share of its CPU time in W.
    direct_reclaim_share_warn: float = 0.01
    #: memory_pressure (warn) when kswapd's CPU time on the allowed CPUs
    #: exceeds this share of W.
    kswapd_allowed_share_warn: float = 0.01
    #: a run is a cold start when its app's process started at most this
    #: long before W's start (a harness launches the app, then opens the
    #: window: android-benchmark-runner about 0.3-1 s later).
    cold_start_lead_ns: int = 10_000_000_000


@dataclasses.dataclass(frozen=True)
class AnalysisOptions:
    """What to measure in a trace. Every field mirrors a CLI option."""

    app: str | None = None
    pid: int | None = None
    #: --cpus: "6,7", "4-7", "big" | "mid" | "little"; None = no pinning check.
    cpus: str | None = None
    #: --gc-cpus (same syntax); None = GC threads share ``cpus``.
    gc_cpus: str | None = None
    #: --window START:END; mutually exclusive with ``marker``.
    window: str | None = None
    marker: str | None = None
    #: --marker-process: whose ``marker`` slices delimit runs: None = the
    #: target app's, "*" = any process's, else the process of that name.
    marker_process: str | None = None
    gc_threads: tuple[str, ...] = DEFAULT_GC_THREADS
    gc_patterns: tuple[str, ...] = DEFAULT_GC_PATTERNS
    pin_grace_ns: int = 0
    #: --frame-deadline; None = from the trace, else DEFAULT_FRAME_DEADLINE_NS.
    frame_deadline_ns: int | None = None
    #: --mem-device REGEX replaces the include/exclude rule when set.
    mem_device: str | None = None
    #: --all-clocks: memfreq lists every clock, devfreq device and bus vote
    #: of the trace, not only the memory controllers.
    all_clocks: bool = False
    thresholds: HealthThresholds = HealthThresholds()

    def __post_init__(self) -> None:
        if self.app is None and self.pid is None:
            raise UsageError("name the target app with --app NAME (or --pid PID)")
        if self.window is not None and self.marker is not None:
            raise UsageError("--window and --marker are mutually exclusive")
        if self.mem_device is not None:
            try:
                re.compile(self.mem_device)
            except re.error as e:
                raise UsageError(f"--mem-device is not a valid regex: {e}") from None


@dataclasses.dataclass(frozen=True)
class WindowSpec:
    """A parsed --window: each bound absolute ns, or relative to trace start."""

    start: int | None
    start_relative: bool
    end: int | None
    end_relative: bool

    def resolve(self, trace_start: int, trace_end: int) -> tuple[int, int]:
        s = trace_start if self.start is None else (
            trace_start + self.start if self.start_relative else self.start)
        e = trace_end if self.end is None else (
            trace_start + self.end if self.end_relative else self.end)
        return s, e


def parse_window(text: str) -> WindowSpec:
    """'START:END' with ns or s/ms/us suffixes; '+' = relative to trace start.

    Either bound may be empty (the trace's own bound).
    """
    if text.count(":") != 1:
        raise UsageError(f"bad --window {text!r}: expected START:END")
    parts = []
    for raw in text.split(":"):
        raw = raw.strip()
        if not raw:
            parts.append((None, False))
            continue
        rel = raw.startswith("+")
        body = raw[1:] if rel else raw
        try:
            parts.append((parse_duration(body), rel))
        except UsageError:
            raise UsageError(f"bad --window bound {raw!r} (e.g. 1200000000, 1.2s, +500ms)") from None
    (s, sr), (e, er) = parts
    if s is not None and e is not None and sr == er and e <= s:
        raise UsageError(f"bad --window {text!r}: end must be after start")
    return WindowSpec(s, sr, e, er)


CLUSTER_KEYWORDS = ("big", "mid", "little")


def parse_cpu_list(text: str) -> list[int] | str:
    """'6,7' / '4-7' / '0-3,6' -> sorted CPU ids; 'big'|'mid'|'little' -> keyword."""
    t = text.strip().lower()
    if t in CLUSTER_KEYWORDS:
        return t
    cpus: set[int] = set()
    for part in t.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise UsageError(f"bad CPU list {text!r} (use e.g. 6,7 or 4-7 or big|mid|little)")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        if b < a:
            raise UsageError(f"bad CPU range {part!r} in {text!r}")
        cpus.update(range(a, b + 1))
    return sorted(cpus)
