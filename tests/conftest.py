"""Shared pytest fixtures (keep minimal; others may add theirs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
# fixtures/schedules.py, truth.py and make_fixtures.py are plain modules
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The directory holding the committed fixture traces (fixtures/*.pftrace)."""
    return FIXTURES


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    """Real traces in ../shared/traces beside the checkout; skips when absent."""
    path = REPO.parent / "shared" / "traces"
    if not path.is_dir() or not any(path.iterdir()):
        pytest.skip(f"shared traces not available at {path}")
    return path
