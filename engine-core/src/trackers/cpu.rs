//! The `cpu` table's args from CpuInfo, as trace_processor's
//! SystemProbesParser::ParseCpuInfo records them: the ARM identifier
//! (`arm_cpu_implementer`, `_architecture`, `_variant`, `_part`,
//! `_revision`, unsigned), one `cpu_features.<name>` = true per known
//! feature bit, and the whole bitmap as `cpu_features.raw_bitmap`.

use super::tracks::{ArgVal, Args};
use crate::events::CpuInfo;

/// perfetto's CpuInfo feature allowlist (base/cpu_info_features_allowlist.h):
/// bit i of `CpuInfo.Cpu.features` is feature i. Append-only upstream.
pub const CPU_FEATURES: [&str; 2] = ["mte", "mte3"];

const ARM_KEYS: [&str; 5] = [
    "arm_cpu_implementer",
    "arm_cpu_architecture",
    "arm_cpu_variant",
    "arm_cpu_part",
    "arm_cpu_revision",
];

/// Each CpuInfo cpu's arg set (None: no args).
pub fn arg_sets(args: &mut Args, info: &[CpuInfo]) -> Vec<Option<i64>> {
    info.iter()
        .map(|c| {
            let mut items: Vec<(String, Option<ArgVal>)> = Vec::new();
            if let Some(ids) = c.arm_identifier {
                for (k, v) in ARM_KEYS.iter().zip(ids) {
                    items.push((k.to_string(), Some(ArgVal::Uint(v as u64))));
                }
            }
            for (i, name) in CPU_FEATURES.iter().enumerate() {
                if c.features & (1 << i) != 0 {
                    items.push((format!("cpu_features.{name}"), Some(ArgVal::Bool(true))));
                }
            }
            if c.features != 0 {
                items.push((
                    "cpu_features.raw_bitmap".into(),
                    Some(ArgVal::Uint(c.features)),
                ));
            }
            (!items.is_empty()).then(|| args.add_set(&items))
        })
        .collect()
}
