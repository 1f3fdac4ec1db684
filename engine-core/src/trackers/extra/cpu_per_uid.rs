//! CpuPerUidData: CPU time per (uid, cluster) as trace_processor imports it
//! (importers/proto/android_cpu_per_uid_module.cc).
//!
//! The reference computes everything when it tokenizes the file, in file
//! order: a packet's times are absolute the first time a (uid, cluster) is
//! seen on its sequence and increments after; uids of the shared / isolated
//! ranges are summed into their group's uid; "System" / "Apps" totals per
//! cluster add up the increments. Every packet re-emits every counter
//! through a sparse counter stream (a value equal to the track's last one is
//! left out, unless the next value differs: then the last one is written
//! back at its own timestamp so the step shows). `decoder::cpu_per_uid`
//! does this when the file is read; the replay only interns the tracks and
//! pushes the counters.

use crate::events::power::UidTrack;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

fn track(c: &mut Ctx, t: UidTrack) -> u32 {
    let (type_, name, dims) = match t {
        UidTrack::Uid { uid, cluster } => (
            "android_cpu_per_uid",
            format!("CPU for UID {uid} CL{cluster}"),
            vec![
                ("uid", Dim::Int(uid as i64)),
                ("cluster", Dim::Int(cluster as i64)),
            ],
        ),
        UidTrack::Totals { apps, cluster } => {
            let kind = if apps { "Apps" } else { "System" };
            (
                "android_cpu_per_uid_totals",
                format!("CPU for {kind} CL{cluster}"),
                vec![
                    ("type", Dim::Str(kind.into())),
                    ("cluster", Dim::Int(cluster as i64)),
                ],
            )
        }
    };
    c.tracks.intern_with(
        &mut c.args,
        type_,
        Some(&name),
        "counter",
        dims,
        Owner::default(),
        Some("ms"),
        Vec::<(&'static str, Option<ArgVal>)>::new,
    )
}

pub fn counter(c: &mut Ctx, ts: i64, t: UidTrack, value: f64) {
    let id = track(c, t);
    c.counters.push(ts, id, value, None);
}

/// The `__intrinsic_android_cpu_per_uid_track` rows: (track id, uid,
/// cluster, total cpu ms), by track id.
pub fn track_rows(c: &mut Ctx, totals: &[(u32, u32, i64)]) -> Vec<(u32, u32, u32, i64)> {
    let mut rows: Vec<_> = totals
        .iter()
        .map(|&(uid, cluster, total)| {
            (
                track(c, UidTrack::Uid { uid, cluster }),
                uid,
                cluster,
                total,
            )
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}
