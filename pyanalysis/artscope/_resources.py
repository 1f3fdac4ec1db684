"""Where artscope's data directories live, installed or in a checkout.

The metric SQL and the capture configs live once, at the repository root
(``sql-metrics/``, ``perfetto-configs/``), readable without Python. In a
checkout, ``artscope/sql_metrics`` and ``artscope/perfetto_configs`` are
symlinks to them; the wheel holds copies at the same place (pyproject.toml
``[tool.maturin] include``). So installed, editable or on PYTHONPATH, the
data is found the same way, inside the package.
"""

from __future__ import annotations

from pathlib import Path

#: Data directories artscope ships, by their package-data name.
RESOURCE_NAMES = ("perfetto_configs", "sql_metrics")

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The directory holding resource ``name`` ('perfetto_configs' | 'sql_metrics').

    ``artscope/<name>`` with symlinks resolved, so paths shown to users in
    a checkout name the repository's own ``sql-metrics/`` or
    ``perfetto-configs/``. Raises ValueError for an unknown name (a
    programming error) and FileNotFoundError when the directory is missing
    (a broken install, or a checkout whose git did not create symlinks).
    """
    if name not in RESOURCE_NAMES:
        raise ValueError(f"unknown resource {name!r} (known: {', '.join(RESOURCE_NAMES)})")
    packaged = _PACKAGE_DIR / name
    if packaged.is_dir():
        return packaged.resolve()
    raise FileNotFoundError(
        f"artscope data directory {name!r} is missing (looked in {packaged}); reinstall artscope"
    )
