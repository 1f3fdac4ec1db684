//! Slices on tracks: per-track stacks giving depth and parent_id, instants
//! (dur 0) popped once they are over, begin/end matching (importers/common/
//! slice_tracker.cc).

use rustc_hash::FxHashMap as HashMap;

use crate::trackers::core::tracks::ArgVal;
use crate::trackers::Ctx;

pub const MAX_SLICE_DEPTH: usize = 512;

pub struct SliceRow {
    pub ts: i64,
    pub dur: i64,
    pub track: u32,
    pub name: String,
    /// slice.category (set by the trackers that have one, e.g. "binder",
    /// or a track event's categories)
    pub category: Option<std::borrow::Cow<'static, str>>,
    /// slice.name is NULL (a track event without a name): `name` is empty
    pub null_name: bool,
    pub depth: i64,
    pub parent: Option<u32>,
    pub arg_set: Option<i64>,
}

#[derive(Default)]
pub struct SliceTracker {
    pub rows: Vec<SliceRow>,
    stacks: HashMap<u32, Vec<u32>>,
    /// open slices truncated by the end of a complete slice below them
    /// (trace_processor's misplaced_end_event; `finish` counts them)
    misplaced_end_events: i64,
    /// complete slices dropped for partially overlapping one on their track
    /// (`finish` logs them: slice_drop_overlapping_complete_event)
    dropped_overlaps: Vec<Overlap>,
    /// slices dropped for nesting deeper than MAX_SLICE_DEPTH: (ts, the
    /// innermost open slice's name, theirs); `finish` logs them
    /// (slice_max_depth_exceeded)
    dropped_too_deep: Vec<(i64, String, String)>,
    /// row -> thread time and instruction counts, of the slices that have any
    pub thread_times: HashMap<u32, ThreadTimes>,
    /// legacy flow v1 ids waiting for the next slice begun on a track
    /// (FlowTracker's pending flows, bound when a slice is pushed)
    pub pending_flows: HashMap<u32, Vec<u64>>,
    /// (flow id, slice): pending flows a slice reached, for the flow tracker
    pub reached_flows: Vec<(u64, u32)>,
}

/// A slice's thread_ts / thread_dur / thread_instruction_count /
/// thread_instruction_delta columns.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadTimes {
    pub ts: Option<i64>,
    pub dur: Option<i64>,
    pub instruction_count: Option<i64>,
    pub instruction_delta: Option<i64>,
}

/// A new complete slice `[start, start + its dur)` that starts inside the
/// complete slice `name` `[ts, ts + dur)` and ends after it, so `[start,
/// end)` is ambiguous (SliceTracker's OverlapInfo).
struct Overlap {
    start: i64,
    end: i64,
    name: String,
    ts: i64,
    dur: i64,
}

/// The end of the import: the slices' stat (misplaced_end_event) and the
/// import logs of the slices dropped (too deep, overlapping), as
/// trace_processor's SliceTracker records them.
pub fn finish(c: &mut Ctx) {
    use crate::trackers::core::import_logs::ImportLog;
    if c.slices.misplaced_end_events > 0 {
        let n = c.slices.misplaced_end_events;
        c.stats.add("misplaced_end_event", n, None);
    }
    for (ts, parent, name) in std::mem::take(&mut c.slices.dropped_too_deep) {
        let args = vec![
            ("parent_slice_name", Some(ArgVal::Str(parent))),
            ("current_slice_name", Some(ArgVal::Str(name))),
        ];
        ImportLog::record(c, ts, "slice_max_depth_exceeded", args);
    }
    for o in std::mem::take(&mut c.slices.dropped_overlaps) {
        let args = vec![
            ("overlap_start", Some(ArgVal::Int(o.start as i128))),
            ("overlap_end", Some(ArgVal::Int(o.end as i128))),
            ("conflicting_slice_name", Some(ArgVal::Str(o.name))),
            ("conflicting_slice_ts", Some(ArgVal::Int(o.ts as i128))),
            ("conflicting_slice_dur", Some(ArgVal::Int(o.dur as i128))),
        ];
        ImportLog::record(c, o.start, "slice_drop_overlapping_complete_event", args);
    }
}

/// Args given to slices while they are open (SliceTracker::AddArgs, an
/// End's args): per slice, a key given again takes its new value in place
/// (the reference's args inserter collapses same-key args, the last value
/// kept). The sets are made once every arg is known (`commit`).
#[derive(Default)]
pub struct PendingSliceArgs {
    /// slice rows, each with its args so far
    rows: Vec<(u32, Vec<(ArgKey, ArgVal)>)>,
    index: HashMap<u32, usize>,
}

/// An arg's key: most are literals, some numbered (`args[3]`).
pub type ArgKey = std::borrow::Cow<'static, str>;

impl PendingSliceArgs {
    pub fn add<K: Into<ArgKey>>(&mut self, row: u32, items: impl IntoIterator<Item = (K, ArgVal)>) {
        let i = *self.index.entry(row).or_insert_with(|| {
            self.rows.push((row, Vec::new()));
            self.rows.len() - 1
        });
        let args = &mut self.rows[i].1;
        for (key, value) in items {
            let key = key.into();
            match args.iter_mut().find(|(k, _)| *k == key) {
                Some(arg) => arg.1 = value,
                None => args.push((key, value)),
            }
        }
    }

    /// Each slice's arg set, in order of the slices' first args.
    pub fn commit(self, c: &mut Ctx) {
        for (row, items) in self.rows {
            if items.is_empty() {
                continue;
            }
            let list: Vec<(ArgKey, Option<ArgVal>)> =
                items.into_iter().map(|(k, v)| (k, Some(v))).collect();
            c.slices.rows[row as usize].arg_set = Some(c.args.add_set(&list));
        }
    }
}

impl SliceTracker {
    /// Opens a slice (dur -1) or adds an instant (dur 0) on `track`;
    /// returns its row, None when it was dropped (too deep).
    pub fn begin(
        &mut self,
        track: u32,
        ts: i64,
        name: String,
        dur: i64,
        arg_set: Option<i64>,
    ) -> Option<u32> {
        if let Some(overlap) = self.close_stack(track, ts, dur) {
            self.dropped_overlaps.push(overlap);
            return None;
        }
        let stack = self.stacks.entry(track).or_default();
        let depth = stack.len();
        if depth >= MAX_SLICE_DEPTH {
            let parent = stack
                .last()
                .map_or("", |&p| self.rows[p as usize].name.as_str());
            self.dropped_too_deep.push((ts, parent.to_owned(), name));
            return None;
        }
        let parent = stack.last().copied();
        let sid = self.rows.len() as u32;
        self.rows.push(SliceRow {
            ts,
            dur,
            track,
            name,
            category: None,
            null_name: false,
            depth: depth as i64,
            parent,
            arg_set,
        });
        stack.push(sid);
        if !self.pending_flows.is_empty() {
            if let Some(ids) = self.pending_flows.remove(&track) {
                self.reached_flows
                    .extend(ids.into_iter().map(|id| (id, sid)));
            }
        }
        Some(sid)
    }

    /// As `begin`, a slice of `category`.
    pub fn begin_in(
        &mut self,
        category: &'static str,
        track: u32,
        ts: i64,
        name: String,
        dur: i64,
        arg_set: Option<i64>,
    ) -> Option<u32> {
        let row = self.begin(track, ts, name, dur, arg_set)?;
        self.rows[row as usize].category = Some(std::borrow::Cow::Borrowed(category));
        Some(row)
    }

    /// Closes the innermost open slice on `track` if there is one; returns
    /// its row. An end with nothing open is ignored, uncounted, as
    /// trace_processor's SliceTracker::End ignores it.
    pub fn end(&mut self, track: u32, ts: i64) -> Option<u32> {
        self.complete(track, ts, None, None)
    }

    /// Closes the innermost open slice of `category` on `track` (as
    /// trace_processor's SliceTracker::End given a category: slices opened
    /// above it stay open); returns its row.
    pub fn end_category(&mut self, track: u32, ts: i64, category: &str) -> Option<u32> {
        self.complete(track, ts, Some(category), None)
    }

    /// Closes the innermost open slice on `track` of `category` and named
    /// `name`, each only if given (SliceTracker::End with a null category
    /// or name matching any).
    pub fn end_matching(
        &mut self,
        track: u32,
        ts: i64,
        category: Option<&str>,
        name: Option<&str>,
    ) -> Option<u32> {
        self.complete(track, ts, category, name)
    }

    /// The innermost slice still open on `track` of `category` and named
    /// `name` (MatchingIncompleteSliceIndex, as SliceTracker::AddArgs finds
    /// the slice it gives args to).
    pub fn open_matching(&self, track: u32, category: &str, name: &str) -> Option<u32> {
        let stack = self.stacks.get(&track)?;
        stack.iter().rev().copied().find(|&r| {
            let row = &self.rows[r as usize];
            row.dur == -1
                && row.category.as_deref() == Some(category)
                && (row.null_name || row.name == name)
        })
    }

    /// The innermost open slice on `track` (GetTopmostSliceOnTrack).
    pub fn topmost_open(&self, track: u32) -> Option<u32> {
        self.stacks.get(&track)?.last().copied()
    }

    /// SliceTracker::CompleteSliceBegin / Finalize: the stack closed up to
    /// `ts`, then the innermost open slice (of `category` and named `name`,
    /// if given) ends; it leaves the stack only if it is on top (else with
    /// what is above it).
    fn complete(
        &mut self,
        track: u32,
        ts: i64,
        category: Option<&str>,
        name: Option<&str>,
    ) -> Option<u32> {
        self.close_stack(track, ts, -1);
        let stack = self.stacks.get_mut(&track)?;
        let rows = &mut self.rows;
        let at = stack.iter().rposition(|&r| {
            let row = &rows[r as usize];
            row.dur == -1
                && category.map_or(true, |c| row.category.as_deref() == Some(c))
                && name.map_or(true, |n| row.null_name || row.name == n)
        })?;
        let top = stack[at];
        let row = &mut rows[top as usize];
        row.dur = ts - row.ts;
        if at + 1 == stack.len() {
            stack.pop();
        }
        Some(top)
    }

    /// SliceTracker::MaybeCloseStack before an event at `ts` (a slice of
    /// `new_dur`, -1 open): complete slices that ended are popped (one
    /// ending exactly at `ts` too, unless both are instants); a complete
    /// slice with open slices above it that ended before `ts` truncates
    /// them to its end, counting misplaced_end_event. (Its check for a
    /// complete slice that the new complete slice starts inside and
    /// outlasts is returned: the new one is dropped.)
    fn close_stack(&mut self, track: u32, ts: i64, new_dur: i64) -> Option<Overlap> {
        let stack = self.stacks.get_mut(&track)?;
        let mut open_above = false;
        let mut i = stack.len();
        // (every pop below leaves `i` inside the stack)
        while i > 0 {
            i -= 1;
            let row = &self.rows[stack[i] as usize];
            if row.dur == -1 {
                open_above = true;
                continue;
            }
            let end = row.ts + row.dur;
            if open_above {
                if ts <= end {
                    continue;
                }
                self.misplaced_end_events += 1;
                for &child in &stack[i + 1..] {
                    let child = &mut self.rows[child as usize];
                    child.dur = end - child.ts;
                }
                stack.truncate(i);
                open_above = false;
                continue;
            }
            if end < ts || (end == ts && !(row.dur == 0 && new_dur == 0)) {
                // (trace_processor pops the stack's top here)
                stack.pop();
                continue;
            }
            if new_dur > 0 && ts < end && ts + new_dur > end {
                return Some(Overlap {
                    start: ts,
                    end,
                    name: row.name.clone(),
                    ts: row.ts,
                    dur: row.dur,
                });
            }
        }
        None
    }
}
