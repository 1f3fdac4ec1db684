"""Frame timeline ends as trace_processor v58.2's FrameTimelineEventParser
pairs them.

pid 10's app, expected surface frames of token 7 (display frame 100):
    300  cookie 1: the token's first expected frame: a slice
    300  cookie 2: the same token again: no slice, but its cookie is mapped
    310  FrameEnd cookie 1: ends the slice (dur 10)
    312  FrameEnd cookie 2: paired with the duplicate: nothing, no error
    320  FrameEnd cookie 99: no frame has it: frame_timeline_unpaired_end_event
    330  FrameEnd without a cookie: frame_timeline_event_parser_errors
    340  actual surface frame, cookie 3, token 8: present_type 9 and an
         explicit prediction_type 0 are out of their enums' ranges: two
         errors (ValidatePresentType / ValidatePredictionType), and both read
         as 'Unspecified ...'
    350  actual display frame, cookie 4, token 9: present_type 2 is valid
         ('Late Present'), prediction_type 4 is not: one error
So frame_timeline_event_parser_errors is 1 + 2 + 1 = 4.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_fixtures import (FT_ACTUAL_DISPLAY, FT_ACTUAL_SURFACE, FT_EXPECTED_SURFACE,  # noqa: E402
                           FT_FRAME_END, f_bytes, f_varint, ft_event, varint)

PID = 10


def _trace() -> bytes:
    def packet(ts: int, payload: bytes) -> bytes:
        return f_bytes(1, f_varint(8, ts) + payload)

    def surface(cookie: int) -> bytes:
        return (f_varint(1, cookie) + f_varint(2, 7) + f_varint(3, 100) + f_varint(4, PID)
                + f_bytes(5, b"app#0"))

    events = [
        (300, ft_event(FT_EXPECTED_SURFACE, surface(1))),
        (300, ft_event(FT_EXPECTED_SURFACE, surface(2))),
        (310, ft_event(FT_FRAME_END, f_varint(1, 1))),
        (312, ft_event(FT_FRAME_END, f_varint(1, 2))),
        (320, ft_event(FT_FRAME_END, f_varint(1, 99))),
        (330, ft_event(FT_FRAME_END, b"")),
        # ActualSurfaceFrameStart: present_type 6, prediction_type 10
        (340, ft_event(FT_ACTUAL_SURFACE, f_varint(1, 3) + f_varint(2, 8) + f_varint(3, 100)
                       + f_varint(4, PID) + f_bytes(5, b"app#0") + f_varint(6, 9)
                       + f_varint(10, 0))),
        # ActualDisplayFrameStart: pid 3, present_type 4, prediction_type 8
        (350, ft_event(FT_ACTUAL_DISPLAY, f_varint(1, 4) + f_varint(2, 9) + f_varint(3, PID)
                       + f_varint(4, 2) + f_varint(8, 4))),
    ]
    return b"".join(packet(ts, payload) for ts, payload in events)


STATS = ("SELECT name, value FROM stats WHERE name IN "
         "('frame_timeline_unpaired_end_event', 'frame_timeline_event_parser_errors', "
         "'misplaced_end_event') ORDER BY name")


def test_ends_pair_with_cookies_and_enums_out_of_range_are_errors(load_embedded):
    eng = load_embedded(_trace(), "frame_ends")
    assert eng.query("SELECT ts, dur, name, layer_name FROM expected_frame_timeline_slice"
                     ).rows() == [(300, 10, "7", "app#0")]
    assert eng.query("SELECT ts, name, present_type, prediction_type "
                     "FROM actual_frame_timeline_slice ORDER BY ts").rows() == [
        (340, "8", "Unspecified Present", "Unspecified Prediction"),
        (350, "9", "Late Present", "Unspecified Prediction")]
    assert eng.query(STATS).rows() == [("frame_timeline_event_parser_errors", 4),
                                       ("frame_timeline_unpaired_end_event", 1),
                                       ("misplaced_end_event", 0)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_diffs, tp_rows, load_embedded):
    differ, compared = tp_diffs(_trace())
    assert {"expected_frame_timeline_slice", "actual_frame_timeline_slice"} <= set(compared)
    assert differ == {}
    assert load_embedded(_trace()).query(STATS).rows() == tp_rows(_trace(), STATS)


def _trace_layer_and_delay() -> bytes:
    """Found by `tools/packet_fuzz.py --kind frame_timeline_event`: an
    expected surface frame without a layer name (token 5, at 400) and an
    actual display frame whose present delay is the float 16.6 (token 6, at
    410)."""
    import struct

    def packet(ts: int, payload: bytes) -> bytes:
        return f_bytes(1, f_varint(8, ts) + payload)

    no_layer = f_varint(1, 5) + f_varint(2, 5) + f_varint(3, 100) + f_varint(4, PID)
    delay = varint(10 << 3 | 5) + struct.pack("<f", 16.6)  # field 10, a float
    display = f_varint(1, 6) + f_varint(2, 6) + f_varint(3, PID) + delay
    return (packet(400, ft_event(FT_EXPECTED_SURFACE, no_layer))
            + packet(410, ft_event(FT_ACTUAL_DISPLAY, display)))


def test_no_layer_name_is_null_and_reals_display_as_sqlite_casts(load_embedded):
    eng = load_embedded(_trace_layer_and_delay())
    assert eng.query("SELECT name, layer_name FROM expected_frame_timeline_slice").rows() == [
        ("5", None)]
    assert eng.query("SELECT a.value_type, a.string_value FROM expected_frame_timeline_slice s "
                     "JOIN args a USING (arg_set_id) WHERE a.key = 'Layer name'").rows() == [
        ("string", None)]
    # the float 16.6 widened to a double, written with 15 significant digits
    assert eng.query("SELECT a.display_value FROM actual_frame_timeline_slice s "
                     "JOIN args a USING (arg_set_id) WHERE a.key = 'Present Delay (ms)'"
                     ).rows() == [("16.6000003814697",)]


@pytest.mark.tp
def test_layer_and_delay_same_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_trace_layer_and_delay())
    assert {"args", "expected_frame_timeline_slice", "actual_frame_timeline_slice"} <= compared
    assert differ == {}


def _trace_dropped_frame() -> bytes:
    """An actual surface frame (token 11, at 420) presented DROPPED (4) with
    jank type JANK_NONE (1) and experimental jank type JANK_NONE, but no
    experimental present type (found by `tools/packet_fuzz.py --kind
    frame_timeline_event`): its jank tag is 'Dropped Frame' (no jank, the
    frame dropped); its experimental tag reads the experimental present
    type only, absent here, so it is 'No Jank'."""
    def packet(ts: int, payload: bytes) -> bytes:
        return f_bytes(1, f_varint(8, ts) + payload)

    surface = (f_varint(1, 5) + f_varint(2, 11) + f_varint(3, 100) + f_varint(4, PID)
               + f_bytes(5, b"app#0") + f_varint(6, 4) + f_varint(9, 1) + f_varint(16, 1))
    return packet(420, ft_event(FT_ACTUAL_SURFACE, surface))


DROPPED_TAGS = "SELECT name, jank_tag, jank_tag_experimental FROM actual_frame_timeline_slice"


def test_experimental_jank_tag_reads_the_experimental_present_type(load_embedded):
    eng = load_embedded(_trace_dropped_frame())
    assert eng.query(DROPPED_TAGS).rows() == [("11", "Dropped Frame", "No Jank")]


@pytest.mark.tp
def test_dropped_frame_same_as_trace_processor(tp_diffs, tp_rows):
    assert tp_rows(_trace_dropped_frame(), DROPPED_TAGS) == [("11", "Dropped Frame", "No Jank")]
    differ, compared = tp_diffs(_trace_dropped_frame())
    assert {"args", "actual_frame_timeline_slice"} <= compared
    assert differ == {}
