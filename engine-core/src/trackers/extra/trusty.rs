//! Trusty TEE calls and IPC as slices (trace_processor's FtraceParser::
//! ParseTrusty*): on the calling thread's track, category `tipc`:
//!
//! - trusty_smc, trusty_std_call32, trusty_share_memory,
//!   trusty_reclaim_memory, trusty_ipc_connect and trusty_ipc_read open a
//!   slice (named by the call and its arguments); their `_done` / `_end`
//!   event closes the innermost open `tipc` slice, then marks its result
//!   with an instant (smc and share_memory always; the others only on an
//!   error);
//! - trusty_irq, trusty_ipc_handle_event, trusty_ipc_write (plus an error
//!   instant for a negative length), trusty_ipc_poll, trusty_ipc_rx and
//!   trusty_enqueue_nop are instants.
//!
//! Names are formatted as the reference's fixed-size buffers hold them
//! (`stack_string`); an absent field reads as 0.

use crate::events::FtraceEv;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::{stack_string, Ctx};

const CATEGORY: &str = "tipc";

pub fn event(c: &mut Ctx, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0);
    let u64_ = |f: &str| int(f) as u64;
    let u32_ = |f: &str| int(f) as u32;
    let i32_ = |f: &str| int(f) as i32;
    let srv = || e.str("srv_name").unwrap_or("");
    let utid = c.pt.get_or_create_thread(e.pid);
    let track = thread_track(c, utid);
    let call = |c: &mut Ctx, name: String| begin(c, track, e.ts, name, -1);
    match e.name {
        "trusty_smc" => call(
            c,
            stack_string(format!("trusty_smc:r0= {}", u64_("r0")), 48),
        ),
        "trusty_smc_done" => {
            end(c, track, e.ts);
            instant(
                c,
                track,
                e.ts,
                format!("trusty_smc_done:r0= {}", u64_("ret")),
            );
        }
        "trusty_std_call32" => call(c, "trusty_std".into()),
        "trusty_std_call32_done" => {
            end(c, track, e.ts);
            let ret = int("ret") as i64;
            if ret < 0 {
                instant(c, track, e.ts, format!("trusty_err_std: err= {ret}"));
            }
        }
        "trusty_share_memory" => call(
            c,
            format!(
                "trusty_share_mem: len= {} nents= {} lend= {}",
                u64_("len"),
                u32_("nents"),
                u32_("lend")
            ),
        ),
        "trusty_share_memory_done" => {
            end(c, track, e.ts);
            let name = format!(
                "trusty_share_mem: handle= {} ret= {}",
                u64_("handle"),
                i32_("ret")
            );
            instant(c, track, e.ts, name);
        }
        "trusty_reclaim_memory" => call(c, format!("trusty_reclaim_mem: id={}", u64_("id"))),
        "trusty_reclaim_memory_done" => {
            end(c, track, e.ts);
            if i32_("ret") < 0 {
                let name = format!("trusty_reclaim_mem_err: err= {}", i32_("ret"));
                instant(c, track, e.ts, name);
            }
        }
        "trusty_irq" => instant(c, track, e.ts, format!("trusty_irq: irq= {}", i32_("irq"))),
        "trusty_ipc_handle_event" => {
            let name = format!(
                "trusty_ipc_handle_event: chan={} srv_name={} event={}",
                u32_("chan"),
                srv(),
                u32_("event_id")
            );
            instant(c, track, e.ts, name);
        }
        "trusty_ipc_connect" => {
            let port = e.str("port").unwrap_or("");
            call(c, format!("tipc_connect: {port}"));
        }
        "trusty_ipc_connect_end" => {
            end(c, track, e.ts);
            if i32_("err") != 0 {
                let name = format!("tipc_err_connect:err= {}", i32_("err"));
                instant(c, track, e.ts, name);
            }
        }
        "trusty_ipc_write" => {
            let name = match u64_("shm_cnt") {
                0 => format!("tipc_write: {}", srv()),
                n => format!("tipc_write: {} shm_cnt:[{n}]", srv()),
            };
            instant(c, track, e.ts, name);
            if i32_("len_or_err") < 0 {
                let name = format!("tipc_err_write:len_or_err= {}", i32_("len_or_err"));
                instant(c, track, e.ts, name);
            }
        }
        "trusty_ipc_read" => call(c, format!("tipc_read: {}", srv())),
        "trusty_ipc_read_end" => {
            end(c, track, e.ts);
            if i32_("len_or_err") <= 0 {
                let name = format!("tipc_err_read:len_or_err= {}", i32_("len_or_err"));
                instant(c, track, e.ts, name);
            }
        }
        "trusty_ipc_poll" => instant(c, track, e.ts, format!("tipc_poll: {}", srv())),
        "trusty_ipc_rx" => instant(c, track, e.ts, "tipc_rx".into()),
        "trusty_enqueue_nop" => {
            let name = format!(
                "trusty_enqueue_nop: arg1= {} arg2= {} arg3={}",
                u32_("arg1"),
                u32_("arg2"),
                u32_("arg3")
            );
            instant(c, track, e.ts, name);
        }
        _ => {}
    }
}

/// A `tipc` slice (dur -1: open; 0: an instant), its name as a 256-byte
/// buffer holds it.
fn begin(c: &mut Ctx, track: u32, ts: i64, name: String, dur: i64) {
    let name = stack_string(name, 256);
    c.slices.begin_in(CATEGORY, track, ts, name, dur, None);
}

fn instant(c: &mut Ctx, track: u32, ts: i64, name: String) {
    begin(c, track, ts, name, 0);
}

/// Closes the innermost open `tipc` slice of the thread.
fn end(c: &mut Ctx, track: u32, ts: i64) {
    c.slices.end_category(track, ts, CATEGORY);
}
