"""The vectorised thread_state build (tables.TableBuilder._thread_state_rows)
against the event-by-event replay it replaced (kept here as the oracle).

The oracle mirrors trace_processor's thread_state_tracker.cc (contract
section 2.4) one event at a time; the numpy build must give exactly the same
rows, ids included, on every fixture, every conformance trace, random event
streams full of edge cases, and the shared real traces when present.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from artscope.engines.embedded import decode_bytes
from artscope.engines.embedded.tables import TableBuilder

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "conformance"))


# -- the oracle -------------------------------------------------------------------

def replay_events(tb: TableBuilder) -> list[tuple]:
    """The builder's thread_state inputs as one stream in replay order:
    (0, ts, cpu, prev, end_state, next) per switch, (kind, ts, a, b) else."""
    events: list[tuple] = []
    other = iter(tb.ts_other)
    pending = next(other, None)
    for j in range(len(tb.s_ts)):
        while pending is not None and pending[4] <= j:
            events.append(pending[:4])
            pending = next(other, None)
        events.append((0, tb.s_ts[j], tb.s_cpu[j], tb.s_prev_utid[j],
                       tb.s_prev_state[j], tb.s_utid[j]))
    while pending is not None:
        events.append(pending[:4])
        pending = next(other, None)
    return events


def oracle_rows(events: list[tuple]) -> tuple[list[tuple], int]:
    """(rows, spurious wakeups): the pre-numpy replay, unchanged."""
    rows: list[list[Any]] = []
    last: dict[int, int] = {}
    spurious = 0

    def close(ts: int, utid: int) -> None:
        i = last.get(utid)
        if i is not None and rows[i][2] == -1:
            rows[i][2] = ts - rows[i][1]

    def open_(ts: int, utid: int, state: str | None, cpu: int | None = None,
              waker: int | None = None, irq: int | None = None) -> None:
        if utid == 0:
            return
        last[utid] = len(rows)
        rows.append([len(rows), ts, -1, cpu, utid, state, None, None, waker, irq])

    for ev in events:
        kind, ts = ev[0], ev[1]
        if kind == 0:
            _, _, cpu, prev, end_state, nxt = ev
            if prev != 0:
                i = last.get(prev)
                if not (i is not None and rows[i][5] != "Running"):
                    close(ts, prev)
                open_(ts, prev, end_state)
            if nxt != 0:
                close(ts, nxt)
                open_(ts, nxt, "Running", cpu)
        elif kind == 1:
            _, _, wakee, waker = ev
            if wakee == 0:
                continue
            i = last.get(wakee)
            if i is None:
                open_(ts, wakee, "R", None, waker, 0)
                continue
            if rows[i][5] in ("Running", "R"):
                spurious += 1
                continue
            close(ts, wakee)
            open_(ts, wakee, "R", None, waker, 0)
        elif kind == 2:
            _, _, new, src = ev
            close(ts, new)
            open_(ts, new, "R", None, src, 0)
        elif kind == 3:
            _, _, utid, io_wait = ev
            i = last.get(utid)
            if i is not None and rows[i][5] not in ("Running", "R", "R+"):
                rows[i][6] = io_wait
    # stored columns (ids = row numbers, assigned by SQLite): ts, dur, cpu,
    # utid, state, io_wait, waker_utid, irq_context
    return [(r[1], r[2], r[3], r[4], r[5], r[6], r[8], r[9]) for r in rows], spurious


def check(tb: TableBuilder) -> int:
    want, spurious = oracle_rows(replay_events(tb))
    before = tb.stats.get(("spurious_sched_wakeup", None), 0)
    got = list(tb._thread_state_rows())
    assert got == want
    assert tb.stats.get(("spurious_sched_wakeup", None), 0) - before == spurious
    return len(got)


def builder_for(kind: str, data: bytes) -> TableBuilder:
    tb = TableBuilder(decode_bytes(kind, data))
    tb.build()
    return tb


# -- traces -----------------------------------------------------------------------

FIXTURES = sorted((REPO / "fixtures").glob("*.pftrace"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture(path: Path) -> None:
    check(builder_for("proto", path.read_bytes()))


def _conformance_cases() -> list:
    from conformance_runner import discover
    return discover()


@pytest.mark.parametrize("case", _conformance_cases(), ids=lambda c: c.id)
def test_conformance_trace(case) -> None:
    from conformance_runner import build_trace
    kind, data = build_trace(case.path)
    check(builder_for(kind, data))


def test_shared_traces(shared_traces: Path) -> None:
    from artscope.engines.embedded import formats
    n = 0
    for path in sorted(shared_traces.iterdir()):
        if not path.is_file() or path.name.lower().startswith("readme"):
            continue
        try:
            tb = formats.read_trace_bytes(path)
        except Exception:  # not a trace the engine reads
            continue
        check(builder_for(tb.kind, tb.data))
        n += 1
    assert n


# -- random event streams (every edge case, densely) --------------------------------

STATES = ["S", "D", "R", "R+", None, "DK", "I", "T"]


def random_builder(seed: int, n_events: int = 3000) -> TableBuilder:
    rnd = random.Random(seed)
    tb = TableBuilder.__new__(TableBuilder)
    tb.stats = {}
    tb.s_ts, tb.s_cpu, tb.s_utid = [], [], []
    tb.s_prev_utid, tb.s_prev_state, tb.ts_other = [], [], []
    utids = list(range(0, 7))  # few threads, utid 0 included: dense collisions
    ts = 0
    for _ in range(n_events):
        ts += rnd.choice((0, 0, 1, 5))  # equal timestamps too
        r = rnd.random()
        if r < 0.5:
            tb.s_ts.append(ts)
            tb.s_cpu.append(rnd.randrange(4))
            tb.s_prev_utid.append(rnd.choice(utids))
            tb.s_prev_state.append(rnd.choice(STATES))
            tb.s_utid.append(rnd.choice(utids))
        elif r < 0.8:
            tb.ts_other.append((1, ts, rnd.choice(utids),
                                rnd.choice(utids + [None]), len(tb.s_ts)))
        elif r < 0.88:
            tb.ts_other.append((2, ts, rnd.choice(utids), rnd.choice(utids),
                                len(tb.s_ts)))
        else:
            tb.ts_other.append((3, ts, rnd.choice(utids), rnd.randrange(3),
                                len(tb.s_ts)))
    return tb


@pytest.mark.parametrize("seed", range(40))
def test_random_streams(seed: int) -> None:
    check(random_builder(seed, n_events=rnd_size(seed)))


def rnd_size(seed: int) -> int:
    return (0, 1, 2, 5)[seed] if seed < 4 else 200 + 97 * seed


def test_only_other_events() -> None:
    tb = random_builder(1, 0)
    tb.ts_other = [(1, 5, 3, None, 0), (1, 6, 3, 2, 0), (3, 7, 3, 1, 0),
                   (2, 8, 4, 3, 0), (3, 9, 0, 1, 0), (1, 9, 0, 1, 0)]
    assert check(tb) == 2
