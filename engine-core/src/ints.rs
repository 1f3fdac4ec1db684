//! Integer columns at the narrowest width that holds their values: most of
//! the big tables' integer columns (cpus, utids, states, prios, arg set ids)
//! fit in 8 to 32 bits, and at millions of rows the width is most of the
//! engine's memory. The trackers write their big tables' columns this way
//! (`Ints::push` widens a column when a value does not fit), and the tables
//! serve them as they are (`columns`). A leaf: it uses nothing of the crate.

/// A column's integers at the narrowest width that holds all of them.
pub enum Ints {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

/// `$body` with `$v` bound to the vector of whichever width `$ints` holds.
macro_rules! each_width {
    ($ints:expr, $v:ident => $body:expr) => {
        match $ints {
            $crate::ints::Ints::I8($v) => $body,
            $crate::ints::Ints::I16($v) => $body,
            $crate::ints::Ints::I32($v) => $body,
            $crate::ints::Ints::I64($v) => $body,
        }
    };
}
pub(crate) use each_width;

impl Default for Ints {
    fn default() -> Self {
        Ints::I8(Vec::new())
    }
}

/// The narrowest width (0: 8 bits .. 3: 64 bits) holding `x`.
#[inline]
fn width_of(x: i64) -> u8 {
    if x == x as i8 as i64 {
        0
    } else if x == x as i16 as i64 {
        1
    } else if x == x as i32 as i64 {
        2
    } else {
        3
    }
}

impl Ints {
    /// An empty column with room for `n` values at 8 bits (reserved, not
    /// touched: no memory until written).
    pub fn with_capacity(n: usize) -> Ints {
        Ints::I8(Vec::with_capacity(n))
    }

    #[inline]
    #[allow(clippy::unnecessary_cast)] // a no-op for the I64 arm only
    pub fn get(&self, row: usize) -> i64 {
        each_width!(self, v => v[row] as i64)
    }

    pub fn len(&self) -> usize {
        each_width!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    #[allow(clippy::unnecessary_cast)] // a no-op for the I8 arm only
    pub fn ptr(&self, row: usize) -> *const i8 {
        each_width!(self, v => v.as_ptr().wrapping_add(row) as *const i8)
    }

    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        (0..self.len()).map(|r| self.get(r))
    }

    /// Rewrites the column at `width` (0: 8 bits .. 3: 64 bits; wider than
    /// it is), keeping its reserved room.
    #[cold]
    #[allow(clippy::unnecessary_cast)] // no-ops for the widths already i64
    fn widen(&mut self, width: u8) {
        let room = each_width!(&*self, v => v.capacity());
        let old = std::mem::take(self);
        *self = match width {
            1 => {
                let mut w = Vec::with_capacity(room);
                each_width!(old, v => w.extend(v.into_iter().map(|x| x as i16)));
                Ints::I16(w)
            }
            2 => {
                let mut w = Vec::with_capacity(room);
                each_width!(old, v => w.extend(v.into_iter().map(|x| x as i32)));
                Ints::I32(w)
            }
            _ => {
                let mut w = Vec::with_capacity(room);
                each_width!(old, v => w.extend(v.into_iter().map(|x| x as i64)));
                Ints::I64(w)
            }
        };
    }

    /// Appends `x`, widening the column first when it does not fit. (Always
    /// inlined: the trackers push millions of rows a column, and a call per
    /// value cost more than the push; widening is the rare path, kept out
    /// of line.)
    #[inline(always)]
    pub fn push(&mut self, x: i64) {
        match self {
            Ints::I8(v) if x as i8 as i64 == x => v.push(x as i8),
            Ints::I16(v) if x as i16 as i64 == x => v.push(x as i16),
            Ints::I32(v) if x as i32 as i64 == x => v.push(x as i32),
            Ints::I64(v) => v.push(x),
            _ => self.widen_and_push(x),
        }
    }

    #[cold]
    #[inline(never)]
    fn widen_and_push(&mut self, x: i64) {
        self.widen(width_of(x));
        self.push(x);
    }

    /// Sets row `row` to `x`, widening the column first when it does not fit.
    #[inline(always)]
    pub fn set(&mut self, row: usize, x: i64) {
        match self {
            Ints::I8(v) if x as i8 as i64 == x => v[row] = x as i8,
            Ints::I16(v) if x as i16 as i64 == x => v[row] = x as i16,
            Ints::I32(v) if x as i32 as i64 == x => v[row] = x as i32,
            Ints::I64(v) => v[row] = x,
            _ => self.widen_and_set(row, x),
        }
    }

    #[cold]
    #[inline(never)]
    fn widen_and_set(&mut self, row: usize, x: i64) {
        self.widen(width_of(x));
        self.set(row, x);
    }

    /// Reserves room for `n` more values at the column's width.
    pub fn reserve_exact(&mut self, n: usize) {
        each_width!(self, v => v.reserve_exact(n))
    }

    /// `values` at the narrowest width holding their range.
    pub fn narrow<T: Copy + Into<i64>>(values: Vec<T>) -> Ints {
        let (lo, hi) = values.iter().fold((0i64, 0i64), |(lo, hi), &x| {
            let x = x.into();
            (lo.min(x), hi.max(x))
        });
        let fits = |min: i64, max: i64| lo >= min && hi <= max;
        if fits(i8::MIN as i64, i8::MAX as i64) {
            Ints::I8(values.into_iter().map(|x| x.into() as i8).collect())
        } else if fits(i16::MIN as i64, i16::MAX as i64) {
            Ints::I16(values.into_iter().map(|x| x.into() as i16).collect())
        } else if fits(i32::MIN as i64, i32::MAX as i64) {
            Ints::I32(values.into_iter().map(|x| x.into() as i32).collect())
        } else {
            Ints::I64(values.into_iter().map(Into::into).collect())
        }
    }

    /// 64-bit `values`, narrowed when their range allows (kept as they
    /// are, without a copy, when it does not).
    pub fn from_i64(values: Vec<i64>) -> Ints {
        let wide = values
            .iter()
            .any(|&x| x < i32::MIN as i64 || x > i32::MAX as i64);
        if wide {
            Ints::I64(values)
        } else {
            Ints::narrow(values)
        }
    }
}

/// Rows per block of `Offsets` (a power of two).
const BLOCK_SHIFT: usize = 12;

/// 64-bit integers whose values within each block of 4,096 rows lie within
/// 2^32 of one another, as each block's lowest value and every row's 32-bit
/// offset from it: half the memory of `Ints::I64`. Timestamps are such a
/// column (the big tables' rows come in time order: a block spans well under
/// the 4.3 s 2^32 ns allow).
pub struct Offsets {
    base: Vec<i64>,
    offset: Vec<u32>,
}

impl Offsets {
    /// `values` as offsets, when every block's values fit.
    pub fn encode(values: &[i64]) -> Option<Offsets> {
        let mut base = Vec::with_capacity(values.len().div_ceil(1 << BLOCK_SHIFT));
        for block in values.chunks(1 << BLOCK_SHIFT) {
            let (lo, hi) = block
                .iter()
                .fold((i64::MAX, i64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            if hi as i128 - lo as i128 > u32::MAX as i128 {
                return None;
            }
            base.push(lo);
        }
        let offset = values
            .iter()
            .enumerate()
            .map(|(i, &x)| x.wrapping_sub(base[i >> BLOCK_SHIFT]) as u32)
            .collect();
        Some(Offsets { base, offset })
    }

    #[inline]
    pub fn get(&self, row: usize) -> i64 {
        self.base[row >> BLOCK_SHIFT].wrapping_add(self.offset[row] as i64)
    }

    pub fn len(&self) -> usize {
        self.offset.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offset.is_empty()
    }

    /// Where `row`'s offset is (a prefetch address).
    #[inline]
    pub fn ptr(&self, row: usize) -> *const i8 {
        self.offset.as_ptr().wrapping_add(row) as *const i8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_and_set_widen_only_as_needed() {
        let mut v = Ints::with_capacity(8);
        for x in [0, -1, 127, -128] {
            v.push(x);
        }
        assert!(matches!(v, Ints::I8(_)));
        v.push(300);
        assert!(matches!(v, Ints::I16(_)));
        v.set(0, -70_000);
        assert!(matches!(v, Ints::I32(_)));
        v.push(i64::MIN);
        assert!(matches!(v, Ints::I64(_)));
        assert_eq!(
            v.iter().collect::<Vec<_>>(),
            vec![-70_000, -1, 127, -128, 300, i64::MIN]
        );
        v.set(1, 5);
        assert_eq!(v.get(1), 5);
        assert_eq!(v.len(), 6);
    }

    #[test]
    fn offsets_hold_blocks_within_32_bits() {
        let ts: Vec<i64> = (0..10_000i64)
            .map(|i| 3_600_000_000_000 + i * 1_000_003)
            .collect();
        let o = Offsets::encode(&ts).expect("blocks of 4 s");
        assert_eq!((0..ts.len()).map(|r| o.get(r)).collect::<Vec<_>>(), ts);
        // a block whose values spread wider than 2^32 does not fit
        assert!(Offsets::encode(&[0, 1 << 33]).is_none());
        let edge = [i64::MIN, i64::MIN + u32::MAX as i64, -1];
        assert!(Offsets::encode(&edge).is_none());
        let o = Offsets::encode(&edge[..2]).expect("exactly 2^32 - 1 apart");
        assert_eq!((o.get(0), o.get(1)), (edge[0], edge[1]));
    }
}
