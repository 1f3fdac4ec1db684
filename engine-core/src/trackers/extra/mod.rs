//! trace_processor parity: the importers of the tables the metrics do not
//! read (power and wakelocks, binder, GPU and display drivers, block io,
//! network, I2C, V4L2, virtio, pKVM, Trusty, kprobes, funcgraph, irqs,
//! heap and perf profiles, callstacks, logcat, tracing sessions, triggers,
//! track events).

pub mod adreno;
pub mod binder;
pub mod block_io;
pub mod cpu_per_uid;
pub mod devices;
pub mod display;
pub mod drm;
pub mod f2fs;
pub mod funcgraph;
pub mod heap_profile;
pub mod i2c;
pub mod irq;
pub mod kprobes;
pub mod logs;
pub mod mali;
pub mod net;
pub mod perf_sample;
pub mod pkvm;
pub mod power;
pub mod sessions;
pub mod stack_profile;
pub mod track_event;
pub mod triggers;
pub mod trusty;
pub mod v4l2;
pub mod virtio;
