"""`artscope open`: the trace served once on loopback, the Perfetto UI deep link.

Served for real: the CLI runs in a subprocess on a free port, urllib fetches
with the UI's Origin header. Never opens a browser (--no-browser, and
open_browser is only tested with webbrowser replaced).

Expected ranges come from the fixture schedule (fixtures/README.md, times in
ms after T0): pinned_late's "App Benchmark" W = [200, 2700); with --cpus big
(6,7) the app runs off-mask from W's start (patterns A/B on CPUs 2-5 before
1400 ms) until worker1's escape to CPU 3 ends at 2061.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import webbrowser
from pathlib import Path

import pytest
from click.testing import CliRunner

from artscope import ui_link
from artscope.cli import main
from artscope.errors import SelectionError
from schedules import MS, T0

REPO = Path(__file__).resolve().parents[2]
TRACE = REPO / "fixtures" / "pinned_late.pftrace"
SELECT = ["--app", "com.example.bench", "--cpus", "big", "--engine", "embedded"]
UI = "https://ui.perfetto.dev"
WAIT_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fragment_args(url: str) -> tuple[str, dict[str, str]]:
    """(base, args) of a UI link: args parsed from the '#!/?...' fragment."""
    base, _, fragment = url.partition("#")
    assert fragment.startswith("!/?"), url
    pairs = urllib.parse.parse_qsl(fragment[3:], strict_parsing=True)
    assert len({k for k, _ in pairs}) == len(pairs), url  # no repeated keys
    return base, dict(pairs)


def _request(url: str, method: str = "GET", headers: dict[str, str] | None = None):
    req = urllib.request.Request(url, method=method, headers={"Origin": UI, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class _OpenProcess:
    """`artscope open ... --no-browser --port P` in a subprocess; ``link`` is
    the first stdout line, printed once the server listens."""

    def __init__(self, *args: str) -> None:
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(REPO / "pyanalysis")}
        env.pop("ARTSCOPE_TP_BIN", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "artscope.cli", "open", str(TRACE), *SELECT, *args,
             "--no-browser", "--port", str(self.port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.link = self.proc.stdout.readline().strip()
        if not self.link:
            self.proc.kill()
            raise AssertionError(f"no link printed: {self.proc.communicate()}")

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=WAIT_S)
        return self.proc.returncode, out, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def opened(request):
    procs: list[_OpenProcess] = []

    def start(*args: str) -> _OpenProcess:
        procs.append(_OpenProcess(*args))
        return procs[-1]

    yield start
    for p in procs:
        p.kill()


def test_serves_the_trace_once_with_cors_and_links_to_the_reason(opened):
    p = opened("--reason", "off_mask_cpu")
    base, args = _fragment_args(p.link)
    trace_url = f"http://127.0.0.1:{p.port}/pinned_late.pftrace"
    assert base == f"{UI}/"
    assert args == {"url": trace_url,
                    "visStart": str(T0 + 200 * MS), "visEnd": str(T0 + 2061 * MS)}

    # Other paths are 404 and do not end the server.
    status, headers, _ = _request(f"http://127.0.0.1:{p.port}/other.pftrace")
    assert status == 404 and headers["Access-Control-Allow-Origin"] == UI
    # The CORS preflight, including Chrome's private-network one.
    status, headers, body = _request(trace_url, "OPTIONS", {
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "range",
        "Access-Control-Request-Private-Network": "true"})
    assert (status, body) == (204, b"")
    assert headers["Access-Control-Allow-Origin"] == UI
    assert headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    assert headers["Access-Control-Allow-Headers"] == "range"
    assert headers["Access-Control-Allow-Private-Network"] == "true"
    assert p.proc.poll() is None  # still serving

    status, headers, body = _request(trace_url)
    assert status == 200
    assert body == TRACE.read_bytes()
    assert headers["Access-Control-Allow-Origin"] == UI
    assert headers["Content-Length"] == str(TRACE.stat().st_size)
    assert headers["Content-Type"] == "application/octet-stream"
    code, out, err = p.finish()  # served once: the server stops by itself
    assert (code, out) == (0, "")
    assert err.splitlines()[-1] == f"served {TRACE.stat().st_size} bytes to {UI}"


def test_run_link_shows_the_window_and_selects_the_marker_slice(opened):
    p = opened("--run", "0")
    _, args = _fragment_args(p.link)
    assert {k: v for k, v in args.items() if k != "url"} == {
        "visStart": str(T0 + 200 * MS), "visEnd": str(T0 + 2700 * MS),
        "ts": str(T0 + 200 * MS), "dur": str(2500 * MS)}  # the "App Benchmark" slice
    status, _, body = _request(args["url"])
    assert (status, body) == (200, TRACE.read_bytes())
    assert p.finish()[0] == 0


def test_ctrl_c_stops_the_server_and_frees_the_port(opened):
    p = opened()
    p.proc.send_signal(signal.SIGINT)
    code, _, err = p.finish()
    assert code == 130 and err.splitlines()[-1] == "artscope: interrupted"
    with socket.socket() as s:  # the port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", p.port))


def test_port_in_use_is_a_one_line_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        result = CliRunner().invoke(main, ["open", str(TRACE), *SELECT, "--no-browser",
                                           "--port", str(port)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"artscope: error: port {port} on 127.0.0.1 is in use (another `artscope open` or "
        "`trace_processor_shell --httpd`?): stop it and retry, or pick another --port\n")


@pytest.mark.parametrize("args, message", [
    (["--reason", "nope"], "run 0 has no reason 'nope' (its reasons: cpufreq_throttled, "
     "cpufreq_unstable, memfreq_unstable, off_mask_cpu)"),
    (["--run", "3"], "no run 3 in the trace (runs: 0)"),
])
def test_unknown_run_or_reason(args, message):
    result = CliRunner().invoke(main, ["open", str(TRACE), *SELECT, *args, "--no-browser",
                                       "--port", "0"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"artscope: error: {message}\n"


def test_missing_trace_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["open", str(tmp_path / "no.pftrace"), "--no-browser"])
    assert result.exit_code == 2
    assert result.stderr == f"artscope: error: no such file: {tmp_path / 'no.pftrace'}\n"


def test_json_reasons_carry_the_range_the_link_uses():
    import json

    result = CliRunner().invoke(main, ["analyze", str(TRACE), *SELECT, "--format", "json"])
    (run,) = json.loads(result.stdout)
    spans = {(x["id"], x["start_ts"], x["end_ts"]) for x in run["health"]["reasons"]}
    window = (T0 + 200 * MS, T0 + 2700 * MS)
    assert spans == {("off_mask_cpu", T0 + 200 * MS, T0 + 2061 * MS),
                     ("cpufreq_unstable", *window), ("cpufreq_throttled", *window),
                     ("memfreq_unstable", *window)}
    target = ui_link.target([run], reason="off_mask_cpu")
    assert target.vis == (T0 + 200 * MS, T0 + 2061 * MS) and target.select is None


def _result(source: str, reasons: list[tuple[str, int, int]], run: int = 0) -> dict:
    return {"run": run, "window": {"start_ts": 100, "end_ts": 900, "source": source},
            "health": {"reasons": [{"id": i, "start_ts": s, "end_ts": e} for i, s, e in reasons]}}


def test_target_rules():
    results = [_result("window", []),
               _result("marker", [("cpufreq_unstable", 100, 900), ("cpufreq_unstable", 100, 900),
                                  ("off_mask_cpu", 300, 350), ("x", 400, 400)], run=1)]
    # A --window run has no slice to select; a marker run selects its slice.
    assert ui_link.target(results, 0) == ui_link.Target((100, 900), None, "run 0 (window window)")
    assert ui_link.target(results, 1).select == (100, 800)
    assert ui_link.target(results, 1, "off_mask_cpu").vis == (300, 350)
    assert ui_link.target(results, 1, "cpufreq_unstable").vis == (100, 900)
    assert ui_link.target(results, 1, "x").vis == (400, 401)  # an instant: 1 ns, UI zooms in
    with pytest.raises(SelectionError, match=r"^run 0 has no reason 'x' \(it has none: the run passed\)$"):
        ui_link.target(results, 0, "x")


def test_ui_url_escapes_values_the_ui_decodes():
    url = ui_link.ui_url("http://127.0.0.1:9001/my%20run%26b.pftrace", (5, 7), (5, 2),
                         origin="http://localhost:10000/path")
    assert url == ("http://localhost:10000/path/#!/?url=http://127.0.0.1:9001/my%2520run%2526b.pftrace"
                   "&visStart=5&visEnd=7&ts=5&dur=2")
    # The UI percent-decodes each value once: back to the served (quoted) URL.
    assert _fragment_args(url)[1]["url"] == "http://127.0.0.1:9001/my%20run%26b.pftrace"
    with pytest.raises(ValueError):
        ui_link.ui_url("http://x/t", (7, 7))


def test_file_names_needing_quotes_are_served(tmp_path):
    import threading

    path = tmp_path / "my run&b.pftrace"
    path.write_bytes(b"\x0a\x00trace")
    with ui_link.TraceServer(path, port=0) as server:
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        assert server.url == f"http://127.0.0.1:{server.port}/my%20run%26b.pftrace"
        assert _request(server.url, "HEAD")[0] == 200  # HEAD does not count as served
        status, headers, body = _request(server.url)
        thread.join(WAIT_S)
    assert (status, body, server.served, thread.is_alive()) == (200, b"\x0a\x00trace", True, False)


@pytest.mark.parametrize("env, opens", [
    ({}, False),  # SSH/CI: no display, no $BROWSER -> print only
    ({"DISPLAY": ":0"}, True),
    ({"BROWSER": "firefox"}, True),
])
def test_open_browser_only_with_a_graphical_browser(monkeypatch, env, opens):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(ui_link.sys, "platform", "linux")
    calls = []
    monkeypatch.setattr(webbrowser, "open_new_tab", lambda url: calls.append(url) or True)
    assert ui_link.open_browser("https://ui.perfetto.dev/#!/") is opens
    assert calls == (["https://ui.perfetto.dev/#!/"] if opens else [])
