"""The embedded engine's tables against the real trace_processor's.

For every table and view the embedded engine serves, on every fixture, every
real trace beside the checkout (``shared_traces``) and every distinct input of the ported diff tests
(tests/conformance; those of cases the embedded engine is known to fail
are left out, see test_conformance_input_tables_match_trace_processor),
tools/compare_tp.py compares row counts and every
column both engines serve (ids by what they point to; see its docstring)
with trace_processor_shell's.

What still differs is the list KNOWN_GAPS below: each Gap names a
table, the aspects that differ (``rows`` when the row counts differ, else the
columns whose values differ, or a column only the embedded engine serves) and
the traces it applies to (ALL: a schema difference, on every trace), with the
reason. A trace's observed aspects per table must equal the union of its
gaps' aspects exactly: a new difference fails, and so does a listed gap that
disappeared (remove it from the list - the list only shrinks honestly).

The compiled core is the embedded engine here. Skipped, saying why, without a
trace_processor_shell (the ``tp_bin`` fixture: ARTSCOPE_TP_BIN, PATH or the
binary beside the checkout).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import compare_tp  # noqa: E402

pytestmark = [pytest.mark.tp]

ALL = None  # a gap on every compared trace (a schema difference)


@dataclass(frozen=True)
class Gap:
    table: str
    aspects: list[str]
    reason: str
    traces: set[str] | None


# --- reasons -------------------------------------------------------------
# (none today: every served table equals trace_processor's on every input)
KNOWN_GAPS: list[Gap] = []

# `counters` (the legacy alias) is `counter` joined with its track's name and
# unit: its rows differ wherever `counter`'s do.
KNOWN_GAPS += [Gap("counters", g.aspects, g.reason, g.traces)
               for g in list(KNOWN_GAPS) if g.table == "counter"]
KNOWN_GAPS += [Gap("counters", [a for a in g.aspects if a in ("name", "unit")], g.reason, g.traces)
               for g in list(KNOWN_GAPS)
               if g.table == "counter_track" and {"name", "unit"} & set(g.aspects)]

# raw is a view over ftrace_event (in both engines), slices over slice: the
# same gaps.
KNOWN_GAPS += [Gap("raw", g.aspects, g.reason, g.traces)
               for g in KNOWN_GAPS if g.table == "ftrace_event"]
KNOWN_GAPS += [Gap("slices", g.aspects, g.reason, g.traces)
               for g in KNOWN_GAPS if g.table == "slice"]


def expected_aspects(trace_id: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for g in KNOWN_GAPS:
        if g.traces is ALL or trace_id in g.traces:
            out.setdefault(g.table, set()).update(g.aspects)
    return out


def check(trace: compare_tp.TraceInput, tp_bin: str) -> None:
    diffs = compare_tp.compare_trace(trace.path, tp_bin)
    observed = {d.table: set(d.aspects) for d in diffs if d.aspects}
    expected = expected_aspects(trace.id)
    served = {d.table for d in diffs}
    expected = {t: a for t, a in expected.items() if t in served}
    details = "\n".join(f"{d.table}: {d.embedded_rows} vs {d.tp_rows} rows; {d.example[:300]}"
                        for d in diffs if set(d.aspects) != expected.get(d.table, set()))
    assert observed == expected, details


def test_gap_list_names_known_traces_and_tables() -> None:
    """A typo in the list would make a gap apply nowhere."""
    ids = {t.id for t in compare_tp.fixture_inputs()} | {
        f"shared/{n}" for n in ("nia-sidky.perfetto-trace",
                                "perfskills-api32_startup_warm.perfetto-trace",
                                "trappy-surfaceflinger.html")}
    for g in KNOWN_GAPS:
        for t in g.traces or ():
            assert t in ids or t.startswith("conformance/"), t
        assert g.reason and g.aspects


@pytest.mark.slow
@pytest.mark.parametrize("trace", compare_tp.fixture_inputs(), ids=lambda t: t.id)
def test_fixture_tables_match_trace_processor(trace, tp_bin) -> None:
    check(trace, tp_bin)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nia-sidky.perfetto-trace",
                                  "perfskills-api32_startup_warm.perfetto-trace",
                                  "trappy-surfaceflinger.html"])
def test_shared_trace_tables_match_trace_processor(name, tp_bin, shared_traces) -> None:
    path = shared_traces / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    check(compare_tp.TraceInput(f"shared/{name}", path), tp_bin)


@pytest.mark.slow
def test_conformance_input_tables_match_trace_processor(tp_bin, tmp_path) -> None:
    failures = []
    # Inputs of cases the embedded engine is known to fail are left out: each
    # such case's embedded_fails.txt names what is not imported, and its
    # input joins this comparison once the case passes.
    for trace in compare_tp.conformance_inputs(tmp_path, known_failures=False):
        try:
            check(trace, tp_bin)
        except AssertionError as e:
            failures.append(f"{trace.id}: {e}")
    assert not failures, "\n".join(failures)
