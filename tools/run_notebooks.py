#!/usr/bin/env python3
"""Execute the notebooks in notebooks/ and save them with their outputs, so
their tables and charts show where the repository is browsed.

    python3 tools/run_notebooks.py            # all of them
    python3 tools/run_notebooks.py trustworthy_run

The tests execute the same notebooks (tests/cli_report/test_notebooks.py) and
check that the committed copies carry outputs; rerun this after changing a
notebook or what it shows. Cells about real traces run when
ARTSCOPE_REAL_TRACES names their folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbclient
import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    nbformat.write(nb, path)


def main(names: list[str]) -> int:
    paths = [NOTEBOOKS / f"{n}.ipynb" for n in names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    for p in paths:
        print(f"running {p.name}", file=sys.stderr)
        run(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
