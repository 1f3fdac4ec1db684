//! Network ftrace events (trace_processor's FtraceParser::ParseNetifReceiveSkb,
//! ParseNetDevXmit, ParseInetSockSetState, ParseTcpRetransmitSkb,
//! ParseNapiGroReceiveEntry / Exit, ParseKfreeSkb):
//!
//! - netif_receive_skb / net_dev_xmit (when the driver took the packet, rc
//!   0): the interface's running total in KB on `<dev> Received KB` /
//!   `<dev> Transmitted KB` counters, each sample with its `cpu` and `len`;
//! - inet_sock_set_state of a TCP socket over IP: each new state a
//!   `tcp_state` slice (`TCP_SYN_SENT(pid=..)`,
//!   `TCP_ESTABLISHED(sport=..,dport=..)`, else the state's name) on the
//!   socket's `TCP stream#<n>` track, ending the previous one;
//! - tcp_retransmit_skb: a `sport=..,dport=..` instant (category
//!   `tcp_event`) on the `TCP Retransmit Skb` track;
//! - napi_gro_receive_entry / _exit: a `napi_gro` slice named by the
//!   device on the CPU's `Napi Gro Cpu N` track, args `len`, then `ret`;
//! - kfree_skb of an IP / IPv6 packet: the running count on `Kfree Skb IP
//!   Prot`, each sample with its `protocol`.

use crate::machines::machine_cpu;
use rustc_hash::FxHashMap as HashMap;

use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::{stack_string, Ctx};

const TCP_STATE_NAMES: [&str; 13] = [
    "TCP_UNKNOWN",
    "TCP_ESTABLISHED",
    "TCP_SYN_SENT",
    "TCP_SYN_RECV",
    "TCP_FIN_WAIT1",
    "TCP_FIN_WAIT2",
    "TCP_TIME_WAIT",
    "TCP_CLOSE",
    "TCP_CLOSE_WAIT",
    "TCP_LAST_ACK",
    "TCP_LISTEN",
    "TCP_CLOSING",
    "TCP_NEW_SYN_RECV",
];
const IPPROTO_TCP: i128 = 6;
const AF_INET: i128 = 2;
const AF_INET6: i128 = 10;
const ETH_P_IP: i128 = 0x800;
const ETH_P_IPV6: i128 = 0x86DD;

#[derive(Default)]
pub struct NetTracker {
    /// bytes received / transmitted so far, per interface
    received: HashMap<String, u64>,
    transmitted: HashMap<String, u64>,
    /// socket address -> its TCP stream number (from 1, in order seen)
    streams: HashMap<u64, u32>,
    /// IP / IPv6 packets freed so far
    kfree_skb_ip: u64,
}

/// Whether `name` is one of the events above.
pub fn takes(name: &str) -> bool {
    matches!(
        name,
        "netif_receive_skb"
            | "net_dev_xmit"
            | "inet_sock_set_state"
            | "tcp_retransmit_skb"
            | "napi_gro_receive_entry"
            | "napi_gro_receive_exit"
            | "kfree_skb"
    )
}

impl NetTracker {
    /// Imports `e`, one of the events `takes`.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let int = |f: &str| e.int(f).unwrap_or(0);
        let dev = e.str("name").unwrap_or("");
        match e.name {
            "netif_receive_skb" | "net_dev_xmit" => {
                let receive = e.name == "netif_receive_skb";
                if !receive && int("rc") != 0 {
                    return;
                }
                let (type_, suffix, totals) = if receive {
                    ("net_receive", "Received KB", &mut self.received)
                } else {
                    ("net_transmit", "Transmitted KB", &mut self.transmitted)
                };
                let len = int("len") as u32 as u64;
                let total = totals.entry(dev.to_owned()).or_insert(0);
                *total = total.wrapping_add(len);
                let kb = *total / 1024;
                let track = c.tracks.intern(
                    &mut c.args,
                    type_,
                    Some(&stack_string(format!("{dev} {suffix}"), 255)),
                    "counter",
                    vec![("network_interface", Dim::Str(dev.to_owned()))],
                    Owner::default(),
                    0,
                );
                let set = c.args.add_set(&[
                    ("cpu", Some(ArgVal::Uint(machine_cpu(e.cpu) as u64))),
                    ("len", Some(ArgVal::Uint(len))),
                ]);
                c.counters.push(e.ts, track, kb as f64, Some(set));
            }
            "inet_sock_set_state" => self.sock_state(c, e),
            "tcp_retransmit_skb" => {
                let track = c.tracks.intern(
                    &mut c.args,
                    "net_tcp_retransmit_skb",
                    Some("TCP Retransmit Skb"),
                    "slice",
                    vec![],
                    Owner::default(),
                    0,
                );
                let name = format!(
                    "sport={},dport={}",
                    int("sport") as u32,
                    int("dport") as u32
                );
                c.slices.begin_in("tcp_event", track, e.ts, name, 0, None);
            }
            "napi_gro_receive_entry" => {
                let track = napi_track(c, e.cpu);
                let set = c
                    .args
                    .add_set_unique(&[("len", Some(ArgVal::Int(int("len") as u32 as i128)))]);
                let name = dev.to_owned();
                c.slices
                    .begin_in("napi_gro", track, e.ts, name, -1, Some(set));
            }
            "napi_gro_receive_exit" => {
                let track = napi_track(c, e.cpu);
                let row = c.slices.end_category(track, e.ts, "napi_gro");
                let ret = [("ret", Some(ArgVal::Int(int("ret") as i32 as i128)))];
                crate::trackers::core::kernel_slices::add_end_args(c, row, &ret);
            }
            _ => {
                // kfree_skb
                let protocol = match int("protocol") {
                    ETH_P_IP => "IP",
                    ETH_P_IPV6 => "IPV6",
                    _ => return,
                };
                self.kfree_skb_ip += 1;
                let track = c.tracks.intern(
                    &mut c.args,
                    "net_kfree_skb",
                    Some("Kfree Skb IP Prot"),
                    "counter",
                    vec![],
                    Owner::default(),
                    0,
                );
                let set = c
                    .args
                    .add_set(&[("protocol", Some(ArgVal::Str(protocol.into())))]);
                c.counters
                    .push(e.ts, track, self.kfree_skb_ip as f64, Some(set));
            }
        }
    }

    fn sock_state(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let int = |f: &str| e.int(f).unwrap_or(0);
        let (new, old) = (int("newstate") as i32, int("oldstate") as i32);
        let valid = |s: i32| (0..TCP_STATE_NAMES.len() as i32).contains(&s);
        if int("protocol") != IPPROTO_TCP
            || !matches!(int("family"), AF_INET | AF_INET6)
            || !valid(new)
            || !valid(old)
        {
            return;
        }
        let next = self.streams.len() as u32 + 1;
        let stream = *self.streams.entry(int("skaddr") as u64).or_insert(next);
        let state = TCP_STATE_NAMES[new as usize];
        let name = match new {
            2 => stack_string(format!("{state}(pid={})", e.pid as u32), 32),
            1 => stack_string(
                format!(
                    "{state}(sport={},dport={})",
                    int("sport") as u32,
                    int("dport") as u32
                ),
                64,
            ),
            _ => state.to_owned(),
        };
        let track = c.tracks.intern(
            &mut c.args,
            "net_socket_set_state",
            Some(&format!("TCP stream#{stream}")),
            "slice",
            vec![("tcp_stream_idx", Dim::Int(stream as i64))],
            Owner::default(),
            0,
        );
        c.slices.end(track, e.ts);
        c.slices.begin_in("tcp_state", track, e.ts, name, -1, None);
    }
}

fn napi_track(c: &mut Ctx, cpu: i64) -> u32 {
    c.cpu_slice_track("cpu_napi_gro", &format!("Napi Gro Cpu {cpu}"), cpu)
}
