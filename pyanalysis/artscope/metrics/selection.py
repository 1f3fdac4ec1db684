"""What to measure in a loaded trace: the app, its threads, run windows, CPUs.

Implements docs/metrics.md "Selecting what to measure". Small lookups (processes,
threads, CPU topology) are fetched whole and filtered with polars; the marker
lookup goes through the ``artscope_marker`` input table.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from typing import Iterable

import polars as pl

from artscope.errors import SelectionError, UsageError
from artscope.metrics.options import APP_BENCHMARK_SLICE, AnalysisOptions, parse_cpu_list, parse_window
from artscope.metrics.runner import MetricRunner
from artscope.metrics.topology import Topology, cpu_ranges
from artscope.metrics.topology import derive as derive_topology

#: ``--window launch``: each launch of the target is a run.
LAUNCH_WINDOW = "launch"


@dataclasses.dataclass
class Run:
    run: int
    start_ts: int
    end_ts: int
    #: window | marker | app_benchmark | process | trace
    source: str


@dataclasses.dataclass
class Selection:
    process_name: str | None
    pids: list[int]
    upids: list[int]
    #: process_name | pid | package_list | frame_timeline_layer | main_thread_name |
    #: main_thread_tail (see _match_process)
    matched_by: str
    #: utid, tid, name, upid, role
    threads: pl.DataFrame
    runs: list[Run]
    allowed_cpus: list[int] | None
    gc_allowed_cpus: list[int] | None
    topology: Topology
    trace_start: int
    trace_end: int
    #: "list" when the allowed CPUs were named, else the topology source that
    #: resolved a cluster keyword (None: no --cpus)
    cpus_source: str | None = None


def _glob_any(name: str | None, globs: tuple[str, ...]) -> bool:
    # GLOB semantics: case-sensitive, like SQLite's GLOB.
    return name is not None and any(fnmatch.fnmatchcase(name, g) for g in globs)


def select(runner: MetricRunner, opts: AnalysisOptions) -> Selection:
    eng = runner.engine
    bounds = eng.query("SELECT start_ts, end_ts FROM trace_bounds").row(0)
    t_start, t_end = int(bounds[0]), int(bounds[1])
    procs = eng.query(
        "SELECT upid, pid, name, start_ts, end_ts, uid, android_appid FROM process")
    upids, names, matched_by = _match_process(eng, procs, opts)
    threads = eng.query("SELECT utid, tid, name, upid FROM thread")
    threads = threads.filter(pl.col("upid").is_in(upids)).sort("utid")
    roles = [("gc" if _glob_any(n, opts.gc_threads) else "mutator")
             for n in threads["name"].to_list()]
    threads = threads.with_columns(pl.Series("role", roles, dtype=pl.String))
    runner.set_input("artscope_target_thread",
                     list(zip(threads["utid"].to_list(), roles)))
    runner.set_input("artscope_target_process", [(u,) for u in upids])

    mine = procs.filter(pl.col("upid").is_in(upids))
    runs = _windows(runner, opts, mine, t_start, t_end)

    topo = _topology(runner)
    allowed = _cpus(opts.cpus, topo) if opts.cpus is not None else None
    gc_allowed = _cpus(opts.gc_cpus, topo) if opts.gc_cpus is not None else allowed
    rows = []
    for role, cpus in (("mutator", allowed), ("gc", gc_allowed)):
        rows += [(c, role) for c in (cpus or [])]
    runner.set_input("artscope_allowed_cpu", rows)
    runner.set_input("artscope_gc_pattern", [(p,) for p in opts.gc_patterns])
    runner.set_input("artscope_run", [
        (r.run, r.start_ts, r.end_ts, min(r.end_ts, r.start_ts + opts.pin_grace_ns))
        for r in runs])
    pids = sorted(set(mine["pid"].to_list()))
    return Selection(
        process_name=names[0] if names else opts.app,
        pids=pids, upids=upids, matched_by=matched_by, threads=threads, runs=runs,
        allowed_cpus=allowed, gc_allowed_cpus=gc_allowed, topology=topo,
        trace_start=t_start, trace_end=t_end,
        cpus_source=_cpus_source((opts.cpus, opts.gc_cpus), topo))


def _match_process(eng, procs: pl.DataFrame, opts: AnalysisOptions
                   ) -> tuple[list[int], list[str], str]:
    if opts.pid is not None:
        hit = procs.filter(pl.col("pid") == opts.pid)
        if hit.height == 0:
            raise SelectionError(f"no process with pid {opts.pid} in the trace"
                                 + _biggest(eng, opts))
        return sorted(hit["upid"].to_list()), [n for n in hit["name"].to_list() if n], "pid"
    app = opts.app
    hit = procs.filter(pl.col("name") == app)
    if hit.height:
        return sorted(hit["upid"].to_list()), [app], "process_name"
    # No process of that name: try the packages list (uid -> package) ...
    pkgs = eng.query("SELECT package_name, uid FROM package_list")
    uids = set(pkgs.filter(pl.col("package_name") == app)["uid"].to_list())
    if uids:
        appids = {u % 100000 for u in uids}
        hit = procs.filter(pl.col("uid").is_in(list(uids))
                           | pl.col("android_appid").is_in(list(appids)))
        if hit.height:
            return sorted(hit["upid"].to_list()), [app], "package_list"
    # ... or frame timeline layer names "<package>/<activity>#N".
    layers = eng.query(
        "SELECT DISTINCT upid, layer_name FROM actual_frame_timeline_slice "
        "WHERE layer_name IS NOT NULL")
    pat = re.compile(r"^(?:TX - )?" + re.escape(app) + r"/")
    lhit = sorted({u for u, ln in layers.iter_rows() if u is not None and pat.match(ln)})
    if lhit:
        return lhit, [app], "frame_timeline_layer"
    # ... or, for processes without a name (systrace), their main thread's
    # name: the kernel keeps 15 characters of it, Android the package's tail
    # ('com.google.android.youtube' -> 'android.youtube'). Exact names first.
    from artscope.apps import COMM_LENGTH, comm_of

    main = eng.query(
        "SELECT t.upid, t.name FROM thread t JOIN process p USING (upid) "
        "WHERE t.tid = p.pid AND p.name IS NULL AND t.name IS NOT NULL")
    for wanted, how in ((app, "main_thread_name"), (comm_of(app), "main_thread_tail")):
        if how == "main_thread_tail" and len(app) <= COMM_LENGTH:
            break
        mhit = sorted({u for u, n in main.iter_rows() if n == wanted})
        if mhit:
            return mhit, [app], how
    raise SelectionError(f"app {app!r} is not in the trace" + _biggest(eng, opts))


def _biggest(eng, opts: AnalysisOptions | None = None) -> str:
    """The app-not-found error's tail: whether the trace is truncated (the
    app may be in its lost part), then the best candidates of `artscope apps`."""
    from artscope.apps import hint
    from artscope.metrics.options import DEFAULT_GC_PATTERNS

    info = getattr(eng, "info", None)
    cut = ""
    if info is not None and info.partial:
        damage = [w for w in info.warnings if "truncated" in w or "corrupt" in w]
        why = (damage or info.warnings or ["truncated or corrupt"])[0]
        cut = f", which is only partly imported ({why}): it may be in the lost part"
    return cut + hint(eng, opts.gc_patterns if opts else DEFAULT_GC_PATTERNS,
                      [opts.marker] if opts and opts.marker else ())


def _windows(runner: MetricRunner, opts: AnalysisOptions, mine: pl.DataFrame,
             t_start: int, t_end: int) -> list[Run]:
    def clip(s: int, e: int, source: str, i: int) -> Run:
        return Run(i, max(s, t_start), min(e, t_end), source)

    if opts.window == LAUNCH_WINDOW:
        return _launch_runs(runner, opts, mine)
    if opts.window is not None:
        s, e = parse_window(opts.window).resolve(t_start, t_end)
        run = clip(s, e, "window", 0)
        if run.end_ts <= run.start_ts:
            raise SelectionError(
                f"--window {opts.window} does not overlap the trace "
                f"[{t_start}, {t_end}) ns")
        return [run]
    runs = _marker_runs(runner, opts, mine, t_start, t_end)
    if runs:
        return runs
    lives = process_lifetimes(runner, mine)
    starts = [s for s, _ in lives.values() if s is not None]
    ends = [e for _, e in lives.values()]
    if starts or any(v is not None for v in ends):
        s = min(starts) if starts else t_start
        e = t_end if (not ends or any(v is None for v in ends)) else max(ends)
        run = clip(s, e, "process", 0)
        if run.end_ts > run.start_ts:
            return [run]
    return [Run(0, t_start, t_end, "trace")]


def process_lifetimes(runner: MetricRunner, mine: pl.DataFrame
                      ) -> dict[int, tuple[int | None, int | None]]:
    """upid -> (start, end) of each target process (None: not in the trace).

    A process ends when its main thread exits (sched_process_exit, a last
    slice ending dead or zombie, the task freed: process_lifetime.sql) or it
    is killed (lmkd, the OOM killer: memory_kills.sql), whichever the trace
    shows first; its threads' last slices, which may end a moment later as
    the process dies, are still part of it."""
    life = runner.run("process_lifetime")
    kills = runner.run("memory_kills")
    killed: dict[int, int] = {}
    for upid, ts in kills.filter(pl.col("is_target").cast(pl.Boolean)).select("upid", "ts").rows() \
            if kills.height else []:
        killed[upid] = min(ts, killed.get(upid, ts))
    freed = dict(mine.select("upid", "end_ts").rows())
    out = {}
    for r in life.iter_rows(named=True):
        known = [v for v in (r["main_end_ts"], killed.get(r["upid"]), freed.get(r["upid"]))
                 if v is not None]
        end = None
        if known:
            end = max(min(known), r["last_run_end_ts"] or min(known))
        out[r["upid"]] = (r["start_ts"], end)
    return out


def _marker_runs(runner: MetricRunner, opts: AnalysisOptions, mine: pl.DataFrame,
                 t_start: int, t_end: int) -> list[Run]:
    """Runs from marker slices: ``--marker NAME`` (the target's slices unless
    ``--marker-process`` widens it), else the harness's "App Benchmark"
    slices (the target's if it has any, else any process's: harnesses often
    mark runs from their own process).

    A marker slice is a run from its start to its end (one still open at the
    trace's end runs to it). An instant marker (dur 0: an atrace instant or
    an empty slice) starts a run that lasts until the next marker of that
    name, the last one until the trace's end."""
    marker = opts.marker or APP_BENCHMARK_SLICE
    runner.set_input("artscope_marker", [(marker,)])
    slices = runner.run("marker_slices")
    if opts.marker is None:
        own = slices.filter(pl.col("upid").is_in(mine["upid"].to_list()))
        slices = own if own.height else slices
    elif opts.marker_process is None:
        slices = _own_markers(runner, opts, slices, mine)
    elif opts.marker_process != "*":
        named = runner.engine.query("SELECT upid, name FROM process")
        upids = named.filter(pl.col("name") == opts.marker_process)["upid"].to_list()
        if not upids:
            raise SelectionError(f"--marker-process {opts.marker_process!r}: no process of "
                                 "that name in the trace")
        slices = slices.filter(pl.col("upid").is_in(upids))
    source = "marker" if opts.marker else "app_benchmark"
    rows = slices.select("ts", "dur").sort("ts").rows()
    runs: list[Run] = []
    for i, (ts, dur) in enumerate(rows):
        if dur == 0:
            nxt = next((t for t, _ in rows[i + 1:] if t > ts), None)
            end = t_end if nxt is None else nxt
        else:
            end = t_end if dur == -1 else ts + dur
        s, e = max(ts, t_start), min(end, t_end)
        if e > s:
            runs.append(Run(len(runs), s, e, source))
    if opts.marker is not None and not runs:
        where = ("the trace" if opts.marker_process == "*" else
                 f"process {opts.marker_process!r}" if opts.marker_process else "the app's slices")
        raise SelectionError(f"marker slice {opts.marker!r} not found in {where}")
    return runs


def _own_markers(runner: MetricRunner, opts: AnalysisOptions, slices: pl.DataFrame,
                 mine: pl.DataFrame) -> pl.DataFrame:
    own = slices.filter(pl.col("upid").is_in(mine["upid"].to_list()))
    if own.height or not slices.height:
        return own
    names = runner.engine.query("SELECT upid, name FROM process")
    others = (slices.join(names, on="upid", how="left")
              .group_by("name").len().sort(["len", "name"], descending=[True, False]))
    listed = ", ".join(f"{n or '<no process>'} ({k})" for n, k in others.head(3).rows())
    raise SelectionError(
        f"marker slice {opts.marker!r} not found in the app's slices, but other processes "
        f"have {slices.height}: {listed} — take them with --marker-process NAME (or '*' "
        "for any process)")


def _launch_runs(runner: MetricRunner, opts: AnalysisOptions, mine: pl.DataFrame
                 ) -> list[Run]:
    """``--window launch``: one run per launch of the target (startups.sql),
    from the intent to the first frame."""
    from artscope.metrics.startup import launch_windows

    names = [n for n in [opts.app, *mine["name"].to_list()] if n]
    spans = launch_windows(runner.run("startups"), names, mine["upid"].to_list())
    return [Run(i, s, e, "launch") for i, (s, e) in enumerate(spans)]


def _topology(runner: MetricRunner) -> Topology:
    return derive_topology(runner.run("cpu_topology"), runner.run("cpu_frequency_changes"))


def _cpus_source(specs: tuple[str | None, ...], topo: Topology) -> str | None:
    given = [parse_cpu_list(s) for s in specs if s is not None]
    if not given:
        return None
    return topo.source if any(isinstance(g, str) for g in given) else "list"


def _cpus(spec: str, topo: Topology) -> list[int]:
    parsed = parse_cpu_list(spec)
    if isinstance(parsed, str):
        return topo.keyword(parsed)
    return check_cpus_exist(parsed, topo.cpus)


def check_cpus_exist(cpus: list[int], trace_cpus: Iterable[int]) -> list[int]:
    """``cpus`` (an explicit --cpus / --gc-cpus list) when the trace has each
    of them; a UsageError (exit 2) naming the trace's CPUs otherwise, or
    saying that it has none (no sched, cpufreq or CPU info data: nothing the
    allowed CPUs would be judged against)."""
    known = sorted(set(trace_cpus))
    if not known:
        raise UsageError(
            f"--cpus {cpu_ranges(cpus)}: the trace has no CPU data (no sched, CPU frequency "
            "or CPU info), so pinning and CPU frequencies cannot be judged — leave --cpus out")
    missing = sorted(set(cpus) - set(known))
    if missing:
        raise UsageError(
            f"CPU{'s' if len(missing) > 1 else ''} {cpu_ranges(missing)} "
            f"{'are' if len(missing) > 1 else 'is'} not in the trace, whose CPUs are "
            f"{cpu_ranges(known)}")
    return cpus
