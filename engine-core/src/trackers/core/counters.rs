//! Counter rows on typed counter tracks: cpufreq / limits / idle, devfreq,
//! clocks, sys_stats and process_stats counters.

use crate::events::{
    CounterMaps, CpuTimes, DiskStat, FtraceEv, GpuCounterEv, GpuCounterTrack, GpuLog, StatsField,
    StatsProcess, SysStatsData,
};
use crate::trackers::core::memory;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

pub struct CounterRow {
    pub ts: i64,
    pub track: u32,
    pub value: f64,
    pub arg_set: Option<i64>,
}

#[derive(Default)]
pub struct Counters {
    pub rows: Vec<CounterRow>,
    /// device -> its previous DiskStat (disk counters are differences)
    disks: rustc_hash::FxHashMap<Option<String>, DiskStat>,
    /// gpu ids in order of first sight: a gpu's index is its `ugpu`
    /// (trace_processor's gpu table id)
    gpus: Vec<i64>,
}

impl Counters {
    pub fn push(&mut self, ts: i64, track: u32, value: f64, arg_set: Option<i64>) {
        self.rows.push(CounterRow {
            ts,
            track,
            value,
            arg_set,
        });
    }
}

fn cpu_owner(cpu: i64) -> Owner {
    Owner {
        cpu: Some(cpu),
        ..Default::default()
    }
}

fn counter(c: &mut Ctx, ts: i64, track: u32, value: i128) {
    c.counters.push(ts, track, value as f64, None);
}

/// A counter from a numeric field (systrace text gives doubles).
fn counter_num(c: &mut Ctx, ts: i64, track: u32, value: f64) {
    c.counters.push(ts, track, value, None);
}

fn cpu_freq_track(c: &mut Ctx, cpu: i64) -> u32 {
    c.tracks.intern(
        &mut c.args,
        "cpu_frequency",
        Some("cpufreq"),
        "counter",
        vec![("cpu", Dim::Int(cpu))],
        cpu_owner(cpu),
        0,
    )
}

pub fn cpu_frequency(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let cpu = e.int("cpu_id").unwrap_or(0) as i64;
    let t = cpu_freq_track(c, cpu);
    counter_num(c, ts, t, e.num("state").unwrap_or(0.0));
}

/// GenericKernelCpuFrequencyEvent: the same cpufreq counter as ftrace's
/// cpu_frequency, in kHz (GenericKernelParser::ParseGenericCpuFrequencyEvent).
pub fn generic_cpu_frequency(c: &mut Ctx, ts: i64, cpu: i64, hz: i64) {
    let t = cpu_freq_track(c, cpu);
    counter_num(c, ts, t, hz as f64 / 1000.0);
}

/// cpu_frequency_limits: the cpu's max then min limit; from protobuf both,
/// an absent one 0 (ParseCpuFrequencyLimits), from systrace text those the
/// line has (its line parser's).
pub fn cpu_frequency_limits(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let cpu = e.int("cpu_id").unwrap_or(0) as i64;
    for (type_, label, field) in [
        ("cpu_max_frequency_limit", "Max", "max_freq"),
        ("cpu_min_frequency_limit", "Min", "min_freq"),
    ] {
        let value = match e.num(field) {
            Some(v) => v,
            None if !c.systrace => 0.0,
            None => continue,
        };
        let t = c.tracks.intern(
            &mut c.args,
            type_,
            Some(&format!("Cpu {cpu} {label} Freq Limit")),
            "counter",
            vec![("cpu", Dim::Int(cpu))],
            cpu_owner(cpu),
            0,
        );
        counter_num(c, ts, t, value);
    }
}

/// Exynos ACPM thermal zones by tz_id (ThermalTracker's kAcpmThermalZones).
const ACPM_ZONES: [&str; 7] = ["BIG", "MID", "LITTLE", "GPU", "ISP", "TPU", "AUR"];

/// thermal_exynos_acpm_bulk / _high_overhead: a zone's temperature and its
/// cooling device state, each counter with the zone id as arg
/// (ThermalTracker). The bulk event comes as its copy at its own
/// `timestamp` (ACPM batches them: `SelfStamped`).
pub fn thermal_exynos_acpm(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let tz_id = e.int("tz_id").unwrap_or(0);
    let Some(&zone) = usize::try_from(tz_id).ok().and_then(|i| ACPM_ZONES.get(i)) else {
        c.stats
            .add("ftrace_thermal_exynos_acpm_unknown_tz_id", 1, None);
        return;
    };
    for (kind, name, field) in [
        (
            "acpm_thermal_temperature",
            format!("{zone} Temperature"),
            "current_temp",
        ),
        (
            "acpm_cooling_device_counter",
            format!("Tj-{zone} Cooling Device"),
            "cdev_state",
        ),
    ] {
        let t = c.tracks.intern(
            &mut c.args,
            kind,
            Some(&name),
            "counter",
            vec![("thermal_zone", Dim::Str(zone.into()))],
            Owner::default(),
            0,
        );
        let set = c
            .args
            .add_set(&[("thermal_zone_id", Some(ArgVal::Int(tz_id)))]);
        c.counters
            .push(ts, t, e.num(field).unwrap_or(0.0), Some(set));
    }
}

/// sched_cpu_util_cfs: the cpu's utilization, capacity and runnable count
/// as three cpu counters (FtraceParser::ParseSchedCpuUtilCfs).
pub fn sched_cpu_util_cfs(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let cpu = e.int("cpu").unwrap_or(0) as i64;
    for (kind, label, field) in [
        ("cpu_utilization", "Util", "cpu_util"),
        ("cpu_capacity", "Cap", "capacity"),
        ("cpu_nr_running", "Nr Running", "nr_running"),
    ] {
        let t = c.tracks.intern(
            &mut c.args,
            kind,
            Some(&format!("Cpu {cpu} {label}")),
            "counter",
            vec![("cpu", Dim::Int(cpu))],
            cpu_owner(cpu),
            0,
        );
        counter_num(c, ts, t, e.num(field).unwrap_or(0.0));
    }
}

pub fn cpu_idle(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let cpu = e.int("cpu_id").unwrap_or(0) as i64;
    let t = c.tracks.intern(
        &mut c.args,
        "cpu_idle",
        Some("cpuidle"),
        "counter",
        vec![("cpu", Dim::Int(cpu))],
        cpu_owner(cpu),
        0,
    );
    counter_num(c, ts, t, e.num("state").unwrap_or(0.0));
}

pub fn devfreq(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let dev = e.str("dev_name").unwrap_or("").to_owned();
    let name = match dev.find("devfreq_") {
        Some(i) => dev[i..].to_owned(),
        None => format!("devfreq_{dev}"),
    };
    let t = c.tracks.intern(
        &mut c.args,
        "linux_device_frequency",
        Some(&name),
        "counter",
        vec![("linux_device", Dim::Str(dev))],
        Owner::default(),
        0,
    );
    counter(c, ts, t, e.int("freq").unwrap_or(0));
}

/// The ugpu of gpu `gpu` (trace_processor's GpuTracker::GetOrCreateGpu: in
/// order of first appearance).
pub(in crate::trackers) fn ugpu(c: &mut Ctx, gpu: i64) -> usize {
    match c.counters.gpus.iter().position(|&g| g == gpu) {
        Some(i) => i,
        None => {
            c.counters.gpus.push(gpu);
            c.counters.gpus.len() - 1
        }
    }
}

/// A gpu's frequency track (unit kHz, as trace_processor labels it, though
/// sys_stats' gpufreq_mhz values are stored as given).
fn gpu_freq_track(c: &mut Ctx, gpu: i64) -> u32 {
    let ugpu = ugpu(c, gpu);
    c.tracks.intern_with(
        &mut c.args,
        "gpu_frequency",
        Some("gpufreq"),
        "counter",
        vec![("ugpu", Dim::Int(ugpu as i64)), ("gpu", Dim::Int(gpu))],
        Owner::default(),
        Some("kHz"),
        Vec::new,
    )
}

/// gpu_frequency: the gpu's new frequency (FtraceParser::ParseGpuFreq).
pub fn gpu_frequency(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = gpu_freq_track(c, e.int("gpu_id").unwrap_or(0) as i64);
    counter_num(c, ts, t, e.num("state").unwrap_or(0.0));
}

/// GenericGpuFrequencyEvent: the gpu's frequency track, as ftrace's
/// gpu_frequency (GenericKernelParser::ParseGenericGpuFrequencyEvent).
pub fn generic_gpu_frequency(c: &mut Ctx, ts: i64, gpu: u32, khz: u32) {
    let t = gpu_freq_track(c, gpu as i64);
    counter_num(c, ts, t, khz as f64);
}

/// dcvsh_freq (FtraceParser::ParseCpuFreqThrottle): a cpu's frequency
/// while throttled, on its "cpufreq_throttle" track.
pub fn cpu_freq_throttle(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let cpu = e.int("cpu").unwrap_or(0) as u32 as i64;
    let t = c.tracks.intern(
        &mut c.args,
        "cpu_frequency_throttle",
        Some("cpufreq_throttle"),
        "counter",
        vec![("cpu", Dim::Int(cpu))],
        cpu_owner(cpu),
        0,
    );
    counter(c, ts, t, e.int("freq").unwrap_or(0));
}

/// kgsl_gpu_frequency (ParseKgslGpuFreq): the Adreno gpu's frequency, given
/// in units of 1000 (stored x1000), on the gpu's "gpufreq" track.
pub fn kgsl_gpu_frequency(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let t = gpu_freq_track(c, e.int("gpu_id").unwrap_or(0) as i64);
    counter_num(c, ts, t, e.int("gpu_freq").unwrap_or(0) as f64 * 1000.0);
}

/// gpu_mem_total (FtraceParser::ParseGpuMemTotal): a gpu's memory, in
/// bytes, as a whole (pid 0: "gpu_memory") or of one process
/// ("process_gpu_memory"), both named "GPU Memory". A process's event for a
/// pid with no live thread is dropped (kworkers report it after the
/// process died); else the pid is made its own process's main thread, and
/// the counter goes to the process of the thread the pid named before.
pub fn gpu_mem_total(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let gpu = e.int("gpu_id").unwrap_or(0) as i64;
    let pid = e.int("pid").unwrap_or(0) as i64;
    gpu_memory(c, ts, gpu, pid, e.int("size").unwrap_or(0), true);
}

/// A GpuMemTotalEvent packet (GpuEventParser::ParseGpuMemTotalEvent): as
/// the ftrace event, but a process's event is never dropped (the pid is
/// made its own process's main thread).
pub fn gpu_mem_total_packet(c: &mut Ctx, ts: i64, gpu: u32, pid: u32, size: u64) {
    gpu_memory(c, ts, gpu as i64, pid as i64, size as i128, false);
}

fn gpu_memory(c: &mut Ctx, ts: i64, gpu: i64, pid: i64, size: i128, live_thread_only: bool) {
    // (the gpu is known first, even for an event dropped below)
    let ugpu = ugpu(c, gpu) as i64;
    let process = if pid == 0 {
        None
    } else {
        // the ftrace event keeps the process of the thread it found before
        // the update: a pid that was a thread of another process counts
        // there (FtraceParser::ParseGpuMemTotal reads `opt_utid`'s upid)
        let found = c.pt.thread_or_none(pid);
        if live_thread_only && found.is_none() {
            return;
        }
        let updated = c.pt.update_thread(pid, pid);
        let utid = if live_thread_only {
            found.unwrap_or(updated)
        } else {
            updated
        };
        c.pt.t_upid[utid as usize]
    };
    let mut dims = vec![("ugpu", Dim::Int(ugpu)), ("gpu", Dim::Int(gpu))];
    let type_ = match process {
        Some(upid) => {
            dims.push(("upid", Dim::Int(upid as i64)));
            "process_gpu_memory"
        }
        None => "gpu_memory",
    };
    let owner = Owner {
        upid: process,
        ..Default::default()
    };
    let t = c.tracks.intern_with(
        &mut c.args,
        type_,
        Some("GPU Memory"),
        "counter",
        dims,
        owner,
        Some("bytes"),
        Vec::new,
    );
    counter(c, ts, t, size);
}

/// `value` on the "<key> <suffix>" counter track of `type_` keyed by one
/// string dimension (a device, a thermal zone), `key` (an absent
/// key: the empty name, a NULL dimension, as the reference's string view).
fn keyed_counter(
    c: &mut Ctx,
    ts: i64,
    (type_, dim, suffix): (&'static str, &'static str, &str),
    key: Option<&str>,
    value: f64,
) {
    let t = c.tracks.intern(
        &mut c.args,
        type_,
        Some(&format!("{} {suffix}", key.unwrap_or(""))),
        "counter",
        vec![(dim, Dim::opt_str(key))],
        Owner::default(),
        0,
    );
    counter_num(c, ts, t, value);
}

/// clock_enable / clock_disable (FtraceParser::ParseClockEnable / Disable):
/// the clock's state on its "<name> State" track.
pub fn clock_state(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = ("clock_state", "linux_device", "State");
    let state = e.int("state").unwrap_or(0) as f64;
    keyed_counter(c, ts, track, e.str("name"), state);
}

/// thermal_temperature (ThermalTracker::ParseThermalTemperature): the
/// zone's "<thermal_zone> Temperature" counter.
pub fn thermal_temperature(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = ("thermal_temperature", "thermal_zone", "Temperature");
    let temp = e.int("temp").unwrap_or(0) as f64;
    keyed_counter(c, ts, track, e.str("thermal_zone"), temp);
}

/// cdev_update (ThermalTracker::ParseCdevUpdate): the cooling device's
/// target state on its "<type> Cooling Device" counter (a double in
/// systrace text).
pub fn cdev_update(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let track = ("cooling_device_counter", "linux_device", "Cooling Device");
    let target = e.num("target").unwrap_or(0.0);
    keyed_counter(c, ts, track, e.str("type"), target);
}

pub fn clock_rate(c: &mut Ctx, ts: i64, name: Option<&str>, rate: i128) {
    let track = ("clock_frequency", "linux_device", "Frequency");
    keyed_counter(c, ts, track, name, rate as f64);
}

pub fn clock_set_rate(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    clock_rate(c, ts, e.str("name"), e.int("state").unwrap_or(0));
}

/// A counter track of sys_stats keyed by its dimensions, unit unknown
/// (trace_processor's UnknownUnitBlueprint).
fn sys_stats_track(
    c: &mut Ctx,
    type_: &'static str,
    name: &str,
    dims: Vec<(&'static str, Dim)>,
) -> u32 {
    let owner = match dims.first() {
        Some(("cpu", Dim::Int(cpu))) => cpu_owner(*cpu),
        _ => Owner::default(),
    };
    c.tracks
        .intern(&mut c.args, type_, Some(name), "counter", dims, owner, 0)
}

/// SystemProbesParser::ParseSysStats: each kind of counter in its order
/// (a packet's track and counter ids follow it): meminfo, devfreq as
/// clocks, cpufreq per cpu, vmstat, cpu times, irqs, forks, buddyinfo,
/// disks, psi, thermal zones by type, cpuidle residency (us) per (cpu,
/// state), gpufreq (MHz as-is), slab caches.
pub fn sys_stats(c: &mut Ctx, ts: i64, d: &SysStatsData) {
    memory::meminfo(c, ts, &d.meminfo);
    for (key, value) in &d.devfreq {
        clock_rate(c, ts, key.as_deref(), *value);
    }
    for (cpu, &khz) in d.cpufreq_khz.iter().enumerate() {
        let t = cpu_freq_track(c, cpu as i64);
        counter(c, ts, t, khz as i128);
    }
    memory::vmstat(c, ts, &d.vmstat);
    cpu_times(c, ts, &d.cpu_stat);
    for (type_, irqs) in [("num_irq", &d.num_irq), ("num_softirq", &d.num_softirq)] {
        for &(irq, count) in irqs {
            // the irq dimension is unsigned
            let irq = irq as u32;
            let name = format!("{type_} (id: {irq})");
            let t = sys_stats_track(c, type_, &name, vec![("irq", Dim::Int(irq as i64))]);
            counter(c, ts, t, count as i128);
        }
    }
    for (type_, total) in [
        ("num_forks", d.num_forks),
        ("num_irq_total", d.num_irq_total),
        ("num_softirq_total", d.num_softirq_total),
    ] {
        if let Some(total) = total {
            let t = sys_stats_track(c, type_, type_, Vec::new());
            counter(c, ts, t, total as i128);
        }
    }
    memory::buddy_info(c, ts, &d.buddy_info);
    for d in &d.disk_stat {
        disk_stat(c, ts, d);
    }
    if !psi(c, ts, &d.psi) {
        // an unknown resource ends the packet's parse (as the reference)
        return;
    }
    for (zone, temp) in &d.thermal_zone {
        // polled from sysfs: trace_processor's `_sys` type, in degrees C
        let t = c.tracks.intern_with(
            &mut c.args,
            "thermal_temperature_sys",
            Some(zone.as_deref().unwrap_or("")),
            "counter",
            vec![("thermal_zone", Dim::opt_str(zone.as_deref()))],
            Owner::default(),
            Some("C"),
            Vec::new,
        );
        counter(c, ts, t, *temp);
    }
    for (cpu, state, dur_us) in &d.cpuidle_state {
        let t = c.tracks.intern_with(
            &mut c.args,
            "cpu_idle_state",
            Some(&format!("cpuidle{cpu}.{state}")),
            "counter",
            vec![("cpu", Dim::Int(*cpu)), ("state", Dim::Str(state.clone()))],
            cpu_owner(*cpu),
            Some("us"),
            Vec::new,
        );
        counter(c, ts, t, *dur_us);
    }
    for &mhz in &d.gpufreq_mhz {
        let t = gpu_freq_track(c, 0);
        counter(c, ts, t, mhz);
    }
    memory::slab_info(c, ts, &d.slab_info);
}

/// CpuTimes (/proc/stat): each cpu's eight times on `cpu.times.<key>`
/// tracks (dimensions cpu and cpustat_key); a sample without its cpu is
/// counted (invalid_cpu_times) and skipped.
fn cpu_times(c: &mut Ctx, ts: i64, samples: &[CpuTimes]) {
    const KEYS: [&str; 8] = [
        "user_ns",
        "user_nice_ns",
        "system_mode_ns",
        "idle_ns",
        "io_wait_ns",
        "irq_ns",
        "softirq_ns",
        "steal_ns",
    ];
    for sample in samples {
        let Some(cpu) = sample.cpu else {
            c.stats.add("invalid_cpu_times", 1, None);
            continue;
        };
        for (key, &ns) in KEYS.iter().zip(&sample.times_ns) {
            let dims = vec![
                ("cpu", Dim::Int(cpu as i64)),
                ("cpustat_key", Dim::Str((*key).to_owned())),
            ];
            let t = sys_stats_track(c, "cpustat", &format!("cpu.times.{key}"), dims);
            counter(c, ts, t, ns as i128);
        }
    }
}

/// Pressure stall information: each resource's total stall time (ns) on
/// its `psi.<resource>` track. false at a resource the reference does not
/// know (psi_unknown_resource): its parse of the packet stops there.
fn psi(c: &mut Ctx, ts: i64, samples: &[(u64, u64)]) -> bool {
    const RESOURCES: [&str; 7] = [
        "resource.unspecified",
        "cpu.some",
        "cpu.full",
        "io.some",
        "io.full",
        "mem.some",
        "mem.full",
    ];
    for &(resource, total_ns) in samples {
        let Some(&key) = usize::try_from(resource)
            .ok()
            .and_then(|r| RESOURCES.get(r))
        else {
            c.stats.add("psi_unknown_resource", 1, None);
            return false;
        };
        let dims = vec![("psi_resource", Dim::Str(key.to_owned()))];
        let t = sys_stats_track(c, "psi", &format!("psi.{key}"), dims);
        counter(c, ts, t, total_ns as i128);
    }
    true
}

/// SystemProbesParser::ParseDiskStats: from a device's second sample on,
/// the MB read / written / discarded since the previous one, their
/// throughput (MB/s over the time the disk spent on them; 0 when none),
/// flushes and flush time, each on a `diskstat.[<device>].<counter>` track
/// with its unit.
fn disk_stat(c: &mut Ctx, ts: i64, d: &DiskStat) {
    const SECTORS_PER_MB: f64 = 2048.0;
    let Some(prev) = c.counters.disks.insert(d.device_name.clone(), d.clone()) else {
        return;
    };
    let mb = |cur: i64, old: i64| cur.wrapping_sub(old) as f64 / SECTORS_PER_MB;
    let throughput = |amount: f64, ms: i64| {
        if ms == 0 {
            0.0
        } else {
            amount * 1000.0 / ms as f64
        }
    };
    let read = mb(d.read_sectors, prev.read_sectors);
    let write = mb(d.write_sectors, prev.write_sectors);
    let discard = mb(d.discard_sectors, prev.discard_sectors);
    let values = [
        ("read_amount", "MB", read),
        (
            "read_throughput",
            "MB/s",
            throughput(read, d.read_time_ms.wrapping_sub(prev.read_time_ms)),
        ),
        ("write_amount", "MB", write),
        (
            "write_throughput",
            "MB/s",
            throughput(write, d.write_time_ms.wrapping_sub(prev.write_time_ms)),
        ),
        ("discard_amount", "MB", discard),
        (
            "discard_throughput",
            "MB/s",
            throughput(
                discard,
                d.discard_time_ms.wrapping_sub(prev.discard_time_ms),
            ),
        ),
        (
            "flush_amount",
            "count",
            d.flush_count.wrapping_sub(prev.flush_count) as f64,
        ),
        (
            "flush_time",
            "ms",
            d.flush_time_ms.wrapping_sub(prev.flush_time_ms) as f64,
        ),
    ];
    for (counter, unit, value) in values {
        let t = c.tracks.intern_with(
            &mut c.args,
            "diskstat",
            Some(&format!(
                "diskstat.[{}].{counter}",
                d.device_name.as_deref().unwrap_or("")
            )),
            "counter",
            vec![
                ("device_name", Dim::opt_str(d.device_name.as_deref())),
                ("counter_name", Dim::Str(counter.into())),
            ],
            Owner::default(),
            Some(unit),
            Vec::new,
        );
        counter_num(c, ts, t, value);
    }
}

/// What a ProcessStats.Process field counts, by its field number
/// (SystemProbesParser's GetProcessMemoryKey / GetSmapsKey, oom_score_adj
/// and the cpu runtime per mode); None for a field it does not read.
enum ProcessCounter {
    /// kB, on a `process_memory` track `mem.<key>`
    Memory(&'static str),
    /// kB, on a `smaps` track `mem.smaps.<key>`
    Smaps(&'static str),
    OomScoreAdj,
    /// ns, on a `proc_stat_runtime` track `runtime.<key>`
    Runtime(&'static str),
}

fn process_counter(field: u32) -> Option<ProcessCounter> {
    use ProcessCounter::*;
    Some(match field {
        2 => Memory("virt"),
        3 => Memory("rss"),
        4 => Memory("rss.anon"),
        5 => Memory("rss.file"),
        6 => Memory("rss.shmem"),
        7 => Memory("swap"),
        8 => Memory("locked"),
        9 => Memory("rss.watermark"),
        24 => Memory("dmabuf_rss"),
        10 => OomScoreAdj,
        16 => Smaps("rss"),
        17 => Smaps("pss"),
        18 => Smaps("pss.anon"),
        19 => Smaps("pss.file"),
        20 => Smaps("pss.smem"),
        23 => Smaps("swap.pss"),
        21 => Runtime("user_ns"),
        22 => Runtime("kernel_ns"),
        _ => return None,
    })
}

/// A process's counter track keyed by `key` (dimensions upid and
/// `key_dim`), named `<prefix><key>`.
fn process_keyed_track(
    c: &mut Ctx,
    upid: u32,
    type_: &'static str,
    key_dim: &'static str,
    name: &str,
    key: &str,
) -> u32 {
    c.tracks.intern(
        &mut c.args,
        type_,
        Some(name),
        "counter",
        vec![
            ("upid", Dim::Int(upid as i64)),
            (key_dim, Dim::Str(key.to_owned())),
        ],
        Owner {
            upid: Some(upid),
            ..Default::default()
        },
        0,
    )
}

/// ProcessStats (SystemProbesParser::ParseProcessStats, then
/// ChromeSystemProbesParser's): each process's fields in wire order: a
/// thread joins it; a counter (memory and smaps in bytes) or an fd first
/// makes the process; a field neither reads counts as
/// proc_stat_unknown_counters. Then Chrome's fields of every process.
pub fn process_stats(c: &mut Ctx, ts: i64, procs: &[StatsProcess]) {
    for p in procs {
        for field in &p.fields {
            let (num, value) = match *field {
                StatsField::Thread(tid) => {
                    c.pt.update_thread(tid, p.pid);
                    continue;
                }
                // (Chrome's fields are skipped here, but the reference's list
                // names private_footprint_kb twice and not
                // peak_resident_set_kb, which so also counts as unknown)
                StatsField::PeakRssResettable(_)
                | StatsField::ChromeKb("private_footprint_kb", _) => continue,
                StatsField::Fd => {
                    c.pt.get_or_create_process(p.pid);
                    continue;
                }
                StatsField::ChromeKb(..) => {
                    c.pt.get_or_create_process(p.pid);
                    c.stats.add("proc_stat_unknown_counters", 1, None);
                    continue;
                }
                StatsField::Counter(num, value) => (num, value),
            };
            let upid = c.pt.get_or_create_process(p.pid);
            let Some(what) = process_counter(num) else {
                c.stats.add("proc_stat_unknown_counters", 1, None);
                continue;
            };
            let (t, v) = match what {
                ProcessCounter::Memory(key) => (
                    memory::process_memory_track(c, upid, key),
                    value.wrapping_mul(1024),
                ),
                ProcessCounter::Smaps(key) => {
                    let name = format!("mem.smaps.{key}");
                    (
                        process_keyed_track(c, upid, "smaps", "smaps_key", &name, key),
                        value.wrapping_mul(1024),
                    )
                }
                ProcessCounter::OomScoreAdj => (memory::oom_score_adj_track(c, upid), value),
                ProcessCounter::Runtime(key) => {
                    let name = format!("runtime.{key}");
                    let key_dim = "proc_stat_runtime_key";
                    (
                        process_keyed_track(c, upid, "proc_stat_runtime", key_dim, &name, key),
                        value,
                    )
                }
            };
            counter(c, ts, t, v as i128);
        }
    }
    for p in procs {
        for field in &p.fields {
            match *field {
                StatsField::PeakRssResettable(resettable) => {
                    let upid = c.pt.get_or_create_process(p.pid);
                    let arg = ("is_peak_rss_resettable", Some(ArgVal::Bool(resettable)));
                    crate::trackers::core::process::add_process_args(c, upid, &[arg]);
                }
                StatsField::ChromeKb(key, kb) => {
                    let upid = c.pt.get_or_create_process(p.pid);
                    let name = format!("chrome.{key}");
                    let t = process_keyed_track(c, upid, "chrome_process_stats", "key", &name, key);
                    counter(c, ts, t, kb.wrapping_mul(1024) as i128);
                }
                _ => {}
            }
        }
    }
}

/// gpu_work_period (GpuWorkPeriodTracker), at `ts` the period's start in
/// trace time (its copy): a uid's GPU work period as a
/// slice of the period's length on its (ugpu, gpu, uid) track, named by
/// the share of it the GPU was active (`%42.00`), with that active time as
/// its thread_dur (thread_ts: its start); a period ending before it starts
/// is logged (gpu_work_period_negative_duration) and dropped.
pub fn gpu_work_period(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let gpu = e.int("gpu_id").unwrap_or(0) as u32;
    let uid = e.int("uid").unwrap_or(0) as u32 as i32;
    let ugpu = ugpu(c, gpu as i64);
    let track = c.tracks.intern(
        &mut c.args,
        "android_gpu_work_period",
        None,
        "slice",
        vec![
            ("ugpu", Dim::Int(ugpu as i64)),
            ("gpu", Dim::Int(gpu as i64)),
            ("uid", Dim::Int(uid as i64)),
        ],
        Owner::default(),
        0,
    );
    let start = e.int("start_time_ns").unwrap_or(0) as u64;
    let end = e.int("end_time_ns").unwrap_or(0) as u64;
    let duration = end.wrapping_sub(start) as i64;
    if duration < 0 {
        let args = vec![
            ("start_time_ns", Some(ArgVal::Int(start as i64 as i128))),
            ("end_time_ns", Some(ArgVal::Int(end as i64 as i128))),
            ("gpu_id", Some(ArgVal::Int(gpu as i128))),
        ];
        crate::trackers::core::import_logs::ImportLog::record(
            c,
            ts,
            "gpu_work_period_negative_duration",
            args,
        );
        return;
    }
    let active = e.int("total_active_duration_ns").unwrap_or(0) as u64 as i64;
    let percent = 100.0 * (active as f64 / duration as f64);
    // printf's %.2f: nan / inf as C writes them
    let text = match percent {
        p if p.is_nan() && p.is_sign_negative() => "-nan".to_owned(),
        p if p.is_nan() => "nan".to_owned(),
        p if p.is_infinite() => if p > 0.0 { "inf" } else { "-inf" }.to_owned(),
        p => format!("{p:.2}"),
    };
    let name = crate::trackers::stack_string(format!("%{text}"), 255);
    if let Some(row) = c.slices.begin(track, ts, name, duration, None) {
        c.slices.thread_times.insert(
            row,
            crate::trackers::core::slices::ThreadTimes {
                ts: Some(ts),
                dur: Some(active),
                ..Default::default()
            },
        );
    }
}

/// bcl_irq_trigger (FtraceParser::ParseBclIrq): a battery current limiter
/// interrupt on the `bcl_irq_*` counters (dimension `bcl_key`): its id (-1
/// when not throttling), whether it throttles, the CPU clusters' / TPU's /
/// GPU's limits (0 when not throttling), the voltage and the capacity.
pub fn bcl_irq(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0) as i32;
    let throttle = int("throttle");
    let limit = |f: &str| if throttle != 0 { int(f) } else { 0 };
    let values = [
        ("bcl_irq_id", if throttle != 0 { int("id") } else { -1 }),
        ("bcl_irq_throttle", throttle),
        ("bcl_irq_cpu0", limit("cpu0_limit")),
        ("bcl_irq_cpu1", limit("cpu1_limit")),
        ("bcl_irq_cpu2", limit("cpu2_limit")),
        ("bcl_irq_tpu", limit("tpu_limit")),
        ("bcl_irq_gpu", limit("gpu_limit")),
        ("bcl_irq_voltage", int("voltage")),
        ("bcl_irq_capacity", int("capacity")),
    ];
    for (key, value) in values {
        let track = c.tracks.intern(
            &mut c.args,
            "bcl_irq",
            Some(key),
            "counter",
            vec![("bcl_key", Dim::Str(key.to_owned()))],
            Owner::default(),
            0,
        );
        c.counters.push(ts, track, value as f64, None);
    }
}

/// param_set_value_cpm / fwtp_perfetto_counter (FtraceParser::
/// ParseParamSetValueCpm / ParseFwtpPerfettoCounter), as their copies at
/// their own timestamp: the value on the `pixel_cpm_counters` /
/// `pixel_fwtp_counters` track named by the event's body / name.
pub fn pixel_firmware_counter(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let (type_, key) = if e.name == crate::events::CPM_COPY {
        ("pixel_cpm_counters", "body")
    } else {
        ("pixel_fwtp_counters", "name")
    };
    let name = e.str(key).unwrap_or("");
    let track = c.tracks.intern(
        &mut c.args,
        type_,
        Some(&crate::trackers::stack_string(name.to_owned(), 255)),
        "counter",
        vec![("name", Dim::Str(name.to_owned()))],
        Owner::default(),
        0,
    );
    let value = e.int("value").unwrap_or(0) as u32;
    c.counters.push(ts, track, value as f64, None);
}

/// cros_ec_sensorhub_data (ParseCrosEcSensorhubData): a ChromeOS EC
/// sensor's sample latency (current_time - current_timestamp) on its
/// `cros_ec.cros_ec_sensorhub_data.<sensor>` counter, args the sensor
/// (`ec_num`), the FIFO delay (`ec_delta`) and the sample time
/// (`sample_ts`).
pub fn cros_ec_sensorhub_data(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let int = |f: &str| e.int(f).unwrap_or(0) as i64;
    let sensor = int("ec_sensor_num") as u32;
    let track = c.tracks.intern(
        &mut c.args,
        "cros_ec_sensorhub_data",
        Some(&format!("cros_ec.cros_ec_sensorhub_data.{sensor}")),
        "counter",
        vec![("ec_sensor_num", Dim::Int(sensor as i64))],
        Owner::default(),
        0,
    );
    let sample = int("current_timestamp");
    let set = c.args.add_set(&[
        ("ec_num", Some(ArgVal::Int(sensor as i128))),
        (
            "ec_delta",
            Some(ArgVal::Int(
                int("fifo_timestamp").wrapping_sub(sample) as i128
            )),
        ),
        ("sample_ts", Some(ArgVal::Int(sample as i128))),
    ]);
    let latency = int("current_time").wrapping_sub(sample);
    c.counters.push(ts, track, latency as f64, Some(set));
}

/// The tracks trace_processor makes when it tokenizes packets, in that
/// order (before any the replay makes): their track ids.
pub fn tokenized_tracks(c: &mut Ctx, tracks: &[crate::events::TokenizedTrack]) -> Vec<u32> {
    use crate::events::TokenizedTrack;
    tracks
        .iter()
        .map(|t| match t {
            TokenizedTrack::Wakelock((name, kind)) => kernel_wakelock_track(c, name, kind),
            TokenizedTrack::GpuCounter(g) => gpu_counter_track(c, g),
        })
        .collect()
}

/// AndroidKernelWakelocksModule::UpdateCounter's blueprint: unit ms,
/// dimensions wakelock_name and wakelock_type, named after the wakelock.
fn kernel_wakelock_track(c: &mut Ctx, name: &str, kind: &str) -> u32 {
    c.tracks.intern_with(
        &mut c.args,
        "android_kernel_wakelock",
        Some(name),
        "counter",
        vec![
            ("wakelock_name", Dim::Str(name.to_owned())),
            ("wakelock_type", Dim::Str(kind.to_owned())),
        ],
        Owner::default(),
        Some("ms"),
        Vec::new,
    )
}

/// GpuEventParser::InternGpuCounterTrack: a `gpu_counter` track per (ugpu,
/// gpu, name), its unit and `description` source arg from the spec that
/// made it.
fn gpu_counter_track(c: &mut Ctx, g: &GpuCounterTrack) -> u32 {
    let ugpu = ugpu(c, g.gpu_id as i64);
    let before = c.tracks.rows.len();
    let id = c.tracks.intern(
        &mut c.args,
        "gpu_counter",
        Some(&g.name),
        "counter",
        vec![
            ("ugpu", Dim::Int(ugpu as i64)),
            ("gpu", Dim::Int(g.gpu_id as i64)),
            ("name", Dim::Str(g.name.clone())),
        ],
        Owner::default(),
        0,
    );
    if id as usize == before {
        match &g.description {
            Some(d) => c.tracks.describe(&mut c.args, id, d),
            None => {
                // (a NULL description: the arg, no counter_track.description)
                let args = c.args.add_set(&[("description", Some(ArgVal::NullStr))]);
                c.tracks.rows[id as usize].source_arg_set_id = Some(args);
            }
        }
        c.tracks.rows[id as usize].unit = g.unit.clone().map(std::borrow::Cow::Owned);
    }
    id
}

/// GpuEventParser::PushGpuCounterValues: each sample on its counter's
/// track; a backwards-looking counter's value is the interval's that ends
/// at its time: a 0 is pushed there and the value given to the track's
/// previous row.
#[derive(Default)]
pub struct GpuCounterValues {
    /// track -> its last counter row
    last: rustc_hash::FxHashMap<u32, usize>,
}

impl GpuCounterValues {
    pub fn push(
        &mut self,
        c: &mut Ctx,
        ts: i64,
        ev: &GpuCounterEv,
        maps: &CounterMaps,
        tracks: &[u32],
    ) {
        let map = match ev.descriptor {
            Some(key) => match maps.interned.get(&key) {
                Some(m) => m,
                // (a missing descriptor was counted when tokenized)
                None => return,
            },
            None => &maps.legacy,
        };
        for &(id, value) in &ev.counters {
            let Some(&(t, forwards_looking)) = map.get(&id) else {
                if ev.descriptor.is_some() {
                    c.stats.add("gpu_counters_invalid_spec", 1, None);
                }
                continue;
            };
            let track = tracks[t as usize];
            let row = c.counters.rows.len();
            if forwards_looking {
                c.counters.push(ts, track, value, None);
            } else {
                c.counters.push(ts, track, 0.0, None);
                if let Some(&last) = self.last.get(&track) {
                    c.counters.rows[last].value = value;
                }
            }
            self.last.insert(track, row);
        }
    }
}

/// GpuEventParser::ParseGpuLog: an instant on the "GPU Log" track named by
/// the severity, with its tag and message as args.
pub fn gpu_log(c: &mut Ctx, ts: i64, log: &GpuLog) {
    const SEVERITIES: [&str; 7] = [
        "UNSPECIFIED",
        "VERBOSE",
        "DEBUG",
        "INFO",
        "WARNING",
        "ERROR",
        "UNKNOWN_SEVERITY",
    ];
    let track = c.tracks.intern(
        &mut c.args,
        "gpu_log",
        Some("GPU Log"),
        "slice",
        Vec::new(),
        Owner::default(),
        0,
    );
    let severity = SEVERITIES[(log.severity as usize).min(SEVERITIES.len() - 1)];
    let args = (log.tag.is_some() || log.message.is_some()).then(|| {
        c.args.add_set(&[
            ("tag", log.tag.clone().map(ArgVal::Str)),
            ("message", log.message.clone().map(ArgVal::Str)),
        ])
    });
    c.slices.begin(track, ts, severity.to_owned(), 0, args);
}
