//! Perf samples (traced_perf's `linux.perf` data source) as trace_processor
//! v58.2 imports them: ProfileModule::ParsePerfSample and PerfSampleTracker
//! (importers/proto/profile_module.cc, perf_sample_tracker.cc).
//!
//! - Each packet sequence is a perf session (`perf_session`, ids in order
//!   of first sample); each (sequence, cpu) a sampling stream with its
//!   counter tracks (`perf_counter_track`: type `perf_cpu_counter`, one for
//!   the timebase and one per follower event, named as the perf tool names
//!   them), made from the sequence's PerfSampleDefaults when the stream's
//!   first sample is read (without defaults: a `cpu-clock` timebase, as
//!   Android R / early S producers had).
//! - A sample with kernel_records_lost is only a `perf_cpu_lost_records`
//!   stat for its cpu; one with a producer event only marks a guardrail
//!   stop (`perf_guardrail_stop_ts`).
//! - Any other sample is a `perf_sample` row (its thread, cpu, cpu mode,
//!   callsite when its callstack resolves, unwind error, session) and a
//!   counter value per count it carries.
//!
//! perf_sample rows share their ids with `cpu_profile_stack_sample`'s
//! (trace_processor's `__intrinsic_profiler_sample` holds both).

use rustc_hash::FxHashMap;

use crate::decoder::stack_profile::ProfileInterned;
use crate::events::profiles::{PerfDefaults, PerfEvent, PerfSampleEv};
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::extra::stack_profile::{SampleRow, SampleSource};
use crate::trackers::Ctx;

/// PerfSample.SampleSkipReason values that count a stat.
const SKIP_READ_STAGE: i32 = 1;
const SKIP_UNWIND_STAGE: i32 = 2;
const SKIP_UNWIND_ENQUEUE: i32 = 3;
/// ProducerEvent.DataSourceStopReason PROFILER_STOP_GUARDRAIL.
const STOP_GUARDRAIL: i32 = 1;

#[derive(Default)]
pub struct PerfSampleTracker {
    /// per sequence: its session and its streams per cpu
    sequences: FxHashMap<u32, Sequence>,
}

struct Sequence {
    session: u32,
    /// cpu -> (timebase track, follower tracks)
    streams: FxHashMap<u32, (u32, Vec<u32>)>,
}

impl PerfSampleTracker {
    pub fn sample(&mut self, c: &mut Ctx, ts: i64, s: &PerfSampleEv, profiles: &[ProfileInterned]) {
        let cpu = s.cpu.unwrap_or(0);
        let (session, timebase, followers) = self.stream(c, s.seq_id, cpu, s.defaults.as_deref());
        if s.kernel_records_lost > 0 {
            c.stats.add(
                "perf_cpu_lost_records",
                s.kernel_records_lost as i64,
                Some(cpu as i32 as i64),
            );
            return;
        }
        if let Some(reason) = s.producer_stop_reason {
            if reason == STOP_GUARDRAIL {
                c.stats
                    .set("perf_guardrail_stop_ts", ts, Some(session as i64));
            }
            return;
        }
        match s.skipped_reason {
            Some(SKIP_READ_STAGE | SKIP_UNWIND_STAGE) => {
                c.stats.add("perf_samples_skipped", 1, None)
            }
            Some(SKIP_UNWIND_ENQUEUE) => c.stats.add("perf_samples_skipped_dataloss", 1, None),
            _ => {}
        }
        if let Some(count) = s.timebase_count {
            c.counters.push(ts, timebase, count as f64, None);
        }
        for (&count, &track) in s.follower_counts.iter().zip(&followers) {
            c.counters.push(ts, track, count as f64, None);
        }
        let utid = c.pt.update_thread(s.tid as i64, s.pid as i64);
        let upid = c.pt.get_or_create_process(s.pid as i64);
        let callsite = s.callstack.as_ref().and_then(|r| {
            let profile = &profiles[r.incremental_state as usize];
            c.stack_profile
                .interned_callstack(profile, r, Some(upid), &mut c.stats)
        });
        if let Some(cpu) = s.cpu {
            // CpuTracker::GetOrCreateCpu
            c.tracks.cpus.insert(cpu as i64);
        }
        c.stack_profile.samples.push(SampleRow {
            ts,
            callsite,
            utid,
            source: SampleSource::Perf {
                cpu: s.cpu,
                cpu_mode: cpu_mode(s.cpu_mode),
                unwind_error: s.unwind_error.map(unwind_error),
                session,
            },
        });
    }

    /// PerfSampleTracker::GetSamplingStreamInfo: the sequence's session and
    /// the cpu's counter tracks, made on first use.
    fn stream(
        &mut self,
        c: &mut Ctx,
        seq_id: u32,
        cpu: u32,
        defaults: Option<&[u8]>,
    ) -> (u32, u32, Vec<u32>) {
        let sessions = &mut c.stack_profile.perf_sessions;
        let seq = self.sequences.entry(seq_id).or_insert_with(|| {
            *sessions += 1;
            Sequence {
                session: *sessions - 1,
                streams: FxHashMap::default(),
            }
        });
        let session = seq.session;
        if let Some((timebase, followers)) = seq.streams.get(&cpu) {
            return (session, *timebase, followers.clone());
        }
        let defaults = defaults.map(PerfDefaults::parse);
        let timebase_name = match &defaults {
            Some(d) => d.timebase.name(),
            None => counter_name(SW_CPU_CLOCK).to_owned(),
        };
        let mut track = |name: &str, is_timebase: bool| {
            c.tracks.intern_with(
                &mut c.args,
                "perf_cpu_counter",
                Some(name),
                "counter",
                vec![
                    ("cpu", Dim::Int(cpu as i64)),
                    ("perf_session_id", Dim::Int(session as i64)),
                    ("name", Dim::Str(name.to_owned())),
                ],
                Owner {
                    cpu: Some(cpu as i64),
                    ..Default::default()
                },
                None,
                || vec![("is_timebase", Some(ArgVal::Bool(is_timebase)))],
            )
        };
        let timebase = track(&timebase_name, true);
        let followers: Vec<u32> = defaults
            .iter()
            .flat_map(|d| &d.followers)
            .map(|f| track(&f.name(), false))
            .collect();
        if let Some(d) = defaults.as_ref().filter(|d| d.process_shard_count > 0) {
            let idx = Some(session as i64);
            c.stats.set(
                "perf_process_shard_count",
                d.process_shard_count as i64,
                idx,
            );
            c.stats.set(
                "perf_chosen_process_shard",
                d.chosen_process_shard as i64,
                idx,
            );
        }
        seq.streams.insert(cpu, (timebase, followers.clone()));
        (session, timebase, followers)
    }
}

/// PerfEvents.Counter SW_CPU_CLOCK: the timebase of a stream without
/// defaults.
const SW_CPU_CLOCK: i32 = 1;

impl PerfEvent {
    /// InternCounterName: the configured name, else the counter's, the
    /// tracepoint's or the raw event's, with the perf tool's modifier
    /// suffix (`:uk`).
    fn name(&self) -> String {
        let mut name = if !self.name.is_empty() {
            self.name.clone()
        } else if let Some(c) = self.counter {
            counter_name(c).to_owned()
        } else if let Some(tp) = &self.tracepoint {
            tp.clone()
        } else if let Some((t, c0, c1, c2)) = self.raw_event {
            crate::trackers::stack_string(format!("raw.0x{t:x}.0x{c0:x}.0x{c1:x}.0x{c2:x}"), 128)
        } else {
            "unknown".to_owned()
        };
        let suffix: String = self
            .modifiers
            .iter()
            .filter_map(|&m| match m as i32 {
                1 => Some('u'),
                2 => Some('k'),
                3 => Some('h'),
                _ => None,
            })
            .collect();
        if !suffix.is_empty() {
            name.push(':');
            name.push_str(&suffix);
        }
        name
    }
}

/// StringifyCounter: the perf tool's name of a PerfEvents.Counter.
fn counter_name(counter: i32) -> &'static str {
    const NAMES: [&str; 21] = [
        "unknown",
        "cpu-clock",
        "page-faults",
        "task-clock",
        "context-switches",
        "cpu-migrations",
        "minor-faults",
        "major-faults",
        "alignment-faults",
        "emulation-faults",
        "cpu-cycles",
        "instructions",
        "cache-references",
        "cache-misses",
        "branch-instructions",
        "branch-misses",
        "bus-cycles",
        "stalled-cycles-frontend",
        "stalled-cycles-backend",
        "ref-cycles",
        "dummy",
    ];
    usize::try_from(counter)
        .ok()
        .and_then(|i| NAMES.get(i))
        .copied()
        .unwrap_or("unknown")
}

/// StringifyCpuMode; None for MODE_UNKNOWN (perf_sample shows 'unknown').
fn cpu_mode(mode: i32) -> Option<&'static str> {
    match mode {
        1 => Some("kernel"),
        2 => Some("user"),
        3 => Some("hypervisor"),
        4 => Some("guest_kernel"),
        5 => Some("guest_user"),
        _ => None,
    }
}

/// StringifyStackUnwindError.
fn unwind_error(e: i32) -> &'static str {
    const NAMES: [&str; 16] = [
        "unknown",
        "none",
        "memory_invalid",
        "unwind_info",
        "unsupported",
        "invalid_map",
        "max_frames_exceeded",
        "repeated_frame",
        "invalid_elf",
        "system_call",
        "thread_timeout",
        "thread_does_not_exist",
        "bad_arch",
        "maps_parse",
        "invalid_parameter",
        "ptrace_call",
    ];
    usize::try_from(e)
        .ok()
        .and_then(|i| NAMES.get(i))
        .copied()
        .unwrap_or("unknown")
}
