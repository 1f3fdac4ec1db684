"""The `flow` table: the flows trace_processor infers, derived by
hand from the trace built here — from each actual surface frame of an app to
the actual display frame it was composited into (FrameTimelineEventParser;
the surface frames come first, a display frame seen before its surfaces
gets none). Binder flows are in test_core_binder_fence.py. The same tables
as the real trace_processor where it is available."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fixtures"))
sys.path.insert(0, str(ROOT / "tools"))
import compare_tp  # noqa: E402
from make_fixtures import (FT_ACTUAL_DISPLAY, FT_ACTUAL_SURFACE, FT_FRAME_END,  # noqa: E402
                           f_bytes, f_varint, ft_event)

APP, SF = 10, 20


def _trace() -> bytes:
    """App pid 10: actual surface frames token 1 and 2 (display token 100),
    token 3 (display token 101, never displayed) and token 4 (display token
    102, after that display frame). SurfaceFlinger pid 20: actual display
    frames token 100 (after surfaces 1 and 2) and 102 (before surface 4)."""
    t = pb.Trace()
    p = t.packet.add(timestamp=1)
    p.process_tree.processes.add(pid=APP, ppid=1).cmdline.append("com.example.app")
    p.process_tree.processes.add(pid=SF, ppid=1).cmdline.append("/system/bin/surfaceflinger")
    data = t.SerializeToString()

    def surface(cookie: int, token: int, display: int) -> bytes:
        return (f_varint(1, cookie) + f_varint(2, token) + f_varint(3, display)
                + f_varint(4, APP) + f_bytes(5, b"app#0") + f_varint(6, 1))

    def display(cookie: int, token: int) -> bytes:
        return f_varint(1, cookie) + f_varint(2, token) + f_varint(3, SF) + f_varint(4, 1)

    events = [
        (1_000, ft_event(FT_ACTUAL_SURFACE, surface(1, 1, 100))),
        (1_100, ft_event(FT_ACTUAL_SURFACE, surface(2, 2, 100))),
        (1_200, ft_event(FT_ACTUAL_SURFACE, surface(3, 3, 101))),
        (1_500, ft_event(FT_ACTUAL_DISPLAY, display(4, 100))),
        (1_600, ft_event(FT_ACTUAL_DISPLAY, display(5, 102))),
        (1_700, ft_event(FT_ACTUAL_SURFACE, surface(6, 4, 102))),
    ] + [(2_000 + c, ft_event(FT_FRAME_END, f_varint(1, c))) for c in range(1, 7)]
    for ts, payload in events:
        data += f_bytes(1, f_varint(8, ts) + payload)
    return data


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("flows") / "frame_flows.pftrace"
    path.write_bytes(_trace())
    return path


def test_surface_frames_flow_into_their_display_frame(trace_path):
    eng = EmbeddedEngine()
    eng.load(trace_path)
    try:
        rows = eng.query(
            "SELECT o.name, i.name, f.trace_id, f.arg_set_id FROM flow f "
            "JOIN actual_frame_timeline_slice o ON o.id = f.slice_out "
            "JOIN actual_frame_timeline_slice i ON i.id = f.slice_in "
            "ORDER BY o.ts").rows()
    finally:
        eng.close()
    # slices are named by their token
    assert rows == [("1", "100", None, None), ("2", "100", None, None)]


@pytest.mark.tp
def test_same_flows_as_trace_processor(trace_path, tp_bin):
    # the flows' ends compare by (ts, name); the frames' own args differ
    # from v58's (FRAMES_V58 in test_tp_tables.py)
    assert compare_tp.differing_tables(trace_path, ("flow",), tp_bin) == {}
