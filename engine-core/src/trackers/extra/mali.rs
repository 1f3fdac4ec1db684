//! Mali GPU driver events (trace_processor's MaliGpuEventTracker):
//!
//! - the MCU's power state machine, `mali_mali_PM_MCU_<STATE>`: one slice
//!   per state (named `<STATE>`) on the global `mali_mcu_state` track, each
//!   ended by the next;
//! - CSF interrupts, `mali_mali_CSF_INTERRUPT_START` / `_END`: a
//!   `mali_CSF_INTERRUPT` slice on the CPU's `Mali Irq Cpu N` track
//!   (`cpu_mali_irq`), with its `info_val` at the start and again at the
//!   end.

use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Owner};
use crate::trackers::Ctx;

const MCU_STATE_PREFIX: &str = "mali_mali_PM_MCU_";
const CSF_INTERRUPT: &str = "mali_CSF_INTERRUPT";

#[derive(Default)]
pub struct MaliTracker {
    /// the MCU state whose slice is open
    mcu_state: Option<String>,
}

/// Whether `name` is one of the events above.
pub fn takes(name: &str) -> bool {
    name.starts_with(MCU_STATE_PREFIX)
        || matches!(
            name,
            "mali_mali_CSF_INTERRUPT_START" | "mali_mali_CSF_INTERRUPT_END"
        )
}

impl MaliTracker {
    /// Imports `e`, one of the events `takes`.
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        if let Some(state) = e.name.strip_prefix(MCU_STATE_PREFIX) {
            self.mcu_state(c, e.ts, state);
            return;
        }
        let start = e.name == "mali_mali_CSF_INTERRUPT_START";
        let track = c.cpu_slice_track("cpu_mali_irq", &format!("Mali Irq Cpu {}", e.cpu), e.cpu);
        let info = [(
            "info_val",
            Some(ArgVal::Uint(e.int("info_val").unwrap_or(0) as u64)),
        )];
        if start {
            let set = c.args.add_set_unique(&info);
            c.slices
                .begin(track, e.ts, CSF_INTERRUPT.into(), -1, Some(set));
        } else {
            let row = c
                .slices
                .end_matching(track, e.ts, None, Some(CSF_INTERRUPT));
            crate::trackers::core::kernel_slices::add_end_args(c, row, &info);
        }
    }

    fn mcu_state(&mut self, c: &mut Ctx, ts: i64, state: &str) {
        let track = c.tracks.intern(
            &mut c.args,
            "mali_mcu_state",
            None,
            "slice",
            vec![],
            Owner::default(),
            0,
        );
        if let Some(open) = &self.mcu_state {
            c.slices.end_matching(track, ts, None, Some(open));
        }
        c.slices.begin(track, ts, state.to_owned(), -1, None);
        self.mcu_state = Some(state.to_owned());
    }
}
