"""Network ftrace events in the compiled core, as
trace_processor's FtraceParser makes them: per-interface running totals
in KB of received / transmitted bytes, TCP socket states as slices per
stream, TCP retransmits as instants, NAPI GRO receives as per-CPU slices
and the running count of freed IP packets. Expected rows are derived by
hand from the schedule below and checked against the real trace_processor
where it is available."""

from __future__ import annotations

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

APP = 500
SOCK_A, SOCK_B = 0xAAAA, 0xBBBB


def _trace() -> bytes:
    trace = pb.Trace()

    def bundle(cpu):
        pkt = trace.packet.add(trusted_packet_sequence_id=1)
        pkt.ftrace_events.cpu = cpu
        return pkt.ftrace_events.event

    c1 = bundle(1)
    r = c1.add(timestamp=1_000, pid=0).netif_receive_skb
    r.name, r.len = "wlan0", 1_500
    r = c1.add(timestamp=1_100, pid=0).netif_receive_skb
    r.name, r.len = "wlan0", 600
    n = c1.add(timestamp=1_200, pid=0).napi_gro_receive_entry
    n.name, n.len = "wlan0", 1_400
    c1.add(timestamp=1_250, pid=0).napi_gro_receive_exit.ret = 3
    c0 = bundle(0)

    def ev(ts, pid=APP):
        c0.add(timestamp=ts, pid=pid)
        return c0[-1]

    x = ev(1_300).net_dev_xmit
    x.name, x.len, x.rc = "wlan0", 2_048, 0
    # not taken by the driver: not counted
    x = ev(1_350).net_dev_xmit
    x.name, x.len, x.rc = "wlan0", 4_096, 16

    def sock(ts, skaddr, old, new, family=2, protocol=6):
        s = ev(ts).inet_sock_set_state
        s.skaddr, s.oldstate, s.newstate = skaddr, old, new
        s.family, s.protocol, s.sport, s.dport = family, protocol, 40_000, 443

    sock(2_000, SOCK_A, 7, 2)   # CLOSE -> SYN_SENT
    sock(2_100, SOCK_A, 2, 1)   # -> ESTABLISHED
    sock(2_200, SOCK_B, 7, 2)   # a second stream
    sock(2_300, SOCK_A, 1, 4)   # -> FIN_WAIT1
    sock(2_400, SOCK_B, 7, 2, protocol=17)  # UDP: ignored
    sock(2_500, SOCK_B, 7, 13)  # no such state: ignored
    t = ev(3_000).tcp_retransmit_skb
    t.sport, t.dport = 40_000, 443
    ev(3_100).kfree_skb.protocol = 0x86DD
    ev(3_200).kfree_skb.protocol = 0x0806  # ARP: not counted
    ev(3_300).kfree_skb.protocol = 0x0800
    return trace.SerializeToString()


COUNTERS = """
SELECT c.ts, c.value, t.name, extract_arg(c.arg_set_id, 'len'),
  extract_arg(c.arg_set_id, 'cpu'), extract_arg(c.arg_set_id, 'protocol')
FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts
"""
EXPECTED_COUNTERS = [
    # 1500 B -> 1 KB, then 2100 B -> 2 KB (whole KB of the running total)
    (1_000, 1.0, "wlan0 Received KB", 1_500, 1, None),
    (1_100, 2.0, "wlan0 Received KB", 600, 1, None),
    (1_300, 2.0, "wlan0 Transmitted KB", 2_048, 0, None),
    (3_100, 1.0, "Kfree Skb IP Prot", None, None, "IPV6"),
    (3_300, 2.0, "Kfree Skb IP Prot", None, None, "IP"),
]
SLICES = """
SELECT s.ts, s.dur, s.category, s.name, t.name AS track FROM slice s
JOIN track t ON s.track_id = t.id ORDER BY s.ts
"""
EXPECTED_SLICES = [
    (1_200, 50, "napi_gro", "wlan0", "Napi Gro Cpu 1"),
    (2_000, 100, "tcp_state", "TCP_SYN_SENT(pid=500)", "TCP stream#1"),
    (2_100, 200, "tcp_state", "TCP_ESTABLISHED(sport=40000,dport=443)", "TCP stream#1"),
    (2_200, -1, "tcp_state", "TCP_SYN_SENT(pid=500)", "TCP stream#2"),
    (2_300, -1, "tcp_state", "TCP_FIN_WAIT1", "TCP stream#1"),
    (3_000, 0, "tcp_event", "sport=40000,dport=443", "TCP Retransmit Skb"),
]
NAPI_ARGS = """
SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id)
WHERE s.category = 'napi_gro' ORDER BY a.key
"""
EXPECTED_NAPI_ARGS = [("len", "1400"), ("ret", "3")]


def test_counters(load_embedded):
    assert load_embedded(_trace()).query(COUNTERS).rows() == EXPECTED_COUNTERS


def test_slices(load_embedded):
    assert load_embedded(_trace()).query(SLICES).rows() == EXPECTED_SLICES


def test_napi_args(load_embedded):
    assert load_embedded(_trace()).query(NAPI_ARGS).rows() == EXPECTED_NAPI_ARGS


@pytest.mark.tp
def test_same_as_trace_processor(tp_rows, tp_diffs):
    assert tp_rows(_trace(), COUNTERS) == EXPECTED_COUNTERS
    assert tp_rows(_trace(), SLICES) == EXPECTED_SLICES
    assert tp_rows(_trace(), NAPI_ARGS) == EXPECTED_NAPI_ARGS
    diffs, compared = tp_diffs(_trace())
    assert {"slice", "counter", "track", "args", "cpu_track"} <= compared
    assert diffs == {}
