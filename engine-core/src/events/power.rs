//! Power packets' payloads (battery counters, power rails, energy
//! estimation breakdown, entity state residency, cpu per uid, app
//! wakelocks), as the decoder reads them (`decoder::power`) and
//! `trackers::extra::power` imports them.

/// PowerRails.RailDescriptor
#[derive(Debug, Clone)]
pub struct RailDescriptor {
    /// the machine whose packet described it (`crate::machines`)
    pub machine: u16,
    pub session_uuid: u64,
    pub index: u32,
    pub rail_name: Option<String>,
    pub subsys_name: Option<String>,
}

/// AndroidEnergyConsumer (one with an energy_consumer_id)
#[derive(Debug, Clone)]
pub struct EnergyConsumer {
    pub id: i32,
    pub name: Option<String>,
    pub type_: Option<String>,
    pub ordinal: i32,
}

/// EntityStateResidency.PowerEntityState (one with both indexes)
#[derive(Debug, Clone)]
pub struct EntityState {
    pub entity_index: i32,
    pub state_index: i32,
    pub entity_name: Option<String>,
    pub state_name: Option<String>,
}

/// The descriptors of a trace, in file order.
#[derive(Debug, Default)]
pub struct Descriptors {
    pub rails: Vec<RailDescriptor>,
    pub consumers: Vec<EnergyConsumer>,
    pub entity_states: Vec<EntityState>,
}

/// BatteryCounters: each field present or not.
#[derive(Debug, Clone, Default)]
pub struct Battery {
    pub charge_counter_uah: Option<i64>,
    pub capacity_percent: Option<f32>,
    pub current_ua: Option<i64>,
    pub current_avg_ua: Option<i64>,
    pub name: Option<String>,
    pub energy_counter_uwh: Option<i64>,
    pub voltage_uv: Option<i64>,
}

/// AndroidEnergyEstimationBreakdown (a data packet, not a descriptor).
#[derive(Debug, Clone, Default)]
pub struct EnergyBreakdown {
    pub consumer_id: Option<i32>,
    pub energy_uws: Option<i64>,
    /// per_uid_breakdown: (uid, energy_uws)
    pub per_uid: Vec<(Option<i32>, Option<i64>)>,
}

/// EntityStateResidency.StateResidency
#[derive(Debug, Clone)]
pub struct Residency {
    pub entity_index: i32,
    pub state_index: i32,
    pub total_time_in_state_ms: u64,
}

/// A power packet's data, replayed at its timestamp.
#[derive(Debug, Clone)]
pub enum PowerEvent {
    Battery(Battery),
    /// One PowerRails.EnergyData, at its own timestamp; `packet_ts` is its
    /// packet's (the counter's `packet_ts` arg).
    RailEnergy {
        session_uuid: u64,
        index: u32,
        energy: u64,
        packet_ts: i64,
    },
    EnergyBreakdown(EnergyBreakdown),
    /// EntityStateResidency's residency entries; None when it has none.
    EntityResidency(Option<Vec<Residency>>),
    /// A counter of CpuPerUidData, computed when the file was tokenized.
    CpuPerUid(UidTrack, f64),
}

/// An app wakelock event (AppWakelockBundle: its interned AppWakelockInfo
/// and whether it was acquired).
#[derive(Debug, Clone, Default)]
pub struct AppWakelock {
    pub tag: String,
    pub flags: i32,
    pub owner_pid: Option<i32>,
    pub owner_uid: Option<i32>,
    pub work_uid: Option<i32>,
    pub acquired: bool,
}

/// The track a counter goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UidTrack {
    /// `android_cpu_per_uid`: one uid's time on one cluster
    Uid { uid: u32, cluster: u32 },
    /// `android_cpu_per_uid_totals`: the System (app id < 10000) or Apps
    /// total on one cluster
    Totals { apps: bool, cluster: u32 },
}
