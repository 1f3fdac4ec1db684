"""Open a trace in the Perfetto UI at a given time range, served from loopback.

Works like Perfetto's own ``tools/open_trace_in_ui``: the trace is served once
on http://127.0.0.1:9001 (the only local origin the UI's Content Security
Policy lets it fetch from) with ``Access-Control-Allow-Origin`` set to the UI's
origin, and the UI is pointed at it with
``https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/NAME``. On top of that
the link carries the UI's deep-link route arguments (Perfetto docs, "Deep
linking to the Perfetto UI"; ui/src/public/route_schema.ts):

- ``visStart``/``visEnd``: the initial viewport, raw trace ns. The UI applies
  them only when ``visStart < visEnd`` and both lie inside the trace bounds,
  and adds its own 10% margin on each side, so the exact range is passed;
- ``ts``/``dur``: select the slice with exactly this start and duration
  (artscope uses it for the marker slice that defines a run).

The server answers the CORS preflight (OPTIONS) too, including Chrome's
Private Network Access preflight (``Access-Control-Request-Private-Network``)
that a public https page triggers when it fetches from loopback.
"""

from __future__ import annotations

import dataclasses
import errno
import http.server
import os
import shutil
import sys
import urllib.parse
import webbrowser
from pathlib import Path
from typing import Any, Callable

from artscope.errors import ArtscopeError, SelectionError, TraceError

#: The public Perfetto UI.
UI_ORIGIN = "https://ui.perfetto.dev"
#: The port the UI's CSP allows fetching from (shared with trace_processor --httpd).
UI_PORT = 9001
HOST = "127.0.0.1"


class ServeError(ArtscopeError):
    """The trace cannot be served (port taken, no permission...)."""


@dataclasses.dataclass(frozen=True)
class Target:
    """Where the link jumps: a viewport, optionally a slice to select."""

    #: (start, end) trace ns shown, start < end
    vis: tuple[int, int]
    #: (ts, dur) of the slice to select, or None
    select: tuple[int, int] | None
    #: for the user, e.g. "run 0 (app_benchmark window)"
    what: str


def target(results: list[dict[str, Any]], run: int = 0, reason: str | None = None) -> Target:
    """The range to show for ``run`` of one trace's analyze results.

    Without ``reason``: the run's window, selecting the marker slice when the
    window is one. With ``reason`` (an id such as ``off_mask_cpu``): the
    reason's ``start_ts``/``end_ts``; when several reasons of the run share the
    id (e.g. cpufreq_unstable for two CPUs), the span covering all of them.
    Raises SelectionError naming what exists.
    """
    by_run = {r["run"]: r for r in results}
    if run not in by_run:
        raise SelectionError(f"no run {run} in the trace (runs: {', '.join(map(str, sorted(by_run)))})")
    result = by_run[run]
    w = result["window"]
    if reason is None:
        select = ((w["start_ts"], w["end_ts"] - w["start_ts"])
                  if w["source"] in ("marker", "app_benchmark") else None)
        return Target((w["start_ts"], w["end_ts"]), select,
                      f"run {run} ({w['source']} window)")
    hits = [x for x in result["health"]["reasons"] if x["id"] == reason]
    if not hits:
        ids = sorted({x["id"] for x in result["health"]["reasons"]})
        have = f"its reasons: {', '.join(ids)}" if ids else "it has none: the run passed"
        raise SelectionError(f"run {run} has no reason {reason!r} ({have})")
    start = min(x["start_ts"] for x in hits)
    end = max(x["end_ts"] for x in hits)
    # The UI ignores an empty viewport; an instant becomes 1 ns, which the UI
    # widens to its minimum zoom around that instant.
    return Target((start, max(end, start + 1)), None, f"reason {reason} of run {run}")


def ui_url(trace_url: str, vis: tuple[int, int] | None = None,
           select: tuple[int, int] | None = None, origin: str = UI_ORIGIN) -> str:
    """The UI link that loads ``trace_url`` and shows ``vis`` = (start, end) ns.

    ``select`` = (ts, dur) selects the slice with exactly that start and
    duration. The arguments go in the fragment's query string, which the UI's
    router parses (percent-decoding each value).
    """
    args = [("url", trace_url)]
    if vis is not None:
        start, end = vis
        if not start < end:
            raise ValueError(f"empty range [{start}, {end}]")
        args += [("visStart", str(start)), ("visEnd", str(end))]
    if select is not None:
        args += [("ts", str(select[0])), ("dur", str(select[1]))]
    query = urllib.parse.urlencode(args, safe=":/", quote_via=urllib.parse.quote)
    return f"{origin.rstrip('/')}/#!/?{query}"


class TraceServer:
    """Serves one file on HOST:port until it has been fetched completely once.

    Binding happens in the constructor, so a taken port is reported before any
    link is printed. Use as a context manager; :meth:`serve` blocks.
    """

    def __init__(self, path: str | os.PathLike[str], port: int = UI_PORT,
                 origin: str = UI_ORIGIN) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise TraceError(f"no such file: {self.path}")
        self.size = self.path.stat().st_size
        self.origin = _origin_only(origin)
        self.served = False
        self._log: Callable[[str], None] = lambda _msg: None
        try:
            self._httpd = http.server.HTTPServer((HOST, port), _Handler)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise ServeError(
                    f"port {port} on {HOST} is in use (another `artscope open` or "
                    "`trace_processor_shell --httpd`?): stop it and retry"
                    + ("" if port == UI_PORT else ", or pick another --port")) from None
            raise ServeError(f"cannot serve on {HOST}:{port}: {e.strerror or e}") from None
        self._httpd.trace_server = self  # type: ignore[attr-defined]
        self.port = self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Where the trace is served, e.g. http://127.0.0.1:9001/run1.pftrace."""
        return f"http://{HOST}:{self.port}/{urllib.parse.quote(self.path.name)}"

    def serve(self, log: Callable[[str], None] | None = None) -> None:
        """Handle requests until the trace was sent in full once (Ctrl-C stops too)."""
        if log is not None:
            self._log = log
        while not self.served:
            self._httpd.handle_request()

    def close(self) -> None:
        self._httpd.server_close()

    def __enter__(self) -> "TraceServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "artscope"

    @property
    def _trace(self) -> TraceServer:
        return self.server.trace_server  # type: ignore[attr-defined]

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", self._trace.origin)
        self.send_header("Cache-Control", "no-cache")

    def do_OPTIONS(self) -> None:  # noqa: N802 - http.server's naming
        self.send_response(204)
        self._cors()
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
        asked = self.headers.get("Access-Control-Request-Headers")
        if asked:
            self.send_header("Access-Control-Allow-Headers", asked)
        if self.headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
            self.send_header("Access-Control-Allow-Private-Network", "true")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:  # noqa: N802
        self._headers_for_trace()

    def do_GET(self) -> None:  # noqa: N802
        if not self._headers_for_trace():
            return
        trace = self._trace
        try:
            with trace.path.open("rb") as f:
                shutil.copyfileobj(f, self.wfile)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            trace._log("the browser closed the connection early; still serving")
            return
        trace.served = True
        who = self.headers.get("Origin") or self.headers.get("User-Agent") or "a client"
        trace._log(f"served {trace.size} bytes to {who}")

    def _headers_for_trace(self) -> bool:
        """Status and headers for the trace (True) or a 404 (False)."""
        trace = self._trace
        if urllib.parse.unquote(self.path.split("?", 1)[0]) != "/" + trace.path.name:
            self.send_response(404)
            self._cors()
            self.send_header("Content-Length", "0")
            self.end_headers()
            return False
        self.send_response(200)
        self._cors()
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(trace.size))
        self.end_headers()
        return True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # the CLI reports what matters; no access log on stderr


def open_browser(url: str) -> bool:
    """Open ``url`` in a graphical browser if there is one; True if opened.

    On Linux/BSD without a display (SSH, CI) nothing is opened unless
    $BROWSER names one: Python's webbrowser would otherwise fall back to a
    console browser (lynx, w3m) that cannot run the Perfetto UI and would take
    over the terminal the server is reporting to.
    """
    graphical = (sys.platform in ("darwin", "win32") or os.environ.get("BROWSER")
                 or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if not graphical:
        return False
    try:
        return bool(webbrowser.open_new_tab(url))
    except webbrowser.Error:
        return False


def _origin_only(origin: str) -> str:
    """scheme://host[:port] of ``origin`` (what CORS compares), without a path."""
    parts = urllib.parse.urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ServeError(f"invalid UI origin {origin!r}: expected e.g. {UI_ORIGIN}")
    return f"{parts.scheme}://{parts.netloc}"
