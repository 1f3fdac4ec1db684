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
