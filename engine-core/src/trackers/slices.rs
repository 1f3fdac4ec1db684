//! Slices on tracks: per-track stacks giving depth and parent_id, instants
//! (dur 0) popped once they are over, begin/end matching (importers/common/
//! slice_tracker.cc).

use rustc_hash::FxHashMap as HashMap;

use crate::events::Stats;

pub const MAX_SLICE_DEPTH: usize = 512;

pub struct SliceRow {
    pub ts: i64,
    pub dur: i64,
    pub track: u32,
    pub name: String,
    /// slice.category (set by the trackers that have one, e.g. "binder")
    pub category: Option<&'static str>,
    pub depth: i64,
    pub parent: Option<u32>,
    pub arg_set: Option<i64>,
}

#[derive(Default)]
pub struct SliceTracker {
    pub rows: Vec<SliceRow>,
    stacks: HashMap<u32, Vec<u32>>,
}

impl SliceTracker {
    /// Opens a slice (dur -1) or adds an instant (dur 0) on `track`.
    pub fn begin(
        &mut self,
        stats: &mut Stats,
        track: u32,
        ts: i64,
        name: String,
        dur: i64,
        arg_set: Option<i64>,
    ) {
        let stack = self.stacks.entry(track).or_default();
        let rows = &self.rows;
        // pop completed instants that ended before (or at) this ts
        while let Some(&top) = stack.last() {
            let t = &rows[top as usize];
            if t.dur == -1 {
                break;
            }
            let end = t.ts + t.dur;
            if end < ts || (end == ts && !(dur == 0 && t.dur == 0)) {
                stack.pop();
            } else {
                break;
            }
        }
        let depth = stack.len();
        if depth >= MAX_SLICE_DEPTH {
            stats.add("slice_drop_too_deep", 1, None);
            return;
        }
        let parent = stack.last().copied();
        let sid = self.rows.len() as u32;
        self.rows.push(SliceRow {
            ts,
            dur,
            track,
            name,
            category: None,
            depth: depth as i64,
            parent,
            arg_set,
        });
        stack.push(sid);
    }

    /// Closes the innermost open slice on `track`; returns its row. With
    /// none open, counts `misplaced_end_event`.
    pub fn end(&mut self, stats: &mut Stats, track: u32, ts: i64) -> Option<u32> {
        let closed = self.end_if_open(track, ts);
        if closed.is_none() {
            stats.add("misplaced_end_event", 1, None);
        }
        closed
    }

    /// Closes the innermost open slice on `track` if there is one (as
    /// trace_processor's SliceTracker::End, which ignores an end with
    /// nothing open); returns its row.
    pub fn end_if_open(&mut self, track: u32, ts: i64) -> Option<u32> {
        if let Some(stack) = self.stacks.get_mut(&track) {
            while let Some(&top) = stack.last() {
                let row = &mut self.rows[top as usize];
                stack.pop();
                if row.dur == -1 {
                    row.dur = ts - row.ts;
                    return Some(top);
                }
                // a completed instant
            }
        }
        None
    }
}
