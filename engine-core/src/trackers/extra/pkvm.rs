//! pKVM hypervisor events (trace_processor's PkvmHypervisorCpuTracker): a
//! `hyp` slice (category `pkvm_hyp`) per stay in the hypervisor on the cpu's
//! "pkVM Hypervisor CPU <cpu>" track (sic), from hyp_enter to hyp_exit; the events
//! in between give it their reason (`hyp_enter_reason`) and fields as args.
//! Each event makes the track, a slice open or not.

use crate::events::FtraceEv;
use crate::trackers::core::slices::PendingSliceArgs;
use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

const CATEGORY: &str = "pkvm_hyp";
const SLICE: &str = "hyp";

/// How a field becomes an arg (Variadic::UnsignedInteger, Integer, Boolean).
#[derive(Clone, Copy)]
enum Kind {
    Uint,
    Int,
    Bool,
}

/// The args an event gives the open `hyp` slice: its reason, then (key,
/// kind) per field, as ParseHostHcall & co. add them.
fn reason_args(name: &str) -> Option<(&'static str, &'static [(&'static str, Kind)])> {
    use Kind::*;
    Some(match name {
        "host_hcall" | "hypervisor_host_hcall" => {
            ("host_hcall", &[("id", Uint), ("invalid", Uint)])
        }
        "host_smc" | "hypervisor_host_smc" => ("host_smc", &[("id", Uint), ("forwarded", Uint)]),
        "host_mem_abort" | "hypervisor_host_mem_abort" => {
            ("host_mem_abort", &[("esr", Uint), ("addr", Uint)])
        }
        "host_ffa_call" => (
            "host_ffa_call",
            &[("func_id", Uint), ("handled", Int), ("err", Int)],
        ),
        "iommu_idmap" | "hypervisor_iommu_idmap" => (
            "iommu_idmap",
            &[("from", Uint), ("to", Uint), ("prot", Int)],
        ),
        "psci_mem_protect" | "hypervisor_psci_mem_protect" => {
            ("psci_mem_protect", &[("count", Uint), ("was", Uint)])
        }
        "hypervisor_iommu_idmap_complete" => ("iommu_idmap_complete", &[("map", Bool)]),
        "hypervisor_vcpu_illegal_trap" => ("vcpu_illegal_trap", &[("esr", Uint)]),
        _ => return None,
    })
}

/// Whether `name` is one of the hypervisor events.
pub fn is_event(name: &str) -> bool {
    matches!(
        name,
        "hyp_enter" | "hypervisor_hyp_enter" | "hyp_exit" | "hypervisor_hyp_exit"
    ) || reason_args(name).is_some()
}

#[derive(Default)]
pub struct PkvmTracker {
    slice_args: PendingSliceArgs,
}

impl PkvmTracker {
    pub fn event(&mut self, c: &mut Ctx, e: &FtraceEv) {
        let cpu = e.cpu;
        let track = c.cpu_slice_track(
            "pkvm_hypervisor",
            &format!("pkVM Hypervisor CPU {cpu}"),
            cpu,
        );
        match e.name {
            "hyp_enter" | "hypervisor_hyp_enter" => {
                c.slices
                    .begin_in(CATEGORY, track, e.ts, SLICE.to_owned(), -1, None);
            }
            "hyp_exit" | "hypervisor_hyp_exit" => {
                c.slices.end(track, e.ts);
            }
            name => {
                let Some((reason, fields)) = reason_args(name) else {
                    return;
                };
                let Some(row) = c.slices.open_matching(track, CATEGORY, SLICE) else {
                    return;
                };
                let mut items = vec![("hyp_enter_reason", ArgVal::Str(reason.to_owned()))];
                for &(key, kind) in fields {
                    let v = e.int(key).unwrap_or(0);
                    items.push((
                        key,
                        match kind {
                            Kind::Uint => ArgVal::Uint(v as u64),
                            Kind::Int => ArgVal::Int(v),
                            Kind::Bool => ArgVal::Bool(v != 0),
                        },
                    ));
                }
                self.slice_args.add(row, items);
            }
        }
    }

    /// The slices' arg sets, made once every arg is known.
    pub fn finish(self, c: &mut Ctx) {
        self.slice_args.commit(c);
    }
}
