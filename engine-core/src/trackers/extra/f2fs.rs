//! F2FS ftrace events (trace_processor's IostatTracker and
//! FtraceParser::ParseF2fsWriteCheckpoint):
//!
//! - f2fs_iostat / f2fs_iostat_latency: each of the event's I/O counters on
//!   its own `f2fs_iostat.[<major>:<minor>].<counter>` /
//!   `f2fs_iostat_latency.[...].<counter>` track (dimensions the device and
//!   `counter_key`);
//! - f2fs_write_checkpoint: a checkpoint as an `F2fs Write Checkpoint`
//!   slice on the writing process's `f2fs_ckpt <pid>` track, begun by its
//!   start phase (args `dev`, `reason_int` and the reasons it holds as
//!   `reason_str[i]`, `Unknown` for none) and ended by its finish phase.

use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

/// (counter key, field), in the order the reference pushes them.
const IOSTAT: [(&str, &str); 22] = [
    ("write_app_total", "app_wio"),
    ("write_app_direct", "app_dio"),
    ("write_app_buffered", "app_bio"),
    ("write_app_mapped", "app_mio"),
    ("write_fs_data", "fs_dio"),
    ("write_fs_node", "fs_nio"),
    ("write_fs_meta", "fs_mio"),
    ("write_gc_data", "fs_gc_dio"),
    ("write_gc_node", "fs_gc_nio"),
    ("write_cp_data", "fs_cp_dio"),
    ("write_cp_node", "fs_cp_nio"),
    ("write_cp_meta", "fs_cp_mio"),
    ("read_app_total", "app_rio"),
    ("read_app_direct", "app_drio"),
    ("read_app_buffered", "app_brio"),
    ("read_app_mapped", "app_mrio"),
    ("read_fs_data", "fs_drio"),
    ("read_fs_gdata", "fs_gdrio"),
    ("read_fs_cdata", "fs_cdrio"),
    ("read_fs_node", "fs_nrio"),
    ("read_fs_meta", "fs_mrio"),
    ("other_fs_discard", "fs_discard"),
];

const IOSTAT_LATENCY: [(&str, &str); 27] = [
    ("read_data_peak", "d_rd_peak"),
    ("read_data_avg", "d_rd_avg"),
    ("read_data_cnt", "d_rd_cnt"),
    ("read_node_peak", "n_rd_peak"),
    ("read_node_avg", "n_rd_avg"),
    ("read_node_cnt", "n_rd_cnt"),
    ("read_meta_peak", "m_rd_peak"),
    ("read_meta_avg", "m_rd_avg"),
    ("read_meta_cnt", "m_rd_cnt"),
    ("write_sync_data_peak", "d_wr_s_peak"),
    ("write_sync_data_avg", "d_wr_s_avg"),
    ("write_sync_data_cnt", "d_wr_s_cnt"),
    ("write_sync_node_peak", "n_wr_s_peak"),
    ("write_sync_node_avg", "n_wr_s_avg"),
    ("write_sync_node_cnt", "n_wr_s_cnt"),
    ("write_sync_meta_peak", "m_wr_s_peak"),
    ("write_sync_meta_avg", "m_wr_s_avg"),
    ("write_sync_meta_cnt", "m_wr_s_cnt"),
    ("write_async_data_peak", "d_wr_as_peak"),
    ("write_async_data_avg", "d_wr_as_avg"),
    ("write_async_data_cnt", "d_wr_as_cnt"),
    ("write_async_node_peak", "n_wr_as_peak"),
    ("write_async_node_avg", "n_wr_as_avg"),
    ("write_async_node_cnt", "n_wr_as_cnt"),
    ("write_async_meta_peak", "m_wr_as_peak"),
    ("write_async_meta_avg", "m_wr_as_avg"),
    ("write_async_meta_cnt", "m_wr_as_cnt"),
];

/// The checkpoint reasons by bit (the kernel's CP_* flags).
const CHECKPOINT_REASONS: [&str; 8] = [
    "Umount", "Fastboot", "Sync", "Recovery", "Discard", "Trimmed", "Pause", "Resize",
];

/// f2fs_iostat / f2fs_iostat_latency.
pub fn iostat(c: &mut Ctx, e: &FtraceEv) {
    let (type_, counters): (&'static str, &[(&str, &str)]) = if e.name == "f2fs_iostat" {
        ("f2fs_iostat", &IOSTAT)
    } else {
        ("f2fs_iostat_latency", &IOSTAT_LATENCY)
    };
    let dev = e.int("dev").unwrap_or(0) as u64;
    let device = format!("{}:{}", (dev & 0xFF00) >> 8, dev & 0xFF);
    for &(key, field) in counters {
        let track = c.tracks.intern(
            &mut c.args,
            type_,
            Some(&format!("{type_}.[{device}].{key}")),
            "counter",
            vec![
                ("linux_device", Dim::Str(device.clone())),
                ("counter_key", Dim::Str(key.to_owned())),
            ],
            Owner::default(),
            0,
        );
        let value = e.int(field).unwrap_or(0) as u64;
        c.counters.push(e.ts, track, value as f64, None);
    }
}

/// f2fs_write_checkpoint.
pub fn write_checkpoint(c: &mut Ctx, e: &FtraceEv) {
    const START: i128 = 0;
    const FINISH_BLOCK_OPS: i128 = 1;
    const FINISH: i128 = 2;
    let phase = e.int("phase").unwrap_or(0);
    if phase == FINISH_BLOCK_OPS {
        return;
    }
    let upid = c.pt.get_or_create_process(e.pid);
    let track = c.tracks.intern(
        &mut c.args,
        "f2fs_write_checkpoint",
        Some(&format!("f2fs_ckpt {}", e.pid as u32)),
        "slice",
        vec![("upid", Dim::Int(upid as i64))],
        Owner {
            upid: Some(upid),
            ..Default::default()
        },
        0,
    );
    match phase {
        START => {
            // an open checkpoint ends first
            c.slices.end(track, e.ts);
            let reason = e.int("reason").unwrap_or(0) as i32;
            let mut args = vec![
                (
                    "dev".to_owned(),
                    Some(ArgVal::Uint(e.int("dev").unwrap_or(0) as u64)),
                ),
                ("reason_int".to_owned(), Some(ArgVal::Int(reason as i128))),
            ];
            if reason == 0 {
                args.push(("reason_str".to_owned(), Some(ArgVal::Str("Unknown".into()))));
            }
            let held = CHECKPOINT_REASONS
                .iter()
                .enumerate()
                .filter(|&(bit, _)| reason & (1 << bit) != 0);
            for (i, (_, &name)) in held.enumerate() {
                args.push((format!("reason_str[{i}]"), Some(ArgVal::Str(name.into()))));
            }
            let set = c.args.add_set_unique(&args);
            let name = "F2fs Write Checkpoint".to_owned();
            c.slices.begin(track, e.ts, name, -1, Some(set));
        }
        FINISH => {
            c.slices.end(track, e.ts);
        }
        _ => {}
    }
}
