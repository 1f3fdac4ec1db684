"""FrameTimeline value strings, as trace_processor renders them.

Mirrors importers/proto/frame_timeline_event_parser.cc (see the contract,
section 2.8): jank_type bitmask -> names in a fixed order, present type,
prediction type, severity and the jank tag rules.
"""

from __future__ import annotations

# (bit, name) in trace_processor's fixed output order.
JANK_BITS = (
    (2, "SurfaceFlinger Scheduling"),
    (4, "Prediction Error"),
    (8, "Display HAL"),
    (16, "SurfaceFlinger CPU Deadline Missed"),
    (32, "SurfaceFlinger GPU Deadline Missed"),
    (64, "App Deadline Missed"),
    (4096, "App Resynced Jitter"),
    (128, "Buffer Stuffing"),
    (256, "Unknown Jank"),
    (512, "SurfaceFlinger Stuffing"),
    (1024, "Dropped Frame"),
    (2048, "Non Animating"),
    (8192, "Display not ON"),
    (16384, "ModeChange in progress"),
    (32768, "PowerModeChange in progress"),
)

PRESENT_TYPES = ("Unspecified Present", "On-time Present", "Late Present",
                 "Early Present", "Dropped Frame", "Unknown Present")
PREDICTION_TYPES = ("Unspecified Prediction", "Valid Prediction",
                    "Expired Prediction", "Unknown Prediction")
SEVERITY_TYPES = ("Unknown", "None", "Partial", "Full")

_NOT_JANK_VALUES = (0, 1, 2048, 8192)
_DISPLAY_JANK_BITS = 2 | 4 | 8 | 16 | 32
_SURFACE_JANK_BITS = 64 | 4096 | 256
_NON_PERCEIVABLE = (2048, 8192, 32768)
PRESENT_DROPPED = 4


def jank_type_string(bits: int) -> str:
    if bits == 0:
        return "Unspecified"
    if bits == 1:
        return "None"
    names = [name for bit, name in JANK_BITS if bits & bit]
    return ", ".join(names) if names else "Unspecified"


def present_type_string(v: int) -> str:
    return PRESENT_TYPES[v] if 0 <= v < len(PRESENT_TYPES) else PRESENT_TYPES[0]


def prediction_type_string(v: int) -> str:
    return PREDICTION_TYPES[v] if 0 <= v < len(PREDICTION_TYPES) else PREDICTION_TYPES[0]


def severity_string(v: int | None, jank_bits: int) -> str:
    if v is None:
        return "None" if jank_bits == 1 else "Unknown"
    return SEVERITY_TYPES[v] if 0 <= v < len(SEVERITY_TYPES) else "Unknown"


def _display_janky(v: int) -> bool:
    return v not in _NOT_JANK_VALUES and bool(v & _DISPLAY_JANK_BITS)


def _surface_janky(v: int) -> bool:
    return v not in _NOT_JANK_VALUES and bool(v & _SURFACE_JANK_BITS)


def display_jank_tag(v: int) -> str:
    if v == 0:
        return "Unspecified"
    if _display_janky(v):
        return "Self Jank"
    if v == 512:
        return "SurfaceFlinger Stuffing"
    if v == 1024:
        return "Dropped Frame"
    if v in _NON_PERCEIVABLE:
        return "Non-perceivable Jank"
    return "No Jank"


def surface_jank_tag(v: int, present_type: int) -> str:
    if v == 0:
        return "Unspecified"
    if _surface_janky(v):
        return "Self Jank"
    if _display_janky(v):
        return "Other Jank"
    if v == 128:
        return "Buffer Stuffing"
    if v == 512:
        return "SurfaceFlinger Stuffing"
    if present_type == PRESENT_DROPPED:
        return "Dropped Frame"
    if v in _NON_PERCEIVABLE:
        return "Non-perceivable Jank"
    return "No Jank"
