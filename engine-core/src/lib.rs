//! artscope's compiled engine core: Perfetto protobuf traces decoded and
//! replayed with trace_processor's import semantics into the SQLite tables the
//! embedded engine's metric SQL runs on.
//!
//! Layout (as trace_processor's importer): `decoder` (wire format, packets,
//! atrace text) -> `events::Sink` -> `replay` driving one module per tracker
//! (`trackers::{process, sched, slices, atrace, counters, tracks,
//! frame_timeline, raw}`) -> `tables` (SQLite). No panic reaches Python: every
//! entry point runs under `catch_unwind` and a panic becomes a `CoreError`.

pub mod decoder;
pub mod events;
pub mod replay;
pub mod tables;
pub mod trackers;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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
    imp: replay::Imported,
    packets: i64,
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
    fn events(&self) -> usize {
        self.imp.events
    }

    #[getter]
    fn partial(&self) -> bool {
        self.imp.sink.partial
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.imp.sink.warnings.clone()
    }

    /// Every recorded TraceConfig's bytes, in file order (the caller renders
    /// the last valid one as text and rejects the others that do not parse).
    fn trace_configs<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyBytes>> {
        self.imp
            .sink
            .trace_configs
            .iter()
            .map(|b| PyBytes::new(py, b))
            .collect()
    }

    /// Counts `n` more packets as corrupt (their nested messages did not
    /// parse): stats, warning and the partial flag as for the decoder's own.
    fn reject_packets(&mut self, n: i64) {
        if n > 0 {
            self.imp.sink.reject_packets(n);
            // the replay's copy of the stats is the one the tables show
            self.imp.ctx.stats.add("artscope_corrupt_packets", n, None);
        }
    }

    /// The tables as a serialized SQLite database (for
    /// `sqlite3.Connection.deserialize`).
    #[pyo3(signature = (trace_config_pbtxt=None))]
    fn to_sqlite<'py>(
        &self,
        py: Python<'py>,
        trace_config_pbtxt: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let imp = &self.imp;
        let conn = py.allow_threads(|| {
            guarded("building tables", || {
                tables::build_db(imp, trace_config_pbtxt).map_err(|e| e.to_string())
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
    let (imp, packets) = py.allow_threads(|| {
        guarded("importing", || {
            let mut sink = events::Sink::default();
            let packets = decoder::proto::decode_proto(data, &mut sink);
            if packets == 0 {
                return Err("not a Perfetto or systrace trace".into());
            }
            Ok((replay::replay(sink, ingest_ftrace_in_raw), packets))
        })
    })?;
    Ok(ImportedTrace { imp, packets })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Panics are reported through CoreError; the default hook's stderr
    // backtrace note would break the one-line error contract.
    std::panic::set_hook(Box::new(|_| {}));
    m.add("CoreError", m.py().get_type::<CoreError>())?;
    m.add_function(wrap_pyfunction!(import_proto, m)?)?;
    m.add_class::<ImportedTrace>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
