//! Memory counters as trace_processor keeps them: per-process memory from
//! process_stats (polled) and from the kernel's rss_stat events (pushed),
//! oom_score_adj from both, and system-wide /proc/meminfo from sys_stats
//! (importers/proto/system_probes_parser.cc, importers/ftrace/
//! rss_stat_tracker.cc, importers/common/event_tracker.cc).
//!
//! An ftrace memory event names a thread, not a process: its counter is
//! pushed at once (with the thread as a `utid` arg) and put on a track only
//! at the end of the trace, when the thread's process is best known - the
//! process's track if the thread has one by then, else a
//! `*_thread_fallback` track of the thread.
//!
//! Also: mark_victim (the oom killer's choice) as a "mem.oom_kill" instant
//! on the victim thread's track; ion_heap_grow / ion_heap_shrink (Pixel
//! kernels) and ion_stat (4.19+) as the heap's total (`mem.ion[.<heap>]`)
//! and the change by the emitting thread (`mem.ion_change[.<heap>]`), and
//! for ion_stat a "<len/1024> kB" slice per live buffer on the
//! `mem.ion_buffer` track (closed by its free, a len <= 0 event).

use rustc_hash::FxHashMap as HashMap;

use crate::events::{BuddyInfo, FtraceEv};
use crate::trackers::core::compressor::Nesting;
use crate::trackers::core::tracks::{ArgVal, Dim, Owner};
use crate::trackers::Ctx;

/// The Perfetto docs pages the memory track descriptions point to.
const POLLED_URL: &str =
    "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters";
const FTRACE_URL: &str =
    "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace";

/// A process memory track's description, by its process_memory_key (the
/// text trace_processor gives the track; None for a key it has none for).
fn process_memory_description(key: &str) -> Option<String> {
    let polled = "WARNING: Polled periodically, so may miss short-lived changes.";
    Some(match key {
        "virt" => format!(
            "Virtual memory size (VmSize): Total virtual address space reserved by the \
             process. Useful for understanding address space layout and detecting excessive \
             memory reservations. {polled} See {POLLED_URL} for information."
        ),
        "rss" => format!(
            "Resident set size (VmRSS): Total physical memory currently used by the process \
             (rss.anon + rss.file + rss.shmem). Key metric for understanding actual memory \
             pressure and OOM risk. WARNING: Polled periodically, so use rss.anon + rss.file + \
             rss.shmem from ftrace for complementary high-resolution tracking. See {POLLED_URL} \
             for information."
        ),
        "rss.anon" => format!(
            "Anonymous resident memory (RssAnon): Physical memory for heap and stack \
             allocations not backed by files. High values indicate memory allocations from \
             malloc/new. Most important for app memory usage and detecting memory leaks. See \
             {FTRACE_URL} for information."
        ),
        "rss.file" => format!(
            "File-backed resident memory (RssFile): Physical memory used for memory-mapped \
             files (e.g., code, libraries, mmap'd files). Useful for understanding shared \
             library overhead. Can be reclaimed under memory pressure. See {FTRACE_URL} for \
             information."
        ),
        "rss.shmem" => format!(
            "Shared memory resident pages (RssShmem): Physical memory in shared memory regions \
             (shmem/tmpfs). Used for IPC and shared data. Important for identifying \
             inter-process memory usage. See {FTRACE_URL} for information."
        ),
        "swap" => format!(
            "Swapped memory (VmSwap): Memory moved to swap storage. Does not necessarily \
             indicate severe pressure - kswapd may swap out inactive memory proactively. \
             However, if actively used and swap/anon ratio is high, this suggests inefficient \
             memory usage or leaks. Accessing swapped memory causes major page faults and \
             performance degradation. Available from both ftrace and polling for complementary \
             views. See {FTRACE_URL} or {POLLED_URL} for information."
        ),
        "locked" => format!(
            "Locked memory pages (VmLocked): Memory pinned in RAM that cannot be swapped out \
             or reclaimed (via mlock). High values prevent memory reclamation during pressure. \
             Typically set via profiler-guided optimization to minimize faults on critical \
             paths. {polled} See {POLLED_URL} for information."
        ),
        "rss.watermark" => format!(
            "Peak RSS (VmHWM): Historical maximum RSS reached by the process. Useful for \
             capacity planning and detecting memory usage spikes that may have triggered OOM \
             or performance issues. WARNING: Polled periodically, so the time of the spike may \
             not be accurate. Prefer relying on rss.anon + rss.file + rss.shmem which have \
             pushed ftrace events so are more time accurate. See {POLLED_URL} for information."
        ),
        "dmabuf_rss" => "DMA buffer RSS: Physical memory used for DMA buffers (successor to \
                         Android ION). Used for surfaces, hardware bitmaps, media/camera buffers, \
                         and other GPU/hardware accelerator memory. Critical for graphics/camera \
                         apps. High values indicate GPU memory pressure or resource leaks in \
                         graphics/media pipelines. See dmabuf ftrace events or \
                         /proc/[pid]/fdinfo polling for information."
            .to_owned(),
        "unreclaimable" => {
            "Unreclaimable memory: KGSL driver specific event, rarely useful.".to_owned()
        }
        "unknown" => "Unknown memory type: Memory category not recognized by the tracer. May \
                      indicate new kernel memory types or parsing errors. Should be \
                      investigated if non-zero."
            .to_owned(),
        _ => return None,
    })
}

/// A process's memory counter track ("mem.<key>", type process_memory).
pub fn process_memory_track(c: &mut Ctx, upid: u32, key: &str) -> u32 {
    let t = c.tracks.intern(
        &mut c.args,
        "process_memory",
        Some(&format!("mem.{key}")),
        "counter",
        vec![
            ("upid", Dim::Int(upid as i64)),
            ("process_memory_key", Dim::Str(key.to_owned())),
        ],
        Owner {
            upid: Some(upid),
            ..Default::default()
        },
        0,
    );
    let description = process_memory_description(key);
    if let Some(d) = description {
        c.tracks.describe(&mut c.args, t, &d);
    }
    t
}

/// A process's oom_score_adj counter track.
pub fn oom_score_adj_track(c: &mut Ctx, upid: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        "oom_score_adj",
        Some("oom_score_adj"),
        "counter",
        vec![("upid", Dim::Int(upid as i64))],
        Owner {
            upid: Some(upid),
            ..Default::default()
        },
        0,
    )
}

/// What a thread's memory counter measures (resolved to a track at the end).
enum ThreadCounter {
    /// rss_stat, dmabuf_rss_stat: a process_memory_key
    Memory(&'static str),
    OomScoreAdj,
    /// mm_event_record: (type, metric)
    MmEvent(&'static str, &'static str),
}

#[derive(Default)]
pub struct MemoryTracker {
    /// rss_stat: the thread an mm struct (machine, mm id) was last seen
    /// current on
    mm_owner: HashMap<(u16, i64), u32>,
    /// (counter row, thread, what) awaiting a track
    pending: Vec<(usize, u32, ThreadCounter)>,
    /// per thread, its `utid` arg set, shared by its counters (as
    /// trace_processor shares identical arg sets)
    utid_sets: HashMap<u32, i64>,
    /// per thread, the (nr_migrated, nr_reclaimed, nr_mapped) of its last
    /// mm_alloc_contig_migrate_range_info: its CMA allocation's counts
    /// (kernel_slices)
    pub cma_migration: HashMap<u32, [u64; 3]>,
}

/// rss_stat's `member` -> process_memory_key (the kernel's MM_* counters).
fn rss_member_key(member: i128) -> &'static str {
    match member {
        0 => "rss.file",
        1 => "rss.anon",
        2 => "swap",
        3 => "rss.shmem",
        4 => "unreclaimable",
        _ => "unknown",
    }
}

/// A counter of thread `utid` whose track is chosen at the end.
fn push_for_thread(c: &mut Ctx, ts: i64, value: f64, utid: u32, what: ThreadCounter) {
    let set = match c.memory.utid_sets.get(&utid) {
        Some(&set) => set,
        None => {
            let set = c.args.add_set(&[("utid", Some(ArgVal::Uint(utid as u64)))]);
            c.memory.utid_sets.insert(utid, set);
            set
        }
    };
    c.memory.pending.push((c.counters.rows.len(), utid, what));
    c.counters.push(ts, u32::MAX, value, Some(set));
}

/// rss_stat / rss_stat_throttled: one memory counter of the process whose
/// mm it is. With `mm_id` and `curr` known, an event for another task's mm
/// (curr 0) goes to the thread that mm was last current on, if that thread
/// is still alive; else it is dropped (rss_stat_unknown_thread_for_mm_id).
pub fn rss_stat(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let key = rss_member_key(e.int("member").unwrap_or(0));
    let size = e.int("size").unwrap_or(0);
    if size < 0 {
        c.stats.add("rss_stat_negative_size", 1, None);
        return;
    }
    let utid = match (e.int("mm_id"), e.int("curr")) {
        (Some(mm_id), Some(curr)) => {
            let mm_id = (c.tracks.machine, mm_id as i64);
            if curr != 0 {
                let utid = c.pt.get_or_create_thread(e.pid);
                c.memory.mm_owner.insert(mm_id, utid);
                Some(utid)
            } else {
                match c.memory.mm_owner.get(&mm_id).copied() {
                    Some(u) if c.pt.is_alive(u) => Some(u),
                    Some(_) => {
                        c.memory.mm_owner.remove(&mm_id);
                        None
                    }
                    None => None,
                }
            }
        }
        _ => Some(c.pt.get_or_create_thread(e.pid)),
    };
    match utid {
        Some(utid) => push_for_thread(c, ts, size as f64, utid, ThreadCounter::Memory(key)),
        None => c.stats.add("rss_stat_unknown_thread_for_mm_id", 1, None),
    }
}

/// dmabuf_rss_stat: the task's process's dma-buf RSS (`mem.dmabuf_rss`).
pub fn dmabuf_rss_stat(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let rss = e.int("rss").unwrap_or(0) as u64;
    let utid = c.pt.get_or_create_thread(e.pid);
    push_for_thread(c, ts, rss as f64, utid, ThreadCounter::Memory("dmabuf_rss"));
}

/// mm_event_record (FtraceParser::ParseMmEventRecord): the count, max_lat
/// and avg_lat of one kind of memory event, as `mem.mm.<type>.<metric>`
/// counters of the task's process; a type the kernel does not define is
/// counted (mm_unknown_type) and dropped.
pub fn mm_event_record(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let utid = c.pt.get_or_create_thread(e.pid);
    let kind = match e.int("type").unwrap_or(0) {
        0 => "min_flt",
        1 => "maj_flt",
        2 => "read_io",
        3 => "compaction",
        4 => "reclaim",
        5 => "swp_flt",
        6 => "kern_alloc",
        _ => {
            c.stats.add("mm_unknown_type", 1, None);
            return;
        }
    };
    for metric in ["count", "max_lat", "avg_lat"] {
        let value = e.int(metric).unwrap_or(0) as u32;
        push_for_thread(
            c,
            ts,
            value as f64,
            utid,
            ThreadCounter::MmEvent(kind, metric),
        );
    }
}

/// oom_score_adj_update: the task's new oom_score_adj (an int16: old
/// tracers wrote negative values as unsigned varints, b/120618641).
pub fn oom_score_adj_update(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    let adj = e.int("oom_score_adj").unwrap_or(0) as i16;
    // (its int32 pid as uint32, as the reference)
    let utid =
        c.pt.get_or_create_thread(e.int("pid").unwrap_or(0) as u32 as i64);
    push_for_thread(c, ts, adj as f64, utid, ThreadCounter::OomScoreAdj);
}

/// The end of the trace: each thread counter onto its process's track, or
/// its thread's fallback track when the thread's process is still unknown.
pub fn finish(c: &mut Ctx) {
    let pending = std::mem::take(&mut c.memory.pending);
    let machine_before = c.tracks.machine;
    for (row, utid, what) in pending {
        // (the track is its thread's machine's, as that machine's tracker
        // makes it)
        c.tracks.machine = c.pt.t_machine.get(&utid).copied().unwrap_or(0);
        let upid = c.pt.t_upid.get(utid as usize).copied().flatten();
        let track = match (what, upid) {
            (ThreadCounter::Memory(key), Some(upid)) => process_memory_track(c, upid, key),
            (ThreadCounter::OomScoreAdj, Some(upid)) => oom_score_adj_track(c, upid),
            (ThreadCounter::Memory(key), None) => c.tracks.intern(
                &mut c.args,
                "process_memory_thread_fallback",
                Some(&format!("mem.{key}")),
                "counter",
                vec![
                    ("utid", Dim::Int(utid as i64)),
                    ("process_memory_key", Dim::Str(key.to_owned())),
                ],
                Owner {
                    utid: Some(utid),
                    ..Default::default()
                },
                0,
            ),
            (ThreadCounter::MmEvent(kind, metric), upid) => {
                let (type_, owner_dim, owner) = match upid {
                    Some(upid) => (
                        "mm_event",
                        ("upid", Dim::Int(upid as i64)),
                        Owner {
                            upid: Some(upid),
                            ..Default::default()
                        },
                    ),
                    None => (
                        "mm_event_thread_fallback",
                        ("utid", Dim::Int(utid as i64)),
                        Owner {
                            utid: Some(utid),
                            ..Default::default()
                        },
                    ),
                };
                c.tracks.intern(
                    &mut c.args,
                    type_,
                    Some(&format!("mem.mm.{kind}.{metric}")),
                    "counter",
                    vec![
                        owner_dim,
                        ("mm_event_type", Dim::Str(kind.to_owned())),
                        ("mm_event_metric", Dim::Str(metric.to_owned())),
                    ],
                    owner,
                    0,
                )
            }
            (ThreadCounter::OomScoreAdj, None) => c.tracks.intern(
                &mut c.args,
                "oom_score_adj_thread_fallback",
                Some("oom_score_adj"),
                "counter",
                vec![("utid", Dim::Int(utid as i64))],
                Owner {
                    utid: Some(utid),
                    ..Default::default()
                },
                0,
            ),
        };
        c.counters.rows[row].track = track;
    }
    c.tracks.machine = machine_before;
}

/// /proc/meminfo keys by MeminfoCounters number (the kernel's names).
const MEMINFO_KEYS: [&str; 39] = [
    "MemUnspecified",
    "MemTotal",
    "MemFree",
    "MemAvailable",
    "Buffers",
    "Cached",
    "SwapCached",
    "Active",
    "Inactive",
    "Active(anon)",
    "Inactive(anon)",
    "Active(file)",
    "Inactive(file)",
    "Unevictable",
    "Mlocked",
    "SwapTotal",
    "SwapFree",
    "Dirty",
    "Writeback",
    "AnonPages",
    "Mapped",
    "Shmem",
    "Slab",
    "SReclaimable",
    "SUnreclaim",
    "KernelStack",
    "PageTables",
    "CommitLimit",
    "Committed_AS",
    "VmallocTotal",
    "VmallocUsed",
    "VmallocChunk",
    "CmaTotal",
    "CmaFree",
    "Gpu",
    "Zram",
    "Misc",
    "ION_heap",
    "ION_heap_pool",
];

/// sys_stats meminfo: one `meminfo` counter per key, kB stored as bytes.
pub fn meminfo(c: &mut Ctx, ts: i64, values: &[(u64, i128)]) {
    let kind = ("meminfo", "meminfo_key", "meminfo_unknown_keys");
    keyed_sys_counters(c, ts, values, &MEMINFO_KEYS, kind, Some("bytes"), 1024);
}

/// sys_stats counters whose keys name them from a table (meminfo, vmstat):
/// one counter of `type_` per key (dimension `key_dim`), its value times
/// `scale`; a key past the table counts as `unknown_stat`.
fn keyed_sys_counters(
    c: &mut Ctx,
    ts: i64,
    values: &[(u64, i128)],
    keys: &[&str],
    (type_, key_dim, unknown_stat): (&'static str, &'static str, &'static str),
    unit: Option<&'static str>,
    scale: i128,
) {
    for &(key, value) in values {
        let Some(&name) = usize::try_from(key).ok().and_then(|k| keys.get(k)) else {
            c.stats.add(unknown_stat, 1, None);
            continue;
        };
        let t = c.tracks.intern_with(
            &mut c.args,
            type_,
            Some(name),
            "counter",
            vec![(key_dim, Dim::Str(name.to_owned()))],
            Owner::default(),
            unit,
            Vec::new,
        );
        c.counters.push(ts, t, (value * scale) as f64, None);
    }
}

/// /proc/vmstat keys by VmstatCounters number: each the enum value's name
/// without `VMSTAT_`, lowercased, and 0 `VmstatUnspecified` (as perfetto's
/// sys_stats_counters.h names them).
const VMSTAT_KEYS: [&str; 189] = [
    "VmstatUnspecified",
    "nr_free_pages",
    "nr_alloc_batch",
    "nr_inactive_anon",
    "nr_active_anon",
    "nr_inactive_file",
    "nr_active_file",
    "nr_unevictable",
    "nr_mlock",
    "nr_anon_pages",
    "nr_mapped",
    "nr_file_pages",
    "nr_dirty",
    "nr_writeback",
    "nr_slab_reclaimable",
    "nr_slab_unreclaimable",
    "nr_page_table_pages",
    "nr_kernel_stack",
    "nr_overhead",
    "nr_unstable",
    "nr_bounce",
    "nr_vmscan_write",
    "nr_vmscan_immediate_reclaim",
    "nr_writeback_temp",
    "nr_isolated_anon",
    "nr_isolated_file",
    "nr_shmem",
    "nr_dirtied",
    "nr_written",
    "nr_pages_scanned",
    "workingset_refault",
    "workingset_activate",
    "workingset_nodereclaim",
    "nr_anon_transparent_hugepages",
    "nr_free_cma",
    "nr_swapcache",
    "nr_dirty_threshold",
    "nr_dirty_background_threshold",
    "pgpgin",
    "pgpgout",
    "pgpgoutclean",
    "pswpin",
    "pswpout",
    "pgalloc_dma",
    "pgalloc_normal",
    "pgalloc_movable",
    "pgfree",
    "pgactivate",
    "pgdeactivate",
    "pgfault",
    "pgmajfault",
    "pgrefill_dma",
    "pgrefill_normal",
    "pgrefill_movable",
    "pgsteal_kswapd_dma",
    "pgsteal_kswapd_normal",
    "pgsteal_kswapd_movable",
    "pgsteal_direct_dma",
    "pgsteal_direct_normal",
    "pgsteal_direct_movable",
    "pgscan_kswapd_dma",
    "pgscan_kswapd_normal",
    "pgscan_kswapd_movable",
    "pgscan_direct_dma",
    "pgscan_direct_normal",
    "pgscan_direct_movable",
    "pgscan_direct_throttle",
    "pginodesteal",
    "slabs_scanned",
    "kswapd_inodesteal",
    "kswapd_low_wmark_hit_quickly",
    "kswapd_high_wmark_hit_quickly",
    "pageoutrun",
    "allocstall",
    "pgrotated",
    "drop_pagecache",
    "drop_slab",
    "pgmigrate_success",
    "pgmigrate_fail",
    "compact_migrate_scanned",
    "compact_free_scanned",
    "compact_isolated",
    "compact_stall",
    "compact_fail",
    "compact_success",
    "compact_daemon_wake",
    "unevictable_pgs_culled",
    "unevictable_pgs_scanned",
    "unevictable_pgs_rescued",
    "unevictable_pgs_mlocked",
    "unevictable_pgs_munlocked",
    "unevictable_pgs_cleared",
    "unevictable_pgs_stranded",
    "nr_zspages",
    "nr_ion_heap",
    "nr_gpu_heap",
    "allocstall_dma",
    "allocstall_movable",
    "allocstall_normal",
    "compact_daemon_free_scanned",
    "compact_daemon_migrate_scanned",
    "nr_fastrpc",
    "nr_indirectly_reclaimable",
    "nr_ion_heap_pool",
    "nr_kernel_misc_reclaimable",
    "nr_shadow_call_stack_bytes",
    "nr_shmem_hugepages",
    "nr_shmem_pmdmapped",
    "nr_unreclaimable_pages",
    "nr_zone_active_anon",
    "nr_zone_active_file",
    "nr_zone_inactive_anon",
    "nr_zone_inactive_file",
    "nr_zone_unevictable",
    "nr_zone_write_pending",
    "oom_kill",
    "pglazyfree",
    "pglazyfreed",
    "pgrefill",
    "pgscan_direct",
    "pgscan_kswapd",
    "pgskip_dma",
    "pgskip_movable",
    "pgskip_normal",
    "pgsteal_direct",
    "pgsteal_kswapd",
    "swap_ra",
    "swap_ra_hit",
    "workingset_restore",
    "allocstall_device",
    "allocstall_dma32",
    "balloon_deflate",
    "balloon_inflate",
    "balloon_migrate",
    "cma_alloc_fail",
    "cma_alloc_success",
    "nr_file_hugepages",
    "nr_file_pmdmapped",
    "nr_foll_pin_acquired",
    "nr_foll_pin_released",
    "nr_sec_page_table_pages",
    "nr_shadow_call_stack",
    "nr_swapcached",
    "nr_throttled_written",
    "pgalloc_device",
    "pgalloc_dma32",
    "pgdemote_direct",
    "pgdemote_kswapd",
    "pgreuse",
    "pgscan_anon",
    "pgscan_file",
    "pgskip_device",
    "pgskip_dma32",
    "pgsteal_anon",
    "pgsteal_file",
    "thp_collapse_alloc",
    "thp_collapse_alloc_failed",
    "thp_deferred_split_page",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_fault_fallback_charge",
    "thp_file_alloc",
    "thp_file_fallback",
    "thp_file_fallback_charge",
    "thp_file_mapped",
    "thp_migration_fail",
    "thp_migration_split",
    "thp_migration_success",
    "thp_scan_exceed_none_pte",
    "thp_scan_exceed_share_pte",
    "thp_scan_exceed_swap_pte",
    "thp_split_page",
    "thp_split_page_failed",
    "thp_split_pmd",
    "thp_swpout",
    "thp_swpout_fallback",
    "thp_zero_page_alloc",
    "thp_zero_page_alloc_failed",
    "vma_lock_abort",
    "vma_lock_miss",
    "vma_lock_retry",
    "vma_lock_success",
    "workingset_activate_anon",
    "workingset_activate_file",
    "workingset_nodes",
    "workingset_refault_anon",
    "workingset_refault_file",
    "workingset_restore_anon",
    "workingset_restore_file",
];

/// sys_stats vmstat: one `vmstat` counter per key (unit unknown).
pub fn vmstat(c: &mut Ctx, ts: i64, values: &[(u64, i128)]) {
    let kind = ("vmstat", "vmstat_key", "vmstat_unknown_keys");
    keyed_sys_counters(c, ts, values, &VMSTAT_KEYS, kind, None, 1);
}

/// sys_stats buddy_info (/proc/buddyinfo): per node and zone, the free
/// blocks of each order on a `mem.buddyinfo[<node>][<zone>][<size> kB]`
/// track. The block size is 2^order pages of SystemInfo's page size (0
/// without SystemInfo), in 32-bit arithmetic as the reference's.
pub fn buddy_info(c: &mut Ctx, ts: i64, zones: &[BuddyInfo]) {
    let page_size = c.page_size;
    for z in zones {
        for (order, &pages) in z.order_pages.iter().enumerate() {
            let chunk_size_kb = 1u32.wrapping_shl(order as u32).wrapping_mul(page_size) / 1024;
            let (node, zone) = (z.node.as_deref(), z.zone.as_deref());
            let name = format!(
                "mem.buddyinfo[{}][{}][{chunk_size_kb} kB]",
                node.unwrap_or(""),
                zone.unwrap_or("")
            );
            let t = c.tracks.intern(
                &mut c.args,
                "buddyinfo",
                Some(&name),
                "counter",
                vec![
                    ("buddyinfo_node", Dim::opt_str(node)),
                    ("buddyinfo_zone", Dim::opt_str(zone)),
                    ("buddyinfo_chunk_size_kb", Dim::Int(chunk_size_kb as i64)),
                ],
                Owner::default(),
                0,
            );
            c.counters.push(ts, t, pages as u32 as f64, None);
        }
    }
}

/// sys_stats slab_info: a slab cache's size in bytes (slabs x pages per
/// slab x SystemInfo's page size) on `mem.slab.<name>`, the counter's args
/// its pages_per_slab and num_slabs.
pub fn slab_info(c: &mut Ctx, ts: i64, slabs: &[(Option<String>, u32, u32)]) {
    let page_size = c.page_size as f64;
    for (name, pages_per_slab, num_slabs) in slabs {
        let t = c.tracks.intern_with(
            &mut c.args,
            "slabinfo",
            Some(&format!("mem.slab.{}", name.as_deref().unwrap_or(""))),
            "counter",
            vec![("slab_name", Dim::opt_str(name.as_deref()))],
            Owner::default(),
            Some("bytes"),
            Vec::new,
        );
        let bytes = *pages_per_slab as f64 * *num_slabs as f64 * page_size;
        let args = c.args.add_set(&[
            ("pages_per_slab", Some(ArgVal::Uint(*pages_per_slab as u64))),
            ("num_slabs", Some(ArgVal::Uint(*num_slabs as u64))),
        ]);
        c.counters.push(ts, t, bytes, Some(args));
    }
}

/// ion events and ion_stat's live buffers: each on a lane of the
/// `mem.ion_buffer` tracks, its buffer id the lane's cookie (TrackCompressor).
#[derive(Default)]
pub struct IonTracker {
    lanes: crate::trackers::core::compressor::TrackCompressor,
}

const ION_BUFFERS: &str = "android_ion_allocations";

impl IonTracker {
    /// ion_heap_grow / ion_heap_shrink: `total_allocated` is the heap's
    /// size before the change.
    pub fn ion_heap(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv, grow: bool) {
        let len = e.int("len").unwrap_or(0);
        let change = if grow { len } else { -len };
        let total = e.int("total_allocated").unwrap_or(0) + change;
        let heap = e.str("heap_name").unwrap_or("unknown");
        ion_counters(c, ts, e.pid, Some(heap), total, change);
    }

    /// ion_stat: the total (all heaps) and the change, and the buffer's
    /// slice.
    pub fn ion_stat(&mut self, c: &mut Ctx, ts: i64, e: &FtraceEv) {
        let len = e.int("len").unwrap_or(0);
        let total = e.int("total_allocated").unwrap_or(0);
        ion_counters(c, ts, e.pid, None, total, len);
        let buffer = e.int("buffer_id").unwrap_or(0);
        let no_dims = Vec::new();
        if len > 0 {
            let lane = self
                .lanes
                .begin(ION_BUFFERS, &no_dims, buffer, Nesting::Nestable);
            let track = ion_buffer_track(c, lane);
            c.slices
                .begin(track, ts, format!("{} kB", len / 1024), -1, None);
        } else {
            // (an end names its buffer's lane, or takes one, begun or not)
            let lane = self.lanes.end(ION_BUFFERS, &no_dims, buffer);
            let track = ion_buffer_track(c, lane);
            c.slices.end(track, ts);
        }
    }
}

/// The heap's total and the thread's change: `mem.ion[.<heap>]` and
/// `mem.ion_change[.<heap>]` (heap None: ion_stat's, all heaps).
fn ion_counters(c: &mut Ctx, ts: i64, pid: i64, heap: Option<&str>, total: i128, change: i128) {
    let (suffix, heap_dim) = match heap {
        Some(h) => (format!(".{h}"), Dim::Str(h.to_owned())),
        None => (String::new(), Dim::NullStr),
    };
    let t = c.tracks.intern(
        &mut c.args,
        "ion",
        Some(&format!("mem.ion{suffix}")),
        "counter",
        vec![("heap_name", heap_dim.clone())],
        Owner::default(),
        0,
    );
    c.counters.push(ts, t, total as f64, None);
    let utid = c.pt.get_or_create_thread(pid);
    let t = c.tracks.intern(
        &mut c.args,
        "ion_change",
        Some(&format!("mem.ion_change{suffix}")),
        "counter",
        vec![("heap_name", heap_dim), ("utid", Dim::Int(utid as i64))],
        Owner {
            utid: Some(utid),
            ..Default::default()
        },
        0,
    );
    c.counters.push(ts, t, change as f64, None);
}

/// The `mem.ion_buffer` track of a compressor slot.
fn ion_buffer_track(c: &mut Ctx, slot: u32) -> u32 {
    c.tracks.intern(
        &mut c.args,
        ION_BUFFERS,
        Some("mem.ion_buffer"),
        "slice",
        vec![("track_compressor_idx", Dim::Int(slot as i64))],
        Owner::default(),
        0,
    )
}

/// mark_victim: the oom killer chose a thread; a "mem.oom_kill" instant on
/// its track.
pub fn oom_kill(c: &mut Ctx, ts: i64, e: &FtraceEv) {
    // (its int32 pid read as uint32, as the reference)
    let utid =
        c.pt.get_or_create_thread(e.int("pid").unwrap_or(0) as u32 as i64);
    let track = crate::trackers::core::atrace::thread_track(c, utid);
    c.slices.begin(track, ts, "mem.oom_kill".into(), 0, None);
}
