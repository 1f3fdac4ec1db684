"""Frame timeline ends as trace_processor v58.2's FrameTimelineEventParser
pairs them (issue 18).

pid 10's app, expected surface frames of token 7 (display frame 100):
    300  cookie 1: the token's first expected frame: a slice
    300  cookie 2: the same token again: no slice, but its cookie is mapped
    310  FrameEnd cookie 1: ends the slice (dur 10)
    312  FrameEnd cookie 2: paired with the duplicate: nothing, no error
    320  FrameEnd cookie 99: no frame has it: frame_timeline_unpaired_end_event
    330  FrameEnd without a cookie: frame_timeline_event_parser_errors
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from make_fixtures import (FT_EXPECTED_SURFACE, FT_FRAME_END, f_bytes, f_varint,  # noqa: E402
                           ft_event)

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
    ]
    return b"".join(packet(ts, payload) for ts, payload in events)


STATS = ("SELECT name, value FROM stats WHERE name IN "
         "('frame_timeline_unpaired_end_event', 'frame_timeline_event_parser_errors', "
         "'misplaced_end_event') ORDER BY name")


def test_ends_pair_with_cookies_a_duplicate_frame_mapped_too(load_embedded):
    eng = load_embedded(_trace(), "frame_ends")
    assert eng.query("SELECT ts, dur, name, layer_name FROM expected_frame_timeline_slice"
                     ).rows() == [(300, 10, "7", "app#0")]
    assert eng.query(STATS).rows() == [("frame_timeline_event_parser_errors", 1),
                                       ("frame_timeline_unpaired_end_event", 1),
                                       ("misplaced_end_event", 0)]


@pytest.mark.tp
def test_same_as_trace_processor(tp_diffs, tp_rows, load_embedded):
    differ, compared = tp_diffs(_trace())
    assert "expected_frame_timeline_slice" in compared
    assert differ == {}
    assert load_embedded(_trace()).query(STATS).rows() == tp_rows(_trace(), STATS)
