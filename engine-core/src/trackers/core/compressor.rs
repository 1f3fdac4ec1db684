//! Async slices spread over a set of tracks so that overlapping ones never
//! share a track, as trace_processor's TrackCompressor does
//! (importers/common/track_compressor.cc): each track of a set is a lane
//! with an index, the `track_compressor_idx` dimension of its track.
//!
//! A lane is either bound to a cookie (begin / end pairs: a begin takes the
//! lane of its cookie, else the first idle lane, which adopts the cookie,
//! else a new one; an end takes its cookie's lane the same way, so an end
//! without its begin still names a track) or holds scoped slices of known
//! duration (the first such lane free by the slice's start, else a new one).

use rustc_hash::FxHashMap as HashMap;

use crate::trackers::core::tracks::{Dim, Dims};

enum Lane {
    Cookie { cookie: i128, open: u32 },
    Scoped { free_from: i64 },
}

/// The lanes of every track set: (track type, the set's dimensions).
#[derive(Default)]
pub struct TrackCompressor {
    sets: HashMap<(&'static str, Dims), Vec<Lane>>,
}

/// How begins on a cookie's lane nest.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// each begin nests (needs its own end)
    Nestable,
    /// Android's legacy async (S/F): a begin on an open lane is absorbed
    Saturating,
}

/// `dims` with the lane index appended: the dimensions of the lane's track.
pub fn lane_dims(mut dims: Dims, idx: u32) -> Dims {
    dims.push(("track_compressor_idx", Dim::Int(idx as i64)));
    dims
}

impl TrackCompressor {
    fn cookie_lane(lanes: &mut Vec<Lane>, cookie: i128) -> usize {
        if let Some(i) = lanes
            .iter()
            .position(|l| matches!(l, Lane::Cookie { cookie: c, .. } if *c == cookie))
        {
            return i;
        }
        if let Some(i) = lanes
            .iter()
            .position(|l| matches!(l, Lane::Cookie { open: 0, .. }))
        {
            lanes[i] = Lane::Cookie { cookie, open: 0 };
            return i;
        }
        lanes.push(Lane::Cookie { cookie, open: 0 });
        lanes.len() - 1
    }

    /// Whether `cookie` has an open slice in the set.
    pub fn is_open(&self, type_: &'static str, dims: &Dims, cookie: i128) -> bool {
        self.sets.get(&(type_, dims.clone())).is_some_and(|lanes| {
            lanes
                .iter()
                .any(|l| matches!(l, Lane::Cookie { cookie: c, open } if *c == cookie && *open > 0))
        })
    }

    /// The lane a slice with `cookie` begins on.
    pub fn begin(
        &mut self,
        type_: &'static str,
        dims: &Dims,
        cookie: i128,
        nesting: Nesting,
    ) -> u32 {
        let lanes = self.sets.entry((type_, dims.clone())).or_default();
        let i = Self::cookie_lane(lanes, cookie);
        if let Lane::Cookie { open, .. } = &mut lanes[i] {
            *open = match nesting {
                Nesting::Nestable => *open + 1,
                Nesting::Saturating => 1,
            };
        }
        i as u32
    }

    /// The lane a slice with `cookie` ends on.
    pub fn end(&mut self, type_: &'static str, dims: &Dims, cookie: i128) -> u32 {
        let lanes = self.sets.entry((type_, dims.clone())).or_default();
        let i = Self::cookie_lane(lanes, cookie);
        if let Lane::Cookie { open, .. } = &mut lanes[i] {
            *open = open.saturating_sub(1);
        }
        i as u32
    }

    /// The set's first lane, made (bound to cookie 0) if the set has none
    /// (TrackCompressor::DefaultTrack: a merged set's representative, e.g.
    /// as a parent).
    pub fn default_lane(&mut self, type_: &'static str, dims: &Dims) -> u32 {
        let lanes = self.sets.entry((type_, dims.clone())).or_default();
        if lanes.is_empty() {
            lanes.push(Lane::Cookie { cookie: 0, open: 0 });
        }
        0
    }

    /// The lane of a slice over [ts, ts + dur].
    pub fn scoped(&mut self, type_: &'static str, dims: &Dims, ts: i64, dur: i64) -> u32 {
        let lanes = self.sets.entry((type_, dims.clone())).or_default();
        let end = ts + dur;
        for (i, lane) in lanes.iter_mut().enumerate() {
            if let Lane::Scoped { free_from } = lane {
                if *free_from <= ts {
                    *free_from = end;
                    return i as u32;
                }
            }
        }
        lanes.push(Lane::Scoped { free_from: end });
        (lanes.len() - 1) as u32
    }
}
