"""Async slices spread over lanes as trace_processor v58 does: its
TrackCompressor gives overlapping atrace async (S/F) slices and overlapping
frame timeline frames of one process parallel same-named tracks, each with a
`track_compressor_idx` dimension, every slice at depth 0; an end without its
begin still creates its lane's track; actual frames get jank_score 0 and
jank_tag_experimental 'Unspecified' when the trace has neither. Expected values
are derived by hand from the trace built here."""

from __future__ import annotations

import sys
from pathlib import Path

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_fixtures import (FT_ACTUAL_DISPLAY, FT_EXPECTED_DISPLAY, FT_FRAME_END,  # noqa: E402
                           f_bytes, f_varint, ft_event)

PID, WORKER = 10, 12


def _trace() -> bytes:
    """pid 10 (threads 10, 12); atrace by tid 10: S load#1 at 100, S load#2 at
    110, F load#1 at 120, S load#3 at 130, F load#2 at 140, F load#3 at 150,
    F orphan#7 at 160; on track Compaction: G compact#5 at 170, N note at 175,
    H #5 at 180 by tid 12.
    Frame timeline of pid 10: expected display frames token 5 (cookie 1,
    200..216) and token 6 (cookie 2, 205..221), actual display frame token 5
    (cookie 3, 200..218, JANK_NONE, on time)."""
    t = pb.Trace()
    p = t.packet.add(timestamp=1)
    p.process_tree.processes.add(pid=PID, ppid=1).cmdline.append("app")
    p.process_tree.threads.add(tid=WORKER, tgid=PID)
    p = t.packet.add()
    b = p.ftrace_events
    b.cpu = 0
    for ts, buf in [(100, "S|10|load|1"), (110, "S|10|load|2"), (120, "F|10|load|1"),
                    (130, "S|10|load|3"), (140, "F|10|load|2"), (150, "F|10|load|3"),
                    (160, "F|10|orphan|7"), (170, "G|10|Compaction|compact|5"),
                    (175, "N|10|Compaction|note"), (180, "H|10|Compaction|5")]:
        ev = b.event.add(timestamp=ts, pid=WORKER if buf.startswith("H") else PID)
        ev.print.buf = buf + "\n"
    data = t.SerializeToString()

    def packet(ts: int, payload: bytes) -> bytes:
        return f_bytes(1, f_varint(8, ts) + payload)

    def display(cookie: int, token: int) -> bytes:
        return f_varint(1, cookie) + f_varint(2, token) + f_varint(3, PID)

    frames = [
        (200, ft_event(FT_EXPECTED_DISPLAY, display(1, 5))),
        (200, ft_event(FT_ACTUAL_DISPLAY, display(3, 5) + f_varint(4, 1) + f_varint(5, 1)
                       + f_varint(7, 1) + f_varint(8, 1))),
        (205, ft_event(FT_EXPECTED_DISPLAY, display(2, 6))),
        (216, ft_event(FT_FRAME_END, f_varint(1, 1))),
        (218, ft_event(FT_FRAME_END, f_varint(1, 3))),
        (221, ft_event(FT_FRAME_END, f_varint(1, 2))),
    ]
    return data + b"".join(packet(ts, payload) for ts, payload in frames)


def _engine(tmp_path) -> EmbeddedEngine:
    path = tmp_path / "lanes.pftrace"
    path.write_bytes(_trace())
    eng = EmbeddedEngine()
    eng.load(path)
    return eng


LANE_SQL = """
SELECT s.ts, s.dur, s.name, s.depth, t.name AS track,
       (SELECT a.int_value FROM args a WHERE a.arg_set_id = t.dimension_arg_set_id
          AND a.key = 'track_compressor_idx') AS lane
FROM {table} s JOIN track t ON t.id = s.track_id
WHERE t.type = '{type}' ORDER BY s.ts
"""


def test_atrace_async_slices_take_lanes(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = eng.query(LANE_SQL.format(table="slice", type="atrace_async_slice")).rows()
        # load#1 on lane 0; load#2 overlaps it: lane 1; load#3 takes lane 0,
        # idle again since 120
        assert rows == [(100, 20, "load", 0, "load", 0), (110, 30, "load", 0, "load", 1),
                        (130, 20, "load", 0, "load", 0)]
        tracks = eng.query(
            "SELECT t.name, a.int_value FROM process_track t JOIN args a "
            "ON a.arg_set_id = (SELECT dimension_arg_set_id FROM track WHERE id = t.id) "
            "WHERE a.key = 'track_compressor_idx' AND t.type = 'atrace_async_slice' "
            "ORDER BY t.name, a.int_value").rows()
        # the orphan end (no begin) still gets its lane's track
        assert tracks == [("load", 0), ("load", 1), ("orphan", 0)]
        # each ended S/F slice records its lane's begins so far
        legacy = eng.query(
            "SELECT s.ts, a.key, a.int_value FROM slice s JOIN args a USING (arg_set_id) "
            "WHERE s.name = 'load' ORDER BY s.ts, a.key").rows()
        assert legacy == [
            (100, "cookie", 1), (100, "legacy_unnestable_begin_count", 1),
            (100, "legacy_unnestable_last_begin_ts", 100),
            (110, "cookie", 2), (110, "legacy_unnestable_begin_count", 1),
            (110, "legacy_unnestable_last_begin_ts", 110),
            (130, "cookie", 3), (130, "legacy_unnestable_begin_count", 2),
            (130, "legacy_unnestable_last_begin_ts", 130)]
    finally:
        eng.close()


def test_track_async_slices_take_lanes_and_name_their_threads(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = eng.query(LANE_SQL.format(table="slice",
                                         type="atrace_async_slice_for_track")).rows()
        # the G/H slice holds a cookie lane (0); the instant N, a scoped
        # lane of its own (1)
        assert rows == [(170, 10, "compact", 0, "Compaction", 0),
                        (175, 0, "note", 0, "Compaction", 1)]
        threads = eng.query(
            "SELECT s.name, a.key, t.tid FROM slice s JOIN args a USING (arg_set_id) "
            "JOIN thread t ON t.utid = a.int_value WHERE s.name IN ('compact', 'note') "
            "ORDER BY s.name, a.key").rows()
        assert threads == [("compact", "end_utid", WORKER), ("compact", "utid", PID),
                           ("note", "utid", PID)]
    finally:
        eng.close()


def test_overlapping_frames_take_lanes_at_depth_zero(tmp_path) -> None:
    eng = _engine(tmp_path)
    try:
        rows = eng.query(LANE_SQL.format(table="expected_frame_timeline_slice",
                                         type="android_expected_frame_timeline")).rows()
        assert rows == [(200, 16, "5", 0, "Expected Timeline", 0),
                        (205, 16, "6", 0, "Expected Timeline", 1)]
        actual = eng.query("SELECT ts, dur, jank_type, jank_tag, jank_score, "
                           "jank_tag_experimental FROM actual_frame_timeline_slice").rows()
        assert actual == [(200, 18, "None", "No Jank", 0.0, "Unspecified")]
        args = dict(eng.query(
            "SELECT a.key, a.display_value FROM actual_frame_timeline_slice s "
            "JOIN args a USING (arg_set_id)").rows())
        # v58's arg set of an actual display frame, defaults where the trace
        # has none
        assert args == {
            "Display frame token": "5", "Present Delay (ms)": "0.0",
            "Present type": "On-time Present",
            "Present type (experimental)": "Unspecified Present",
            "On time finish": "1", "GPU composition": "0", "Jank type": "None",
            "Jank type (experimental)": "Unspecified", "Jank severity type": "None",
            "Jank Severity Score": "0.0", "Prediction type": "Valid Prediction",
            "Jank tag": "No Jank", "Jank tag (experimental)": "Unspecified",
            "Jank Metadata (debugging only)": "0.0"}
    finally:
        eng.close()
