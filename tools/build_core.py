"""Build the compiled engine core for a checkout (no install needed).

    python3 tools/build_core.py          # cargo build --release, then copy
                                         # the extension to pyanalysis/artscope/

The extension lands next to the package as ``artscope/_core.abi3.so``, where
``artscope.engines.embedded.core`` finds it; the file is git-ignored.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CRATE = REPO / "engine-core"


def main() -> int:
    t0 = time.perf_counter()
    r = subprocess.run(["cargo", "build", "--release", "--manifest-path", str(CRATE / "Cargo.toml")])
    if r.returncode:
        return r.returncode
    built = {"linux": "lib_core.so", "darwin": "lib_core.dylib"}.get(sys.platform, "_core.dll")
    lib = CRATE / "target/release" / built
    suffix = ".pyd" if sys.platform == "win32" else ".abi3.so"
    dest = REPO / "pyanalysis/artscope" / f"_core{suffix}"
    # replaced atomically: a running interpreter may have the old one mapped
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.copy2(lib, tmp)
    tmp.replace(dest)
    print(f"built {dest.relative_to(REPO)} in {time.perf_counter() - t0:.1f} s "
          f"({sysconfig.get_platform()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
