"""Minimum mutator utilization (MMU) from GC intervals.

MMU(w) = min over all windows [t, t + w] inside the run window [start, end]
of the fraction of w not covered by GC (Cheng & Blelloch). GC intervals from
several threads are merged first (their union is "GC time").

Exact computation: the GC time inside [t, t + w] is piecewise linear in t
with breakpoints where t or t + w meets an interval endpoint, so its maximum
over t in [start, end - w] is attained at t = start, t = end - w, or a
breakpoint t = e or t = e - w for an interval endpoint e. Evaluating those
candidates with a prefix sum over the merged intervals gives the exact
minimum in O(k log k) per window size (k = number of intervals).

Pure functions over plain numbers: no engine, no DataFrames.
"""

from __future__ import annotations

import bisect
import math
from typing import Iterable, Sequence


def merge_intervals(intervals: Iterable[tuple[int, int]], start: int,
                    end: int) -> list[tuple[int, int]]:
    """Union of ``intervals`` clipped to [start, end), sorted; empty ones dropped."""
    clipped = sorted((max(s, start), min(e, end)) for s, e in intervals
                     if min(e, end) > max(s, start))
    merged: list[tuple[int, int]] = []
    for s, e in clipped:
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


class _Coverage:
    """GC time in [start, x] for any x, over merged intervals."""

    def __init__(self, merged: Sequence[tuple[int, int]]) -> None:
        self.starts = [s for s, _ in merged]
        self.ends = [e for _, e in merged]
        self.prefix = [0]
        for s, e in merged:
            self.prefix.append(self.prefix[-1] + (e - s))

    def upto(self, x: float) -> float:
        # intervals wholly before x, plus the part of the one containing x
        i = bisect.bisect_right(self.starts, x)  # intervals starting at or before x
        if i == 0:
            return 0.0
        total = self.prefix[i - 1]
        return total + (min(self.ends[i - 1], x) - self.starts[i - 1])

    def between(self, a: float, b: float) -> float:
        return self.upto(b) - self.upto(a)


def max_gc_in_window(merged: Sequence[tuple[int, int]], start: int, end: int,
                     w: float) -> float:
    """The most GC time any window of length w inside [start, end] holds."""
    if w <= 0 or w > end - start:
        raise ValueError(f"window {w} outside (0, {end - start}]")
    cov = _Coverage(merged)
    lo, hi = start, end - w
    candidates = {lo, hi}
    for s, e in merged:
        for p in (s, e):
            for t in (p, p - w):
                if lo <= t <= hi:
                    candidates.add(t)
    return max(cov.between(t, t + w) for t in candidates)


def mmu(intervals: Iterable[tuple[int, int]], start: int, end: int,
        windows: Iterable[float] | None = None) -> list[tuple[float, float]]:
    """[(w, MMU(w))] for each window size w in ``windows`` (ns).

    ``intervals`` are GC (start, end) pairs in ns; they are merged and clipped
    to [start, end). Window sizes outside (0, end - start] are skipped;
    ``windows=None`` uses :func:`log_windows`.
    """
    span = end - start
    if span <= 0:
        return []
    # Work relative to start: small magnitudes keep float window arithmetic exact
    # enough that a fully covered window gives exactly 0.
    merged = [(s - start, e - start) for s, e in merge_intervals(intervals, start, end)]
    ws = log_windows(span) if windows is None else list(windows)
    out = []
    for w in ws:
        if w <= 0 or w > span:
            continue
        if not merged:
            out.append((w, 1.0))
            continue
        u = 1.0 - max_gc_in_window(merged, 0, span, w) / w
        out.append((w, min(1.0, max(0.0, u))))
    return out


def log_windows(span: int, n: int = 40, smallest: int = 100_000) -> list[float]:
    """``n`` log-spaced window sizes from min(smallest, span) up to span (ns)."""
    if span <= 0:
        return []
    lo = min(smallest, span)
    if n <= 1 or lo == span:
        return [float(span)]
    ratio = math.log(span / lo) / (n - 1)
    ws = [lo * math.exp(i * ratio) for i in range(n)]
    ws[-1] = float(span)
    return ws
