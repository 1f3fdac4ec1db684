"""Pixel display driver faults in the compiled core, as
trace_processor's PixelDisplayTracker / FtraceParser make them: underruns,
frame start / done timeouts and misses and DDIC GRAM collisions as instants
on one track per kind and display (or panel) with the event's counters as
args, and vblank IRQ enables as slices. The jank a benchmark sees on screen
often starts here. Also the panel's settings as instants, and the panel
and camera (lwis) drivers' tracing_mark_write-like events as atrace slices
and counters. Expected rows are derived by hand from the schedule
below and checked against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def ev(ts):
        return events.add(timestamp=ts, pid=0)

    u = ev(1_000).dpu_disp_dpu_underrun
    u.id, u.frames_pending, u.vsync_count = 0, 2, 40
    u = ev(1_100).dpu_disp_dpu_line_underrun
    u.id, u.frames_pending, u.vsync_count = 1, 1, 41
    t = ev(1_200).dpu_disp_frame_done_timeout
    t.display_id, t.output_id, t.frames_pending, t.te_count, t.during_disable = 0, 3, 1, 9, 1
    t = ev(1_300).dpu_disp_frame_start_missing
    t.display_id, t.output_id, t.frames_pending, t.te_count = 0, 3, 0, 10
    g = ev(1_400).gram_collision
    g.panel_index, g.collision_cnt = 1, 5
    v = ev(1_500).dpu_disp_vblank_irq_enable
    v.id, v.output_id, v.enable = 0, 3, 1
    v = ev(1_800).dpu_disp_vblank_irq_enable
    v.id, v.output_id, v.enable = 0, 3, 0
    v = ev(1_900).dpu_disp_vblank_irq_enable  # open at the end
    v.id, v.output_id, v.enable = 0, 3, 1
    p = ev(2_000).panel_settings_full
    p.panel_index, p.hbm, p.irc, p.min_rr, p.max_rr, p.te_freq = 0, 1, 2, 10, 120, 240
    p = ev(2_100).panel_settings_lite
    p.panel_index, p.vrr, p.min_rr, p.max_rr, p.te_freq = 0, 0, 60, 120, 120
    return trace.SerializeToString()


def _marks_trace() -> bytes:
    """The panel's and the camera driver's atrace-like marks (type B / E /
    C, the tgid in `pid`): by threads 701 and 801 of processes 700, 800."""
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def panel(ts, kind, name, value=0):
        m = events.add(timestamp=ts, pid=701).panel_write_generic
        m.type, m.pid, m.name, m.value = ord(kind), 700, name, value

    def lwis(ts, kind, name):
        m = events.add(timestamp=ts, pid=801).lwis_tracing_mark_write
        m.type, m.pid, m.func_name, m.lwis_name = ord(kind), 800, name, "csi"

    panel(100, "B", "refresh")
    lwis(150, "B", "lwis_irq")
    panel(200, "C", "brightness", 255)
    lwis(250, "E", "lwis_irq")
    panel(300, "E", "refresh")
    # no type: not parsed, counted
    events.add(timestamp=400, pid=701).panel_write_generic.name = "bad"
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, t.type, t.name AS track FROM slice s
JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (1_000, 0, "disp_dpu_underrun", "disp_dpu_underrun", "underrun[0]"),
    (1_100, 0, "disp_line_dpu_underrun", "disp_dpu_line_underrun", "line_underrun[1]"),
    # timeouts and misses are on the output's (panel's) track
    (1_200, 0, "frame_done_timeout", "disp_frame_done_timeout", "frame_done_timeout[3]"),
    (1_300, 0, "frame_start_missing", "disp_frame_start_missing", "frame_start_missing[3]"),
    (1_400, 0, "ddic_underrun", "ddic_underrun", "ddic_underrun[1]"),
    (1_500, 300, "disp_vblank_irq_enable", "disp_vblank_irq_enable", "vblank_irq_en[3]"),
    (1_900, -1, "disp_vblank_irq_enable", "disp_vblank_irq_enable", "vblank_irq_en[3]"),
    (2_000, 0, "panel_settings_full", "panel_settings_full", "panel_settings_full[0]"),
    (2_100, 0, "panel_settings_lite", "panel_settings_lite", "panel_settings_lite[0]"),
]
ARGS = """
SELECT s.ts, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.ts, a.key
"""
EXPECTED_ARGS = [
    # the underrun names its pending frames `pending_frame`
    (1_000, "pending_frame", "2"),
    (1_000, "vsync_count", "40"),
    (1_100, "frames_pending", "1"),
    (1_100, "vsync_count", "41"),
    (1_200, "display_id", "0"),
    (1_200, "during_disable", "1"),
    (1_200, "frames_pending", "1"),
    (1_200, "output_id", "3"),
    (1_200, "te_count", "9"),
    (1_300, "display_id", "0"),
    (1_300, "frames_pending", "0"),
    (1_300, "output_id", "3"),
    (1_300, "te_count", "10"),
    (1_400, "collision_cnt", "5"),
    (1_500, "display_id", "0"),
    (1_500, "output_id", "3"),
    (1_900, "display_id", "0"),
    (1_900, "output_id", "3"),
    # the on / off settings are bools
    (2_000, "early_exit", "false"),
    (2_000, "fi_auto", "false"),
    (2_000, "fi_manual", "false"),
    (2_000, "h_pwm", "false"),
    (2_000, "hbm", "true"),
    (2_000, "irc", "2"),
    (2_000, "max_rr", "120"),
    (2_000, "min_rr", "10"),
    (2_000, "te_freq", "240"),
    (2_100, "max_rr", "120"),
    (2_100, "min_rr", "60"),
    (2_100, "te_freq", "120"),
    (2_100, "vrr", "false"),
]
MARK_SLICES = """
SELECT s.ts, s.dur, s.name, th.tid FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread th USING (utid) ORDER BY s.ts
"""
EXPECTED_MARK_SLICES = [(100, 200, "refresh", 701), (150, 100, "lwis_irq", 801)]
MARK_COUNTERS = """
SELECT c.ts, c.value, t.name, p.pid FROM counter c JOIN process_counter_track t
ON c.track_id = t.id JOIN process p USING (upid)
"""
EXPECTED_MARK_COUNTERS = [(200, 255.0, "brightness", 700)]
PARSE_FAILURES = "SELECT value FROM stats WHERE name = 'systrace_parse_failure'"


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_args(load_embedded):
    assert load_embedded(_trace()).query(ARGS).rows() == EXPECTED_ARGS


def test_panel_and_camera_marks(load_embedded):
    e = load_embedded(_marks_trace())
    assert e.query(MARK_SLICES).rows() == EXPECTED_MARK_SLICES
    assert e.query(MARK_COUNTERS).rows() == EXPECTED_MARK_COUNTERS
    assert e.query(PARSE_FAILURES).item() == 1


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), ARGS) == EXPECTED_ARGS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "track", "args"} <= compared
    assert diffs == {}
    marks = _marks_trace()
    assert tp_rows(marks, MARK_SLICES) == EXPECTED_MARK_SLICES
    assert tp_rows(marks, MARK_COUNTERS) == EXPECTED_MARK_COUNTERS
    # The typeless event's args lack the fields before `name`: to_ftrace
    # reads them at the first panel_write_generic's positions, past this
    # set's end in trace_processor (another set's row); the embedded engine
    # prints the fields the row has (to_ftrace.rs).
    assert tp_diffs(marks)[0] == {"to_ftrace": {"line"}}
