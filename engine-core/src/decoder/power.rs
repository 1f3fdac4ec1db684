//! Power packets on the wire: BatteryCounters (TracePacket field 38),
//! PowerRails (40), AndroidEnergyEstimationBreakdown (77),
//! EntityStateResidency (91) and CpuPerUidData (119). Descriptors go to
//! `Sink::power` (applied before the replay, as trace_processor's tokenizer
//! reads them); data goes to the replay as `PacketData::Power` events.
//! `parts` are the packet's occurrences of the field (merged: repeated
//! fields concatenate, the last scalar wins).

use super::cpu_per_uid::Tokenizer;
use super::sink::Sink;
use super::wire::{push_varints, text, Fields, Value, WireError};
use crate::events::power::{
    AppWakelock, Battery, EnergyBreakdown, EnergyConsumer, EntityState, PowerEvent, RailDescriptor,
    Residency,
};
use crate::events::PacketData;

type R<T> = Result<T, WireError>;

fn push(sink: &mut Sink, ts: i64, e: PowerEvent) {
    sink.push_packet(ts, PacketData::Power(Box::new(e)));
}

pub fn battery(sink: &mut Sink, ts: i64, parts: &[&[u8]]) -> R<()> {
    let mut b = Battery::default();
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Varint(x)) => b.charge_counter_uah = Some(x as i64),
                (2, Value::Fixed32(x)) => b.capacity_percent = Some(f32::from_bits(x)),
                (3, Value::Varint(x)) => b.current_ua = Some(x as i64),
                (4, Value::Varint(x)) => b.current_avg_ua = Some(x as i64),
                (5, Value::Bytes(s)) => b.name = Some(text(s)),
                (6, Value::Varint(x)) => b.energy_counter_uwh = Some(x as i64),
                (7, Value::Varint(x)) => b.voltage_uv = Some(x as i64),
                _ => {}
            }
        }
    }
    push(sink, ts, PowerEvent::Battery(b));
    Ok(())
}

/// PowerRails: descriptors, then one event per EnergyData at its own
/// timestamp (`timestamp_ms`, BOOTTIME, else the packet's), as the
/// reference's tokenizer forges a packet per sample. `boottime`: a BOOTTIME
/// time of the packet's machine on the trace's clock.
pub fn power_rails(
    sink: &mut Sink,
    ts: i64,
    parts: &[&[u8]],
    mut boottime: impl FnMut(i64) -> i64,
) -> R<()> {
    let mut session_uuid = 0u64;
    let mut descriptors = Vec::new();
    let mut samples = Vec::new();
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Bytes(b)) => {
                    let mut d = RailDescriptor {
                        machine: 0,
                        session_uuid: 0,
                        index: 0,
                        rail_name: None,
                        subsys_name: None,
                    };
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Varint(x)) => d.index = x as u32,
                            (2, Value::Bytes(s)) => d.rail_name = Some(text(s)),
                            (3, Value::Bytes(s)) => d.subsys_name = Some(text(s)),
                            _ => {}
                        }
                    }
                    descriptors.push(d);
                }
                (2, Value::Bytes(b)) => {
                    let (mut index, mut ts_ms, mut energy) = (0u32, None, 0u64);
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Varint(x)) => index = x as u32,
                            (2, Value::Varint(x)) => ts_ms = Some(x),
                            (3, Value::Varint(x)) => energy = x,
                            _ => {}
                        }
                    }
                    if ts_ms.is_some() {
                        // a BOOTTIME sample time, converted when tokenized
                        sink.clock_converted();
                    }
                    samples.push((index, ts_ms, energy));
                }
                (3, Value::Varint(x)) => session_uuid = x,
                _ => {}
            }
        }
    }
    for mut d in descriptors {
        d.session_uuid = session_uuid;
        d.machine = sink.packet_machine;
        sink.power.rails.push(d);
    }
    if samples.is_empty() {
        sink.stats.add("power_rail_empty_packet", 1, None);
        return Ok(());
    }
    for (index, ts_ms, energy) in samples {
        let at = match ts_ms {
            Some(ms) => boottime((ms as i64).wrapping_mul(1_000_000)),
            None => ts,
        };
        let e = PowerEvent::RailEnergy {
            session_uuid,
            index,
            energy,
            packet_ts: ts,
        };
        push(sink, at, e);
    }
    Ok(())
}

/// PowerRails' sample times (`timestamp_ms`, in ns of BOOTTIME), for a
/// caller that converts them before `power_rails` reads them.
pub fn sample_times(parts: &[&[u8]]) -> R<Vec<i64>> {
    let mut times = Vec::new();
    for p in parts {
        for f in Fields::new(p) {
            if let (2, Value::Bytes(b)) = f? {
                for g in Fields::new(b) {
                    if let (2, Value::Varint(ms)) = g? {
                        times.push((ms as i64).wrapping_mul(1_000_000));
                    }
                }
            }
        }
    }
    Ok(times)
}

/// AndroidEnergyEstimationBreakdown: a packet with a consumer descriptor is
/// a descriptor only (consumers without an id are counted invalid).
pub fn energy_breakdown(sink: &mut Sink, ts: i64, parts: &[&[u8]]) -> R<()> {
    let mut b = EnergyBreakdown::default();
    let mut descriptor: Option<Vec<u8>> = None;
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Bytes(d)) => {
                    descriptor.get_or_insert_with(Vec::new).extend_from_slice(d)
                }
                (2, Value::Varint(x)) => b.consumer_id = Some(x as i32),
                (3, Value::Varint(x)) => b.energy_uws = Some(x as i64),
                (4, Value::Bytes(u)) => {
                    let (mut uid, mut energy) = (None, None);
                    for g in Fields::new(u) {
                        match g? {
                            (1, Value::Varint(x)) => uid = Some(x as i32),
                            (2, Value::Varint(x)) => energy = Some(x as i64),
                            _ => {}
                        }
                    }
                    b.per_uid.push((uid, energy));
                }
                _ => {}
            }
        }
    }
    let Some(d) = descriptor else {
        push(sink, ts, PowerEvent::EnergyBreakdown(b));
        return Ok(());
    };
    for f in Fields::new(&d) {
        let (1, Value::Bytes(c)) = f? else { continue };
        let (mut id, mut name, mut type_, mut ordinal) = (None, None, None, 0);
        for g in Fields::new(c) {
            match g? {
                (1, Value::Varint(x)) => id = Some(x as i32),
                (2, Value::Varint(x)) => ordinal = x as i32,
                (3, Value::Bytes(s)) => type_ = Some(text(s)),
                (4, Value::Bytes(s)) => name = Some(text(s)),
                _ => {}
            }
        }
        match id {
            Some(id) => sink.power.consumers.push(EnergyConsumer {
                id,
                name,
                type_,
                ordinal,
            }),
            None => sink.stats.add("energy_descriptor_invalid", 1, None),
        }
    }
    Ok(())
}

/// EntityStateResidency: its state descriptors (each needs both indexes),
/// and its residency entries as data.
pub fn entity_state_residency(sink: &mut Sink, ts: i64, parts: &[&[u8]]) -> R<()> {
    let mut residency: Option<Vec<Residency>> = None;
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Bytes(b)) => {
                    let (mut entity, mut state, mut entity_name, mut state_name) =
                        (None, None, None, None);
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Varint(x)) => entity = Some(x as i32),
                            (2, Value::Varint(x)) => state = Some(x as i32),
                            (3, Value::Bytes(s)) => entity_name = Some(text(s)),
                            (4, Value::Bytes(s)) => state_name = Some(text(s)),
                            _ => {}
                        }
                    }
                    match (entity, state) {
                        (Some(entity_index), Some(state_index)) => {
                            sink.power.entity_states.push(EntityState {
                                entity_index,
                                state_index,
                                entity_name,
                                state_name,
                            })
                        }
                        _ => sink.stats.add("energy_descriptor_invalid", 1, None),
                    }
                }
                (2, Value::Bytes(b)) => {
                    let mut r = Residency {
                        entity_index: 0,
                        state_index: 0,
                        total_time_in_state_ms: 0,
                    };
                    for g in Fields::new(b) {
                        match g? {
                            (1, Value::Varint(x)) => r.entity_index = x as i32,
                            (2, Value::Varint(x)) => r.state_index = x as i32,
                            (3, Value::Varint(x)) => r.total_time_in_state_ms = x,
                            _ => {}
                        }
                    }
                    residency.get_or_insert_with(Vec::new).push(r);
                }
                _ => {}
            }
        }
    }
    push(sink, ts, PowerEvent::EntityResidency(residency));
    Ok(())
}

/// CpuPerUidData: the counters the tokenizer derives, each at its timestamp.
pub fn cpu_per_uid(
    sink: &mut Sink,
    tokenizer: &mut Tokenizer,
    seq: u32,
    ts: i64,
    parts: &[&[u8]],
) -> R<()> {
    let (mut cluster_count, mut uids, mut times) = (None, Vec::new(), Vec::new());
    for p in parts {
        for f in Fields::new(p) {
            match f? {
                (1, Value::Varint(x)) => cluster_count = Some(x as u32),
                (2, v) => push_varints(v, &mut uids)?,
                (3, v) => push_varints(v, &mut times)?,
                _ => {}
            }
        }
    }
    let uids: Vec<u32> = uids.into_iter().map(|u| u as u32).collect();
    let mut out = Vec::new();
    tokenizer.packet(seq, ts, cluster_count, &uids, &times, &mut out);
    for (at, track, value) in out {
        push(sink, at, PowerEvent::CpuPerUid(track, value));
    }
    Ok(())
}

impl AppWakelock {
    /// An AppWakelockInfo message (iid 1, tag 2, flags 3, owner_pid 4,
    /// owner_uid 5, work_uid 6; int32s).
    pub fn parse(b: &[u8], acquired: bool) -> R<AppWakelock> {
        let mut w = AppWakelock {
            acquired,
            ..Default::default()
        };
        for f in Fields::new(b) {
            match f? {
                (2, Value::Bytes(s)) => w.tag = text(s),
                (3, Value::Varint(x)) => w.flags = x as i32,
                (4, Value::Varint(x)) => w.owner_pid = Some(x as i32),
                (5, Value::Varint(x)) => w.owner_uid = Some(x as i32),
                (6, Value::Varint(x)) => w.work_uid = Some(x as i32),
                _ => {}
            }
        }
        Ok(w)
    }
}
