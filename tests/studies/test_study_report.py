"""The study page of `artscope report` (labels given): one offline HTML file,
checked as text and rendered in headless Chromium like the run report."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import study_data as SD
from study_data import PRESET, name

from test_report import _browser, _chromium

from artscope.cli import main
from artscope.report import study_html
from artscope.studies import Labels, Study, StudyOptions, apply_labels

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: LBO curves, frame percentiles, janky frames, noise factors
STUDY_CHARTS = 4


@pytest.fixture(scope="module")
def study_page(tmp_path_factory) -> Path:
    """clean + flagged + noisy_memfreq + frames sets in one study, via the CLI
    from saved analyze output (JSON, CSV and Parquet mixed)."""
    out = tmp_path_factory.mktemp("study") / "study.html"
    inputs = [str(SD.saved_output("clean", "json")), str(SD.saved_output("flagged", "csv")),
              str(SD.saved_output("noisy_memfreq", "parquet")), str(SD.saved_output("frames", "json"))]
    r = CliRunner().invoke(main, ["report", *inputs, "--name-pattern", PRESET, "-o", str(out),
                                  "--title", "GC study"], prog_name="artscope")
    assert r.exit_code == 0, r.stderr
    assert "study of 56 runs" in r.stderr
    return out


def test_study_page_is_self_contained_with_table5(study_page):
    text = study_page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<title>GC study</title>" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "<link" not in text and "window.vegaEmbed=" in text
    assert len(re.findall(r'<div class="chart" id="chart-\d+"', text)) == STUDY_CHARTS
    # Table-5 at 2x (hand values: see test_study_lbo); gamma keeps its 5 clean
    # runs: cost 110 ms, distilled 100 ms -> LBO 1.1
    t5 = re.search(r'<table class="table5" data-x="2"[^>]*>(.*?)</table>', text, re.S).group(1)
    assert re.search(r"<td>beta</td><td class=\"num\">1.400 ±1.77%</td>"
                     r"<td class=\"num\">1.250 ±1.99%</td>", t5)
    assert re.search(r'<tr class="flagged"><td>chaos</td>', t5)
    assert re.search(r'<tr class="flagged"><td>jitter</td>', t5)
    assert re.search(r'<tr class="summary"><td>geomean</td>', t5)
    assert re.search(r"<td>gamma</td><td class=\"num\">—</td><td class=\"num\">1.100 ±0.18%</td>", t5)
    assert re.search(r"<td>rho</td><td class=\"num\">—</td><td class=\"num\">1.100 ±0.00%</td>", t5)
    for inv in (5, 6, 7):
        assert name("gamma", 2, "cmc", inv) in text
    assert "unhealthy: memfreq_unstable" in text
    assert ("gamma / cmc / 2x: 3 of 8 runs had the memory controller changing frequency; "
            "without them the CI shrinks from ±4.2% to ±0.18%") in text
    assert "cmc at 3x costs 130.000 ms" in text
    assert "LBO(b, c, x)     = mean cost / baseline(b)" in text
    # responsiveness of rho at 2x: p50 of the invocations 10, 9, 9 ms (mean 9.3333)
    assert "<h2>Responsiveness across invocations</h2>" in text
    assert ('<td>bench</td><td>rho</td><td>cmc</td><td class="num">2</td><td>3</td><td>15</td>'
            '<td>2</td><td class="num">13.3333</td>') in text


def test_study_page_write_is_atomic(tmp_path, monkeypatch):
    runs = apply_labels(SD.flat("unhealthy"), Labels(name_pattern=PRESET))
    out = tmp_path / "s.html"

    def boom(*a, **kw):
        raise RuntimeError("chart exploded")

    monkeypatch.setattr(study_html, "render_study", boom)
    with pytest.raises(RuntimeError):
        study_html.write_study_report(Study(runs, StudyOptions()), out)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_study_page_renders_in_headless_chromium(study_page, tmp_path):
    binary = _chromium()
    if binary is None:
        pytest.skip("chromium not installed (apt-get install chromium; tools/test.sh does it)")
    url = study_page.as_uri()
    for attempt in range(2):
        res = _browser(binary, tmp_path / f"try{attempt}", "--enable-logging=stderr", "--v=0",
                       "--dump-dom", url)
        assert res.returncode == 0, res.stderr[-2000:]
        dom = res.stdout
        body = re.search(r"<body[^>]*data-charts-rendered[^>]*>", dom)
        if body:
            break
    assert body, f"charts did not finish rendering; stderr: {res.stderr[-1500:]}"
    assert f'data-charts-rendered="{STUDY_CHARTS}"' in body.group(0)
    assert 'data-charts-failed="0"' in body.group(0)
    errors = re.search(r'<pre id="artscope-errors"[^>]*>(.*?)</pre>', dom, re.S)
    assert errors and errors.group(1).strip() == ""
    for i in range(1, STUDY_CHARTS + 1):
        div = re.search(rf'<div[^>]*id="chart-{i}"[^>]*>(.*?)<script', dom, re.S)
        assert div and re.search(r'<svg[^>]*class="marks"', div.group(1)), f"chart-{i}"
    console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, "\n".join(console)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "study_report.png"
    shot.unlink(missing_ok=True)
    res = _browser(binary, tmp_path / "shot", "--hide-scrollbars", "--window-size=1200,3000",
                   f"--screenshot={shot}", url)
    assert res.returncode == 0 and shot.exists() and shot.stat().st_size > 20_000
    assert os.path.getsize(study_page) > 100_000
