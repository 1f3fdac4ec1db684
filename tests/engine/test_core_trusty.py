"""Trusty TEE calls and IPC in the compiled core: the `tipc`
slices and instants trace_processor's FtraceParser::ParseTrusty* make on
the calling thread's track. Expected rows are derived by hand from the
schedule below (each call opens a slice its done / end event closes, then
marks the result or an error with an instant; the rest are instants) and
checked against the real trace_processor where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

TID = 700


def _trace() -> bytes:
    trace = pb.Trace()
    pkt = trace.packet.add(trusted_packet_sequence_id=1)
    pkt.ftrace_events.cpu = 0
    events = pkt.ftrace_events.event

    def ev(ts):
        return events.add(timestamp=ts, pid=TID)

    ev(100).trusty_smc.r0 = 0x3200000A
    ev(110).trusty_irq.irq = 12
    ev(150).trusty_smc_done.ret = 0
    ev(200).trusty_std_call32.r0 = 1
    ev(250).trusty_std_call32_done.ret = -5
    s = ev(300).trusty_share_memory
    s.len, s.nents, s.lend = 4096, 1, 0
    s = ev(320).trusty_share_memory_done
    s.handle, s.ret = 77, 0
    ev(400).trusty_reclaim_memory.id = 77
    r = ev(410).trusty_reclaim_memory_done
    r.id, r.ret = 77, 0
    c = ev(500).trusty_ipc_connect
    c.chan, c.port = 1, "com.android.trusty.keymaster"
    c = ev(520).trusty_ipc_connect_end
    c.chan, c.err = 1, -2
    w = ev(600).trusty_ipc_write
    w.chan, w.shm_cnt, w.len_or_err, w.srv_name = 1, 2, -1, "km"
    r = ev(700).trusty_ipc_read
    r.chan, r.srv_name = 1, "km"
    ev(710).trusty_ipc_rx.chan = 1
    ev(720).trusty_ipc_read_end.len_or_err = 64
    ev(800).trusty_ipc_poll.srv_name = "km"
    h = ev(810).trusty_ipc_handle_event
    h.chan, h.event_id, h.srv_name = 1, 4, "km"
    n = ev(820).trusty_enqueue_nop
    n.arg1, n.arg2, n.arg3 = 1, 2, 3
    ev(900).trusty_ipc_read.srv_name = "km"
    ev(950).trusty_ipc_read_end.len_or_err = 0
    ev(1_000).trusty_smc.r0 = 1  # open at the end
    return trace.SerializeToString()


SLICES = """
SELECT s.ts, s.dur, s.category, s.name, s.depth, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id
"""
T = "thread_execution"
EXPECTED = [
    (100, 50, "tipc", "trusty_smc:r0= 838860810", 0, T),
    (110, 0, "tipc", "trusty_irq: irq= 12", 1, T),
    (150, 0, "tipc", "trusty_smc_done:r0= 0", 0, T),
    (200, 50, "tipc", "trusty_std", 0, T),
    # std_call32 marks only an error
    (250, 0, "tipc", "trusty_err_std: err= -5", 0, T),
    (300, 20, "tipc", "trusty_share_mem: len= 4096 nents= 1 lend= 0", 0, T),
    (320, 0, "tipc", "trusty_share_mem: handle= 77 ret= 0", 0, T),
    (400, 10, "tipc", "trusty_reclaim_mem: id=77", 0, T),
    (500, 20, "tipc", "tipc_connect: com.android.trusty.keymaster", 0, T),
    (520, 0, "tipc", "tipc_err_connect:err= -2", 0, T),
    (600, 0, "tipc", "tipc_write: km shm_cnt:[2]", 0, T),
    # an instant at the ts of another nests under it (SliceTracker pops a
    # slice ending at the new one's ts unless both are instants)
    (600, 0, "tipc", "tipc_err_write:len_or_err= -1", 1, T),
    (700, 20, "tipc", "tipc_read: km", 0, T),
    (710, 0, "tipc", "tipc_rx", 1, T),
    (800, 0, "tipc", "tipc_poll: km", 0, T),
    (810, 0, "tipc", "trusty_ipc_handle_event: chan=1 srv_name=km event=4", 0, T),
    (820, 0, "tipc", "trusty_enqueue_nop: arg1= 1 arg2= 2 arg3=3", 0, T),
    (900, 50, "tipc", "tipc_read: km", 0, T),
    # a read of 0 bytes is an error too
    (950, 0, "tipc", "tipc_err_read:len_or_err= 0", 0, T),
    (1_000, -1, "tipc", "trusty_smc:r0= 1", 0, T),
]


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED



@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), SLICES) == EXPECTED
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "track", "thread_track", "thread"} <= compared
    assert diffs == {}
