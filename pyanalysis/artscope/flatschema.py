"""The flat per-run row: the columns of ``analyze --format csv|parquet``.

One declared, stable list of columns (:data:`COLUMNS`): the same names, types
and order for every trace, whatever its CPUs, clocks or processes. Values
come from the run's JSON result (the ``analyze --format json`` shape) by
path; lists that vary from trace to trace (per-CPU and per-device frequency
series, threads, GC events, reasons) are one JSON string column each, and
the frequency lists also get summary columns (``cpufreq_stable``,
``memfreq_transitions`` ...) that studies compare across runs.
docs/flat-columns.md is generated from this list (``python -m
artscope.flatschema > docs/flat-columns.md``) and a test keeps it in sync.

To add a per-run field: put it in the JSON result, then declare its column
here with :func:`value` (a scalar at a JSON path) or :func:`as_json` (a
list or map kept whole).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any, Callable, Iterable

import polars as pl


@dataclasses.dataclass(frozen=True)
class Column:
    """One flat column: its name, polars type, meaning and how to read it."""

    name: str
    dtype: pl.DataType
    doc: str
    get: Callable[[dict[str, Any]], Any]


def _at(result: dict[str, Any], path: str) -> Any:
    v: Any = result
    for key in path.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(key)
    return v


def value(path: str, dtype: pl.DataType, doc: str, name: str | None = None) -> Column:
    """The scalar at ``path`` ("gc.app_cpu_ns"); named with ``_`` for ``.``.
    A list of numbers or strings (e.g. allowed CPUs) becomes "6,7"."""
    def get(r: dict[str, Any]) -> Any:
        v = _at(r, path)
        if isinstance(v, list):
            return ",".join(str(x) for x in v) if v else None
        return v
    return Column(name or path.replace(".", "_"), dtype, doc, get)


def as_json(path: str, doc: str, name: str | None = None) -> Column:
    """The list or map at ``path`` as a JSON string (null when empty or absent)."""
    def get(r: dict[str, Any]) -> Any:
        v = _at(r, path)
        return json.dumps(v, sort_keys=True) if v else None
    return Column(name or path.replace(".", "_"), pl.String, doc, get)


def derived(name: str, dtype: pl.DataType, doc: str,
            fn: Callable[[dict[str, Any]], Any]) -> Column:
    return Column(name, dtype, doc, fn)


# -- summaries of the frequency series ------------------------------------------

def all_hold(values: Iterable[bool | None]) -> bool | None:
    """False if any is False; else None if any is unknown (or none at all); else True."""
    vals = list(values)
    if any(v is False for v in vals):
        return False
    if not vals or any(v is None for v in vals):
        return None
    return True


def _any_true(values: Iterable[bool | None]) -> bool | None:
    vals = list(values)
    if any(v is True for v in vals):
        return True
    if not vals or all(v is None for v in vals):
        return None
    return False


def _total(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _least(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def _cpu_series(r: dict[str, Any]) -> list[dict[str, Any]]:
    return r.get("cpufreq") or []


def _memory_series(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in (r.get("memfreq") or []) if m.get("is_memory")]


def _mmu_at(r: dict[str, Any], curve: str, window_ns: int) -> float | None:
    for p in (r.get("gc") or {}).get(curve) or []:
        if p["window_ns"] == window_ns:
            return p["mmu"]
    return None


def _gc_breakdown(group: str, keys: Iterable[str], what: str) -> list[Column]:
    cols = []
    for k in keys:
        cols.append(value(f"gc.{group}.{k}.count", pl.Int64, f"GCs {what} {k} starting in W"))
        cols.append(value(f"gc.{group}.{k}.cpu_ns", pl.Int64, f"CPU time of GCs {what} {k} in W"))
    return cols


def _gc_breakdown_columns() -> list[Column]:
    from artscope.metrics.compute import GC_CAUSES, GC_KINDS

    return (_gc_breakdown("by_cause", GC_CAUSES, "caused by")
            + _gc_breakdown("by_kind", GC_KINDS, "of kind"))


def _conditions_columns() -> list[Column]:
    """``conditions`` -> ``cond_…`` columns, ``heap`` -> ``heap_…``."""
    from artscope.metrics import conditions as C

    I, F, S, B = pl.Int64, pl.Float64, pl.String, pl.Boolean
    dev = "conditions.device."
    return [
        value("conditions.started_at", S, "W's start as UTC wall-clock time (ISO 8601; null: no REALTIME clock snapshot)",
              name="cond_started_at"),
        value("conditions.started_at_unix_ns", I, "W's start as ns since the UNIX epoch (UTC)",
              name="cond_started_at_unix_ns"),
        value(dev + "model", S, "device: the build fingerprint's device, after the manufacturer when recorded",
              name="cond_device_model"),
        value(dev + "manufacturer", S, "device manufacturer (SystemInfo)", name="cond_device_manufacturer"),
        value(dev + "soc_model", S, "SoC model (SystemInfo)", name="cond_device_soc_model"),
        value(dev + "build_fingerprint", S, "Android build fingerprint", name="cond_device_build_fingerprint"),
        value(dev + "kernel_release", S, "kernel release (uname -r)", name="cond_device_kernel_release"),
        value(dev + "machine", S, "machine (uname -m)", name="cond_device_machine"),
        derived("cond_at_max", B, "every allowed cluster and memory controller ran at the highest level the trace shows",
                lambda r: all_hold(lv.get("at_max") for lv in C.levels(r))),
        as_json("conditions.clusters", "per allowed cluster: CPUs, dominant level, unit, stable, highest, at_max (JSON list)",
                name="cond_clusters"),
        as_json("conditions.memory", "per memory controller series: dominant level, unit, stable, highest, at_max (JSON list)",
                name="cond_memory"),
        derived("cond_thermal_start_c", F, "hottest thermal zone at W's start, degrees C (null: not captured)",
                lambda r: C.hottest(r, "start_c")),
        derived("cond_thermal_max_c", F, "hottest thermal reading in W, degrees C",
                lambda r: C.hottest(r, "max_c")),
        as_json("conditions.thermal", "per thermal zone: start_c, max_c (JSON list)", name="cond_thermal"),
        value("heap.peak_kb", F, "highest 'Heap size (KB)' of the app in W"),
        value("heap.allocated_kb", F, "sum of the heap counter's rises in W (an estimate of allocation)"),
        value("heap.freed_kb", F, "sum of the heap counter's falls in W"),
        value("heap.samples", I, "heap counter samples inside W"),
        value("heap.reason", S, "why heap numbers are null, or how they are estimated"),
    ]


def _kill_count(r: dict[str, Any]) -> int | None:
    kills = _at(r, "memory.kills")
    return None if kills is None else len(kills)


def _memory_columns() -> list[Column]:
    """The run's memory block (flat ``mem_...``) and the trace's launches."""
    I, F, B = pl.Int64, pl.Float64, pl.Boolean
    rss = []
    for part, what in (("rss", "resident set"), ("rss_anon", "anonymous RSS"),
                       ("rss_file", "file-backed RSS"), ("rss_shmem", "shared-memory RSS")):
        for at, when in (("start", "at W's start"), ("peak", "peak in W"), ("end", "at W's end")):
            rss.append(value(f"memory.{part}_{at}_kb", I, f"the target's {what} {when}, kB",
                             name=f"mem_{part}_{at}_kb"))
    return [
        value("memory.direct_reclaim_ns", I, "target threads' time in direct reclaim in W",
              name="mem_direct_reclaim_ns"),
        value("memory.direct_reclaim_share", F, "direct_reclaim_ns / app_cpu_ns",
              name="mem_direct_reclaim_share"),
        value("memory.direct_reclaim_slices", I, "direct reclaim slices of target threads in W",
              name="mem_direct_reclaim_slices"),
        value("memory.direct_reclaim_first_ts", I, "start of the first reclaim in W, absolute ns",
              name="mem_direct_reclaim_first_ts"),
        value("memory.direct_reclaim_last_end_ts", I, "end of the last reclaim in W, absolute ns",
              name="mem_direct_reclaim_last_end_ts"),
        as_json("memory.direct_reclaim_threads", "direct reclaim per target thread (JSON list)",
                name="mem_direct_reclaim_threads"),
        value("memory.kswapd_cpu_ns", I, "kswapd's CPU time in W, all CPUs",
              name="mem_kswapd_cpu_ns"),
        value("memory.kswapd_allowed_cpu_ns", I, "kswapd's CPU time in W on the allowed CPUs",
              name="mem_kswapd_allowed_cpu_ns"),
        value("memory.kswapd_allowed_share", F, "kswapd_allowed_cpu_ns / |W|",
              name="mem_kswapd_allowed_share"),
        value("memory.io_wait_ns", I, "target threads' time in W blocked on I/O (D, io_wait)",
              name="mem_io_wait_ns"),
        derived("mem_kills", I, "processes killed for memory (lmkd, OOM killer) in W",
                _kill_count),
        value("memory.target_killed", B, "the target was killed in W", name="mem_target_killed"),
        as_json("memory.kills", "the kills in W (JSON list)", name="mem_kill_list"),
        *rss,
        value("memory.rss_source", pl.String, "how the RSS total was found: sum_of_parts | polled_total",
              name="mem_rss_source"),
        value("memory.major_faults", I, "system major page faults over W (vmstat pgmajfault)",
              name="mem_major_faults"),
        value("memory.refaults", I, "system refaults over W (vmstat workingset_refault*)",
              name="mem_refaults"),
        as_json("memory.unavailable", "why memory values are null (JSON map)",
                name="mem_unavailable"),
        derived("startup_count", I, "launches of the target in the trace",
                lambda r: None if r.get("startups") is None else len(r["startups"])),
        as_json("startups", "the target's launches: type, ts, dur, breakdown (JSON list)"),
    ]


def _validity_columns() -> list[Column]:
    """``validity`` -> ``validity_…`` columns (docs/metrics.md "Run validity")."""
    I, F, S, B = pl.Int64, pl.Float64, pl.String, pl.Boolean
    return [
        value("validity.cold_start", B, "the app's process started in W or just before it "
              "(null: its start is not in the trace)"),
        value("validity.pid", I, "the run's process: the target process alive at W's start"),
        value("validity.process_start_ts", I, "when that process started, absolute trace ns"),
        value("validity.process_start_lead_ns", I, "W's start minus the process's start"),
        value("validity.first_run_of_process", B, "no earlier run of the trace has the same process"),
        value("validity.app_died", B, "the app exited, was killed or threw OutOfMemoryError in W"),
        value("validity.died_ts", I, "when, absolute trace ns"),
        value("validity.died_how", S, "out_of_memory_error | killed | lmk_kill | oom_kill | exit"),
        value("validity.died_detail", S, "which process or thread, in words"),
        value("validity.jit_cpu_ns", I, "CPU time in W of the JIT thread pool and JIT compile slices"),
        value("validity.jit_cpu_share", F, "jit_cpu_ns / app_cpu_ns"),
        value("validity.jit_compiles", I, "JIT compile slices of the app starting in W"),
        as_json("validity.unavailable", "why validity values are null (JSON map)"),
    ]


def _sum_known(*values: float | None) -> float | None:
    return None if any(v is None for v in values) else sum(values)


def _dvfs_cluster_ns(part: str, cluster: str) -> Column:
    def get(r: dict[str, Any]) -> Any:
        for c in _at(r, f"dvfs.{part}.by_cluster") or []:
            if c["cluster"] == cluster:
                return c["cpu_ns"]
        return None
    return derived(f"dvfs_{part}_{cluster}_cpu_ns", pl.Int64,
                   f"{part} CPU time in W on the {cluster} cluster (null: no such cluster)", get)


def _dvfs_columns() -> list[Column]:
    """The GC under DVFS (docs/metrics.md): frequency of the GC's and the
    mutators' CPU time (kHz), cycles (counted or estimated), energy."""
    I, F, S, B = pl.Int64, pl.Float64, pl.String, pl.Boolean
    cols = []
    for part in ("gc", "mutator"):
        cols += [
            value(f"dvfs.{part}.mean", F, f"time-weighted frequency of the {part}'s CPU time in W, kHz"),
            value(f"dvfs.{part}.min", F, f"lowest frequency the {part} ran at in W, kHz"),
            value(f"dvfs.{part}.max", F, f"highest frequency the {part} ran at in W, kHz"),
            value(f"dvfs.{part}.unknown_ns", I, f"{part} CPU time at an unknown frequency"),
            *(_dvfs_cluster_ns(part, k) for k in ("little", "mid", "big")),
        ]
    return cols + [
        value("dvfs.gc_to_mutator_freq_ratio", F, "dvfs_gc_mean / dvfs_mutator_mean"),
        value("dvfs.cycles.source", S, "counters (perf counters at context switches) | estimate (CPU time × frequency)"),
        value("dvfs.cycles.estimate", B, "the cycles are an estimate (no counters)"),
        value("dvfs.cycles.app_cycles", F, "cycles of all target threads in W"),
        value("dvfs.cycles.gc_cycles", F, "cycles of the GC's CPU time in W"),
        value("dvfs.cycles.gc_cycles_share", F, "gc_cycles / app_cycles"),
        derived("dvfs_app_cycles_estimate", F, "the app's cycles estimated as CPU time × frequency (whether or not counted)",
                lambda r: _sum_known(_at(r, "dvfs.gc.cycles_estimate"),
                                     _at(r, "dvfs.mutator.cycles_estimate"))),
        value("dvfs.gc.cycles_estimate", F, "the GC's cycles estimated as CPU time × frequency (whether or not counted)",
              name="dvfs_gc_cycles_estimate"),
        value("dvfs.cycles.gc_cpi", F, "GC cycles per instruction (counters only)"),
        value("dvfs.cycles.mutator_cpi", F, "mutator cycles per instruction (counters only)"),
        value("dvfs.energy.source", S, "rails (ODPM power rails) | battery | null"),
        value("dvfs.energy.total_j", F, "energy over W, J: all rails, else the battery's"),
        value("dvfs.energy.mean_power_w", F, "mean power over the part of W the samples cover, W (all rails, else the battery)"),
        value("dvfs.energy.gc_cpu_j", F, "estimate: the GC's share of the CPU rails' energy, J"),
        value("dvfs.energy.gc_cpu_mean_power_w", F, "estimate: the GC's share of the CPU rails' mean power, W"),
        as_json("dvfs.energy.rails", "energy per rail, with the GC's estimated share (JSON list)"),
        value("dvfs.unknown_tolerance", F, "share of the time a DVFS number may not see and stay known"),
        value("dvfs.reason", S, "why the GC's and the mutators' frequency is unknown (no sched, no dalvik)"),
        as_json("dvfs.gc", "the GC's frequency summary, per cluster too (JSON)"),
        as_json("dvfs.mutator", "the mutators' frequency summary, per cluster too (JSON)"),
        as_json("dvfs.cycles", "cycles and instructions: counts, uncounted time, per thread (JSON)"),
        as_json("dvfs.energy", "energy: per rail with covered time and mean power, battery (JSON)"),
    ]


@functools.lru_cache(maxsize=1)
def _columns() -> tuple[Column, ...]:
    I, F, S, B = pl.Int64, pl.Float64, pl.String, pl.Boolean
    return (
        value("trace", S, "trace file as given"),
        value("run", I, "run index within the trace (0-based)"),
        value("engine", S, "engine that produced the numbers: embedded | trace_processor"),
        value("error", S, "why the trace could not be analysed (its only other column is trace)"),
        value("window.start_ts", I, "run window W start, absolute trace ns"),
        value("window.end_ts", I, "run window W end (exclusive), absolute trace ns"),
        value("window.source", S, "how W was chosen: window | marker | app_benchmark | launch | process | trace"),
        value("process.name", S, "target process name"),
        value("process.pids", S, "target pids, comma-separated"),
        value("process.matched_by", S, "how the target was found (process_name, pid, package_list ...)"),
        value("gc.app_cpu_ns", I, "CPU time of all target threads in W (task clock)"),
        value("gc.gc_cpu_ns", I, "CPU time attributable to GC in W"),
        value("gc.gc_cpu_share", F, "gc_cpu_ns / app_cpu_ns"),
        value("gc.mutator_cpu_ns", I, "app_cpu_ns - gc_cpu_ns (the distilled cost)"),
        value("gc.gc_count", I, "GCs starting in W (on any target thread, at any depth)"),
        value("gc.gc_wall_ns", I, "length of the union of GC intervals within W"),
        value("gc.gc_daemon_cpu_ns", I, "all CPU time of HeapTaskDaemon in W"),
        value("gc.foreground_count", I, "GCs run by a mutator itself starting in W"),
        value("gc.foreground_ns", I, "time foreground GCs held their threads within W"),
        *_gc_breakdown_columns(),
        value("gc.unfinished_count", I, "GCs starting in W still running at the trace end"),
        value("gc.pause_count", I, "GC pauses (mutators suspended) overlapping W"),
        value("gc.pause_total_ns", I, "GC pause time in W"),
        value("gc.pause_max_ns", I, "longest GC pause in W (0: none)"),
        value("gc.pause_p50_ns", I, "GC pause length in W, nearest-rank p50"),
        value("gc.pause_p90_ns", I, "GC pause length in W, nearest-rank p90"),
        value("gc.pause_p99_ns", I, "GC pause length in W, nearest-rank p99"),
        value("gc.other_pause_count", I, "suspend-alls of the app outside any GC in W"),
        value("gc.other_pause_total_ns", I, "their time in W"),
        value("gc.mutator_wait_ns", I, "mutator threads' time in 'GC: Wait For Completion' in W"),
        value("gc.main_thread_wait_ns", I, "the main thread's part of mutator_wait_ns"),
        derived("gc_mmu_10ms", F, "minimum mutator utilisation over GC pauses and foreground GCs, 10 ms windows",
                lambda r: _mmu_at(r, "mmu", 10_000_000)),
        derived("gc_mmu_100ms", F, "the same, 100 ms windows",
                lambda r: _mmu_at(r, "mmu", 100_000_000)),
        derived("gc_main_thread_mmu_10ms", F, "MMU of the main thread (GC pauses, its GC waits and own GCs), 10 ms windows",
                lambda r: _mmu_at(r, "main_thread_mmu", 10_000_000)),
        as_json("gc.mmu", "MMU curve over GC pauses and foreground GCs: [{window_ns, mmu}] (JSON list)"),
        as_json("gc.main_thread_mmu", "MMU curve of the main thread (JSON list)"),
        as_json("gc.events", "per-GC rows (JSON list)"),
        value("pinning.allowed_cpus", S, "allowed CPUs of mutator threads, comma-separated"),
        value("pinning.gc_allowed_cpus", S, "allowed CPUs of GC threads, comma-separated"),
        value("pinning.cpus_source", S, "where the allowed CPUs came from (list, or the topology source of a cluster keyword)"),
        value("pinning.migrations", I, "consecutive slices of a target thread on different CPUs"),
        value("pinning.cross_cluster_migrations", I, "migrations between clusters"),
        value("pinning.off_mask_cpu_ns", I, "target CPU time outside the allowed CPUs in W"),
        value("pinning.off_mask_share", F, "off_mask_cpu_ns / app_cpu_ns"),
        value("pinning.grace_off_mask_cpu_ns", I, "off-mask CPU time inside the --pin-grace period"),
        value("pinning.violation_slices", I, "sched slices off the allowed CPUs"),
        value("pinning.threads_violating", I, "target threads with off-mask time"),
        value("pinning.first_violation_ts", I, "clipped start of the first off-mask slice, absolute ns"),
        value("pinning.last_violation_end_ts", I, "clipped end of the last off-mask slice, absolute ns"),
        value("pinning.diagnosis", S, "no_mask_seen | pinned_late | mask_lost | null (no off-mask time)"),
        value("pinning.diagnosis_ts", I, "pinned_late: when pinning took effect; mask_lost: when it was lost (absolute ns)"),
        value("pinning.relapse_ts", I, "pinned_late: when the app left the allowed CPUs again, if it did (absolute ns)"),
        as_json("pinning.pinned_stretch", "the stretch on the allowed CPUs only that shows the mask of pinned_late / mask_lost (JSON object)"),
        as_json("pinning.clusters", "the trace's CPU clusters, littlest first (JSON list of CPU lists)"),
        value("pinning.clusters_source", S, "the evidence that ranked the clusters (capacity, available_frequencies, frequency_limits, clock_names, cpu_numbering)"),
        value("pinning.unplaced_cpus", S, "CPUs the evidence could not place in a cluster, comma-separated"),
        value("pinning.interference_cpu_ns", I, "CPU time of other threads on the allowed CPUs in W"),
        value("pinning.interference_share", F, "interference_cpu_ns / (|A| x |W|)"),
        as_json("pinning.top_interferers", "top interfering processes (JSON list)"),
        as_json("pinning.threads", "per-thread pinning breakdown (JSON list)"),
        as_json("pinning.evidence", "affinity syscalls and cgroup moves of target threads (JSON list)"),
        value("jank.source", S, "frame_timeline | choreographer | none"),
        value("jank.refresh_hz", F, "the display's refresh rate the trace shows, Hz"),
        value("jank.refresh_source", S, "frame_timeline | vsync: where refresh_hz came from"),
        value("jank.frame_deadline_ns", I, "choreographer: the deadline a janky frame missed"),
        value("jank.deadline_source", S, "option | frame_timeline | vsync | assumed"),
        value("jank.draws_on", S, "flutter | unity | unreal | gl_thread: an engine drawing on threads of its own"),
        value("jank.frames", I, "finished frames starting in W"),
        value("jank.janky_frames", I, "janky frames"),
        value("jank.app_janky_frames", I, "frames janky by the app's own fault"),
        value("jank.janky_pct", F, "janky_frames / frames, percent"),
        value("jank.unfinished_frames", I, "frames still open at the trace end (left out)"),
        value("jank.frame_dur_ms.p50", F, "frame duration, nearest-rank p50, ms"),
        value("jank.frame_dur_ms.p90", F, "frame duration p90, ms"),
        value("jank.frame_dur_ms.p95", F, "frame duration p95, ms"),
        value("jank.frame_dur_ms.p99", F, "frame duration p99, ms"),
        derived("cpufreq_cpus", S, "CPUs whose frequency was judged, comma-separated",
                lambda r: ",".join(str(c["cpu"]) for c in _cpu_series(r)) or None),
        derived("cpufreq_stable", B, "every judged CPU held one frequency (null: some unknown)",
                lambda r: all_hold(c.get("stable") for c in _cpu_series(r))),
        derived("cpufreq_transitions", I, "frequency changes in W, summed over the judged CPUs",
                lambda r: _total(c.get("transitions") for c in _cpu_series(r))),
        derived("cpufreq_known_share_min", F, "smallest known share of W over the judged CPUs",
                lambda r: _least(c.get("known_share") for c in _cpu_series(r))),
        derived("cpufreq_throttled", B, "some judged CPU was throttled",
                lambda r: _any_true(c.get("throttled") for c in _cpu_series(r))),
        as_json("cpufreq", "per-CPU frequency series (JSON list)"),
        derived("memfreq_devices", S, "memory-controller series, comma-separated",
                lambda r: ",".join(m["device"] for m in _memory_series(r)) or None),
        derived("memfreq_stable", B, "every memory-controller series held one frequency",
                lambda r: all_hold(m.get("stable") for m in _memory_series(r))),
        derived("memfreq_transitions", I, "memory-controller frequency changes in W, summed",
                lambda r: _total(m.get("transitions") for m in _memory_series(r))),
        derived("memfreq_known_share_min", F, "smallest known share of W over memory series",
                lambda r: _least(m.get("known_share") for m in _memory_series(r))),
        as_json("memfreq", "frequency series of devices (JSON list)"),
        *_memory_columns(),
        *_conditions_columns(),
        *_validity_columns(),
        *_dvfs_columns(),
        value("partial", B, "the numbers cover only part of the run (truncated trace, data loss)"),
        value("health.verdict", S, "pass | warn | fail"),
        as_json("health.reasons", "the verdict's reasons (JSON list)"),
    )


def columns() -> list[Column]:
    """The flat columns, in order."""
    return list(_columns())


def schema() -> dict[str, pl.DataType]:
    return {c.name: c.dtype for c in _columns()}


def flatten(result: dict[str, Any]) -> dict[str, Any]:
    """One run's result (or a batch error row) -> one flat row with every column."""
    return {c.name: c.get(result) for c in _columns()}


def flat_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Flat rows (from one trace or many) -> one DataFrame of the declared schema."""
    cols = _columns()
    # (built row by row: a batch makes one frame per trace, and per column
    # building costs a Series each)
    return pl.DataFrame([tuple(r.get(c.name) for c in cols) for r in rows],
                        schema={c.name: c.dtype for c in cols}, orient="row", strict=False)


def markdown() -> str:
    """docs/flat-columns.md: the column table."""
    lines = ["# Flat per-run columns",
             "",
             "`artscope analyze --format csv|parquet`, `artscope.analyze()` and",
             "`RunSet.flat()` give one row per run with exactly these columns, in",
             "this order, for every trace. Integers are ns unless the name says",
             "otherwise; null means the trace did not capture the data (see the",
             "run's reasons). Generated from `artscope/flatschema.py`.",
             "",
             "| column | type | meaning |",
             "|---|---|---|"]
    lines += [f"| `{c.name}` | {c.dtype} | {c.doc} |" for c in _columns()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
