//! The `cpu` table's args from CpuInfo, as trace_processor's
//! SystemProbesParser::ParseCpuInfo records them: the ARM identifier
//! (`arm_cpu_implementer`, `_architecture`, `_variant`, `_part`,
//! `_revision`, unsigned), one `cpu_features.<name>` = true per known
//! feature bit, and the whole bitmap as `cpu_features.raw_bitmap`.

use crate::events::{CpuInfo, CPU_FEATURES};
use crate::trackers::core::tracks::{ArgVal, Args};

const ARM_KEYS: [&str; 5] = [
    "arm_cpu_implementer",
    "arm_cpu_architecture",
    "arm_cpu_variant",
    "arm_cpu_part",
    "arm_cpu_revision",
];

/// A cpu's CpuInfo columns in the `cpu` table.
#[derive(Debug, Clone, Default)]
pub struct CpuInfoRow {
    pub processor: Option<String>,
    pub cluster_id: i64,
    pub capacity: Option<i64>,
    pub arg_set: Option<i64>,
}

/// The `cpu` table's CpuInfo columns and `cpu_available_frequencies`'
/// rows after every CpuInfo packet in order, as ParseCpuInfo applies each
/// (SetCpuInfo): a non-empty processor and a capacity replace the row's,
/// the packet's cluster id always does, its frequencies are added, and an
/// arg set replaces the row's when the cpu has args.
#[derive(Debug, Default)]
pub struct CpuInfoTables {
    /// by cpu
    pub rows: Vec<CpuInfoRow>,
    /// (cpu, frequency) in insertion order
    pub frequencies: Vec<(i64, i64)>,
}

impl CpuInfoTables {
    pub fn apply(args: &mut Args, packets: &[Vec<CpuInfo>]) -> Self {
        let mut t = CpuInfoTables::default();
        for cpus in packets {
            if t.rows.len() < cpus.len() {
                t.rows.resize(cpus.len(), CpuInfoRow::default());
            }
            for ((cpu, c), cluster_id) in cpus.iter().enumerate().zip(cluster_ids(cpus)) {
                let row = &mut t.rows[cpu];
                if let Some(p) = c.processor.as_deref().filter(|p| !p.is_empty()) {
                    row.processor = Some(p.to_owned());
                }
                row.cluster_id = cluster_id;
                if c.capacity.is_some() {
                    row.capacity = c.capacity;
                }
                t.frequencies
                    .extend(c.frequencies.iter().map(|&f| (cpu as i64, f)));
                if let Some(set) = arg_set(args, c) {
                    row.arg_set = Some(set);
                }
            }
        }
        t
    }
}

/// One packet's cluster ids, by cpu: the rank of its capacity when every
/// cpu has one, else of its highest frequency when every cpu has some,
/// else 0.
fn cluster_ids(cpus: &[CpuInfo]) -> Vec<i64> {
    let keys: Option<Vec<i64>> = cpus.iter().map(|c| c.capacity).collect();
    let keys = keys.or_else(|| {
        cpus.iter()
            .map(|c| c.frequencies.iter().max().copied())
            .collect()
    });
    let Some(keys) = keys else {
        return vec![0; cpus.len()];
    };
    let mut ranks = keys.clone();
    ranks.sort_unstable();
    ranks.dedup();
    keys.iter()
        .map(|k| ranks.binary_search(k).unwrap_or(0) as i64)
        .collect()
}

/// A CpuInfo cpu's arg set (None: no args).
fn arg_set(args: &mut Args, c: &CpuInfo) -> Option<i64> {
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
}
