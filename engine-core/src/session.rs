//! One trace's query session: the column tables as virtual tables in the
//! core's own SQLite connection, trace_processor's public views over them and
//! its prelude functions, and results returned as columns (Arrow buffers
//! built in lib.rs), never as rows of Python objects.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Batch, Connection};

use crate::columns::{Builder, Table, V};
use crate::replay::Imported;
use crate::tables::{fill, moved_columns, schema, take_moved, trace_bounds, MOVED_TABLES, VIEWS};
use crate::vtab::{Catalog, ColumnTab};

/// One result column's values as they came from SQLite.
pub enum OutCell {
    Null,
    Int(i64),
    Real(f64),
    /// [start, end) in the column's text bytes
    Text(usize, usize),
    Blob(Vec<u8>),
}

pub struct OutColumn {
    pub cells: Vec<OutCell>,
    pub bytes: Vec<u8>,
}

pub struct Session {
    pub conn: Connection,
    pub catalog: Catalog,
    /// the tables' names, in schema order (their virtual tables' order)
    names: Vec<String>,
    bounds: (i64, i64),
    /// a second connection over the same tables for `execute_many`, made
    /// on first use
    worker: Option<Connection>,
    /// `create_table`'s tables (latest per name), made again in the worker
    temp_tables: Vec<TempTable>,
    /// a statement other than a query ran on the connection (a view or
    /// table made, rows written): the worker would not see it, so
    /// `execute_many` runs everything here from then on
    edited: AtomicBool,
    /// extract_arg's index of the args, built once for both connections
    arg_index: ArgIndex,
}

/// Below this many rows in its big tables, a trace's queries run on one
/// connection: a second connection (its virtual tables, views and the
/// input tables made again, a few milliseconds) costs more than running
/// them two at a time saves (the analysis's queries take about 0.4 s of CPU
/// per million rows).
const CONCURRENT_ROWS: usize = 100_000;

/// EXTRACT_ARG's index: (arg_set_id, key) -> value, built on first use.
type ArgIndex = Arc<OnceLock<HashMap<(i64, String), Value>>>;

/// A TEMP table `create_table` made: (name, columns, rows).
type TempTable = (String, Vec<String>, Vec<Vec<Value>>);

/// One query's column names and columns.
pub type QueryResult = (Vec<String>, Vec<OutColumn>);

/// Every table as columns, in schema order: the big ones moved out of the
/// trackers (`take_moved`, `moved_columns`), the others from `fill`'s rows.
/// Consumes the import (its data now lives in the tables). The args' and
/// thread_state's columns (the biggest conversions, neither read by `fill`)
/// are made on a second thread meanwhile: about half of the work.
pub fn build_tables(
    mut imp: Imported,
    trace_config_pbtxt: Option<&str>,
) -> rusqlite::Result<Vec<Table>> {
    let timings = std::env::var_os("ARTSCOPE_CORE_TIMINGS").is_some();
    let schema = schema();
    let state_names = imp.ctx.states.names.clone();
    // (made on the second thread)
    let side_tables = ["args", "thread_state"];
    let side_data: Vec<_> = side_tables
        .iter()
        .map(|name| take_moved(&mut imp, name).expect("a moved table"))
        .collect();
    let arg_set_ids = imp.arg_set_ids.clone();
    let (mut out, side_made) = std::thread::scope(|scope| {
        let side = scope.spawn(|| {
            let made: Vec<_> = side_tables
                .iter()
                .zip(side_data)
                .map(|(name, data)| {
                    timed(timings, name, || {
                        moved_columns(data, &state_names, &arg_set_ids)
                    })
                })
                .collect();
            made
        });
        // `fill` reads sched's columns (cpu rows, bounds): it goes first
        let mut out: Vec<Option<Table>> = Vec::with_capacity(schema.len());
        for (name, cols) in &schema {
            if MOVED_TABLES.contains(name) {
                out.push(None);
                continue;
            }
            let mut b = Builder::new(cols);
            let filled = timed(timings, name, || {
                fill(&imp, name, &mut b, trace_config_pbtxt)
            });
            filled?;
            out.push(Some(b.finish(name)));
        }
        for ((name, cols), slot) in schema.iter().zip(out.iter_mut()) {
            if side_tables.contains(name) {
                continue;
            }
            if let (None, Some(data)) = (&slot, take_moved(&mut imp, name)) {
                let stored = timed(timings, name, || {
                    moved_columns(data, &state_names, &arg_set_ids)
                });
                *slot = Some(Table::new(name, cols, stored));
            }
        }
        // (a panic there is the import's, as on this thread)
        let made = side.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        Ok::<_, rusqlite::Error>((out, made))
    })?;
    for (name, stored) in side_tables.iter().zip(side_made) {
        let at = schema.iter().position(|(n, _)| n == name).expect("a table");
        out[at] = Some(Table::new(name, &schema[at].1, stored));
    }
    Ok(out.into_iter().flatten().collect())
}

/// `make()`, its time printed under ARTSCOPE_CORE_TIMINGS.
fn timed<T>(timings: bool, table: &str, make: impl FnOnce() -> T) -> T {
    let t = std::time::Instant::now();
    let made = make();
    if timings {
        eprintln!("core: columns {table} {:.3} s", t.elapsed().as_secs_f64());
    }
    made
}

/// A connection serving `catalog`'s tables (`names`, in order) as virtual
/// tables, with trace_processor's views and prelude functions.
fn connect(
    catalog: &Catalog,
    names: &[String],
    bounds: (i64, i64),
    arg_index: &ArgIndex,
) -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    conn.create_module(
        "artscope_columns",
        rusqlite::vtab::read_only_module::<ColumnTab>(),
        Some(catalog.clone()),
    )?;
    crate::span_join::register(&conn)?;
    for name in names {
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE {name} USING artscope_columns"
        ))?;
    }
    for (name, sql) in VIEWS {
        conn.execute_batch(&format!("CREATE VIEW {name} AS {sql}"))?;
    }
    register_functions(&conn, catalog, bounds, arg_index.clone())?;
    register_to_ftrace(&conn, catalog)?;
    Ok(conn)
}

/// trace_processor's prelude functions: trace_start(), trace_end(),
/// trace_dur() and EXTRACT_ARG(arg_set_id, key) (the typed value of one
/// arg: int, else string, else real).
fn register_functions(
    conn: &Connection,
    catalog: &Catalog,
    (start, end): (i64, i64),
    index: ArgIndex,
) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("trace_start", 0, flags, move |_| Ok(start))?;
    conn.create_scalar_function("trace_end", 0, flags, move |_| Ok(end))?;
    conn.create_scalar_function("trace_dur", 0, flags, move |_| Ok(end - start))?;
    let args = catalog.get("args").cloned();
    conn.create_scalar_function("extract_arg", 2, flags, move |ctx| {
        let (set, key) = match (ctx.get_raw(0), ctx.get_raw(1)) {
            (ValueRef::Integer(s), ValueRef::Text(k)) => (s, k),
            _ => return Ok(Value::Null),
        };
        let Some(args) = &args else {
            return Ok(Value::Null);
        };
        let index = index.get_or_init(|| arg_index(args));
        let key = String::from_utf8_lossy(key).into_owned();
        Ok(index.get(&(set, key)).cloned().unwrap_or(Value::Null))
    })?;
    register_time_functions(conn, catalog, flags)?;
    register_metadata_functions(conn, catalog, flags)
}

/// TO_FTRACE(id): an ftrace_event row as a line of text ftrace (module
/// `to_ftrace`); an error for an argument that is not an integer or a
/// row it cannot print, as trace_processor's.
fn register_to_ftrace(conn: &Connection, catalog: &Catalog) -> rusqlite::Result<()> {
    let table = |name: &str| catalog.get(name).cloned();
    let (Some(raw), Some(thread), Some(process), Some(args)) = (
        table("ftrace_event"),
        table("thread"),
        table("process"),
        table("args"),
    ) else {
        return Ok(());
    };
    let text = crate::to_ftrace::FtraceText::new(raw, thread, process, args);
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("to_ftrace", 1, flags, move |ctx| {
        let ValueRef::Integer(id) = ctx.get_raw(0) else {
            return Err(rusqlite::Error::UserFunctionError(
                "Usage: to_ftrace(id)".into(),
            ));
        };
        text.line(id)
            .map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
    })
}

/// trace_processor's metadata functions: the value (str_value, else
/// int_value) of the first `metadata` row of a name, of a name on a
/// machine, in a trace, or both (EXTRACT_METADATA,
/// EXTRACT_METADATA_FOR_MACHINE, EXTRACT_METADATA_FOR_TRACE,
/// EXTRACT_EXACT_METADATA); NULL where none is, or for a NULL argument.
fn register_metadata_functions(
    conn: &Connection,
    catalog: &Catalog,
    flags: FunctionFlags,
) -> rusqlite::Result<()> {
    /// (name, value, machine_id, trace_id)
    type Row = (String, Value, Option<i64>, Option<i64>);
    let mut rows: Vec<Row> = Vec::new();
    if let Some(t) = catalog.get("metadata") {
        let cols = t.columns(["name", "int_value", "str_value", "machine_id", "trace_id"]);
        let Some([name, int, text, machine, trace]) = cols else {
            return Ok(());
        };
        let opt = |v: V| match v {
            V::Int(i) => Some(i),
            _ => None,
        };
        for r in 0..t.n {
            let V::Text(key) = t.get(name, r) else {
                continue;
            };
            let value = match (t.get(text, r), t.get(int, r)) {
                (V::Text(s), _) => Value::Text(s.to_string()),
                (_, V::Int(i)) => Value::Integer(i),
                _ => Value::Null,
            };
            rows.push((
                key.to_string(),
                value,
                opt(t.get(machine, r)),
                opt(t.get(trace, r)),
            ));
        }
    }
    let rows = Arc::new(rows);
    // (function, which arguments are machine_id / trace_id before the name)
    let functions: [(&str, bool, bool); 4] = [
        ("extract_metadata", false, false),
        ("extract_metadata_for_machine", true, false),
        ("extract_metadata_for_trace", false, true),
        ("extract_exact_metadata", true, true),
    ];
    for (fname, by_machine, by_trace) in functions {
        let rows = rows.clone();
        let n_args = 1 + by_machine as usize + by_trace as usize;
        conn.create_scalar_function(fname, n_args as i32, flags, move |ctx| {
            let mut ids = Vec::with_capacity(2);
            for i in 0..n_args - 1 {
                match ctx.get_raw(i) {
                    ValueRef::Integer(x) => ids.push(x),
                    _ => return Ok(Value::Null),
                }
            }
            let name = match ctx.get_raw(n_args - 1) {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => return Ok(Value::Null),
            };
            let machine = by_machine.then(|| ids[0]);
            let trace = by_trace.then(|| ids[by_machine as usize]);
            let found = rows.iter().find(|(key, _, m, t)| {
                *key == name
                    && machine.map_or(true, |x| *m == Some(x))
                    && trace.map_or(true, |x| *t == Some(x))
            });
            Ok(found.map_or(Value::Null, |r| r.1.clone()))
        })?;
    }
    Ok(())
}

/// TO_REALTIME / TO_MONOTONIC / ABS_TIME_STR / TO_TIMECODE (module
/// `time_functions`): NULL for NULL or an unconvertible time, an error
/// for an argument that is not an integer.
fn register_time_functions(
    conn: &Connection,
    catalog: &Catalog,
    flags: FunctionFlags,
) -> rusqlite::Result<()> {
    use crate::time_functions::{self as tf, Timeline};
    let rows: Vec<(i64, i64, i64)> = match catalog.get("clock_snapshot") {
        Some(t) => {
            let Some([ts, id, value]) = t.columns(["ts", "clock_id", "clock_value"]) else {
                return Ok(());
            };
            (0..t.n)
                .filter_map(|r| match (t.get(ts, r), t.get(id, r), t.get(value, r)) {
                    (V::Int(a), V::Int(b), V::Int(c)) => Some((a, b, c)),
                    _ => None,
                })
                .collect()
        }
        None => Vec::new(),
    };
    let realtime = Arc::new(Timeline::of(rows.iter().copied(), tf::REALTIME));
    let monotonic = Timeline::of(rows.iter().copied(), tf::MONOTONIC);
    type Convert = Box<dyn Fn(i64) -> Value + Send + 'static>;
    let abs_realtime = realtime.clone();
    let functions: [(&str, Convert); 4] = [
        (
            "to_realtime",
            Box::new(move |ts| {
                realtime
                    .from_trace_time(ts)
                    .map_or(Value::Null, Value::Integer)
            }),
        ),
        (
            "to_monotonic",
            Box::new(move |ts| {
                monotonic
                    .from_trace_time(ts)
                    .map_or(Value::Null, Value::Integer)
            }),
        ),
        (
            "abs_time_str",
            Box::new(move |ts| {
                abs_realtime
                    .from_trace_time(ts)
                    .map_or(Value::Null, |r| Value::Text(tf::iso8601(r)))
            }),
        ),
        ("to_timecode", Box::new(|ts| Value::Text(tf::timecode(ts)))),
    ];
    for (name, convert) in functions {
        conn.create_scalar_function(name, 1, flags, move |ctx| match ctx.get_raw(0) {
            ValueRef::Null => Ok(Value::Null),
            ValueRef::Integer(ts) => Ok(convert(ts)),
            _ => Err(rusqlite::Error::UserFunctionError(
                format!(
                    "{}: first argument should be timestamp",
                    name.to_uppercase()
                )
                .into(),
            )),
        })?;
    }
    Ok(())
}

impl Session {
    pub fn open(tables: Vec<Table>, bounds: (i64, i64)) -> rusqlite::Result<Session> {
        let names: Vec<String> = tables.iter().map(|t| t.name.clone()).collect();
        let catalog: Catalog = Arc::new(
            tables
                .into_iter()
                .map(|t| (t.name.clone(), Arc::new(t)))
                .collect::<HashMap<_, _>>(),
        );
        let arg_index = ArgIndex::default();
        Ok(Session {
            conn: connect(&catalog, &names, bounds, &arg_index)?,
            catalog,
            names,
            bounds,
            worker: None,
            temp_tables: Vec::new(),
            edited: AtomicBool::new(false),
            arg_index,
        })
    }

    /// Runs every statement of `sql`; the last one's column names and
    /// values ([] when it returns no columns).
    pub fn execute(&self, sql: &str) -> rusqlite::Result<QueryResult> {
        run(&self.conn, sql, &self.edited)
    }

    /// Runs each of `queries` (read-only: over the trace's tables and
    /// `create_table`'s) as `execute` does, two at a time: on this
    /// connection and on a second one over the same tables (the columns
    /// are shared, read-only), each taking the next query not yet taken.
    /// The results are in the order of `queries`. Once `execute` has run a
    /// statement other than a query (a view made, rows written), all run
    /// on this connection, one after another; so do the queries of a small
    /// trace (`CONCURRENT_ROWS`).
    pub fn execute_many(&mut self, queries: &[String]) -> Vec<rusqlite::Result<QueryResult>> {
        if queries.len() < 2 || self.edited.load(Ordering::Relaxed) || self.small() {
            return queries.iter().map(|q| self.execute(q)).collect();
        }
        let worker = match self.worker.take() {
            Some(w) => w,
            None => match self.connect_worker() {
                Ok(w) => w,
                Err(e) => return vec![Err(e)],
            },
        };
        let next = AtomicUsize::new(0);
        let take_queries = |conn: &Connection| {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(sql) = queries.get(i) else {
                    return done;
                };
                done.push((i, run(conn, sql, &self.edited)));
            }
        };
        let (worker, mut done) = std::thread::scope(|scope| {
            let side = scope.spawn(|| {
                let done = take_queries(&worker);
                (worker, done)
            });
            let mut done = take_queries(&self.conn);
            // (a panic there is the query's, as on this thread)
            let (worker, more) = side.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            done.extend(more);
            (worker, done)
        });
        self.worker = Some(worker);
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, r)| r).collect()
    }

    /// Whether the trace's big tables are small enough that its queries
    /// take less than the second connection costs to make (`CONCURRENT_ROWS`).
    fn small(&self) -> bool {
        let rows: usize = ["sched", "thread_state", "ftrace_event", "slice", "counter"]
            .iter()
            .filter_map(|name| self.catalog.get(*name))
            .map(|t| t.n)
            .sum();
        rows < CONCURRENT_ROWS
    }

    /// The second connection, with `create_table`'s tables made again.
    fn connect_worker(&self) -> rusqlite::Result<Connection> {
        let conn = connect(&self.catalog, &self.names, self.bounds, &self.arg_index)?;
        for (name, columns, rows) in &self.temp_tables {
            create_temp_table(&conn, name, columns, rows)?;
        }
        Ok(conn)
    }

    /// A TEMP table of `rows` (replacing one of the same name), in the
    /// worker connection too.
    pub fn create_table(
        &mut self,
        name: &str,
        columns: &[String],
        rows: &[Vec<Value>],
    ) -> rusqlite::Result<()> {
        create_temp_table(&self.conn, name, columns, rows)?;
        if let Some(worker) = &self.worker {
            create_temp_table(worker, name, columns, rows)?;
        }
        let table = (name.to_owned(), columns.to_vec(), rows.to_vec());
        match self.temp_tables.iter_mut().find(|t| t.0 == name) {
            Some(old) => *old = table,
            None => self.temp_tables.push(table),
        }
        Ok(())
    }
}

/// Runs every statement of `sql` on `conn`; the last one's column names
/// and values ([] when it returns no columns). A statement that is not
/// read-only sets `edited`.
fn run(conn: &Connection, sql: &str, edited: &AtomicBool) -> rusqlite::Result<QueryResult> {
    let timings = std::env::var_os("ARTSCOPE_CORE_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    let counts = || {
        use std::sync::atomic::Ordering::Relaxed;
        [
            &crate::vtab::FILTERS,
            &crate::vtab::STEPS,
            &crate::vtab::CELLS,
        ]
        .map(|c| c.load(Relaxed))
    };
    let before = counts();
    let mut names = Vec::new();
    let mut out = Vec::new();
    let mut batch = Batch::new(conn, sql);
    while let Some(mut stmt) = batch.next()? {
        if !stmt.readonly() {
            edited.store(true, Ordering::Relaxed);
        }
        let n = stmt.column_count();
        if n == 0 {
            stmt.raw_execute()?;
            names.clear();
            out.clear();
            continue;
        }
        names = stmt.column_names().iter().map(|s| s.to_string()).collect();
        out = (0..n)
            .map(|_| OutColumn {
                cells: Vec::new(),
                bytes: Vec::new(),
            })
            .collect();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            for (i, col) in out.iter_mut().enumerate() {
                let cell = match row.get_ref(i)? {
                    ValueRef::Null => OutCell::Null,
                    ValueRef::Integer(x) => OutCell::Int(x),
                    ValueRef::Real(x) => OutCell::Real(x),
                    ValueRef::Text(t) => {
                        let s = col.bytes.len();
                        col.bytes.extend_from_slice(t);
                        OutCell::Text(s, col.bytes.len())
                    }
                    ValueRef::Blob(b) => OutCell::Blob(b.to_vec()),
                };
                col.cells.push(cell);
            }
        }
    }
    if timings {
        let after = counts();
        let head: String = sql.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        // resident memory after the query (statm: pages)
        let rss_mb = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |pages| (pages * 4096) >> 20);
        eprintln!(
            "core: query {:.3} s filters {} steps {} cells {} rss {rss_mb} MB  {head}",
            t0.elapsed().as_secs_f64(),
            after[0] - before[0],
            after[1] - before[1],
            after[2] - before[2]
        );
    }
    Ok((names, out))
}

/// A TEMP table `name` of `rows` in `conn` (replacing one of the same name).
fn create_temp_table(
    conn: &Connection,
    name: &str,
    columns: &[String],
    rows: &[Vec<Value>],
) -> rusqlite::Result<()> {
    conn.execute_batch(&format!("DROP TABLE IF EXISTS {name}"))?;
    conn.execute_batch(&format!(
        "CREATE TEMP TABLE {name} ({})",
        columns.join(", ")
    ))?;
    if rows.is_empty() {
        return Ok(());
    }
    let marks = vec!["?"; columns.len()].join(", ");
    let mut stmt = conn.prepare(&format!("INSERT INTO {name} VALUES ({marks})"))?;
    for row in rows {
        stmt.execute(rusqlite::params_from_iter(row.iter()))?;
    }
    Ok(())
}

fn arg_index(args: &Table) -> HashMap<(i64, String), Value> {
    let cols = args.columns([
        "arg_set_id",
        "key",
        "int_value",
        "string_value",
        "real_value",
    ]);
    let Some([set, key, iv, sv, rv]) = cols else {
        return HashMap::new();
    };
    let mut index = HashMap::with_capacity(args.n);
    for row in 0..args.n {
        let (V::Int(s), V::Text(k)) = (args.get(set, row), args.get(key, row)) else {
            continue;
        };
        let value = [iv, sv, rv]
            .iter()
            .map(|&c| args.get(c, row))
            .find(|v| !matches!(v, V::Null))
            .map_or(Value::Null, |v| match v {
                V::Int(i) => Value::Integer(i),
                V::Real(r) => Value::Real(r),
                V::Text(t) => Value::Text(t.to_string()),
                V::Null => Value::Null,
            });
        index.insert((s, k.to_string()), value);
    }
    index
}

/// The session of an import: its tables as columns, then the replay's data
/// dropped by the caller.
pub fn open_session(imp: Imported, trace_config_pbtxt: Option<&str>) -> rusqlite::Result<Session> {
    let bounds = trace_bounds(&imp);
    let tables = build_tables(imp, trace_config_pbtxt)?;
    // (the import's many small blocks are free now)
    crate::sorter::trim_free_memory();
    Session::open(tables, bounds)
}
