"""Rebuild the compiled engine core into a checkout, without (re)installing.

    python3 tools/build_core.py          # maturin build --release, then copy
                                         # the extension to pyanalysis/artscope/

`pip install -e .` builds the extension too, but it also points the Python
environment's artscope at this checkout. This script is for a second checkout
(a git worktree run with ``PYTHONPATH=$PWD/pyanalysis``) and for a quick
rebuild after editing engine-core/src: it runs the same maturin build as pip
(same flags, same engine-core/target, so the two never invalidate each other's
incremental cache) and copies only the extension out of the wheel, as
``pyanalysis/artscope/_core.abi3.so`` (git-ignored), where
``artscope.engines.embedded.core`` imports it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pyanalysis"


def main() -> int:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        # -i: the interpreter pip builds with, so pyo3's build script sees
        # the same PYO3_PYTHON and does not rebuild.
        r = subprocess.run([sys.executable, "-m", "maturin", "build", "--release", "-q",
                            "-i", sys.executable, "--out", out], cwd=REPO)
        if r.returncode:
            return r.returncode
        (wheel,) = Path(out).glob("artscope-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            (member,) = (n for n in zf.namelist() if n.startswith("artscope/_core."))
            dest = PACKAGE / member
            # replaced atomically: a running interpreter may have the old one mapped
            tmp = dest.with_name(dest.name + ".tmp")
            tmp.write_bytes(zf.read(member))
            tmp.chmod(0o755)
            tmp.replace(dest)
    print(f"built {dest.relative_to(REPO)} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
