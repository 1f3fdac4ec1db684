"""The compiled core (engine-core/) imports protobuf traces into tables
identical to the Python importer's: every table and view, row by row, typed
values (tools/compare_core.py does the same from the command line). And no
damaged input makes it panic or crash: a seeded corruption loop over the
decoder.

Skipped when the extension is not built (python3 tools/build_core.py).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from artscope.engines.embedded import core
from artscope.errors import TraceError

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "tests" / "conformance"))

import compare_core  # noqa: E402

pytestmark = pytest.mark.skipif(not core.available(),
                                reason="compiled core not built (python3 tools/build_core.py)")

FIXTURE_TRACES = sorted(p.name for p in (REPO / "fixtures").iterdir()
                        if p.name.endswith((".pftrace", ".pftrace.gz")))


@pytest.mark.parametrize("name", FIXTURE_TRACES)
def test_fixture_tables_identical(name):
    assert compare_core.compare(str(REPO / "fixtures" / name)) == []


@pytest.mark.slow
def test_shared_traces_tables_identical(shared_traces):
    traces = [p for p in sorted(shared_traces.iterdir()) if p.suffix != ".md"]
    results = {p.name: compare_core.compare(str(p)) for p in traces}
    compared = {k: v for k, v in results.items() if v[:1] != ["skipped: not a protobuf trace"]}
    assert compared, "no protobuf trace among the shared traces"
    assert compared == {k: [] for k in compared}


def _conformance_inputs() -> list[tuple[str, bytes]]:
    import conformance_runner as cr
    seen: dict[bytes, str] = {}
    for case in cr.discover():
        kind, data = cr.build_trace(case.path)
        if kind == "proto" and data not in seen:
            seen[data] = case.id
    return [(name, data) for data, name in seen.items()]


@pytest.mark.slow
def test_conformance_inputs_tables_identical():
    inputs = _conformance_inputs()
    assert len(inputs) > 20
    diffs = {name: compare_core.compare_bytes(data, name) for name, data in inputs}
    assert diffs == {name: [] for name, _ in inputs}


@pytest.mark.slow
def test_bench_trace_tables_identical(tmp_path):
    """A small bench/gen_trace.py trace in both encodings (compact_sched and
    plain sched_switch, with wakings, atrace, counters and frame timeline)."""
    sys.path.insert(0, str(REPO / "bench"))
    import gen_trace
    sim = gen_trace.simulate(2, 40_000, 3, 0.3)
    for compact in (True, False):
        data = gen_trace.encode(sim, compact)
        assert compare_core.compare_bytes(data, f"bench compact={compact}") == []


def _corruptions(data: bytes, rng: random.Random, n: int):
    for _ in range(n):
        b = bytearray(data)
        how = rng.randrange(4)
        if how == 0:  # flip bytes
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif how == 1:  # truncate
            del b[rng.randrange(1, len(b)):]
        elif how == 2:  # splice a chunk elsewhere
            i, j = sorted(rng.randrange(len(b)) for _ in range(2))
            k = rng.randrange(len(b))
            b[k:k] = b[i:j][:4096]
        else:  # random varints / lengths overwritten with 0xff runs
            k = rng.randrange(len(b))
            b[k:k + rng.randint(1, 12)] = b"\xff" * rng.randint(1, 12)
        yield bytes(b)


@pytest.mark.parametrize("name", ["pinned_late_compact.pftrace", "frames.pftrace", "freq.pftrace"])
def test_decoder_survives_seeded_corruption(name):
    """Every damaged variant imports (possibly partially) or raises TraceError
    naming the input; never a panic or any other exception."""
    data = (REPO / "fixtures" / name).read_bytes()
    rng = random.Random(20261123)
    outcomes = {"ok": 0, "error": 0}
    for i, bad in enumerate(_corruptions(data, rng, 150)):
        try:
            imported = core.import_proto(bad, f"variant-{i}")
        except TraceError as e:
            assert f"variant-{i}" in str(e)
            outcomes["error"] += 1
            continue
        # the tables answer queries
        assert imported.conn.execute("SELECT count(*) FROM sched").fetchone()[0] >= 0
        assert imported.packets > 0
        outcomes["ok"] += 1
    assert outcomes["ok"] > 0


def test_non_trace_bytes_raise_trace_error_naming_the_file():
    with pytest.raises(TraceError, match="junk.bin"):
        core.import_proto(b"\x00\x00\x00", "junk.bin")  # no packet at all
