"""The flat per-run row has one declared schema, the same for every trace."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import artscope
from artscope import flatschema

REPO = Path(__file__).resolve().parents[2]


def _leaf_paths(value, prefix=""):
    """Every JSON leaf of a result: dict keys recurse, lists are leaves."""
    if isinstance(value, dict) and value and not prefix.endswith("residency"):
        for k, v in value.items():
            yield from _leaf_paths(v, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix


#: JSON objects whose flat columns carry a shorter prefix.
_PREFIX = {"conditions": "cond", "memory": "mem"}


def _covered(path: str, names: set[str]) -> bool:
    parts = path.split(".")
    parts[0] = _PREFIX.get(parts[0], parts[0])
    return any("_".join(parts[:i]) in names for i in range(1, len(parts) + 1))


def test_docs_are_generated_from_the_declaration():
    doc = (REPO / "docs" / "flat-columns.md").read_text()
    assert doc == flatschema.markdown(), "regenerate: python -m artscope.flatschema > docs/flat-columns.md"


def test_same_columns_for_traces_with_different_cpus_and_clocks(tmp_path):
    # pinned_clean has CPUs 6,7 allowed and two devfreq series; freq has other
    # clocks; no_sched has no CPUs at all: one schema for all three.
    fx = REPO / "fixtures"
    a = artscope.analyze([fx / "pinned_clean.pftrace"], app="com.example.bench", cpus="6,7",
                         engine="embedded", jobs=1)
    b = artscope.analyze([fx / "freq.pftrace", fx / "no_sched.pftrace"],
                         app="com.example.bench", cpus="big", engine="embedded", jobs=1)
    want = [c.name for c in flatschema.columns()]
    assert a.columns == want and b.columns == want
    assert a.schema == b.schema == pl.Schema(flatschema.schema())
    row = a.row(0, named=True)
    assert row["cpufreq_cpus"] == "6,7" and row["pinning_allowed_cpus"] == "6,7"


def test_every_json_field_has_a_column():
    with artscope.open(REPO / "fixtures" / "pinned_late.pftrace", app="com.example.bench",
                       cpus="6,7", engine="embedded") as runs:
        result = runs.results[0]
    names = {c.name for c in flatschema.columns()}
    missing = [p for p in _leaf_paths(result) if not _covered(p, names)]
    assert missing == []


def test_an_error_row_has_every_column():
    df = flatschema.flat_frame([flatschema.flatten({"trace": "x.pftrace", "error": "boom"})])
    assert df.columns == [c.name for c in flatschema.columns()]
    assert df.row(0, named=True)["error"] == "boom"


@pytest.mark.parametrize("stables,want", [
    ([True, True], True), ([True, None], None), ([None, False], False), ([], None)])
def test_stability_summary_is_false_if_any_false_else_unknown_if_any_unknown(stables, want):
    r = {"memfreq": [{"device": f"mif{i}", "is_memory": True, "stable": s, "transitions": 0,
                      "known_share": 1.0} for i, s in enumerate(stables)]}
    assert flatschema.flatten(r)["memfreq_stable"] is want
