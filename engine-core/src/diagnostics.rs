//! trace_processor's trace diagnostics (`__intrinsic_trace_diagnostics`):
//! known-bad trace config settings that make a recording untrustworthy (a
//! tiny ftrace buffer, a low drain bandwidth, a DISCARD buffer behind a
//! streaming trace, ...), one row per finding, with trace_processor's keys,
//! texts and confidences (v58.2, TraceDiagnosticsTracker: the rules read the
//! last TraceConfig of the trace once it is fully read, and the stats and
//! metadata some of them weigh in).
//!
//! Reimplemented from the rules' documented behaviour; checked row for row
//! against trace_processor_shell on the conformance cases.

use crate::decoder::wire::{text_ref, Fields, Value};
use crate::events::Stats;
use crate::metadata::{MetaVal, Metadata};
use crate::tp_stats::STATS;

/// One `__intrinsic_trace_diagnostics` row.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub key: &'static str,
    pub title: &'static str,
    pub description: String,
    pub remediation: &'static str,
    pub confidence: f64,
}

/// What the rules read besides the config.
struct Evidence<'a> {
    stats: &'a Stats,
    metadata: &'a Metadata,
    /// the trace carries display video frames
    video_frames: bool,
}

impl Evidence<'_> {
    /// A stat with a positive value whose name satisfies `pred` (every stat
    /// the importer counts belongs to the one trace and machine it reads).
    fn any_positive(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.stats
            .entries
            .iter()
            .any(|((name, _), v)| *v > 0 && pred(name))
    }

    fn severity(name: &str) -> Option<&'static str> {
        STATS.iter().find(|s| s.name == name).map(|s| s.severity)
    }

    /// Ftrace lost events on some cpu: strong evidence a buffer or
    /// bandwidth setting actually bit.
    fn ftrace_data_loss(&self) -> bool {
        self.any_positive(|n| {
            matches!(
                n,
                "ftrace_cpu_has_data_loss"
                    | "ftrace_cpu_overrun_delta"
                    | "ftrace_cpu_commit_overrun_delta"
            )
        })
    }

    /// A rule's `confidence`, raised to 0.9 when ftrace did lose data.
    fn unless_data_lost(&self, confidence: f64) -> f64 {
        if self.ftrace_data_loss() {
            0.9
        } else {
            confidence
        }
    }

    fn heapprofd_errors(&self) -> bool {
        self.any_positive(|n| n.starts_with("heapprofd") && Self::severity(n) == Some("error"))
    }

    fn video_errors(&self) -> bool {
        self.any_positive(|n| {
            n.starts_with("android_video_")
                && matches!(Self::severity(n), Some("error" | "data_loss"))
        })
    }

    /// The build type of the fingerprint (brand/product/device:release/id/
    /// incr:type/tags) is `user`.
    fn android_user_build(&self) -> bool {
        let Some(MetaVal::Str(fp)) = self.metadata.get("android_build_fingerprint") else {
            return false;
        };
        let Some((_, rest)) = fp.rsplit_once(':') else {
            return false;
        };
        rest.split('/').next() == Some("user")
    }

    /// When tracing started, in ns since boot: the trace's clock is
    /// BOOTTIME (the importer converts other clocks to it), so the recorded
    /// `tracing_started_ns` is already that.
    fn tracing_started_since_boot_ns(&self) -> Option<i64> {
        self.metadata.get_int("tracing_started_ns")
    }
}

/// The fields of a protobuf message the rules read: for a singular field
/// the last occurrence wins (protobuf's merge rule), repeated ones keep all.
#[derive(Default)]
struct Msg<'a> {
    fields: Vec<(u32, Value<'a>)>,
}

impl<'a> Msg<'a> {
    fn parse(raw: &'a [u8]) -> Self {
        // a malformed tail ends the message, as trace_processor's decoder does
        let fields = Fields::new(raw).map_while(Result::ok).collect();
        Msg { fields }
    }

    fn last(&self, num: u32) -> Option<&Value<'a>> {
        self.fields.iter().rev().find(|f| f.0 == num).map(|f| &f.1)
    }

    fn varint(&self, num: u32) -> Option<u64> {
        match self.last(num) {
            Some(Value::Varint(x)) => Some(*x),
            _ => None,
        }
    }

    fn u32(&self, num: u32) -> Option<u32> {
        self.varint(num).map(|x| x as u32)
    }

    fn flag(&self, num: u32) -> bool {
        self.varint(num).is_some_and(|x| x != 0)
    }

    fn message(&self, num: u32) -> Option<Msg<'a>> {
        match self.last(num) {
            Some(Value::Bytes(b)) => Some(Msg::parse(b)),
            _ => None,
        }
    }

    fn repeated_bytes(&self, num: u32) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.fields.iter().filter_map(move |f| match f {
            (n, Value::Bytes(b)) if *n == num => Some(*b),
            _ => None,
        })
    }

    fn strings(&self, num: u32) -> Vec<String> {
        self.repeated_bytes(num)
            .map(|b| text_ref(b).into_owned())
            .collect()
    }
}

// protos/perfetto/config: TraceConfig, DataSourceConfig, FtraceConfig,
// HeapprofdConfig field numbers
const TC_BUFFERS: u32 = 1;
const TC_DATA_SOURCES: u32 = 2;
const TC_WRITE_INTO_FILE: u32 = 8;
const TC_FILE_WRITE_PERIOD_MS: u32 = 9;
const BUFFER_FILL_POLICY: u32 = 4;
const FILL_POLICY_DISCARD: u64 = 2;
const DATA_SOURCE_CONFIG: u32 = 1;
const DS_NAME: u32 = 1;
const DS_TARGET_BUFFER: u32 = 2;
const DS_FTRACE_CONFIG: u32 = 100;
const DS_HEAPPROFD_CONFIG: u32 = 105;
const FT_EVENTS: u32 = 1;
const FT_BUFFER_SIZE_KB: u32 = 10;
const FT_DRAIN_PERIOD_MS: u32 = 11;
const FT_SYMBOLIZE_KSYMS: u32 = 13;
const FT_SYSCALL_EVENTS: u32 = 18;
const FT_ENABLE_FUNCTION_GRAPH: u32 = 19;
const FT_PRESERVE_FTRACE_BUFFER: u32 = 23;
const HEAPPROFD_SAMPLING_INTERVAL_BYTES: u32 = 1;

/// The diagnostics of a trace: the rules run on its last TraceConfig (none
/// without one), in trace_processor's rule order.
pub fn run(
    trace_configs: &[Vec<u8>],
    stats: &Stats,
    metadata: &Metadata,
    video_frames: bool,
) -> Vec<Diagnostic> {
    let Some(raw) = trace_configs.last() else {
        return Vec::new();
    };
    let config = Msg::parse(raw);
    let ev = Evidence {
        stats,
        metadata,
        video_frames,
    };
    let sources: Vec<Msg> = config
        .repeated_bytes(TC_DATA_SOURCES)
        .filter_map(|ds| Msg::parse(ds).message(DATA_SOURCE_CONFIG))
        .collect();
    let ftrace: Vec<Msg> = sources
        .iter()
        .filter_map(|ds| ds.message(DS_FTRACE_CONFIG))
        .collect();
    let mut out = Vec::new();
    for rule in [
        preserve_ftrace_buffer_late_start,
        tiny_ftrace_buffer,
        low_ftrace_drain_bandwidth,
        extreme_ftrace_drain_period,
        syscalls_without_filter,
        events_require_symbolize_ksyms,
    ] {
        // every ftrace data source is checked (a trace may have several)
        for f in &ftrace {
            rule(f, &ev, &mut out);
        }
    }
    discard_buffer_for_streaming(&config, &sources, &mut out);
    heapprofd_sampling_interval_too_low(&sources, &ev, &mut out);
    display_video_not_enabled(&sources, &ev, &mut out);
    out
}

const SYMBOLIZE_KSYMS_FIX: &str = "Set symbolize_ksyms: true in the ftrace config.";

/// preserve_ftrace_buffer set though tracing started long after boot: the
/// preserved buffer may hold very old events.
fn preserve_ftrace_buffer_late_start(f: &Msg, ev: &Evidence, out: &mut Vec<Diagnostic>) {
    const LATE_NS: i64 = 5 * 60 * 1_000_000_000;
    if !f.flag(FT_PRESERVE_FTRACE_BUFFER) {
        return;
    }
    if ev
        .tracing_started_since_boot_ns()
        .map_or(true, |ns| ns <= LATE_NS)
    {
        return;
    }
    out.push(Diagnostic {
        key: "preserve_ftrace_buffer_late_start",
        title: "Unnecessary preserve_ftrace_buffer",
        description: "preserve_ftrace_buffer is set but tracing started more than a few \
                      minutes after boot; the preserved ftrace buffer may contain very old, \
                      misleading events."
            .into(),
        remediation: "Unset preserve_ftrace_buffer, or only use it when starting tracing \
                      shortly after boot.",
        confidence: 0.7,
    });
}

/// buffer_size_kb under 1 MB: 0.9 at 64 KB and below, falling linearly to
/// 0.2 towards 1 MB; 0.9 whenever ftrace did lose data.
fn tiny_ftrace_buffer(f: &Msg, ev: &Evidence, out: &mut Vec<Diagnostic>) {
    const OK_KB: u32 = 1024;
    const SEVERE_KB: u32 = 64;
    let Some(kb) = f.u32(FT_BUFFER_SIZE_KB) else {
        return;
    };
    // 0 asks for the default size
    if kb == 0 || kb >= OK_KB {
        return;
    }
    let confidence = ev.unless_data_lost(if kb <= SEVERE_KB {
        0.9
    } else {
        let t = (kb - SEVERE_KB) as f64 / (OK_KB - SEVERE_KB) as f64;
        0.9 + t * (0.2 - 0.9)
    });
    out.push(Diagnostic {
        key: "tiny_ftrace_buffer",
        title: "Ftrace buffer too small",
        description: format!(
            "ftrace buffer_size_kb is only {kb} KB (< 1 MB); the kernel ftrace buffer may \
             overrun and drop events under load."
        ),
        remediation: "Avoid setting buffer_size_kb explicitly; leave it unset to use the \
                      default, which is tuned for typical workloads.",
        confidence,
    });
}

/// buffer_size_kb / drain_period_ms under 5 MB/s: confidence rising
/// linearly to 0.9 at 1 MB/s and below; 0.9 whenever ftrace did lose data.
fn low_ftrace_drain_bandwidth(f: &Msg, ev: &Evidence, out: &mut Vec<Diagnostic>) {
    const OK_MB_S: f64 = 5.0;
    const SEVERE_MB_S: f64 = 1.0;
    let (Some(kb), Some(period_ms)) = (f.u32(FT_BUFFER_SIZE_KB), f.u32(FT_DRAIN_PERIOD_MS)) else {
        return;
    };
    if kb == 0 || period_ms == 0 {
        return;
    }
    let mb_per_s = (kb as f64 / 1024.0) / (period_ms as f64 / 1000.0);
    if mb_per_s >= OK_MB_S {
        return;
    }
    let confidence = ev.unless_data_lost(if mb_per_s <= SEVERE_MB_S {
        0.9
    } else {
        0.9 * ((OK_MB_S - mb_per_s) / (OK_MB_S - SEVERE_MB_S))
    });
    out.push(Diagnostic {
        key: "low_ftrace_drain_bandwidth",
        title: "Low ftrace drain bandwidth",
        description: format!(
            "ftrace drain bandwidth is low (buffer_size_kb={kb}, drain_period_ms={period_ms} \
             gives under 5 MB/s); a burst of events can overflow the buffer before it is \
             drained."
        ),
        remediation: "Leave buffer_size_kb and drain_period_ms unset to use the defaults, or \
                      raise buffer_size_kb / lower drain_period_ms to increase the drain \
                      bandwidth above 5 MB/s.",
        confidence,
    });
}

/// drain_period_ms outside [100 ms, 60 s].
fn extreme_ftrace_drain_period(f: &Msg, _ev: &Evidence, out: &mut Vec<Diagnostic>) {
    let Some(ms) = f.u32(FT_DRAIN_PERIOD_MS) else {
        return;
    };
    if (100..=60_000).contains(&ms) {
        return;
    }
    out.push(Diagnostic {
        key: "extreme_ftrace_drain_period",
        title: "Extreme ftrace drain period",
        description: format!(
            "ftrace drain_period_ms is {ms} ms, outside the sane range [100, 60000]; this can \
             cause excessive CPU wakeups or buffer overruns."
        ),
        remediation: "Set drain_period_ms within the advised range or, better, leave it unset \
                      to the default values.",
        confidence: 0.6,
    });
}

/// raw_syscalls enabled without a syscall_events filter: 0.3, or 0.9 when
/// ftrace did lose data.
fn syscalls_without_filter(f: &Msg, ev: &Evidence, out: &mut Vec<Diagnostic>) {
    let events = f.strings(FT_EVENTS);
    let syscalls = events
        .iter()
        .any(|e| e == "raw_syscalls/sys_enter" || e == "raw_syscalls/sys_exit");
    if !syscalls || f.repeated_bytes(FT_SYSCALL_EVENTS).next().is_some() {
        return;
    }
    out.push(Diagnostic {
        key: "syscalls_without_filter",
        title: "Unfiltered syscall tracing",
        description: "raw_syscalls (sys_enter/sys_exit) are enabled without any syscall_events \
                      filter; every syscall is recorded, which can produce huge, expensive \
                      traces."
            .into(),
        remediation: "Restrict syscall_events to the specific syscalls you need (e.g. \
                      \"sys_read\", \"sys_write\") to cut trace size and overhead.",
        confidence: ev.unless_data_lost(0.3),
    });
}

/// Without symbolize_ksyms: function graph tracing (useless, 1.0) and the
/// first enabled event whose fields are kernel symbol addresses (0.6).
fn events_require_symbolize_ksyms(f: &Msg, _ev: &Evidence, out: &mut Vec<Diagnostic>) {
    const NEED_KSYMS: [&str; 2] = [
        "workqueue/workqueue_execute_start",
        "sched/sched_blocked_reason",
    ];
    if f.flag(FT_SYMBOLIZE_KSYMS) {
        return;
    }
    if f.flag(FT_ENABLE_FUNCTION_GRAPH) {
        out.push(Diagnostic {
            key: "function_graph_requires_symbolize_ksyms",
            title: "Function graph needs symbolize_ksyms",
            description: "enable_function_graph is set but symbolize_ksyms is not; function graph \
                          tracing records kernel symbol addresses that are unusable without \
                          symbolization and cannot be resolved after the fact."
                .into(),
            remediation: SYMBOLIZE_KSYMS_FIX,
            confidence: 1.0,
        });
    }
    let events = f.strings(FT_EVENTS);
    let Some(event) = events.iter().find(|e| NEED_KSYMS.contains(&e.as_str())) else {
        return;
    };
    out.push(Diagnostic {
        key: "events_require_symbolize_ksyms",
        title: "Events need symbolize_ksyms",
        description: format!(
            "ftrace event {event} is enabled but symbolize_ksyms is not set; its kernel symbol \
             fields will be raw addresses that cannot be resolved after the fact."
        ),
        remediation: SYMBOLIZE_KSYMS_FIX,
        confidence: 0.6,
    });
}

/// ftrace or track_event writing into a DISCARD buffer of a trace streamed
/// into a file: recording stops when the buffer first fills. A write period
/// of 7 days or more (Traceur's "one final write") is not streaming; an
/// unset period (0 here) is the 5 s default, streaming.
fn discard_buffer_for_streaming(config: &Msg, sources: &[Msg], out: &mut Vec<Diagnostic>) {
    const ONE_SHOT_PERIOD_MS: u32 = 604_800_000;
    if !config.flag(TC_WRITE_INTO_FILE)
        || config.u32(TC_FILE_WRITE_PERIOD_MS).unwrap_or(0) >= ONE_SHOT_PERIOD_MS
    {
        return;
    }
    let discard: Vec<bool> = config
        .repeated_bytes(TC_BUFFERS)
        .map(|b| Msg::parse(b).varint(BUFFER_FILL_POLICY) == Some(FILL_POLICY_DISCARD))
        .collect();
    for ds in sources {
        let name = ds.last(DS_NAME).and_then(|v| match v {
            Value::Bytes(b) => Some(text_ref(b)),
            _ => None,
        });
        let Some(name) = name.filter(|n| n == "linux.ftrace" || n == "track_event") else {
            continue;
        };
        let target = ds.u32(DS_TARGET_BUFFER).unwrap_or(0) as usize;
        if !discard.get(target).copied().unwrap_or(false) {
            continue;
        }
        out.push(Diagnostic {
            key: "discard_buffer_for_streaming",
            title: "DISCARD buffer for streaming",
            description: format!(
                "data source \"{name}\" targets a DISCARD buffer while the trace streams into a \
                 file; DISCARD stops recording once the buffer first fills, silently truncating \
                 long traces."
            ),
            remediation: "Use the default RING_BUFFER fill_policy for buffers backing ftrace or \
                          track_event in long/streaming traces.",
            confidence: 0.8,
        });
    }
}

/// heapprofd sampling_interval_bytes under 100 KB: 0.3, or 0.9 when
/// heapprofd reported errors.
fn heapprofd_sampling_interval_too_low(sources: &[Msg], ev: &Evidence, out: &mut Vec<Diagnostic>) {
    for ds in sources {
        let Some(interval) = ds
            .message(DS_HEAPPROFD_CONFIG)
            .and_then(|h| h.varint(HEAPPROFD_SAMPLING_INTERVAL_BYTES))
        else {
            continue;
        };
        if interval == 0 || interval >= 100 * 1024 {
            continue;
        }
        out.push(Diagnostic {
            key: "heapprofd_sampling_interval_too_low",
            title: "Heapprofd sampling interval too low",
            description: format!(
                "heapprofd sampling_interval_bytes is {interval} (< 100 KB); such a small \
                 sampling interval rarely improves accuracy and increases profiling overhead."
            ),
            remediation: "Increase sampling_interval_bytes to at least 100 KB; smaller \
                          intervals add overhead without meaningfully improving accuracy.",
            confidence: if ev.heapprofd_errors() { 0.9 } else { 0.3 },
        });
    }
}

/// android.display.video requested on a user build, no frames and no
/// producer error: the debug.tracing_video_allowed property was not set.
fn display_video_not_enabled(sources: &[Msg], ev: &Evidence, out: &mut Vec<Diagnostic>) {
    let requested = sources.iter().any(
        |ds| matches!(ds.last(DS_NAME), Some(Value::Bytes(b)) if *b == b"android.display.video"),
    );
    if !requested || !ev.android_user_build() || ev.video_frames || ev.video_errors() {
        return;
    }
    out.push(Diagnostic {
        key: "display_video_not_enabled",
        title: "Display video not captured",
        description: "The trace config requested android.display.video, but no frames were \
                      captured and the producer reported no errors. On user (production) builds \
                      display video is disabled until the debug.tracing_video_allowed system \
                      property is set; it resets on reboot."
            .into(),
        remediation: "Enable it over ADB before recording, then record again (re-run after each \
                      reboot): adb shell setprop debug.tracing_video_allowed true",
        confidence: 0.7,
    });
}
