//! Power data as trace_processor imports it (importers/proto/
//! android_probes_parser.cc, android_probes_module.cc and the wakeup_source
//! ftrace events of ftrace_parser.cc): battery counters, power rails,
//! energy estimation breakdown (global and per uid), entity state residency,
//! wakelock and suspend / resume slices.
//!
//! The descriptors (rail, energy consumer, entity state) are read when the
//! file is tokenized, before any data is parsed: the decoder collects them in
//! file order into [`Descriptors`] and [`PowerTracker::apply`] applies them
//! before the replay, as trace_processor's tokenizer does before its sorted
//! parse.

use crate::machines::machine_cpu;
use rustc_hash::FxHashMap as HashMap;

use crate::events::power::{
    AppWakelock, Battery, Descriptors, EnergyBreakdown, EnergyConsumer, PowerEvent, Residency,
};
use crate::events::FtraceEv;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

struct EntityDesc {
    entity_name: Option<String>,
    state_name: Option<String>,
    overall_name: String,
}

#[derive(Default)]
pub struct PowerTracker {
    /// (machine, session_uuid, rail index) -> track (the last descriptor
    /// wins)
    rails: HashMap<(u16, u64, u32), u32>,
    /// energy_consumer_id -> consumer (the first descriptor wins)
    consumers: HashMap<i32, EnergyConsumer>,
    /// (entity index, state index) -> names (the first descriptor wins)
    entity_states: HashMap<(i32, i32), EntityDesc>,
    /// (machine, wakeup source name) -> activations not yet deactivated
    wakelocks: HashMap<(u16, String), u32>,
    /// `__intrinsic_android_cpu_per_uid_track`: (track, uid, cluster,
    /// total cpu ms), set when the replay ends
    pub uid_tracks: Vec<(u32, u32, u32, i64)>,
    /// each machine's suspends (by machine: trace_processor's track
    /// compressor and parser state are per machine)
    suspends: Vec<Suspends>,
    /// rpm_status: the devices' tracks with a state slice open
    rpm_open: rustc_hash::FxHashSet<u32>,
}

/// A machine's suspend_resume and device PM slices.
#[derive(Default)]
struct Suspends {
    /// their tracks (a track compressor: one lane per action in flight)
    lanes: Vec<Lane>,
    state: SuspendState,
    /// the open suspend_enter's slice name (its cookie)
    enter_cookie: String,
}

impl PowerTracker {
    /// The suspends of `machine`.
    fn suspends(&mut self, machine: u16) -> &mut Suspends {
        let m = machine as usize;
        if m >= self.suspends.len() {
            self.suspends.resize_with(m + 1, Default::default);
        }
        &mut self.suspends[m]
    }
}

/// A track compressor's lane: the cookie (slice name) it serves and how
/// many of its slices are open.
struct Lane {
    cookie: String,
    open: u32,
}

/// Where a suspend is (to close a suspend_enter left open by a failed
/// suspend_prepare(): thaw_processes ends inside freeze_processes).
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum SuspendState {
    #[default]
    Initial,
    Enter,
    Freeze,
}

fn opt_str(s: &Option<String>) -> ArgVal {
    match s {
        Some(s) => ArgVal::Str(s.clone()),
        None => ArgVal::NullStr,
    }
}

/// The short name trace_processor gives a well-known rail (its raw name's
/// suffix), shown as `power.rails.<name>`.
fn friendly_rail_name(raw: &str) -> Option<&'static str> {
    // checked in this order: the first suffix that matches wins
    const SUFFIXES: [(&[&str], &str); 29] = [
        (&["M_VDD_CPUCL0"], "cpu.little"),
        (&["M_VDD_CPUCL0_M"], "cpu.little.mem"),
        (&["M_VDD_CPUCL1"], "cpu.mid"),
        (&["M_VDD_CPUCL1_M"], "cpu.mid.mem"),
        (&["M_VDD_CPUCL2"], "cpu.big"),
        (&["M_VDD_INT"], "system.fabric"),
        (&["M_VDD_TPU"], "tpu"),
        (&["VSYS_PWR_DISP", "VSYS_PWR_DISPLAY"], "display"),
        (&["M_DISP"], "ldo.main.a.display"),
        (&["VSYS_PWR_MODEM"], "modem"),
        (&["M_VDD_MIF"], "memory.interface"),
        (&["VSYS_PWR_WLAN_BT"], "wifi.bt"),
        (&["VSYS_PWR_MMWAVE"], "mmwave"),
        (&["S_VDD_AOC_RET"], "aoc.memory"),
        (&["S_VDD_AOC"], "aoc.logic"),
        (&["S_VDDQ_MEM"], "ddr.a"),
        (&["S_VDD2L", "S_VDD2L_MEM"], "ddr.b"),
        (&["S_VDD2H_MEM"], "ddr.c"),
        (&["S_VDD_G3D"], "gpu"),
        (&["S_VDD_G3D_L2"], "gpu.l2"),
        (&["S_GNSS_CORE"], "gps"),
        (&["VSYS_PWR_RFFE"], "radio.frontend"),
        (&["VSYS_PWR_CAMERA"], "camera"),
        (&["S_VDD_CAM"], "multimedia"),
        (&["S_UDFPS"], "udfps"),
        (&["S_PLL_MIPI_UFS"], "ufs"),
        (&["M_LLDO1"], "ldo.main.a"),
        (&["M_LLDO2"], "ldo.main.b"),
        (&["S_LLDO1"], "ldo.sub"),
    ];
    SUFFIXES
        .iter()
        .find(|(ends, _)| ends.iter().any(|e| raw.ends_with(e)))
        .map(|&(_, name)| name)
}

impl PowerTracker {
    /// Applies the descriptors (AndroidProbesParser::ParseRailDescriptor's
    /// tracks are created here, before any data, as at tokenization).
    pub fn apply(c: &mut Ctx, d: &Descriptors) {
        for r in &d.rails {
            if r.index > 256 {
                continue; // an excessively large index: skipped
            }
            let raw = r.rail_name.as_deref().unwrap_or("");
            let name = match friendly_rail_name(raw) {
                Some(f) => format!("power.rails.{f}"),
                None => format!("power.{raw}_uws"),
            };
            // (the machine's track)
            c.tracks.machine = r.machine;
            let track = c.tracks.intern_with(
                &mut c.args,
                "power_rails",
                Some(&name),
                "counter",
                vec![
                    ("name", Dim::opt_str(r.rail_name.as_deref())),
                    // (a uint64 field in a 32-bit dimension, as the reference's)
                    ("session_uuid", Dim::Int(r.session_uuid as u32 as i64)),
                ],
                Owner::default(),
                None,
                || {
                    vec![
                        ("raw_name", Some(opt_str(&r.rail_name))),
                        ("subsystem_name", Some(opt_str(&r.subsys_name))),
                    ]
                },
            );
            c.tracks.machine = 0;
            c.power
                .rails
                .insert((r.machine, r.session_uuid, r.index), track);
        }
        for e in &d.consumers {
            c.power.consumers.entry(e.id).or_insert_with(|| e.clone());
        }
        for s in &d.entity_states {
            c.power
                .entity_states
                .entry((s.entity_index, s.state_index))
                .or_insert_with(|| EntityDesc {
                    entity_name: s.entity_name.clone(),
                    state_name: s.state_name.clone(),
                    overall_name: format!(
                        "Entity residency: {} is {}",
                        s.entity_name.as_deref().unwrap_or(""),
                        s.state_name.as_deref().unwrap_or("")
                    ),
                });
        }
    }
}

pub fn event(c: &mut Ctx, ts: i64, e: &PowerEvent) {
    match e {
        PowerEvent::Battery(b) => battery(c, ts, b),
        PowerEvent::RailEnergy {
            session_uuid,
            index,
            energy,
            packet_ts,
        } => rail_energy(c, ts, *session_uuid, *index, *energy, *packet_ts),
        PowerEvent::EnergyBreakdown(b) => energy_breakdown(c, ts, b),
        PowerEvent::EntityResidency(r) => entity_residency(c, ts, r.as_deref()),
        PowerEvent::CpuPerUid(track, value) => {
            crate::trackers::extra::cpu_per_uid::counter(c, ts, *track, *value)
        }
    }
}

/// AndroidProbesParser::ParseBatteryCounters: one `battery_counter` track
/// per (battery, counter); charge derived from energy / voltage and power
/// from current * voltage when not given (int64 arithmetic, as the reference).
fn battery(c: &mut Ctx, ts: i64, b: &Battery) {
    let push = |c: &mut Ctx, counter: &'static str, value: Option<f64>| {
        let name = match b.name.as_deref() {
            Some(n) if !n.is_empty() => format!("batt.{n}.{counter}"),
            _ => format!("batt.{counter}"),
        };
        let t = c.tracks.intern(
            &mut c.args,
            "battery_counter",
            Some(&name),
            "counter",
            vec![
                ("battery_name", Dim::opt_str(b.name.as_deref())),
                ("counter_name", Dim::Str(counter.into())),
            ],
            Owner::default(),
            0,
        );
        if let Some(v) = value {
            c.counters.push(ts, t, v, None);
        }
    };
    if let Some(charge) = b.charge_counter_uah {
        push(c, "charge_uah", Some(charge as f64));
    } else if let (Some(energy), Some(voltage)) = (b.energy_counter_uwh, b.voltage_uv) {
        // the track exists even when the voltage cannot divide
        let charge = (voltage > 0).then(|| (energy.wrapping_mul(1_000_000) / voltage) as f64);
        push(c, "charge_uah", charge);
    }
    if let Some(pct) = b.capacity_percent {
        push(c, "capacity_pct", Some(pct as f64));
    }
    if let Some(cur) = b.current_ua {
        push(c, "current_ua", Some(cur as f64));
    }
    if let Some(avg) = b.current_avg_ua {
        push(c, "current.avg_ua", Some(avg as f64));
    }
    if let Some(v) = b.voltage_uv {
        push(c, "voltage_uv", Some(v as f64));
    }
    if let (Some(cur), Some(v)) = (b.current_ua, b.voltage_uv) {
        // discharging current is negative; power is reported positive
        push(
            c,
            "power_mw",
            Some(((cur.wrapping_mul(v) / 1_000_000_000) as f64).abs()),
        );
    }
}

/// AndroidProbesParser::ParsePowerRails: a counter on the rail's track with
/// its packet's timestamp as the `packet_ts` arg.
fn rail_energy(c: &mut Ctx, ts: i64, session: u64, index: u32, energy: u64, packet_ts: i64) {
    let Some(&track) = c.power.rails.get(&(c.tracks.machine, session, index)) else {
        c.stats.add("power_rail_unknown_index", 1, None);
        return;
    };
    let set = c
        .args
        .add_set(&[("packet_ts", Some(ArgVal::Uint(packet_ts as u64)))]);
    c.counters.push(ts, track, energy as f64, Some(set));
}

/// AndroidProbesParser::ParseEnergyBreakdown: the consumer's total on an
/// `android_energy_estimation_breakdown` track, each uid's share on an
/// `..._per_uid` track, both named after the consumer.
fn energy_breakdown(c: &mut Ctx, ts: i64, b: &EnergyBreakdown) {
    let (Some(id), Some(total)) = (b.consumer_id, b.energy_uws) else {
        c.stats.add("energy_breakdown_missing_values", 1, None);
        return;
    };
    let Some(consumer) = c.power.consumers.get(&id).cloned() else {
        c.stats.add("energy_breakdown_missing_values", 1, None);
        return;
    };
    let t = c.tracks.intern_with(
        &mut c.args,
        "android_energy_estimation_breakdown",
        consumer.name.as_deref(),
        "counter",
        vec![("energy_consumer_id", Dim::Int(id as i64))],
        Owner::default(),
        None,
        || {
            vec![
                ("consumer_type", Some(opt_str(&consumer.type_))),
                ("ordinal", Some(ArgVal::Int(consumer.ordinal as i128))),
            ]
        },
    );
    c.counters.push(ts, t, total as f64, None);
    for &(uid, energy) in &b.per_uid {
        let (Some(uid), Some(energy)) = (uid, energy) else {
            c.stats.add("energy_uid_breakdown_missing_values", 1, None);
            continue;
        };
        let t = c.tracks.intern(
            &mut c.args,
            "android_energy_estimation_breakdown_per_uid",
            consumer.name.as_deref(),
            "counter",
            vec![
                ("energy_consumer_id", Dim::Int(id as i64)),
                ("uid", Dim::Int(uid as u32 as i64)),
            ],
            Owner::default(),
            0,
        );
        c.counters.push(ts, t, energy as f64, None);
    }
}

/// AndroidProbesParser::ParseEntityStateResidency: the time in each state
/// on an `entity_state` track per (entity, state). An entry without a
/// descriptor stops the packet (counted), as the reference.
fn entity_residency(c: &mut Ctx, ts: i64, r: Option<&[Residency]>) {
    let Some(entries) = r else {
        c.stats.add("entity_state_residency_invalid", 1, None);
        return;
    };
    for e in entries {
        let Some(d) = c.power.entity_states.get(&(e.entity_index, e.state_index)) else {
            c.stats.add("entity_state_residency_lookup_failed", 1, None);
            return;
        };
        let dims = vec![
            ("entity_name", Dim::opt_str(d.entity_name.as_deref())),
            ("state_name", Dim::opt_str(d.state_name.as_deref())),
        ];
        let name = d.overall_name.clone();
        let t = c.tracks.intern(
            &mut c.args,
            "entity_state",
            Some(&name),
            "counter",
            dims,
            Owner::default(),
            0,
        );
        c.counters
            .push(ts, t, e.total_time_in_state_ms as f64, None);
    }
}

/// `Wakelock(<name>)`, cut to 31 bytes as the reference's 32-byte buffer.
fn wakelock_name(name: &str) -> String {
    crate::trackers::stack_string(format!("Wakelock({name})"), 32)
}

fn wakelock_track(c: &mut Ctx, name: &str) -> u32 {
    c.tracks.intern(
        &mut c.args,
        "wakesource_wakelock",
        Some(&wakelock_name(name)),
        "slice",
        vec![("wakelock_event", Dim::Str(name.to_owned()))],
        Owner::default(),
        0,
    )
}

/// wakeup_source_activate: a `Wakelock(<name>)` slice opens on the source's
/// track unless one is already open (activations are counted).
pub fn wakeup_source_activate(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let name = e.str("name").unwrap_or("");
    let key = (c.tracks.machine, name.to_owned());
    let count = c.power.wakelocks.entry(key).or_insert(0);
    *count += 1;
    if *count > 1 {
        return;
    }
    let t = wakelock_track(c, name);
    c.slices.begin(t, ts, wakelock_name(name), -1, None);
}

/// wakeup_source_deactivate: the slice ends with the last activation.
pub fn wakeup_source_deactivate(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let name = e.str("name").unwrap_or("");
    let key = (c.tracks.machine, name.to_owned());
    let count = c.power.wakelocks.entry(key).or_insert(0);
    let was = *count;
    *count = was.saturating_sub(1);
    if was != 1 {
        return;
    }
    let t = wakelock_track(c, name);
    c.slices.end(t, ts);
}

/// TrackCompressor::GetOrCreateTrackForCookie: the lane of `cookie`, else
/// the first idle lane (adopted), else a new one; as a
/// `Suspend/Resume Latency` track with its lane index as dimension.
fn suspend_lane(c: &mut Ctx, cookie: &str) -> (usize, u32) {
    let lanes = &mut c.power.suspends(c.tracks.machine).lanes;
    let idx = match lanes.iter().position(|l| l.cookie == cookie) {
        Some(i) => i,
        None => match lanes.iter().position(|l| l.open == 0) {
            Some(i) => {
                lanes[i].cookie = cookie.to_owned();
                i
            }
            None => {
                lanes.push(Lane {
                    cookie: cookie.to_owned(),
                    open: 0,
                });
                lanes.len() - 1
            }
        },
    };
    let track = c.tracks.intern(
        &mut c.args,
        "suspend_resume",
        Some("Suspend/Resume Latency"),
        "slice",
        vec![("track_compressor_idx", Dim::Int(idx as i64))],
        Owner::default(),
        0,
    );
    (idx, track)
}

/// suspend_resume (FtraceParser::ParseSuspendResume): `<action>(<val>)`
/// slices, begun and ended by the event's `start`, on compressed
/// `Suspend/Resume Latency` tracks.
pub fn suspend_resume(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let action = e.str("action").unwrap_or("");
    // timekeeping_freeze's val is the cpu it ran on, not part of the action
    let val = match action {
        "timekeeping_freeze" => 0,
        _ => e.int("val").unwrap_or(0) as i32,
    };
    let name = crate::trackers::stack_string(format!("{action}({val})"), 64);
    if e.int("start").unwrap_or(0) == 0 {
        let (idx, track) = suspend_lane(c, &name);
        let lane = &mut c.power.suspends(c.tracks.machine).lanes[idx];
        lane.open = lane.open.saturating_sub(1);
        c.slices.end(track, ts);
        if action == "suspend_enter" {
            c.power.suspends(c.tracks.machine).state = SuspendState::Initial;
        } else if action == "thaw_processes"
            && c.power.suspends(c.tracks.machine).state == SuspendState::Freeze
        {
            // suspend_prepare() failed: its suspend_enter never ends
            let cookie = c.power.suspends(c.tracks.machine).enter_cookie.clone();
            let (idx, track) = suspend_lane(c, &cookie);
            let lane = &mut c.power.suspends(c.tracks.machine).lanes[idx];
            lane.open = lane.open.saturating_sub(1);
            c.slices.end(track, ts);
            c.power.suspends(c.tracks.machine).state = SuspendState::Initial;
        }
        return;
    }
    if action == "suspend_enter" {
        c.power.suspends(c.tracks.machine).state = SuspendState::Enter;
        c.power.suspends(c.tracks.machine).enter_cookie = name.clone();
    } else if action == "freeze_processes"
        && c.power.suspends(c.tracks.machine).state == SuspendState::Enter
    {
        c.power.suspends(c.tracks.machine).state = SuspendState::Freeze;
    }
    // not a device PM callback: no device, driver or phase
    let device = [ArgVal::NullStr, ArgVal::NullStr, ArgVal::NullStr];
    begin_suspend_slice(c, e, name, "Main Kernel Suspend Event", device);
}

/// A suspend / resume slice `name` on its lane, with the thread, the
/// event's type, the cpu and `device`: its device, driver and callback
/// phase.
fn begin_suspend_slice(
    c: &mut Ctx,
    e: &FtraceEv,
    name: String,
    event_type: &str,
    [device, driver, phase]: [ArgVal; 3],
) {
    let (idx, track) = suspend_lane(c, &name);
    c.power.suspends(c.tracks.machine).lanes[idx].open += 1;
    let utid = c.pt.get_or_create_thread(e.pid);
    let set = c.args.add_set(&[
        ("utid", Some(ArgVal::Uint(utid as u64))),
        ("event_type", Some(ArgVal::Str(event_type.into()))),
        ("cpu", Some(ArgVal::Uint(machine_cpu(e.cpu) as u64))),
        ("device_name", Some(device)),
        ("driver_name", Some(driver)),
        ("callback_phase", Some(phase)),
    ]);
    c.slices.begin(track, e.ts, name, -1, Some(set));
}

/// rpm_status (FtraceParser::ParseRpmStatus): a device's runtime PM state
/// as slices (`Active`, `Resuming`, `Suspending`, `Invalid State`) on its
/// `linux_rpm` track; a new status ends the open one, and the suspended
/// state, where devices spend most of their time, has none.
pub fn rpm_status(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    const RPM_SUSPENDED: i128 = 2;
    let device = e.str("name").unwrap_or("");
    let track = c.tracks.intern(
        &mut c.args,
        "linux_rpm",
        None,
        "counter",
        vec![("linux_device", Dim::Str(device.to_owned()))],
        Owner::default(),
        0,
    );
    if c.power.rpm_open.contains(&track) {
        c.slices.end(track, ts);
    }
    let status = e.int("status").unwrap_or(0);
    if status == RPM_SUSPENDED {
        c.power.rpm_open.remove(&track);
        return;
    }
    let name = match status {
        0 => "Active",
        1 => "Resuming",
        3 => "Suspending",
        _ => "Invalid State",
    };
    c.slices.begin(track, ts, name.into(), -1, None);
    c.power.rpm_open.insert(track);
}

/// A device PM callback's slice name, `<device> <driver>` (its lane's
/// cookie).
fn device_pm_name(e: &FtraceEv) -> String {
    format!(
        "{} {}",
        e.str("device").unwrap_or(""),
        e.str("driver").unwrap_or("")
    )
}

/// device_pm_callback_start (FtraceParser::ParseDevicePmCallbackStart): a
/// `<device> <driver>` slice on the suspend / resume lanes, with the
/// callback's phase (`<event>[:<phase>]`, e.g. `suspend:late`).
pub fn device_pm_callback_start(c: &mut Ctx, e: &FtraceEv) {
    let event = match e.int("event").unwrap_or(0) {
        0x2 => "suspend",
        0x10 => "resume",
        0x1 => "freeze",
        0x8 => "quiesce",
        0x4 => "hibernate",
        0x20 => "thaw",
        0x40 => "restore",
        0x80 => "recover",
        _ => "(unknown PM event)",
    };
    // an empty pm_ops is the prepare / complete phase (the kernel leaves it
    // empty there); else its leading phase, if any
    let pm_ops = e.str("pm_ops").unwrap_or("");
    let phase = match (pm_ops, event) {
        ("", "suspend") => Some("prepare"),
        ("", "resume") => Some("complete"),
        _ => ["early", "late", "noirq"]
            .into_iter()
            .find(|p| pm_ops.starts_with(p)),
    };
    let callback_phase = match phase {
        Some(p) => format!("{event}:{p}"),
        None => event.to_owned(),
    };
    let device = [
        ArgVal::Str(e.str("device").unwrap_or("").into()),
        ArgVal::Str(e.str("driver").unwrap_or("").into()),
        ArgVal::Str(callback_phase),
    ];
    begin_suspend_slice(c, e, device_pm_name(e), "Device PM Suspend Event", device);
}

/// device_pm_callback_end: ends its `<device> <driver>` slice.
pub fn device_pm_callback_end(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let (idx, track) = suspend_lane(c, &device_pm_name(e));
    let lane = &mut c.power.suspends(c.tracks.machine).lanes[idx];
    lane.open = lane.open.saturating_sub(1);
    c.slices.end(track, ts);
}

/// suspend_resume_minimal: a `Suspended` slice on the `Suspend/Resume
/// Minimal` track, begun and ended by the event's `start`.
pub fn suspend_resume_minimal(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = c.tracks.intern(
        &mut c.args,
        "suspend_resume_minimal",
        Some("Suspend/Resume Minimal"),
        "slice",
        vec![],
        Owner::default(),
        0,
    );
    if e.int("start").unwrap_or(0) != 0 {
        c.slices.begin(track, ts, "Suspended".into(), -1, None);
    } else {
        c.slices.end(track, ts);
    }
}

impl AppWakelock {
    /// The slice pairing key (AppWakelockModule hashes these fields, absent
    /// ones as 0, into the TrackCompressor cookie).
    fn cookie(&self) -> i128 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let zero = |v: Option<i32>| v.unwrap_or(0);
        (
            &self.tag,
            self.flags,
            zero(self.owner_pid),
            zero(self.owner_uid),
            zero(self.work_uid),
        )
            .hash(&mut h);
        h.finish() as i128
    }
}

const APP_WAKELOCK_TYPE: &str = "app_wakelock_events";

/// AppWakelockModule::ParseWakelockBundle: an acquire begins a slice named
/// by the tag on an `app_wakelock_events` lane (its args: flags, and the
/// owner pid / uid and work uid when given); a release ends the lane's.
pub fn app_wakelock(
    c: &mut Ctx,
    slots: &mut crate::trackers::core::atrace::AsyncSlots,
    ts: i64,
    w: &AppWakelock,
) {
    use crate::trackers::core::compressor::{lane_dims, Nesting};
    let cookie = w.cookie();
    let lane = if w.acquired {
        slots
            .compressor
            .begin(APP_WAKELOCK_TYPE, &vec![], cookie, Nesting::Nestable)
    } else {
        slots.compressor.end(APP_WAKELOCK_TYPE, &vec![], cookie)
    };
    let track = c.tracks.intern(
        &mut c.args,
        APP_WAKELOCK_TYPE,
        Some(APP_WAKELOCK_TYPE),
        "slice",
        lane_dims(vec![], lane),
        Owner::default(),
        0,
    );
    if !w.acquired {
        c.slices.end(track, ts);
        return;
    }
    let int = |v: Option<i32>| v.map(|x| ArgVal::Int(x as i128));
    let args = c.args.add_set(&[
        ("flags", Some(ArgVal::Int(w.flags as i128))),
        ("owner_pid", int(w.owner_pid)),
        ("owner_uid", int(w.owner_uid)),
        ("work_uid", int(w.work_uid)),
    ]);
    c.slices
        .begin(track, ts, w.tag.as_str().into(), -1, Some(args));
}
