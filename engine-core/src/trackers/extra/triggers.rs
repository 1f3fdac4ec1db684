//! Trigger packets (Trigger, clone_snapshot_trigger) as trace_processor's
//! MetadataModule::ParseTrigger records them: an instant slice named after
//! the trigger on the global "Trace Triggers" track (type `triggers`), with
//! the producer's name and uid as args. (The trace_trigger metadata is set
//! from the same packets at import, in timestamp order: lib.rs.)

use crate::events::Trigger;
use crate::trackers::core::tracks::{ArgVal, Owner};
use crate::trackers::Ctx;

pub fn slice(c: &mut Ctx, ts: i64, t: &Trigger) {
    let track = c.tracks.intern(
        &mut c.args,
        "triggers",
        Some("Trace Triggers"),
        "slice",
        Vec::new(),
        Owner::default(),
        0,
    );
    if let Some((hash, name)) = &t.chrome {
        let args = c.args.add_set(&[
            ("chrome_trigger.name_hash", Some(ArgVal::Uint(*hash as u64))),
            ("chrome_trigger.name", name.clone().map(ArgVal::Str)),
        ]);
        c.slices.begin(track, ts, t.name.clone(), 0, Some(args));
        return;
    }
    let producer = (!t.producer.is_empty()).then(|| ArgVal::Str(t.producer.clone()));
    let uid = t.producer_uid.map(|u| ArgVal::Int(u as i128));
    let args = (producer.is_some() || uid.is_some()).then(|| {
        c.args
            .add_set(&[("producer_name", producer), ("trusted_producer_uid", uid)])
    });
    c.slices.begin(track, ts, t.name.clone(), 0, args);
}
