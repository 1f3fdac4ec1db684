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
//!   sight.
//!
//! A remote machine's packets are imported as trace_processor's per-machine
//! trackers import them: its SystemInfo (its row and its metadata), its
//! RemoteClockSync (its clocks' offsets to the host's), its ftrace events
//! (on its cpus, ucpu = machine * 4096 + cpu), process trees and stats,
//! SysStats and PowerRails. Its pids and tids are its own (the process
//! tracker keys them per machine), as are its tracks, stats and event
//! trackers' state (`replay::MachineSwitch`); its idle process and swapper
//! thread are made when the replay starts. Its other packets (track events,
//! profiles, ...) need sequence state per machine: counted as skipped
//! (`artscope_skipped_remote_machine_packets`).

use std::collections::HashMap;

/// The host's machine_id (an adopted machine is the host).
pub const HOST_MACHINE_ID: i64 = 0;

/// CPUs per machine in `ucpu` (trace_processor's CpuTracker
/// kMaxCpusPerMachine): a machine's cpu `c` is ucpu `machine * 4096 + c`.
pub const MAX_CPUS_PER_MACHINE: i64 = 4096;

/// The machine's own cpu number of `ucpu` (what an event's args name).
pub fn machine_cpu(ucpu: i64) -> i64 {
    ucpu % MAX_CPUS_PER_MACHINE
}

/// BUILTIN_CLOCK_BOOTTIME, the clock a remote machine's timestamps are in
/// unless a packet names another.
pub const BOOTTIME: u32 = 6;

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
    /// (machine, builtin clock) -> the offsets its RemoteClockSyncs measured:
    /// (client time at the sync, client - host), in file order
    clock_offsets: HashMap<(usize, u32), Vec<(i64, i64)>>,
    /// the machines whose BOOTTIME was bridged (`bridge_boottime`)
    bridged: std::collections::HashSet<usize>,
}

impl Default for Machines {
    fn default() -> Self {
        Machines {
            rows: vec![MachineRow::default()],
            host_has_data: false,
            adopted: None,
            clock_offsets: HashMap::new(),
            bridged: Default::default(),
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

    /// A RemoteClockSync of `machine`: its rounds of (clock id -> (host
    /// time, client time)), 0 for a side that did not read the clock.
    /// Offsets as trace_processor's CalculateClockOffsets: two adjacent
    /// rounds less than 30 s apart (by the client's BOOTTIME) make two
    /// round trips, client-initiated (t1c + t2c) / 2 - t1h and
    /// host-initiated t2c - (t1h + t2h) / 2; a clock's offset is the mean
    /// (integer division) of all of them. Each offset is anchored at the
    /// host's last reading of the clock, as the reference's qualified
    /// snapshot.
    /// Returns, per offset, (clock, host anchor, client anchor): the
    /// snapshot relating the two machines' clock.
    pub fn remote_clock_sync(
        &mut self,
        machine: usize,
        rounds: &[HashMap<u32, (u64, u64)>],
    ) -> Vec<(u32, i64, i64)> {
        const INTERVAL_NS: u64 = 30_000_000_000;
        let read = |r: &HashMap<u32, (u64, u64)>, c: u32| r.get(&c).copied().unwrap_or((0, 0));
        let mut raw: std::collections::BTreeMap<u32, Vec<i64>> = Default::default();
        for pair in rounds.windows(2) {
            let (ping, update) = (&pair[0], &pair[1]);
            let (ping_client, update_client) = (read(ping, BOOTTIME).1, read(update, BOOTTIME).1);
            // (unsigned, as the reference: a client time going back is a
            // new round too)
            if update_client.wrapping_sub(ping_client) >= INTERVAL_NS {
                continue;
            }
            // (the reference reads BOOTTIME into the ping round's map)
            let mut clocks: Vec<u32> = ping.keys().copied().collect();
            if !clocks.contains(&BOOTTIME) {
                clocks.push(BOOTTIME);
            }
            for clock in clocks {
                let ((t1h, t1c), (t2h, t2c)) = (read(ping, clock), read(update, clock));
                if t1h == 0 || t1c == 0 || t2h == 0 || t2c == 0 {
                    continue;
                }
                let offset1 = (t1c.wrapping_add(t2c) as i64) / 2 - t1h as i64;
                let offset2 = t2c as i64 - (t1h.wrapping_add(t2h) as i64) / 2;
                raw.entry(clock).or_default().extend([offset1, offset2]);
            }
        }
        let mut snapshots = Vec::new();
        for (clock, offsets) in raw {
            let offset = offsets.iter().sum::<i64>() / offsets.len() as i64;
            let host_anchor = rounds
                .iter()
                .rev()
                .find_map(|r| r.get(&clock).map(|x| x.0 as i64).filter(|&h| h != 0))
                .unwrap_or(0);
            let edges = self.clock_offsets.entry((machine, clock)).or_default();
            let anchor = host_anchor + offset;
            let at = edges.partition_point(|&(a, _)| a <= anchor);
            edges.insert(at, (anchor, offset));
            snapshots.push((clock, host_anchor, anchor));
        }
        snapshots
    }

    /// Whether `machine`'s BOOTTIME is to be bridged to the trace's time
    /// now (the reference's FlushDeferredClockSync, when no path relates
    /// them): true once per machine.
    pub fn bridge_boottime(&mut self, machine: usize) -> bool {
        self.bridged.insert(machine)
    }

    /// A time `ts` of `machine`'s clock `clock` in the host's same clock,
    /// through the offset of the machine's latest sync at or before it (its
    /// first after it, before any). None: no sync related the clock.
    pub fn to_host_clock(&self, machine: usize, clock: u32, ts: i64) -> Option<i64> {
        let edges = self.clock_offsets.get(&(machine, clock))?;
        let at = edges.partition_point(|&(anchor, _)| anchor <= ts);
        let (_, offset) = edges[at.saturating_sub(1)];
        Some(ts - offset)
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
