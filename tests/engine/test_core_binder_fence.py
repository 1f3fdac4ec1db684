"""Binder transactions and dma_fence in the compiled core,
on a hand-made schedule: the slices and args trace_processor's
binder_tracker.cc / drm_tracker.cc make, derived by hand below, and the same
tables as the real trace_processor where it is available."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compare_tp  # noqa: E402

APP, APP_MAIN = 200, 201            # the client process and its calling thread
SERVER, SERVER_BINDER = 300, 301    # the service and its binder thread


def _trace() -> bytes:
    trace = pb.Trace()
    tree = trace.packet.add().process_tree
    tree.processes.add(pid=APP, ppid=1, cmdline=["com.example.app"])
    tree.processes.add(pid=SERVER, ppid=1, cmdline=["/system/bin/server"])
    tree.threads.add(tid=APP_MAIN, tgid=APP, name="app_main")
    tree.threads.add(tid=SERVER_BINDER, tgid=SERVER, name="binder:300_1")
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 0

    def ev(ts, pid):
        return bundle.event.add(timestamp=ts, pid=pid)

    # a synchronous call: transaction 10, its buffer, receipt, reply 11, receipt
    t = ev(1_000, APP_MAIN).binder_transaction
    t.debug_id, t.target_node, t.to_proc, t.to_thread = 10, 5, SERVER, 0
    t.reply, t.code, t.flags = 0, 3, 0x10
    a = ev(1_010, APP_MAIN).binder_transaction_alloc_buf
    a.debug_id, a.data_size, a.offsets_size = 10, 96, 8
    ev(1_100, SERVER_BINDER).binder_transaction_received.debug_id = 10
    r = ev(1_500, SERVER_BINDER).binder_transaction
    r.debug_id, r.target_node, r.to_proc, r.to_thread = 11, 0, APP, APP_MAIN
    r.reply, r.code, r.flags = 1, 0, 0
    ev(1_600, APP_MAIN).binder_transaction_received.debug_id = 11
    # a one-way call
    o = ev(2_000, APP_MAIN).binder_transaction
    o.debug_id, o.target_node, o.to_proc, o.to_thread = 12, 6, SERVER, 0
    o.reply, o.code, o.flags = 0, 1, 0x11
    ev(2_100, SERVER_BINDER).binder_transaction_received.debug_id = 12
    # a fence timeline with two fences, and a wait on the first
    for ts, seqno in ((3_000, 1), (3_100, 2)):
        f = ev(ts, 0).dma_fence_init
        f.timeline, f.context, f.seqno, f.driver = "gpu", 7, seqno, "mali"
    w = ev(3_050, APP_MAIN).dma_fence_wait_start
    w.timeline, w.context, w.seqno, w.driver = "gpu", 7, 1, "mali"
    w = ev(3_150, APP_MAIN).dma_fence_wait_end
    w.timeline, w.context, w.seqno, w.driver = "gpu", 7, 1, "mali"
    for ts, seqno in ((3_200, 1), (3_300, 2)):
        f = ev(ts, 0).dma_fence_signaled
        f.timeline, f.context, f.seqno, f.driver = "gpu", 7, seqno, "mali"
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("binder") / "binder_fence.pftrace"
    path.write_bytes(_trace())
    return path


@pytest.fixture(scope="module")
def eng(trace_path):
    e = EmbeddedEngine()
    e.load(trace_path)
    yield e
    e.close()


SLICES = """
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.tid,
       (SELECT group_concat(key || '=' || display_value, '; ')
        FROM (SELECT key, display_value FROM args a WHERE a.arg_set_id = s.arg_set_id
              ORDER BY key)) AS args
FROM slice s LEFT JOIN thread_track tt ON s.track_id = tt.id LEFT JOIN thread t USING (utid)
WHERE s.name GLOB 'binder*' OR s.name = 'dma_fence_wait' ORDER BY s.ts
"""


def test_binder_and_fence_wait_slices(eng):
    call = ("calling tid=201; code=0x03 Java Layer Dependent; data size=96; "
            "destination name=binder:300_1; destination node=5; destination process=300; "
            "destination thread=301; flags=0x10 allow replies with file descriptors; ; "
            "offsets size=8; reply transaction?=false; transaction id=10")
    reply = ("calling tid=301; code=0x00 Java Layer Dependent; destination name=app_main; "
             "destination node=0; destination process=200; destination thread=201; "
             "flags=0x00 No Flags Set; reply transaction?=true; transaction id=11")
    oneway = ("calling tid=201; code=0x01 Java Layer Dependent; destination node=6; "
              "destination process=300; flags=0x11 this is a one-way call: async, no "
              "return; allow replies with file descriptors; ; reply transaction?=false; "
              "transaction id=12")
    assert eng.query(SLICES).rows() == [
        # sent at 1000, replied to at 1600
        (1_000, 600, "binder transaction", "binder", 0, APP_MAIN, call),
        # received at 1100, reply sent at 1500
        (1_100, 400, "binder reply", "binder", 0, SERVER_BINDER, reply),
        (2_000, 0, "binder transaction async", "binder", 0, APP_MAIN, oneway),
        (2_100, 0, "binder async rcv", "binder", 0, SERVER_BINDER, oneway),
        (3_050, 100, "dma_fence_wait", None, 0, APP_MAIN, "fence context=7; fence seqno=1"),
    ]


def test_binder_flows(eng):
    """A flow from each sending slice to the slice its receipt opened (as
    trace_processor infers them: no trace_id, no args); the reply's receipt
    makes none."""
    rows = eng.query(
        "SELECT o.ts, o.name, i.ts, i.name, f.trace_id, f.arg_set_id FROM flow f "
        "JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in "
        "ORDER BY f.id").rows()
    assert rows == [(1_000, "binder transaction", 1_100, "binder reply", None, None),
                    (2_000, "binder transaction async", 2_100, "binder async rcv",
                     None, None)]


def test_fence_timeline(eng):
    """The front pending fence is the open slice: seqno 1 from its init
    (3000) to its signal (3200), then seqno 2 until its signal (3300)."""
    rows = eng.query(
        "SELECT s.ts, s.dur, s.name, t.name AS track, t.type, "
        "(SELECT display_value FROM args a WHERE a.arg_set_id = s.arg_set_id) AS seqno "
        "FROM slice s JOIN track t ON s.track_id = t.id WHERE s.name = 'fence' "
        "ORDER BY s.ts").rows()
    assert rows == [(3_000, 200, "fence", "fence-gpu-7", "drm_fence", "1"),
                    (3_200, 100, "fence", "fence-gpu-7", "drm_fence", "2")]


@pytest.mark.tp
def test_same_slices_as_trace_processor(trace_path, tp_bin):
    tables = ("slice", "flow", "thread_track", "thread", "process")
    assert compare_tp.differing_tables(trace_path, tables, tp_bin) == {}


def _reply_without_receipt_trace() -> bytes:
    """Thread 20 starts transaction 3 (to node -1, process 2, thread 4, code
    4) at 100, then sends reply 5 (to process -1, thread -1, code 5) at 300
    without having received anything: the reply ends the open transaction
    slice and gives it its own args, same keys taking the reply's values in
    place; its destination thread -1 is thread 4294967295 (uint32, as the
    reference's tracker takes it)."""
    trace = pb.Trace()
    bundle = trace.packet.add().ftrace_events
    bundle.cpu = 0
    t = bundle.event.add(timestamp=100, pid=20).binder_transaction
    t.debug_id, t.target_node, t.to_proc, t.to_thread, t.code, t.flags = 3, -1, 2, 4, 4, 0
    t.reply = 0  # (every field present: trace_processor's to_ftrace prints stale text for one absent)
    r = bundle.event.add(timestamp=300, pid=20).binder_transaction
    r.debug_id, r.target_node, r.to_proc, r.to_thread = 5, 4, -1, -1
    r.reply, r.code, r.flags = 1, 5, 0
    return trace.SerializeToString()


def test_reply_args_replace_the_ended_slices_in_place(load_embedded):
    e = load_embedded(_reply_without_receipt_trace())
    args = e.query("SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id) "
                   "ORDER BY a.id").rows()
    assert args == [("transaction id", "5"), ("destination node", "4"),
                    ("destination process", "4294967295"), ("reply transaction?", "true"),
                    ("flags", "0x00 No Flags Set"), ("code", "0x05 Java Layer Dependent"),
                    ("calling tid", "20")]
    assert e.query("SELECT ts, dur, name FROM slice").rows() == [(100, 200, "binder transaction")]
    assert 4294967295 in e.query("SELECT tid FROM thread").to_series().to_list()


@pytest.mark.tp
def test_reply_without_receipt_as_trace_processor(tp_diffs):
    diffs, compared = tp_diffs(_reply_without_receipt_trace())
    assert {"slice", "args", "thread"} <= compared
    assert diffs == {}
