"""Per-sequence packet loss: the traced_buf_* loss stats
trace_processor derives from each sequence's packets and TraceStats'
writer_stats, counted by hand on the trace built here."""

from __future__ import annotations

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from artscope.engines.embedded import EmbeddedEngine

NEEDS_INCREMENTAL_STATE, INCREMENTAL_STATE_CLEARED = 2, 1
LOSS, READ_GAP, OVERWRITE = 1, 2, 64


def _trace() -> bytes:
    t = pb.Trace()

    def packet(seq: int, dropped: int = 0, flags: int = 0) -> None:
        p = t.packet.add(trusted_packet_sequence_id=seq)
        if dropped:
            p.previous_packet_dropped = dropped
        if flags:
            p.sequence_flags = flags

    # sequence 2 (buffer 0): two losses after its first packet, one a read gap
    packet(2)
    packet(2, dropped=LOSS | READ_GAP)
    packet(2, dropped=LOSS)
    # sequence 3 (buffer 1): a loss on its first packet (not counted); a
    # packet needing incremental state before any clear (skipped), a clear,
    # one read with valid state, a loss (counted, state invalid again), one
    # skipped again
    packet(3, dropped=LOSS)
    packet(3, flags=NEEDS_INCREMENTAL_STATE)
    packet(3, flags=INCREMENTAL_STATE_CLEARED)
    packet(3, flags=NEEDS_INCREMENTAL_STATE)
    packet(3, dropped=LOSS | OVERWRITE)
    packet(3, flags=NEEDS_INCREMENTAL_STATE)
    # sequence 4 (buffer 1): every packet needing incremental state skipped
    packet(4, flags=NEEDS_INCREMENTAL_STATE)
    packet(4, flags=NEEDS_INCREMENTAL_STATE)
    stats = t.packet.add(trusted_packet_sequence_id=1).trace_stats
    for seq, buf in ((2, 0), (3, 1), (4, 1)):
        stats.writer_stats.add(sequence_id=seq, buffer=buf)
    return t.SerializeToString()


def test_loss_stats_per_buffer(tmp_path):
    path = tmp_path / "loss.pftrace"
    path.write_bytes(_trace())
    eng = EmbeddedEngine()
    eng.load(path)
    try:
        rows = dict(((n, i), v) for n, i, v in eng.query(
            "SELECT name, idx, value FROM stats WHERE name GLOB 'traced_buf_*' "
            "AND (name GLOB '*packet_loss' OR name GLOB '*data_loss_*' "
            "OR name GLOB '*incremental*')").rows())
        skipped = eng.query("SELECT value FROM stats WHERE name = "
                            "'packet_skipped_seq_needs_incremental_state_invalid'").item()
    finally:
        eng.close()
    assert rows[("traced_buf_sequence_packet_loss", 0)] == 2
    assert rows[("traced_buf_sequence_packet_loss", 1)] == 1
    assert rows[("traced_buf_data_loss_read_gap", 0)] == 1
    assert rows[("traced_buf_data_loss_overwrite", 1)] == 1
    assert rows[("traced_buf_data_loss_read_gap", 1)] == 0
    # sequence 4 lost all of its packets needing incremental state, 3 not
    assert rows[("traced_buf_incremental_sequences_dropped", 0)] == 0
    assert rows[("traced_buf_incremental_sequences_dropped", 1)] == 1
    # 2 packets of sequence 3 and 2 of sequence 4
    assert skipped == 4
