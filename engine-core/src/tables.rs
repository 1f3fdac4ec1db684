//! The imported trace as SQLite tables: the exact schema the Python store
//! creates (base tables, trace_processor's public views over the track
//! table, indexes), filled by bulk inserts from the columns.

use rusqlite::{Connection, Statement};

use crate::columns::{Col, RowSink, Stored, Table, NULL_TEXT, V};
use crate::ints::Ints;
use crate::machines::HOST_MACHINE_ID;
use crate::replay::Imported;
use crate::trackers::core::raw::FlagsColumn;
use crate::trackers::core::raw::RawTable;
use crate::trackers::core::sched::{SchedTable, ThreadStateTable};
use crate::trackers::core::tracks::Args;
use crate::trackers::extra::stack_profile::SampleSource;
use crate::trackers::CpuSet;

const fn c(name: &'static str, ty: &'static str) -> Col {
    (name, ty, None)
}
const fn g(name: &'static str, ty: &'static str, expr: &'static str) -> Col {
    (name, ty, Some(expr))
}

const I: &str = "INTEGER";
const T: &str = "TEXT";
const RL: &str = "REAL";

const FT_BASE: [Col; 13] = [
    c("id", I),
    c("ts", I),
    c("dur", I),
    c("track_id", I),
    c("category", T),
    c("name", T),
    c("depth", I),
    c("parent_id", I),
    c("arg_set_id", I),
    c("display_frame_token", I),
    c("surface_frame_token", I),
    c("upid", I),
    c("layer_name", T),
];

pub fn schema() -> Vec<(&'static str, Vec<Col>)> {
    let mut actual = FT_BASE.to_vec();
    actual.extend([
        c("present_type", T),
        c("on_time_finish", I),
        c("gpu_composition", I),
        c("jank_type", T),
        c("jank_severity_type", T),
        c("prediction_type", T),
        c("jank_tag", T),
        c("jank_tag_experimental", T),
        c("jank_score", RL),
        c("latched_unsignaled_count", I),
        c("addressable_unsignaled_latch_count", I),
        c("latched_fence_state", T),
    ]);
    vec![
        (
            "cpu",
            vec![
                c("id", I),
                c("ucpu", I),
                c("cpu", I),
                c("cluster_id", I),
                c("processor", T),
                c("machine_id", I),
                c("capacity", I),
                c("arg_set_id", I),
            ],
        ),
        (
            "cpu_available_frequencies",
            vec![c("id", I), c("cpu", I), c("freq", I), c("ucpu", I)],
        ),
        (
            "sched",
            vec![
                c("id", I),
                c("ts", I),
                c("dur", I),
                c("cpu", I),
                g("ucpu", I, "cpu"),
                c("utid", I),
                c("end_state", T),
                c("priority", I),
                g("ts_end", I, "ts + dur"),
            ],
        ),
        (
            "thread_state",
            vec![
                c("id", I),
                c("ts", I),
                c("dur", I),
                c("cpu", I),
                g("ucpu", I, "cpu"),
                c("utid", I),
                c("state", T),
                c("io_wait", I),
                c("blocked_function", T),
                c("waker_utid", I),
                g("waker_id", I, "NULL"),
                c("irq_context", I),
            ],
        ),
        (
            "thread",
            vec![
                c("utid", I),
                c("id", I),
                c("tid", I),
                c("name", T),
                c("start_ts", I),
                c("end_ts", I),
                c("upid", I),
                c("is_main_thread", I),
                c("is_idle", I),
                c("machine_id", I),
                c("arg_set_id", I),
            ],
        ),
        (
            "process",
            vec![
                c("upid", I),
                c("id", I),
                c("pid", I),
                c("name", T),
                c("start_ts", I),
                c("end_ts", I),
                c("parent_upid", I),
                c("uid", I),
                c("android_appid", I),
                c("android_user_id", I),
                c("cmdline", T),
                c("arg_set_id", I),
                c("machine_id", I),
            ],
        ),
        (
            "__track",
            vec![
                c("id", I),
                c("name", T),
                c("type", T),
                c("parent_id", I),
                c("dimension_arg_set_id", I),
                c("source_arg_set_id", I),
                c("machine_id", I),
                c("event_type", T),
                c("counter_unit", T),
                c("description", T),
                c("_utid", I),
                c("_upid", I),
                c("_cpu", I),
            ],
        ),
        (
            "slice",
            vec![
                c("id", I),
                c("ts", I),
                c("dur", I),
                c("track_id", I),
                c("category", T),
                c("name", T),
                c("depth", I),
                c("parent_id", I),
                c("arg_set_id", I),
                c("thread_ts", I),
                c("thread_dur", I),
                c("thread_instruction_count", I),
                c("thread_instruction_delta", I),
                // trace_processor's aliases of category and id
                c("cat", T),
                c("slice_id", I),
            ],
        ),
        (
            "counter",
            vec![
                c("id", I),
                c("ts", I),
                c("track_id", I),
                c("value", RL),
                c("arg_set_id", I),
            ],
        ),
        ("expected_frame_timeline_slice", FT_BASE.to_vec()),
        ("actual_frame_timeline_slice", actual),
        (
            "ftrace_event",
            vec![
                c("id", I),
                c("ts", I),
                c("name", T),
                c("cpu", I),
                g("ucpu", I, "cpu"),
                c("utid", I),
                c("arg_set_id", I),
                c("common_flags", I),
            ],
        ),
        (
            "args",
            vec![
                c("id", I),
                c("arg_set_id", I),
                c("flat_key", T),
                c("key", T),
                c("int_value", I),
                c("string_value", T),
                c("real_value", RL),
                c("value_type", T),
                c("display_value", T),
            ],
        ),
        (
            "flow",
            vec![
                c("id", I),
                c("slice_out", I),
                c("slice_in", I),
                c("trace_id", I),
                c("arg_set_id", I),
            ],
        ),
        (
            "package_list",
            vec![
                c("id", I),
                c("package_name", T),
                c("uid", I),
                c("debuggable", I),
                c("profileable_from_shell", I),
                c("version_code", I),
            ],
        ),
        (
            "stats",
            vec![
                c("name", T),
                c("key", I),
                c("idx", I),
                c("severity", T),
                c("source", T),
                c("value", I),
                c("description", T),
                c("machine_id", I),
                c("trace_id", I),
            ],
        ),
        (
            "metadata",
            vec![
                c("name", T),
                c("key_type", T),
                c("int_value", I),
                c("str_value", T),
                c("machine_id", I),
                c("trace_id", I),
            ],
        ),
        (
            "clock_snapshot",
            vec![
                c("id", I),
                c("ts", I),
                c("clock_id", I),
                c("clock_name", T),
                c("clock_value", I),
                c("snapshot_id", I),
                c("machine_id", I),
            ],
        ),
        (
            "machine",
            vec![
                c("id", I),
                c("raw_id", I),
                c("name", T),
                c("sysname", T),
                c("release", T),
                c("version", T),
                c("arch", T),
                c("num_cpus", I),
                c("android_build_fingerprint", T),
                c("android_device_manufacturer", T),
                c("android_sdk_version", I),
                c("system_ram_bytes", I),
                c("system_ram_gb", I),
                c("label_index", I),
            ],
        ),
        ("trace_bounds", vec![c("start_ts", I), c("end_ts", I)]),
        (
            "_trace_import_logs",
            vec![
                c("id", I),
                c("trace_id", I),
                c("ts", I),
                c("byte_offset", I),
                c("severity", T),
                c("name", T),
                c("arg_set_id", I),
            ],
        ),
        (
            "android_game_intervention_list",
            vec![
                c("id", I),
                c("package_name", T),
                c("uid", I),
                c("current_mode", I),
                c("standard_mode_supported", I),
                c("standard_mode_downscale", RL),
                c("standard_mode_use_angle", I),
                c("standard_mode_fps", RL),
                c("perf_mode_supported", I),
                c("perf_mode_downscale", RL),
                c("perf_mode_use_angle", I),
                c("perf_mode_fps", RL),
                c("battery_mode_supported", I),
                c("battery_mode_downscale", RL),
                c("battery_mode_use_angle", I),
                c("battery_mode_fps", RL),
            ],
        ),
        (
            "__intrinsic_trace_diagnostics",
            vec![
                c("id", I),
                c("key", T),
                c("title", T),
                c("description", T),
                c("remediation", T),
                c("confidence", RL),
                c("trace_id", I),
            ],
        ),
        (
            "__intrinsic_logs",
            vec![
                c("id", I),
                c("ts", I),
                c("utid", I),
                c("prio", I),
                c("log_source", T),
                c("tag", T),
                c("msg", T),
                c("arg_set_id", I),
            ],
        ),
        (
            "__intrinsic_state",
            vec![
                c("id", I),
                c("ts", I),
                c("dur", I),
                c("track_id", I),
                c("category", T),
                c("value", T),
                c("arg_set_id", I),
            ],
        ),
        (
            "stack_profile_mapping",
            vec![
                c("id", I),
                c("build_id", T),
                c("exact_offset", I),
                c("start_offset", I),
                c("start", I),
                c("end", I),
                c("load_bias", I),
                c("name", T),
            ],
        ),
        (
            "stack_profile_frame",
            vec![
                c("id", I),
                c("name", T),
                c("mapping", I),
                c("rel_pc", I),
                c("symbol_set_id", I),
                c("deobfuscated_name", T),
                c("type", T),
            ],
        ),
        (
            "stack_profile_callsite",
            vec![
                c("id", I),
                c("depth", I),
                c("parent_id", I),
                c("frame_id", I),
            ],
        ),
        (
            "stack_profile_symbol",
            vec![
                c("id", I),
                c("symbol_set_id", I),
                c("name", T),
                c("source_file", T),
                c("line_number", I),
                c("inlined", I),
            ],
        ),
        (
            "__intrinsic_track_event_callstacks",
            vec![
                c("id", I),
                c("slice_id", I),
                c("track_id", I),
                c("callsite_id", I),
                c("end_callsite_id", I),
                c("weight", RL),
            ],
        ),
        (
            // trace_processor's __intrinsic_profiler_sample, its contexts
            // inlined: the rows of `cpu_profile_stack_sample` (source
            // 'chrome') and `perf_sample` ('linux.perf'), ids shared
            "__artscope_profiler_sample",
            vec![
                c("id", I),
                c("ts", I),
                c("source", T),
                c("callsite_id", I),
                c("utid", I),
                c("process_priority", I),
                c("cpu", I),
                c("cpu_mode", T),
                c("unwind_error", T),
                c("perf_session_id", I),
            ],
        ),
        (
            "heap_profile_allocation",
            vec![
                c("id", I),
                c("ts", I),
                c("upid", I),
                c("heap_name", T),
                c("callsite_id", I),
                c("count", I),
                c("size", I),
            ],
        ),
        (
            "heap_profile",
            vec![
                c("id", I),
                c("ts", I),
                c("ts_end", I),
                c("dur", I),
                c("upid", I),
                c("heap_name", T),
            ],
        ),
        (
            "profiler_smaps",
            vec![
                c("id", I),
                c("upid", I),
                c("ts", I),
                c("path", T),
                c("path_trimmed", T),
                c("aggregate_count", I),
                c("is_deleted", I),
                c("size_kb", I),
                c("private_dirty_kb", I),
                c("swap_kb", I),
                c("file_name", T),
                c("start_address", I),
                c("module_timestamp", I),
                c("module_debugid", T),
                c("module_debug_path", T),
                c("protection_flags", I),
                c("private_clean_resident_kb", I),
                c("shared_dirty_resident_kb", I),
                c("shared_clean_resident_kb", I),
                c("locked_kb", I),
                c("proportional_resident_kb", I),
                c("rss_kb", I),
                c("anonymous_kb", I),
                c("pss_dirty_kb", I),
                c("swap_pss_kb", I),
            ],
        ),
        (
            "perf_session",
            vec![c("id", I), c("perf_session_id", I), c("cmdline", T)],
        ),
        (
            "__intrinsic_android_cpu_per_uid_track",
            vec![
                c("id", I),
                c("track_id", I),
                c("uid", I),
                c("cluster", I),
                c("total_cpu_millis", I),
            ],
        ),
    ]
}

/// trace_processor's public views over the internal track table (and sched_slice),
/// with the columns trace_processor v58 gives them.
pub const VIEWS: [(&str, &str); 23] = [
    ("sched_slice", "SELECT id, ts, dur, cpu, ucpu, utid, end_state, priority FROM sched"),
    ("track", "SELECT id, name, type, parent_id, dimension_arg_set_id, source_arg_set_id, machine_id FROM __track"),
    ("thread_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, _utid AS utid FROM __track WHERE event_type = 'slice' AND _utid IS NOT NULL"),
    ("process_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, _upid AS upid FROM __track WHERE event_type = 'slice' AND _upid IS NOT NULL"),
    ("cpu_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, _cpu AS cpu FROM __track WHERE event_type = 'slice' AND _cpu IS NOT NULL"),
    ("counter_track", "SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id, counter_unit AS unit, description FROM __track WHERE event_type = 'counter'"),
    ("cpu_counter_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, description, _cpu AS cpu FROM __track WHERE event_type = 'counter' AND _cpu IS NOT NULL"),
    ("process_counter_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, description, _upid AS upid FROM __track WHERE event_type = 'counter' AND _upid IS NOT NULL"),
    ("thread_counter_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, description, _utid AS utid FROM __track WHERE event_type = 'counter' AND _utid IS NOT NULL"),
    // (args read by subqueries, not extract_arg: the views also run in
    // `to_sqlite`'s plain database)
    ("perf_counter_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, description, (SELECT int_value FROM args a WHERE a.arg_set_id = t.dimension_arg_set_id AND a.key = 'perf_session_id') AS perf_session_id, (SELECT int_value FROM args a WHERE a.arg_set_id = t.dimension_arg_set_id AND a.key = 'cpu') AS cpu, (SELECT int_value FROM args a WHERE a.arg_set_id = t.source_arg_set_id AND a.key = 'is_timebase') AS is_timebase FROM __track t WHERE event_type = 'counter' AND type IN ('perf_cpu_counter', 'perf_global_counter')"),
    // the counter tracks with a ugpu dimension (gpu counters, frequency, memory)
    ("gpu_counter_track", "SELECT ct.id, ct.name, ct.type, ct.parent_id, ct.source_arg_set_id, ct.machine_id, ct.unit, ct.description, a.int_value AS ugpu, (SELECT int_value FROM args g WHERE g.arg_set_id = ct.dimension_arg_set_id AND g.key = 'gpu') AS gpu_id FROM counter_track ct JOIN args a ON ct.dimension_arg_set_id = a.arg_set_id WHERE a.key = 'ugpu'"),
    // Chrome's streaming CPU profile samples and traced_perf's samples
    ("cpu_profile_stack_sample", "SELECT id, ts, callsite_id, utid, process_priority FROM __artscope_profiler_sample WHERE source = 'chrome'"),
    ("perf_sample", "SELECT id, ts, utid, cpu, COALESCE(cpu_mode, 'unknown') AS cpu_mode, callsite_id, unwind_error, perf_session_id FROM __artscope_profiler_sample WHERE source = 'linux.perf'"),
    ("raw", "SELECT * FROM ftrace_event"),
    // the legacy alias of `counter` with its track's name and unit (stdlib prelude)
    ("counters", "SELECT v.*, t.name, t.unit FROM counter AS v JOIN counter_track AS t ON v.track_id = t.id ORDER BY ts"),
    // trace_processor's legacy alias of slice
    ("slices", "SELECT * FROM slice"),
    // trace_processor's instants: the slices of dur 0
    ("instant", "SELECT ts, track_id, name, arg_set_id FROM slice WHERE dur = 0"),
    // logcat (the only log source imported) and every log source
    ("android_logs", "SELECT id, ts, utid, prio, tag, msg FROM __intrinsic_logs WHERE log_source = 'android_logcat'"),
    ("logs", "SELECT id, ts, utid, prio, log_source, tag, msg, arg_set_id FROM __intrinsic_logs"),
    // userspace state tracks (tracing sessions' states)
    ("state", "SELECT id, ts, dur, track_id, category, value, arg_set_id FROM __intrinsic_state"),
    ("state_track", "SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id FROM __track WHERE event_type = 'state'"),
    ("process_state_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, _upid AS upid FROM __track WHERE event_type = 'state' AND _upid IS NOT NULL"),
    ("thread_state_track", "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, _utid AS utid FROM __track WHERE event_type = 'state' AND _utid IS NOT NULL"),
];

const INDEXES: [&str; 6] = [
    "CREATE INDEX sched_utid ON sched(utid, ts)",
    "CREATE INDEX sched_cpu ON sched(cpu, ts)",
    "CREATE INDEX slice_track ON slice(track_id, ts)",
    "CREATE INDEX counter_track_ts ON counter(track_id, ts)",
    "CREATE INDEX args_set ON args(arg_set_id)",
    "CREATE INDEX thread_state_utid ON thread_state(utid, ts)",
];

/// A row's machine_id / trace_id: `id` if the row belongs to that scope,
/// else NULL.
fn scope_id(belongs: bool, id: i64) -> V<'static> {
    if belongs {
        V::Int(id)
    } else {
        V::Null
    }
}

fn oi(v: Option<i64>) -> V<'static> {
    v.map_or(V::Null, V::Int)
}
fn ou32(v: Option<u32>) -> V<'static> {
    v.map_or(V::Null, |x| V::Int(x as i64))
}
fn ot(v: Option<&str>) -> V<'_> {
    v.map_or(V::Null, V::Text)
}

/// Rows per multi-row INSERT: one statement step inserts this many rows
/// (the per-statement VDBE overhead is most of a single-row insert's cost).
const BATCH: usize = 64;

/// Bulk inserter: rows are buffered and inserted BATCH at a time by one
/// multi-row INSERT; the rest by single-row ones on `finish`.
struct Inserter<'c, 'v> {
    many: Statement<'c>,
    one: Statement<'c>,
    width: usize,
    buf: Vec<V<'v>>,
}

impl<'c, 'v> Inserter<'c, 'v> {
    fn new(conn: &'c Connection, table: &str, cols: &[Col]) -> rusqlite::Result<Self> {
        let stored: Vec<&str> = cols.iter().filter(|c| c.2.is_none()).map(|c| c.0).collect();
        let one = format!("({})", vec!["?"; stored.len()].join(", "));
        let head = format!("INSERT INTO {table} ({}) VALUES ", stored.join(", "));
        let many = format!("{head}{}", vec![one.as_str(); BATCH].join(", "));
        Ok(Inserter {
            many: conn.prepare(&many)?,
            one: conn.prepare(&format!("{head}{one}"))?,
            width: stored.len(),
            buf: Vec::with_capacity(stored.len() * BATCH),
        })
    }

    fn finish(&mut self) -> rusqlite::Result<()> {
        let buf = std::mem::take(&mut self.buf);
        for row in buf.chunks(self.width) {
            for (i, v) in row.iter().enumerate() {
                self.one.raw_bind_parameter(i + 1, v)?;
            }
            self.one.raw_execute()?;
        }
        Ok(())
    }
}

impl<'v> RowSink<'v> for Inserter<'_, 'v> {
    #[inline]
    fn row(&mut self, vals: &[V<'v>]) -> rusqlite::Result<()> {
        debug_assert_eq!(vals.len(), self.width);
        self.buf.extend_from_slice(vals);
        if self.buf.len() == self.width * BATCH {
            for (i, v) in self.buf.iter().enumerate() {
                self.many.raw_bind_parameter(i + 1, v)?;
            }
            self.many.raw_execute()?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// Builds the database in an in-memory SQLite connection from the column
/// tables (`columns::build_tables`): the serialized form tests use as an
/// oracle for the virtual tables (`_core.import_trace(...).to_sqlite`).
pub fn build_db(tables: &[Table]) -> rusqlite::Result<Connection> {
    // (SQLite's sorter may use a second thread for the index builds)
    let conn = Connection::open_in_memory()?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA threads = 2;")?;
    let schema = schema();
    for (name, cols) in &schema {
        let defs: Vec<String> = cols
            .iter()
            .enumerate()
            .map(|(i, (cn, ty, gen))| match gen {
                Some(e) => format!("{cn} {ty} AS ({e})"),
                None if i == 0 && *cn == "id" && *ty == "INTEGER" => {
                    "id INTEGER PRIMARY KEY".into()
                }
                None => format!("{cn} {ty}"),
            })
            .collect();
        conn.execute_batch(&format!("CREATE TABLE {name} ({})", defs.join(", ")))?;
    }
    conn.execute_batch("BEGIN")?;
    for ((name, cols), table) in schema.iter().zip(tables) {
        debug_assert_eq!(*name, table.name);
        let stored: Vec<usize> = (0..cols.len()).filter(|&i| cols[i].2.is_none()).collect();
        let mut ins = Inserter::new(&conn, name, cols)?;
        let mut row = Vec::with_capacity(stored.len());
        for r in 0..table.n {
            row.clear();
            row.extend(stored.iter().map(|&c| table.get(c, r)));
            ins.row(&row)?;
        }
        ins.finish()?;
    }
    conn.execute_batch("COMMIT")?;
    for (name, sql) in VIEWS {
        conn.execute_batch(&format!("CREATE VIEW {name} AS {sql}"))?;
    }
    for stmt in INDEXES {
        conn.execute_batch(stmt)?;
    }
    Ok(conn)
}

/// The tables `take_moved` gives (every other one comes from `fill`).
pub const MOVED_TABLES: [&str; 4] = ["sched", "thread_state", "ftrace_event", "args"];

/// thread_state.blocked_function from its sparse (row, function) list: a
/// column only when some row has one (most traces have none).
fn blocked_functions(sparse: Vec<(u32, Box<str>)>, rows: usize) -> Stored {
    if sparse.is_empty() {
        return Stored::null();
    }
    let mut dict: Vec<Box<str>> = Vec::new();
    let mut index: rustc_hash::FxHashMap<Box<str>, u32> = Default::default();
    let mut ids = vec![crate::columns::NULL_TEXT; rows];
    for (row, f) in sparse {
        let id = *index.entry(f.clone()).or_insert_with(|| {
            dict.push(f);
            dict.len() as u32 - 1
        });
        ids[row as usize] = id;
    }
    Stored::text(ids, dict)
}

/// A big table's data moved out of the import (`take_moved`), to be made
/// into columns (`moved_columns`): on another thread, if the caller likes.
pub enum Moved {
    Sched(SchedTable),
    ThreadState(ThreadStateTable),
    FtraceEvent(RawTable),
    Args(Args),
}

/// The data of `table`, one of `MOVED_TABLES`, moved out of the trackers
/// without a copy (None for any other table).
pub fn take_moved(imp: &mut Imported, table: &str) -> Option<Moved> {
    Some(match table {
        "sched" => Moved::Sched(std::mem::take(&mut imp.sched.table)),
        "thread_state" => Moved::ThreadState(std::mem::take(&mut imp.ctx.thread_state.table)),
        "ftrace_event" => Moved::FtraceEvent(std::mem::take(&mut imp.raw)),
        "args" => Moved::Args(std::mem::take(&mut imp.ctx.args)),
        _ => return None,
    })
}

/// The stored columns of the tables big enough to matter (one row per
/// sched slice, thread state, ftrace event, arg), from their moved data;
/// `state_names`: the end states' names (`EndStates::names`). `fill` gives
/// every other table's rows.
pub fn moved_columns(
    data: Moved,
    state_names: &[Option<String>],
    arg_set_ids: &[Option<i64>],
) -> Vec<Stored> {
    let names: Vec<Box<str>> = state_names
        .iter()
        .map(|n| n.as_deref().unwrap_or("").into())
        .collect();
    match data {
        Moved::Sched(t) => {
            vec![
                Stored::row_number(),
                Stored::int(t.ts),
                Stored::int(t.dur),
                Stored::ints(t.cpu),
                Stored::ints(t.utid),
                Stored::text_ids(t.end_state, names),
                Stored::ints(t.prio),
            ]
        }
        Moved::ThreadState(t) => {
            let rows = t.ts.len();
            vec![
                Stored::row_number(),
                Stored::int(t.ts),
                Stored::int(t.dur),
                Stored::ints_or_null(t.cpu),
                Stored::ints(t.utid),
                Stored::text_ids(t.state, names),
                Stored::ints_or_null(Ints::I8(t.io_wait)),
                blocked_functions(t.blocked_function, rows),
                Stored::ints_or_null(t.waker),
                Stored::ints_or_null(Ints::I8(t.irq_context)),
            ]
        }
        Moved::Args(a) => args_columns(a, arg_set_ids),
        Moved::FtraceEvent(r) => {
            let flags = match r.flags_column() {
                FlagsColumn::Narrow(v) => Stored::narrow(v),
                FlagsColumn::Wide(v) => Stored::narrow(v),
            };
            let mut arg_set = r.arg_set;
            for row in 0..arg_set.len() {
                let set = arg_set.get(row);
                let public = crate::replay::public_arg_set_id(arg_set_ids, Some(set));
                arg_set.set(row, public.unwrap_or(-1));
            }
            vec![
                Stored::row_number(),
                Stored::int(r.ts),
                Stored::text_ids(r.name, r.names.iter().map(|&n| n.into()).collect()),
                Stored::ints(r.cpu),
                Stored::ints_or_null(r.utid),
                Stored::ints_or_null(arg_set),
                flags,
            ]
        }
    }
}

/// The args table's stored columns. Millions of rows repeat a few keys,
/// types and values: each text column is interned per distinct value (a
/// display text formatted once per distinct number), not per row.
fn args_columns(a: Args, arg_set_ids: &[Option<i64>]) -> Vec<Stored> {
    use crate::columns::Dict;
    use crate::trackers::core::tracks::{flat_key, ArgValue};
    let n = a.rows.len();
    // flat_key: the key without array indices, per distinct key
    let mut flat = Dict::default();
    let flat_of_key: Vec<u32> = a.keys.iter().map(|k| flat.id(&flat_key(k))).collect();
    let (mut displays, mut types) = (Dict::default(), Dict::default());
    // display ids: of a string by its string id, of a number by (kind,
    // bits); value_type ids by kind
    let mut display_of_string: Vec<u32> = Vec::new();
    let mut display_of_number: rustc_hash::FxHashMap<(u8, i64), u32> = Default::default();
    let mut type_of_kind = [NULL_TEXT; 7];
    // (each column written at its narrowest width: `Ints`)
    let column = || Ints::with_capacity(n);
    let (mut set_ids, mut keys, mut flat_keys, mut ints) = (column(), column(), column(), column());
    let (mut string_ids, mut type_ids, mut display_ids) = (column(), column(), column());
    let (mut reals, mut int_nulls, mut real_nulls) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    // text ids: NULL is -1
    let text = |id: u32| if id == NULL_TEXT { -1 } else { id as i64 };
    for r in &a.rows {
        // (every row's set has args: a public id)
        set_ids.push(arg_set_ids[r.set_id as usize].unwrap_or(r.set_id as i64));
        keys.push(r.key as i64);
        flat_keys.push(flat_of_key[r.key as usize] as i64);
        let v = &r.value;
        let int = v.int_value();
        ints.push(int.unwrap_or(0));
        int_nulls.push(int.is_none());
        let real = v.real_value();
        reals.push(real.unwrap_or(0.0));
        real_nulls.push(real.is_none());
        let kind = match v {
            ArgValue::Int(_) => 0,
            ArgValue::Uint(_) => 1,
            ArgValue::Bool(_) => 2,
            ArgValue::Real(_) => 3,
            ArgValue::Str(_) => 4,
            ArgValue::NullStr => 5,
            ArgValue::Pointer(_) => 6,
        };
        if type_of_kind[kind] == NULL_TEXT {
            type_of_kind[kind] = types.id(v.value_type());
        }
        type_ids.push(type_of_kind[kind] as i64);
        let (string, display) = match v {
            ArgValue::NullStr => (NULL_TEXT, NULL_TEXT),
            // (string values are ids into `a.strings`, the column's dictionary)
            &ArgValue::Str(id) => {
                if display_of_string.len() <= id as usize {
                    display_of_string.resize(id as usize + 1, NULL_TEXT);
                }
                let d = &mut display_of_string[id as usize];
                if *d == NULL_TEXT {
                    *d = displays.id(&a.strings[id as usize]);
                }
                (id, *d)
            }
            _ => {
                let bits = match *v {
                    ArgValue::Real(x) => x.to_bits() as i64,
                    _ => int.unwrap_or(0),
                };
                let d = *display_of_number
                    .entry((kind as u8, bits))
                    .or_insert_with(|| displays.id(&v.display(&a.strings).unwrap_or_default()));
                (NULL_TEXT, d)
            }
        };
        string_ids.push(text(string));
        display_ids.push(text(display));
    }
    vec![
        Stored::row_number(),
        Stored::ints(set_ids),
        Stored::text_ids(flat_keys, flat.into_strings()),
        Stored::text_ids(keys, a.keys),
        Stored::ints_nulls(ints, &int_nulls),
        Stored::text_ids(string_ids, a.strings),
        Stored::real_nulls(reals, real_nulls),
        Stored::text_ids(type_ids, types.into_strings()),
        Stored::text_ids(display_ids, displays.into_strings()),
    ]
}

pub fn fill<'v>(
    imp: &'v Imported,
    table: &str,
    ins: &mut impl RowSink<'v>,
    config: Option<&'v str>,
) -> rusqlite::Result<()> {
    let ctx = &imp.ctx;
    let pt = &ctx.pt;
    let sink = &imp.sink;
    match table {
        "cpu" => {
            let info = &imp.cpu_info.rows;
            // trace_processor's cpu rows: the cpus of sched and ftrace_event
            // rows, of tracks with a cpu dimension and of CpuInfo
            let mut cpus = imp.cpus_seen.clone();
            // sched's cpus (millions of rows)
            let mut sched_cpus = CpuSet::default();
            for c in imp.sched.table.cpu.iter() {
                sched_cpus.insert(c);
            }
            cpus.extend(sched_cpus.into_set());
            cpus.extend(ctx.tracks.cpus.iter().copied());
            cpus.extend(0..info.len() as i64);
            // (a remote machine's cpus: ucpu = machine * 4096 + cpu, its
            // tracks' only; CpuInfo is the host's)
            for ucpu in cpus {
                let machine = ucpu / crate::machines::MAX_CPUS_PER_MACHINE;
                let cpu = crate::machines::machine_cpu(ucpu);
                let ci = usize::try_from(ucpu).ok().and_then(|i| info.get(i));
                ins.row(&[
                    V::Int(ucpu),
                    V::Int(ucpu),
                    V::Int(cpu),
                    V::Int(ci.map_or(0, |x| x.cluster_id)),
                    ot(ci.and_then(|x| x.processor.as_deref())),
                    V::Int(machine),
                    oi(ci.and_then(|x| x.capacity)),
                    oi(imp.arg_set_id(ci.and_then(|x| x.arg_set))),
                ])?;
            }
        }
        "cpu_available_frequencies" => {
            for (id, &(cpu, f)) in imp.cpu_info.frequencies.iter().enumerate() {
                ins.row(&[V::Int(id as i64), V::Int(cpu), V::Int(f), V::Int(cpu)])?;
            }
        }
        "thread" => {
            for u in 0..pt.n_threads() {
                ins.row(&[
                    V::Int(u as i64),
                    V::Int(u as i64),
                    V::Int(pt.t_tid[u]),
                    ot(pt.t_name[u].as_deref()),
                    oi(pt.t_start[u]),
                    oi(pt.t_end[u]),
                    ou32(pt.t_upid[u]),
                    oi(pt.is_main_thread(u)),
                    V::Int(pt.is_idle(u as u32) as i64),
                    V::Int(
                        pt.t_machine
                            .get(&(u as u32))
                            .map_or(HOST_MACHINE_ID, |&m| m as i64),
                    ),
                    oi(imp.arg_set_id(pt.t_args.get(&(u as u32)).copied())),
                ])?;
            }
        }
        "process" => {
            for u in 0..pt.p_pid.len() {
                let uid = pt.p_uid[u];
                ins.row(&[
                    V::Int(u as i64),
                    V::Int(u as i64),
                    V::Int(pt.p_pid[u]),
                    ot(pt.p_name[u].as_deref()),
                    oi(pt.p_start[u]),
                    oi(pt.p_end[u]),
                    ou32(pt.p_parent[u]),
                    oi(uid),
                    oi(uid.map(|x| x.rem_euclid(100000))),
                    oi(uid.map(|x| x.div_euclid(100000))),
                    ot(pt.p_cmdline[u].as_deref()),
                    oi(imp.arg_set_id(pt.p_args.get(&(u as u32)).copied())),
                    V::Int(
                        pt.p_machine
                            .get(&(u as u32))
                            .map_or(HOST_MACHINE_ID, |&m| m as i64),
                    ),
                ])?;
            }
        }
        "__track" => {
            for (i, r) in ctx.tracks.rows.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    ot(r.name.as_deref()),
                    V::Text(r.type_),
                    ou32(r.parent),
                    oi(imp.arg_set_id(r.dimension_arg_set_id)),
                    oi(imp.arg_set_id(r.source_arg_set_id)),
                    V::Int(r.machine as i64),
                    V::Text(r.event_type),
                    ot(r.unit.as_deref()),
                    ot(r.description.as_deref()),
                    ou32(r.utid),
                    ou32(r.upid),
                    oi(r.cpu),
                ])?;
            }
        }
        "slice" => {
            // thread_ts / thread_dur: the few slices that have them
            let thread_times = &ctx.slices.thread_times;
            for (i, r) in ctx.slices.rows.iter().enumerate() {
                let thread = thread_times.get(&(i as u32));
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.ts),
                    V::Int(r.dur),
                    V::Int(r.track as i64),
                    ot(r.category.as_deref()),
                    if r.null_name {
                        V::Null
                    } else {
                        V::Text(&r.name)
                    },
                    V::Int(r.depth),
                    ou32(r.parent),
                    oi(imp.arg_set_id(r.arg_set)),
                    oi(thread.and_then(|t| t.ts)),
                    oi(thread.and_then(|t| t.dur)),
                    oi(thread.and_then(|t| t.instruction_count)),
                    oi(thread.and_then(|t| t.instruction_delta)),
                    ot(r.category.as_deref()),
                    V::Int(i as i64),
                ])?;
            }
        }
        "counter" => {
            for (i, r) in sorted_counters(imp).iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.ts),
                    V::Int(r.track as i64),
                    V::Real(r.value),
                    oi(imp.arg_set_id(r.arg_set)),
                ])?;
            }
        }
        "expected_frame_timeline_slice" | "actual_frame_timeline_slice" => {
            let want_expected = table.starts_with("expected");
            for (sid, cols) in &imp.frames.rows {
                if cols.expected != want_expected {
                    continue;
                }
                let r = &ctx.slices.rows[*sid as usize];
                let mut vals = vec![
                    V::Int(*sid as i64),
                    V::Int(r.ts),
                    V::Int(r.dur),
                    V::Int(r.track as i64),
                    V::Null,
                    V::Text(&r.name),
                    V::Int(r.depth),
                    ou32(r.parent),
                    oi(imp.arg_set_id(r.arg_set)),
                    oi(cols.display_frame_token),
                    oi(cols.surface_frame_token),
                    V::Int(cols.upid as i64),
                    ot(cols.layer_name.as_deref()),
                ];
                if !want_expected {
                    vals.extend([
                        V::Text(cols.present_type),
                        V::Int(cols.on_time_finish),
                        V::Int(cols.gpu_composition),
                        V::Text(&cols.jank_type),
                        V::Text(cols.jank_severity_type),
                        V::Text(cols.prediction_type),
                        V::Text(cols.jank_tag),
                        ot(cols.jank_tag_experimental),
                        cols.jank_score.map_or(V::Null, V::Real),
                        oi(cols.latched_unsignaled_count),
                        oi(cols.addressable_unsignaled_latch_count),
                        oi(cols.latched_fence_state),
                    ]);
                }
                ins.row(&vals)?;
            }
        }
        "__intrinsic_android_cpu_per_uid_track" => {
            for (i, &(track, uid, cluster, total)) in ctx.power.uid_tracks.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(track as i64),
                    V::Int(uid as i64),
                    V::Int(cluster as i64),
                    V::Int(total),
                ])?;
            }
        }
        "__intrinsic_logs" => {
            let l = &ctx.logs;
            for i in 0..l.len() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(l.ts[i]),
                    V::Int(l.utid[i] as i64),
                    V::Int(l.prio[i]),
                    V::Text("android_logcat"),
                    ot(l.tag[i].as_deref()),
                    V::Text(&l.msg[i]),
                    V::Null,
                ])?;
            }
        }
        "stack_profile_mapping" => {
            for (i, m) in ctx.stack_profile.mappings.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Text(&m.build_id),
                    V::Int(m.exact_offset),
                    V::Int(m.start_offset),
                    V::Int(m.start),
                    V::Int(m.end),
                    V::Int(m.load_bias),
                    V::Text(&m.name),
                ])?;
            }
        }
        "stack_profile_frame" => {
            for (i, f) in ctx.stack_profile.frames.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    ot(f.name.as_deref()),
                    V::Int(f.mapping as i64),
                    V::Int(f.rel_pc),
                    ou32(f.symbol_set_id),
                    V::Null,
                    ot(f.type_.as_deref()),
                ])?;
            }
        }
        "stack_profile_callsite" => {
            for (i, cs) in ctx.stack_profile.callsites.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(cs.depth as i64),
                    ou32(cs.parent),
                    V::Int(cs.frame as i64),
                ])?;
            }
        }
        "stack_profile_symbol" => {
            for (i, sym) in ctx.stack_profile.symbols.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(sym.symbol_set_id as i64),
                    ot(sym.name.as_deref()),
                    ot(sym.source_file.as_deref()),
                    ou32(sym.line_number),
                    V::Null,
                ])?;
            }
        }
        "__intrinsic_track_event_callstacks" => {
            for (i, r) in ctx.stack_profile.track_event_callstacks.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.slice as i64),
                    V::Int(r.track as i64),
                    ou32(r.callsite),
                    ou32(r.end_callsite),
                    r.weight.map_or(V::Null, V::Real),
                ])?;
            }
        }
        "__artscope_profiler_sample" => {
            for (i, r) in ctx.stack_profile.samples.iter().enumerate() {
                let (source, priority, perf) = match r.source {
                    SampleSource::Chrome { process_priority } => ("chrome", process_priority, None),
                    SampleSource::Perf {
                        cpu,
                        cpu_mode,
                        unwind_error,
                        session,
                    } => (
                        "linux.perf",
                        0,
                        Some((cpu, cpu_mode, unwind_error, session)),
                    ),
                };
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.ts),
                    V::Text(source),
                    ou32(r.callsite),
                    V::Int(r.utid as i64),
                    V::Int(priority),
                    ou32(perf.and_then(|p| p.0)),
                    ot(perf.and_then(|p| p.1)),
                    ot(perf.and_then(|p| p.2)),
                    ou32(perf.map(|p| p.3)),
                ])?;
            }
        }
        "heap_profile_allocation" => {
            for (i, r) in ctx.heap_profiles.allocations.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.ts),
                    V::Int(r.upid as i64),
                    V::Text(&r.heap_name),
                    V::Int(r.callsite as i64),
                    V::Int(r.count),
                    V::Int(r.size),
                ])?;
            }
        }
        "heap_profile" => {
            for (i, r) in ctx.heap_profiles.profiles.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(r.ts),
                    V::Int(r.ts_end),
                    V::Int(r.ts_end - r.ts),
                    V::Int(r.upid as i64),
                    ot(r.heap_name.as_deref()),
                ])?;
            }
        }
        "profiler_smaps" => {
            use crate::events::profiles::smaps_value::*;
            for (i, (upid, ts, r)) in ctx.heap_profiles.smaps.iter().enumerate() {
                let v = |at: usize| V::Int(r.values[at]);
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(*upid as i64),
                    V::Int(*ts),
                    ot(r.path.as_deref()),
                    ot(r.path_trimmed.as_deref()),
                    V::Int(r.aggregate_count as i64),
                    V::Int(r.is_deleted as i64),
                    v(SIZE),
                    v(PRIVATE_DIRTY),
                    v(SWAP),
                    ot(r.file_name.as_deref()),
                    v(START_ADDRESS),
                    v(MODULE_TIMESTAMP),
                    ot(r.module_debugid.as_deref()),
                    ot(r.module_debug_path.as_deref()),
                    V::Int(r.protection_flags as i64),
                    v(PRIVATE_CLEAN),
                    v(SHARED_DIRTY),
                    v(SHARED_CLEAN),
                    v(LOCKED),
                    v(PSS),
                    v(RSS),
                    v(ANONYMOUS),
                    v(PSS_DIRTY),
                    v(SWAP_PSS),
                ])?;
            }
        }
        "perf_session" => {
            for i in 0..ctx.stack_profile.perf_sessions as i64 {
                ins.row(&[V::Int(i), V::Int(i), V::Null])?;
            }
        }
        "__intrinsic_state" => {
            let s = &ctx.state_rows;
            for i in 0..s.len() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(s.ts[i]),
                    V::Int(s.dur[i]),
                    V::Int(s.track[i] as i64),
                    ot(s.category[i].as_deref()),
                    V::Text(&s.value[i]),
                    oi(imp.arg_set_id(s.arg_set[i])),
                ])?;
            }
        }
        "flow" => {
            for (i, &(out, into, trace_id)) in ctx.flows.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    V::Int(out as i64),
                    V::Int(into as i64),
                    oi(trace_id),
                    oi(imp.arg_set_id(ctx.flow_args.get(&(i as u32)).copied())),
                ])?;
            }
        }
        "package_list" => {
            for (i, p) in sink.packages.iter().enumerate() {
                ins.row(&[
                    V::Int(i as i64),
                    p.0.as_deref().map_or(V::Null, V::Text),
                    V::Int(p.1),
                    V::Int(p.2),
                    V::Int(p.3),
                    V::Int(p.4),
                ])?;
            }
        }
        "stats" => {
            // the host's, then each remote machine's own list
            let remote = ctx
                .machine_stats
                .iter()
                .enumerate()
                .skip(1)
                .flat_map(|(m, stats)| {
                    let rows = crate::stats_table::rows(stats).into_iter();
                    rows.filter(|r| !r.global).map(move |r| (m as i64, r))
                });
            let host = crate::stats_table::rows(&ctx.stats).into_iter();
            for (machine, r) in host.map(|r| (HOST_MACHINE_ID, r)).chain(remote) {
                ins.row(&[
                    V::Text(r.name),
                    oi(r.key),
                    oi(r.idx),
                    V::Text(r.severity),
                    V::Text(r.source),
                    V::Int(r.value),
                    V::Text(r.description),
                    scope_id(!r.global, machine),
                    scope_id(!r.global, sink.trace_id),
                ])?;
            }
        }
        "metadata" => {
            use crate::metadata::MetaVal;
            // the trace config goes where trace_processor records it: after
            // the system info, before the file's size
            let rows = &sink.metadata.rows;
            let at = rows
                .iter()
                .position(|r| r.0 == "trace_size_bytes")
                .unwrap_or(rows.len());
            let recorded = |(key, multi, v): &'v (String, bool, MetaVal)| match v {
                MetaVal::Int(i) => (key.as_str(), *multi, V::Int(*i), V::Null),
                MetaVal::Str(s) => (key.as_str(), *multi, V::Null, V::Text(s)),
                MetaVal::NullStr => (key.as_str(), *multi, V::Null, V::Null),
            };
            let config_row = config.map(|cfg| ("trace_config_pbtxt", false, V::Null, V::Text(cfg)));
            let host = rows[..at]
                .iter()
                .map(recorded)
                .chain(config_row)
                .chain(rows[at..].iter().map(recorded))
                .map(|r| (HOST_MACHINE_ID, r));
            // then the remote machines' (`crate::machines`)
            let remote = sink
                .remote_metadata
                .iter()
                .flat_map(|(&m, md)| md.rows.iter().map(move |r| (m as i64, recorded(r))));
            for (machine_id, (key, multi, int, text)) in host.chain(remote) {
                let key_type = V::Text(if multi { "multi" } else { "single" });
                let (machine, trace) = crate::metadata::scope_of(key, sink.metadata.uuid_hashed);
                let machine_id = scope_id(machine, machine_id);
                ins.row(&[
                    V::Text(key),
                    key_type,
                    int,
                    text,
                    machine_id,
                    scope_id(trace, sink.trace_id),
                ])?;
            }
        }
        "clock_snapshot" => {
            // a snapshot's instant in trace time: its value of the trace's
            // clock (trace_processor converts each clock through the
            // snapshots, which gives that value for a monotonic clock; a
            // snapshot without the trace's clock adds no rows here)
            let trace_clock = sink.metadata.get_int("trace_time_clock_id").unwrap_or(6);
            let mut id = 0;
            for (snapshot_id, clocks) in sink.clock_snapshots.iter().enumerate() {
                // (the host's trace clock; in a bridge to the trace's time
                // before any snapshot, BUILTIN_CLOCK_TRACE_FILE)
                let host_clock = |c: &&crate::events::SnapshotClock, id| {
                    c.machine == 0 && c.clock_id as i64 == id
                };
                let at = match sink.snapshot_trace_ts.get(&snapshot_id) {
                    // a ClockSnapshot packet: the trace's clock then (in ns)
                    Some(&ts) => ts,
                    None => {
                        let remote = clocks.iter().any(|c| c.machine != 0);
                        let at = clocks.iter().find(|c| host_clock(c, trace_clock));
                        let at = at.or_else(|| clocks.iter().find(|c| remote && host_clock(c, 11)));
                        match at {
                            Some(at) => at.timestamp.wrapping_mul(at.unit_multiplier_ns),
                            None => continue,
                        }
                    }
                };
                for c in clocks {
                    ins.row(&[
                        V::Int(id),
                        V::Int(at),
                        V::Int(c.clock_id as i64),
                        ot(crate::time_functions::builtin_clock_name(c.clock_id)),
                        V::Int(c.timestamp.wrapping_mul(c.unit_multiplier_ns)),
                        V::Int(snapshot_id as i64),
                        V::Int(c.machine as i64),
                    ])?;
                    id += 1;
                }
            }
        }
        "machine" => {
            let machines = &sink.machines;
            for (id, m) in machines.rows.iter().enumerate() {
                ins.row(&[
                    V::Int(id as i64),
                    V::Int(m.raw_id),
                    ot(m.name.as_deref()),
                    ot(m.sysname.as_deref()),
                    ot(m.release.as_deref()),
                    ot(m.version.as_deref()),
                    ot(m.arch.as_deref()),
                    oi(m.num_cpus),
                    ot(m.android_build_fingerprint.as_deref()),
                    ot(m.android_device_manufacturer.as_deref()),
                    oi(m.android_sdk_version),
                    oi(m.system_ram_bytes),
                    oi(m.system_ram_gb()),
                    V::Int(machines.label_index(id)),
                ])?;
            }
        }
        "__intrinsic_trace_diagnostics" => {
            for (id, d) in sink.diagnostics.iter().enumerate() {
                ins.row(&[
                    V::Int(id as i64),
                    V::Text(d.key),
                    V::Text(d.title),
                    V::Text(&d.description),
                    V::Text(d.remediation),
                    V::Real(d.confidence),
                    V::Int(sink.trace_id),
                ])?;
            }
        }
        "_trace_import_logs" => {
            for (id, r) in ctx.import_logs.iter().enumerate() {
                ins.row(&[
                    V::Int(id as i64),
                    V::Int(sink.trace_id),
                    oi(r.ts),
                    oi(r.byte_offset),
                    V::Text(r.severity),
                    V::Text(r.name),
                    oi(imp.arg_set_id(r.arg_set_id)),
                ])?;
            }
        }
        "android_game_intervention_list" => {
            for (id, p) in sink.game_interventions.iter().enumerate() {
                let mut row = vec![
                    V::Int(id as i64),
                    p.name.as_deref().map_or(V::Null, V::Text),
                    V::Int(p.uid),
                    V::Int(p.current_mode),
                ];
                for m in &p.modes {
                    row.push(V::Int(m.is_some() as i64));
                    match m {
                        Some((downscale, angle, fps)) => {
                            row.extend([V::Real(*downscale), V::Int(*angle as i64), V::Real(*fps)])
                        }
                        None => row.extend([V::Null, V::Null, V::Null]),
                    }
                }
                ins.row(&row)?;
            }
        }
        "trace_bounds" => {
            let (lo, hi) = trace_bounds(imp);
            ins.row(&[V::Int(lo), V::Int(hi)])?;
        }
        _ => unreachable!("no rows for {table}"),
    }
    Ok(())
}

fn sorted_counters(imp: &Imported) -> Vec<&crate::trackers::core::counters::CounterRow> {
    let mut rows: Vec<_> = imp.ctx.counters.rows.iter().collect();
    rows.sort_by_key(|r| r.ts);
    rows
}

/// trace_bounds over ftrace events, sched, counters, slices, thread_state
/// events and the timestamps of data not imported.
pub fn trace_bounds(imp: &Imported) -> (i64, i64) {
    let mut b: Option<(i64, i64)> = None;
    let mut extend = |a: i64, z: i64| {
        b = Some(match b {
            None => (a, z),
            Some((lo, hi)) => (lo.min(a), hi.max(z)),
        });
    };
    let s = &imp.sched.table;
    if imp.raw_on {
        let mut firsts = Vec::new();
        let mut lasts = Vec::new();
        if let (Some(&f), Some(&l)) = (s.ts.first(), s.ts.last()) {
            firsts.push(f);
            lasts.push(l);
        }
        if let Some((f, l)) = imp.raw.other_first_last {
            firsts.push(f);
            lasts.push(l);
        }
        if !firsts.is_empty() {
            extend(*firsts.iter().min().unwrap(), *lasts.iter().max().unwrap());
        }
    }
    if !s.ts.is_empty() {
        let lo = *s.ts.iter().min().unwrap();
        let hi =
            s.ts.iter()
                .zip(&s.dur)
                .map(|(t, d)| t + (*d).max(0))
                .max()
                .unwrap();
        extend(lo, hi);
    }
    let counters = sorted_counters(imp);
    if let (Some(f), Some(l)) = (counters.first(), counters.last()) {
        extend(f.ts, l.ts);
    }
    let sl = &imp.ctx.slices.rows;
    if !sl.is_empty() {
        let lo = sl.iter().map(|r| r.ts).min().unwrap();
        let hi = sl.iter().map(|r| r.ts + r.dur.max(0)).max().unwrap();
        extend(lo, hi);
    }
    if let Some((f, l)) = imp.ts_other_first_last {
        extend(f, l);
    }
    if let (Some(lo), Some(hi)) = (imp.ctx.logs.ts.iter().min(), imp.ctx.logs.ts.iter().max()) {
        extend(*lo, *hi);
    }
    let samples = imp.ctx.stack_profile.samples.iter().map(|r| r.ts);
    if let (Some(lo), Some(hi)) = (samples.clone().min(), samples.max()) {
        extend(lo, hi);
    }
    // heapprofd's allocations (not their heap_profile windows) and smaps
    let hp = &imp.ctx.heap_profiles;
    let profile_ts = hp
        .allocations
        .iter()
        .map(|r| r.ts)
        .chain(hp.smaps.iter().map(|r| r.1));
    if let (Some(lo), Some(hi)) = (profile_ts.clone().min(), profile_ts.max()) {
        extend(lo, hi);
    }
    let st = &imp.ctx.state_rows;
    for (t, d) in st.ts.iter().zip(&st.dur) {
        extend(*t, t + (*d).max(0));
    }
    // no timestamped data: (0, 0), as trace_processor
    let Some((lo, hi)) = b else {
        return (0, 0);
    };
    // (trace_processor's end starts at 0: data all before 0 ends there)
    let mut hi = hi.max(0);
    if lo == hi {
        hi = lo + 1;
    }
    (lo, hi)
}
