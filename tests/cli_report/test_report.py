"""artscope report: the self-contained HTML page, its atomic write, the CLI,
and rendering in a real headless browser (Debian's chromium)."""

from __future__ import annotations

import html as html_lib
import json
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
API32 = "perfskills-api32_startup_warm.perfetto-trace"
API32_APP = "androidx.benchmark.integration.macrobenchmark.target"
NIA = "nia-sidky.perfetto-trace"
NIA_APP = "com.google.samples.apps.nowinandroid.demo"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
#: pinned_late's reasons, in the verdict's order, each with its chart
LATE_REASONS = ["off_mask_cpu", "cpufreq_unstable", "cpufreq_throttled", "memfreq_unstable"]
#: one chart per reason + 6 of the whole run (timeline, frequency, residency,
#: frame durations, GC pauses, MMU) + the memory section's + the trace's GC chart
CHARTS_ONE_RUN = len(LATE_REASONS) + 6 + 1 + 1
#: the same for pinned_clean (passes: no reasons)
CHARTS_CLEAN = 6 + 1 + 1


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
    # verdict, reasons (each with its chart, in order) and metric tables
    assert '<span class="verdict fail">fail</span>' in text
    reasons = re.findall(r'<div class="reason sev-(\w+)[^"]*" data-reason="(\w+)">.*?'
                         r'<div class="reason-chart"><div class="chart" id="chart-(\d+)"', text)
    assert [r[1] for r in reasons] == LATE_REASONS
    assert [r[0] for r in reasons] == ["fail"] * 4
    assert [int(r[2]) for r in reasons] == [1, 2, 3, 4]  # the first charts of the page
    # durations in ms, times relative to the run start (window starts at 200 ms)
    assert "<td class=\"num\">1,574.000 ms</td>" in text  # off_mask_cpu_ns
    assert "<td class=\"num\">+0.000 s</td>" in text  # first_violation_ts (clipped to W)
    assert "<td class=\"num\">+1.861 s</td>" in text  # last_violation_end_ts: 2061 ms
    assert "<dt>when</dt><dd>+0.000 s to +1.861 s</dd>" in text  # the off-mask reason
    assert text.count("<dt>when</dt><dd>+0.000 s to +2.500 s</dd>") == 3  # whole window
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
    assert len(re.findall(r'<div class="chart" id=', text)) == 1 + CHARTS_ONE_RUN + CHARTS_CLEAN


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


def _specs(text: str) -> str:
    """Every chart spec (inline JSON) of a report page, concatenated."""
    return "".join(re.findall(r'data-artscope-target="chart-\d+">(.*?)</script>', text, re.S))


def test_other_clocks_are_folded_and_charted_only_on_request(fixtures_dir, tmp_path):
    # freq.pftrace: 3 memory controllers + a GPU bus devfreq and a busmon poll
    out = tmp_path / "freq.html"
    res = CliRunner().invoke(main, ["report", str(fixtures_dir / "freq.pftrace"), "--app", APP,
                                    "--cpus", "6,7", "--engine", "embedded", "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    mem = re.search(r"<h4>Memory-controller frequency</h4>\s*<table>(.*?)</table>", text, re.S)
    assert re.findall(r"<tr><td>([^<]*)</td>", mem.group(1)) == [
        "17000010.devfreq_mif", "soc:qcom,cpu-cpu-llcc-bw", "soc:qcom,cpu-llcc-ddr-bw"]
    # the other devices are left out unless --all-clocks asks for them
    assert '<details class="other-clocks">' not in text
    assert "gpubw" not in _specs(text) and "kgsl-busmon" not in _specs(text)
    assert "soc:qcom,cpu-llcc-ddr-bw" in _specs(text)

    res = CliRunner().invoke(main, ["report", str(fixtures_dir / "freq.pftrace"), "--app", APP,
                                    "--cpus", "6,7", "--engine", "embedded", "--all-clocks",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    folded = re.search(r'<details class="other-clocks"><summary>Other clocks and devices '
                       r'\(2\)(.*?)</details>', text, re.S)
    assert folded
    assert re.findall(r"<tr><td>([^<]*)</td>", folded.group(1)) == [
        "soc:qcom,gpubw", "soc:qcom,kgsl-busmon"]
    assert "gpubw" in _specs(text) and "kgsl-busmon" in _specs(text)
    assert '<details class="other-clocks">' in text  # the tables stay the same


# -- real browser ----------------------------------------------------------------
# The page is checked the way a person sees it: Debian's headless chromium
# renders it at 1300 px wide; a probe script (appended to a copy of the page,
# never shipped) waits for every chart, opens every <details>, measures the DOM
# and writes the geometry into a <pre> that --dump-dom returns.

VIEWPORT = 1300
PROBE = """<script>
(function () {
  function box(el) {
    var r = el.getBoundingClientRect();
    return [r.left, r.top + window.scrollY, r.right, r.bottom + window.scrollY];
  }
  function measure() {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
    var root = document.documentElement, vw = root.clientWidth, wide = [];
    document.querySelectorAll('body *').forEach(function (el) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') return;
      var r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5))
        wide.push(el.tagName + '#' + el.id + ' right=' + r.right + ' ' +
                  (el.textContent || '').slice(0, 60));
    });
    var runs = Array.prototype.map.call(document.querySelectorAll('section.run'), function (sec) {
      return {
        id: sec.id,
        parts: Array.prototype.map.call(sec.querySelectorAll('[data-section]'), function (d) {
          return [d.getAttribute('data-section'), box(d)[1]];
        }),
        reasons: Array.prototype.map.call(sec.querySelectorAll('.reason'), function (r) {
          var svg = r.querySelector('.reason-chart svg.marks');
          return {id: r.getAttribute('data-reason'),
                  text: box(r.querySelector('.reason-text')),
                  chart: svg ? box(svg) : null};
        })
      };
    });
    var out = document.createElement('pre');
    out.id = 'artscope-geometry';
    out.textContent = JSON.stringify({viewport: vw, scrollWidth: root.scrollWidth,
                                      height: root.scrollHeight, wide: wide, runs: runs,
                                      text: document.body.innerText});
    document.body.appendChild(out);
  }
  var timer = setInterval(function () {
    if (document.body.hasAttribute('data-charts-rendered')) {
      clearInterval(timer);
      measure();
    }
  }, 50);
})();
</script>
"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _browser(binary: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=30000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def render_in_browser(report: Path, tmp_path: Path, shot_name: str) -> tuple[dict, str, str]:
    """Render ``report`` in headless chromium at VIEWPORT px: (geometry,
    dumped DOM, browser stderr); a full-page screenshot goes to
    tests/artifacts/<shot_name>.png."""
    binary = _chromium()
    if binary is None:
        pytest.skip("chromium not installed (apt-get install chromium; tools/test.sh does it)")
    probed = tmp_path / f"probed-{report.name}"
    probed.write_text(report.read_text() + PROBE)
    # Virtual time fast-forwards while the page is idle, so a generous budget
    # costs nothing; one retry absorbs a dump taken early on a loaded machine.
    for attempt in range(2):
        res = _browser(binary, tmp_path / f"try{attempt}", "--enable-logging=stderr", "--v=0",
                       f"--window-size={VIEWPORT},1000", "--dump-dom", probed.as_uri())
        assert res.returncode == 0, res.stderr[-2000:]
        geo = re.search(r'<pre id="artscope-geometry">(.*?)</pre>', res.stdout, re.S)
        if geo:
            break
    assert geo, ("charts did not finish rendering within the virtual time budget; "
                 f"stderr: {res.stderr[-1500:]}")
    geometry = json.loads(html_lib.unescape(geo.group(1)))

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{shot_name}.png"
    shot.unlink(missing_ok=True)
    height = min(int(geometry["height"]) + 20, 16_000)
    shot_res = _browser(binary, tmp_path / "shot", "--hide-scrollbars",
                        f"--window-size={VIEWPORT},{height}", f"--screenshot={shot}",
                        report.as_uri())
    assert shot_res.returncode == 0, shot_res.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 20_000
    return geometry, res.stdout, res.stderr


def assert_reads_top_down(geometry: dict, dom: str, stderr: str, n_charts: int) -> None:
    """The checks every rendered report must pass, fixture or real trace."""
    body = re.search(r"<body[^>]*data-charts-rendered[^>]*>", dom).group(0)
    assert f'data-charts-rendered="{n_charts}"' in body and 'data-charts-failed="0"' in body
    errors = re.search(r'<pre id="artscope-errors"[^>]*>(.*?)</pre>', dom, re.S)
    assert errors and errors.group(1).strip() == "", errors and errors.group(1)
    # every chart div holds a rendered Vega SVG with marks
    for i in range(1, n_charts + 1):
        div = re.search(rf'<div[^>]*id="chart-{i}"[^>]*>(.*?)<script', dom, re.S)
        assert div, f"chart-{i} missing"
        assert re.search(r'<svg[^>]*class="marks"', div.group(1)), f"chart-{i} has no SVG"
    # no console output at all (Vega warnings, exceptions, failed loads)
    console = [ln for ln in stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, "\n".join(console)

    # nothing wider than the page (its width less the scroll bar), <details> opened
    assert VIEWPORT - 30 < geometry["viewport"] <= VIEWPORT
    assert geometry["scrollWidth"] <= geometry["viewport"]
    assert geometry["wide"] == []
    # per run: verdict (reasons), then metric tables, then the whole-run charts
    assert geometry["runs"]
    for run in geometry["runs"]:
        names = [name for name, _ in run["parts"]]
        # the conditions line under the run's verdict badge, the reasons, ...,
        # then the memory section (and start-up, when the trace has launches)
        assert [n for n in names if n not in ("memory", "startups")] == [
            "conditions", "verdict", "tables", "charts"], run["id"]
        assert names.index("memory") > names.index("charts"), run["id"]
        tops = [top for _, top in run["parts"]]
        assert tops == sorted(tops), run
        # each reason's chart (if any) is beside its text, not below it
        for r in run["reasons"]:
            if r["chart"] is None:
                continue
            text, chart = r["text"], r["chart"]
            assert chart[0] >= text[2], r  # to the right of the text
            assert chart[1] < text[3] and text[1] < chart[3], r  # overlapping rows
            assert chart[2] <= geometry["viewport"], r
    # a person reads relative times, never absolute trace ns
    text = geometry["text"]
    assert not re.search(r"\d{12,}|\d{1,3}(,\d{3}){4,}", text), \
        re.search(r".{60}(\d{12,}|\d{1,3}(,\d{3}){4,}).{20}", text, re.S)


@pytest.mark.slow
def test_report_renders_in_headless_chromium(late_report, tmp_path):
    geometry, dom, stderr = render_in_browser(late_report, tmp_path, "report_pinned_late")
    assert_reads_top_down(geometry, dom, stderr, CHARTS_ONE_RUN)
    (run,) = geometry["runs"]
    assert [r["id"] for r in run["reasons"]] == LATE_REASONS
    assert all(r["chart"] is not None for r in run["reasons"])
    # the window starts 200 ms into the trace; violations from its start to
    # +1.861 s (2061 ms, the end of worker1's escape)
    assert "between +0 ns and +1.861 s" in geometry["text"]


@pytest.mark.slow
def test_two_trace_report_in_headless_chromium(fixtures_dir, tmp_path):
    out = tmp_path / "two.html"
    report_html.write_report(
        [fixtures_dir / "pinned_late.pftrace", fixtures_dir / "pinned_clean.pftrace"], out,
        app=APP, cpus="6,7", engine="embedded")
    geometry, dom, stderr = render_in_browser(out, tmp_path, "report_two_traces")
    assert_reads_top_down(geometry, dom, stderr, 1 + CHARTS_ONE_RUN + CHARTS_CLEAN)
    assert [r["id"] for r in geometry["runs"]] == ["run-0-0", "run-1-0"]
    assert geometry["runs"][1]["reasons"] == []  # pinned_clean passes


@pytest.mark.slow
def test_real_trace_report_in_headless_chromium(shared_traces, tmp_path):
    # A real Pixel 6a warm start-up, big cores.
    out = tmp_path / "api32.html"
    report_html.write_report([shared_traces / API32], out, app=API32_APP, cpus="big",
                             engine="embedded")
    text = out.read_text()
    # 4 reasons with a chart each + 6 whole-run charts + memory and start-up + the GC chart
    geometry, dom, stderr = render_in_browser(out, tmp_path, "report_api32")
    assert_reads_top_down(geometry, dom, stderr, 4 + 6 + 2 + 1)
    (run,) = geometry["runs"]
    # the Pixel 6a trace has no CPU capacities: "big" is inferred (and said so);
    # its refused vendor events are an info line
    assert [r["id"] for r in run["reasons"]] == [
        "cpus_inferred", "off_mask_cpu", "cpufreq_unstable", "cpufreq_unstable",
        "memfreq_unstable", "data_loss"]
    # the memory controller alone in its table; the 48 other clocks are not in
    # memfreq without --all-clocks, so not on the page at all
    mem = re.search(r"<h4>Memory-controller frequency</h4>\s*<table>(.*?)</table>", text, re.S)
    assert mem and re.findall(r"<tr><td>([^<]*)</td>", mem.group(1)) == ["17000010.devfreq_mif"]
    assert "other-clocks" not in text and "UCLAMP_MIN_2348" not in text
    # ... and out of the charts (chart specs live in the JSON scripts)
    specs = _specs(text)
    assert "17000010.devfreq_mif" in specs
    assert "UCLAMP" not in specs and "gpu_util" not in specs and "domain@" not in specs
    # CPUs 6 and 7 share a clock: said in the chart, one colour each, no "false" legend
    assert "CPUs 6, 7 share one clock" in specs
    assert "max limit: false" not in geometry["text"] and "false" not in geometry["text"]


@pytest.mark.slow
@pytest.mark.parametrize("name,options,charts", [
    # no sched, no cpufreq: reasons without charts; 6 whole-run charts, memory + GC
    (NIA, dict(app=NIA_APP), 6 + 1 + 1),
    # legacy systrace HTML
    ("trappy-surfaceflinger.html", dict(pid=594, cpus="0-3"), None),
])
def test_other_real_traces_render(shared_traces, tmp_path, name, options, charts):
    out = tmp_path / "r.html"
    results = report_html.write_report([shared_traces / name], out, engine="embedded",
                                       **options)
    if charts is None:  # one chart per charted reason + 6 per run and memory + GC
        charts = len(re.findall(r'<div class="reason-chart"><div class="chart"',
                                out.read_text())) + 7 * len(results) + 1
    geometry, dom, stderr = render_in_browser(out, tmp_path, "report_" + name.split(".")[0])
    assert_reads_top_down(geometry, dom, stderr, charts)
    assert len(geometry["runs"]) == len(results)
