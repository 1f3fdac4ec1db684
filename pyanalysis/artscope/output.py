"""Rendering results for people (tables) and machines (JSON, CSV, Parquet),
atomic file output and the batch progress bar. Only composes the library."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from artscope.errors import UsageError

if TYPE_CHECKING:
    import polars as pl


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:.2f}%"


def _num(v: Any) -> str:
    return "—" if v is None else str(v)


def _stable(entries: list[dict[str, Any]], key: str = "stable") -> str:
    """yes / no / unknown over the series, as the flat row's *_stable columns."""
    from artscope.flatschema import all_hold

    if not entries:
        return "—"
    return {True: "yes", False: "no", None: "unknown"}[all_hold(e[key] for e in entries)]


def _rich_text(build: Callable[[Any], None]) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=max(100, min(200, _term_width())), color_system=None,
                      highlight=False)
    build(console)
    return buf.getvalue()


def _term_width() -> int:
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 140


#: A launch's phases (startups.sql breakdown) as the table names them.
LAUNCH_PHASES = (("process_start_ns", "process start"), ("bind_application_ns", "bindApplication"),
                 ("activity_start_ns", "activityStart"), ("activity_resume_ns", "activityResume"),
                 ("first_frame_ns", "first frame"))


def launch_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per launch of the target, once per trace (the launches are
    the trace's, repeated in each of its runs); none when there are none."""
    out, seen = [], set()
    for r in rows:
        if "error" in r or r["trace"] in seen:
            continue
        seen.add(r["trace"])
        for i, x in enumerate(r.get("startups") or []):
            parts = ", ".join(f"{name} {x['breakdown'][k] / 1e6:.1f} ms"
                              for k, name in LAUNCH_PHASES if x["breakdown"].get(k) is not None)
            out.append(f"[{os.path.basename(r['trace'])}] launch {i}: {x['type'] or 'unknown type'}"
                       f" {x['dur'] / 1e6:.1f} ms to the first frame, at {x['ts'] / 1e9:.3f} s"
                       f" (pid {x['pid'] if x['pid'] is not None else '?'})"
                       + (f": {parts}" if parts else ""))
    return out


def gc_frequency_text(dvfs: dict[str, Any] | None) -> str:
    """The GC's time-weighted frequency for a table cell: ``1.43 GHz``, ``?``
    when unknown (some of its CPU time at an unknown frequency), ``—`` when
    the trace cannot tell (no sched, no GCs known, no GC time)."""
    from artscope.units import format_frequency

    gc = (dvfs or {}).get("gc")
    if not gc or not gc["cpu_ns"]:
        return "—"
    return format_frequency(gc["mean"], gc["unit"])


def results_table(rows: list[dict[str, Any]]) -> str:
    """A readable summary: one line per run, then each run's reasons."""
    from rich.table import Table

    def build(console: Any) -> None:
        t = Table(show_lines=False, pad_edge=False)
        for col in ("trace", "run", "window", "verdict", "GC share", "GC count",
                    "max pause", "GC freq", "off-mask", "migr.", "janky", "cpufreq stable",
                    "memfreq stable"):
            t.add_column(col, overflow="fold")
        for r in rows:
            if "error" in r:
                # the message goes on a line of its own below the table
                t.add_row(os.path.basename(r["trace"]), "—", "—", "error", *[""] * 9)
                continue
            w = r["window"]
            mem = [m for m in r["memfreq"] if m["is_memory"]]
            jank = r["jank"]
            pause = r["gc"].get("pause_max_ns")
            t.add_row(
                os.path.basename(r["trace"]), str(r["run"]),
                f"{(w['end_ts'] - w['start_ts']) / 1e9:.3f} s ({w['source']})",
                r["health"]["verdict"], _pct(r["gc"]["gc_cpu_share"]),
                _num(r["gc"]["gc_count"]),
                "—" if pause is None else f"{pause / 1e6:.2f} ms",
                gc_frequency_text(r.get("dvfs")),
                _pct(r["pinning"]["off_mask_share"]),
                _num(r["pinning"]["migrations"]),
                "—" if jank["janky_pct"] is None else f"{jank['janky_pct']:.1f}%",
                _stable(r["cpufreq"]), _stable(mem))
        console.print(t)
        for line in reason_lines(rows):
            console.print(line, soft_wrap=True, highlight=False, markup=False)
        for line in launch_lines(rows):
            console.print(line, soft_wrap=True, highlight=False, markup=False)

    return _rich_text(build)


def reason_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per reason, and per trace that failed, each naming its trace
    and run: "[trace.pftrace run 0] WARN id: message"."""
    lines = []
    for r in rows:
        name = os.path.basename(r["trace"])
        if "error" in r:
            lines.append(f"[{name}] ERROR: {r['error']}")
            continue
        for reason in (r.get("health") or {}).get("reasons", []):
            lines.append(f"[{name} run {r['run']}] {reason['severity'].upper()} "
                         f"{reason['id']}: {reason['message']}")
    return lines


def verdict_table(rows: list[dict[str, Any]]) -> str:
    """`artscope check`: verdict and reasons per run."""
    from rich.table import Table

    def build(console: Any) -> None:
        t = Table(pad_edge=False)
        for col in ("trace", "run", "verdict", "reasons"):
            t.add_column(col, overflow="fold")
        for r in rows:
            if "error" in r:
                t.add_row(r["trace"], "—", "error", "see below")
                continue
            reasons = "; ".join(f"{x['severity']}: {x['message']}"
                                for x in r["health"]["reasons"]) or "—"
            t.add_row(r["trace"], str(r["run"]), r["health"]["verdict"], reasons)
        console.print(t)
        for line in reason_lines([r for r in rows if "error" in r]):
            console.print(line, soft_wrap=True, highlight=False, markup=False)

    return _rich_text(build)


def render(rows: list[dict[str, Any]], fmt: str) -> bytes:
    """Rows (per-run result dicts or error rows) -> the bytes of ``fmt``."""
    if fmt == "json":
        return (json.dumps(rows, indent=2, allow_nan=False) + "\n").encode()
    if fmt == "table":
        return results_table(rows).encode()
    from artscope.flatschema import flat_frame, flatten

    return frame_bytes(flat_frame([flatten(r) for r in rows]), fmt)


def frame_bytes(df: Any, fmt: str) -> bytes:
    """A polars DataFrame -> the bytes of ``fmt`` (csv | parquet)."""
    buf = io.BytesIO()
    if fmt == "csv":
        df.write_csv(buf)
    elif fmt == "parquet":
        df.write_parquet(buf)
    else:
        raise UsageError(f"unknown format {fmt!r}")
    return buf.getvalue()


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file + rename: never half-written."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"output directory does not exist: {directory}")
    fd, tmp = tempfile.mkstemp(prefix=".artscope-", dir=directory)
    try:
        # mkstemp makes the file private (0600); give it the mode a plain
        # open() would, so a results directory can be shared.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_output(data: bytes, output: str | None, fmt: str) -> None:
    if output:
        write_atomic(output, data)
        return
    if fmt == "parquet" and sys.stdout.isatty():
        raise UsageError("parquet is binary: write it to a file with -o OUT.parquet")
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


@contextlib.contextmanager
def progress_printer(total: int) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on a terminal for batches; nothing otherwise."""
    if total < 2 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("analyzing", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  transient=True) as bar:
        task = bar.add_task("traces", total=total)

        def update(done: int, _total: int) -> None:
            bar.update(task, completed=done)

        yield update


# -- artscope apps ------------------------------------------------------------------

def apps_output(paths: Sequence[str], fmt: str = "table", limit: int = 20,
                markers: Iterable[str] = (),
                gc_patterns: Sequence[str] | None = None,
                engine: str = "auto", tp_bin: str | None = None) -> str:
    """``artscope apps``: the candidates of each trace (at most ``limit``
    each; 0 = all) as a table for people, or JSON / CSV with a ``trace``
    column and the table's columns (apps.LISTING_COLUMNS). A bad trace
    raises its one-line error; so do traces none of which names a process,
    and a trace without one gets a line saying so."""
    import json

    import polars as pl

    from artscope import sources
    from artscope.apps import DEFAULT_GC_PATTERNS, apps, listing
    from artscope.errors import TraceError

    frames, empty = [], []
    for path in paths:
        with sources.fetched(path) as (local, _):
            found = apps(local, engine=engine, tp_bin=tp_bin, markers=markers,
                         gc_patterns=DEFAULT_GC_PATTERNS if gc_patterns is None else gc_patterns)
        if not found.height:
            empty.append(path)
        found = listing(found.head(limit) if limit else found)
        frames.append(found.select(pl.lit(path).alias("trace"), pl.all()))
    if empty and len(empty) == len(frames):
        raise TraceError(f"no process in {', '.join(empty)}: the trace names none (no process "
                         "tree, sched, frame timeline or atrace of one) — nothing to pass to --app")
    table = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()
    if fmt == "json":
        return json.dumps(table.to_dicts(), indent=1) + "\n"
    if fmt == "csv":
        return table.write_csv()
    return _apps_table_text(table, list(paths), empty)


NO_PROCESS = "no process in the trace: it names none (no process tree, sched, frame timeline or atrace of one)"


def _apps_table_text(table: pl.DataFrame, paths: Sequence[str],
                     empty: Sequence[str] = ()) -> str:
    """The candidates as a rich table per trace, CPU in ms; a line for each
    trace without a process."""
    import polars as pl
    from rich.table import Table

    def build(console: object) -> None:
        for trace in paths:
            if trace in empty:
                console.print(f"{trace}: {NO_PROCESS}", soft_wrap=True)  # type: ignore[attr-defined]
                continue
            t = Table(title=trace, title_justify="left", pad_edge=False)
            for col, justify in (("#", "right"), ("pid", "right"), ("process", "left"),
                                 ("package", "left"), ("kind", "left"),
                                 ("CPU ms", "right"), ("GC slices", "right"),
                                 ("frames", "right"), ("markers", "left")):
                t.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
            for r in table.filter(pl.col("trace") == trace).iter_rows(named=True):
                frames = (f"{r['frames']} ({r['frame_source']})" if r["frames"] else "0")
                t.add_row(str(r["rank"]), str(r["pid"]), r["process"],
                          r["package"] or "—", r["kind"],
                          "—" if r["cpu_ms"] is None else f"{r['cpu_ms']:.1f}",
                          str(r["gc_slices"]), frames,
                          (f"{r['markers']} ×{r['marker_slices']}" if r["markers"] else "—"))
            console.print(t)  # type: ignore[attr-defined]

    return _rich_text(build)
