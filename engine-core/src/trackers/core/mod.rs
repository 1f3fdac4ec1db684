//! The importers behind the tables the metrics read: process and thread
//! identity (`process`), sched and thread_state (`sched`), slices
//! (`slices`, `atrace`, `kernel_slices`, `syscalls`; `compressor` lays out
//! async slices), counter tracks (`counters`, `memory`), the ftrace_event
//! table (`raw`), the frame timeline, the cpu table, import logs; `tracks`
//! (tracks and args) is every importer's; `kernel` hands the other ftrace
//! events to their importers.

pub mod atrace;
pub mod compressor;
pub mod counters;
pub mod cpu;
pub mod frame_timeline;
pub mod import_logs;
pub mod kernel;
pub mod kernel_slices;
pub mod memory;
pub mod process;
pub mod raw;
pub mod sched;
pub mod slices;
pub mod syscall_table;
pub mod syscalls;
pub mod tracks;
