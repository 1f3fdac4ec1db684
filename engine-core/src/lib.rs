//! artscope's compiled engine core: Perfetto protobuf traces (and systrace
//! text) decoded and imported with trace_processor's semantics into the
//! tables the embedded engine's metric SQL runs on.
//!
//! The data flows one way, through the stages of trace_processor's importer:
//!
//! ```text
//!  trace bytes (protobuf, systrace / ftrace text, gzip / zip containers)
//!    |
//!    v
//!  decoder/*      wire format, packets and text, tokenized in file order
//!    |            with each sequence's state (clocks, interned data,
//!    |            descriptors): every event into a `decoder::sink::Sink`
//!    v
//!  events/*       what the decoders produce: sched switches and wakings,
//!    |            ftrace events, packets' payloads (`PacketData`: power,
//!    |            track events, profiles, logs, ...)
//!    v
//!  sorter         timestamp order, as trace_processor's TraceSorter
//!    |
//!    v
//!  replay         each event, in that order, to its importer, one per
//!  trackers/core  family, sharing the tracks, args and stats of
//!  trackers/extra `trackers::Ctx`; they make rows. `core`: the tables the
//!    |            metrics read (process and thread identity, sched and
//!    |            thread state, slices, counters, frame timeline, ftrace
//!    |            events, cpus); `extra`: trace_processor's other tables
//!    |            (power, binder, GPUs, profiles, logs, track events, ...)
//!    v
//!  columns        rows as typed columns, per table of `tables::schema`
//!  tables         (or, `tables::build_db`, a serialized SQLite database);
//!  vtab           served to SQLite as virtual tables with trace_processor's
//!  span_join ...  views, operators (SPAN_JOIN) and functions (TO_FTRACE,
//!    |            time conversions); the stats table (`stats_table`)
//!    v
//!  session        one trace's SQLite connection and its queries; this file:
//!                 the Python module
//! ```
//!
//! Modules import only from their own layer and the layers before it, in
//! this order: `events` (with `tp_stats`, `metadata`, `machines`: it uses
//! nothing of the crate, every layer reads it), `decoder` (with
//! `diagnostics`), `sorter`, `trackers` (with `replay`), the tables
//! (`columns`, `tables`, `vtab`, `stats_table`, `span_join`,
//! `time_functions`, `to_ftrace`), then `session` and this file. The test
//! `tests/engine/test_engine_layers.py` reads the `use crate::` lines and
//! keeps it so. The one import circle is the trackers' shared context:
//! `trackers::Ctx` holds each tracker's state and each tracker works on it,
//! as trace_processor's TraceProcessorContext.
//!
//! No panic reaches Python: every entry point runs under `catch_unwind` and a
//! panic becomes a `CoreError`.

// the leaf: what the decoders produce, the stats and metadata vocabularies,
// the machines' numbering
pub mod events;
pub mod ints;
pub mod machines;
pub mod metadata;
pub mod tp_stats;

// trace bytes -> events
pub mod decoder;
pub mod diagnostics;

// events in timestamp order
pub mod sorter;

// events -> rows
pub mod replay;
pub mod trackers;

// rows -> tables, virtual tables, SQL functions and operators
pub mod columns;
pub mod span_join;
pub mod stats_table;
pub mod tables;
pub mod time_functions;
pub mod to_ftrace;
pub mod vtab;

// one trace's queries, results as Arrow arrays
pub mod arrow;
pub mod session;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::sync::Mutex;

create_exception!(
    _core,
    CoreError,
    PyException,
    "The core could not import a trace (bad input or an internal error)."
);

fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(msg)) => Err(CoreError::new_err(msg)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(CoreError::new_err(format!(
                "internal error while {what}: {msg}"
            )))
        }
    }
}

/// One imported trace, held in Rust until its tables are built.
#[pyclass(unsendable)]
pub struct ImportedTrace {
    imported: Option<replay::Imported>,
    packets: i64,
}

impl ImportedTrace {
    fn imp(&self) -> PyResult<&replay::Imported> {
        self.imported
            .as_ref()
            .ok_or_else(|| CoreError::new_err("the import's tables were already built"))
    }

    /// The import, moved out to build its tables (once).
    fn take(&mut self) -> PyResult<replay::Imported> {
        self.imported
            .take()
            .ok_or_else(|| CoreError::new_err("the import's tables were already built"))
    }
}

#[pymethods]
impl ImportedTrace {
    /// Packets that parsed.
    #[getter]
    fn packets(&self) -> i64 {
        self.packets
    }

    /// Events decoded (every ftrace event and packet the replay reads).
    #[getter]
    fn events(&self) -> PyResult<usize> {
        Ok(self.imp()?.events)
    }

    #[getter]
    fn partial(&self) -> PyResult<bool> {
        Ok(self.imp()?.sink.partial)
    }

    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        Ok(self.imp()?.sink.warnings.clone())
    }

    /// Every recorded TraceConfig's bytes, in file order (the caller renders
    /// the last valid one as text and rejects the others that do not parse).
    fn trace_configs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        Ok(self
            .imp()?
            .sink
            .trace_configs
            .iter()
            .map(|b| PyBytes::new(py, b))
            .collect())
    }

    /// Counts `n` more packets as corrupt (their nested messages did not
    /// parse): stats, warning and the partial flag as for the decoder's own.
    fn reject_packets(&mut self, n: i64) {
        if let (true, Some(imp)) = (n > 0, self.imported.as_mut()) {
            imp.sink.reject_packets(n);
            // the replay's copy of the stats is the one the tables show
            imp.ctx.stats.add("artscope_corrupt_packets", n, None);
        }
    }

    /// The tables as a serialized SQLite database (for
    /// `sqlite3.Connection.deserialize`); the import is spent.
    #[pyo3(signature = (trace_config_pbtxt=None))]
    #[allow(clippy::wrong_self_convention)] // the Python method's name; it spends the import
    fn to_sqlite<'py>(
        &mut self,
        py: Python<'py>,
        trace_config_pbtxt: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let imp = self.take()?;
        let conn = py.allow_threads(|| {
            guarded("building tables", || {
                let tables =
                    session::build_tables(imp, trace_config_pbtxt).map_err(|e| e.to_string())?;
                tables::build_db(&tables).map_err(|e| e.to_string())
            })
        })?;
        // one copy: the in-memory database's own pages, borrowed
        // (SQLITE_SERIALIZE_NOCOPY), straight into the bytes object
        let bytes = guarded("serializing tables", || {
            let data = conn
                .serialize(rusqlite::DatabaseName::Main)
                .map_err(|e| e.to_string())?;
            Ok(PyBytes::new(py, &data).unbind())
        })?;
        drop(conn);
        Ok(bytes.into_bound(py))
    }

    /// The tables as columns served to the core's own SQLite (virtual
    /// tables); the replay's data is released (this object is spent).
    #[pyo3(signature = (trace_config_pbtxt=None))]
    fn open_session(
        &mut self,
        py: Python<'_>,
        trace_config_pbtxt: Option<&str>,
    ) -> PyResult<Session> {
        let imp = self.take()?;
        let session = py.allow_threads(|| {
            guarded("building tables", || {
                session::open_session(imp, trace_config_pbtxt).map_err(|e| e.to_string())
            })
        })?;
        Ok(Session {
            inner: Mutex::new(Some(session)),
        })
    }
}

/// SQLite's own message (rusqlite adds the SQL text to input errors).
fn sql_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    }
}

/// A SQL error as Python's `sqlite3.OperationalError` (what the embedded
/// engine has always raised).
fn sql_error(py: Python<'_>, e: &rusqlite::Error) -> PyErr {
    let msg = sql_message(e);
    match py
        .import("sqlite3")
        .and_then(|m| m.getattr("OperationalError"))
    {
        Ok(t) => PyErr::from_type(t.downcast_into().expect("an exception type"), msg),
        Err(err) => err,
    }
}

/// One trace's tables and its SQLite connection (virtual tables over the
/// columns). Query results come back as Arrow buffers per column.
#[pyclass]
pub struct Session {
    inner: Mutex<Option<session::Session>>,
}

fn validity(cells: &[session::OutCell]) -> Option<Vec<u8>> {
    if !cells.iter().any(|c| matches!(c, session::OutCell::Null)) {
        return None;
    }
    let mut bits = vec![0u8; cells.len().div_ceil(8)];
    for (i, c) in cells.iter().enumerate() {
        if !matches!(c, session::OutCell::Null) {
            bits[i / 8] |= 1 << (i % 8);
        }
    }
    Some(bits)
}

/// One column as (kind, values): "arrow", an `arrow::ArrowColumn` (int64,
/// float64, large UTF-8 or all-NULL values: `polars.Series(values)` takes
/// its buffers), or "object", a list of Python values (blobs, mixed types).
fn column_to_py<'py>(
    py: Python<'py>,
    mut col: session::OutColumn,
    exact_types: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    use arrow::Values;
    use session::OutCell as C;
    let n = col.cells.len();
    let (mut ints, mut reals, mut texts, mut others) = (false, false, false, false);
    for c in &col.cells {
        match c {
            C::Null => {}
            C::Int(_) => ints = true,
            C::Real(_) => reals = true,
            C::Text(..) => texts = true,
            C::Blob(_) => others = true,
        }
    }
    // (exact_types: a mix of integers and reals stays a list of both)
    let mixed_numbers = exact_types && ints && reals;
    let numeric_only = !(texts || others || mixed_numbers);
    let values = if !ints && !reals && !texts && !others {
        Some(Values::Null)
    } else if numeric_only && !reals {
        let v = col
            .cells
            .iter()
            .map(|c| if let C::Int(x) = c { *x } else { 0 });
        Some(Values::Int(v.collect()))
    } else if numeric_only {
        let v = col.cells.iter().map(|c| match c {
            C::Int(x) => *x as f64,
            C::Real(x) => *x,
            _ => 0.0,
        });
        Some(Values::Real(v.collect()))
    } else if texts && !ints && !reals && !others {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i64);
        let mut end = 0i64;
        for c in &col.cells {
            if let C::Text(_, e) = c {
                end = *e as i64;
            }
            offsets.push(end);
        }
        Some(Values::Text(offsets, std::mem::take(&mut col.bytes)))
    } else {
        None
    };
    let (kind, values) = match values {
        Some(values) => {
            let validity = match values {
                Values::Null => None,
                _ => validity(&col.cells),
            };
            let column = arrow::Column {
                len: n,
                values,
                validity,
            };
            (
                "arrow",
                Py::new(py, arrow::ArrowColumn::new(column))?.into_any(),
            )
        }
        None => {
            let list = PyList::empty(py);
            for c in &col.cells {
                match c {
                    C::Null => list.append(py.None())?,
                    C::Int(x) => list.append(x.into_pyobject(py)?)?,
                    C::Real(x) => list.append(PyFloat::new(py, *x))?,
                    C::Text(s, e) => list.append(PyString::new(
                        py,
                        &String::from_utf8_lossy(&col.bytes[*s..*e]),
                    ))?,
                    C::Blob(b) => list.append(PyBytes::new(py, b))?,
                }
            }
            ("object", list.into_any().unbind())
        }
    };
    PyTuple::new(py, [PyString::new(py, kind).into_any().unbind(), values])
}

/// A query's result for Python: column names and columns (`column_to_py`).
type PyQueryResult<'py> = (Vec<String>, Vec<Bound<'py, PyTuple>>);

/// A query's result as (column names, columns as `column_to_py` gives
/// them), or its SQL error.
fn result_to_py<'py>(
    py: Python<'py>,
    result: rusqlite::Result<session::QueryResult>,
    exact_types: bool,
) -> PyResult<PyQueryResult<'py>> {
    let (names, cols) = result.map_err(|e| sql_error(py, &e))?;
    let cols = cols
        .into_iter()
        .map(|c| column_to_py(py, c, exact_types))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((names, cols))
}

/// A Python value as an SQLite value (None, int, float, str, bytes).
fn py_value(v: &Bound<'_, PyAny>) -> PyResult<rusqlite::types::Value> {
    use rusqlite::types::Value;
    Ok(if v.is_none() {
        Value::Null
    } else if v.is_instance_of::<PyInt>() {
        Value::Integer(v.extract()?)
    } else if v.is_instance_of::<PyFloat>() {
        Value::Real(v.extract()?)
    } else if v.is_instance_of::<PyString>() {
        Value::Text(v.extract()?)
    } else if let Ok(b) = v.downcast::<PyBytes>() {
        Value::Blob(b.as_bytes().to_vec())
    } else {
        Value::Text(v.str()?.extract()?)
    })
}

impl Session {
    /// `run` on the open session, the GIL released; a closed session or a
    /// panic (in the core, on either of its threads) is a CoreError.
    fn run_queries<T: Send>(
        &self,
        py: Python<'_>,
        run: impl FnOnce(&mut session::Session) -> T + Send,
    ) -> PyResult<T> {
        py.allow_threads(|| {
            let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            match guard.as_mut() {
                None => Err("the session is closed".to_string()),
                Some(s) => catch_unwind(AssertUnwindSafe(|| run(s)))
                    .map_err(|_| "internal error while running a query".to_string()),
            }
        })
        .map_err(CoreError::new_err)
    }
}

#[pymethods]
impl Session {
    /// Runs `sql` (one or more statements); the last statement's column
    /// names and columns (see `column_to_py`). `exact_types`: a column
    /// mixing integers and reals keeps each cell's type (an "object"
    /// column) instead of becoming one of reals.
    #[pyo3(signature = (sql, exact_types=false))]
    fn execute<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        exact_types: bool,
    ) -> PyResult<PyQueryResult<'py>> {
        let result = self.run_queries(py, |s| s.execute(sql))?;
        result_to_py(py, result, exact_types)
    }

    /// Runs each of `queries` as `execute` does (read-only queries over
    /// the trace's tables and `create_table`'s), two at a time on two
    /// connections; their results in order. The first query that fails
    /// (in that order) raises its error.
    fn execute_many<'py>(
        &self,
        py: Python<'py>,
        queries: Vec<String>,
    ) -> PyResult<Vec<PyQueryResult<'py>>> {
        self.run_queries(py, |s| s.execute_many(&queries))?
            .into_iter()
            .map(|r| result_to_py(py, r, false))
            .collect()
    }

    /// A TEMP table `name` (columns) holding `rows` (sequences of None /
    /// int / float / str / bytes), replacing one of the same name.
    fn create_table(
        &self,
        py: Python<'_>,
        name: &str,
        columns: Vec<String>,
        rows: Vec<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<()> {
        let rows: Vec<Vec<rusqlite::types::Value>> = rows
            .iter()
            .map(|r| r.iter().map(py_value).collect::<PyResult<Vec<_>>>())
            .collect::<PyResult<_>>()?;
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let s = guard
            .as_mut()
            .ok_or_else(|| CoreError::new_err("the session is closed"))?;
        s.create_table(name, &columns, &rows)
            .map_err(|e| sql_error(py, &e))
    }

    /// Releases the tables and the connection.
    fn close(&self) {
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        guard.take();
    }
}

/// The metadata trace_processor records about the file itself: its UUID (a
/// TraceUuid packet's, else the trace config's, else the hash of the file's
/// first bytes as read, containers included), the config's
/// unique_session_name, the trace's type and the size of the trace inside
/// its containers.
fn file_metadata(sink: &mut decoder::sink::Sink, file: &[u8], kind: &str, payload_size: usize) {
    let configs = sink
        .trace_configs
        .iter()
        .map(|c| decoder::proto::config_identity(c));
    let mut config_uuid = None;
    let mut session_name = None;
    let mut statsd_subscription = None;
    for c in configs {
        config_uuid = config_uuid.or(c.uuid);
        session_name = c.session_name.or(session_name);
        statsd_subscription = c.statsd_subscription.or(statsd_subscription);
    }
    let uuid = sink
        .recorded_uuid
        .clone()
        .or(config_uuid.map(|(msb, lsb)| metadata::uuid_string(msb, lsb)));
    let md = &mut sink.metadata;
    md.uuid_hashed = uuid.is_none();
    md.set_str(
        "trace_uuid",
        uuid.unwrap_or_else(|| metadata::hashed_uuid(file)),
    );
    if let Some(name) = session_name {
        md.set_str("unique_session_name", name);
    }
    if let Some(id) = statsd_subscription {
        md.set_int("statsd_triggering_subscription_id", id);
    }
    md.set_str("trace_type", kind);
    if kind == "systrace" {
        // text traces' timestamps are CLOCK_MONOTONIC (BuiltinClock 3)
        md.set_int("trace_time_clock_id", 3);
    }
    md.set_int("trace_size_bytes", payload_size as i64);
    // trace_trigger: in timestamp order, the first trigger, replaced by the
    // first clone-snapshot trigger (whose time is a stat)
    let mut triggers = std::mem::take(&mut sink.triggers);
    triggers.sort_by_key(|t| t.0);
    let mut cloned = false;
    for (i, (ts, clone, name)) in triggers.into_iter().enumerate() {
        if clone && !cloned {
            cloned = true;
            sink.metadata.set_str("trace_trigger", name);
            sink.stats
                .set("traced_clone_trigger_timestamp_ns", ts, None);
        } else if !clone && i == 0 {
            sink.metadata.set_str("trace_trigger", name);
        }
    }
    decoder::proto::config_stats(sink);
    // the rules weigh the stats and metadata of the whole trace
    sink.diagnostics = diagnostics::run(
        &sink.trace_configs,
        &sink.stats,
        &sink.metadata,
        sink.video_frames,
    );
}

fn nanos(d: std::time::Duration) -> i64 {
    d.as_nanos().min(i64::MAX as u128) as i64
}

/// trace_processor's timing of the whole parse, measured on ours.
fn parse_duration(imp: &mut replay::Imported, parsed: std::time::Duration) {
    imp.ctx
        .stats
        .set("parse_trace_duration_ns", nanos(parsed), None);
}

/// Decodes Perfetto protobuf bytes and replays them into tables.
/// Raises CoreError when no packet parses.
#[pyfunction]
#[pyo3(signature = (data, ingest_ftrace_in_raw=true))]
fn import_proto(
    py: Python<'_>,
    data: &[u8],
    ingest_ftrace_in_raw: bool,
) -> PyResult<ImportedTrace> {
    run_import(py, "importing", || {
        let mut sink = decoder::sink::Sink::default();
        let packets = decoder::proto::decode_proto(data, &mut sink);
        if packets == 0 {
            return Err("not a Perfetto or systrace trace".into());
        }
        file_metadata(&mut sink, data, "proto", data.len());
        Ok((sink, packets, ingest_ftrace_in_raw))
    })
}

/// Imports any trace the embedded engine reads: containers (gzip, zip,
/// ctrace) unwrapped, then Perfetto protobuf or systrace HTML / text, detected
/// from the content. Errors (CoreError) are one line naming `name`. Systrace's
/// raw ftrace ingestion keeps sched_switch rows only (as trace_processor's
/// text reader); its `packets` count is the ftrace lines read.
#[pyfunction]
#[pyo3(signature = (data, name="", ingest_ftrace_in_raw=true))]
fn import_trace(
    py: Python<'_>,
    data: &[u8],
    name: &str,
    ingest_ftrace_in_raw: bool,
) -> PyResult<ImportedTrace> {
    run_import(py, &format!("importing {name}"), || {
        decode_any(data, name, ingest_ftrace_in_raw)
    })
}

/// As `import_trace`, reading the file at `path` itself: its bytes are
/// freed once decoded, before the replay builds the tables (the import's
/// peak memory), which bytes held by the caller could not be.
#[pyfunction]
#[pyo3(signature = (path, ingest_ftrace_in_raw=true))]
fn import_file(py: Python<'_>, path: &str, ingest_ftrace_in_raw: bool) -> PyResult<ImportedTrace> {
    run_import(py, &format!("importing {path}"), || {
        replay::probe_stage("start");
        let data = std::fs::read(path).map_err(|e| {
            // strerror's words, as Python's OSError gives them
            let e = e.to_string();
            let e = e.split(" (os error").next().unwrap_or_default();
            format!("cannot read {path}: {e}")
        })?;
        if data.is_empty() {
            return Err(format!("empty file: {path}"));
        }
        decode_any(&data, path, ingest_ftrace_in_raw)
        // `data` is dropped here, before the replay
    })
}

/// Decodes with `decode` (-> sink, packets, raw ftrace ingestion on), then
/// replays, without the GIL and with panics turned into CoreError.
fn run_import(
    py: Python<'_>,
    what: &str,
    decode: impl FnOnce() -> Result<(decoder::sink::Sink, i64, bool), String> + Send,
) -> PyResult<ImportedTrace> {
    let (imp, packets) = py.allow_threads(|| {
        guarded(what, || {
            let started = std::time::Instant::now();
            let (sink, packets, raw) = decode()?;
            let mut imp = replay::replay(sink, raw);
            parse_duration(&mut imp, started.elapsed());
            Ok((imp, packets))
        })
    })?;
    Ok(ImportedTrace {
        imported: Some(imp),
        packets,
    })
}

/// Containers unwrapped, then Perfetto protobuf or systrace decoded into a
/// sink: (sink, packets or systrace lines, raw ftrace ingestion on).
fn decode_any(
    data: &[u8],
    name: &str,
    ingest_ftrace_in_raw: bool,
) -> Result<(decoder::sink::Sink, i64, bool), String> {
    use decoder::container::{self, Kind};
    let started = std::time::Instant::now();
    let u = container::unwrap(data, name)?;
    let guessed = started.elapsed();
    let payload_size = u.data.len();
    let (mut sink, packets, raw) = if u.kind == Kind::Systrace {
        let (mut sink, lines) = decoder::systrace::decode_systrace(&u.data);
        if sink.order.is_empty() {
            return Err(format!("no trace events found in systrace file: {name}"));
        }
        // trace_processor's text reader keeps sched_switch in ftrace_event
        // (and no other event): raw ingestion for the rest stays off.
        sink.raw_sched_switch_only = ingest_ftrace_in_raw;
        (sink, lines as i64, false)
    } else {
        let mut sink = decoder::sink::Sink::default();
        let packets = decoder::proto::decode_proto(&u.data, &mut sink);
        if packets == 0 {
            return Err(format!("not a Perfetto or systrace trace: {name}"));
        }
        (sink, packets, ingest_ftrace_in_raw)
    };
    drop(u.data);
    sink.warnings.splice(0..0, u.warnings);
    sink.partial |= u.partial;
    let kind = if u.kind == Kind::Systrace {
        "systrace"
    } else {
        "proto"
    };
    sink.trace_id = u.containers.len() as i64;
    file_metadata(&mut sink, data, kind, payload_size);
    // trace_processor's timing of its format detection (here: unwrapping)
    sink.stats
        .set("guess_trace_type_duration_ns", nanos(guessed), None);
    Ok((sink, packets, raw))
}

/// Checks a trace file's bytes as the embedded engine would read them,
/// without importing: containers unwrapped, the kind detected, and for
/// protobuf whether the packet framing is cut short. Returns (kind:
/// "proto" | "systrace", partial, warnings) with the same one-line warnings
/// as an import; CoreError (one line naming `name`) for bad input. The
/// trace_processor engine uses it so bad input reads the same whichever
/// engine loads it.
#[pyfunction]
#[pyo3(signature = (data, name=""))]
fn inspect(py: Python<'_>, data: &[u8], name: &str) -> PyResult<(String, bool, Vec<String>)> {
    let what = format!("inspecting {name}");
    py.allow_threads(|| {
        guarded(&what, || {
            use decoder::container::{self, Kind};
            let mut u = container::unwrap(data, name)?;
            let kind = if u.kind == Kind::Systrace {
                "systrace"
            } else {
                if decoder::proto::split_packets(&u.data).1 {
                    u.partial = true;
                    u.warnings.push(decoder::proto::TRUNCATED_WARNING.into());
                }
                "proto"
            };
            Ok((kind.to_owned(), u.partial, u.warnings))
        })
    })
}

/// glibc raises its mmap threshold each time a large block is freed (up to
/// 32 MiB), so after the import frees its first big vectors the next ones
/// come from the heap, whose freed middle is never returned to the system:
/// the import's events then stay resident after they are dropped (measured:
/// +20 MB after the sort, more after the replay). Pinning the threshold at
/// its default (128 KiB) keeps large blocks mmap'ed, returned when freed.
fn fixed_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(
                param: std::os::raw::c_int,
                value: std::os::raw::c_int,
            ) -> std::os::raw::c_int;
        }
        const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
        // SAFETY: mallopt only sets an allocator parameter
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        }
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Panics are reported through CoreError; the default hook's stderr
    // backtrace note would break the one-line error contract.
    std::panic::set_hook(Box::new(|_| {}));
    fixed_mmap_threshold();
    m.add("CoreError", m.py().get_type::<CoreError>())?;
    m.add_function(wrap_pyfunction!(import_proto, m)?)?;
    m.add_function(wrap_pyfunction!(import_trace, m)?)?;
    m.add_function(wrap_pyfunction!(import_file, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_class::<ImportedTrace>()?;
    m.add_class::<Session>()?;
    m.add_class::<arrow::ArrowColumn>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
