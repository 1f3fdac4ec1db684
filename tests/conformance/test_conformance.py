"""trace_processor's own diff tests, run against the embedded engine and,
where a binary is available (ARTSCOPE_TP_BIN, trace_processor_shell on PATH),
against the real trace_processor too: the ported expectations must hold on
the reference itself.

See README.md in this folder for the list of tests considered and why some
were not ported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_runner import discover, run_case  # noqa: E402
from test_parity import tp_bin  # noqa: E402,F401  (fixture: the binary, or skip saying why)

CASES = discover()


def test_cases_present() -> None:
    assert len(CASES) >= 180


def _on_embedded(case):
    """A case the embedded engine is known to fail is a strict xfail there
    (with the reason from its embedded_fails.txt): it turns red once fixed."""
    marks = ([pytest.mark.xfail(strict=True, reason=case.embedded_fails)]
             if case.embedded_fails else [])
    return pytest.param(case, marks=marks, id=case.id)


@pytest.mark.parametrize("case", [_on_embedded(c) for c in CASES])
def test_diff_test(case) -> None:
    actual, expected = run_case(case)
    assert actual == expected


@pytest.mark.tp
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_diff_test_on_trace_processor(tp_bin, case) -> None:
    actual, expected = run_case(case, "trace_processor", tp_bin)
    assert actual == expected
