//! funcgraph_entry / funcgraph_exit (the function_graph tracer) -> a slice
//! per traced kernel function call (trace_processor's
//! FtraceParser::ParseFuncgraph*): on the thread's "Funcgraph" track, or for
//! the idle task (pid 0, one per cpu) on the cpu's "swapper<cpu>
//! -funcgraph" track. A slice is named by the function's interned kernel
//! symbol, else by its address in hex.

use super::tracks::{Dim, Owner};
use super::Ctx;
use crate::decoder::proto::SYMBOL_FIELD;
use crate::events::FtraceEv;

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
        c.tracks.intern(
            &mut c.args,
            "cpu_funcgraph",
            Some(&format!("swapper{} -funcgraph", e.cpu)),
            "slice",
            vec![("cpu", Dim::Int(e.cpu))],
            Owner {
                cpu: Some(e.cpu),
                ..Default::default()
            },
            0,
        )
    }
}

/// The function's symbol, else its address as C's "%#x" prints it.
fn function_name(e: &FtraceEv) -> String {
    match e.str(SYMBOL_FIELD) {
        Some(s) => s.to_owned(),
        None => match e.int("func").unwrap_or(0) as u64 {
            0 => "0".into(),
            a => format!("{a:#x}"),
        },
    }
}

pub fn entry(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = track(c, e);
    c.slices
        .begin(&mut c.stats, t, ts, function_name(e), -1, None);
}

pub fn exit(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = track(c, e);
    c.slices.end(&mut c.stats, t, ts);
}
