"""The embedded engine's `__intrinsic_trace_diagnostics`: the
trace config settings trace_processor flags as making a recording
untrustworthy, with its keys, texts and confidences. Expected rows are
derived by hand from the configs built here and trace_processor's rules
(thresholds: buffer < 1 MB, drain bandwidth < 5 MB/s, drain period outside
[100 ms, 60 s], tracing started > 5 min after boot)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compare_tp  # noqa: E402

QUERY = ("SELECT key, description, confidence, trace_id "
         "FROM __intrinsic_trace_diagnostics ORDER BY id")


def _trace(data_loss: bool) -> bytes:
    """A streaming benchmark config with a 256 KB ftrace buffer drained every
    50 ms, preserve_ftrace_buffer, unfiltered syscalls and
    sched_blocked_reason without symbolize_ksyms, track_event into a DISCARD
    buffer; tracing started 400 s after boot. With `data_loss`, ftrace
    reports lost events on cpu 0."""
    t = pb.Trace()
    cfg = t.packet.add().trace_config
    cfg.write_into_file = True  # no file_write_period_ms: the 5 s default
    cfg.buffers.add(size_kb=65536, fill_policy=pb.TraceConfig.BufferConfig.RING_BUFFER)
    cfg.buffers.add(size_kb=4096, fill_policy=pb.TraceConfig.BufferConfig.DISCARD)
    ds = cfg.data_sources.add().config
    ds.name = "linux.ftrace"
    ds.target_buffer = 0
    ds.ftrace_config.ftrace_events.extend(
        ["sched/sched_switch", "sched/sched_blocked_reason", "raw_syscalls/sys_exit"])
    ds.ftrace_config.buffer_size_kb = 256
    ds.ftrace_config.drain_period_ms = 50
    ds.ftrace_config.preserve_ftrace_buffer = True
    ds = cfg.data_sources.add().config
    ds.name = "track_event"
    ds.target_buffer = 1
    p = t.packet.add(timestamp=400_000_000_000)
    p.service_event.tracing_started = True
    if data_loss:
        bundle = t.packet.add().ftrace_events
        bundle.cpu = 0
        bundle.lost_events = True
    return t.SerializeToString()


def _rows(tmp_path, data: bytes) -> list[tuple]:
    path = tmp_path / "t.pftrace"
    path.write_bytes(data)
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        return eng.query(QUERY).rows()
    finally:
        eng.close()


def _expected(data_loss: bool) -> list[tuple]:
    # 256 KB: 0.9 - 0.7 * (256 - 64) / (1024 - 64) = 0.76; data loss: 0.9.
    # Drain bandwidth 0.25 MB / 0.05 s = 5 MB/s exactly: not low, no row.
    tiny = 0.9 if data_loss else 0.76
    syscalls = 0.9 if data_loss else 0.3
    return [
        ("preserve_ftrace_buffer_late_start",
         "preserve_ftrace_buffer is set but tracing started more than a few minutes "
         "after boot; the preserved ftrace buffer may contain very old, misleading "
         "events.", 0.7, 0),
        ("tiny_ftrace_buffer",
         "ftrace buffer_size_kb is only 256 KB (< 1 MB); the kernel ftrace buffer may "
         "overrun and drop events under load.", tiny, 0),
        ("extreme_ftrace_drain_period",
         "ftrace drain_period_ms is 50 ms, outside the sane range [100, 60000]; this "
         "can cause excessive CPU wakeups or buffer overruns.", 0.6, 0),
        ("syscalls_without_filter",
         "raw_syscalls (sys_enter/sys_exit) are enabled without any syscall_events "
         "filter; every syscall is recorded, which can produce huge, expensive "
         "traces.", syscalls, 0),
        ("events_require_symbolize_ksyms",
         "ftrace event sched/sched_blocked_reason is enabled but symbolize_ksyms is not "
         "set; its kernel symbol fields will be raw addresses that cannot be resolved "
         "after the fact.", 0.6, 0),
        # the ftrace source writes into the RING_BUFFER: only track_event
        ("discard_buffer_for_streaming",
         "data source \"track_event\" targets a DISCARD buffer while the trace streams "
         "into a file; DISCARD stops recording once the buffer first fills, silently "
         "truncating long traces.", 0.8, 0),
    ]


@pytest.mark.parametrize("data_loss", [False, True])
def test_bad_benchmark_config_is_diagnosed(tmp_path, data_loss):
    rows = _rows(tmp_path, _trace(data_loss))
    expected = _expected(data_loss)
    assert [r[:2] + r[3:] for r in rows] == [e[:2] + e[3:] for e in expected]
    assert [r[2] for r in rows] == pytest.approx([e[2] for e in expected], abs=1e-12)


def test_trace_without_config_has_no_diagnostics(tmp_path):
    t = pb.Trace()
    t.packet.add(timestamp=400_000_000_000).service_event.tracing_started = True
    assert _rows(tmp_path, t.SerializeToString()) == []


@pytest.mark.tp
@pytest.mark.parametrize("data_loss", [False, True])
def test_same_rows_as_trace_processor(tmp_path, data_loss, tp_bin):
    """Every column, titles and remediations included (tools/compare_tp
    leaves out internal tables such as this one)."""
    from artscope.engines.trace_processor import TraceProcessorEngine

    sql = "SELECT * FROM __intrinsic_trace_diagnostics ORDER BY id"
    path = tmp_path / "diag.pftrace"
    path.write_bytes(_trace(data_loss))
    emb = EmbeddedEngine()
    emb.load(path)
    tp = TraceProcessorEngine(tp_bin=tp_bin)
    tp.load(path)
    try:
        ours, theirs = emb.query(sql), tp.query(sql)
    finally:
        emb.close()
        tp.close()
    assert ours.columns == theirs.columns
    assert len(ours) == 6
    assert ours.drop("confidence").rows() == theirs.drop("confidence").rows()
    assert ours["confidence"].to_list() == pytest.approx(theirs["confidence"].to_list(),
                                                         abs=1e-12)
