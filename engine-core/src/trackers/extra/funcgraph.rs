//! funcgraph_entry / funcgraph_exit (the function_graph tracer) -> a slice
//! per traced kernel function call (trace_processor's
//! FtraceParser::ParseFuncgraph*): on the thread's "Funcgraph" track, or for
//! the idle task (pid 0, one per cpu) on the cpu's "swapper<cpu>
//! -funcgraph" track. A slice is named by the function's interned kernel
//! symbol, else by its address in hex.

use crate::decoder::proto::symbol_or_address;
use crate::events::FtraceEv;
use crate::trackers::core::tracks::{Dim, Owner};
use crate::trackers::Ctx;

fn track(c: &mut Ctx, e: &FtraceEv) -> u32 {
    if e.pid != 0 {
        let utid = c.pt.get_or_create_thread(e.pid);
        c.tracks.intern(
            &mut c.args,
            "thread_funcgraph",
            Some("Funcgraph"),
            "slice",
            vec![("utid", Dim::Int(utid as i64))],
            Owner {
                utid: Some(utid),
                ..Default::default()
            },
            0,
        )
    } else {
        c.cpu_slice_track(
            "cpu_funcgraph",
            &format!("swapper{} -funcgraph", e.cpu),
            e.cpu,
        )
    }
}

pub fn entry(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = track(c, e);
    c.slices.begin(t, ts, symbol_or_address(e), -1, None);
}

pub fn exit(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = track(c, e);
    c.slices.end(t, ts);
}
