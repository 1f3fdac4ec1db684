"""Parsing of atrace payloads (ftrace ``print`` / tracing_mark_write).

Mirrors trace_processor's ParseSystraceTracePoint (importers/systrace/
systrace_parser.h): the phase is the first character, fields are split on
'|', the second field is the tgid. Returns None for anything it rejects
(counted by the caller as ``systrace_parse_failure``).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class TracePoint:
    phase: str
    tgid: int
    name: str = ""
    value: int = 0  # counter value (C)
    cookie: int = 0  # async cookie (S/F/G/H)
    track: str = ""  # N/G/H track name


IGNORED = object()  # trace_event_clock_sync and friends: skipped, no stat


def _parse_int(s: str) -> int | None:
    s = s.strip()
    if not s:
        return None
    try:
        return int(s, 10)
    except ValueError:
        return None


def parse_print(buf: str) -> TracePoint | None | object:
    """Parse one print buffer. Returns a TracePoint, None (failure) or IGNORED."""
    if buf.startswith("trace_event_clock_sync:"):
        return IGNORED
    # Trailing newlines / NULs are stripped as trace_processor does.
    s = buf.rstrip("\n\0")
    if not s:
        return None
    phase = s[0]
    parts = s.split("|")
    if phase == "E":
        tgid = _parse_int(parts[1]) if len(parts) > 1 else 0
        return TracePoint("E", tgid or 0)
    if len(parts) < 2 or len(parts[0]) != 1:
        return None
    tgid = _parse_int(parts[1])
    if phase == "B":
        if tgid is None or len(parts) < 3:
            return None
        name = s.split("|", 2)[2]
        return TracePoint("B", tgid, name or "[empty slice name]")
    if phase == "I":
        if tgid is None or len(parts) < 3:
            return None
        return TracePoint("I", tgid, s.split("|", 2)[2] or "[empty slice name]")
    if phase == "C":
        if tgid is None or len(parts) < 4:
            return None
        value = _parse_int(parts[3])
        if value is None:
            return None
        return TracePoint("C", tgid, parts[2], value=value)
    if phase in ("S", "F"):
        if tgid is None or len(parts) < 4:
            return None
        cookie = _parse_int(parts[3])
        if cookie is None:
            return None
        return TracePoint(phase, tgid, parts[2], cookie=cookie)
    if phase == "N":
        if tgid is None or len(parts) < 4:
            return None
        return TracePoint("N", tgid, "|".join(parts[3:]), track=parts[2])
    if phase == "G":
        if tgid is None or len(parts) < 5:
            return None
        cookie = _parse_int(parts[4])
        if cookie is None:
            return None
        return TracePoint("G", tgid, parts[3], cookie=cookie, track=parts[2])
    if phase == "H":
        if tgid is None or len(parts) < 4:
            return None
        cookie = _parse_int(parts[4] if len(parts) > 4 else parts[3])
        if cookie is None:
            return None
        return TracePoint("H", tgid, cookie=cookie, track=parts[2])
    return None
