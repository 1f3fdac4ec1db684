"""The wheel ships the metric SQL, the capture configs and the JSON schema,
and an installed (non-editable) artscope finds them outside the repo."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_package_data_and_finds_it(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    str(REPO), "-w", str(tmp_path)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("artscope-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for sql in (REPO / "sql-metrics").glob("*.sql"):
        assert f"artscope/sql_metrics/{sql.name}" in names
    for cfg in (REPO / "perfetto-configs").glob("*.pbtxt"):
        assert f"artscope/perfetto_configs/{cfg.name}" in names
    assert "artscope/schema/analyze-output.schema.json" in names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import artscope._resources as r, artscope.metrics.runner as m, artscope.configs as c;"
            "print(r.resource_dir('sql_metrics')); print(len(m.metric_sql('gc')) > 0);"
            "print(sorted(x.name for x in c.list_configs()))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True,
                         capture_output=True, text=True, env={"PYTHONPATH": str(site)},
                         timeout=120).stdout.splitlines()
    assert out[0] == str(site / "artscope" / "sql_metrics")
    assert out[1] == "True"
    assert "artscope-full" in out[2]
