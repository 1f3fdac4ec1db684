//! Trace bytes -> decoded events ([`sink::Sink`]).

pub mod adreno;
pub mod atrace;
pub mod c_numbers;
pub mod clocks;
pub mod container;
pub mod cpu_per_uid;
pub mod ftrace_schema;
pub mod game_interventions;
pub mod gpu_counters;
pub mod kernel_wakelocks;
pub mod packets_misc;
pub mod perf_sample;
pub mod power;
pub mod profile_packet;
pub mod proto;
pub mod sink;
pub mod stack_profile;
pub mod systrace;
pub mod track_event;
pub mod wire;
