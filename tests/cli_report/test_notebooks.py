"""The investigation notebooks run top to bottom on the fixtures."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _kernel_available() -> bool:
    try:
        from jupyter_client.kernelspec import KernelSpecManager
        KernelSpecManager().get_kernel_spec("python3")
        return True
    except Exception:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["trustworthy_run", "noisy_benchmark", "gc_overhead_study"])
def test_notebook_runs(name, monkeypatch):
    if not _kernel_available():
        pytest.skip("no python3 Jupyter kernel (pip install ipykernel)")
    from conftest import SHARED_TRACES

    # the real-trace cells run where the real traces are (the kernel inherits it)
    monkeypatch.setenv("ARTSCOPE_REAL_TRACES", str(SHARED_TRACES))
    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    t0 = time.monotonic()
    client.execute()  # raises CellExecutionError on any failing cell
    elapsed = time.monotonic() - t0
    assert elapsed < 30, f"{name} took {elapsed:.1f} s"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    # the chart cells produced altair output (vega-embed HTML or a Vega-Lite bundle)
    charts = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if any(k.startswith("application/vnd.vegalite") for k in o.get("data", {}))
              or "vegaEmbed" in str(o.get("data", {}).get("text/html", ""))]
    assert charts, "no chart rendered"


@pytest.mark.parametrize("name", ["trustworthy_run", "noisy_benchmark", "gc_overhead_study"])
def test_notebook_is_committed_with_its_outputs(name):
    # tools/run_notebooks.py saves them executed, charts as PNG beside the
    # live HTML, so a reader browsing the repository sees results.
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.get("execution_count") for c in code), "rerun tools/run_notebooks.py"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.get("outputs", []))
    # its checks are sentences ("✓ the run fails"), not bare asserts
    assert not any(line.lstrip().startswith("assert ") for c in code
                   for line in c.source.splitlines())
    assert any("✓" in o.get("text", "") for c in code for o in c.get("outputs", []))
