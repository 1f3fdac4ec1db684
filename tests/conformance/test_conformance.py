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

CASES = discover()


def test_cases_present() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_diff_test(case) -> None:
    actual, expected = run_case(case)
    assert actual == expected


@pytest.fixture(scope="module")
def tp_bin() -> str:
    from artscope.engines.trace_processor import ENV_VAR, find_local_binary

    path = find_local_binary()
    if path is None:
        pytest.skip(f"no trace_processor binary available locally: set {ENV_VAR} or put "
                    "trace_processor_shell on PATH to run the diff tests on it")
    return path


@pytest.mark.tp
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_diff_test_on_trace_processor(tp_bin, case) -> None:
    actual, expected = run_case(case, "trace_processor", tp_bin)
    assert actual == expected
