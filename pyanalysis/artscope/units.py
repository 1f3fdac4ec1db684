"""Durations as users write them: one parser for the CLI, configs and API."""

from __future__ import annotations

import decimal
import re

from artscope.errors import UsageError

_DURATION_RE = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)?$")
_UNIT_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9,
            "m": 60 * 10**9, "h": 3600 * 10**9}


def parse_duration(text: str) -> int:
    """A duration in ns from ``30s``, ``500ms``, ``2m``, ``1500us``, ``1h`` or plain ns.

    Decimals are allowed with a unit (``1.5s``) as long as the result is a
    whole number of ns.
    """
    raw = str(text).strip()
    m = _DURATION_RE.match(raw)
    if not m or (m.group(2) is None and "." in m.group(1)):
        raise UsageError(
            f"invalid duration {raw!r}: expected e.g. 30s, 500ms, 2m, 1500us or an integer number of ns"
        )
    value = decimal.Decimal(m.group(1)) * _UNIT_NS[m.group(2) or "ns"]
    if value != value.to_integral_value():
        raise UsageError(f"invalid duration {raw!r}: not a whole number of nanoseconds")
    return int(value)


# -- frequencies -----------------------------------------------------------------

#: Series whose unit the kernel interface fixes: cpufreq reports kHz (the
#: cpu_frequency / cpu_frequency_limits events and scaling_cur_freq).
FIXED_FREQUENCY_UNIT = {"cpufreq": "kHz", "cpu_max_limit": "kHz"}
#: No clock of a phone SoC runs at 10 GHz or more, so a value of at least
#: this many cannot be kHz: the series is in Hz.
HZ_FROM = 10_000_000
#: Below this largest value (10 MHz if kHz, 10 kHz if Hz) a series is no
#: memory, bus or CPU clock in either unit: a vote, level or bandwidth
#: number (Tensor kernels log UCLAMP_MIN_<pid>, gpu_util, BTS_*_bw through
#: clock_set_rate); its unit is unknown.
KHZ_FROM = 10_000


def frequency_unit(source: str, largest: float | None) -> str | None:
    """The unit of one frequency series: 'kHz', 'Hz' or None (unknown).

    cpufreq series are kHz. Every other source's unit depends on the driver
    and kernel (``power/clock_set_rate`` is kHz on Tensor kernels and Hz on
    others; devfreq ``cur_freq`` and ``devfreq_frequency`` are whatever the
    driver's OPP table uses; bus_dcvs votes are kHz), so it is decided per
    series from its largest value: Hz from ``HZ_FROM`` up, kHz from
    ``KHZ_FROM`` up, else unknown.
    """
    if source in FIXED_FREQUENCY_UNIT:
        return FIXED_FREQUENCY_UNIT[source]
    if largest is None or largest <= 0:
        return None
    if largest >= HZ_FROM:
        return "Hz"
    return "kHz" if largest >= KHZ_FROM else None


_TO_HZ = {"Hz": 1, "kHz": 10**3, "MHz": 10**6, "GHz": 10**9}


def format_frequency(value: float | None, unit: str | None) -> str:
    """A frequency for reading: ``2.8 GHz``, ``845 MHz``, ``32.8 kHz``; a value
    of unknown unit stays as recorded (``384``); None is ``?``."""
    if value is None:
        return "?"
    if unit not in _TO_HZ:
        return f"{value:g}"
    hz = float(value) * _TO_HZ[unit]
    for name, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
        if abs(hz) >= scale:
            return f"{hz / scale:.4g} {name}"
    return f"{hz:.4g} Hz"


def format_frequency_range(low: float | None, high: float | None, unit: str | None) -> str:
    """``500 MHz–2.802 GHz`` (one value when both ends are equal)."""
    if low == high:
        return format_frequency(low, unit)
    return f"{format_frequency(low, unit)}–{format_frequency(high, unit)}"
