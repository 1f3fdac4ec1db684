"""Android logcat in a trace (TracePacket.android_log) in `android_logs`, as
trace_processor v58's AndroidProbesParser imports it.

Log events carry REALTIME timestamps; one clock snapshot says boot time
1,000,000 ns is realtime 5,000,000,000 ns, so an event at realtime
5,000,000,000 + d is at trace time 1,000,000 + d. A log packet before any
snapshot cannot be converted: its event is dropped, as trace_processor does.

    realtime +500,000  pid 100 tid 101  ERROR  tag "art"   "GC freed 12MB"
    realtime +200,000  pid 100 tid 100  (unset prio: INFO)  no tag, no message,
                       args a=1, b="x", c=0.5 -> ' a=1 b="x" c=0.500000'
    realtime +300,000  pid 200 tid 200  WARN   tag ""      "hi" + n=7 and a
                       nameless 8 -> 'hi n=7 =8'

trace_processor re-serializes each log event before parsing it, writing
its tag, message and arg names even when absent: so no tag reads as "",
and the args' text keeps its leading space after an absent message.
"""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

REALTIME0 = 5_000_000_000


def _trace() -> bytes:
    trace = pb.Trace()
    early = trace.packet.add(trusted_packet_sequence_id=1).android_log
    early.events.add(timestamp=REALTIME0, pid=1, tid=1, tag="early", message="dropped")
    snap = trace.packet.add(trusted_packet_sequence_id=1).clock_snapshot
    snap.clocks.add(clock_id=6, timestamp=1_000_000)  # BOOTTIME
    snap.clocks.add(clock_id=1, timestamp=REALTIME0)  # REALTIME
    log = trace.packet.add(trusted_packet_sequence_id=1).android_log
    log.events.add(timestamp=REALTIME0 + 500_000, pid=100, tid=101, prio=6, tag="art",
                   message="GC freed 12MB")
    e = log.events.add(timestamp=REALTIME0 + 200_000, pid=100, tid=100)
    e.args.add(name="a", int_value=1)
    e.args.add(name="b", string_value="x")
    e.args.add(name="c", float_value=0.5)
    e = log.events.add(timestamp=REALTIME0 + 300_000, pid=200, tid=200, prio=5, tag="",
                       message="hi")
    e.args.add(name="n", int_value=7)
    e.args.add(int_value=8)  # no name
    log.stats.num_total, log.stats.num_failed, log.stats.num_skipped = 10, 1, 2
    return trace.SerializeToString()


@pytest.fixture(scope="module")
def engine():
    e = EmbeddedEngine()
    e.load_bytes(_trace(), "logs")
    yield e
    e.close()


def test_log_events_at_trace_time_with_their_thread(engine):
    assert engine.query(
        "SELECT l.ts, t.tid, p.pid, l.prio, l.tag, l.msg FROM android_logs l "
        "JOIN thread t USING (utid) JOIN process p USING (upid) ORDER BY l.id").rows() == [
        (1_200_000, 100, 100, 4, "", ' a=1 b="x" c=0.500000'),
        (1_300_000, 200, 200, 5, "", "hi n=7 =8"),
        (1_500_000, 101, 100, 6, "art", "GC freed 12MB")]
    assert engine.query("SELECT DISTINCT log_source FROM logs").rows() == [("android_logcat",)]


def test_logd_stats_and_bounds(engine):
    assert dict(engine.query(
        "SELECT name, value FROM stats WHERE name LIKE 'android_log_num_%' "
        "OR name LIKE 'clock_sync_failure_%_clock' OR name = 'clock_sync_failure_no_path'"
    ).rows()) == {
        "android_log_num_total": 10, "android_log_num_failed": 1,
        "android_log_num_skipped": 2,
        # the early event: no snapshot had REALTIME yet
        "clock_sync_failure_unknown_source_clock": 1,
        "clock_sync_failure_unknown_target_clock": 0, "clock_sync_failure_no_path": 0}
    # that failed conversion fixed the trace's clock before the snapshot
    # could set it (trace_processor's clock tracker): no trace_time_clock_id
    assert engine.query("SELECT count(*) FROM metadata "
                        "WHERE name = 'trace_time_clock_id'").rows() == [(0,)]
    assert engine.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [
        (1_200_000, 1_500_000)]
    # imported, so not counted as skipped data
    assert engine.query("SELECT count(*) FROM stats "
                        "WHERE name = 'artscope_skipped_android_log'").rows() == [(0,)]


@pytest.mark.tp
def test_same_tables_as_trace_processor(tp_diffs):
    differ, compared = tp_diffs(_trace())
    assert {"android_logs", "logs"} <= compared
    # (the failed conversion's import log args included)
    assert differ == {}
