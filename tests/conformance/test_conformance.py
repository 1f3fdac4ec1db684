"""trace_processor's own diff tests, run against the embedded engine.

See README.md in this folder for the list of tests considered and why some
were not ported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_runner import discover, run_case  # noqa: E402

CASES = discover()


def test_cases_present() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_diff_test(case) -> None:
    actual, expected = run_case(case)
    assert actual == expected
