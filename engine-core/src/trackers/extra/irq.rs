//! irq, softirq and local timer ftrace events -> slices on per-CPU tracks
//! (trace_processor's FtraceParser::ParseIrqHandlerEntry / Exit,
//! ParseSoftIrqEntry / Exit, ParseLocalTimerEntry / Exit): one "Irq Cpu N"
//! (type cpu_irq) and one "SoftIrq Cpu N" (type cpu_softirq) track per CPU,
//! each with a cpu dimension (the `cpu_track` view), slices of category
//! "irq".
//!
//! - irq_handler_entry opens "IRQ (<name>)"; irq_handler_exit closes the
//!   innermost open slice and adds `ret` ("handled" when ret is 1, else
//!   "unhandled");
//! - local_timer_entry / _exit: "IRQ (LocalTimer)" on the irq track;
//! - softirq_entry opens the vector's action name (HI, TIMER, ...; an
//!   unknown vector is ignored); softirq_exit closes it and adds `vec`.
//!
//! An exit with nothing open is ignored (trace_processor's
//! SliceTracker::End counts nothing for it).

use crate::events::FtraceEv;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

const CATEGORY: &str = "irq";

/// The kernel's softirq vector names, by vector (softirq_to_name).
pub const SOFTIRQ_ACTIONS: [&str; 10] = [
    "HI",
    "TIMER",
    "NET_TX",
    "NET_RX",
    "BLOCK",
    "BLOCK_IOPOLL",
    "TASKLET",
    "SCHED",
    "HRTIMER",
    "RCU",
];

/// The CPU's irq (`soft` false) or softirq track.
fn track(c: &mut Ctx, soft: bool, cpu: i64) -> u32 {
    let (type_, label) = if soft {
        ("cpu_softirq", "SoftIrq")
    } else {
        ("cpu_irq", "Irq")
    };
    c.cpu_slice_track(type_, &format!("{label} Cpu {cpu}"), cpu)
}

fn begin(c: &mut Ctx, soft: bool, e: &FtraceEv, name: String) {
    let track = track(c, soft, e.cpu);
    c.slices.begin_in(CATEGORY, track, e.ts, name, -1, None);
}

/// Closes the innermost open slice of the track, adding `arg` to it.
fn end(c: &mut Ctx, soft: bool, e: &FtraceEv, arg: Option<(&str, ArgVal)>) {
    let track = track(c, soft, e.cpu);
    let Some(row) = c.slices.end(track, e.ts) else {
        return;
    };
    if let Some((key, value)) = arg {
        let set = c.args.add_set(&[(key, Some(value))]);
        c.slices.rows[row as usize].arg_set = Some(set);
    }
}

/// One of the events above (any other is ignored).
pub fn event(c: &mut Ctx, e: &FtraceEv) {
    match e.name {
        "irq_handler_entry" => {
            let name = format!("IRQ ({})", e.str("name").unwrap_or(""));
            begin(c, false, e, name);
        }
        "irq_handler_exit" => {
            let ret = if e.int("ret") == Some(1) {
                "handled"
            } else {
                "unhandled"
            };
            end(c, false, e, Some(("ret", ArgVal::Str(ret.into()))));
        }
        "local_timer_entry" => begin(c, false, e, "IRQ (LocalTimer)".into()),
        "local_timer_exit" => end(c, false, e, None),
        "softirq_entry" => {
            let vec = e.int("vec").unwrap_or(0);
            if let Some(action) = usize::try_from(vec)
                .ok()
                .and_then(|v| SOFTIRQ_ACTIONS.get(v))
            {
                begin(c, true, e, (*action).to_owned());
            }
        }
        "softirq_exit" => {
            let vec = e.int("vec").unwrap_or(0);
            end(c, true, e, Some(("vec", ArgVal::Int(vec))));
        }
        _ => {}
    }
}
