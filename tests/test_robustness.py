"""Damaged input never crashes artscope: a corrupted or cut trace is either
analysed (marked partial where the damage is seen) or refused with an
ArtscopeError — never any other exception.

Corruption is deterministic (seeded byte flips and cuts of real files); the
seeds below each once found a crash (invalid UTF-8 in strings, wire types
that do not fit the frame-timeline fields).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import artscope
from artscope.errors import ArtscopeError

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def _damage(data: bytes, seed: int) -> bytes:
    rnd = random.Random(seed)
    d = bytearray(data)
    for _ in range(rnd.choice([10, 200, 2000])):
        d[rnd.randrange(len(d))] = rnd.randrange(256)
    if seed % 3 == 0:
        d = d[:rnd.randrange(len(d))]
    return bytes(d)


def _analyse(path: Path, **kw) -> None:
    try:
        with artscope.open(path, engine="embedded", **kw) as runs:
            assert runs.results
    except ArtscopeError:
        pass


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", ["frames.pftrace", "pinned_late.pftrace"])
def test_damaged_fixture(tmp_path, name, seed):
    path = tmp_path / name
    path.write_bytes(_damage((FIX / name).read_bytes(), seed))
    _analyse(path, app="com.example.bench", cpus="6,7")


@pytest.mark.parametrize("name,seed,kw", [
    ("perfskills-api32_startup_warm.perfetto-trace", 11, dict(pid=26290, cpus="6,7")),
    ("nia-sidky.perfetto-trace", 4, dict(app="com.google.samples.apps.nowinandroid.demo")),
    ("trappy-surfaceflinger.html", 5, dict(pid=594, cpus="0-3")),
])
def test_damaged_real_trace(tmp_path, shared_traces, name, seed, kw):
    path = tmp_path / name
    path.write_bytes(_damage((shared_traces / name).read_bytes(), seed))
    _analyse(path, **kw)
