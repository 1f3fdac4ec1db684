//! Trace bytes -> decoded events ([`crate::events::Sink`]).

pub mod atrace;
pub mod clocks;
pub mod container;
pub mod ftrace_schema;
pub mod gpu_counters;
pub mod kernel_wakelocks;
pub mod packets_misc;
pub mod perf_sample;
pub mod power;
pub mod profile_packet;
pub mod proto;
pub mod stack_profile;
pub mod systrace;
pub mod track_event;
pub mod wire;
