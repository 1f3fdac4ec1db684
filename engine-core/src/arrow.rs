//! Query results handed to Python as Arrow arrays through the Arrow C data
//! interface (the PyCapsule protocol, `__arrow_c_array__`): polars takes
//! the buffers as they are, with no Python object per value and no Arrow
//! library on the Python side (pyarrow alone is ~40 MB of a process's
//! memory).

use std::ffi::{c_char, c_void, CStr};

use pyo3::prelude::*;

/// struct ArrowSchema of the C data interface.
#[repr(C)]
struct FfiSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut FfiSchema,
    dictionary: *mut FfiSchema,
    release: Option<unsafe extern "C" fn(*mut FfiSchema)>,
    private_data: *mut c_void,
}

/// struct ArrowArray of the C data interface.
#[repr(C)]
struct FfiArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut FfiArray,
    dictionary: *mut FfiArray,
    release: Option<unsafe extern "C" fn(*mut FfiArray)>,
    private_data: *mut c_void,
}

/// ARROW_FLAG_NULLABLE
const NULLABLE: i64 = 2;

/// One column's values as Arrow lays them out.
pub enum Values {
    /// int64 ("l")
    Int(Vec<i64>),
    /// float64 ("g")
    Real(Vec<f64>),
    /// large UTF-8 ("U"): n + 1 offsets into the bytes
    Text(Vec<i64>, Vec<u8>),
    /// every value NULL ("n")
    Null,
}

/// A result column: its length, values and validity bitmap (one bit per
/// value, least significant first; None: no NULL).
pub struct Column {
    pub len: usize,
    pub values: Values,
    pub validity: Option<Vec<u8>>,
}

/// What an exported array owns: its buffers and the pointer list to them.
struct Owned {
    _column: Column,
    buffers: Vec<*const c_void>,
}

unsafe extern "C" fn release_array(array: *mut FfiArray) {
    // SAFETY: `array` is one we exported (its private data our Box)
    unsafe {
        let array = &mut *array;
        drop(Box::from_raw(array.private_data as *mut Owned));
        array.release = None;
    }
}

unsafe extern "C" fn release_schema(schema: *mut FfiSchema) {
    // (format and name are static; nothing else is owned)
    unsafe { (*schema).release = None };
}

impl Column {
    fn format(&self) -> &'static CStr {
        match self.values {
            Values::Int(_) => c"l",
            Values::Real(_) => c"g",
            Values::Text(..) => c"U",
            Values::Null => c"n",
        }
    }

    fn export(self) -> (FfiSchema, FfiArray) {
        let schema = FfiSchema {
            format: self.format().as_ptr(),
            name: c"".as_ptr(),
            metadata: std::ptr::null(),
            flags: NULLABLE,
            n_children: 0,
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: Some(release_schema),
            private_data: std::ptr::null_mut(),
        };
        let len = self.len as i64;
        let validity = self
            .validity
            .as_ref()
            .map_or(std::ptr::null(), |v| v.as_ptr() as *const c_void);
        let null_count = match (&self.values, &self.validity) {
            (Values::Null, _) => len,
            (_, Some(bits)) => len - bits.iter().map(|b| b.count_ones() as i64).sum::<i64>(),
            (_, None) => 0,
        };
        let buffers: Vec<*const c_void> = match &self.values {
            Values::Int(v) => vec![validity, v.as_ptr() as *const c_void],
            Values::Real(v) => vec![validity, v.as_ptr() as *const c_void],
            Values::Text(offsets, bytes) => vec![
                validity,
                offsets.as_ptr() as *const c_void,
                bytes.as_ptr() as *const c_void,
            ],
            Values::Null => Vec::new(),
        };
        let mut owned = Box::new(Owned {
            _column: self,
            buffers,
        });
        let array = FfiArray {
            length: len,
            null_count,
            offset: 0,
            n_buffers: owned.buffers.len() as i64,
            n_children: 0,
            buffers: owned.buffers.as_mut_ptr(),
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: Some(release_array),
            private_data: Box::into_raw(owned) as *mut c_void,
        };
        (schema, array)
    }
}

/// One result column for Python: an object with `__arrow_c_array__`, so
/// `polars.Series(column)` takes its buffers (once).
#[pyclass(module = "artscope._core")]
pub struct ArrowColumn {
    column: Option<Column>,
}

impl ArrowColumn {
    pub fn new(column: Column) -> Self {
        ArrowColumn {
            column: Some(column),
        }
    }
}

/// A capsule owning `value` (a C data interface struct), released with its
/// own release callback unless a consumer moved it out (the callback then
/// NULL in the struct left behind).
fn capsule<T>(py: Python<'_>, value: T, name: &'static CStr) -> PyResult<PyObject> {
    /// Frees the box a capsule of `name` holds, releasing its struct
    /// first unless a consumer moved it out.
    unsafe fn destroy<T>(
        capsule: *mut pyo3::ffi::PyObject,
        name: &CStr,
        release: impl Fn(&T) -> Option<unsafe extern "C" fn(*mut T)>,
    ) {
        // SAFETY: a capsule of ours holding a Box<T>
        unsafe {
            let p = pyo3::ffi::PyCapsule_GetPointer(capsule, name.as_ptr()) as *mut T;
            if p.is_null() {
                pyo3::ffi::PyErr_Clear();
                return;
            }
            if let Some(release) = release(&*p) {
                release(p);
            }
            drop(Box::from_raw(p));
        }
    }
    unsafe extern "C" fn destroy_schema(capsule: *mut pyo3::ffi::PyObject) {
        // SAFETY: an "arrow_schema" capsule of ours
        unsafe { destroy::<FfiSchema>(capsule, c"arrow_schema", |s| s.release) }
    }
    unsafe extern "C" fn destroy_array(capsule: *mut pyo3::ffi::PyObject) {
        // SAFETY: an "arrow_array" capsule of ours
        unsafe { destroy::<FfiArray>(capsule, c"arrow_array", |a| a.release) }
    }
    let destroy: pyo3::ffi::PyCapsule_Destructor = if name == c"arrow_schema" {
        destroy_schema
    } else {
        destroy_array
    };
    let pointer = Box::into_raw(Box::new(value)) as *mut c_void;
    // SAFETY: a new capsule over our box, freed by `destroy`
    unsafe {
        let obj = pyo3::ffi::PyCapsule_New(pointer, name.as_ptr(), Some(destroy));
        Bound::from_owned_ptr_or_err(py, obj).map(Bound::unbind)
    }
}

#[pymethods]
impl ArrowColumn {
    /// (schema capsule, array capsule); the column can be taken once.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__(
        &mut self,
        py: Python<'_>,
        requested_schema: Option<PyObject>,
    ) -> PyResult<(PyObject, PyObject)> {
        let _ = requested_schema; // (the column's own type is the only one offered)
        let column = self.column.take().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("the column was already exported")
        })?;
        let (schema, array) = column.export();
        Ok((
            capsule(py, schema, c"arrow_schema")?,
            capsule(py, array, c"arrow_array")?,
        ))
    }
}
