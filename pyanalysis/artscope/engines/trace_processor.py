"""The trace_processor engine: Perfetto's own importer via the `perfetto` package.

Binary resolution, in order: ``--tp-bin`` / ``ARTSCOPE_TP_BIN``, then
``trace_processor_shell`` on PATH, then the perfetto package's pinned
prebuilt if it is already cached, then (only when asked for this engine
explicitly) the package's pinned download, attempted only if its host
answers within a few seconds so an offline machine fails fast.

Import configuration is pinned: ``ingest_ftrace_in_raw`` on, as the shell and
trace_processor's diff tests assume (the Python API defaults it off; artscope
starts the shell itself, whose default it is).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import polars as pl

from artscope.engines.base import Engine, LoadInfo, columns_to_frame
from artscope.engines.truncation import mark, truncation
from artscope.errors import EngineUnavailable, QueryError, TraceError

ENV_VAR = "ARTSCOPE_TP_BIN"
SHELL_NAME = "trace_processor_shell"
_DOWNLOAD_HOST = ("commondatastorage.googleapis.com", 443)
_CONNECT_TIMEOUT_S = 3.0
_DOWNLOAD_TIMEOUT_S = 180
LOAD_TIMEOUT_S = 60


def query_error(message: str, engine: str = "trace_processor") -> QueryError:
    """trace_processor's error report (a "Traceback" naming the statement's
    line and column, the statement and a caret, then the error) as one line:
    the error, then where it is."""
    lines = [ln.strip() for ln in message.strip().splitlines() if ln.strip()]
    error = lines[-1] if lines else "unknown error"
    where = re.search(r'line (\d+) col (\d+)', message)
    at = f" (line {where[1]}, column {where[2]})" if where and len(lines) > 1 else ""
    return QueryError(f"query failed on the {engine} engine: {error}{at}")


def _pinned_manifest_entry() -> dict[str, Any] | None:
    import platform

    try:
        from perfetto.prebuilts.manifests.trace_processor_shell import (
            TRACE_PROCESSOR_SHELL_MANIFEST)
    except ImportError:  # pragma: no cover - depends on perfetto version
        return None
    plat, machine = sys.platform.lower(), platform.machine().lower()
    for entry in TRACE_PROCESSOR_SHELL_MANIFEST:
        if entry.get("platform") == plat and machine in entry.get("machine", []):
            return entry if entry.get("url") else None
    return None


def _cached_pinned_binary() -> str | None:
    entry = _pinned_manifest_entry()
    if entry is None:
        return None
    root, ext = os.path.splitext(entry["file_name"])
    path = Path.home() / ".local/share/perfetto/prebuilts" / (
        f"{root}-{entry['sha256'][:16]}{ext}")
    return str(path) if path.is_file() else None


def _usable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_local_binary(tp_bin: str | None = None) -> str | None:
    """A trace_processor binary available without any download, or None.

    An explicit ``tp_bin`` (or ARTSCOPE_TP_BIN) that is not an executable
    file raises EngineUnavailable: the user asked for it by name.
    """
    explicit = tp_bin or os.environ.get(ENV_VAR) or None
    if explicit:
        if not _usable(explicit):
            src = "--tp-bin" if tp_bin else ENV_VAR
            raise EngineUnavailable(
                f"{src} points to {explicit!r}, which is not an executable file")
        return explicit
    on_path = shutil.which(SHELL_NAME)
    if on_path:
        return on_path
    return _cached_pinned_binary()


def resolve_binary(tp_bin: str | None = None) -> str:
    """Find or (if the network allows) fetch the pinned binary; fail fast."""
    found = find_local_binary(tp_bin)
    if found:
        return found
    hint = (f"set {ENV_VAR} or --tp-bin, put {SHELL_NAME} on PATH, "
            "or use --engine embedded")
    if _pinned_manifest_entry() is None:
        raise EngineUnavailable(f"no trace_processor binary for this platform: {hint}")
    try:
        socket.create_connection(_DOWNLOAD_HOST, timeout=_CONNECT_TIMEOUT_S).close()
    except OSError:
        raise EngineUnavailable(
            f"no trace_processor binary found and its download host is unreachable: {hint}"
        ) from None
    code = ("from perfetto.prebuilts.perfetto_prebuilts import get_perfetto_prebuilt;"
            "from perfetto.prebuilts.manifests.trace_processor_shell import "
            "TRACE_PROCESSOR_SHELL_MANIFEST as M; print(get_perfetto_prebuilt(M))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                             text=True, timeout=_DOWNLOAD_TIMEOUT_S, check=True)
    except (subprocess.SubprocessError, OSError):
        raise EngineUnavailable(
            f"downloading trace_processor failed: {hint}") from None
    path = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    if not _usable(path):
        raise EngineUnavailable(f"downloading trace_processor failed: {hint}")
    return path


def _sql_literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return repr(float(v))
    return "'" + str(v).replace("'", "''") + "'"


class TraceProcessorEngine(Engine):
    """Loads the trace into a trace_processor_shell subprocess."""

    name = "trace_processor"

    def __init__(self, tp_bin: str | None = None,
                 extra_sql_packages: Sequence[str] = ()) -> None:
        super().__init__()
        self.tp_bin = tp_bin
        self.extra_sql_packages = list(extra_sql_packages)
        self.tp: Any = None
        self._shell: subprocess.Popen | None = None

    def load(self, path: str | Path) -> LoadInfo:
        from artscope.engines.embedded import core
        from artscope.engines.embedded.formats import read_file

        # Validate the input the same way as the embedded engine, so bad input
        # gets the same one-line error whichever engine is used; the core also
        # flags a truncated protobuf trace, which trace_processor imports
        # silently.
        data = read_file(path)
        checked = core.inspect(data, str(path))
        # a systrace file cut before its end (truncation.py), which neither
        # importer reports
        cut = truncation(data) if checked.kind == "systrace" else None
        del data
        binary = resolve_binary(self.tp_bin)
        from perfetto.trace_processor import TraceProcessor

        self._shell, addr = _start_shell(binary, self.extra_sql_packages)
        try:
            self.tp = TraceProcessor(trace=str(path), addr=addr)
        except Exception as e:  # perfetto raises bare Exceptions for load failures
            self.close()
            raise TraceError(f"trace_processor could not load {path}: "
                             f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                             ) from None
        self.info = mark(LoadInfo(engine=self.name, path=str(path), partial=checked.partial,
                                  warnings=checked.warnings), cut)
        return self.info

    def query(self, sql: str) -> pl.DataFrame:
        if self.tp is None:
            raise RuntimeError("no trace loaded")
        qr = self._run(sql)
        cols = list(qr.column_names)
        if not cols:
            return pl.DataFrame()
        # Cells come row-major in one flat (numpy object) array: take each
        # column as a strided slice instead of building a tuple per row.
        cells, n = qr.cells, len(cols)
        return columns_to_frame(cols, [_plain(cells[j::n]) for j in range(n)])

    def _run(self, sql: str) -> Any:
        """``sql`` on the shell; its failure as one QueryError line."""
        from perfetto.common.exceptions import PerfettoException

        try:
            return self.tp.query(sql)
        except PerfettoException as e:
            raise query_error(str(e), self.name) from None

    def create_table(self, name: str, columns: Sequence[str],
                     rows: Sequence[Sequence[Any]]) -> None:
        self._run(f"DROP TABLE IF EXISTS {name}")
        self._run(f"CREATE TEMP TABLE {name} ({', '.join(columns)})")
        # Values are ints/floats/strings from artscope itself, rendered as SQL
        # literals (the shell has no bound parameters); 400 rows a statement
        # stays under SQLite's compound-select limit.
        for i in range(0, len(rows), 400):
            values = ", ".join(
                "(" + ", ".join(_sql_literal(v) for v in r) + ")" for r in rows[i:i + 400])
            self._run(f"INSERT INTO {name} VALUES {values}")

    def close(self) -> None:
        try:
            if self.tp is not None:
                self.tp.close()
        finally:
            self.tp = None
            if self._shell is not None:
                _stop_shell(self._shell)
                self._shell = None

    def __del__(self) -> None:
        # An engine dropped without close() still stops its shell.
        if getattr(self, "_shell", None) is not None:
            self.close()


#: Shells started by this process and not yet stopped; stopped at exit, so an
#: interrupted run leaves no trace_processor_shell behind.
_LIVE_SHELLS: set[subprocess.Popen] = set()


@atexit.register
def _stop_live_shells() -> None:
    for proc in list(_LIVE_SHELLS):
        _stop_shell(proc)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_shell(binary: str, sql_packages: Sequence[str]) -> tuple[subprocess.Popen, str]:
    """Start ``trace_processor_shell -D`` on a free loopback port; returns it and
    its address once it answers.

    The perfetto package starts the shell the same way but, when the server
    is not up at its first probe (it never is), sleeps a whole second before
    probing again: ~1 s on every trace, a third of trace_processor's own
    load of a 2M-switch trace. Here the probe repeats every 10 ms. Raw
    ftrace ingestion is the shell's default, so it stays on.
    """
    port = _free_port()
    args = [binary, "-D", "--http-port", str(port)]
    for pkg in sql_packages:
        args += ["--add-sql-package", str(pkg)]
    args = _dying_with_parent(args)
    # stderr goes to a file, not a pipe: a pipe nobody reads would stall the
    # shell once its buffer filled with log lines.
    stderr = tempfile.TemporaryFile()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=stderr, start_new_session=True)
    proc.stderr_file = stderr  # type: ignore[attr-defined]
    _LIVE_SHELLS.add(proc)
    deadline = time.monotonic() + LOAD_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            stderr.seek(0)
            err = stderr.read().decode(errors="replace").strip().splitlines()
            _stop_shell(proc)
            raise EngineUnavailable(f"trace_processor_shell ({binary}) exited at start-up"
                                    + (f": {err[-1]}" if err else ""))
        try:  # listening = up (a plain connect: no HTTP proxy settings apply)
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"127.0.0.1:{port}"
        except OSError:
            time.sleep(0.01)
    _stop_shell(proc)
    raise EngineUnavailable(f"trace_processor_shell ({binary}) did not start within "
                            f"{LOAD_TIMEOUT_S} s")


_PDEATHSIG: list[str] | None = None


def _dying_with_parent(args: list[str]) -> list[str]:
    """``args`` run so that the shell is killed when the process that started
    it dies without closing it (a SIGKILLed client, a pool or Dask worker
    terminated mid-task): atexit and __del__ never run then, and the shell,
    in its own session, would outlive it holding the trace in memory.

    On Linux, util-linux's ``setpriv --pdeathsig KILL`` sets the parent-death
    signal and execs the shell (the pid stays the shell's). The kernel ties it
    to the thread that started the shell: artscope opens and closes an engine
    within one task on one thread. Elsewhere, or with a setpriv too old for
    the option, the shell starts as before."""
    global _PDEATHSIG
    if _PDEATHSIG is None:
        _PDEATHSIG = []
        setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
        if setpriv:
            probe = [setpriv, "--pdeathsig", "KILL", "--", sys.executable, "-c", ""]
            try:
                if subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=10).returncode == 0:
                    _PDEATHSIG = probe[:4]
            except (OSError, subprocess.SubprocessError):
                pass
    return _PDEATHSIG + args


def _stop_shell(proc: subprocess.Popen) -> None:
    _LIVE_SHELLS.discard(proc)
    try:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        proc.stderr_file.close()  # type: ignore[attr-defined]


_PLAIN_TYPES = frozenset({int, float, str, bytes, type(None)})


def _plain(values: Sequence[Any]) -> list[Any]:
    """A column's cells as plain Python values (see _py); a no-op copy when
    they already are."""
    values = list(values)
    if set(map(type, values)) <= _PLAIN_TYPES:
        return values
    return [_py(v) for v in values]


def _py(v: Any) -> Any:
    """numpy scalars from the perfetto package -> plain Python values.

    np.float64 subclasses float, so exact types are checked: every value
    must reach columns_to_frame as int / float / str / bytes / None, exactly as
    the embedded engine's sqlite3 rows do.
    """
    if v is None or type(v) in (int, float, str, bytes):
        return v
    if hasattr(v, "item"):
        return v.item()
    return v
