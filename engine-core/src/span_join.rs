//! trace_processor's SPAN_JOIN operators as SQLite virtual tables:
//! `CREATE VIRTUAL TABLE t USING SPAN_JOIN(a [PARTITIONED col], b
//! [PARTITIONED col])`, and SPAN_LEFT_JOIN / SPAN_OUTER_JOIN.
//!
//! The rows are the intersections of the two tables' spans (ts, dur), per
//! partition when partitioned: columns ts, dur, the partition column, then
//! each table's other columns. A left join also keeps the first table's
//! spans (or their parts) that meet none of the second's, with the
//! second's columns NULL; an outer join keeps both sides' so.
//!
//! This is a port of trace_processor v58.2's cursor
//! (plugins/span_join_operator/span_join_operator.cc): each table is read
//! in (partition, ts) order as a sequence of real spans and "shadows" (the
//! gaps: before, between and after its spans within a partition, and the
//! partitions it lacks), and the two sequences are walked together, always
//! advancing the one that ends first, emitting every overlap of which one
//! side is real. Differences: constraints are not pushed into the two
//! tables' queries (SQLite filters the rows), and the tables are read again
//! on every scan, as there.

use std::os::raw::c_int;

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::vtab::{
    Context, CreateVTab, IndexInfo, VTab, VTabConnection, VTabCursor, VTabKind, Values,
};
use rusqlite::Connection;

/// Which operator a module is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Outer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Partitioning {
    None,
    /// both tables, on the same column
    Same,
    /// one table is partitioned: the other's spans apply in every partition
    Mixed,
}

/// Which shadows of a table the join emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shadows {
    None,
    /// gaps within partitions the table has
    PresentPartitionOnly,
    /// and the partitions it lacks
    All,
}

/// One table of the join: its columns and where ts / dur / the partition are.
#[derive(Debug, Clone)]
struct Side {
    name: String,
    partition_col: Option<String>,
    cols: Vec<String>,
    ts_idx: usize,
    dur_idx: Option<usize>,
    partition_idx: Option<usize>,
    shadows: Shadows,
}

impl Side {
    /// `table [PARTITIONED column]`, the table's columns read from `conn`.
    fn parse(conn: &Connection, descriptor: &str) -> Result<Side, String> {
        let mut words = descriptor.split_whitespace();
        let name = words
            .next()
            .ok_or("SPAN_JOIN: Missing table name")?
            .to_owned();
        let partition_col = match words.next() {
            None => None,
            Some(w) if w.eq_ignore_ascii_case("PARTITIONED") => Some(
                words
                    .next()
                    .ok_or("SPAN_JOIN: Missing partitioning column")?
                    .to_owned(),
            ),
            Some(_) => return Err("SPAN_JOIN: Invalid token".into()),
        };
        if matches!(partition_col.as_deref(), Some("ts" | "dur")) {
            return Err(format!(
                "SPAN_JOIN: partition column cannot be any of {{ts, dur}} for table {name}"
            ));
        }
        let stmt = conn
            .prepare(&format!("SELECT * FROM {name} LIMIT 0"))
            .map_err(|e| e.to_string())?;
        let cols: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let find = |c: &str| cols.iter().position(|x| x == c);
        let ts_idx = find("ts").ok_or(format!("SPAN_JOIN: Missing ts column in table {name}"))?;
        let partition_idx = match &partition_col {
            Some(p) => Some(find(p).ok_or(format!(
                "SPAN_JOIN: Missing partition column '{p}' in table '{name}'"
            ))?),
            None => None,
        };
        Ok(Side {
            dur_idx: find("dur"),
            name,
            partition_col,
            cols,
            ts_idx,
            partition_idx,
            shadows: Shadows::None,
        })
    }

    /// Columns other than ts, dur and the partition (the join's own columns).
    fn other_cols(&self) -> impl Iterator<Item = (usize, &String)> {
        self.cols.iter().enumerate().filter(move |(_, c)| {
            *c != "ts" && *c != "dur" && Some(c.as_str()) != self.partition_col.as_deref()
        })
    }

    /// The table's rows in (partition, ts) order, rows of a NULL partition
    /// left out: (ts, dur, partition, every column's value).
    fn read(&self, conn: &Connection) -> rusqlite::Result<Vec<SpanRow>> {
        let cols: Vec<String> = self.cols.iter().map(|c| format!("`{c}`")).collect();
        let order = match &self.partition_col {
            Some(p) => format!("`{p}`, ts"),
            None => "ts".into(),
        };
        let sql = format!(
            "SELECT {} FROM {} ORDER BY {order}",
            cols.join(", "),
            self.name
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        let int = |v: &Value| match v {
            Value::Integer(i) => *i,
            Value::Real(r) => *r as i64,
            _ => 0,
        };
        while let Some(row) = rows.next()? {
            let values: Vec<Value> = (0..self.cols.len())
                .map(|i| row.get::<_, Value>(i))
                .collect::<rusqlite::Result<_>>()?;
            let partition = match self.partition_idx.map(|i| &values[i]) {
                None => 0,
                Some(Value::Null) => continue,
                Some(Value::Integer(p)) => *p,
                Some(_) => {
                    return Err(rusqlite::Error::ModuleError(
                        "SPAN_JOIN: partition is not an INT column".into(),
                    ))
                }
            };
            out.push(SpanRow {
                ts: int(&values[self.ts_idx]),
                dur: self.dur_idx.map_or(0, |i| int(&values[i])),
                partition,
                values,
            });
        }
        Ok(out)
    }
}

#[derive(Debug, Clone)]
struct SpanRow {
    ts: i64,
    dur: i64,
    partition: i64,
    values: Vec<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Real,
    PresentPartitionShadow,
    MissingPartitionShadow,
    Eof,
}

/// One table's walk through its spans and shadows (trace_processor's
/// SpanJoinOperatorModule::Query).
#[derive(Debug, Clone)]
struct Query {
    partitioned: bool,
    shadows: Shadows,
    /// the row the cursor is on (rows.len(): past the end)
    cursor: usize,
    state: State,
    ts: i64,
    ts_end: i64,
    partition: i64,
    missing_partition_start: i64,
    missing_partition_end: i64,
}

impl Query {
    fn new(side: &Side) -> Query {
        Query {
            partitioned: side.partition_col.is_some(),
            shadows: side.shadows,
            cursor: 0,
            state: State::MissingPartitionShadow,
            ts: 0,
            ts_end: i64::MAX,
            partition: i64::MIN,
            missing_partition_start: 0,
            missing_partition_end: 0,
        }
    }

    fn eof(&self) -> bool {
        self.state == State::Eof
    }

    fn real(&self) -> bool {
        self.state == State::Real
    }

    fn first_partition(&self) -> i64 {
        if self.state == State::MissingPartitionShadow {
            self.missing_partition_start
        } else {
            self.partition
        }
    }

    fn last_partition(&self) -> i64 {
        if self.state == State::MissingPartitionShadow {
            self.missing_partition_end.wrapping_sub(1)
        } else {
            self.partition
        }
    }

    /// The span's end, a span of dur -1 (unfinished) ending where it starts.
    fn adjusted_ts_end(&self) -> i64 {
        if self.ts_end.wrapping_sub(self.ts) == -1 {
            self.ts
        } else {
            self.ts_end
        }
    }

    fn initialize(&mut self, rows: &[SpanRow], missing_shadow_at_eof: bool) {
        self.rewind(rows);
        if missing_shadow_at_eof && self.eof() {
            self.state = State::MissingPartitionShadow;
        }
    }

    fn rewind(&mut self, rows: &[SpanRow]) {
        self.cursor = 0;
        self.state = State::MissingPartitionShadow;
        self.ts = 0;
        self.ts_end = i64::MAX;
        self.missing_partition_start = i64::MIN;
        self.missing_partition_end = match rows.first() {
            None => i64::MAX,
            Some(r) if self.partitioned => r.partition,
            Some(_) => i64::MIN,
        };
        self.find_next_valid(rows);
    }

    fn next(&mut self, rows: &[SpanRow]) {
        self.next_state(rows);
        self.find_next_valid(rows);
    }

    fn valid(&self) -> bool {
        let empty_shadow = (!self.real() && self.ts == self.ts_end)
            || (self.state == State::MissingPartitionShadow
                && self.missing_partition_start == self.missing_partition_end);
        match self.state {
            State::PresentPartitionShadow if self.shadows == Shadows::None => false,
            State::MissingPartitionShadow if self.shadows != Shadows::All => false,
            _ => !empty_shadow,
        }
    }

    fn find_next_valid(&mut self, rows: &[SpanRow]) {
        while !self.eof() && !self.valid() {
            self.next_state(rows);
        }
    }

    fn next_state(&mut self, rows: &[SpanRow]) {
        let at = |q: &Query| rows.get(q.cursor);
        match self.state {
            State::Real => {
                self.cursor += 1;
                let shadow_to_end = match at(self) {
                    None => true,
                    Some(r) => self.partitioned && self.partition != r.partition,
                };
                self.state = State::PresentPartitionShadow;
                self.ts = self.adjusted_ts_end();
                self.ts_end = if shadow_to_end {
                    i64::MAX
                } else {
                    at(self).unwrap().ts
                };
            }
            State::PresentPartitionShadow => {
                if self.ts_end == i64::MAX {
                    self.state = State::MissingPartitionShadow;
                    self.ts = 0;
                    self.ts_end = i64::MAX;
                    self.missing_partition_start = self.partition.wrapping_add(1);
                    self.missing_partition_end = at(self).map_or(i64::MAX, |r| r.partition);
                } else {
                    let r = at(self).expect("a next span in the partition");
                    self.state = State::Real;
                    self.ts = r.ts;
                    self.ts_end = r.ts.wrapping_add(r.dur);
                }
            }
            State::MissingPartitionShadow => {
                if self.missing_partition_end == i64::MAX {
                    self.state = State::Eof;
                } else {
                    let r = at(self).expect("a next span");
                    self.state = State::PresentPartitionShadow;
                    self.ts = 0;
                    self.ts_end = r.ts;
                    self.partition = self.missing_partition_end;
                }
            }
            State::Eof => {}
        }
    }
}

/// The join's spec: both sides, as they were when the table was created.
#[derive(Debug, Clone)]
pub struct SpanJoin {
    kind: JoinKind,
    partitioning: Partitioning,
    t1: Side,
    t2: Side,
}

/// One output row: ts, dur, partition, and each side's current span.
struct OutRow {
    ts: i64,
    dur: i64,
    partition: i64,
    t1: Option<usize>,
    t2: Option<usize>,
}

impl SpanJoin {
    fn new(kind: JoinKind, mut t1: Side, mut t2: Side) -> Result<SpanJoin, String> {
        let partitioning = match (&t1.partition_col, &t2.partition_col) {
            (a, b) if a == b => {
                if a.is_some() {
                    Partitioning::Same
                } else {
                    Partitioning::None
                }
            }
            (Some(a), Some(b)) => {
                return Err(format!(
                    "SPAN_JOIN: mismatching partitions between the two tables; (partition {a} \
                     in table {}, partition {b} in table {})",
                    t1.name, t2.name
                ))
            }
            _ => Partitioning::Mixed,
        };
        let shadows_of = |side: &Side, emits: bool| {
            if !emits {
                Shadows::None
            } else if partitioning == Partitioning::None
                || (partitioning == Partitioning::Mixed && side.partition_col.is_some())
            {
                Shadows::PresentPartitionOnly
            } else {
                Shadows::All
            }
        };
        t1.shadows = shadows_of(&t1, kind == JoinKind::Outer);
        t2.shadows = shadows_of(&t2, kind != JoinKind::Inner);
        if t1.dur_idx.is_none() && t2.dur_idx.is_none() {
            return Err(format!(
                "SPAN_JOIN: column dur must be present in at least one of tables {} and {}",
                t1.name, t2.name
            ));
        }
        let partition_col = t1.partition_col.clone().or(t2.partition_col.clone());
        for (_, c) in t1.other_cols() {
            let special = partitioning != Partitioning::None && Some(c) == partition_col.as_ref();
            if special || t2.other_cols().any(|(_, d)| d == c) {
                return Err(format!(
                    "SPAN_JOIN: column {c} present in both tables {} and {}",
                    t1.name, t2.name
                ));
            }
        }
        Ok(SpanJoin {
            kind,
            partitioning,
            t1,
            t2,
        })
    }

    fn partition_col(&self) -> Option<&str> {
        self.t1
            .partition_col
            .as_deref()
            .or(self.t2.partition_col.as_deref())
    }

    /// The virtual table's schema.
    fn schema(&self) -> String {
        let mut cols = vec!["ts BIGINT".to_owned(), "dur BIGINT".to_owned()];
        if let Some(p) = self.partition_col() {
            cols.push(format!("`{p}` BIGINT"));
        }
        for side in [&self.t1, &self.t2] {
            cols.extend(side.other_cols().map(|(_, c)| format!("`{c}`")));
        }
        format!("CREATE TABLE x({})", cols.join(", "))
    }

    /// Every output row (the cursor's walk, trace_processor's Filter and
    /// Next until eof).
    fn rows(&self, r1: &[SpanRow], r2: &[SpanRow]) -> Vec<OutRow> {
        let mut t1 = Query::new(&self.t1);
        let mut t2 = Query::new(&self.t2);
        let mixed = self.partitioning == Partitioning::Mixed;
        let outer = self.kind == JoinKind::Outer;
        t1.initialize(r1, outer && !(mixed && t1.partitioned));
        t2.initialize(
            r2,
            self.kind != JoinKind::Inner && !(mixed && t2.partitioned),
        );
        let mut last_mixed_partition = i64::MIN;
        let mut out = Vec::new();
        loop {
            // FindOverlappingSpan: step the side that ends first until the
            // two overlap
            let mut next_is_t1 = true;
            loop {
                if mixed {
                    let (part, unpart, rows_unpart) = if t1.partitioned {
                        (&t1, &mut t2, r2)
                    } else {
                        (&t2, &mut t1, r1)
                    };
                    if part.eof() {
                        break;
                    }
                    if last_mixed_partition != part.partition {
                        unpart.rewind(rows_unpart);
                        last_mixed_partition = part.partition;
                    }
                } else if t1.eof() || t2.eof() {
                    break;
                }
                next_is_t1 = self.t1_finishes_first(&t1, &t2, last_mixed_partition);
                if self.overlapping(&t1, &t2) {
                    break;
                }
                if next_is_t1 {
                    t1.next(r1);
                } else {
                    t2.next(r2);
                }
            }
            if t1.eof() || t2.eof() {
                return out;
            }
            let ts = t1.ts.max(t2.ts);
            let partition = match self.partitioning {
                Partitioning::Mixed => last_mixed_partition,
                _ if t1.real() => t1.partition,
                _ => t2.partition,
            };
            out.push(OutRow {
                ts,
                dur: t1.ts_end.min(t2.ts_end).wrapping_sub(ts),
                partition,
                t1: t1.real().then_some(t1.cursor),
                t2: t2.real().then_some(t2.cursor),
            });
            if next_is_t1 {
                t1.next(r1);
            } else {
                t2.next(r2);
            }
        }
    }

    fn overlapping(&self, t1: &Query, t2: &Query) -> bool {
        if t1.eof() || t2.eof() || (!t1.real() && !t2.real()) {
            return false;
        }
        if self.partitioning == Partitioning::Same {
            let within = |a: &Query, b: &Query| {
                a.first_partition() >= b.first_partition()
                    && a.first_partition() <= b.last_partition()
            };
            if !within(t1, t2) && !within(t2, t1) {
                return false;
            }
        }
        (t1.ts == t2.ts && t1.real() && t2.real())
            || (t1.ts >= t2.ts && t1.ts < t2.adjusted_ts_end())
            || (t2.ts >= t1.ts && t2.ts < t1.adjusted_ts_end())
    }

    /// Whether t1 is the side to step: the earlier (partition, end, shadow
    /// before real).
    fn t1_finishes_first(&self, t1: &Query, t2: &Query, mixed_partition: i64) -> bool {
        let (p1, p2) = match self.partitioning {
            Partitioning::Mixed => {
                if t1.eof() {
                    return false;
                }
                if t2.eof() {
                    return true;
                }
                (mixed_partition, mixed_partition)
            }
            Partitioning::Same => (t1.last_partition(), t2.last_partition()),
            Partitioning::None => (0, 0),
        };
        (p1, t1.adjusted_ts_end(), t1.real()) < (p2, t2.adjusted_ts_end(), t2.real())
    }
}

/// The module's client data: which operator it is.
pub type SpanJoinAux = JoinKind;

#[repr(C)]
pub struct SpanJoinTab {
    /// must be first
    base: rusqlite::vtab::sqlite3_vtab,
    db: *mut rusqlite::ffi::sqlite3,
    join: SpanJoin,
}

unsafe impl<'vtab> VTab<'vtab> for SpanJoinTab {
    type Aux = SpanJoinAux;
    type Cursor = SpanJoinCursor<'vtab>;

    fn connect(
        db: &mut VTabConnection,
        aux: Option<&SpanJoinAux>,
        args: &[&[u8]],
    ) -> rusqlite::Result<(String, Self)> {
        let err = |m: String| rusqlite::Error::ModuleError(m);
        if args.len() != 5 {
            return Err(err("SPAN_JOIN: expected exactly two arguments".into()));
        }
        // SAFETY: the connection creating the table outlives it; queries on
        // it from inside a virtual table's methods are allowed by SQLite.
        let handle = unsafe { db.handle() };
        let conn = unsafe { Connection::from_handle(handle) }?;
        let arg = |i: usize| String::from_utf8_lossy(args[i]).trim().to_owned();
        let t1 = Side::parse(&conn, &arg(3)).map_err(err)?;
        let t2 = Side::parse(&conn, &arg(4)).map_err(err)?;
        let join = SpanJoin::new(aux.copied().unwrap_or(JoinKind::Inner), t1, t2).map_err(err)?;
        Ok((
            join.schema(),
            SpanJoinTab {
                base: rusqlite::vtab::sqlite3_vtab::default(),
                db: handle,
                join,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<()> {
        // every row, in (partition, ts) order; SQLite applies the constraints
        info.set_estimated_cost(1e6);
        Ok(())
    }

    fn open(&'vtab mut self) -> rusqlite::Result<SpanJoinCursor<'vtab>> {
        Ok(SpanJoinCursor {
            base: rusqlite::vtab::sqlite3_vtab_cursor::default(),
            tab: self,
            r1: Vec::new(),
            r2: Vec::new(),
            rows: Vec::new(),
            pos: 0,
        })
    }
}

impl CreateVTab<'_> for SpanJoinTab {
    const KIND: VTabKind = VTabKind::Default;
}

#[repr(C)]
pub struct SpanJoinCursor<'vtab> {
    /// must be first
    base: rusqlite::vtab::sqlite3_vtab_cursor,
    tab: &'vtab SpanJoinTab,
    r1: Vec<SpanRow>,
    r2: Vec<SpanRow>,
    rows: Vec<OutRow>,
    pos: usize,
}

unsafe impl VTabCursor for SpanJoinCursor<'_> {
    fn filter(&mut self, _: c_int, _: Option<&str>, _: &Values<'_>) -> rusqlite::Result<()> {
        // SAFETY: see `connect`
        let conn = unsafe { Connection::from_handle(self.tab.db) }?;
        let join = &self.tab.join;
        self.r1 = join.t1.read(&conn)?;
        self.r2 = join.t2.read(&conn)?;
        self.rows = join.rows(&self.r1, &self.r2);
        self.pos = 0;
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.pos += 1;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.pos >= self.rows.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let join = &self.tab.join;
        let row = &self.rows[self.pos];
        let mut i = i as usize;
        if i < 2 {
            return ctx.set_result(&[row.ts, row.dur][i]);
        }
        if join.partition_col().is_some() {
            if i == 2 {
                return ctx.set_result(&row.partition);
            }
            i -= 1;
        }
        i -= 2;
        for (side, rows, at) in [(&join.t1, &self.r1, row.t1), (&join.t2, &self.r2, row.t2)] {
            let cols: Vec<usize> = side.other_cols().map(|(k, _)| k).collect();
            if i < cols.len() {
                let v = at.map_or(ValueRef::Null, |r| ValueRef::from(&rows[r].values[cols[i]]));
                return ctx.set_result(&ToSqlOutput::Borrowed(v));
            }
            i -= cols.len();
        }
        ctx.set_result(&ToSqlOutput::Borrowed(ValueRef::Null))
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.pos as i64)
    }
}

/// Registers SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN on `conn`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    for (name, kind) in [
        ("span_join", JoinKind::Inner),
        ("span_left_join", JoinKind::Left),
        ("span_outer_join", JoinKind::Outer),
    ] {
        conn.create_module(
            name,
            rusqlite::vtab::read_only_module::<SpanJoinTab>(),
            Some(kind),
        )?;
    }
    Ok(())
}
