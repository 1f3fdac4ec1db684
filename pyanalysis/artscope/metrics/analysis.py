"""One loaded trace -> every metric of every run, in the JSON output's shape.

Data flows one way: engine tables -> selection -> sql-metrics DataFrames ->
per-run numbers (compute.py) -> verdict (health.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from artscope.engines.base import Engine
from artscope.metrics import compute, conditions, health, memory, startup
from artscope.metrics.options import AnalysisOptions
from artscope.metrics.runner import MetricRunner
from artscope.metrics.selection import Selection, select


#: The sql-metrics files every analysis runs (affinity_evidence too, where the
#: engine has an ftrace_event table).
ANALYZE_METRICS = ("gc", "gc_events", "gc_pause", "gc_wait", "pinning", "migrations",
                   "interference", "frames", "frame_source", "frequency", "data_loss",
                   "conditions", "thermal", "heap",
                   *memory.MEMORY_METRICS, "startups", "cooling_devices")


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
    tables = runner.run_many(ANALYZE_METRICS)
    try:
        tables["affinity_evidence"] = runner.run("affinity_evidence")
    except Exception:
        # Engines without an ftrace_event table (e.g. trace_processor with raw
        # ingestion off) simply have no cgroup evidence.
        tables["affinity_evidence"] = runner.empty("affinity_evidence")
    pin = tables["pinning"]
    # When pinning held is read only where some run has off-mask time.
    if pin.height and pin["off_mask_ns"].sum() > 0:
        tables["pinning_phases"] = runner.run("pinning_phases")
    src = tables["frame_source"]
    frame_source = src["source"][0] if src.height else None
    data_loss = tables["data_loss"].to_dicts()
    setup_errors = _ftrace_setup_errors(runner, engine)
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
    results = []
    for run in sel.runs:
        w_len = run.end_ts - run.start_ts
        gc = compute.gc_metrics(run.run, tables["gc"], tables["gc_events"], cap,
                                tables["gc_pause"], tables["gc_wait"],
                                (run.start_ts, run.end_ts))
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
                run.run, w_len, sel, tables["pinning"], tables["migrations"],
                tables["interference"], tables["affinity_evidence"],
                gc["app_cpu_ns"], cap, tables.get("pinning_phases")),
            "jank": compute.jank_metrics(run.run, frame_source, tables["frames"], opts),
            "cpufreq": compute.cpufreq_metrics(run.run, w_len, tables["frequency"],
                                               freq_cpus, opts),
            "memfreq": compute.memfreq_metrics(run.run, w_len, tables["frequency"], opts),
            "heap": conditions.heap_metrics(run.run, tables["heap"], tables["heap"].height > 0),
            "partial": partial or bool(data_loss),
        }
        result["memory"] = memory.memory_metrics(
            run.run, (run.start_ts, run.end_ts), sel, gc["app_cpu_ns"],
            tables["direct_reclaim"], tables["memory_pressure"], tables["memory_kills"],
            tables["memory_rss"], tables["memory_vmstat"], mem_cap)
        result["startups"] = launches
        result["conditions"] = conditions.conditions_metrics(
            run.run, sel, result["cpufreq"], result["memfreq"], tables["conditions"],
            tables["thermal"], tables["frequency"])
        result["health"] = health.evaluate(
            result, opts.thresholds, partial=partial, data_loss=data_loss + setup_errors,
            import_warnings=info.warnings if info else None,
            cooling=compute._by_run(tables["cooling_devices"], run.run).to_dicts(),
            captured=cap.kinds())
        results.append(result)
    return Analysis(trace=trace, engine=engine.name, selection=sel, results=results,
                    tables=tables, runner=runner)


def _ftrace_setup_errors(runner: MetricRunner, engine: Engine) -> list[dict[str, Any]]:
    """The events and atrace categories the capture failed to enable, as
    data-loss rows (name ftrace_setup_errors, kind, what): from the import
    logs (ftrace_setup_errors.sql); a trace_processor older than its import
    logs kept them as one metadata text, a message a line; else only the
    stat's count (what None)."""
    try:
        rows = runner.run("ftrace_setup_errors").to_dicts()
    except Exception:
        rows = []
    if rows:
        return [{"name": "ftrace_setup_errors", "idx": None, "value": 1, **r} for r in rows]
    n = engine.query("SELECT coalesce(sum(value), 0) AS n FROM stats "
                     "WHERE name = 'ftrace_setup_errors'").item(0, 0)
    if not n:
        return []
    try:
        text = engine.query("SELECT str_value FROM metadata "
                            "WHERE name = 'ftrace_setup_errors'")["str_value"].to_list()
    except Exception:
        text = []
    parsed = [_setup_error_row(line) for t in text if t for line in t.splitlines()
              if line.strip()]
    return parsed or [{"name": "ftrace_setup_errors", "idx": None, "value": int(n),
                       "kind": None, "what": None}]


#: ftrace_setup_errors message prefixes -> kind (as ftrace_setup_errors.sql).
_SETUP_KINDS = (("Ftrace event failed: ", "failed"), ("Ftrace event unknown: ", "unknown"),
                ("Atrace failures: ", "atrace"), ("Ftrace exclusive feature error: ", "exclusive"))


def _setup_error_row(message: str) -> dict[str, Any]:
    for prefix, kind in _SETUP_KINDS:
        if message.startswith(prefix):
            return {"name": "ftrace_setup_errors", "idx": None, "value": 1, "kind": kind,
                    "what": message[len(prefix):].strip(), "message": message}
    return {"name": "ftrace_setup_errors", "idx": None, "value": 1, "kind": "other",
            "what": message.strip(), "message": message}
