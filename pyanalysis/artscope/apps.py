"""Finding the target: the trace's processes ranked as benchmark candidates.

``artscope apps TRACE`` and :func:`apps` list every process with the
evidence that tells a benchmarked app from the rest (sql-metrics/
app_candidates.sql), best candidates first; the app-not-found error shows
the first few (:func:`hint`).

Ranking ("best" first), each step breaking the previous one's ties:

1. apps before system processes. A process is an app when its Android app
   id (uid % 100000) is 10000 or more; when the trace has no uid for it
   (systrace, frame-timeline-only traces), when it has a package (from the
   packages list, or the frame timeline layers it draws,
   ``<package>/<activity>#N``), or its name, or else its main thread's
   name, looks like a package (dot-separated identifiers: ``com.example.app[:proc]``, or a
   15-character kernel tail of one such as ``android.youtube``).
2. processes with harness marker slices (``App Benchmark``, or the names
   given as ``markers``) first;
3. then those showing a benchmark's workload: frames drawn (frame timeline
   or Choreographer) or GC slices;
4. then more CPU time over the whole trace, then more frames (traces
   without sched data), then the lower pid.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Sequence

import polars as pl

from artscope.engines.base import Engine
from artscope.metrics.options import APP_BENCHMARK_SLICE, DEFAULT_GC_PATTERNS

#: Marker slices a benchmark harness emits around a run, looked for by default.
HARNESS_MARKERS: tuple[str, ...] = (APP_BENCHMARK_SLICE,)

#: Android app ids start here (uid % 100000): below are system uids.
FIRST_APPLICATION_UID = 10000

#: A package name, optionally with a ``:process`` suffix.
PACKAGE_NAME = re.compile(r"[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+(:[\w.]+)?\Z")
#: The kernel keeps a task name (comm) in 15 characters; an app's main thread
#: is named by the tail of its package (``com.google.android.youtube`` ->
#: ``android.youtube``), which may start mid-identifier.
COMM_LENGTH = 15
PACKAGE_TAIL = re.compile(r"[\w.]*\.[\w]+\Z")
#: A frame timeline layer named after its app: ``[TX - ]<package>/<activity>#N``.
LAYER_PACKAGE = re.compile(r"(?:TX - )?([A-Za-z]\w*(?:\.\w+)+)/")

#: The columns of :func:`apps` / :func:`candidates`, in order.
COLUMNS = ("rank", "pid", "name", "package", "main_thread", "kind", "cpu_ns", "gc_slices",
           "frames", "frame_source", "marker_slices", "markers", "upid", "uid")


def looks_like_package(name: str | None) -> bool:
    """Whether ``name`` reads as a package name (``com.example.app[:proc]``)."""
    return bool(name) and PACKAGE_NAME.match(name) is not None  # type: ignore[arg-type]


def is_package_tail(comm: str | None) -> bool:
    """Whether a kernel task name may be the 15-character tail of a package."""
    return bool(comm) and PACKAGE_TAIL.match(comm) is not None  # type: ignore[arg-type]


def comm_of(name: str) -> str:
    """The main-thread name Android gives a process called ``name``: its last
    15 characters (the kernel's comm length)."""
    return name[-COMM_LENGTH:]


def label(name: str | None, main_thread: str | None, package: str | None = None) -> str:
    """How a process is shown to people: its name, else its package's or its
    main thread's."""
    if name:
        return name
    return f"<unnamed, package {package}>" if package else \
        f"<unnamed, main thread {main_thread or '?'}>"


def candidates(engine: Engine, markers: Iterable[str] = (),
               gc_patterns: Sequence[str] = DEFAULT_GC_PATTERNS) -> pl.DataFrame:
    """Every process of the trace loaded in ``engine``, best benchmark
    candidates first (see the module doc), with :data:`COLUMNS`.

    ``markers`` are marker slice names looked for besides
    :data:`HARNESS_MARKERS`. Sets the runner's input tables
    ``artscope_marker`` and ``artscope_gc_pattern``."""
    from artscope.metrics.runner import MetricRunner

    names = list(dict.fromkeys([*HARNESS_MARKERS, *markers]))
    runner = MetricRunner(engine)
    runner.set_input("artscope_marker", [(m,) for m in names])
    runner.set_input("artscope_gc_pattern", [(p,) for p in gc_patterns])
    procs = runner.run("app_candidates")
    packages = engine.query("SELECT package_name, uid FROM package_list "
                            "WHERE package_name IS NOT NULL")
    layers = engine.query("SELECT DISTINCT upid, layer_name FROM actual_frame_timeline_slice "
                          "WHERE upid IS NOT NULL AND layer_name IS NOT NULL")
    return rank(procs, packages, layers)


def layer_package(layer_name: str | None) -> str | None:
    """The package a frame timeline layer is named after
    (``[TX - ]<package>/<activity>#N``), or None."""
    m = LAYER_PACKAGE.match(layer_name or "")
    return m.group(1) if m else None


def rank(procs: pl.DataFrame, packages: pl.DataFrame,
         layers: pl.DataFrame | None = None) -> pl.DataFrame:
    """app_candidates.sql rows (``procs``) with their package (from the
    packages list: ``package_name``, ``uid``; else from their frame timeline
    layers: ``upid``, ``layer_name``), kind and rank, sorted."""
    if procs.height == 0:
        return pl.DataFrame(schema={c: _DTYPES.get(c, pl.Int64) for c in COLUMNS})
    procs = procs.with_columns(
        pl.coalesce(pl.col("android_appid"), pl.col("uid") % 100000).alias("_appid"))
    rows = procs.to_dicts()
    by_appid: dict[int, list[str]] = {}
    for pkg, uid in packages.select("package_name", "uid").iter_rows():
        if uid is not None:
            by_appid.setdefault(int(uid) % 100000, []).append(pkg)
    all_packages = set(packages["package_name"].to_list())
    by_layer: dict[int, str] = {}
    for upid, layer in (layers.iter_rows() if layers is not None else ()):
        pkg = layer_package(layer)
        if pkg and upid not in by_layer:
            by_layer[upid] = pkg
    package, kind = [], []
    for r in rows:
        pkg = (_package_of(r["name"], r["_appid"], by_appid, all_packages)
               or by_layer.get(r["upid"]))
        package.append(pkg)
        kind.append(_kind(r["name"], r["main_thread_name"], r["_appid"], pkg))
    timeline, choreo = pl.col("timeline_frames"), pl.col("choreographer_frames")
    out = procs.with_columns(
        pl.Series("package", package, dtype=pl.String),
        pl.Series("kind", kind, dtype=pl.String),
        pl.when(timeline > 0).then(timeline).otherwise(choreo).alias("frames"),
        pl.when(timeline > 0).then(pl.lit("frame_timeline"))
        .when(choreo > 0).then(pl.lit("choreographer")).alias("frame_source"),
        pl.col("name").cast(pl.String), pl.col("markers").cast(pl.String),
        pl.col("main_thread_name").cast(pl.String).alias("main_thread"),
    ).with_columns(
        (pl.col("kind") == "app").alias("_app"),
        (pl.col("marker_slices") > 0).alias("_marked"),
        ((pl.col("frames") > 0) | (pl.col("gc_slices") > 0)).alias("_workload"),
        pl.col("cpu_ns").fill_null(0).alias("_cpu"),
    ).sort(["_app", "_marked", "_workload", "_cpu", "frames", "pid"],
           descending=[True, True, True, True, True, False])
    out = out.with_columns(pl.int_range(1, out.height + 1).alias("rank"))
    return out.select(pl.col(c).cast(_DTYPES.get(c, pl.Int64)) for c in COLUMNS)


_DTYPES = {c: pl.String for c in ("name", "package", "main_thread", "kind", "frame_source",
                                  "markers")}


def _package_of(name: str | None, appid: int | None, by_appid: dict[int, list[str]],
                all_packages: set[str]) -> str | None:
    """The package a process belongs to: the packages-list entry of its uid
    that its name starts with (a uid may be shared), else that uid's only
    package; without a uid, its name when the list holds it."""
    base = name.split(":", 1)[0] if name else None
    if appid is not None and appid in by_appid:
        pkgs = by_appid[appid]
        if base in pkgs:
            return base
        prefixed = sorted(p for p in pkgs if base and base.startswith(p))
        if prefixed:
            return prefixed[-1]
        return pkgs[0] if len(set(pkgs)) == 1 else None
    return base if base in all_packages else None


def _kind(name: str | None, main_thread: str | None, appid: int | None,
          package: str | None) -> str:
    """'app' or 'system' (see the module doc, step 1)."""
    if appid is not None:
        return "app" if appid >= FIRST_APPLICATION_UID else "system"
    if package:
        return "app"
    if name:
        return "app" if looks_like_package(name) else "system"
    return "app" if is_package_tail(main_thread) else "system"


def apps(path: str | Path, engine: str = "auto", tp_bin: str | None = None,
         markers: Iterable[str] = (),
         gc_patterns: Sequence[str] = DEFAULT_GC_PATTERNS) -> pl.DataFrame:
    """The processes of the trace at ``path``, best benchmark candidates
    first: one row per process with :data:`COLUMNS` (``cpu_ns`` over the
    whole trace; ``markers`` the harness marker slice names it has, from
    ``App Benchmark`` and ``markers``). Raises TraceError for bad input."""
    from artscope.engines import load_trace

    with load_trace(path, engine=engine, tp_bin=tp_bin) as eng:
        return candidates(eng, markers, gc_patterns)


#: The columns of ``artscope apps --format json|csv``: the table's, named as
#: it names them (``process`` as the table shows it, ``cpu_ms``), then what
#: to pass to --app and the raw identities.
LISTING_COLUMNS = ("rank", "pid", "process", "package", "kind", "cpu_ms", "gc_slices",
                   "frames", "frame_source", "markers", "marker_slices", "app",
                   "main_thread", "uid")


def app_argument(name: str | None, main_thread: str | None, package: str | None) -> str | None:
    """What --app takes to select a process: its name, else its package,
    else its main thread's name (selection matches all three)."""
    return name or package or main_thread


def listing(candidates: pl.DataFrame) -> pl.DataFrame:
    """:func:`candidates` rows as ``artscope apps`` lists them
    (:data:`LISTING_COLUMNS`)."""
    rows = [{"rank": r["rank"], "pid": r["pid"],
             "process": label(r["name"], r["main_thread"], r["package"]),
             "package": r["package"], "kind": r["kind"],
             "cpu_ms": None if r["cpu_ns"] is None else r["cpu_ns"] / 1e6,
             "gc_slices": r["gc_slices"], "frames": r["frames"],
             "frame_source": r["frame_source"], "markers": r["markers"],
             "marker_slices": r["marker_slices"],
             "app": app_argument(r["name"], r["main_thread"], r["package"]),
             "main_thread": r["main_thread"], "uid": r["uid"]}
            for r in candidates.iter_rows(named=True)]
    schema = {c: pl.Int64 for c in LISTING_COLUMNS} | {
        c: pl.String for c in ("process", "package", "kind", "frame_source", "markers", "app",
                               "main_thread")} | {"cpu_ms": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def hint(engine: Engine, gc_patterns: Sequence[str] = DEFAULT_GC_PATTERNS,
         markers: Iterable[str] = (), limit: int = 5) -> str:
    """The best ``limit`` candidates as one line's tail, for the
    app-not-found error ("" when the trace has no process)."""
    top = candidates(engine, markers, gc_patterns).head(limit)
    shown = []
    for r in top.iter_rows(named=True):
        # (no CPU figure for a process the trace never saw running)
        evidence = [] if r["cpu_ns"] is None else [f"{r['cpu_ns'] / 1e6:.1f} ms CPU"]
        if r["markers"]:
            evidence.append(f"marker {r['markers']}")
        if r["frames"]:
            evidence.append(f"{r['frames']} frame{'s' if r['frames'] != 1 else ''}")
        if r["gc_slices"]:
            evidence.append(f"{r['gc_slices']} GC slice{'s' if r['gc_slices'] != 1 else ''}")
        shown.append(f"{label(r['name'], r['main_thread'], r['package'])} "
                     f"({', '.join(['pid ' + str(r['pid']), *evidence])})")
    if not shown:
        return ""
    return ("; best candidates (all: artscope apps TRACE): " + ", ".join(shown))
