//! Decoded events -> trace_processor-shaped tables: the events are replayed
//! in timestamp order (arrival order breaking ties, as trace_processor's
//! sorter within one stream) through the trackers.

use std::collections::BTreeSet;
use std::sync::Arc as Rc;

use crate::decoder::proto::{
    parser_looks_up_symbol, symbol_address_field, symbol_lookup_failed, SYMBOL_FIELD,
};
use crate::decoder::sink::Sink;
use crate::events::*;
use crate::sorter::{self, TsOrder};
use crate::trackers::core::atrace::{self, AsyncSlots};
use crate::trackers::core::counters::{self, Counters};
use crate::trackers::core::frame_timeline::FrameTimelineTracker;
use crate::trackers::core::import_logs::ImportLog;
use crate::trackers::core::kernel::KernelTrackers;
use crate::trackers::core::process::{
    add_process_args, Name, ProcessTracker, PNAME_SYSTEM, PRIO_FTRACE, PRIO_OTHER,
    PRIO_PROCESS_TREE,
};
use crate::trackers::core::raw::{Comm, RawTable, SchedArgs, SwitchArgs};
use crate::trackers::core::sched::{kernel_version, EndStates, SchedTracker, ThreadStateTracker};
use crate::trackers::core::slices::SliceTracker;
use crate::trackers::core::tracks::{ArgVal, Args, Tracks};
use crate::trackers::extra::binder::{hex, BinderTracker, Transaction};
use crate::trackers::extra::drm::{DrmTracker, FenceEvent};
use crate::trackers::extra::irq;
use crate::trackers::extra::power;
use crate::trackers::{CpuSet, Ctx, PerCpu};

const CLONE_THREAD: i128 = 0x10000;
const KTHREADD_PID: i64 = 2;

/// The machine whose event the replay is at (`crate::machines`): its
/// process tracker keys, tracks and stats are its own, as trace_processor's
/// per-machine trackers; the stats of the machines not current are kept
/// here.
struct MachineSwitch {
    current: u16,
    stats: Vec<Stats>,
    trackers: Vec<EventTrackers>,
}

/// The event trackers whose state is a machine's (trace_processor's are per
/// machine: a second machine's async slices, fences, binder transactions
/// and kernel slices are its own).
#[derive(Default)]
struct EventTrackers {
    slots: AsyncSlots,
    drm: DrmTracker,
    binder: BinderTracker,
    kernel: KernelTrackers,
}

impl MachineSwitch {
    fn new(machines: usize) -> Self {
        MachineSwitch {
            current: 0,
            stats: vec![Stats::default(); machines],
            trackers: (0..machines).map(|_| EventTrackers::default()).collect(),
        }
    }

    /// Makes `machine` the current one (`trackers` become its own); true
    /// if it was not.
    fn to(&mut self, ctx: &mut Ctx, trackers: &mut EventTrackers, machine: u16) -> bool {
        if machine == self.current {
            return false;
        }
        let (from, to) = (self.current as usize, machine as usize);
        std::mem::swap(&mut ctx.stats, &mut self.stats[from]);
        std::mem::swap(&mut ctx.stats, &mut self.stats[to]);
        std::mem::swap(trackers, &mut self.trackers[from]);
        std::mem::swap(trackers, &mut self.trackers[to]);
        (ctx.pt.machine, ctx.tracks.machine) = (machine, machine);
        self.current = machine;
        true
    }
}

/// Everything the tables are made of.
pub struct Imported {
    pub sink: Sink,
    pub ctx: Ctx,
    pub sched: SchedTracker,
    pub raw: RawTable,
    pub frames: FrameTimelineTracker,
    pub raw_on: bool,
    /// events decoded (before the tracing_started cut)
    pub events: usize,
    pub cpus_seen: BTreeSet<i64>,
    /// first / last ts of the thread_state rows non-switch events open
    /// (wakings, new tasks), for trace_bounds
    pub ts_other_first_last: Option<(i64, i64)>,
    /// CpuInfo's cpus -> their args (cpu.arg_set_id)
    pub cpu_info: crate::trackers::core::cpu::CpuInfoTables,
    /// every arg set's id in the tables, by the trackers' set id
    /// (`Args::public_ids`)
    pub arg_set_ids: std::sync::Arc<[Option<i64>]>,
}

impl Imported {
    /// The tables' id of the trackers' arg set `set` (None: no arg set).
    pub fn arg_set_id(&self, set: Option<i64>) -> Option<i64> {
        public_arg_set_id(&self.arg_set_ids, set)
    }
}

/// `set`'s id in the tables, by `ids` (`Args::public_ids`).
pub fn public_arg_set_id(ids: &[Option<i64>], set: Option<i64>) -> Option<i64> {
    set.and_then(|s| ids.get(usize::try_from(s).ok()?).copied().flatten())
}

pub fn replay(mut sink: Sink, raw_on: bool) -> Imported {
    let version = kernel_version(
        sink.utsname_sysname.as_deref(),
        sink.kernel_release.as_deref(),
    );
    let mut ctx = Ctx {
        pt: ProcessTracker::new(),
        args: Args::default(),
        tracks: Tracks::default(),
        stats: sink.stats.clone(),
        machine_stats: Vec::new(),
        trace_stats: Stats::default(),
        slices: SliceTracker::default(),
        counters: Counters::default(),
        memory: Default::default(),
        thread_state: ThreadStateTracker::new(),
        states: EndStates::new(version),
        power: Default::default(),
        flows: Vec::new(),
        flow_args: Default::default(),
        state_rows: Default::default(),
        stack_profile: Default::default(),
        heap_profiles: Default::default(),
        logs: Default::default(),
        import_logs: Vec::new(),
        machine: sink
            .utsname_machine
            .clone()
            .unwrap_or_default()
            .to_lowercase(),
        kernel_version: version,
        page_size: sink.page_size,
        systrace: sink.single_stream,
    };
    // each remote machine's process tracker starts with its idle rows
    for machine in 1..sink.machines.rows.len() {
        let idle = ctx.pt.add_remote_idle(machine as u16);
        ctx.thread_state.remote_idle.push(idle);
    }
    power::PowerTracker::apply(&mut ctx, &sink.power);
    crate::trackers::core::import_logs::skipped_packets(&mut ctx, &sink.skipped_packet_logs);
    if let Some(g) = sink.unrelatable_clock {
        // (logged when the first timestamp is converted: before the others)
        crate::trackers::core::import_logs::unrelatable_clock(&mut ctx, g);
    }
    crate::trackers::core::import_logs::tokenizer_logs(&mut ctx, &sink.tokenizer_logs);
    crate::trackers::core::import_logs::ftrace_setup_errors(
        &mut ctx,
        &sink.ftrace_setup_error_logs,
    );
    crate::trackers::core::import_logs::clock_sync_failures(&mut ctx, &sink.clock_failure_logs);
    // (made when trace_processor tokenizes their packets: before the
    // replay makes any track)
    let tokenized_tracks =
        crate::trackers::core::counters::tokenized_tracks(&mut ctx, &sink.tokenized_tracks);
    let mut gpu_counters = crate::trackers::core::counters::GpuCounterValues::default();
    let hard_cut = if sink.preserve_ftrace_buffer {
        None
    } else {
        sink.tracing_started_ts
    };
    // per machine (its cpus are ucpus: machine * 4096 + cpu), as each
    // machine's ftrace parser drops its own
    let machines = sink.machines.rows.len();
    let soft_cuts: Vec<i64> = (0..machines)
        .map(|m| {
            let of_machine = |cpu: i64| cpu / crate::machines::MAX_CPUS_PER_MACHINE == m as i64;
            (sink.first_bundle_end_ts.iter())
                .filter(|x| of_machine(x.0))
                .filter_map(|x| x.1)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut soft_cut = soft_cuts[0];
    // the machine whose event is replayed (`MachineSwitch`): only a trace of
    // several machines changes it
    let mut machine_switch = MachineSwitch::new(machines);

    probe_stage("decoded");
    let sink_order = std::mem::take(&mut sink.order);
    let readers = std::mem::take(&mut sink.machine_readers);
    let order = TsOrder::new(sink_order, &readers, |r| sorter::stream_of(&sink, r));
    let events = order.total();
    probe_stage("sorted");
    // ftrace events before tracing_started are discarded outright
    let mut dropped_before_start = 0i64;

    // (NULL_STR names nothing)
    let names: Vec<Name> = (0..)
        .map_while(|i| {
            let name = sink.strings.try_get(i)?;
            Some((i != NULL_STR as usize).then(|| Rc::<str>::from(name)))
        })
        .collect();
    // The big tables' final sizes are known within bounds: reserving them
    // costs no memory until rows are written (untouched pages), and saves
    // the reallocations that would copy them while the events are still
    // held (the import's peak).
    let mut sched = SchedTracker::default();
    let switches = sink.switches.len() + sink.compact_switches.len();
    sched.table.reserve(switches);
    ctx.thread_state
        .table
        .reserve(2 * switches + sink.wakings.len() + sink.ftrace.len());
    let mut raw = RawTable::default();
    if raw_on {
        raw.reserve(events);
    } else if sink.raw_sched_switch_only {
        raw.reserve(sink.switches.len());
    }
    let mut frames = FrameTimelineTracker::default();
    let mut perf = crate::trackers::extra::perf_sample::PerfSampleTracker::default();
    let mut heaps = crate::trackers::extra::heap_profile::HeapProfileTracker::default();
    let mut trackers = EventTrackers::default();
    let (mut track_events, reservation_errors) =
        crate::trackers::extra::track_event::TrackEventTracker::new(
            std::mem::take(&mut sink.track_event_reservations),
            std::mem::take(&mut sink.first_packet_seqs),
            std::mem::take(&mut sink.track_event_threads),
            std::mem::take(&mut sink.track_event_profiles),
            std::mem::take(&mut sink.track_event_parser),
        );
    for (stat, key, uuid) in reservation_errors {
        let args = vec![(key, Some(ArgVal::Uint(uuid)))];
        ImportLog::record_analysis(&mut ctx, stat, args);
    }
    let mut cpus_seen = CpuSet::default();
    let mut ts_other: Option<(i64, i64)> = None;
    let mut note_other = |ts: i64| {
        ts_other = Some(match ts_other {
            None => (ts, ts),
            Some((a, _)) => (a, ts),
        });
    };
    // per CPU, the last switch's next side (utid, pid, prio): compact_sched
    // infers the prev side of the CPU's next switch from it
    let mut last_running: PerCpu<Running> = PerCpu::default();
    let mut sched_args = SchedArgs::default();
    let mut skipped_compact = 0i64;
    let mut skipped_compact_waking = 0i64;

    // systrace: sched_switch rows only (trace_processor's text reader)
    let raw_switch = raw_on || sink.raw_sched_switch_only;
    // the bulk events' pages go back to the system as the replay reads them
    let mut read_switches = sorter::ReadOnce::new(&sink.switches);
    let mut read_compact = sorter::ReadOnce::new(&sink.compact_switches);
    let mut read_wakings = sorter::ReadOnce::new(&sink.wakings);
    let mut last_read: Option<EvRef> = None;
    // the merge runs ahead on a second thread (a tenth of the replay's
    // time), handing its order over in chunks
    std::thread::scope(|scope| {
        let (merged_tx, merged) = std::sync::mpsc::sync_channel(sorter::CHUNKS_AHEAD);
        let merge = scope.spawn(move || sorter::send_in_chunks(order, merged_tx));
        for (ts, r) in merged.iter().flatten() {
            // the previous event is done with (whichever way its turn ended)
            let (read, i) = match last_read.replace(r) {
                Some(EvRef::Switch(i)) => (&mut read_switches, i),
                Some(EvRef::CompactSwitch(i)) => (&mut read_compact, i),
                Some(EvRef::Waking(i)) => (&mut read_wakings, i),
                _ => (&mut None, 0),
            };
            if let Some(read) = read {
                read.read(i as usize);
            }
            if machines > 1 && machine_switch.to(&mut ctx, &mut trackers, sink.machine_of(r)) {
                soft_cut = soft_cuts[machine_switch.current as usize];
            }
            // (each machine's parser drops its ftrace before its tracing
            // started, else before 0: only a copy placed elsewhere can have
            // its event there)
            if !matches!(r, EvRef::Packet(_)) {
                let cut = match (hard_cut, machine_switch.current) {
                    (Some(cut), 0) => cut,
                    _ => 0,
                };
                let raw_ts = match r {
                    EvRef::Ftrace(i) => sink.ftrace[i as usize].raw_ts,
                    _ => ts,
                };
                if raw_ts < cut {
                    // (counted by the machine's own stats)
                    match machine_switch.current {
                        0 => dropped_before_start += 1,
                        _ => ctx.stats.add("ftrace_packet_before_tracing_start", 1, None),
                    }
                    continue;
                }
            }
            if !sink.common_flags.is_empty() {
                raw.next_flags = sink.common_flags.get(&r).copied().unwrap_or(0);
            }
            match r {
                EvRef::Switch(_) | EvRef::CompactSwitch(_) => {
                    // (this CPU's switches a few ahead: the next one is read
                    // below, for its arg set's slot)
                    if let EvRef::CompactSwitch(k) = r {
                        sorter::prefetch(&sink.compact_switches, k as usize + 4);
                    }
                    let Some(s) = sink.switch(ts, r) else {
                        continue;
                    };
                    // a cpu row comes with the switch's first sched or raw row
                    // (none for a skipped one)
                    let pt = &mut ctx.pt;
                    if s.ts < soft_cut {
                        // soft-dropped: a compact switch still tracks "last"
                        // (with no "last" yet, it is skipped and counted as
                        // any first compact switch of a CPU), counts an
                        // invalid prev_state and makes its raw row; a plain
                        // one makes nothing (its raw row is ParseSchedSwitch's,
                        // which trace_processor skips before the soft start)
                        if s.compact {
                            let u = pt.update_thread_name(
                                s.next_pid,
                                &names[s.next_comm as usize],
                                PRIO_FTRACE,
                            );
                            match last_running.insert(s.cpu, (u, s.next_pid, s.next_prio)) {
                                None => skipped_compact += 1,
                                Some(prev) => {
                                    ctx.states.decode(s.prev_state, machine_switch.current);
                                    if !raw_switch {
                                        continue;
                                    }
                                    cpus_seen.insert(s.cpu);
                                    let a = switch_args(&s, Some((prev, pt)));
                                    let set =
                                        sched_args.switch(&mut ctx.args, &sink.strings, s.cpu, a);
                                    raw.push(
                                        s.ts,
                                        "sched_switch",
                                        s.cpu,
                                        Some(prev.0),
                                        Some(set),
                                        false,
                                    )
                                }
                            }
                        }
                        continue;
                    }
                    let next_utid = pt.update_thread_name(
                        s.next_pid,
                        &names[s.next_comm as usize],
                        PRIO_FTRACE,
                    );
                    let prev_running =
                        last_running.insert(s.cpu, (next_utid, s.next_pid, s.next_prio));
                    let prev_utid = if s.compact {
                        match prev_running {
                            Some(p) => p.0,
                            None => {
                                skipped_compact += 1;
                                continue;
                            }
                        }
                    } else {
                        pt.update_thread_name(s.prev_pid, &names[s.prev_comm as usize], PRIO_FTRACE)
                    };
                    cpus_seen.insert(s.cpu);
                    let state = ctx.states.decode(s.prev_state, machine_switch.current);
                    sched.push(
                        s.ts,
                        s.cpu,
                        s.compact,
                        s.prev_pid,
                        state,
                        s.next_pid,
                        next_utid,
                        s.next_prio,
                    );
                    if raw_switch {
                        let compact_prev = prev_running.filter(|_| s.compact).map(|p| (p, &ctx.pt));
                        let a = switch_args(&s, compact_prev);
                        let set = sched_args.switch(&mut ctx.args, &sink.strings, s.cpu, a);
                        raw.push(
                            s.ts,
                            "sched_switch",
                            s.cpu,
                            Some(prev_utid),
                            Some(set),
                            true,
                        );
                        // the next compact switch of this CPU's bundle:
                        // its set's slot fetched now, a few events ahead
                        if let EvRef::CompactSwitch(k) = r {
                            let next = sink.compact_switches.get(k as usize + 1);
                            if let Some(n) = next.filter(|n| n.cpu as i64 == s.cpu) {
                                let running = (next_utid, s.next_pid, s.next_prio);
                                let next_args = compact_switch_args(n, running, &ctx.pt);
                                sched_args.prefetch_switch(s.cpu, &next_args);
                            }
                        }
                    }
                    ctx.thread_state.switch_out(prev_utid, s.ts, state);
                    ctx.thread_state.switch_in(next_utid, s.ts, s.cpu);
                }
                EvRef::Waking(i) => {
                    sorter::prefetch(&sink.wakings, i as usize + 2);
                    let w = &sink.wakings[i as usize];
                    let pt = &mut ctx.pt;
                    let waker = if w.compact {
                        // the waker is the CPU's running thread: none known yet,
                        // the waking is skipped (no row at all)
                        match last_running.get(w.cpu) {
                            Some(&(k, _, _)) => Some(k),
                            None => {
                                skipped_compact_waking += 1;
                                continue;
                            }
                        }
                    } else {
                        w.pid.map(|p| pt.get_or_create_thread(p))
                    };
                    if raw_on {
                        cpus_seen.insert(w.cpu); // its raw row's cpu
                    }
                    if w.ts < soft_cut {
                        // soft-dropped: its raw row only
                        if raw_on {
                            let set = sched_args.waking(&mut ctx.args, &sink.strings, w);
                            raw.push(w.ts, "sched_waking", w.cpu, waker, Some(set), false);
                        }
                        continue;
                    }
                    // (the wakee's int32 pid read as uint32, as the
                    // reference; its raw arg keeps the int32)
                    let wakee_pid = w.wakee_pid as u32 as i64;
                    let wakee = if w.compact {
                        pt.get_or_create_thread(wakee_pid)
                    } else {
                        pt.update_thread_name(wakee_pid, &names[w.comm as usize], PRIO_FTRACE)
                    };
                    if raw_on {
                        let set = sched_args.waking(&mut ctx.args, &sink.strings, w);
                        raw.push(w.ts, "sched_waking", w.cpu, waker, Some(set), false);
                    }
                    let flags = w
                        .compact
                        .then(|| sink.common_flags.get(&r).copied().unwrap_or(0));
                    // (a bound where it makes a thread_state row: systrace
                    // text has no raw rows, and a waking of the idle thread
                    // or a runnable one makes none)
                    if ctx.thread_state.waking(wakee, w.ts, waker, flags) {
                        note_other(w.ts);
                    }
                }
                EvRef::Ftrace(i) => {
                    let e = &sink.ftrace[i as usize];
                    // an importer's own copy of an event ("__" names) has no row
                    let raw_on = raw_on && !e.name.starts_with("__");
                    if raw_on {
                        cpus_seen.insert(e.cpu); // its raw row's cpu
                    }
                    let utid = if raw_on || e.raw_ts >= soft_cut {
                        Some(ctx.pt.get_or_create_thread(e.pid))
                    } else {
                        None
                    };
                    let symbol_failed = symbol_lookup_failed(e);
                    if raw_on {
                        let arg_set = crate::trackers::core::raw::event_args(&mut ctx.args, e);
                        raw.push(e.ts, e.name, e.cpu, utid, Some(arg_set), false);
                        // its raw args looked the symbol up (a field present)
                        if symbol_failed && symbol_address_field(e.name).is_some_and(|f| e.has(f)) {
                            ctx.stats.add("interned_data_tokenizer_errors", 1, None);
                        }
                    }
                    // a legacy generic event has no typed parser, whatever its name
                    if e.raw_ts < soft_cut || e.generic {
                        continue;
                    }
                    // and so did its typed parser
                    if symbol_failed && parser_looks_up_symbol(e.name) {
                        ctx.stats.add("interned_data_tokenizer_errors", 1, None);
                    }
                    ftrace_event(
                        &mut ctx,
                        &mut trackers.slots,
                        &mut trackers.drm,
                        &mut trackers.binder,
                        &mut trackers.kernel,
                        &mut note_other,
                        e,
                    );
                }
                EvRef::Packet(i) => {
                    let p = &sink.packets[i as usize];
                    match &p.data {
                        PacketData::ProcessTree { processes, threads } => {
                            process_tree(&mut ctx, p.ts, processes, threads)
                        }
                        PacketData::ProcessStats(procs) => {
                            counters::process_stats(&mut ctx, p.ts, procs)
                        }
                        PacketData::SysStats(d) => counters::sys_stats(&mut ctx, p.ts, d),
                        &PacketData::GpuMemTotal { gpu, pid, size } => {
                            counters::gpu_mem_total_packet(&mut ctx, p.ts, gpu, pid, size)
                        }
                        PacketData::FrameTimeline(ev) => frames.event(&mut ctx, p.ts, ev),
                        PacketData::SystemProperty(values) => {
                            atrace::system_property(&mut ctx, p.ts, values)
                        }
                        PacketData::InitialDisplayState(state) => {
                            atrace::screen_state(&mut ctx, p.ts, *state)
                        }
                        &PacketData::GenericCpuFrequency { cpu, hz } => {
                            counters::generic_cpu_frequency(&mut ctx, p.ts, cpu, hz)
                        }
                        &PacketData::GenericGpuFrequency { gpu, khz } => {
                            counters::generic_gpu_frequency(&mut ctx, p.ts, gpu, khz)
                        }
                        PacketData::ThreadName { tid, name } => match name {
                            None => {
                                ctx.pt.get_or_create_thread(*tid);
                            }
                            Some(n) => {
                                ctx.pt.update_thread_name(
                                    *tid,
                                    &Some(Rc::from(n.as_str())),
                                    PRIO_FTRACE,
                                );
                            }
                        },
                        PacketData::ThreadTgid { tid, tgid } => {
                            ctx.pt.update_thread(*tid, *tgid);
                        }
                        PacketData::SystraceDump { processes, threads } => {
                            systrace_dump(&mut ctx.pt, processes, threads)
                        }
                        PacketData::Trigger(t) => {
                            crate::trackers::extra::triggers::slice(&mut ctx, p.ts, t)
                        }
                        PacketData::Log(e) => ctx.logs.push(&mut ctx.pt, p.ts, e),
                        PacketData::SessionState(e) => {
                            crate::trackers::extra::sessions::event(&mut ctx, p.ts, e)
                        }
                        PacketData::Power(e) => power::event(&mut ctx, p.ts, e),
                        PacketData::AflagsError(msg) => {
                            crate::trackers::core::import_logs::aflags_error(&mut ctx, p.ts, msg)
                        }
                        PacketData::TrackEvent(te) => track_events.packet(&mut ctx, p.ts, te),
                        PacketData::PerfSample(s) => {
                            perf.sample(&mut ctx, p.ts, s, track_events.profiles())
                        }
                        &PacketData::SparseCounter { track, value } => {
                            ctx.counters
                                .push(p.ts, tokenized_tracks[track as usize], value, None)
                        }
                        PacketData::GpuCounter(g) => gpu_counters.push(
                            &mut ctx,
                            p.ts,
                            g,
                            &sink.gpu_counter_maps,
                            &tokenized_tracks,
                        ),
                        PacketData::GpuLog(log) => {
                            crate::trackers::core::counters::gpu_log(&mut ctx, p.ts, log)
                        }
                        PacketData::Smaps(smaps) => {
                            crate::trackers::extra::heap_profile::smaps(&mut ctx, p.ts, smaps)
                        }
                        PacketData::AppWakelock(w) => {
                            power::app_wakelock(&mut ctx, &mut trackers.slots, p.ts, w)
                        }
                        PacketData::ModuleSymbols(m) => {
                            ctx.stack_profile.module_symbols(m, &mut ctx.stats)
                        }
                        PacketData::ProfilePacket(pp) => {
                            heaps.packet(&mut ctx, p.ts, pp, track_events.profiles())
                        }
                    }
                }
            }
        }
        // (a panic there is the import's, as on this thread)
        merge
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
    });
    // the other machines' trackers end (the host's below), then the host's
    // are current again; the other machines' stats are kept, the trace's
    // (import logs') counted with the host's
    for machine in 1..machines as u16 {
        machine_switch.to(&mut ctx, &mut trackers, machine);
        std::mem::take(&mut trackers.binder).finish(&mut ctx);
        std::mem::take(&mut trackers.kernel).finish(&mut ctx);
    }
    machine_switch.to(&mut ctx, &mut trackers, 0);
    ctx.machine_stats = machine_switch.stats;
    for ((name, idx), n) in std::mem::take(&mut ctx.trace_stats).entries {
        ctx.stats.add(&name, n, idx);
    }
    if dropped_before_start > 0 {
        ctx.stats.add(
            "ftrace_packet_before_tracing_start",
            dropped_before_start,
            None,
        );
    }
    if ctx.pt.parent_pid_changed > 0 {
        let n = ctx.pt.parent_pid_changed;
        ctx.stats.add("process_tracker_parent_pid_changed", n, None);
    }
    if skipped_compact_waking > 0 {
        ctx.stats
            .add("compact_sched_waking_skipped", skipped_compact_waking, None);
    }
    if skipped_compact > 0 {
        ctx.stats
            .add("compact_sched_switch_skipped", skipped_compact, None);
    }
    crate::trackers::core::slices::finish(&mut ctx);
    ctx.add_per_machine("mismatched_sched_switch_tids", sched.mismatched());
    let invalid = std::mem::take(&mut ctx.states.invalid);
    ctx.add_per_machine("task_state_invalid", &invalid);
    trackers.binder.finish(&mut ctx);
    trackers.kernel.finish(&mut ctx);
    ctx.power.uid_tracks =
        crate::trackers::extra::cpu_per_uid::track_rows(&mut ctx, &sink.cpu_per_uid_totals);
    crate::trackers::core::memory::finish(&mut ctx);
    // the async slices' args, complete now, stored once per content
    track_events.close_pending_flows(&mut ctx);
    track_events.count_parse_stats(&mut ctx);
    // ProfileModule::OnEventsFullyExtracted: a mapping pushed to
    // /data/local/tmp without a build id cannot be symbolized
    let tmp_without_build_id = ctx
        .stack_profile
        .mappings
        .iter()
        .filter(|m| m.name.starts_with("/data/local/tmp/") && m.build_id.is_empty())
        .count();
    if tmp_without_build_id > 0 {
        let stat = "symbolization_tmp_build_id_not_found";
        ctx.stats.add(stat, tmp_without_build_id as i64, None);
    }
    crate::trackers::extra::track_event::sort_index_args(&mut ctx);
    let replaced = ctx.args.commit_pending();
    if !replaced.is_empty() {
        // what referenced a set replaced by an equal one: slices, states
        // and processes' args (the sets that grew after they were made)
        let repoint = |set: &mut Option<i64>| {
            if let Some(to) = set.and_then(|s| replaced.get(&s)) {
                *set = Some(*to);
            }
        };
        ctx.slices
            .rows
            .iter_mut()
            .for_each(|r| repoint(&mut r.arg_set));
        ctx.state_rows.arg_set.iter_mut().for_each(repoint);
        for set in ctx.pt.p_args.values_mut().chain(ctx.pt.t_args.values_mut()) {
            if let Some(to) = replaced.get(set) {
                *set = *to;
            }
        }
    }
    probe_stage("replayed");
    // the tables need none of the events any more (peak RSS)
    for v in [
        &mut sink.switches as &mut dyn Clear,
        &mut sink.compact_switches,
        &mut sink.wakings,
        &mut sink.ftrace,
        &mut sink.packets,
    ] {
        v.clear_free();
    }
    sorter::trim_free_memory();
    probe_stage("freed");
    let cpu_info = crate::trackers::core::cpu::CpuInfoTables::apply(&mut ctx.args, &sink.cpu_info);
    let arg_set_ids = ctx.args.public_ids().into();
    Imported {
        arg_set_ids,
        sink,
        ctx,
        sched,
        raw,
        frames,
        raw_on,
        events,
        cpus_seen: cpus_seen.into_set(),
        ts_other_first_last: ts_other,
        cpu_info,
    }
}

fn ftrace_event(
    c: &mut Ctx,
    slots: &mut AsyncSlots,
    drm: &mut DrmTracker,
    binder: &mut BinderTracker,
    kernel: &mut KernelTrackers,
    note_other: &mut impl FnMut(i64),
    e: &FtraceEv,
) {
    let ts = e.ts;
    match e.name {
        "print" => {
            kernel.syscalls.truncate_write(c, ts, e.pid);
            atrace::print(c, slots, ts, e.pid, e.str("buf").unwrap_or(""))
        }
        "zero" => atrace::zero(c, slots, e),
        "dma_fence_init" | "dma_fence_emit" | "dma_fence_signaled" => {
            let what = match e.name {
                "dma_fence_init" => FenceEvent::Init,
                "dma_fence_emit" => FenceEvent::Emit,
                _ => FenceEvent::Signaled,
            };
            drm.fence(
                c,
                what,
                ts,
                e.str("timeline").unwrap_or(""),
                e.int("context").unwrap_or(0),
                e.int("seqno").unwrap_or(0),
            )
        }
        "dma_fence_wait_start" => DrmTracker::wait_start(
            c,
            ts,
            e.pid,
            e.int("context").unwrap_or(0),
            e.int("seqno").unwrap_or(0),
        ),
        "dma_fence_wait_end" => DrmTracker::wait_end(c, ts, e.pid),
        "drm_vblank_event" => DrmTracker::vblank(c, e, false),
        "drm_vblank_event_delivered" => DrmTracker::vblank(c, e, true),
        "drm_sched_job"
        | "drm_sched_job_queue"
        | "drm_run_job"
        | "drm_sched_job_run"
        | "drm_sched_process_job"
        | "drm_sched_job_done" => drm.sched_job(c, e),
        "binder_transaction" => binder.transaction(
            c,
            ts,
            Transaction {
                tid: e.pid,
                transaction_id: e.int("debug_id").unwrap_or(0),
                dest_node: e.int("target_node").unwrap_or(0),
                // (int32 fields the reference's tracker takes as uint32)
                dest_tgid: e.int("to_proc").unwrap_or(0) as u32 as i128,
                dest_tid: e.int("to_thread").unwrap_or(0) as u32 as i128,
                is_reply: e.int("reply").unwrap_or(0) == 1,
                flags: e.int("flags").unwrap_or(0),
                // protobuf: a number; systrace text: the hex text as written
                code: e
                    .str("code")
                    .map_or_else(|| hex(e.int("code").unwrap_or(0)), str::to_owned),
            },
        ),
        "binder_transaction_received" => {
            binder.received(c, ts, e.pid, e.int("debug_id").unwrap_or(0))
        }
        "binder_transaction_alloc_buf" => binder.alloc_buf(
            c,
            e.pid,
            e.int("data_size").unwrap_or(0),
            e.int("offsets_size").unwrap_or(0),
        ),
        "dpu_tracing_mark_write" => atrace::kernel_mark(c, slots, e),
        "tracing_mark_write"
        | "sde_tracing_mark_write"
        | "g2d_tracing_mark_write"
        | "samsung_tracing_mark_write"
        | "mali_tracing_mark_write"
        | "panel_write_generic"
        | "lwis_tracing_mark_write" => atrace::kernel_mark_variant(c, slots, e),
        "cpu_frequency" => counters::cpu_frequency(c, ts, e),
        "cpu_frequency_limits" => counters::cpu_frequency_limits(c, ts, e),
        "cpu_idle" => counters::cpu_idle(c, ts, e),
        "sched_cpu_util_cfs" => counters::sched_cpu_util_cfs(c, ts, e),
        ACPM_BULK_COPY | "thermal_exynos_acpm_high_overhead" => {
            counters::thermal_exynos_acpm(c, ts, e)
        }
        "devfreq_frequency" => counters::devfreq(c, ts, e),
        "clock_set_rate" => counters::clock_set_rate(c, ts, e),
        "wakeup_source_activate" => power::wakeup_source_activate(c, ts, e),
        "wakeup_source_deactivate" => power::wakeup_source_deactivate(c, ts, e),
        "suspend_resume" => power::suspend_resume(c, ts, e),
        "gpu_frequency" => counters::gpu_frequency(c, ts, e),
        GPU_WORK_PERIOD_COPY => counters::gpu_work_period(c, ts, e),
        CPM_COPY | FWTP_COUNTER_COPY => counters::pixel_firmware_counter(c, ts, e),
        FWTP_SLICE_COPY => kernel.fwtp_slice(c, ts, e),
        "cros_ec_sensorhub_data" => counters::cros_ec_sensorhub_data(c, ts, e),
        "bcl_irq_trigger" => counters::bcl_irq(c, ts, e),
        "gpu_mem_total" => counters::gpu_mem_total(c, ts, e),
        "dcvsh_freq" => counters::cpu_freq_throttle(c, ts, e),
        "kgsl_gpu_frequency" => counters::kgsl_gpu_frequency(c, ts, e),
        "ufshcd_command"
        | "ufshcd_clk_gating"
        | "cpuhp_enter"
        | "cpuhp_multi_enter"
        | "cpuhp_exit"
        | "dma_heap_stat"
        | "android_fs_dataread_start"
        | "android_fs_dataread_end"
        | "gpu_power_state"
        | "mali_gpu_power_state"
        | "fastrpc_dma_stat"
        | "google_icc_event"
        | "google_irm_event" => kernel.devices.event(c, slots, e),
        "virtio_gpu_cmd_queue" | "virtio_gpu_cmd_response" => kernel.virtio_gpu.event(c, slots, e),
        "virtio_video_cmd"
        | "virtio_video_cmd_done"
        | "virtio_video_resource_queue"
        | "virtio_video_resource_queue_done" => crate::trackers::extra::virtio::video(c, slots, e),
        "clock_enable" | "clock_disable" => counters::clock_state(c, ts, e),
        "thermal_temperature" => counters::thermal_temperature(c, ts, e),
        "cdev_update" => counters::cdev_update(c, ts, e),
        "rss_stat" | "rss_stat_throttled" => crate::trackers::core::memory::rss_stat(c, ts, e),
        "oom_score_adj_update" => crate::trackers::core::memory::oom_score_adj_update(c, ts, e),
        "suspend_resume_minimal" => power::suspend_resume_minimal(c, ts, e),
        "rpm_status" => power::rpm_status(c, ts, e),
        "device_pm_callback_start" => power::device_pm_callback_start(c, e),
        "device_pm_callback_end" => power::device_pm_callback_end(c, ts, e),
        "dmabuf_rss_stat" => crate::trackers::core::memory::dmabuf_rss_stat(c, ts, e),
        "mm_event_record" => crate::trackers::core::memory::mm_event_record(c, ts, e),
        "task_newtask" => {
            // (its int32 pid read as uint32, as the reference)
            let new_tid = e.int("pid").unwrap_or(0) as u32 as i64;
            if new_tid == 0 {
                return;
            }
            let comm: Name = e.str("comm").map(Rc::from);
            let pt = &mut c.pt;
            let (src, new);
            if e.int("clone_flags").unwrap_or(0) & CLONE_THREAD == 0 {
                pt.start_new_process(Some(ts), Some(e.pid), new_tid, &comm, PRIO_FTRACE);
                src = pt.get_or_create_thread(e.pid);
                new = pt.get_or_create_thread(new_tid);
            } else {
                src = pt.get_or_create_thread(e.pid);
                new = pt.start_new_thread(Some(ts), new_tid);
                pt.set_thread_name(new, &comm, PRIO_FTRACE);
                pt.associate_threads(src, new);
            }
            note_other(ts);
            c.thread_state.new_task(new, ts, src);
        }
        "task_rename" => {
            // (an absent newcomm is the null string: no rename)
            let name: Name = e.str("newcomm").map(Rc::from);
            // (its int32 pid read as uint32, as the reference)
            c.pt.update_thread_name_and_maybe_process(
                e.int("pid").unwrap_or(0) as u32 as i64,
                &name,
                PRIO_FTRACE,
            );
        }
        // (its int32 pid read as uint32, as the reference)
        "sched_process_free" => c.pt.end_thread(ts, e.int("pid").unwrap_or(0) as u32 as i64),
        "sched_blocked_reason" => {
            // no thread_state row of its own, so no bound: its ftrace_event
            // row (protobuf) gives one, systrace text has none
            // (its int32 pid read as uint32, as the reference)
            let utid =
                c.pt.get_or_create_thread(e.int("pid").unwrap_or(0) as u32 as i64);
            // systrace text names the function, protobuf interns it
            let function = e.str("caller").or(e.str(SYMBOL_FIELD));
            c.thread_state
                .blocked_reason(utid, e.int("io_wait").unwrap_or(0) != 0, function);
        }
        "irq_handler_entry" | "irq_handler_exit" | "local_timer_entry" | "local_timer_exit"
        | "softirq_entry" | "softirq_exit" => irq::event(c, e),
        "binder_command" => binder.command(c, e.pid, e.int("cmd").unwrap_or(0)),
        "binder_lock" => binder.lock(c, ts, e.pid),
        "binder_locked" => binder.locked(c, ts, e.pid),
        "binder_unlock" => binder.unlock(c, ts, e.pid),
        "binder_return" => binder.returned(c, ts, e.pid, e.int("cmd").unwrap_or(0)),
        _ => kernel.event(c, e),
    }
}

/// A kworker's comm without the workqueue it last ran
/// ("kworker/45:2-mm_percpu_wq" -> "kworker/45:2"), as trace_processor
/// names kernel workers (the suffix is transient).
fn truncate_kworker(name: &str) -> &str {
    match name.strip_prefix("kworker/") {
        Some(rest) => match rest.find(['+', '-']) {
            Some(i) => &name[..8 + i],
            None => name,
        },
        None => name,
    }
}

fn process_tree(ctx: &mut Ctx, ts: i64, processes: &[TreeProcess], threads: &[TreeThread]) {
    let pt = &mut ctx.pt;
    let mut kthreads = Vec::new();
    let mut missing_process = 0;
    let mut kthread_args = Vec::new();
    for p in processes {
        if p.cmdline.is_empty() {
            continue;
        }
        if !p.nspid.is_empty() {
            pt.update_namespaced_process(p.pid, p.nspid.clone());
        }
        let cmd = &p.cmdline;
        let mut argv0: &str = &cmd[0];
        // a kworker's cmdline is its truncated name too
        let mut joined = None;
        if p.ppid == Some(KTHREADD_PID) {
            kthreads.push(p.pid);
            let truncated = truncate_kworker(argv0);
            if truncated.len() != argv0.len() {
                argv0 = truncated;
                joined = Some(truncated.to_owned());
            }
        }
        if cmd.len() == 1 {
            argv0 = argv0.split(' ').next().unwrap_or("");
        }
        let joined = joined.unwrap_or_else(|| cmd.join(" "));
        // no ppid is the protobuf default 0: pid 0's process is the parent
        let pupid = pt.get_or_create_process(p.ppid.unwrap_or(0));
        let upid = pt.get_or_create_process(p.pid) as usize;
        let name: Name = Some(Rc::from(argv0));
        pt.set_process_name(upid as u32, &name, PNAME_SYSTEM);
        pt.set_process_parent(upid as u32, pupid);
        if p.uid.is_some() {
            pt.p_uid[upid] = p.uid;
        }
        if p.start_ts.is_some() && pt.p_start[upid].is_none() {
            pt.p_start[upid] = p.start_ts;
        }
        if p.cmdline_is_comm {
            // the thread is named by the (joined) cmdline, as trace_processor
            // (GetOrCreateThread: the pid's newest live thread, whichever
            // process it is in)
            let main = pt.get_or_create_thread(p.pid);
            pt.set_thread_name(main, &Some(Rc::from(joined.as_str())), PRIO_PROCESS_TREE);
        }
        pt.p_cmdline[upid] = Some(joined);
        if let Some(k) = p.is_kthread {
            kthread_args.push((upid as u32, k));
        }
    }
    for t in threads {
        let utid = pt.update_thread(t.tid, t.tgid);
        if let Some(n) = &t.name {
            let n = if t.tid == t.tgid && kthreads.contains(&t.tid) {
                truncate_kworker(n)
            } else {
                n
            };
            pt.set_thread_name(utid, &Some(Rc::from(n)), PRIO_PROCESS_TREE);
        }
        if !t.nstid.is_empty() && !pt.update_namespaced_thread(t.tgid, t.tid, t.nstid.clone()) {
            // its process's namespaces are unknown (data loss): a parser log
            missing_process += 1;
        }
    }
    for (upid, k) in kthread_args {
        add_process_args(ctx, upid, &[("is_kthread", Some(ArgVal::Bool(k)))]);
    }
    for _ in 0..missing_process {
        ImportLog::record(ctx, ts, "namespaced_thread_missing_process", Vec::new());
    }
}

/// A systrace PROCESS DUMP (systrace_trace_parser.cc): processes get their
/// ps NAME and no cmdline; thread names come at the lowest priority,
/// so ftrace comms override them.
fn systrace_dump(
    pt: &mut ProcessTracker,
    processes: &[(i64, i64, String)],
    threads: &[(i64, i64, String)],
) {
    for (pid, ppid, name) in processes {
        let pupid = pt.get_or_create_process(*ppid);
        let upid = pt.get_or_create_process(*pid) as usize;
        pt.set_process_parent(upid as u32, pupid);
        pt.set_process_name(upid as u32, &Some(Rc::from(name.as_str())), PNAME_SYSTEM);
        // an empty cmdline, which trace_processor's string pool stores as NULL
        pt.p_cmdline[upid] = None;
    }
    for (tid, tgid, name) in threads {
        let utid = pt.update_thread(*tid, *tgid);
        pt.set_thread_name(utid, &Some(Rc::from(name.as_str())), PRIO_OTHER);
    }
}

trait Clear {
    fn clear_free(&mut self);
}

impl<T> Clear for Vec<T> {
    fn clear_free(&mut self) {
        *self = Vec::new();
    }
}

/// With ARTSCOPE_CORE_TIMINGS set, prints the thread's CPU time and the
/// resident and peak memory at a stage of the import (where the time and
/// the peak are: bench/README).
pub fn probe_stage(tag: &str) {
    if std::env::var_os("ARTSCOPE_CORE_TIMINGS").is_none() {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("?")
            .to_string()
    };
    // utime + stime of this thread, in clock ticks (100 Hz)
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let ticks: u64 = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse::<u64>().ok())
        .sum();
    eprintln!(
        "core: import {tag}: cpu {:.2} s, rss {} kB, peak {} kB",
        ticks as f64 / 100.0,
        field("VmRSS:"),
        field("VmHWM:")
    );
}

/// A compact switch's raw args, `running` (the CPU's running thread) its
/// prev side, as `switch_args` makes them.
fn compact_switch_args<'a>(
    n: &CompactSwitch,
    running: Running,
    pt: &'a ProcessTracker,
) -> SwitchArgs<'a> {
    switch_args(&n.at(0), Some((running, pt)))
}

/// A CPU's running thread as its last switch left it: (utid, pid, prio).
type Running = (u32, i64, i64);

/// A sched_switch raw row's args: the event's own fields, or for a
/// compact_sched switch (`compact_prev`: the CPU's running thread before
/// it) the inferred prev side: that thread's pid and prio and its name now
/// (FtraceSchedEventTracker::PushSchedSwitchCompact).
fn switch_args<'a>(
    s: &Switch,
    compact_prev: Option<(Running, &'a ProcessTracker)>,
) -> SwitchArgs<'a> {
    let (prev_comm, prev_pid, prev_prio) = match compact_prev {
        Some(((utid, pid, prio), pt)) => {
            let comm = match &pt.t_name[utid as usize] {
                Some(name) => Comm::Name(name),
                None => Comm::Null,
            };
            (comm, pid, prio)
        }
        None => (Comm::Str(s.prev_comm), s.prev_pid, s.prev_prio),
    };
    SwitchArgs {
        prev_comm,
        prev_pid,
        prev_prio,
        prev_state: s.prev_state,
        next_comm: s.next_comm,
        next_pid: s.next_pid,
        next_prio: s.next_prio,
    }
}
