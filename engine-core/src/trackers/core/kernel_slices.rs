//! Kernel work as slices (trace_processor's FtraceParser::
//! ParseWorkqueueExecuteStart / End, ParseDirectReclaimBegin / End,
//! ParseShrinkSlabStart / End, ParseSignalGenerate / Deliver,
//! ParseHrtimerExpireEntry / Exit):
//!
//! - workqueue_execute_start opens a slice of category "workqueue" on the
//!   thread's track, named by the work function's kernel symbol (its
//!   address in hex when not interned), with arg `cpu`;
//!   workqueue_execute_end closes the innermost open "workqueue" slice;
//! - mm_vmscan_direct_reclaim_begin opens "mm_vmscan_direct_reclaim" on the
//!   thread's track (args direct_reclaim_order, direct_reclaim_may_writepage,
//!   direct_reclaim_gfp_flags); _end closes the innermost open slice, adding
//!   direct_reclaim_nr_reclaimed;
//! - mm_vmscan_memcg_reclaim_begin / _end: as direct reclaim, named
//!   "mm_vmscan_memcg_reclaim", args memcg_reclaim_*;
//! - scm_call_start opens "scm id=<x0 in hex>" on the thread's track,
//!   scm_call_end closes the innermost open slice there;
//! - mm_shrink_slab_start opens "mm_vmscan_shrink_slab" (args shrink_name:
//!   the shrinker's symbol, total_scan, priority); mm_shrink_slab_end closes
//!   the innermost open slice, adding `freed` (its retval);
//! - signal_generate / signal_deliver: an instant of that name with arg
//!   `signal.sig` on the track of the thread signalled (generate: its `pid`
//!   field; deliver: the event's own thread);
//! - hrtimer_expire_entry opens a slice of category "hrtimer" named by the
//!   timer function's symbol on the CPU's "Hrtimer Cpu N" track (type
//!   cpu_hrtimer); hrtimer_expire_exit closes the innermost open "hrtimer"
//!   slice there;
//! - pixel_mm_kswapd_wake opens "kswapd_efficiency" on the thread's track;
//!   pixel_mm_kswapd_done closes the innermost open one, adding the fields
//!   it has as `pages scanned`, `pages reclaimed`, `efficiency %` (reclaimed
//!   / scanned, rounded) and `pages allocated`
//!   (PixelMmKswapdEventTracker);
//! - a CMA allocation (ParseCmaAllocStart / Finish / Info,
//!   ParseMmAllocContigMigrateRangeInfo), by kernel version: from 5.10,
//!   cma_alloc_start opens "mm_cma_alloc" on the thread's track; before
//!   6.1 cma_alloc_info closes it with its own counts, from 6.1
//!   cma_alloc_finish does, with the counts of the thread's last
//!   mm_alloc_contig_migrate_range_info since the start (0 without one).
//!
//! An absent field reads as 0 (protozero's default), so each arg is always
//! there. An end with nothing open is ignored.

use crate::decoder::proto::{symbol_or_address, SYMBOL_FIELD};
use crate::events::FtraceEv;
use crate::machines::machine_cpu;
use crate::trackers::core::atrace::thread_track;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

const WORKQUEUE: &str = "workqueue";
const HRTIMER: &str = "hrtimer";
const NO_ARGS: &[(&str, Option<ArgVal>)] = &[];

/// Imports `e` if it is one of the events above.
pub fn event(c: &mut Ctx, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0);
    let uint = |f: &str| ArgVal::Uint(e.int(f).unwrap_or(0) as u64);
    match e.name {
        "workqueue_execute_start" => {
            let track = own_thread_track(c, e);
            // from protobuf (its symbol looked up) with a `cpu` arg; from
            // systrace text without one, as trace_processor's text reader
            let cpu = [("cpu", Some(ArgVal::Int(machine_cpu(e.cpu) as i128)))];
            let args: &[_] = if e.has(SYMBOL_FIELD) { &cpu } else { &[] };
            begin(c, track, e, Some(WORKQUEUE), symbol_or_address(e), args);
        }
        "workqueue_execute_end" => {
            let track = own_thread_track(c, e);
            c.slices.end_category(track, e.ts, WORKQUEUE);
        }
        "mm_vmscan_direct_reclaim_begin" => reclaim_begin(c, e, "direct_reclaim"),
        "mm_vmscan_direct_reclaim_end" => reclaim_end(c, e, "direct_reclaim"),
        "mm_vmscan_memcg_reclaim_begin" => reclaim_begin(c, e, "memcg_reclaim"),
        "mm_vmscan_memcg_reclaim_end" => reclaim_end(c, e, "memcg_reclaim"),
        "scm_call_start" => {
            let track = own_thread_track(c, e);
            let name = match int("x0") as u64 {
                0 => "scm id=0".to_owned(),
                x0 => format!("scm id={x0:#x}"),
            };
            begin(c, track, e, None, name, NO_ARGS);
        }
        "scm_call_end" => {
            let track = own_thread_track(c, e);
            c.slices.end(track, e.ts);
        }
        "mm_shrink_slab_start" => {
            let track = own_thread_track(c, e);
            let args = [
                ("shrink_name", Some(ArgVal::Str(symbol_or_address(e)))),
                ("total_scan", Some(uint("total_scan"))),
                ("priority", Some(ArgVal::Int(int("priority")))),
            ];
            begin(c, track, e, None, "mm_vmscan_shrink_slab".into(), &args);
        }
        "mm_shrink_slab_end" => {
            let track = own_thread_track(c, e);
            end_with(
                c,
                track,
                e.ts,
                &[("freed", Some(ArgVal::Int(int("retval"))))],
            );
        }
        "signal_generate" => {
            // on the thread the signal is sent to (its int32 pid as uint32)
            let utid = c.pt.get_or_create_thread(int("pid") as u32 as i64);
            let track = thread_track(c, utid);
            signal_instant(c, track, e, "signal_generate", int("sig"));
        }
        "signal_deliver" => {
            let track = own_thread_track(c, e);
            signal_instant(c, track, e, "signal_deliver", int("sig"));
        }
        "hrtimer_expire_entry" => {
            let track = hrtimer_track(c, e.cpu);
            begin(c, track, e, Some(HRTIMER), symbol_or_address(e), NO_ARGS);
        }
        "hrtimer_expire_exit" => {
            let track = hrtimer_track(c, e.cpu);
            c.slices.end_category(track, e.ts, HRTIMER);
        }
        "pixel_mm_kswapd_wake" => {
            let track = own_thread_track(c, e);
            begin(c, track, e, None, KSWAPD.into(), NO_ARGS);
        }
        "pixel_mm_kswapd_done" => kswapd_done(c, e),
        "cma_alloc_start" | "cma_alloc_finish" | "cma_alloc_info" => cma_alloc(c, e),
        "mm_alloc_contig_migrate_range_info" if c.kernel_version >= (6, 1) => {
            let utid = c.pt.get_or_create_thread(e.pid);
            let counts =
                ["nr_migrated", "nr_reclaimed", "nr_mapped"].map(|f| e.int(f).unwrap_or(0) as u64);
            c.memory.cma_migration.insert(utid, counts);
        }
        _ => {}
    }
}

const KSWAPD: &str = "kswapd_efficiency";

fn kswapd_done(c: &mut Ctx, e: &FtraceEv) {
    let track = own_thread_track(c, e);
    let field = |f: &str| e.int(f).map(|v| v as u64);
    let (scanned, reclaimed) = (field("delta_nr_scanned"), field("delta_nr_reclaimed"));
    let efficiency = match (scanned, reclaimed) {
        (Some(s), Some(r)) => {
            let pct = (r as f64 * 100.0 / s as f64).round();
            // as the reference's cast on x86-64: NaN / out of range ->
            // 2^63 (0 scanned)
            Some(if (0.0..18_446_744_073_709_551_616.0).contains(&pct) {
                pct as u64
            } else {
                1 << 63
            })
        }
        _ => None,
    };
    let args = [
        ("pages scanned", scanned.map(ArgVal::Uint)),
        ("pages reclaimed", reclaimed.map(ArgVal::Uint)),
        ("efficiency %", efficiency.map(ArgVal::Uint)),
        (
            "pages allocated",
            field("delta_nr_allocated").map(ArgVal::Uint),
        ),
    ];
    let row = c.slices.end_matching(track, e.ts, None, Some(KSWAPD));
    add_end_args(c, row, &args);
}

/// cma_alloc_start / _finish / _info, each in the kernel versions that
/// have it (the module's header).
fn cma_alloc(c: &mut Ctx, e: &FtraceEv) {
    let v = c.kernel_version;
    let uint = |f: &str| ArgVal::Uint(e.int(f).unwrap_or(0) as u64);
    let name = || ArgVal::Str(e.str("name").unwrap_or("").to_owned());
    match e.name {
        "cma_alloc_start" if v >= (5, 10) => {
            let utid = c.pt.get_or_create_thread(e.pid);
            if v >= (6, 1) {
                c.memory.cma_migration.insert(utid, [0; 3]);
            }
            let track = thread_track(c, utid);
            begin(c, track, e, None, "mm_cma_alloc".into(), NO_ARGS);
        }
        "cma_alloc_finish" if v >= (6, 1) => {
            let utid = c.pt.get_or_create_thread(e.pid);
            let track = thread_track(c, utid);
            let [migrated, reclaimed, mapped] = c.memory.cma_migration.get(&utid).map_or(
                [ArgVal::Uint(0), ArgVal::Uint(0), ArgVal::Uint(0)],
                |counts| counts.map(ArgVal::Uint),
            );
            let args = [
                ("cma_name", Some(name())),
                ("cma_pfn", Some(uint("pfn"))),
                ("cma_req_pages", Some(uint("count"))),
                ("cma_nr_migrated", Some(migrated)),
                ("cma_nr_reclaimed", Some(reclaimed)),
                ("cma_nr_mapped", Some(mapped)),
            ];
            end_with(c, track, e.ts, &args);
        }
        "cma_alloc_info" if ((5, 10)..(6, 1)).contains(&v) => {
            let track = own_thread_track(c, e);
            let args = [
                ("cma_name", Some(name())),
                ("cma_pfn", Some(uint("pfn"))),
                ("cma_req_pages", Some(uint("count"))),
                ("cma_nr_migrated", Some(uint("nr_migrated"))),
                ("cma_nr_reclaimed", Some(uint("nr_reclaimed"))),
                ("cma_nr_mapped", Some(uint("nr_mapped"))),
                ("cma_nr_isolate_fail", Some(uint("err_iso"))),
                ("cma_nr_migrate_fail", Some(uint("err_mig"))),
                ("cma_nr_test_fail", Some(uint("err_test"))),
            ];
            end_with(c, track, e.ts, &args);
        }
        _ => {}
    }
}

/// A direct or memcg reclaim (`kind`) begins: "mm_vmscan_<kind>" with args
/// <kind>_order, <kind>_may_writepage, <kind>_gfp_flags.
fn reclaim_begin(c: &mut Ctx, e: &FtraceEv, kind: &str) {
    let track = own_thread_track(c, e);
    let field = |f: &str| e.int(f).unwrap_or(0);
    let args = [
        (format!("{kind}_order"), Some(ArgVal::Int(field("order")))),
        (
            format!("{kind}_may_writepage"),
            Some(ArgVal::Int(field("may_writepage"))),
        ),
        (
            format!("{kind}_gfp_flags"),
            Some(ArgVal::Uint(field("gfp_flags") as u64)),
        ),
    ];
    let name = format!("mm_vmscan_{kind}");
    begin(c, track, e, None, name, &args);
}

/// A reclaim ends: the innermost open slice gets <kind>_nr_reclaimed.
fn reclaim_end(c: &mut Ctx, e: &FtraceEv, kind: &str) {
    let track = own_thread_track(c, e);
    let reclaimed = ArgVal::Uint(e.int("nr_reclaimed").unwrap_or(0) as u64);
    end_with(
        c,
        track,
        e.ts,
        &[(format!("{kind}_nr_reclaimed"), Some(reclaimed))],
    );
}

fn own_thread_track(c: &mut Ctx, e: &FtraceEv) -> u32 {
    let utid = c.pt.get_or_create_thread(e.pid);
    thread_track(c, utid)
}

fn hrtimer_track(c: &mut Ctx, cpu: i64) -> u32 {
    c.cpu_slice_track("cpu_hrtimer", &format!("Hrtimer Cpu {cpu}"), cpu)
}

/// Opens a slice; its args may grow at its end (`end_with`).
fn begin(
    c: &mut Ctx,
    track: u32,
    e: &FtraceEv,
    category: Option<&'static str>,
    name: String,
    args: &[(impl AsRef<str>, Option<ArgVal>)],
) {
    let set = (!args.is_empty()).then(|| c.args.add_set_unique(args));
    if let Some(row) = c.slices.begin(track, e.ts, name, -1, set) {
        c.slices.rows[row as usize].category = category.map(std::borrow::Cow::Borrowed);
    }
}

/// An instant (dur 0) with the signal number as `signal.sig`.
fn signal_instant(c: &mut Ctx, track: u32, e: &FtraceEv, name: &str, sig: i128) {
    let set = c.args.add_set(&[("signal.sig", Some(ArgVal::Int(sig)))]);
    c.slices.begin(track, e.ts, name.into(), 0, Some(set));
}

/// Closes the innermost open slice, adding `args` to it.
fn end_with(c: &mut Ctx, track: u32, ts: i64, args: &[(impl AsRef<str>, Option<ArgVal>)]) {
    let row = c.slices.end(track, ts);
    add_end_args(c, row, args);
}

/// Adds `args` to the slice `row` just ended (if one did).
pub(in crate::trackers) fn add_end_args(
    c: &mut Ctx,
    row: Option<u32>,
    args: &[(impl AsRef<str>, Option<ArgVal>)],
) {
    let Some(row) = row else {
        return;
    };
    let row = &mut c.slices.rows[row as usize];
    match row.arg_set {
        Some(set) => c.args.extend_set(set, args),
        None => row.arg_set = Some(c.args.add_set_unique(args)),
    }
}
