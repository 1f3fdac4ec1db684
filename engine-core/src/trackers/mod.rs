//! One module per tracker, as trace_processor's importers are split. Each
//! works on the shared [`Ctx`] (identity, tracks/args, stats) plus its own
//! rows.

pub mod atrace;
pub mod binder;
pub mod counters;
pub mod drm;
pub mod frame_timeline;
pub mod process;
pub mod raw;
pub mod sched;
pub mod slices;
pub mod tracks;

use crate::events::Stats;
use process::ProcessTracker;
use tracks::{Args, Tracks};

/// State every tracker shares.
pub struct Ctx {
    pub pt: ProcessTracker,
    pub args: Args,
    pub tracks: Tracks,
    pub stats: Stats,
    pub slices: slices::SliceTracker,
    pub counters: counters::Counters,
    pub thread_state: sched::ThreadStateTracker,
    pub states: sched::EndStates,
    /// utsname.machine, lowercased (syscall numbering)
    pub machine: String,
}
