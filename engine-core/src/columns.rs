//! The imported tables held as typed columns in memory: what the virtual
//! tables (`vtab.rs`) serve to SQLite, as trace_processor serves its own
//! column storage, instead of copying every row into SQLite's B-trees.
//!
//! `Builder` is a [`RowSink`]: `tables::fill` sends it the same rows
//! it sends the SQLite inserter, and the column types follow the declared
//! type's affinity the way SQLite's would on insert (so every value reads
//! back exactly as from the serialized database). Lookups by value are served
//! by lazily built sorted permutations (`Index`), one per column, ordered by
//! (value, ts, row) so an equality plus a ts range is two binary searches.

use rustc_hash::FxHashMap as HashMap;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use rusqlite::types::{ToSql, ToSqlOutput, ValueRef};

use crate::ints::each_width;
pub use crate::ints::{Ints, Offsets};

/// Table definitions: (name, [(column, type, generated expression)]).
pub type Col = (&'static str, &'static str, Option<&'static str>);

/// A value to bind (borrowed strings, no per-row allocation).
#[derive(Clone, Copy)]
pub enum V<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
}

impl ToSql for V<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            V::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            V::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(i)),
            V::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(r)),
            V::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

/// Where `fill` sends a table's rows: SQLite inserts (`Inserter`, the
/// serialized database) or in-memory columns (`columns::Builder`, served as
/// virtual tables).
pub trait RowSink<'v> {
    fn row(&mut self, vals: &[V<'v>]) -> rusqlite::Result<()>;
}

/// Text dictionary id of a NULL in a text column.
pub const NULL_TEXT: u32 = u32::MAX;

/// A value of a mixed-type column (no single affinity held every value).
#[derive(Clone, Copy)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(u32),
}

pub enum Data {
    /// integers; `nulls` marks the NULLs
    Int(Ints),
    /// 64-bit integers as offsets from a base per block of rows (`Offsets`:
    /// timestamps), no NULL
    Offsets(Offsets),
    Real(Vec<f64>),
    /// ids into the column's dictionary, as narrow as the dictionary
    /// allows (-1 for NULL)
    Text(Ints),
    Mixed(Vec<Cell>),
    /// a generated column: `a + b` of two integer columns
    Sum(usize, usize),
    /// a generated column that repeats another
    Alias(usize),
    /// a generated column that is always NULL
    Null,
    /// the row number (an id column: nothing stored)
    RowNumber,
}

/// A column's NULL flags, one bit per row (none stored when no row is
/// NULL).
#[derive(Default)]
pub struct Nulls(Vec<u64>);

impl Nulls {
    pub fn none() -> Nulls {
        Nulls(Vec::new())
    }

    /// The flags of `n` rows, `null(row)` saying which are NULL.
    pub fn of(n: usize, null: impl Fn(usize) -> bool) -> Nulls {
        let mut bits = Vec::with_capacity(n.div_ceil(64));
        let mut any = 0;
        for lo in (0..n).step_by(64) {
            let word = (lo..(lo + 64).min(n)).fold(0u64, |w, r| w | (null(r) as u64) << (r - lo));
            any |= word;
            bits.push(word);
        }
        if any == 0 {
            Nulls::none()
        } else {
            Nulls(bits)
        }
    }

    /// No row is NULL.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `row` is NULL.
    #[inline]
    pub fn get(&self, row: usize) -> bool {
        self.0
            .get(row / 64)
            .is_some_and(|w| w >> (row % 64) & 1 != 0)
    }
}

pub struct Column {
    pub name: &'static str,
    pub decl: &'static str,
    pub data: Data,
    /// per row, for Int / Real (empty when the column has no NULL)
    pub nulls: Nulls,
    pub dict: Vec<Box<str>>,
}

/// A stored (not generated) column's values, before the table is built.
pub struct Stored {
    data: Data,
    nulls: Nulls,
    dict: Vec<Box<str>>,
}

impl Stored {
    pub fn int(v: Vec<i64>) -> Stored {
        let ints = Ints::from_i64(v);
        // values needing 64 bits (timestamps): as offsets when they fit
        let offsets = match &ints {
            Ints::I64(v) => Offsets::encode(v),
            _ => None,
        };
        match offsets {
            Some(o) => Stored {
                data: Data::Offsets(o),
                nulls: Nulls::none(),
                dict: Vec::new(),
            },
            None => Stored::ints(ints),
        }
    }

    /// integers of any width (narrowed to their range)
    pub fn narrow<T: Copy + Into<i64>>(v: Vec<T>) -> Stored {
        Stored::ints(Ints::narrow(v))
    }

    /// integers as the trackers stored them
    pub fn ints(v: Ints) -> Stored {
        Stored {
            data: Data::Int(v),
            nulls: Nulls::none(),
            dict: Vec::new(),
        }
    }

    /// integers as the trackers stored them, negative values meaning NULL
    pub fn ints_or_null(v: Ints) -> Stored {
        let nulls = each_width!(&v, v => Nulls::of(v.len(), |r| v[r] < 0));
        Stored {
            data: Data::Int(v),
            nulls,
            dict: Vec::new(),
        }
    }

    /// integers as the trackers stored them, with a NULL flag per row
    pub fn ints_nulls(v: Ints, nulls: &[bool]) -> Stored {
        Stored {
            data: Data::Int(v),
            nulls: Nulls::of(nulls.len(), |r| nulls[r]),
            dict: Vec::new(),
        }
    }

    /// integers with a NULL flag per row
    pub fn int_nulls<T: Copy + Into<i64>>(v: Vec<T>, nulls: Vec<bool>) -> Stored {
        let nulls = Nulls::of(nulls.len(), |r| nulls[r]);
        Stored {
            data: Data::Int(Ints::narrow(v)),
            nulls,
            dict: Vec::new(),
        }
    }

    /// text as ids into `dict` (`NULL_TEXT` for NULL)
    pub fn text(ids: Vec<u32>, dict: Vec<Box<str>>) -> Stored {
        Stored::text_ids(text_ids(ids), dict)
    }

    /// text as ids into `dict` (-1 for NULL), as the trackers stored them
    pub fn text_ids(ids: Ints, dict: Vec<Box<str>>) -> Stored {
        Stored {
            data: Data::Text(ids),
            nulls: Nulls::none(),
            dict,
        }
    }

    /// text given per row, interned
    pub fn interned(values: &[&str]) -> Stored {
        let mut dict = Dict::default();
        let ids = values.iter().map(|s| dict.id(s)).collect();
        Stored::text(ids, dict.strings)
    }

    /// text given per row (None: NULL), interned
    pub fn text_opt<S: AsRef<str>>(values: impl Iterator<Item = Option<S>>) -> Stored {
        let mut dict = Dict::default();
        let ids = values
            .map(|v| v.map_or(NULL_TEXT, |s| dict.id(s.as_ref())))
            .collect();
        Stored::text(ids, dict.strings)
    }

    /// reals (None: NULL)
    pub fn real_opt(values: impl Iterator<Item = Option<f64>>) -> Stored {
        let (v, nulls): (Vec<f64>, Vec<bool>) =
            values.map(|x| (x.unwrap_or(0.0), x.is_none())).unzip();
        Stored::real_nulls(v, nulls)
    }

    /// reals with a NULL flag per row
    pub fn real_nulls(v: Vec<f64>, nulls: Vec<bool>) -> Stored {
        let nulls = Nulls::of(nulls.len(), |r| nulls[r]);
        Stored {
            data: Data::Real(v),
            nulls,
            dict: Vec::new(),
        }
    }

    /// the row number 0, 1, 2, ... (ids)
    pub fn row_number() -> Stored {
        Stored {
            data: Data::RowNumber,
            nulls: Nulls::none(),
            dict: Vec::new(),
        }
    }

    /// a column that is NULL on every row
    pub fn null() -> Stored {
        Stored {
            data: Data::Null,
            nulls: Nulls::none(),
            dict: Vec::new(),
        }
    }
}

/// The rows of a column ordered by (value, ts, row); NULLs first.
pub struct Index {
    pub perm: Vec<u32>,
    pub distinct: usize,
}

pub struct Table {
    pub name: String,
    pub cols: Vec<Column>,
    pub n: usize,
    /// the column named `ts`, if any (secondary order of every index)
    pub ts_col: Option<usize>,
    /// per column: value == row number on every row (an id column)
    pub row_alias: Vec<bool>,
    /// per column: integers, no NULL, non-decreasing in row order
    pub sorted: Vec<bool>,
    indexes: Mutex<HashMap<usize, IndexCell>>,
    /// (col, then): rows ordered by (col, then, ts, row), built on first use
    grouped: Mutex<HashMap<(usize, usize), IndexCell>>,
    /// per column, the rows equality scans have read (`scan_allowed`)
    scanned: Vec<AtomicUsize>,
    /// per column, how many values it holds about (`distinct_estimate`)
    spans: Vec<OnceLock<usize>>,
}

/// An index, built by the first query that needs it. The map holding the
/// cells is locked only to find or add one: a query waits for an index
/// another connection is building only if it needs that one.
type IndexCell = Arc<OnceLock<Arc<Index>>>;

/// The index `cells` holds for `key`, built by `build` if no query built
/// it yet (a query needing it while another builds it waits for that one).
fn built_once<K: std::hash::Hash + Eq>(
    cells: &Mutex<HashMap<K, IndexCell>>,
    key: K,
    build: impl FnOnce() -> Arc<Index>,
) -> Arc<Index> {
    let cell = {
        let mut guard = cells.lock().unwrap_or_else(|e| e.into_inner());
        guard.entry(key).or_default().clone()
    };
    cell.get_or_init(build).clone()
}

/// An equality scan's key, as the column stores it.
#[derive(Clone, Copy)]
pub enum EqKey {
    Int(i64),
    /// a text column's dictionary id
    Text(i64),
}

/// Equality scans may read this many times a table's rows per column
/// before its index is built: a column looked up once or twice (`WHERE dur
/// = -1`, `WHERE io_wait = 1`) never pays for an index, and one looked up
/// often (thousands of `cpu = ? AND ts` lookups, each scan reading every
/// CPU's rows in its ts range) pays at most about what the index costs
/// again.
const SCAN_BUDGET: usize = 2;

impl Column {
    /// The value at `row` (generated columns computed from `cols`).
    #[inline]
    pub fn get<'a>(&'a self, cols: &'a [Column], row: usize) -> V<'a> {
        match &self.data {
            Data::Int(v) => {
                if self.nulls.get(row) {
                    V::Null
                } else {
                    V::Int(v.get(row))
                }
            }
            Data::Offsets(v) => V::Int(v.get(row)),
            Data::Real(v) => {
                if self.nulls.get(row) {
                    V::Null
                } else {
                    V::Real(v[row])
                }
            }
            Data::Text(v) => match v.get(row) {
                id if id < 0 => V::Null,
                id => V::Text(&self.dict[id as usize]),
            },
            Data::Mixed(v) => match v[row] {
                Cell::Null => V::Null,
                Cell::Int(i) => V::Int(i),
                Cell::Real(r) => V::Real(r),
                Cell::Text(id) => V::Text(&self.dict[id as usize]),
            },
            Data::Sum(a, b) => match (cols[*a].get(cols, row), cols[*b].get(cols, row)) {
                (V::Int(x), V::Int(y)) => V::Int(x.wrapping_add(y)),
                _ => V::Null,
            },
            Data::Alias(a) => cols[*a].get(cols, row),
            Data::Null => V::Null,
            Data::RowNumber => V::Int(row as i64),
        }
    }

    /// Whether values can be ordered by `key_cmp` (one storage type).
    pub fn indexable(&self) -> bool {
        matches!(
            self.data,
            Data::Int(_) | Data::Offsets(_) | Data::Real(_) | Data::Text(_) | Data::RowNumber
        )
    }
}

/// SQLite's order of two values of one column (NULL first, then numbers,
/// then text; BINARY collation).
#[inline]
pub fn value_cmp(a: V<'_>, b: V<'_>) -> Ordering {
    fn rank(v: &V<'_>) -> u8 {
        match v {
            V::Null => 0,
            V::Int(_) | V::Real(_) => 1,
            V::Text(_) => 2,
        }
    }
    match (a, b) {
        (V::Int(x), V::Int(y)) => x.cmp(&y),
        (V::Real(x), V::Real(y)) => x.total_cmp(&y),
        (V::Int(x), V::Real(y)) => (x as f64).total_cmp(&y),
        (V::Real(x), V::Int(y)) => x.total_cmp(&(y as f64)),
        (V::Text(x), V::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (a, b) => rank(&a).cmp(&rank(&b)),
    }
}

impl Table {
    #[inline]
    /// The positions of the columns `names`, if the table has them all.
    pub fn columns<const N: usize>(&self, names: [&str; N]) -> Option<[usize; N]> {
        let mut out = [0; N];
        for (slot, name) in out.iter_mut().zip(names) {
            *slot = self.cols.iter().position(|c| c.name == name)?;
        }
        Some(out)
    }

    pub fn get(&self, col: usize, row: usize) -> V<'_> {
        self.cols[col].get(&self.cols, row)
    }

    /// The index of column `col`, built on first use.
    pub fn index(&self, col: usize) -> Arc<Index> {
        built_once(&self.indexes, col, || self.build_index(col))
    }

    /// The index of column `col` if it is built.
    fn built_index(&self, col: usize) -> Option<Arc<Index>> {
        let guard = self.indexes.lock().unwrap_or_else(|e| e.into_inner());
        guard.get(&col).and_then(|cell| cell.get().cloned())
    }

    fn build_index(&self, col: usize) -> Arc<Index> {
        let started = std::time::Instant::now();
        let ts = self.ts_col.filter(|&t| t != col);
        // ties in row order are ties in ts order: a counting sort by key
        // when the keys are dense (ids, cpus, text ranks), read from the
        // column as it is stored
        let counted = match ts {
            Some(t) if !self.sorted[t] => None,
            _ => self.dense_keys(&[col]).map(|k| k.counting_sort(self.n)),
        };
        let (perm, distinct) = counted.unwrap_or_else(|| {
            // sort (key, ts key, row) as plain integers: keys preserve
            // SQLite's order within one storage type (the only kind indexed)
            let key = self.sort_keys(col);
            let ts = ts.map(|t| self.sort_keys(t)).unwrap_or_default();
            let mut rows: Vec<(i64, i64, u32)> = (0..self.n)
                .map(|r| (key[r], ts.get(r).copied().unwrap_or(0), r as u32))
                .collect();
            rows.sort_unstable();
            let distinct = 1 + rows.windows(2).filter(|w| w[0].0 != w[1].0).count();
            (rows.into_iter().map(|r| r.2).collect(), distinct)
        });
        let ix = Arc::new(Index {
            perm,
            distinct: distinct.min(self.n),
        });
        self.timed_index(started, col, None);
        ix
    }

    /// Whether an equality on `col` may be looked up by scanning rows in
    /// row order instead of through its index: the index is not built,
    /// row order is ts order (the order an equality's rows are promised
    /// in), and the column's scans are within their budget (`SCAN_BUDGET`).
    pub fn scan_allowed(&self, col: usize) -> bool {
        let in_ts_order = self.ts_col.map_or(true, |t| self.sorted[t]);
        in_ts_order
            && self.scanned[col].load(Relaxed) < SCAN_BUDGET * self.n.max(1)
            && self.built_index(col).is_none()
    }

    /// Counts `rows` more rows read by equality scans of `col`.
    pub fn charge_scan(&self, col: usize, rows: usize) {
        if rows > 0 {
            self.scanned[col].fetch_add(rows, Relaxed);
        }
    }

    /// `k` as an equality scan of `col` compares it: Some(None) when no
    /// value of the column equals it, None when a scan cannot look it up
    /// (the column's index can).
    pub fn eq_key(&self, col: usize, k: V<'_>) -> Option<Option<EqKey>> {
        let c = &self.cols[col];
        match (&c.data, k) {
            (Data::Int(_), V::Int(i)) => Some(Some(EqKey::Int(i))),
            // (an integer equals a real only when the real is that integer;
            // large reals are left to the index's comparison)
            (Data::Int(_), V::Real(r)) if r.abs() < 1e15 => {
                Some((r.fract() == 0.0).then_some(EqKey::Int(r as i64)))
            }
            (Data::Text(_), V::Text(t)) if c.dict.len() <= 4096 => Some(
                c.dict
                    .iter()
                    .position(|d| d.as_bytes() == t.as_bytes())
                    .map(|id| EqKey::Text(id as i64)),
            ),
            _ => None,
        }
    }

    /// The first row of `rows` (the last one when `desc`) whose `col`
    /// equals `key`.
    pub fn find_equal(
        &self,
        col: usize,
        key: EqKey,
        rows: std::ops::Range<usize>,
        desc: bool,
    ) -> Option<usize> {
        let c = &self.cols[col];
        let start = rows.start;
        // the first match of `hit(offset, value)` in scan order
        fn find<T: Copy>(v: &[T], desc: bool, hit: impl Fn(usize, T) -> bool) -> Option<usize> {
            if desc {
                (0..v.len()).rev().find(|&i| hit(i, v[i]))
            } else {
                (0..v.len()).find(|&i| hit(i, v[i]))
            }
        }
        let found = match (&c.data, key) {
            #[allow(clippy::unnecessary_cast)] // a no-op for the I64 arm only
            // (a text column's ids: a NULL's -1 is no id)
            (Data::Int(v), EqKey::Int(k)) | (Data::Text(v), EqKey::Text(k)) => {
                each_width!(v, v => {
                    let nulls = &c.nulls;
                    find(&v[rows], desc, |i, x| {
                        x as i64 == k && !nulls.get(start + i)
                    })
                })
            }
            _ => None,
        };
        found.map(|i| start + i)
    }

    /// The rows ordered by (`col`, `then`, ts, row), built on first use:
    /// what a lookup by `col` grouped by `then` reads, so SQLite needs no
    /// sorter for `WHERE col = ? GROUP BY then`.
    pub fn grouped_index(&self, col: usize, then: usize) -> Arc<Index> {
        built_once(&self.grouped, (col, then), || {
            self.build_grouped_index(col, then)
        })
    }

    fn build_grouped_index(&self, col: usize, then: usize) -> Arc<Index> {
        let started = std::time::Instant::now();
        let ts_in_row_order = match self.ts_col {
            Some(t) => t == col || t == then || self.sorted[t],
            None => true,
        };
        // row order is (ts, row) order: one stable counting sort by
        // (col, then) when the pair is dense
        let counted = if ts_in_row_order {
            self.dense_keys(&[col, then])
                .map(|k| (k.counting_sort(self.n).0, k.distinct_of_first(self.n)))
        } else {
            None
        };
        let (perm, distinct) = counted.unwrap_or_else(|| {
            // a stable sort of the (col, ts, row) order by (col, then)
            let base = self.index(col);
            let (key, then_key) = (self.sort_keys(col), self.sort_keys(then));
            let mut perm = base.perm.clone();
            perm.sort_by_key(|&r| (key[r as usize], then_key[r as usize]));
            (perm, base.distinct)
        });
        let ix = Arc::new(Index { perm, distinct });
        self.timed_index(started, col, Some(then));
        ix
    }

    /// The values of `cols` as one dense bucket number per row, ordered as
    /// (cols[0], cols[1], ...) are (NULL first), read from the columns as
    /// stored; None when a column is not integers or text, or the buckets
    /// would span more than a counting sort's few times the rows.
    fn dense_keys(&self, cols: &[usize]) -> Option<DenseKeys<'_>> {
        let mut parts = Vec::with_capacity(cols.len());
        let mut span: usize = 1;
        for &col in cols {
            let c = &self.cols[col];
            let part = match &c.data {
                Data::Int(v) => {
                    let (lo, hi) = int_range(v, &c.nulls);
                    // (NULL is bucket 0)
                    let width = usize::try_from(hi as i128 - lo as i128 + 2).ok()?;
                    KeyPart::Ints(v, &c.nulls, lo, width)
                }
                Data::RowNumber => KeyPart::Rows(self.n + 1),
                Data::Text(v) => {
                    KeyPart::Text(v, dict_ranks(&c.dict).iter().map(|r| r + 1).collect())
                }
                _ => return None,
            };
            span = span.checked_mul(part.width())?;
            parts.push(part);
        }
        (span <= 4 * self.n + 1024).then_some(DenseKeys { parts, span })
    }

    /// The time an index took, printed under ARTSCOPE_CORE_TIMINGS.
    fn timed_index(&self, started: std::time::Instant, col: usize, then: Option<usize>) {
        if std::env::var_os("ARTSCOPE_CORE_TIMINGS").is_some() {
            let then = then.map_or(String::new(), |t| format!(", {}", self.cols[t].name));
            eprintln!(
                "core: index {}({}{then}) {:.3} s",
                self.name,
                self.cols[col].name,
                started.elapsed().as_secs_f64()
            );
        }
    }

    /// Per row, an integer ordered as the column's values (NULL lowest):
    /// integers as they are, reals by their ordered bit pattern, text by its
    /// rank in the column's sorted dictionary.
    #[allow(clippy::useless_conversion)] // i64::from is a no-op in each_width!'s I64 arm
    fn sort_keys(&self, col: usize) -> Vec<i64> {
        let c = &self.cols[col];
        let null_key = i64::MIN;
        // NULL where flagged, else key(row) (kept above the NULL key)
        let keyed = |n: usize, key: &dyn Fn(usize) -> i64| -> Vec<i64> {
            (0..n)
                .map(|r| {
                    if c.nulls.get(r) {
                        null_key
                    } else {
                        key(r).max(i64::MIN + 1)
                    }
                })
                .collect()
        };
        match &c.data {
            // the common case in one tight loop per width
            Data::Int(v) if c.nulls.is_empty() => {
                each_width!(v, v => v.iter().map(|&x| i64::from(x).max(i64::MIN + 1)).collect())
            }
            Data::Int(v) => keyed(v.len(), &|r| v.get(r)),
            Data::Offsets(v) => keyed(v.len(), &|r| v.get(r)),
            Data::Real(v) => keyed(v.len(), &|r| {
                let b = v[r].to_bits() as i64;
                if b < 0 {
                    b ^ i64::MAX
                } else {
                    b
                }
            }),
            Data::Text(v) => {
                let rank = dict_ranks(&c.dict);
                v.iter()
                    .map(|id| {
                        if id < 0 {
                            null_key
                        } else {
                            rank[id as usize] as i64
                        }
                    })
                    .collect()
            }
            // generated and mixed columns: through their values (numbers
            // only; others all compare equal and keep row order)
            _ => (0..self.n)
                .map(|r| match self.get(col, r) {
                    V::Int(x) => x.max(i64::MIN + 1),
                    V::Null => null_key,
                    _ => 0,
                })
                .collect(),
        }
    }

    /// Asks the CPU to fetch `row`'s values of every stored column into
    /// cache (index scans visit rows far apart: without it each value read
    /// is a cache miss).
    #[inline]
    pub fn prefetch(&self, row: usize) {
        #[cfg(target_arch = "x86_64")]
        for c in &self.cols {
            let p: *const i8 = match &c.data {
                Data::Int(v) => v.ptr(row),
                Data::Offsets(v) => v.ptr(row),
                Data::Real(v) => v.as_ptr().wrapping_add(row) as *const i8,
                Data::Text(v) => v.ptr(row),
                _ => continue,
            };
            // SAFETY: prefetch is a hint; it never faults, even out of bounds
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
    }

    /// About how many distinct values `col` holds (planning estimates): its
    /// index's count when built, else the span of an integer column's values
    /// in a sample of its rows (a text column's dictionary), at most the
    /// rows.
    pub fn distinct_estimate(&self, col: usize) -> usize {
        if let Some(d) = self.known_distinct(col) {
            return d;
        }
        let c = &self.cols[col];
        *self.spans[col].get_or_init(|| {
            let span = match &c.data {
                Data::Int(v) => {
                    // (from a sample of rows: an estimate need not read them all)
                    let step = (v.len() / 4096).max(1);
                    let (lo, hi) = (0..v.len())
                        .step_by(step)
                        .filter(|&r| !c.nulls.get(r))
                        .map(|r| v.get(r))
                        .fold((i64::MAX, i64::MIN), |(a, b), x| (a.min(x), b.max(x)));
                    usize::try_from(hi as i128 - lo as i128 + 1).unwrap_or(1)
                }
                Data::Text(_) => c.dict.len(),
                Data::RowNumber | Data::Offsets(_) => self.n,
                // (reals, mixed, generated: no cheap estimate)
                _ => (self.n as f64).sqrt() as usize,
            };
            span.clamp(1, self.n.max(1))
        })
    }

    /// Distinct values of `col` if its index exists (planning estimates).
    pub fn known_distinct(&self, col: usize) -> Option<usize> {
        self.built_index(col).map(|ix| ix.distinct)
    }
}

/// Each dictionary id's rank among the dictionary's strings in byte order.
fn dict_ranks(dict: &[Box<str>]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..dict.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| dict[a as usize].as_bytes().cmp(dict[b as usize].as_bytes()));
    let mut rank = vec![0u32; dict.len()];
    for (i, &d) in order.iter().enumerate() {
        rank[d as usize] = i as u32;
    }
    rank
}

/// The lowest and highest non-NULL value of an integer column ((0, 0)
/// when every value is NULL).
fn int_range(v: &Ints, nulls: &Nulls) -> (i64, i64) {
    let fold = |(lo, hi): (i64, i64), x: i64| (lo.min(x), hi.max(x));
    let none = (i64::MAX, i64::MIN);
    #[allow(clippy::unnecessary_cast)] // a no-op for the I64 arm only
    let (lo, hi) = if nulls.is_empty() {
        each_width!(v, v => v.iter().fold(none, |a, &x| fold(a, x as i64)))
    } else {
        (0..v.len())
            .filter(|&r| !nulls.get(r))
            .fold(none, |a, r| fold(a, v.get(r)))
    };
    if lo > hi {
        (0, 0)
    } else {
        (lo, hi)
    }
}

/// Text ids (`NULL_TEXT` for NULL) as a text column stores them: as narrow
/// as the largest id allows, -1 for NULL.
fn text_ids(ids: Vec<u32>) -> Ints {
    let wide = |id: u32| if id == NULL_TEXT { -1 } else { id as i64 };
    let top = ids.iter().filter(|&&id| id != NULL_TEXT).max().copied();
    match top.unwrap_or(0) {
        0..=0x7f => Ints::I8(ids.into_iter().map(|id| wide(id) as i8).collect()),
        0x80..=0x7fff => Ints::I16(ids.into_iter().map(|id| wide(id) as i16).collect()),
        _ => Ints::I32(ids.into_iter().map(|id| wide(id) as i32).collect()),
    }
}

/// One column of `DenseKeys`.
enum KeyPart<'a> {
    /// integers from `lo` (NULL flags), `width` buckets with NULL's
    Ints(&'a Ints, &'a Nulls, i64, usize),
    /// text ids and each id's rank in byte order (from 1; NULL is 0)
    Text(&'a Ints, Vec<u32>),
    /// the row number: rows + 1 buckets
    Rows(usize),
}

impl KeyPart<'_> {
    fn width(&self) -> usize {
        match self {
            KeyPart::Ints(_, _, _, w) | KeyPart::Rows(w) => *w,
            KeyPart::Text(_, rank) => rank.len() + 1,
        }
    }

    /// For each row from `first` on, one per slot of `keys`: the slot's
    /// key so far times this part's width plus the row's bucket here. One
    /// loop per storage width, not a match per row.
    #[allow(clippy::unnecessary_cast)] // no-ops in each_width!'s I64 arm
    fn fold_into(&self, first: usize, keys: &mut [usize]) {
        let width = self.width();
        let rows = first..first + keys.len();
        match self {
            KeyPart::Ints(v, nulls, lo, _) if nulls.is_empty() => {
                each_width!(v, v => {
                    for (k, &x) in keys.iter_mut().zip(&v[rows]) {
                        *k = *k * width + (x as i64 - lo) as usize + 1;
                    }
                })
            }
            KeyPart::Ints(v, nulls, lo, _) => {
                for (k, row) in keys.iter_mut().zip(rows) {
                    let bucket = if nulls.get(row) {
                        0
                    } else {
                        (v.get(row) - lo) as usize + 1
                    };
                    *k = *k * width + bucket;
                }
            }
            KeyPart::Text(v, rank) => {
                each_width!(v, v => {
                    for (k, &id) in keys.iter_mut().zip(&v[rows]) {
                        let bucket = if id < 0 { 0 } else { rank[id as usize] as usize };
                        *k = *k * width + bucket;
                    }
                })
            }
            KeyPart::Rows(_) => {
                for (k, row) in keys.iter_mut().zip(rows) {
                    *k = *k * width + row + 1;
                }
            }
        }
    }
}

/// Per row, one bucket number ordered as the row's values of some columns
/// (`Table::dense_keys`), computed where read, a block of rows at a time:
/// no key is stored per row.
struct DenseKeys<'a> {
    parts: Vec<KeyPart<'a>>,
    span: usize,
}

/// Rows whose keys are computed at once (`DenseKeys::for_each_key`): their
/// keys stay in the CPU's nearest cache.
const KEY_BLOCK: usize = 2048;

impl DenseKeys<'_> {
    /// `f(row, key)` for every row of `n` in row order, the key made of the
    /// first `parts` parts.
    fn for_each_key(&self, n: usize, parts: usize, mut f: impl FnMut(usize, usize)) {
        let mut keys = [0usize; KEY_BLOCK];
        for first in (0..n).step_by(KEY_BLOCK) {
            let block = &mut keys[..KEY_BLOCK.min(n - first)];
            block.fill(0);
            for part in &self.parts[..parts] {
                part.fold_into(first, block);
            }
            for (i, &key) in block.iter().enumerate() {
                f(first + i, key);
            }
        }
    }

    /// Rows ordered by bucket, ties in row order, and the number of
    /// distinct buckets.
    fn counting_sort(&self, n: usize) -> (Vec<u32>, usize) {
        let parts = self.parts.len();
        let mut start = vec![0u32; self.span + 1];
        self.for_each_key(n, parts, |_, key| start[key + 1] += 1);
        let distinct = start.iter().filter(|&&c| c > 0).count();
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut perm = vec![0u32; n];
        self.for_each_key(n, parts, |row, key| {
            let slot = &mut start[key];
            perm[*slot as usize] = row as u32;
            *slot += 1;
        });
        (perm, distinct)
    }

    /// The number of distinct values of the first column.
    fn distinct_of_first(&self, n: usize) -> usize {
        let mut seen = vec![false; self.parts[0].width()];
        self.for_each_key(n, 1, |_, key| seen[key] = true);
        seen.iter().filter(|&&s| s).count()
    }
}

/// A text column's dictionary: each distinct string once, ids in order of
/// first appearance.
#[derive(Default)]
pub struct Dict {
    strings: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Dict {
    /// The strings, by id.
    pub fn into_strings(self) -> Vec<Box<str>> {
        self.strings
    }

    /// The id of `s`, added if new.
    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.strings.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }
}

/// A column's values as they are collected (integers at full width until
/// the table is built).
enum Building {
    Int(Vec<i64>),
    Real(Vec<f64>),
    Text(Vec<u32>),
    Mixed(Vec<Cell>),
}

/// Collects one column's values with its declared type's affinity.
struct ColBuilder {
    affinity: u8, // b'I' integer, b'R' real, b'T' text
    data: Building,
    nulls: Vec<bool>,
    rows: usize,
    dict: Dict,
}

impl ColBuilder {
    fn new(decl: &str) -> Self {
        let affinity = match decl {
            "INTEGER" => b'I',
            "REAL" => b'R',
            _ => b'T',
        };
        ColBuilder {
            affinity,
            data: match affinity {
                b'I' => Building::Int(Vec::new()),
                b'R' => Building::Real(Vec::new()),
                _ => Building::Text(Vec::new()),
            },
            nulls: Vec::new(),
            rows: 0,
            dict: Dict::default(),
        }
    }

    fn make_mixed(&mut self) {
        // a value per row, NULL where flagged
        fn cells<T>(v: Vec<T>, nulls: &[bool], cell: impl Fn(T) -> Cell) -> Vec<Cell> {
            v.into_iter()
                .enumerate()
                .map(|(i, x)| {
                    if nulls.get(i).copied().unwrap_or(false) {
                        Cell::Null
                    } else {
                        cell(x)
                    }
                })
                .collect()
        }
        let cells: Vec<Cell> = match std::mem::replace(&mut self.data, Building::Mixed(Vec::new()))
        {
            Building::Int(v) => cells(v, &self.nulls, Cell::Int),
            Building::Real(v) => cells(v, &self.nulls, Cell::Real),
            Building::Text(v) => v
                .into_iter()
                .map(|id| {
                    if id == NULL_TEXT {
                        Cell::Null
                    } else {
                        Cell::Text(id)
                    }
                })
                .collect(),
            Building::Mixed(v) => v,
        };
        self.nulls = Vec::new();
        self.data = Building::Mixed(cells);
    }

    /// Records whether the value just pushed (row `self.rows`) is NULL; the
    /// NULL flags exist from the first NULL on.
    fn mark_null(&mut self, null: bool) {
        if null && self.nulls.is_empty() {
            self.nulls = vec![false; self.rows];
            self.nulls.push(true);
        } else if !self.nulls.is_empty() {
            self.nulls.push(null);
        }
    }

    /// SQLite's affinity on insert: INTEGER keeps integers and turns
    /// lossless reals into integers; REAL turns integers into reals; TEXT
    /// turns integers into their decimal text. Anything else keeps its own
    /// type (the column becomes mixed).
    fn push(&mut self, v: V<'_>) {
        let v = match (self.affinity, v) {
            (b'I', V::Real(r)) if r.fract() == 0.0 && r.abs() < 9.2e18 => V::Int(r as i64),
            (b'R', V::Int(i)) => V::Real(i as f64),
            (b'T', V::Int(i)) => {
                let id = self.dict.id(&i.to_string());
                return self.push_text(id);
            }
            (_, V::Text(s)) => {
                let id = self.dict.id(s);
                return self.push_text(id);
            }
            (_, v) => v,
        };
        match (&mut self.data, v) {
            (Building::Int(d), V::Int(i)) => {
                d.push(i);
                self.mark_null(false);
            }
            (Building::Int(d), V::Null) => {
                d.push(0);
                self.mark_null(true);
            }
            (Building::Real(d), V::Real(r)) => {
                d.push(r);
                self.mark_null(false);
            }
            (Building::Real(d), V::Null) => {
                d.push(0.0);
                self.mark_null(true);
            }
            (Building::Text(d), V::Null) => d.push(NULL_TEXT),
            (Building::Mixed(d), V::Null) => d.push(Cell::Null),
            (Building::Mixed(d), V::Int(i)) => d.push(Cell::Int(i)),
            (Building::Mixed(d), V::Real(r)) => d.push(Cell::Real(r)),
            (_, v) => {
                self.make_mixed();
                return self.push(v);
            }
        }
        self.rows += 1;
    }

    fn push_text(&mut self, id: u32) {
        match &mut self.data {
            Building::Text(d) => d.push(id),
            Building::Mixed(d) => d.push(Cell::Text(id)),
            _ => {
                self.make_mixed();
                if let Building::Mixed(d) = &mut self.data {
                    d.push(Cell::Text(id));
                }
            }
        }
        self.rows += 1;
    }
}

/// A table's rows as they come from `tables::fill`.
pub struct Builder {
    schema: Vec<Col>,
    stored: Vec<ColBuilder>,
}

impl Builder {
    pub fn new(schema: &[Col]) -> Self {
        Builder {
            schema: schema.to_vec(),
            stored: schema
                .iter()
                .filter(|c| c.2.is_none())
                .map(|c| ColBuilder::new(c.1))
                .collect(),
        }
    }

    pub fn finish(self, name: &str) -> Table {
        let stored = self
            .stored
            .into_iter()
            .map(|b| Stored {
                data: match b.data {
                    Building::Int(v) => Data::Int(Ints::from_i64(v)),
                    Building::Real(v) => Data::Real(v),
                    Building::Text(v) => Data::Text(text_ids(v)),
                    Building::Mixed(v) => Data::Mixed(v),
                },
                nulls: Nulls::of(b.nulls.len(), |r| b.nulls[r]),
                dict: b.dict.strings,
            })
            .collect();
        Table::new(name, &self.schema, stored)
    }
}

impl Table {
    /// A table of `schema`'s columns: `stored` gives the stored ones in
    /// order (equal lengths); generated ones are computed from them.
    pub fn new(name: &str, schema: &[Col], stored: Vec<Stored>) -> Table {
        let n = stored
            .iter()
            .find_map(|s| match &s.data {
                Data::Int(v) => Some(v.len()),
                Data::Offsets(v) => Some(v.len()),
                Data::Real(v) => Some(v.len()),
                Data::Text(v) => Some(v.len()),
                Data::Mixed(v) => Some(v.len()),
                _ => None,
            })
            .unwrap_or(0);
        let position = |name: &str| schema.iter().position(|c| c.0 == name);
        let mut stored = stored.into_iter();
        let mut cols = Vec::with_capacity(schema.len());
        for &(cname, decl, gen) in schema {
            let s = match gen {
                None => stored.next().expect("one stored column per schema column"),
                Some(expr) => Stored {
                    data: match expr.split_once(" + ") {
                        _ if expr == "NULL" => Data::Null,
                        Some((a, b)) => match (position(a.trim()), position(b.trim())) {
                            (Some(a), Some(b)) => Data::Sum(a, b),
                            _ => Data::Null,
                        },
                        None => position(expr.trim()).map_or(Data::Null, Data::Alias),
                    },
                    nulls: Nulls::none(),
                    dict: Vec::new(),
                },
            };
            cols.push(Column {
                name: cname,
                decl,
                data: s.data,
                nulls: s.nulls,
                dict: s.dict,
            });
        }
        let row_alias = cols
            .iter()
            .map(|c| match &c.data {
                Data::Int(v) if c.nulls.is_empty() => {
                    v.iter().enumerate().all(|(i, x)| x == i as i64)
                }
                Data::RowNumber => true,
                _ => false,
            })
            .collect();
        let sorted = cols
            .iter()
            .map(|c| match &c.data {
                Data::Int(v) if c.nulls.is_empty() => {
                    each_width!(v, v => v.windows(2).all(|w| w[0] <= w[1]))
                }
                Data::Offsets(v) => (1..v.len()).all(|r| v.get(r - 1) <= v.get(r)),
                Data::RowNumber => true,
                _ => false,
            })
            .collect();
        let scanned = (0..cols.len()).map(|_| AtomicUsize::new(0)).collect();
        let spans = (0..cols.len()).map(|_| OnceLock::new()).collect();
        Table {
            name: name.to_string(),
            ts_col: cols.iter().position(|c| c.name == "ts"),
            cols,
            n,
            row_alias,
            sorted,
            indexes: Mutex::new(HashMap::default()),
            grouped: Mutex::new(HashMap::default()),
            scanned,
            spans,
        }
    }
}

impl<'v> RowSink<'v> for Builder {
    #[inline]
    fn row(&mut self, vals: &[V<'v>]) -> rusqlite::Result<()> {
        for (b, v) in self.stored.iter_mut().zip(vals) {
            b.push(*v);
        }
        Ok(())
    }
}
