//! The column tables (`columns::Table`) as SQLite virtual tables.
//!
//! trace_processor's design: SQLite plans and runs the query, the table
//! answers scans. `best_index` takes one equality (served by the column's
//! index, or directly when the column is the row number) and the range
//! constraints on one column (`ts` after an equality; otherwise a row-number
//! column, a column sorted in row order, or an indexed one).
//!
//! When every constraint it takes is on an integer column (ids, utid, cpu,
//! ts, ...: the metric queries' lookups), it applies them exactly as SQLite
//! compares an integer column with the operand (numeric text converted, other
//! text and blobs above every number, NULL matching nothing) and tells SQLite
//! to omit its own check: SQLite then reads fewer values per row. Otherwise
//! (text, real, mixed columns) nothing is omitted: SQLite re-checks every
//! row, so the lookup only has to return a superset, and a value it cannot
//! compare (text against a number, NULL, another collation) just widens the
//! scan.

use std::cell::Cell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use rusqlite::types::ValueRef;
use rusqlite::vtab::{
    Context, CreateVTab, IndexConstraintOp, IndexFlags, IndexInfo, VTab, VTabConnection,
    VTabCursor, VTabKind, Values,
};

use crate::columns::{value_cmp, EqKey, Index, Table, V};

/// The tables a connection serves, by name (the module's client data).
pub type Catalog = Arc<std::collections::HashMap<String, Arc<Table>>>;

/// Work counters (filters, rows stepped, cells read) for
/// ARTSCOPE_CORE_TIMINGS, added by each cursor when it closes.
pub static FILTERS: AtomicU64 = AtomicU64::new(0);
pub static STEPS: AtomicU64 = AtomicU64::new(0);
pub static CELLS: AtomicU64 = AtomicU64::new(0);

/// How many rows ahead an index scan prefetches.
const PREFETCH_AHEAD: usize = 8;

/// Constraint column meaning "the rowid".
const ROWID: i32 = -1;
const NONE: i32 = -2;

#[repr(C)]
pub struct ColumnTab {
    /// must be first
    base: rusqlite::vtab::sqlite3_vtab,
    table: Arc<Table>,
}

/// How `filter` finds the rows: which equality / range columns, and the
/// operators of the range values (argv order: equality value first).
struct Plan {
    eq: i32,
    /// a second equality (integer columns both): the rows of the two
    /// values come from the (eq, eq2, ts) index (`Table::grouped_index`)
    eq2: i32,
    range: i32,
    /// grouped: rows of the equality ordered by this column, then ts
    /// (`Table::grouped_index`); the range (on ts) is then checked per row
    then: i32,
    ops: Vec<u8>,
    /// every used constraint is on an integer column and applied exactly
    /// (SQLite was told to omit its own check)
    exact: bool,
    /// the rows are read in reverse (ORDER BY ... DESC, every term)
    desc: bool,
    /// another integer column whose range bounds (`post_ops`, after the
    /// range's in argv order) are checked per row in the cursor, as
    /// trace_processor filters them: the rows SQLite would drop are never
    /// handed to it (`cpu = ? AND ts BETWEEN ? AND ? AND utid BETWEEN ? AND ?`)
    post: i32,
    post_ops: Vec<u8>,
}

impl Plan {
    fn encode(&self) -> String {
        let ops = String::from_utf8_lossy(&self.ops);
        let post_ops = String::from_utf8_lossy(&self.post_ops);
        format!(
            "{} {} {} {} {} {} {} {ops} {post_ops}",
            self.eq, self.eq2, self.range, self.then, self.exact as u8, self.desc as u8, self.post
        )
    }

    fn decode(s: &str) -> Option<Plan> {
        let mut it = s.splitn(9, ' ');
        Some(Plan {
            eq: it.next()?.parse().ok()?,
            eq2: it.next()?.parse().ok()?,
            range: it.next()?.parse().ok()?,
            then: it.next()?.parse().ok()?,
            exact: it.next()? == "1",
            desc: it.next()? == "1",
            post: it.next()?.parse().ok()?,
            ops: it.next().unwrap_or("").as_bytes().to_vec(),
            post_ops: it.next().unwrap_or("").as_bytes().to_vec(),
        })
    }
}

/// A constraint value compared with an integer column, as SQLite compares
/// them: the column's INTEGER affinity turns numeric text into a number;
/// other text and blobs sort above every number; NULL matches nothing.
enum Operand {
    Number(V<'static>),
    AboveNumbers,
    Null,
}

fn operand(v: ValueRef<'_>) -> Operand {
    match v {
        ValueRef::Null => Operand::Null,
        ValueRef::Integer(i) => Operand::Number(V::Int(i)),
        ValueRef::Real(r) if r.is_nan() => Operand::Null,
        ValueRef::Real(r) => Operand::Number(V::Real(r)),
        ValueRef::Text(t) => {
            let s = std::str::from_utf8(t)
                .unwrap_or("")
                .trim_matches(|c: char| c.is_ascii_whitespace());
            // SQLite's numeric literals only: no "inf", "nan", hex or '_'
            let numeric = !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                && s.bytes().any(|b| b.is_ascii_digit());
            match (numeric, s.parse::<i64>(), s.parse::<f64>()) {
                (true, Ok(i), _) => Operand::Number(V::Int(i)),
                (true, _, Ok(r)) if r.is_finite() => Operand::Number(V::Real(r)),
                _ => Operand::AboveNumbers,
            }
        }
        ValueRef::Blob(_) => Operand::AboveNumbers,
    }
}

fn range_op(op: IndexConstraintOp) -> Option<u8> {
    Some(match op {
        IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GT => b'g',
        IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GE => b'G',
        IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LT => b'l',
        IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LE => b'L',
        _ => return None,
    })
}

impl ColumnTab {
    /// A column whose value is the row number (or the rowid itself).
    fn is_row(&self, col: i32) -> bool {
        col == ROWID || (col >= 0 && self.table.row_alias[col as usize])
    }

    fn usable(&self, col: i32) -> bool {
        col == ROWID || (col >= 0 && self.table.cols[col as usize].indexable())
    }

    /// An integer column (or the rowid): its constraints are applied exactly.
    fn integer(&self, col: i32) -> bool {
        col == ROWID
            || (col >= 0
                && matches!(
                    self.table.cols[col as usize].data,
                    crate::columns::Data::Int(_)
                        | crate::columns::Data::Offsets(_)
                        | crate::columns::Data::RowNumber
                ))
    }
}

impl ColumnTab {
    /// The order of `col`'s index read whole: (col, ts, row).
    fn index_order(&self, col: i32) -> Vec<i32> {
        match self.table.ts_col.map(|t| t as i32) {
            Some(ts) if ts != col => vec![col, ts, ROWID],
            _ => vec![col, ROWID],
        }
    }

    /// The column an equality plan's rows can be ordered by for ORDER BY /
    /// GROUP BY `wanted` (then ts, then row): an integer column other than
    /// ts, when the plan is exact (its ts bounds are numbers, checked per
    /// row).
    fn grouping(&self, plan: &Plan, wanted: &[i32], unique: bool) -> Option<i32> {
        if unique || plan.eq == NONE || plan.eq == ROWID || plan.eq2 != NONE || !plan.exact {
            return None;
        }
        let ts = self.table.ts_col.map_or(NONE, |t| t as i32);
        let then = wanted.iter().copied().find(|&c| c != plan.eq)?;
        let fits = then >= 0
            && then != ts
            && !self.is_row(then)
            && self.integer(then)
            && (plan.range == NONE || plan.range == ts);
        let order = [then, ts, ROWID];
        (fits && order_satisfies(&order, wanted, |c| self.is_row(c), plan.eq)).then_some(then)
    }
}

unsafe impl<'vtab> VTab<'vtab> for ColumnTab {
    type Aux = Catalog;
    type Cursor = ColumnCursor;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Catalog>,
        args: &[&[u8]],
    ) -> rusqlite::Result<(String, Self)> {
        let name = String::from_utf8_lossy(args.get(2).copied().unwrap_or(b"")).into_owned();
        let table = aux
            .and_then(|c| c.get(&name).cloned())
            .ok_or_else(|| rusqlite::Error::ModuleError(format!("no column table {name}")))?;
        let defs: Vec<String> = table
            .cols
            .iter()
            .map(|c| format!("\"{}\" {}", c.name, c.decl))
            .collect();
        let schema = format!("CREATE TABLE x({})", defs.join(", "));
        Ok((
            schema,
            ColumnTab {
                base: rusqlite::vtab::sqlite3_vtab::default(),
                table,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<()> {
        let n = self.table.n.max(1) as f64;
        // (constraint, column, b'=' or a range_op code)
        let cons: Vec<(usize, i32, u8)> = info
            .constraints()
            .enumerate()
            .filter(|(_, c)| c.is_usable())
            .filter_map(|(i, c)| {
                let op = c.operator();
                let code = if op == IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ {
                    b'='
                } else {
                    range_op(op)?
                };
                Some((i, c.column(), code))
            })
            .collect();
        // text is looked up byte-wise: other collations scan
        let cons: Vec<_> = cons
            .into_iter()
            .filter(|&(i, col, _)| {
                col < 0
                    || !matches!(
                        self.table.cols[col as usize].data,
                        crate::columns::Data::Text(_)
                    )
                    || info
                        .collation(i)
                        .is_ok_and(|c| c.eq_ignore_ascii_case("BINARY"))
            })
            .collect();
        let is_eq = |op: &u8| *op == b'=';
        let eqs: Vec<(usize, i32, u8)> = cons
            .iter()
            .filter(|(_, col, op)| is_eq(op) && self.usable(*col))
            .copied()
            .collect();
        // the values a column holds, about (the likely more selective
        // equality is the one looked up)
        let distinct = |col: i32| match col {
            ROWID => self.table.n,
            c => self.table.distinct_estimate(c as usize),
        };
        // the equality: a row-number column first, then the column of the
        // most values
        let eq = eqs
            .iter()
            .min_by_key(|(_, col, _)| (!self.is_row(*col), std::cmp::Reverse(distinct(*col)), *col))
            .copied();
        let unique = eq.is_some_and(|(_, col, _)| self.is_row(col));
        // a second equality on another integer column: both looked up at once
        let integer_key = |col: i32| col >= 0 && !self.is_row(col) && self.integer(col);
        let eq2 = eq
            .filter(|e| integer_key(e.1))
            .and_then(|e| {
                eqs.iter()
                    .filter(|x| x.1 != e.1 && integer_key(x.1))
                    .max_by_key(|x| (distinct(x.1), std::cmp::Reverse(x.1)))
            })
            .copied();
        let wanted: Vec<i32> = info.order_bys().map(|o| o.column()).collect();
        // every term ascending, or every term descending (the rows are then
        // read in reverse: `WHERE cpu = ? AND ts < ? ORDER BY ts DESC LIMIT
        // 1` is one seek); mixed directions are left to SQLite's sorter
        let desc = info.order_bys().all(|o| o.is_order_by_desc());
        let one_direction = desc || info.order_bys().all(|o| !o.is_order_by_desc());
        // Without an equality or a cheap range (row number, sorted column,
        // ts), an ORDER BY / GROUP BY led by an integer column is served by
        // reading that column's index whole (`GROUP BY utid` over every
        // sched row: no sorter); a range on another column is then checked
        // by SQLite.
        let cheap_range = |c: i32| {
            self.is_row(c)
                || (c >= 0 && self.table.sorted[c as usize])
                || Some(c as usize) == self.table.ts_col
        };
        let ordered_scan = match wanted.first() {
            Some(&c)
                if eq.is_none()
                    && one_direction
                    && c >= 0
                    && !self.is_row(c)
                    && self.integer(c)
                    && self.usable(c)
                    && !cons.iter().any(|&(_, col, op)| {
                        op != b'=' && self.usable(col) && cheap_range(col)
                    })
                    && order_satisfies(&self.index_order(c), &wanted, |c| self.is_row(c), NONE) =>
            {
                Some(c)
            }
            _ => None,
        };
        // the range column
        let range_col = if unique || ordered_scan.is_some() {
            NONE
        } else if eq.is_some() {
            self.table.ts_col.map_or(NONE, |t| t as i32)
        } else {
            let ranged: Vec<i32> = cons
                .iter()
                .filter(|(_, col, op)| *op != b'=' && self.usable(*col))
                .map(|(_, col, _)| *col)
                .collect();
            let pick = |f: &dyn Fn(i32) -> bool| ranged.iter().copied().find(|&c| f(c));
            pick(&|c| self.is_row(c))
                .or_else(|| pick(&|c| c >= 0 && self.table.sorted[c as usize]))
                .or_else(|| pick(&|c| Some(c as usize) == self.table.ts_col))
                .or_else(|| ranged.first().copied())
                .unwrap_or(NONE)
        };
        let exact = eq.map_or(true, |e| self.integer(e.1))
            && (range_col == NONE || self.integer(range_col));
        let mut plan = Plan {
            eq: eq.map_or(NONE, |e| e.1),
            eq2: eq2.map_or(NONE, |e| e.1),
            range: range_col,
            then: NONE,
            ops: Vec::new(),
            exact,
            desc: false,
            post: NONE,
            post_ops: Vec::new(),
        };
        if let Some(c) = ordered_scan {
            plan.then = c;
        }
        let mut argv = 0;
        for (i, _, _) in eq.into_iter().chain(eq2) {
            argv += 1;
            let mut usage = info.constraint_usage(i);
            usage.set_argv_index(argv);
            usage.set_omit(exact);
        }
        let mut bounds = 0;
        if range_col != NONE {
            for &(i, col, op) in &cons {
                if col == range_col && op != b'=' {
                    argv += 1;
                    let mut usage = info.constraint_usage(i);
                    usage.set_argv_index(argv);
                    usage.set_omit(exact);
                    plan.ops.push(op);
                    bounds += 1;
                }
            }
        }
        if bounds == 0 {
            plan.range = NONE;
        }
        // one more integer column's range, checked by the cursor (an exact
        // plan reading a range of rows: not a unique row, not a whole index)
        let post = if exact && !unique && ordered_scan.is_none() && (eq.is_some() || bounds > 0) {
            cons.iter()
                .map(|&(_, col, op)| (col, op))
                .find(|&(col, op)| {
                    op != b'='
                        && col >= 0
                        && col != plan.range
                        && col != plan.eq
                        && col != plan.eq2
                        && !self.is_row(col)
                        && self.integer(col)
                })
                .map(|(col, _)| col)
        } else {
            None
        };
        if let Some(pc) = post {
            plan.post = pc;
            for &(i, col, op) in &cons {
                if col == pc && op != b'=' {
                    argv += 1;
                    let mut usage = info.constraint_usage(i);
                    usage.set_argv_index(argv);
                    usage.set_omit(true);
                    plan.post_ops.push(op);
                }
            }
        }
        // estimates: SQLite orders joins by them
        let mut rows = n;
        if unique {
            rows = 1.0;
        } else if let Some((_, col, _)) = eq {
            rows = match self.table.known_distinct(col as usize) {
                Some(d) => n / d.max(1) as f64,
                None => n.sqrt(),
            };
            if let Some((_, col2, _)) = eq2 {
                rows /= distinct(col2).max(1) as f64;
            }
        }
        if bounds > 0 {
            rows /= if bounds > 1 { 16.0 } else { 4.0 };
        }
        if post.is_some() {
            rows /= 4.0;
        }
        let rows = rows.max(1.0);
        let seek = if eq.is_some() || bounds > 0 {
            n.log2()
        } else {
            0.0
        };
        info.set_estimated_cost(rows + seek);
        info.set_estimated_rows(rows as i64);
        if unique {
            info.set_idx_flags(IndexFlags::SQLITE_INDEX_SCAN_UNIQUE);
        }
        // output order: row order for a scan, a row-number range or a
        // sorted column's range; (value, ts, row) for an index
        let orders: Vec<Vec<i32>> = if unique {
            vec![Vec::new()]
        } else if let Some(c) = ordered_scan {
            vec![self.index_order(c)]
        } else if eq.is_some() {
            vec![self
                .table
                .ts_col
                .map(|t| vec![t as i32, ROWID])
                .unwrap_or_else(|| vec![ROWID])]
        } else if plan.range >= 0
            && !self.is_row(plan.range)
            && !self.table.sorted[plan.range as usize]
        {
            vec![vec![plan.range, ROWID]]
        } else {
            // row order: by row number, or by any sorted column, ties by row
            let mut o = vec![vec![ROWID]];
            o.extend(
                (0..self.table.cols.len() as i32)
                    .filter(|&c| self.table.sorted[c as usize] && !self.is_row(c))
                    .map(|c| vec![c, ROWID]),
            );
            o
        };
        if !wanted.is_empty() && one_direction {
            if orders
                .iter()
                .any(|order| order_satisfies(order, &wanted, |c| self.is_row(c), plan.eq))
            {
                plan.desc = desc;
                info.set_order_by_consumed(true);
            } else if let Some(then) = self.grouping(&plan, &wanted, unique) {
                // `WHERE col = ? GROUP BY other`: the equality's rows come
                // grouped from a (col, other, ts) index, with no sorter
                plan.then = then;
                plan.desc = desc;
                info.set_order_by_consumed(true);
            }
        }
        info.set_idx_str(&plan.encode());
        Ok(())
    }

    fn open(&'vtab mut self) -> rusqlite::Result<ColumnCursor> {
        Ok(ColumnCursor {
            base: rusqlite::vtab::sqlite3_vtab_cursor::default(),
            table: self.table.clone(),
            rows: Rows::Range(0, 0),
            pos: 0,
            desc: false,
            window: None,
            post: None,
            filters: 0,
            steps: 0,
            cells: Cell::new(0),
            scanned: 0,
        })
    }
}

/// Whether output ordered by `order` (columns; ROWID = row order, which
/// every row-number column shares) satisfies ORDER BY `wanted` (in one
/// direction: read in reverse, the same order serves every term DESC). The
/// equality column is constant and may appear anywhere.
fn order_satisfies(order: &[i32], wanted: &[i32], is_row: impl Fn(i32) -> bool, eq: i32) -> bool {
    let mut k = 0;
    for &col in wanted {
        if col == eq {
            continue;
        }
        let col = if is_row(col) { ROWID } else { col };
        match order.get(k) {
            Some(&o) if o == col => k += 1,
            _ => return false,
        }
    }
    true
}

impl CreateVTab<'_> for ColumnTab {
    const KIND: VTabKind = VTabKind::Default;
}

enum Rows {
    /// rows start..end in row order
    Range(usize, usize),
    /// perm[start..end] of an index
    Perm(Arc<Index>, usize, usize),
    /// rows start..end in row order whose column `col` equals the key (an
    /// equality looked up without an index: `Table::scan_allowed`)
    Scan(usize, EqKey, usize, usize),
}

#[repr(C)]
pub struct ColumnCursor {
    /// must be first
    base: rusqlite::vtab::sqlite3_vtab_cursor,
    table: Arc<Table>,
    rows: Rows,
    pos: usize,
    /// the rows are read from the last one back (a DESC plan)
    desc: bool,
    /// a grouped plan's ts bounds, checked per row: (ts column, lowest,
    /// highest), inclusive
    window: Option<(usize, i64, i64)>,
    /// a plan's post column and its inclusive bounds, checked per row
    post: Option<(usize, i64, i64)>,
    /// work done, added to FILTERS / STEPS / CELLS when the cursor closes
    /// (plain counts: no atomic operation per row or value read)
    filters: u64,
    steps: u64,
    cells: Cell<u64>,
    /// rows an equality scan read since its filter (`Table::charge_scan`)
    scanned: usize,
}

impl Drop for ColumnCursor {
    fn drop(&mut self) {
        self.charge_scan();
        FILTERS.fetch_add(self.filters, Relaxed);
        STEPS.fetch_add(self.steps, Relaxed);
        CELLS.fetch_add(self.cells.get(), Relaxed);
    }
}

impl ColumnCursor {
    #[inline]
    fn row(&self) -> usize {
        self.row_at(self.pos)
    }

    /// The row read at position `pos` (< len) of the cursor's rows.
    #[inline]
    fn row_at(&self, pos: usize) -> usize {
        let i = if self.desc { self.len() - 1 - pos } else { pos };
        match &self.rows {
            Rows::Range(s, _) | Rows::Scan(_, _, s, _) => s + i,
            Rows::Perm(ix, s, _) => ix.perm[s + i] as usize,
        }
    }

    /// Moves to the first row from the current one that every per-row check
    /// passes: the window and post bounds, and a scan's equality. A scan
    /// counts every row it read, whichever check passed over it: one whose
    /// key matches many rows that its post bounds reject (`utid IN (the
    /// app's threads) AND dur <= 0`) reads most of the table per lookup.
    fn skip_to_match(&mut self) {
        let from = self.pos;
        loop {
            self.skip_outside_window();
            let at = self.pos;
            self.skip_unequal();
            if self.pos == at {
                break;
            }
        }
        if let Rows::Scan(..) = self.rows {
            let len = self.len();
            // (the row it stopped at read too, if any)
            self.scanned += self.pos.min(len) - from.min(len) + usize::from(self.pos < len);
        }
    }

    /// Moves past rows whose ts is outside a grouped plan's bounds, or whose
    /// post column is outside its bounds.
    fn skip_outside_window(&mut self) {
        if self.window.is_none() && self.post.is_none() {
            return;
        }
        let inside = |b: Option<(usize, i64, i64)>, row: usize, t: &Table| match b {
            None => true,
            Some((col, lo, hi)) => matches!(t.get(col, row), V::Int(v) if v >= lo && v <= hi),
        };
        while self.pos < self.len() {
            let row = self.row();
            if inside(self.window, row, &self.table) && inside(self.post, row, &self.table) {
                return;
            }
            self.pos += 1;
        }
    }

    fn len(&self) -> usize {
        match &self.rows {
            Rows::Range(s, e) | Rows::Perm(_, s, e) | Rows::Scan(_, _, s, e) => {
                e.saturating_sub(*s)
            }
        }
    }

    /// Moves to the next row of a scan whose value equals its key (from
    /// the current one).
    fn skip_unequal(&mut self) {
        let Rows::Scan(col, key, s, e) = self.rows else {
            return;
        };
        let len = self.len();
        if self.pos >= len {
            return;
        }
        // the rows not yet read, in row order
        let rest = if self.desc {
            s..e - self.pos
        } else {
            s + self.pos..e
        };
        let found = self.table.find_equal(col, key, rest, self.desc);
        let pos = match found {
            Some(row) if self.desc => e - 1 - row,
            Some(row) => row - s,
            None => len,
        };
        self.pos = pos;
    }

    /// Adds the rows an equality scan read to its column's count.
    fn charge_scan(&mut self) {
        if let Rows::Scan(col, ..) = self.rows {
            self.table
                .charge_scan(col, std::mem::take(&mut self.scanned));
        }
    }
}

/// A comparable constraint value (None: not a number or text).
fn key(v: ValueRef<'_>) -> Option<V<'_>> {
    match v {
        ValueRef::Integer(i) => Some(V::Int(i)),
        ValueRef::Real(r) if !r.is_nan() => Some(V::Real(r)),
        ValueRef::Text(t) => std::str::from_utf8(t).ok().map(V::Text),
        _ => None,
    }
}

/// Whether a value of the column's storage type compares with `k` as SQLite
/// compares them (numbers with numbers, text with text).
fn same_class(col_is_text: bool, k: &V<'_>) -> bool {
    matches!(k, V::Text(_)) == col_is_text
}

/// [lo, hi) of positions in 0..len, given `at(i)` ordered ascending, that
/// satisfy every range bound.
fn narrow<'a>(
    mut lo: usize,
    mut hi: usize,
    bounds: &[(u8, V<'a>)],
    at: impl Fn(usize) -> V<'a>,
) -> (usize, usize) {
    let first = |lo: usize, hi: usize, pred: &dyn Fn(V<'a>) -> bool| -> usize {
        // first position in [lo, hi) where pred holds (pred monotone)
        let (mut a, mut b) = (lo, hi);
        while a < b {
            let m = a + (b - a) / 2;
            if pred(at(m)) {
                b = m;
            } else {
                a = m + 1;
            }
        }
        a
    };
    for &(op, k) in bounds {
        use std::cmp::Ordering::*;
        match op {
            b'g' => lo = lo.max(first(lo, hi, &|v| value_cmp(v, k) == Greater)),
            b'G' => lo = lo.max(first(lo, hi, &|v| value_cmp(v, k) != Less)),
            b'l' => hi = hi.min(first(lo, hi, &|v| value_cmp(v, k) != Less)),
            b'L' => hi = hi.min(first(lo, hi, &|v| value_cmp(v, k) == Greater)),
            // not NULL (NULLs sort first)
            b'n' => lo = lo.max(first(lo, hi, &|v| !matches!(v, V::Null))),
            _ => {}
        }
        if hi < lo {
            hi = lo;
        }
    }
    (lo, hi)
}

/// Exact range bounds (numbers, see `lookup`) on an integer column as the
/// inclusive interval of integers satisfying all of them; None when no
/// integer does.
fn window(bounds: &[(u8, V<'_>)]) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (i64::MIN as i128, i64::MAX as i128);
    for &(op, k) in bounds {
        // `as` saturates: reals beyond i128 (or infinite) stay beyond i64
        let (floor, ceil) = match k {
            V::Int(i) => (i as i128, i as i128),
            V::Real(r) => (r.floor() as i128, r.ceil() as i128),
            _ => continue,
        };
        match op {
            b'g' => lo = lo.max(floor.saturating_add(1)),
            b'G' => lo = lo.max(ceil),
            b'l' => hi = hi.min(ceil.saturating_sub(1)),
            b'L' => hi = hi.min(floor),
            _ => {}
        }
    }
    (lo <= hi).then_some((lo as i64, hi as i64))
}

/// The inclusive integer bounds a post column's constraint values allow
/// (compared as SQLite compares them with an integer column); None when no
/// row can match.
fn post_bounds(ops: &[u8], vals: &[ValueRef<'_>]) -> Option<(i64, i64)> {
    let mut bounds = Vec::new();
    for (&op, v) in ops.iter().zip(vals) {
        match (operand(*v), op) {
            (Operand::Null, _) => return None,
            (Operand::Number(k), _) => bounds.push((op, k)),
            (Operand::AboveNumbers, b'g' | b'G') => return None,
            (Operand::AboveNumbers, _) => {}
        }
    }
    window(&bounds)
}

/// What a plan's constraint values select, before any lookup.
enum Lookup<'a> {
    /// no row can match
    Nothing,
    /// the equality values (if the plan has them) and the range bounds,
    /// led by `b'n'` (NULL never satisfies a range constraint)
    Keys(Option<V<'a>>, Option<V<'a>>, Vec<(u8, V<'a>)>),
    /// an equality value the lookup cannot compare: every row (SQLite
    /// checks them), in the order the plan promised
    Everything,
}

/// The constraint values `vals` (argv order: equality first) as keys.
/// An exact plan (integer columns, SQLite's check omitted) compares each
/// operand as SQLite compares it with an integer column; any other plan
/// drops the values it cannot compare, returning a superset.
fn lookup<'a>(t: &Table, plan: &Plan, vals: &[ValueRef<'a>]) -> Lookup<'a> {
    let keys = (plan.eq != NONE) as usize + (plan.eq2 != NONE) as usize;
    let (eq_val, range_vals) = match plan.eq {
        NONE => (None, vals),
        _ => (vals.first().copied(), vals.get(keys..).unwrap_or(&[])),
    };
    let mut bounds: Vec<(u8, V<'a>)> = vec![(b'n', V::Null)];
    if plan.exact {
        let eq = match eq_val.map(operand) {
            None => None,
            Some(Operand::Number(k)) => Some(k),
            Some(_) => return Lookup::Nothing,
        };
        // (a second equality only ever comes with an exact first one)
        let eq2 = match (plan.eq2, vals.get(1).map(|v| operand(*v))) {
            (NONE, _) | (_, None) => None,
            (_, Some(Operand::Number(k))) => Some(k),
            _ => return Lookup::Nothing,
        };
        for (&op, v) in plan.ops.iter().zip(range_vals) {
            match (operand(*v), op) {
                (Operand::Null, _) => return Lookup::Nothing,
                (Operand::Number(k), _) => bounds.push((op, k)),
                // every number is below it: `<` / `<=` hold, `>` / `>=` never
                (Operand::AboveNumbers, b'g' | b'G') => return Lookup::Nothing,
                (Operand::AboveNumbers, _) => {}
            }
        }
        return Lookup::Keys(eq, eq2, bounds);
    }
    let is_text =
        |col: i32| col >= 0 && matches!(t.cols[col as usize].data, crate::columns::Data::Text(_));
    let eq = match eq_val {
        None => None,
        Some(v) => match key(v).filter(|k| same_class(is_text(plan.eq), k)) {
            Some(k) => Some(k),
            None => return Lookup::Everything,
        },
    };
    bounds.extend(
        plan.ops
            .iter()
            .zip(range_vals)
            .filter_map(|(&op, v)| key(*v).map(|k| (op, k)))
            .filter(|(_, k)| same_class(is_text(plan.range), k)),
    );
    Lookup::Keys(eq, None, bounds)
}

/// The rows of `plan` for an equality key and range bounds, in the order
/// `best_index` promised: row order, or the index's (value, ts, row).
fn rows_for(
    t: &Arc<Table>,
    plan: &Plan,
    eq: Option<V<'_>>,
    eq2: Option<V<'_>>,
    bounds: &[(u8, V<'_>)],
) -> Rows {
    let n = t.n;
    let row_col = |col: i32| col == ROWID || (col >= 0 && t.row_alias[col as usize]);
    if let Some(k) = eq {
        if row_col(plan.eq) {
            return match k {
                V::Int(r) if r >= 0 && (r as usize) < n => Rows::Range(r as usize, r as usize + 1),
                V::Real(r) if r.fract() == 0.0 && r >= 0.0 && (r as usize) < n => {
                    Rows::Range(r as usize, r as usize + 1)
                }
                _ => Rows::Range(0, 0),
            };
        }
        let col = plan.eq as usize;
        if let (Some(k2), true) = (eq2, plan.eq2 >= 0) {
            // both equalities from the (col, col2, ts) index: the rows of
            // the two values are one run, in ts order
            let col2 = plan.eq2 as usize;
            let ix = t.grouped_index(col, col2);
            let perm = &ix.perm;
            let at = |c: usize| move |i: usize| t.get(c, perm[i] as usize);
            let (lo, hi) = narrow(0, n, &[(b'G', k), (b'L', k)], at(col));
            let (lo, hi) = narrow(lo, hi, &[(b'G', k2), (b'L', k2)], at(col2));
            let (lo, hi) = match plan.range {
                r if r >= 0 => narrow(lo, hi, bounds, at(r as usize)),
                _ => (lo, hi),
            };
            return Rows::Perm(ix, lo, hi);
        }
        if plan.then == NONE && t.scan_allowed(col) {
            if let Some(key) = t.eq_key(col, k) {
                // no index yet: the rows in the ts range, in row order,
                // those whose value equals the key (`ColumnCursor::skip_unequal`)
                let (lo, hi) = match plan.range {
                    r if r >= 0 => narrow(0, n, bounds, |i| t.get(r as usize, i)),
                    _ => (0, n),
                };
                return match key {
                    Some(key) => Rows::Scan(col, key, lo, hi),
                    None => Rows::Range(0, 0),
                };
            }
        }
        let ix = match plan.then {
            NONE => t.index(col),
            then => t.grouped_index(col, then as usize),
        };
        let (lo, hi) = narrow(0, n, &[(b'G', k), (b'L', k)], |i| {
            t.get(col, ix.perm[i] as usize)
        });
        let (lo, hi) = match plan.range {
            // grouped: ts is not the secondary order; checked per row
            r if r >= 0 && plan.then == NONE => {
                let r = r as usize;
                narrow(lo, hi, bounds, |i| t.get(r, ix.perm[i] as usize))
            }
            _ => (lo, hi),
        };
        return Rows::Perm(ix, lo, hi);
    }
    if plan.then >= 0 {
        // an ordered scan: the column's index read whole
        return Rows::Perm(t.index(plan.then as usize), 0, n);
    }
    match plan.range {
        NONE => Rows::Range(0, n),
        r if row_col(r) => {
            let (lo, hi) = narrow(0, n, bounds, |i| V::Int(i as i64));
            Rows::Range(lo, hi)
        }
        r if t.sorted[r as usize] => {
            let r = r as usize;
            let (lo, hi) = narrow(0, n, bounds, |i| t.get(r, i));
            Rows::Range(lo, hi)
        }
        r => {
            let r = r as usize;
            let ix = t.index(r);
            let (lo, hi) = narrow(0, n, bounds, |i| t.get(r, ix.perm[i] as usize));
            Rows::Perm(ix, lo, hi)
        }
    }
}

/// Every row in the order an equality plan promised, (ts, row).
fn everything(t: &Arc<Table>, plan: &Plan) -> Rows {
    match t.ts_col {
        Some(ts) if plan.eq != NONE && !t.sorted[ts] => Rows::Perm(t.index(ts), 0, t.n),
        _ => Rows::Range(0, t.n),
    }
}

unsafe impl VTabCursor for ColumnCursor {
    fn filter(
        &mut self,
        _idx_num: c_int,
        idx_str: Option<&str>,
        args: &Values<'_>,
    ) -> rusqlite::Result<()> {
        self.filters += 1;
        self.charge_scan();
        let t = self.table.clone();
        self.pos = 0;
        self.desc = false;
        self.rows = Rows::Range(0, t.n);
        let Some(plan) = idx_str.and_then(Plan::decode) else {
            return Ok(());
        };
        let mut vals: Vec<ValueRef<'_>> = args.iter().collect();
        self.window = None;
        self.post = None;
        self.desc = plan.desc;
        if plan.post != NONE {
            let post_vals = vals.split_off(vals.len().saturating_sub(plan.post_ops.len()));
            match post_bounds(&plan.post_ops, &post_vals) {
                None => {
                    self.rows = Rows::Range(0, 0);
                    return Ok(());
                }
                Some((lo, hi)) => self.post = Some((plan.post as usize, lo, hi)),
            }
        }
        self.rows = match lookup(&t, &plan, &vals) {
            Lookup::Nothing => Rows::Range(0, 0),
            // grouped: the ts bounds are checked per row
            Lookup::Keys(eq, eq2, bounds) if plan.then != NONE && plan.range >= 0 => {
                match window(&bounds) {
                    None => Rows::Range(0, 0),
                    Some((lo, hi)) => {
                        self.window = Some((plan.range as usize, lo, hi));
                        rows_for(&t, &plan, eq, eq2, &bounds)
                    }
                }
            }
            Lookup::Keys(eq, eq2, bounds) => rows_for(&t, &plan, eq, eq2, &bounds),
            Lookup::Everything => everything(&t, &plan),
        };
        self.skip_to_match();
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.steps += 1;
        self.pos += 1;
        self.skip_to_match();
        // index order jumps across the table: fetch a row a few steps ahead
        let ahead = self.pos + PREFETCH_AHEAD;
        if matches!(self.rows, Rows::Perm(..)) && ahead < self.len() {
            self.table.prefetch(self.row_at(ahead));
        }
        Ok(())
    }

    fn eof(&self) -> bool {
        self.pos >= self.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        self.cells.set(self.cells.get() + 1);
        let v = self.table.get(i as usize, self.row());
        ctx.set_result(&v)
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.row() as i64)
    }
}

#[cfg(test)]
mod tests {
    use crate::columns::{Stored, Table};
    use crate::session::Session;

    /// A lookup by a column without an index scans the table in row order
    /// until its scans have read about twice the table's rows (`SCAN_BUDGET`),
    /// then builds the index. A scan's rows count whichever check passed over
    /// them: here each key matches a quarter of the rows and `dur <= 0`
    /// rejects all of those but one, so each lookup reads the whole table
    /// to find one row. Two lookups exhaust the budget: the third builds the
    /// index, which planning then knows of (`known_distinct`).
    #[test]
    fn scans_rejected_by_post_bounds_count_toward_the_index() {
        let n = 10_000i64;
        let table = Table::new(
            "sched",
            &[
                ("id", "INTEGER", None),
                ("ts", "INTEGER", None),
                ("dur", "INTEGER", None),
                ("utid", "INTEGER", None),
            ],
            vec![
                Stored::row_number(),
                Stored::int((0..n).map(|i| 10 * i).collect()),
                // one empty slice per utid, at its last row
                Stored::int((0..n).map(|i| if i >= n - 4 { 0 } else { 5 }).collect()),
                Stored::int((0..n).map(|i| i % 4).collect()),
            ],
        );
        let session = Session::open(vec![table], (0, 10 * n)).expect("a session");
        let sched = session.catalog.get("sched").expect("the table").clone();
        let utid = 3;
        let empty = |u: i64| {
            let sql = format!("SELECT count(*) FROM sched WHERE utid = {u} AND dur <= 0");
            let (_, cols) = session.execute(&sql).expect("the query");
            match cols[0].cells[0] {
                crate::session::OutCell::Int(c) => c,
                _ => panic!("a count"),
            }
        };
        for u in 0..2 {
            assert_eq!(empty(u), 1);
            assert!(
                sched.known_distinct(utid).is_none(),
                "index built by lookup {u}"
            );
        }
        assert_eq!(empty(2), 1);
        assert_eq!(sched.known_distinct(utid), Some(4));
    }
}
