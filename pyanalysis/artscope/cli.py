"""The `artscope` command line: argument parsing and output only.

Every command composes the library (artscope.engines, artscope.metrics,
artscope.report, artscope.configs, artscope.capture); user errors become a
one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys

import click

from artscope.errors import ArtscopeError


class _Group(click.Group):
    """User errors -- ours (ArtscopeError) and click's usage errors -- become
    one line, `artscope: error: ...`, and exit code 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except ArtscopeError as e:
            click.echo(f"artscope: error: {e}", err=True)
            sys.exit(2)

    def main(self, *args, **kwargs):  # type: ignore[override]
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help() if e.ctx else str(e), err=True)
            sys.exit(2)
        except click.UsageError as e:
            cmd = e.ctx.command_path if e.ctx else "artscope"
            msg = " ".join(e.format_message().split())
            click.echo(f"artscope: error: {msg} (see '{cmd} -h')", err=True)
            sys.exit(2)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("artscope: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            click.echo(f"artscope: error: {' '.join(e.format_message().split())}", err=True)
            sys.exit(e.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="artscope")
def main() -> None:
    """Trustworthy per-run numbers from Perfetto traces of Android benchmarks."""


# --- on-device capture: artscope configs list|show, artscope capture ---------


def selector_options(f):
    """The options that say what to measure, shared by analyze/check/report."""
    opts = [
        click.option("--app", metavar="NAME", help="Target app: exact process (package) name."),
        click.option("--pid", type=int, metavar="PID", help="Target process by pid instead of --app."),
        click.option("--cpus", metavar="LIST", help="Allowed CPUs: 6,7 | 4-7 | big | mid | little."),
        click.option("--gc-cpus", metavar="LIST", help="Allowed CPUs of GC threads (default: --cpus)."),
        click.option("--marker", metavar="NAME", help="Every slice of the app with this name is one "
                     "run (an instant marker starts a run that lasts to the next one)."),
        click.option("--marker-process", metavar="NAME|'*'",
                     help="Take --marker slices from this process, or from any process with '*' "
                          "(default: the target app's)."),
        click.option("--window", metavar="S:E", help="Run window, ns or s/ms/us; '+' = from trace start; "
                     "'launch' = each launch of the app is a run."),
        click.option("--gc-thread", "gc_threads", multiple=True, metavar="GLOB",
                     help="GC thread names (repeatable; default HeapTaskDaemon, 'Heap thread pool worker*')."),
        click.option("--gc-pattern", "gc_patterns", multiple=True, metavar="GLOB",
                     help="GC slice names (repeatable; default '* GC')."),
        click.option("--pin-grace", metavar="DUR", default="0",
                     help="Report off-mask time in the first DUR of the window separately."),
        click.option("--frame-deadline", metavar="DUR", default=None,
                     help="Choreographer frame deadline (default: the apps' frame deadline "
                          "or vsync period the trace shows, else 16.666667ms)."),
        click.option("--mem-device", metavar="REGEX", help="Which devfreq/clock devices are the memory controller."),
        click.option("--all-clocks", is_flag=True,
                     help="List (and chart) every clock, devfreq device and bus vote in memfreq, "
                          "not only the memory controllers (GPU, UCLAMP votes, bus domains...)."),
        click.option("--engine", type=click.Choice(["auto", "trace_processor", "embedded"]),
                     default="auto", show_default=True, help="Trace importer."),
        click.option("--tp-bin", metavar="PATH", help="trace_processor_shell binary (or $ARTSCOPE_TP_BIN)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def build_options(kw: dict):
    """CLI keyword arguments -> AnalysisOptions (raises UsageError)."""
    from artscope.metrics.options import AnalysisOptions
    from artscope.units import parse_duration

    extra = {}
    if kw.get("gc_threads"):
        extra["gc_threads"] = tuple(kw["gc_threads"])
    if kw.get("gc_patterns"):
        extra["gc_patterns"] = tuple(kw["gc_patterns"])
    return AnalysisOptions(
        app=kw.get("app"), pid=kw.get("pid"), cpus=kw.get("cpus"), gc_cpus=kw.get("gc_cpus"),
        marker=kw.get("marker"), marker_process=kw.get("marker_process"), window=kw.get("window"),
        pin_grace_ns=parse_duration(kw.get("pin_grace") or "0"),
        frame_deadline_ns=(parse_duration(kw["frame_deadline"]) if kw.get("frame_deadline")
                           else None),
        mem_device=kw.get("mem_device"), all_clocks=bool(kw.get("all_clocks")), **extra)


def cluster_options(f):
    """Where a batch runs besides --jobs, and whether -o DIR/ resumes."""
    opts = [
        click.option("--cluster", metavar="ADDR", envvar="ARTSCOPE_CLUSTER",
                     help="Run on a Dask cluster: tcp://HOST:8786, or local:N worker "
                          "processes on this machine (or $ARTSCOPE_CLUSTER)."),
        click.option("--resume/--force", default=True,
                     help="With -o DIR/: reuse traces already finished there (default) "
                          "or recompute every trace."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def batch_options(f):
    """Where a batch runs and whether it resumes, shared by analyze/check."""
    f = cluster_options(f)
    return click.option("--jobs", type=click.IntRange(min=1), default=None,
                        help="Parallel traces on this machine (default: all cores).")(f)


def _backend(jobs: int | None, cluster: str | None, dataset: str | None,
             resume: bool) -> str | None:
    """Check --jobs / --cluster / --force together; the cluster to use, if any."""
    from artscope.errors import UsageError

    if cluster and jobs:
        source = click.get_current_context().get_parameter_source("cluster")
        if source is not click.core.ParameterSource.ENVIRONMENT:
            raise UsageError("--jobs and --cluster are exclusive")
        cluster = None  # an explicit --jobs overrides $ARTSCOPE_CLUSTER
    if cluster:
        from artscope.cluster import check_address

        check_address(cluster)
    if not resume and not dataset:
        raise UsageError("--force only applies with -o DIR/ (a results dataset)")
    return cluster


def _run_batch(traces: tuple[str, ...], kw: dict, jobs: int | None, cluster: str | None = None,
               dataset: str | None = None, resume: bool = True) -> list[dict]:
    """Analyse every trace (into ``dataset`` when given); a single bad trace
    is a one-line error (exit 2)."""
    from artscope.batch import analyze_many, expand_paths
    from artscope.output import progress_printer

    opts = build_options(kw)
    cluster = _backend(jobs, cluster, dataset, resume)
    paths = expand_paths(traces)
    with progress_printer(len(paths)) as progress:
        if dataset:
            from artscope.results import analyze_to_dataset

            run = analyze_to_dataset(dataset, paths, opts, engine=kw["engine"],
                                     tp_bin=kw.get("tp_bin"), jobs=jobs, cluster=cluster,
                                     resume=resume, progress=progress)
            rows = run.rows
        else:
            rows = analyze_many(paths, opts, engine=kw["engine"], tp_bin=kw.get("tp_bin"),
                                jobs=jobs, progress=progress, cluster=cluster)
    if dataset:
        _dataset_summary(run, len(paths))
    if len(paths) == 1 and rows and "error" in rows[0]:
        raise ArtscopeError(rows[0]["error"])
    for r in rows:
        for reason in (r.get("health") or {}).get("reasons", []):
            if reason["id"] == "partial_trace" and r["run"] == 0:
                click.echo(f"artscope: warning: {r['trace']}: {reason['message']}", err=True)
    return rows


def _dataset_summary(run, traces: int) -> None:
    """What a run into a results dataset did (how many traces it reused)."""
    click.echo(f"artscope: {run.directory}: {traces} trace(s), {run.analysed} analysed, "
               f"{run.reused} reused", err=True)


def _dataset_dir(output: str | None) -> str | None:
    from artscope.results import is_dataset_dir

    return output if output and is_dataset_dir(output) else None


@main.command("analyze")
@click.argument("traces", nargs=-1, required=True)
@selector_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "parquet"]),
              default=None, help="Output format  [default: table; parquet with -o DIR/]")
@click.option("-o", "--output", type=click.Path(),
              help="Write to this file (atomically), or to DIR/: a Parquet dataset, one "
                   "part per trace, that a rerun resumes.")
@batch_options
def analyze_cmd(traces, fmt, output, jobs, cluster, resume, **kw) -> None:
    """Per-run metrics of TRACE... (files, directories, globs, fsspec URLs)."""
    from artscope.errors import UsageError
    from artscope.output import render, write_output

    dataset = _dataset_dir(output)
    if dataset and fmt not in (None, "parquet"):
        raise UsageError(f"-o {dataset} writes a Parquet dataset; --format {fmt} needs "
                         "-o FILE or stdout")
    rows = _run_batch(traces, kw, jobs, cluster, dataset, resume)
    if not dataset:
        write_output(render(rows, fmt or "table"), output, fmt or "table")
    errors = [r for r in rows if "error" in r]
    for r in errors:
        click.echo(f"artscope: error: {r['trace']}: {r['error']}", err=True)
    if errors:
        sys.exit(2)


@main.command("check")
@click.argument("traces", nargs=-1, required=True)
@selector_options
@click.option("--fail-on", type=click.Choice(["warn", "fail"]), default="fail", show_default=True,
              help="Exit 1 when a run's verdict is at or above this.")
@click.option("-o", "--output", metavar="DIR/", type=click.Path(file_okay=False),
              help="Also keep the results in this Parquet dataset, which a rerun resumes.")
@batch_options
def check_cmd(traces, fail_on, output, jobs, cluster, resume, **kw) -> None:
    """Verdict per run; exit 0 all pass, 1 a run at/above --fail-on, 2 input error."""
    from artscope.metrics.health import SEVERITY_ORDER
    from artscope.output import verdict_table

    rows = _run_batch(traces, kw, jobs, cluster, output, resume)
    click.echo(verdict_table(rows), nl=False)
    _echo_capture_checks(rows, kw)
    errors = [r for r in rows if "error" in r]
    for r in errors:
        click.echo(f"artscope: error: {r['trace']}: {r['error']}", err=True)
    if errors:
        sys.exit(2)
    worst = max((SEVERITY_ORDER[r["health"]["verdict"]] for r in rows), default=0)
    sys.exit(1 if worst >= SEVERITY_ORDER[fail_on] else 0)


def _echo_capture_checks(rows: list[dict], kw: dict) -> None:
    """What each local trace says about its own capture (refused and empty
    events, lost data, markers, GC slices), as `artscope capture` prints it."""
    import os

    from artscope.capture import inspect_trace

    seen: set[str] = set()
    for r in rows:
        trace = r.get("trace")
        if "error" in r or not trace or trace in seen or "://" in trace or not os.path.isfile(trace):
            continue
        seen.add(trace)
        try:
            _, check = inspect_trace(trace, None, kw.get("app"), kw.get("marker"), kw.get("pid"))
        except ArtscopeError as e:
            click.echo(f"capture of {trace}: not checked ({e})")
            continue
        click.echo(f"capture of {trace}:")
        for line in check.lines:
            click.echo(f"  {line}")


@main.group("configs")
def configs_group() -> None:
    """The curated Perfetto capture configs."""


@configs_group.command("list")
def configs_list() -> None:
    """List the curated configs with a one-line summary each."""
    from artscope import configs

    infos = configs.list_configs()
    width = max((len(i.name) for i in infos), default=0)
    for info in infos:
        click.echo(f"{info.name:<{width}}  {info.summary}")


@configs_group.command("show", epilog="""\b
Example:
  artscope configs show full --app com.example.app --duration 60s > full.pbtxt
  adb push full.pbtxt /data/misc/perfetto-configs/
  adb shell perfetto --txt -c /data/misc/perfetto-configs/full.pbtxt \\
      -o /data/misc/perfetto-traces/run1.pftrace

The app's own markers (the run window) are recorded only for a debuggable
app or one with <profileable android:shell="true"/>. Which config records
what, per SoC, and how to check a capture: docs/capturing.md.""")
@click.argument("name")
@click.option("--app", metavar="PKG", help="Package name for atrace_apps (default: all apps).")
@click.option("--duration", metavar="DUR", help="Trace length, e.g. 30s, 500ms, 2m (default 30s).")
def configs_show(name: str, app: str | None, duration: str | None) -> None:
    """Print config NAME (a TraceConfig textproto), with --app/--duration set on
    the parsed message; unchanged, the shipped file with all its comments."""
    from artscope import configs

    click.echo(configs.render_config(name, app=app, duration=duration), nl=False)


@main.command("capture", epilog="""\b
Example:
  artscope capture --config full --app com.example.app --duration 60s -o run1.pftrace

After pulling the trace, capture checks it, one line each: events the
kernel refused, events that recorded nothing, buffer overruns, and whether
the app's markers and GC slices are there. It exits 2 when the trace
cannot serve the metrics its config was taken for. The app's markers are
recorded only for a debuggable app or one with
<profileable android:shell="true"/>. The whole procedure (pinning, fixed
CPU and memory frequencies) and a table of what each SoC records:
docs/capturing.md.""")
@click.option("--config", "config_name", required=True, metavar="NAME", help="Curated config (see `configs list`).")
@click.option("--app", required=True, metavar="PKG", help="Package name of the benchmarked app.")
@click.option("--duration", required=True, metavar="DUR", help="Trace length, e.g. 30s, 2m.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Where to write the trace.")
@click.option("--serial", metavar="S", help="Device serial, when several are connected.")
@click.option("--adb", "adb_path", metavar="PATH", help="adb binary (default: $ARTSCOPE_ADB, then PATH).")
@click.option("--marker", metavar="NAME",
              help="Run marker the analysis will use; its absence fails the capture "
                   "(default: look for 'App Benchmark', optional).")
def capture_cmd(
    config_name: str, app: str, duration: str, output: str, serial: str | None, adb_path: str | None,
    marker: str | None,
) -> None:
    """Record a trace on a device over adb and check what it holds."""
    from artscope.capture import capture

    result = capture(
        config_name, app, duration, output, serial=serial, adb=adb_path,
        log=lambda msg: click.echo(msg, err=True), marker=marker,
    )
    click.echo(result.describe())
    if result.check and result.check.fatal:
        click.echo(f"artscope: error: {result.path} cannot serve the metrics of {result.config}: "
                   f"{'; '.join(line.partition(':')[0] for line in result.check.fatal)} "
                   "(see above and docs/capturing.md)", err=True)
        sys.exit(2)


# --- artscope open TRACE: a run or a reason in the Perfetto UI -----------------


@main.command("open")
@click.argument("trace")
@selector_options
@click.option("--run", "run_index", type=click.IntRange(min=0), default=0, show_default=True,
              help="Which run (as numbered by analyze).")
@click.option("--reason", metavar="ID", help="Show this health reason's range, e.g. off_mask_cpu.")
@click.option("--port", type=click.IntRange(0, 65535), default=9001, show_default=True,
              help="Local port; the Perfetto UI fetches only from 9001 (0 = any free port).")
@click.option("--origin", default="https://ui.perfetto.dev", show_default=True,
              help="The Perfetto UI to use (e.g. a self-hosted one).")
@click.option("--no-browser", is_flag=True, help="Only print the link (no browser is opened).")
def open_cmd(trace, run_index, reason, port, origin, no_browser, **kw) -> None:
    """Serve TRACE once on 127.0.0.1 and print (and open) the Perfetto UI link
    that loads it at a run's window or a health reason's time range."""
    from artscope import ui_link

    # Bind first: a taken port fails in a second, not after the analysis.
    with ui_link.TraceServer(trace, port=port, origin=origin) as server:
        target = ui_link.target(_run_batch((trace,), kw, jobs=1), run_index, reason)
        url = ui_link.ui_url(server.url, target.vis, target.select, origin=origin)
        click.echo(url)
        opened = not no_browser and ui_link.open_browser(url)
        if server.port != ui_link.UI_PORT:
            click.echo(f"artscope: warning: the Perfetto UI only fetches from port "
                       f"{ui_link.UI_PORT}, not {server.port}", err=True)
        click.echo(f"serving {trace} for {target.what} on {server.url} until it has been "
                   f"loaded once ({'opened in your browser' if opened else 'open the link'}; "
                   "Ctrl-C stops)", err=True)
        server.serve(log=lambda msg: click.echo(msg, err=True))


# --- finding the target: artscope apps TRACE... --------------------------------


@main.command("apps")
@click.argument("traces", nargs=-1, required=True)
@click.option("--marker", "markers", multiple=True, metavar="NAME",
              help="Also look for these marker slices (repeatable; 'App Benchmark' always).")
@click.option("--gc-pattern", "gc_patterns", multiple=True, metavar="GLOB",
              help="GC slice names (repeatable; default '* GC').")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Processes per trace (0 = all).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@click.option("--engine", type=click.Choice(["auto", "trace_processor", "embedded"]),
              default="auto", show_default=True, help="Trace importer.")
@click.option("--tp-bin", metavar="PATH", help="trace_processor_shell binary (or $ARTSCOPE_TP_BIN).")
def apps_cmd(traces, markers, gc_patterns, limit, fmt, engine, tp_bin) -> None:
    """The processes of TRACE... that could be the benchmark target, best
    first: apps with harness markers, then apps drawing frames or running
    GCs, then by CPU time; system processes last. Pass one to --app or --pid."""
    from artscope.output import apps_output
    from artscope.batch import expand_paths
    from artscope.metrics.options import DEFAULT_GC_PATTERNS

    click.echo(apps_output(expand_paths(traces), fmt, limit, markers=markers,
                           gc_patterns=gc_patterns or DEFAULT_GC_PATTERNS,
                           engine=engine, tp_bin=tp_bin), nl=False)


# --- PerfettoSQL package: artscope sql-package OUTDIR --------------------------


@main.command("sql-package")
@click.argument("outdir", type=click.Path(file_okay=False))
def sql_package_cmd(outdir: str) -> None:
    """Write artscope's metrics as a PerfettoSQL package: OUTDIR/artscope/*.sql.

    One module per metric (INCLUDE PERFETTO MODULE artscope.gc; SELECT * FROM
    artscope_gc(app, start_ts, end_ts)), generated from sql-metrics/. Load it
    with trace_processor_shell --add-sql-package OUTDIR/artscope; see
    docs/perfetto-sql-package.md.
    """
    from artscope.sqlpackage import write_sql_package

    paths = write_sql_package(outdir)
    for path in paths:
        click.echo(str(path))
    if paths:
        click.echo(f"load with: trace_processor_shell --add-sql-package {paths[0].parent} TRACE",
                   err=True)


# --- studies over many runs: artscope lbo, artscope noise ------------------------


def label_options(f):
    """Where run labels come from (--meta / --name-pattern) and which column
    or pattern field is which label."""
    opts = [
        click.option("--meta", metavar="FILE.csv",
                     help="Labels: a 'trace' column (path as given, or file name) + label columns."),
        click.option("--name-pattern", metavar="PATTERN",
                     help="Labels from file names: a preset (running-ng: running-ng's result "
                          "names; android-benchmark-runner: the same) or a pattern, e.g. "
                          "'{benchmark}.{x}.{heap}.{config}.{invocation}'."),
        click.option("--benchmark-col", default="benchmark", show_default=True, metavar="NAME",
                     help="Label column/field holding the benchmark."),
        click.option("--config-col", default="config", show_default=True, metavar="NAME",
                     help="... the collector config."),
        click.option("--x-col", default="x", show_default=True, metavar="NAME",
                     help="... the heap multiple (a number)."),
        click.option("--invocation-col", default="invocation", show_default=True, metavar="NAME",
                     help="... the invocation (default: each trace is one)."),
        click.option("--iteration-col", default="iteration", show_default=True, metavar="NAME",
                     help="... the iteration within its invocation (default: a trace's runs "
                          "in window order)."),
        click.option("--jobs", type=click.IntRange(min=1), default=None,
                     help="Parallel traces (default: all cores)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _study_runs(inputs: tuple[str, ...], kw: dict, labels_required: bool = True,
                dataset: str | None = None):
    """Analyse/read the inputs and label every run (UsageError on unmatched);
    analysed traces are kept in the results dataset ``dataset`` when given."""
    from artscope.batch import expand_paths
    from artscope.output import progress_printer
    from artscope.studies import Labels, apply_labels, load_runs
    from artscope.studies.runs import is_analyze_output

    labels = None
    if labels_required or kw.get("meta") or kw.get("name_pattern"):
        labels = Labels(meta=kw.get("meta"), name_pattern=kw.get("name_pattern"),
                        benchmark=kw["benchmark_col"], config=kw["config_col"], x=kw["x_col"],
                        invocation=kw["invocation_col"], iteration=kw["iteration_col"])
    traces = [p for p in inputs if not is_analyze_output(p)]
    opts = build_options(kw) if (kw.get("app") or kw.get("pid") is not None) else None
    n = len(expand_paths(traces)) if traces else 0
    resume = kw.get("resume", True)
    cluster = _backend(kw.get("jobs"), kw.get("cluster"), dataset, resume)
    dataset_runs: list = []
    with progress_printer(n) as progress:
        runs = load_runs(inputs, opts, engine=kw["engine"], tp_bin=kw.get("tp_bin"),
                         jobs=kw.get("jobs"), progress=progress, cluster=cluster,
                         output=dataset, resume=resume, on_dataset=dataset_runs.append)
    for run in dataset_runs:
        _dataset_summary(run, n)
    return runs if labels is None else apply_labels(runs, labels)


def study_options(f):
    """Which runs and benchmarks a study counts and how it measures them,
    shared by lbo and the study page of report."""
    from artscope.studies.lbo import COSTS
    from artscope.studies.stats import CI_LEVELS

    opts = [
        click.option("--cost", type=click.Choice(list(COSTS)), default="task_clock",
                     show_default=True,
                     help="Cost measure: task_clock = app CPU in the run window, GC CPU removed; "
                          "wall = the run window's length, GC pause time removed; cycles = the "
                          "app's CPU cycles, the GC's removed (counted where every run has perf "
                          "counters, else estimated); energy = the power rails' energy, the "
                          "GC's estimated share removed."),
        click.option("--ci", "ci_level", type=click.Choice([str(c) for c in CI_LEVELS]),
                     default="95", show_default=True,
                     help="Confidence level (%) of every CI, over invocations."),
        click.option("--drop-warmup", type=click.IntRange(min=0), default=0, show_default=True,
                     metavar="N", help="Drop each invocation's first N iterations."),
        click.option("--exclude-benchmark", "exclude_benchmarks", multiple=True, metavar="NAME",
                     help="Leave this benchmark out of the summary rows (repeatable)."),
        click.option("--drop-flagged", is_flag=True,
                     help="Leave every flagged benchmark out of the summary rows."),
        click.option("--include-unhealthy", is_flag=True,
                     help="Keep runs whose app died, that reused a running process or whose "
                          "health verdict is fail."),
        click.option("--exclude-drifted", is_flag=True,
                     help="Leave out runs held at another frequency level than the study's "
                          "on their device."),
        click.option("--noisy-ci", "noisy_ci_pct", type=float, default=5.0, show_default=True,
                     metavar="PCT", help="A benchmark is noisy when a CI exceeds ±PCT% of its mean."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _study_options(kw: dict):
    """The study options of lbo / report from their keyword arguments."""
    from artscope.studies import StudyOptions

    return StudyOptions(cost=kw.pop("cost"), ci_level=int(kw.pop("ci_level")),
                        drop_warmup=kw.pop("drop_warmup"),
                        exclude_benchmarks=tuple(kw.pop("exclude_benchmarks")),
                        drop_flagged=kw.pop("drop_flagged"),
                        include_unhealthy=kw.pop("include_unhealthy"),
                        exclude_drifted=kw.pop("exclude_drifted"),
                        noisy_ci_pct=kw.pop("noisy_ci_pct"))


_STUDY_OUTPUT_HELP = ("Write the table to this file (atomically); or DIR/: keep the analysed "
                      "traces in this results dataset (resumable) and print the table.")


@main.command("lbo")
@click.argument("inputs", nargs=-1, required=True)
@label_options
@selector_options
@study_options
@click.option("--at", "at_x", type=float, metavar="X", help="Table-5 view at heap multiple X.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "parquet"]),
              default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(), help=_STUDY_OUTPUT_HELP)
@cluster_options
def lbo_cmd(inputs, at_x, fmt, output, **kw) -> None:
    """GC lower-bound overhead per benchmark, config and heap multiple x
    (Cai et al., ISPASS'22, with the ISMM'24 protocol) from INPUT... (traces,
    directories, globs, saved analyze output .json/.csv/.parquet, or results
    datasets DIR/), labelled by --meta or --name-pattern."""
    from artscope.output import write_output
    from artscope.studies.checks import warning_lines
    from artscope.studies.lbo import compute_lbo, excluded_lines
    from artscope.studies.render import covers_lines, failure_lines, lbo_bytes

    options = _study_options(kw)
    dataset = _dataset_dir(output)
    output = None if dataset else output
    runs = _study_runs(inputs, kw, dataset=dataset)
    result = compute_lbo(runs, options)
    write_output(lbo_bytes(result, fmt, at_x), output, fmt)
    if fmt != "table" or output:
        for line in covers_lines(result):
            click.echo(f"artscope: {line}", err=True)
        for r in result.flags.iter_rows(named=True):
            click.echo(f"artscope: flagged {r['benchmark']} ({r['flag']}): {r['detail']}", err=True)
        for line in excluded_lines(result.excluded):
            click.echo(f"artscope: excluded {line}", err=True)
        for line in failure_lines(result.failures):
            click.echo(f"artscope: failed runs: {line}", err=True)
        for line in warning_lines(result.warnings):
            click.echo(f"artscope: {line}", err=True)


@main.command("noise")
@click.argument("inputs", nargs=-1, required=True)
@label_options
@selector_options
@click.option("--metric", default="task_clock", show_default=True, metavar="NAME",
              help="An analyze column (e.g. gc_app_cpu_ns) or task_clock | distilled | gc_cpu | "
                   "gc_share | cycles.")
@click.option("--group-by", "group_by", multiple=True, metavar="LABEL",
              help="Group runs by these labels/columns (repeatable or comma-separated; "
                   "default: benchmark, config, x).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "parquet"]),
              default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(), help=_STUDY_OUTPUT_HELP)
@cluster_options
def noise_cmd(inputs, metric, group_by, fmt, output, **kw) -> None:
    """Why repeated runs disagree: per group n, mean, CV, 95% CI, outlier
    runs, and the measured run factors ranked by how strongly they track
    --metric, ending in one sentence per group. INPUT... as for lbo."""
    from artscope.output import write_output
    from artscope.studies.noise import diagnose_noise
    from artscope.studies.render import noise_bytes

    dataset = _dataset_dir(output)
    output = None if dataset else output
    runs = _study_runs(inputs, kw, labels_required=False, dataset=dataset)
    keys = [k.strip() for g in group_by for k in g.split(",") if k.strip()] if group_by else None
    result = diagnose_noise(runs, metric, keys)
    write_output(noise_bytes(result, fmt), output, fmt)
    if fmt != "table" or output:
        for sentence in result.sentences():
            click.echo(f"artscope: {sentence}", err=True)
        from artscope.studies.checks import warning_lines

        for line in warning_lines(result.warnings):
            click.echo(f"artscope: {line}", err=True)


# --- artscope report TRACE... -o report.html -----------------------------------


@main.command("report")
@click.argument("traces", nargs=-1, required=True)
@selector_options
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (atomically).")
@click.option("--title", metavar="TEXT", help="Page title (default: the trace names).")
@label_options
@study_options
def report_cmd(traces, output, title, **kw) -> None:
    """One self-contained HTML page (works offline): per run the verdict and
    each reason beside the chart that shows it, the metric tables, then the
    charts of the whole run, for every run of TRACE... (files, directories,
    globs).

    With --meta or --name-pattern the page is a study page instead: the
    Table-5 LBO view at every heap multiple, LBO curves, flags, exclusions
    and the noise diagnosis (TRACE may then also be saved analyze output)."""
    from artscope.report.html import write_report

    options = _study_options(kw)
    if kw.get("meta") or kw.get("name_pattern"):
        from artscope.report.study_html import write_study_report
        from artscope.studies import Study

        study = Study(_study_runs(traces, kw), options)
        write_study_report(study, output, title=title)
        click.echo(f"wrote {output} (study of {study.runs.height} runs)", err=True)
        return

    results = write_report(traces, output, build_options(kw), engine=kw["engine"],
                           tp_bin=kw.get("tp_bin"), title=title,
                           all_clocks=bool(kw.get("all_clocks")))
    for r in results:
        if r.get("partial") and r["run"] == 0:
            click.echo(f"artscope: warning: {r['trace']}: partial trace (data loss or "
                       "truncation); see the report's reasons", err=True)
    verdicts = ", ".join(f"{r['run']}:{r['health']['verdict']}" for r in results)
    click.echo(f"wrote {output} ({len(results)} run(s): {verdicts})", err=True)

if __name__ == "__main__":  # pragma: no cover
    main(prog_name="artscope")
