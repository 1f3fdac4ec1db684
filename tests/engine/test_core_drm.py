"""DRM vblanks and GPU scheduler jobs in the compiled core, as
trace_processor's DrmTracker makes them: vblank `signal` / `deliver`
instants per CRTC, and per scheduler ring one `job` slice at a time for the
jobs it runs (each ended by the ring's next completion, the next one
starting there), with a flow from the job's `drm_sched_job_queue` instant
on the queueing thread. Both generations of the events: drm_sched_job /
drm_run_job / drm_sched_process_job (jobs by id and fence pointer) and
drm_sched_job_queue / _run / _done (jobs by fence context and seqno).
Expected rows are derived by hand from the schedule below and checked
against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SUBMITTER = 400


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def ev(ts, pid=SUBMITTER):
        return events.add(timestamp=ts, pid=pid)

    v = ev(100, 0).drm_vblank_event
    v.crtc, v.seq = 0, 31
    v = ev(150).drm_vblank_event_delivered
    v.crtc, v.seq = 0, 31
    # old generation: job 7 and job 8 queued on gfx, both run, done in turn
    for ts, job in [(1_000, 7), (1_010, 8)]:
        q = ev(ts).drm_sched_job
        q.name, q.id, q.fence = "gfx", job, 0xF000 + job
    for ts, job in [(1_100, 7), (1_110, 8)]:
        r = ev(ts, 0).drm_run_job
        r.name, r.id, r.fence = "gfx", job, 0xF000 + job
    ev(1_300, 0).drm_sched_process_job.fence = 0xF007
    ev(1_500, 0).drm_sched_process_job.fence = 0xF008
    # a completion of a job never run is ignored
    ev(1_600, 0).drm_sched_process_job.fence = 0xF999
    # new generation: by fence (context 3, seqno 50), on ring comp; run
    # without being queued: no flow; open at the end
    q = ev(2_000).drm_sched_job_queue
    q.name, q.fence_context, q.fence_seqno = "comp", 3, 49
    for seqno in (49, 50):
        r = ev(2_100 + seqno, 0).drm_sched_job_run
        r.name, r.fence_context, r.fence_seqno = "comp", 3, seqno
    d = ev(2_400, 0).drm_sched_job_done
    d.fence_context, d.fence_seqno = 3, 49
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, t.type, t.name AS track FROM slice s
JOIN track t ON s.track_id = t.id ORDER BY s.ts, s.id
"""
EXPECTED_SLICES = [
    (100, 0, "signal", "drm_vblank", "vblank-0"),
    (150, 0, "deliver", "drm_vblank", "vblank-0"),
    (1_000, 0, "drm_sched_job_queue", "thread_execution", None),
    (1_010, 0, "drm_sched_job_queue", "thread_execution", None),
    # job 8 runs while 7 does: its slice starts when 7 is done
    (1_100, 200, "job", "drm_sched_ring", "sched-gfx"),
    (1_300, 200, "job", "drm_sched_ring", "sched-gfx"),
    (2_000, 0, "drm_sched_job_queue", "thread_execution", None),
    (2_149, 251, "job", "drm_sched_ring", "sched-comp"),
    (2_400, -1, "job", "drm_sched_ring", "sched-comp"),
]
ARGS = """
SELECT s.ts, s.name, a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.ts, s.id, a.key
"""
EXPECTED_ARGS = [
    (100, "signal", "vblank seqno", "31"),
    (150, "deliver", "vblank seqno", "31"),
    (1_000, "drm_sched_job_queue", "gpu sched job", "7"),
    (1_000, "drm_sched_job_queue", "gpu sched ring", "gfx"),
    (1_010, "drm_sched_job_queue", "gpu sched job", "8"),
    (1_010, "drm_sched_job_queue", "gpu sched ring", "gfx"),
    (1_100, "job", "gpu sched job", "7"),
    (1_300, "job", "gpu sched job", "8"),
    (2_000, "drm_sched_job_queue", "fence context", "3"),
    (2_000, "drm_sched_job_queue", "fence seqno", "49"),
    (2_000, "drm_sched_job_queue", "gpu sched ring", "comp"),
    (2_149, "job", "fence context", "3"),
    (2_149, "job", "fence seqno", "49"),
    (2_400, "job", "fence context", "3"),
    (2_400, "job", "fence seqno", "50"),
]
FLOWS = """
SELECT o.ts, i.ts FROM flow f JOIN slice o ON o.id = f.slice_out
JOIN slice i ON i.id = f.slice_in ORDER BY o.ts
"""
EXPECTED_FLOWS = [(1_000, 1_100), (1_010, 1_300), (2_000, 2_149)]


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_args(load_embedded):
    assert load_embedded(_trace()).query(ARGS).rows() == EXPECTED_ARGS


def test_flows_from_queue_to_run(load_embedded):
    assert load_embedded(_trace()).query(FLOWS).rows() == EXPECTED_FLOWS


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), ARGS) == EXPECTED_ARGS
    assert tp_rows(_trace(), FLOWS) == EXPECTED_FLOWS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "track", "args", "flow"} <= compared
    assert diffs == {}
