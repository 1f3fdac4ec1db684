"""One loaded trace -> every metric of every run, in the JSON output's shape.

Data flows one way: engine tables -> selection -> sql-metrics DataFrames ->
per-run numbers (compute.py) -> verdict (health.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from artscope.engines.base import Engine
from artscope.metrics import compute, conditions, dvfs, health, memory, startup, validity
from artscope.metrics.options import AnalysisOptions
from artscope.metrics.runner import MetricRunner
from artscope.metrics.selection import Selection, select
from artscope.metrics.setup_errors import setup_errors


#: The sql-metrics files every analysis runs (affinity_evidence too, where the
#: engine has an ftrace_event table).
ANALYZE_METRICS = ("gc", "gc_events", "gc_pause", "gc_wait", "pinning", "migrations",
                   "interference", "frames", "frame_source", "frequency", "data_loss",
                   "conditions", "thermal", "heap",
                   *memory.MEMORY_METRICS, "startups", "cooling_devices", "run_validity",
                   *dvfs.DVFS_METRICS)


@dataclasses.dataclass
class Analysis:
    """Everything computed for one trace: per-run results plus breakdowns."""

    trace: str
    engine: str
    selection: Selection
    results: list[dict[str, Any]]
    #: raw metric DataFrames (all runs), keyed by sql-metrics file name
    tables: dict[str, pl.DataFrame]
    #: the runner whose input tables hold this selection (for more metric
    #: files later, e.g. chart data)
    runner: MetricRunner


def analyze_engine(engine: Engine, opts: AnalysisOptions, trace: str) -> Analysis:
    runner = MetricRunner(engine)
    sel = select(runner, opts)
    cap = compute.Capture.probe(engine)
    # pinning_phases (when a mask held) is needed only where some run has
    # off-mask time. An engine that runs queries two at a time runs it beside
    # the others (on a clean run it costs ~0.03 s on the 60 s bench trace,
    # hidden there); one that runs them in turn, only where needed, below.
    ahead = ("pinning_phases",) if engine.runs_queries_concurrently else ()
    # Files that can only have rows with data the trace lacks are not run
    # (their declared columns, no rows): preparing them is most of what they
    # cost on a small trace, and a study analyses thousands.
    counted = dvfs.counters_recorded(engine)
    absent = {name: runner.empty(name) for name, recorded in (
        ("startups", startup.launches_recorded(engine)), ("dvfs_counters", counted))
        if not recorded}
    tables = runner.run_many(tuple(n for n in ANALYZE_METRICS + ahead if n not in absent))
    tables.update(absent)
    tables["gc_slices"] = runner.derived("artscope_target_gc")
    try:
        tables["affinity_evidence"] = runner.run("affinity_evidence")
    except Exception:
        # Engines without an ftrace_event table (e.g. trace_processor with raw
        # ingestion off) simply have no cgroup evidence.
        tables["affinity_evidence"] = runner.empty("affinity_evidence")
    pin = tables["pinning"]
    if not (pin.height and pin["off_mask_ns"].sum() > 0):
        tables.pop("pinning_phases", None)
    elif "pinning_phases" not in tables:
        tables["pinning_phases"] = runner.run("pinning_phases")
    src = tables["frame_source"]
    frame_source = src.row(0, named=True) if src.height else {}
    data_loss = tables["data_loss"].to_dicts()
    setup_error_rows = _ftrace_setup_errors(engine)
    info = engine.info
    partial = bool(info and info.partial)

    if sel.allowed_cpus is not None:
        freq_cpus = sorted(set(sel.allowed_cpus) | set(sel.gc_allowed_cpus or []))
    else:
        known = set(sel.topology.cluster_of) | set(
            tables["frequency"].filter(pl.col("source") == "cpufreq")["cpu"].to_list()
            if tables["frequency"].height else [])
        freq_cpus = sorted(c for c in known if c is not None)

    mem_cap = memory.MemoryCapture.probe(engine, cap.sched, cap.config_pbtxt,
                                         tables["memory_pressure"], tables["memory_kills"])
    launches = startup.target_startups(tables["startups"], sel)
    valid_rows = tables["run_validity"]
    valid_cap = validity.ValidityCapture.probe(cap.config_pbtxt, cap.sched, cap.dalvik,
                                               valid_rows)
    first_runs = validity.first_runs_of_process(
        valid_rows, {run.run: run.start_ts for run in sel.runs})
    results = []
    for run in sel.runs:
        w_len = run.end_ts - run.start_ts
        gc = compute.gc_metrics(run.run, tables["gc"], tables["gc_events"], cap,
                                tables["gc_pause"], tables["gc_wait"],
                                (run.start_ts, run.end_ts), tables["gc_slices"])
        result: dict[str, Any] = {
            "trace": trace,
            "run": run.run,
            "engine": engine.name,
            "window": {"start_ts": run.start_ts, "end_ts": run.end_ts,
                       "source": run.source},
            "process": {"name": sel.process_name, "pids": sel.pids,
                        "matched_by": sel.matched_by},
            "gc": gc,
            "pinning": compute.pinning_metrics(
                run.run, (run.start_ts, min(run.end_ts, run.start_ts + opts.pin_grace_ns),
                          run.end_ts), sel, tables["pinning"], tables["migrations"],
                tables["interference"], tables["affinity_evidence"],
                gc["app_cpu_ns"], cap, tables.get("pinning_phases")),
            "jank": compute.jank_metrics(run.run, frame_source, tables["frames"], opts),
            "cpufreq": compute.cpufreq_metrics(run.run, w_len, tables["frequency"],
                                               freq_cpus, opts, sel.topology),
            "memfreq": compute.memfreq_metrics(run.run, w_len, tables["frequency"], opts),
            "heap": conditions.heap_metrics(run.run, tables["heap"], tables["heap"].height > 0),
            "partial": partial or bool(data_loss),
        }
        result["memory"] = memory.memory_metrics(
            run.run, (run.start_ts, run.end_ts), sel, gc["app_cpu_ns"],
            tables["direct_reclaim"], tables["memory_pressure"], tables["memory_kills"],
            tables["memory_rss"], tables["memory_vmstat"], mem_cap)
        result["startups"] = launches
        result["validity"] = validity.validity_metrics(
            next(iter(compute._by_run(valid_rows, run.run).to_dicts()), None),
            (run.start_ts, run.end_ts), first_runs.get(run.run), tables["memory_kills"],
            gc["app_cpu_ns"], valid_cap, opts.thresholds.cold_start_lead_ns)
        _add_dvfs(result, run.run, tables, sel, cap, counted, runner)
        result["conditions"] = conditions.conditions_metrics(
            run.run, sel, result["cpufreq"], result["memfreq"], tables["conditions"],
            tables["thermal"], tables["frequency"])
        result["health"] = health.evaluate(
            result, opts.thresholds, partial=partial, data_loss=data_loss + setup_error_rows,
            import_warnings=info.warnings if info else None,
            cooling=compute._by_run(tables["cooling_devices"], run.run).to_dicts(),
            captured=cap.kinds())
        results.append(result)
    return Analysis(trace=trace, engine=engine.name, selection=sel, results=results,
                    tables=tables, runner=runner)


def _add_dvfs(result: dict[str, Any], run: int, tables: dict[str, pl.DataFrame],
              sel: Selection, cap: compute.Capture, counted: bool,
              runner: MetricRunner) -> None:
    """The run's ``dvfs`` block, and each GC event's frequency and cycles."""
    energy = dvfs.declared("rail_energy", tables["rail_energy"])
    time_tables = list(dvfs.TIME_METRICS)
    if dvfs.needs_busy(energy, counted):
        if dvfs.BUSY_METRIC not in tables:
            tables[dvfs.BUSY_METRIC] = runner.run(dvfs.BUSY_METRIC)
        time_tables.append(dvfs.BUSY_METRIC)
    time = pl.concat([dvfs.declared(n, tables[n]) for n in time_tables])
    counters = dvfs.declared("dvfs_counters", tables["dvfs_counters"])
    result["dvfs"] = dvfs.dvfs_metrics(run, time, counters, energy, sel.topology, cap.sched,
                                       counted, cap.dalvik)
    ev = tables["gc_events"]
    gc_ids = ev.filter(pl.col("run") == run)["gc_id"].to_list() if ev.height else []
    per_gc = dvfs.gc_events_dvfs(run, gc_ids, time, counters, sel.topology, counted)
    for event, gc_id in zip(result["gc"]["events"], gc_ids):
        event["dvfs"] = per_gc[gc_id] if cap.sched else None


def _ftrace_setup_errors(engine: Engine) -> list[dict[str, Any]]:
    """The events and atrace categories the capture failed to enable, as
    data-loss rows (name ftrace_setup_errors, kind, what; what None for the
    errors the trace counts without naming)."""
    named, unnamed = setup_errors(engine)
    rows = [{"name": "ftrace_setup_errors", "idx": None, "value": 1, **r} for r in named]
    if unnamed:
        rows.append({"name": "ftrace_setup_errors", "idx": None, "value": unnamed,
                     "kind": None, "what": None})
    return rows
