"""artscope.metrics.mmu against hand-computed values and a brute force."""

from __future__ import annotations

import random

import pytest

from artscope.metrics.mmu import log_windows, max_gc_in_window, merge_intervals, mmu

# W = [0, 100), GC [10, 20) and [50, 60)
GCS = [(10, 20), (50, 60)]


@pytest.mark.parametrize("w, expected", [
    (5, 0.0),          # inside [10, 20): all GC
    (10, 0.0),         # exactly [10, 20]
    (20, 0.5),         # [10, 30]: 10 of 20 is GC
    (45, 1 - 15 / 45), # t in [10, 15]: (20 - t) + (t + 45 - 50) = 15
    (50, 1 - 20 / 50), # [10, 60] holds both GCs
    (100, 0.8),        # whole window: 20 of 100
])
def test_hand_computed(w, expected):
    [(got_w, got)] = mmu(GCS, 0, 100, [w])
    assert got_w == w
    assert got == pytest.approx(expected, abs=1e-12)


def test_window_offset_and_clipping():
    # Same shape shifted to large absolute timestamps; a GC sticking out of
    # the run window counts only inside it.
    t0 = 1_000_000_000_000
    gcs = [(t0 - 5, t0 + 10), (t0 + 50, t0 + 60), (t0 + 95, t0 + 130)]
    # inside W: [0,10), [50,60), [95,100)
    res = dict(mmu(gcs, t0, t0 + 100, [10, 15, 100]))
    assert res[10] == 0.0
    assert res[15] == pytest.approx(1 - 10 / 15)   # [0,15] or [45,60] or [85,100]
    assert res[100] == pytest.approx(0.75)


def test_overlapping_threads_are_merged():
    assert merge_intervals([(0, 10), (5, 15), (20, 30), (30, 35), (40, 40)], 0, 100) == [
        (0, 15), (20, 35)]
    # two threads' overlapping GCs are one pause, not double-counted
    assert dict(mmu([(0, 10), (5, 15)], 0, 30, [30]))[30] == pytest.approx(0.5)


def test_no_gc_and_degenerate_windows():
    assert mmu([], 0, 100, [1, 50, 100]) == [(1, 1.0), (50, 1.0), (100, 1.0)]
    assert mmu(GCS, 0, 100, [0, -3, 101]) == []  # out of (0, span]: skipped
    assert mmu(GCS, 100, 100) == []
    with pytest.raises(ValueError):
        max_gc_in_window([(0, 1)], 0, 10, 11)


def test_log_windows():
    ws = log_windows(2_500_000_000)
    assert len(ws) == 40 and ws[0] == 100_000 and ws[-1] == 2_500_000_000
    assert all(a < b for a, b in zip(ws, ws[1:]))
    assert log_windows(50_000) == [50_000.0]
    assert log_windows(0) == []


def _brute(gcs, start, end, w):
    covered = set()
    for s, e in gcs:
        covered.update(range(max(s, start), min(e, end)))
    return min(1 - sum(1 for x in range(t, t + w) if x in covered) / w
               for t in range(start, end - w + 1))


def test_matches_brute_force():
    rng = random.Random(7)
    for _ in range(40):
        gcs = []
        for _ in range(rng.randint(0, 6)):
            s = rng.randint(-10, 120)
            gcs.append((s, s + rng.randint(1, 25)))
        for w in (1, 3, 7, 16, 33, 64, 100):
            [(_, got)] = mmu(gcs, 0, 100, [w])
            assert got == pytest.approx(_brute(gcs, 0, 100, w), abs=1e-12), (gcs, w)


def test_nearest_rank_percentiles():
    from artscope.metrics.compute import nearest_rank

    ten = list(range(1, 11))
    # rank ceil(p/100 * n): p50 -> 5th, p90 -> 9th, p99 -> ceil(9.9) = 10th
    assert [nearest_rank(ten, p) for p in (50, 90, 99)] == [5, 9, 10]
    assert [nearest_rank([7], p) for p in (50, 90, 99)] == [7, 7, 7]
    # n = 3: p50 -> ceil(1.5) = 2nd; p90 -> ceil(2.7) = 3rd
    assert (nearest_rank([1, 2, 50], 50), nearest_rank([1, 2, 50], 90)) == (2, 50)


def test_touching_pauses_count_as_one_stretch():
    # [10,20) and [20,25) touch: a 15-long window [10,25] is all unavailable
    [(_, u)] = mmu([(10, 20), (20, 25)], 0, 100, [15])
    assert u == 0.0
