//! The `machine` table and the routing of packets to machines, as
//! trace_processor's ProtoTraceReader dispatches them (v58.2:
//! importers/proto/proto_trace_reader.cc ParsePacket / ResolveAdoptedMachine;
//! importers/common/machine_tracker.cc for the row).
//!
//! Row 0 is the host (raw_id 0) and always exists. A packet's
//! `TracePacket.machine_id` (field 98) names the machine that recorded it:
//! - 0 (absent): the host. The host then "has data" unless the packet is a
//!   synchronization marker.
//! - the first non-zero id seen while the host has no data is *adopted*: row 0
//!   takes it as its raw_id and its packets are the host's (a trace recorded
//!   wholly on one remote machine is a one-machine trace).
//! - any other id is a remote machine: a row of its own, in order of first
//!   sight. The embedded engine does not import remote machines' data (it
//!   would need a process, cpu, clock and track identity per machine); their
//!   SystemInfo fills their row, and their other packets are counted as
//!   skipped (`artscope_skipped_remote_machine_packets`).

/// The machine_id of every imported row: the host's (an adopted machine is
/// the host).
pub const HOST_MACHINE_ID: i64 = 0;

/// One machine row (SystemInfo's fields, as MachineTracker records them;
/// None = NULL).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MachineRow {
    pub raw_id: i64,
    pub name: Option<String>,
    pub sysname: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub arch: Option<String>,
    pub num_cpus: Option<i64>,
    pub android_build_fingerprint: Option<String>,
    pub android_device_manufacturer: Option<String>,
    pub android_sdk_version: Option<i64>,
    pub system_ram_bytes: Option<i64>,
}

impl MachineRow {
    /// system_ram_gb: the bytes in (rounded) GB, MachineTracker::BytesToGB.
    pub fn system_ram_gb(&self) -> Option<i64> {
        self.system_ram_bytes
            .map(|b| (b as f64 / 1e9).round() as i64)
    }
}

#[derive(Debug, Clone)]
pub struct Machines {
    /// table id = index; row 0 is the host
    pub rows: Vec<MachineRow>,
    /// a host packet (other than a synchronization marker) was seen
    host_has_data: bool,
    /// the raw id adopted onto the host (0: none was), once the first
    /// packet with a machine_id decided it
    adopted: Option<u32>,
}

impl Default for Machines {
    fn default() -> Self {
        Machines {
            rows: vec![MachineRow::default()],
            host_has_data: false,
            adopted: None,
        }
    }
}

impl Machines {
    /// The machine (table id) a packet with `TracePacket.machine_id` =
    /// `raw_id` belongs to; `sync_marker`: the packet is a
    /// synchronization marker (which does not make the host's data).
    pub fn route(&mut self, raw_id: u32, sync_marker: bool) -> usize {
        if raw_id == 0 {
            if !sync_marker {
                self.host_has_data = true;
            }
            return 0;
        }
        let adopted = *self.adopted.get_or_insert_with(|| {
            if self.host_has_data {
                0
            } else {
                self.rows[0].raw_id = raw_id as i64;
                raw_id
            }
        });
        if raw_id == adopted {
            return 0;
        }
        match self.rows.iter().position(|r| r.raw_id == raw_id as i64) {
            // (a position 0 here would be an adopted id: handled above)
            Some(i) if i > 0 => i,
            _ => {
                self.rows.push(MachineRow {
                    raw_id: raw_id as i64,
                    ..Default::default()
                });
                self.rows.len() - 1
            }
        }
    }

    /// label_index: the machine's 1-based rank among the non-host machines
    /// (raw_id != 0) by id; 0 for the host (trace_processor's `machine` view).
    pub fn label_index(&self, id: usize) -> i64 {
        if self.rows[id].raw_id == 0 {
            return 0;
        }
        self.rows[..=id].iter().filter(|r| r.raw_id != 0).count() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_machine_id_before_host_data_is_adopted() {
        let mut m = Machines::default();
        assert_eq!(m.route(0, true), 0); // a sync marker: not host data
        assert_eq!(m.route(1001, false), 0);
        assert_eq!(m.rows[0].raw_id, 1001);
        assert_eq!(m.route(0, false), 0);
        assert_eq!(m.route(1001, false), 0);
        assert_eq!(m.route(7, false), 1);
        assert_eq!(m.rows.len(), 2);
        assert_eq!((m.label_index(0), m.label_index(1)), (1, 2));
    }

    #[test]
    fn machine_ids_after_host_data_are_remote() {
        let mut m = Machines::default();
        assert_eq!(m.route(0, false), 0);
        assert_eq!(m.route(1001, false), 1);
        assert_eq!(m.route(7, false), 2);
        assert_eq!(m.route(1001, false), 1);
        assert_eq!(m.rows[0].raw_id, 0);
        assert_eq!(
            (m.label_index(0), m.label_index(1), m.label_index(2)),
            (0, 1, 2)
        );
    }
}
