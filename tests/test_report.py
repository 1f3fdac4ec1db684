"""artscope report: the self-contained HTML page, its atomic write, the CLI,
and rendering in a real headless browser (Debian's chromium)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from artscope.cli import main
from artscope.errors import ArtscopeError, SelectionError, UsageError
from artscope.report import html as report_html

APP = "com.example.bench"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: GC chart + 5 per run (timeline, frequency, residency, frame durations, MMU)
CHARTS_ONE_RUN = 6


@pytest.fixture(scope="module")
def late_report(fixtures_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    report_html.write_report([fixtures_dir / "pinned_late.pftrace"], out, app=APP,
                             cpus="6,7", engine="embedded")
    return out


def test_page_is_self_contained(late_report):
    text = late_report.read_text()
    assert text.startswith("<!DOCTYPE html>")
    # no external resource of any kind: scripts, styles, images, fonts
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "<link" not in text and "@import" not in text
    assert "window.vegaEmbed=" in text  # the bundle is inline
    assert len(re.findall(r'<div class="chart" id="chart-\d+"', text)) == CHARTS_ONE_RUN
    assert len(re.findall(r'<script type="application/json" data-artscope-target=', text)) \
        == CHARTS_ONE_RUN
    # verdict, reasons and metric tables
    assert '<span class="verdict fail">fail</span>' in text
    for reason in ("off_mask_cpu", "cpufreq_unstable", "cpufreq_throttled", "memfreq_unstable"):
        assert f"<td>{reason}</td>" in text
    assert "1,574,000,000 (1,574.000 ms)" in text  # off_mask_cpu_ns
    assert "17000010.devfreq_mif" in text and "HeapTaskDaemon" in text


def test_spec_json_cannot_close_its_script(fixtures_dir, tmp_path, monkeypatch):
    # A thread name with "</script>" must not break out of the JSON element.
    from artscope.report import charts

    orig = charts.timeline_rows

    def evil(*a, **kw):
        import polars as pl
        rows, tol = orig(*a, **kw)
        return rows.with_columns(thread=pl.lit("</script><b>x")), tol

    monkeypatch.setattr(charts, "timeline_rows", evil)
    out = tmp_path / "r.html"
    report_html.write_report([fixtures_dir / "pinned_late.pftrace"], out, app=APP,
                             cpus="6,7", engine="embedded")
    text = out.read_text()
    assert "</script><b>x" not in text and "\\u003c/script>\\u003cb>x" in text


def test_several_traces_add_the_runs_strip(fixtures_dir, tmp_path):
    out = tmp_path / "two.html"
    results = report_html.write_report(
        [fixtures_dir / "pinned_late.pftrace", fixtures_dir / "pinned_clean.pftrace"], out,
        app=APP, cpus="6,7", engine="embedded")
    assert [r["health"]["verdict"] for r in results] == ["fail", "pass"]
    text = out.read_text()
    assert 'data-title="runs"' in text
    assert len(re.findall(r'<div class="chart" id=', text)) == 1 + 2 * CHARTS_ONE_RUN


def test_write_is_atomic(fixtures_dir, tmp_path, monkeypatch):
    out = tmp_path / "report.html"
    out.write_text("previous")

    def boom(*a, **kw):
        raise RuntimeError("render failed")

    monkeypatch.setattr(report_html, "render", boom)
    with pytest.raises(RuntimeError):
        report_html.write_report([fixtures_dir / "pinned_clean.pftrace"], out, app=APP,
                                 engine="embedded")
    assert out.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]

    # a failing write leaves no temp file either
    monkeypatch.undo()
    real_replace = os.replace

    def no_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_html.os, "replace", no_replace)
    with pytest.raises(ArtscopeError, match="No space left"):
        report_html.write_atomic(out, "new")
    assert out.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    monkeypatch.setattr(report_html.os, "replace", real_replace)
    report_html.write_atomic(out, "new")
    assert out.read_text() == "new"
    assert (out.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_bad_inputs_raise_artscope_errors(fixtures_dir, tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        report_html.write_report([fixtures_dir / "pinned_late.pftrace"],
                                 tmp_path / "nope" / "r.html", app=APP, engine="embedded")
    with pytest.raises(SelectionError):
        report_html.write_report([fixtures_dir / "pinned_late.pftrace"], tmp_path / "r.html",
                                 app="no.such.app", engine="embedded")
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(UsageError, match="directory"):
        report_html.write_atomic(tmp_path, "x")


def test_cli_report(fixtures_dir, tmp_path):
    out = tmp_path / "cli.html"
    res = CliRunner().invoke(main, ["report", str(fixtures_dir / "pinned_clean.pftrace"),
                                    "--app", APP, "--cpus", "6,7", "--engine", "embedded",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists() and '<span class="verdict pass">pass</span>' in out.read_text()
    assert "0:pass" in res.output

    bad = CliRunner().invoke(main, ["report", str(fixtures_dir / "pinned_clean.pftrace"),
                                    "--app", "no.such.app", "--engine", "embedded",
                                    "-o", str(tmp_path / "bad.html")])
    assert bad.exit_code == 2
    assert bad.output.startswith("artscope: error: app 'no.such.app' is not in the trace")
    assert len(bad.output.strip().splitlines()) == 1
    assert not (tmp_path / "bad.html").exists()

    missing = CliRunner().invoke(main, ["report", str(fixtures_dir / "pinned_clean.pftrace"),
                                        "--app", APP])
    assert missing.exit_code == 2 and "-o" in missing.output


# -- real browser ----------------------------------------------------------------

def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _browser(binary: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=20000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_report_renders_in_headless_chromium(late_report, tmp_path):
    binary = _chromium()
    if binary is None:
        pytest.skip("chromium not installed (apt-get install chromium; tools/test.sh does it)")
    url = late_report.as_uri()
    # Virtual time fast-forwards while the page is idle, so a generous budget
    # costs nothing; one retry absorbs a dump taken early on a loaded machine.
    for attempt in range(2):
        res = _browser(binary, tmp_path / f"try{attempt}", "--enable-logging=stderr", "--v=0",
                       "--dump-dom", url)
        assert res.returncode == 0, res.stderr[-2000:]
        dom = res.stdout
        body = re.search(r"<body[^>]*data-charts-rendered[^>]*>", dom)
        if body:
            break
    assert body, ("charts did not finish rendering within the virtual time budget; "
                  f"stderr: {res.stderr[-1500:]}")
    assert f'data-charts-rendered="{CHARTS_ONE_RUN}"' in body.group(0)
    assert 'data-charts-failed="0"' in body.group(0)
    errors = re.search(r'<pre id="artscope-errors"[^>]*>(.*?)</pre>', dom, re.S)
    assert errors and errors.group(1).strip() == "", errors and errors.group(1)
    # every chart div holds a rendered Vega SVG with marks
    for i in range(1, CHARTS_ONE_RUN + 1):
        div = re.search(rf'<div[^>]*id="chart-{i}"[^>]*>(.*?)<script', dom, re.S)
        assert div, f"chart-{i} missing"
        assert re.search(r'<svg[^>]*class="marks"', div.group(1)), f"chart-{i} has no SVG"
    # no console output at all (Vega warnings, exceptions, failed loads)
    console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, "\n".join(console)

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report_pinned_late.png"
    shot.unlink(missing_ok=True)
    res = _browser(binary, tmp_path, "--hide-scrollbars", "--window-size=1200,4000",
                   f"--screenshot={shot}", url)
    assert res.returncode == 0, res.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 20_000
