"""`pip wheel .` gives one cp311-abi3 wheel holding the compiled core, the
metric SQL, the capture configs and the JSON schema, and an installed
(non-editable) artscope finds them outside the repo and imports traces with
the core it ships."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import schedules as S
import truth as T

REPO = Path(__file__).resolve().parents[2]


# Builds the extension with cargo (maturin): incremental after `pip install -e`
# or tools/build_core.py, several minutes on a checkout that never built it.
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_wheel_ships_core_and_package_data_and_finds_them(tmp_path, fixtures_dir):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    str(REPO), "-w", str(tmp_path)], check=True, timeout=1100)
    (wheel,) = tmp_path.glob("artscope-*.whl")
    # one wheel for every CPython >= 3.11 (pyo3's abi3-py311)
    assert wheel.name.startswith("artscope-0.1.0-cp311-abi3-")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "artscope/_core.abi3.so" in names
    for sql in (REPO / "sql-metrics").iterdir():
        assert f"artscope/sql_metrics/{sql.name}" in names
    for cfg in (REPO / "perfetto-configs").iterdir():
        assert f"artscope/perfetto_configs/{cfg.name}" in names
    assert "artscope/schema/analyze-output.schema.json" in names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    trace = fixtures_dir / "pinned_late.pftrace"
    code = ("import json, artscope._resources as r, artscope.metrics.runner as m, artscope.configs as c;"
            "from artscope.engines.embedded import core;"
            "from artscope.engines import load_trace;"
            "print(r.resource_dir('sql_metrics')); print(len(m.metric_sql('gc')) > 0);"
            "print(sorted(x.name for x in c.list_configs()));"
            "print(core._core.__file__);"
            f"eng = load_trace({str(trace)!r}, engine='embedded');"
            "print(type(eng.store).__name__);"
            "print(json.dumps(eng.query('select ts, dur, cpu, end_state from sched"
            " order by ts, cpu').rows()))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True,
                         capture_output=True, text=True, env={"PYTHONPATH": str(site)},
                         timeout=120).stdout.splitlines()
    assert out[0] == str(site / "artscope" / "sql_metrics")
    assert out[1] == "True"
    assert "artscope-full" in out[2]
    assert out[3] == str(site / "artscope" / "_core.abi3.so")
    assert out[4] == "CoreStore"  # the wheel's core serves the tables
    assert [tuple(r) for r in json.loads(out[5])] == [
        (r.ts, r.dur, r.cpu, r.end_state) for r in T.sched_rows(S.load("pinned_late"))]
