"""Workqueue, direct reclaim, shrink slab and hrtimer slices in
the compiled core, and kernel symbols: on a hand-made schedule, the slices,
tracks and args trace_processor's FtraceParser makes
(ParseWorkqueueExecuteStart / End, ParseDirectReclaimBegin / End,
ParseShrinkSlabStart / End, ParseHrtimerExpireEntry / Exit), the symbolized
raw args of its kKernelFunctionFields, and its interned_data_tokenizer_errors
(one per failed kernel symbol lookup: the raw args' and the typed parser's),
derived by hand below; and the same tables as the real trace_processor
where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

KWORKER = 50
SEQ = 7
SYMBOLS = {1: "do_work", 2: "super_cache_scan", 3: "tick_sched_timer"}


def _trace() -> bytes:
    trace = pb.Trace()
    p = trace.packet.add(trusted_packet_sequence_id=SEQ, sequence_flags=1)
    for iid, name in SYMBOLS.items():
        p.interned_data.kernel_symbols.add(iid=iid, str=name.encode())

    def bundle(cpu):
        pkt = trace.packet.add(trusted_packet_sequence_id=SEQ)
        pkt.ftrace_events.cpu = cpu
        return pkt.ftrace_events

    # CPU 1 first in the file, later in time: hrtimer callbacks of the idle
    # task; the second names no function (iid 0: not interned)
    b1 = bundle(1)
    h = b1.event.add(timestamp=5_000, pid=0).hrtimer_expire_entry
    h.hrtimer, h.now, h.function = 0xFFFF0001, 5_000, 3
    b1.event.add(timestamp=5_050, pid=0).hrtimer_expire_exit.hrtimer = 0xFFFF0001
    b1.event.add(timestamp=6_000, pid=0).hrtimer_expire_entry.hrtimer = 0xFFFF0002
    b1.event.add(timestamp=6_100, pid=0).hrtimer_expire_exit.hrtimer = 0xFFFF0002
    # CPU 0: a kworker
    b0 = bundle(0)

    def ev(ts):
        return b0.event.add(timestamp=ts, pid=KWORKER)

    w = ev(1_000).workqueue_execute_start
    w.work, w.function = 0xAA, 1
    ev(1_100).print.buf = f"B|{KWORKER}|inner\n"
    # ends the workqueue slice though "inner" is still open above it
    w = ev(1_300).workqueue_execute_end
    w.work, w.function = 0xAA, 1
    ev(1_400).print.buf = "E|50\n"
    # a work function that was not interned: named by its address
    w = ev(2_000).workqueue_execute_start
    w.work, w.function = 0xBB, 99
    w = ev(2_100).workqueue_execute_end
    w.work, w.function = 0xBB, 99
    r = ev(3_000).mm_vmscan_direct_reclaim_begin
    r.order, r.may_writepage, r.gfp_flags = 2, 1, 0x100CCA
    s = ev(3_500).mm_shrink_slab_start
    s.shrink, s.total_scan, s.priority, s.nr_objects_to_shrink = 2, 128, 12, 7
    ev(3_600).mm_shrink_slab_end.retval = 64
    ev(4_000).mm_vmscan_direct_reclaim_end.nr_reclaimed = 32
    # no fields: every arg 0; open at the trace's end
    ev(4_500).mm_vmscan_direct_reclaim_begin.SetInParent()
    # nothing open: ignored
    ev(4_600).workqueue_execute_end.SetInParent()
    # no caller: its parser looks up iid 0
    ev(4_700).sched_blocked_reason.pid = KWORKER
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (1_000, 300, "do_work", "workqueue", 0, None, "thread_execution"),
    (1_100, 200, "inner", None, 1, None, "thread_execution"),
    (2_000, 100, "0x63", "workqueue", 0, None, "thread_execution"),
    (3_000, 1_000, "mm_vmscan_direct_reclaim", None, 0, None, "thread_execution"),
    (3_500, 100, "mm_vmscan_shrink_slab", None, 1, None, "thread_execution"),
    (4_500, -1, "mm_vmscan_direct_reclaim", None, 0, None, "thread_execution"),
    (5_000, 50, "tick_sched_timer", "hrtimer", 0, "Hrtimer Cpu 1", "cpu_hrtimer"),
    (6_000, 100, "0", "hrtimer", 0, "Hrtimer Cpu 1", "cpu_hrtimer"),
]
SLICE_ARGS = """
SELECT s.ts, a.key, a.value_type, a.display_value
FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key
"""
EXPECTED_SLICE_ARGS = [
    (1_000, "cpu", "int", "0"),
    (2_000, "cpu", "int", "0"),
    (3_000, "direct_reclaim_gfp_flags", "uint", str(0x100CCA)),
    (3_000, "direct_reclaim_may_writepage", "int", "1"),
    (3_000, "direct_reclaim_nr_reclaimed", "uint", "32"),
    (3_000, "direct_reclaim_order", "int", "2"),
    (3_500, "freed", "int", "64"),
    (3_500, "priority", "int", "12"),
    (3_500, "shrink_name", "string", "super_cache_scan"),
    (3_500, "total_scan", "uint", "128"),
    (4_500, "direct_reclaim_gfp_flags", "uint", "0"),
    (4_500, "direct_reclaim_may_writepage", "int", "0"),
    (4_500, "direct_reclaim_order", "int", "0"),
]
# the kernel function fields of the raw rows: symbolized when interned
RAW_FUNCTION_ARGS = """
SELECT f.ts, f.name, a.key, a.value_type, a.display_value
FROM ftrace_event f JOIN args a USING (arg_set_id)
WHERE a.key IN ('function', 'shrink', 'caller') AND f.ts NOT IN (4500, 4600)
ORDER BY f.ts
"""
EXPECTED_RAW_FUNCTION_ARGS = [
    (1_000, "workqueue_execute_start", "function", "string", "do_work"),
    (1_300, "workqueue_execute_end", "function", "string", "do_work"),
    (2_000, "workqueue_execute_start", "function", "uint", "99"),
    (2_100, "workqueue_execute_end", "function", "uint", "99"),
    (3_500, "mm_shrink_slab_start", "shrink", "string", "super_cache_scan"),
    (5_000, "hrtimer_expire_entry", "function", "string", "tick_sched_timer"),
]
# a row without fields: arg_set_id 0, as trace_processor's column is not
# nullable (set 0 is whichever set came first: here the first row's)
NO_FIELDS = "SELECT ts, arg_set_id FROM ftrace_event WHERE ts IN (4500, 4600) ORDER BY ts"
EXPECTED_NO_FIELDS = [(4_500, 0), (4_600, 0)]
# failed lookups: 2000 (raw + parser), 2100 (raw), 4700 (parser, iid 0),
# 6000 (parser, iid 0; no field for the raw args)
TOKENIZER_ERRORS = 5


@pytest.fixture(scope="module")
def eng():
    from artscope.engines.embedded import EmbeddedEngine

    e = EmbeddedEngine()
    e.load_bytes(_trace(), "kernel_slices")
    yield e
    e.close()


def test_slices(eng):
    assert eng.query(SLICES).rows() == EXPECTED_SLICES


def test_slice_args(eng):
    assert eng.query(SLICE_ARGS).rows() == EXPECTED_SLICE_ARGS


def test_raw_args_symbolized(eng):
    assert eng.query(RAW_FUNCTION_ARGS).rows() == EXPECTED_RAW_FUNCTION_ARGS


def test_rows_without_fields(eng):
    assert eng.query(NO_FIELDS).rows() == EXPECTED_NO_FIELDS


def test_failed_symbol_lookups_counted(eng):
    assert eng.query("SELECT value FROM stats WHERE name = 'interned_data_tokenizer_errors'"
                     ).item() == TOKENIZER_ERRORS


def test_misplaced_end_event(eng):
    # "inner" was opened above "do_work" and still open when do_work ended
    # (1300): the next end (1400) truncates it to do_work's end and counts
    # it (SliceTracker::MaybeCloseStack); the end at 4600 with nothing open
    # is ignored, not counted (SliceTracker::End)
    assert eng.query("SELECT value FROM stats WHERE name = 'misplaced_end_event'").item() == 1


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    data = _trace()
    assert tp_rows(data, SLICES) == EXPECTED_SLICES
    assert tp_rows(data, SLICE_ARGS) == EXPECTED_SLICE_ARGS
    assert tp_rows(data, RAW_FUNCTION_ARGS) == EXPECTED_RAW_FUNCTION_ARGS
    assert tp_rows(data, NO_FIELDS) == EXPECTED_NO_FIELDS
    diffs, compared = tp_diffs(data)
    assert {"slice", "args", "track", "thread_track", "cpu_track", "stats",
            "ftrace_event", "thread_state"} <= compared
    # The hrtimer at 6000 has no function arg. trace_processor's to_ftrace
    # reads a field at its index in the first set of the event's name, here
    # past this set's end (another set's row: `direct_reclaim_may_writepage=`);
    # the embedded engine prints the fields the row has (to_ftrace.rs).
    assert diffs == {"to_ftrace": {"line"}}


# --- binder lock, secure monitor calls, memcg reclaim --------------------------

def _locks_trace() -> bytes:
    trace = pb.Trace()
    b = trace.packet.add().ftrace_events
    b.cpu = 0

    def ev(ts, pid=60):
        return b.event.add(timestamp=ts, pid=pid)

    ev(10_000).binder_lock.tag = "lock"
    ev(10_100).binder_locked.tag = "lock"
    # a secure monitor call while holding the lock
    ev(10_150).scm_call_start.x0 = 0x3000012
    ev(10_200).scm_call_end.SetInParent()
    ev(10_300).binder_unlock.tag = "lock"
    # locked without an attempt, unlocked without holding it: nothing
    ev(10_400).binder_locked.tag = "lock"
    ev(10_500, pid=61).binder_unlock.tag = "lock"
    r = ev(11_000).mm_vmscan_memcg_reclaim_begin
    r.order, r.may_writepage, r.gfp_flags = 1, 0, 0xCC0
    ev(11_500).mm_vmscan_memcg_reclaim_end.nr_reclaimed = 16
    return trace.SerializeToString()


LOCK_SLICES = "SELECT ts, dur, name, category, depth FROM slice ORDER BY ts"
EXPECTED_LOCK_SLICES = [
    (10_000, 100, "binder lock waiting", "binder", 0),
    (10_100, 200, "binder lock held", "binder", 0),
    (10_150, 50, "scm id=0x3000012", None, 1),
    (11_000, 500, "mm_vmscan_memcg_reclaim", None, 0),
]
EXPECTED_LOCK_ARGS = [
    (11_000, "memcg_reclaim_gfp_flags", "uint", str(0xCC0)),
    (11_000, "memcg_reclaim_may_writepage", "int", "0"),
    (11_000, "memcg_reclaim_nr_reclaimed", "uint", "16"),
    (11_000, "memcg_reclaim_order", "int", "1"),
]


@pytest.fixture(scope="module")
def locks_eng():
    from artscope.engines.embedded import EmbeddedEngine

    e = EmbeddedEngine()
    e.load_bytes(_locks_trace(), "locks")
    yield e
    e.close()


def test_lock_scm_and_memcg_slices(locks_eng):
    assert locks_eng.query(LOCK_SLICES).rows() == EXPECTED_LOCK_SLICES
    assert locks_eng.query(SLICE_ARGS).rows() == EXPECTED_LOCK_ARGS
    # the unlock of a thread never locked still made its thread
    assert locks_eng.query("SELECT tid FROM thread WHERE tid IN (60, 61) ORDER BY tid"
                           ).rows() == [(60,), (61,)]


@pytest.mark.tp
def test_locks_same_as_trace_processor(tp_rows, tp_diffs):
    data = _locks_trace()
    assert tp_rows(data, LOCK_SLICES) == EXPECTED_LOCK_SLICES
    assert tp_rows(data, SLICE_ARGS) == EXPECTED_LOCK_ARGS
    diffs, _ = tp_diffs(data)
    assert diffs == {}


# --- slices nested too deep -----------------------------------------------------

def _deep_trace() -> bytes:
    """513 atrace slices opened one inside the other on one thread: the
    reference keeps 512 levels (SliceTracker::kMaxDepth)."""
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=SEQ)
    pkt.ftrace_events.cpu = 0
    for i in range(513):
        pkt.ftrace_events.event.add(timestamp=1_000 + i, pid=KWORKER).print.buf = (
            f"B|{KWORKER}|level {i}\n")
    return trace.SerializeToString()


DEEP_LOG = """
SELECT ts, name, extract_arg(arg_set_id, 'parent_slice_name'),
  extract_arg(arg_set_id, 'current_slice_name') FROM _trace_import_logs
"""
# the 513th (level 512) is dropped and logged under level 511
EXPECTED_DEEP_LOG = [(1_512, "slice_max_depth_exceeded", "level 511", "level 512")]


def test_too_deep_slice_dropped_and_logged(load_embedded):
    e = load_embedded(_deep_trace())
    assert e.query("SELECT count(*), max(depth) FROM slice").rows() == [(512, 511)]
    assert e.query(DEEP_LOG).rows() == EXPECTED_DEEP_LOG
    assert e.query("SELECT value FROM stats WHERE name = 'slice_max_depth_exceeded'").item() == 1


@pytest.mark.tp
def test_too_deep_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_deep_trace(), DEEP_LOG) == EXPECTED_DEEP_LOG
    diffs, compared = tp_diffs(_deep_trace())
    assert {"slice", "stats"} <= compared
    assert diffs == {}
