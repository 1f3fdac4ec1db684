"""Where artscope's data directories live, installed or in a checkout.

The metric SQL and the capture configs live once, at the repository root
(``sql-metrics/``, ``perfetto-configs/``), readable without Python. The wheel
copies them into the package as ``artscope/sql_metrics`` and
``artscope/perfetto_configs`` (pyproject.toml force-include), so an installed
artscope works outside the repo. An editable install has no such copy; there
the repository root directory is used instead.
"""

from __future__ import annotations

from pathlib import Path

#: Data directories artscope ships, by their package-data name.
RESOURCE_NAMES = ("perfetto_configs", "sql_metrics")

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The directory holding resource ``name`` ('perfetto_configs' | 'sql_metrics').

    Prefers the packaged copy ``artscope/<name>``; falls back to the checkout's
    ``<repo>/<name with '_' replaced by '-'>``. Raises ValueError for an
    unknown name (a programming error) and FileNotFoundError when neither
    directory exists (a broken install).
    """
    if name not in RESOURCE_NAMES:
        raise ValueError(f"unknown resource {name!r} (known: {', '.join(RESOURCE_NAMES)})")
    packaged = _PACKAGE_DIR / name
    if packaged.is_dir():
        return packaged
    # pyanalysis/artscope/_resources.py -> repository root is two levels up.
    checkout = _PACKAGE_DIR.parent.parent / name.replace("_", "-")
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"artscope data directory {name!r} is missing (looked in {packaged} and {checkout}); "
        "reinstall artscope"
    )
