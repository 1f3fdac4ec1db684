"""The conditions a run held and the heap work it did, for comparing runs.

``conditions``: the frequency level of the cluster(s) holding the allowed CPUs
and of each memory controller (read from the run's ``cpufreq`` / ``memfreq``
entries, so level and unit are the ones those report), the highest level the
trace shows for each, thermal readings, device and build, and the window's
start as UTC wall-clock time. ``heap``: what ART's ``Heap size (KB)`` counter
says the app allocated and freed in the window.

A study compares these across runs (artscope.studies.checks): runs held at
different levels, or on different devices, are not comparable.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import polars as pl

from artscope.metrics.compute import number
from artscope.metrics.selection import Selection

#: Thermal counter kinds (counter_track type) -> divisor to degrees Celsius:
#: ftrace thermal_temperature reports millidegrees, the others degrees.
THERMAL_DIVISOR = {"thermal_temperature": 1000.0, "thermal_temperature_sys": 1.0,
                   "acpm_thermal_temperature": 1.0}
HEAP_COUNTER = "Heap size (KB)"
HEAP_ABSENT = (f"the trace has no '{HEAP_COUNTER}' counter for the app (ART writes it "
               "with the atrace category dalvik; perfetto-configs/artscope-full.pbtxt "
               "records it)")
HEAP_NO_SAMPLE = f"no '{HEAP_COUNTER}' sample of the app at or before the window's end"
HEAP_ESTIMATE = ("allocated_kb sums the counter's rises between samples: an estimate "
                 "(what a GC freed again before the next sample is not seen)")


def utc_text(unix_ns: int | None) -> str | None:
    """ns since the UNIX epoch -> ISO 8601 UTC with microseconds ('...Z')."""
    if unix_ns is None:
        return None
    sec, ns = divmod(int(unix_ns), 1_000_000_000)
    t = _dt.datetime.fromtimestamp(sec, tz=_dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns // 1000:06d}Z"


def device_model(fingerprint: str | None, manufacturer: str | None) -> str | None:
    """The device a build fingerprint names (brand/product/device:release/...
    -> device), prefixed by the manufacturer when the trace records one."""
    device = None
    if fingerprint and "/" in fingerprint:
        parts = fingerprint.split(":", 1)[0].split("/")
        device = parts[2] if len(parts) >= 3 and parts[2] else None
    if manufacturer and device:
        return f"{manufacturer} {device}"
    return device or manufacturer


def _level(entries: list[dict[str, Any]]) -> tuple[Any, bool | None, str | None]:
    """(dominant, stable, unit) of a group of series that move together (the
    CPUs of one cluster): the most common dominant (ties: the lower), stable
    when every series is, null when none is known."""
    doms = [e["dominant"] for e in entries if e.get("dominant") is not None]
    dominant = None
    if doms:
        dominant = min(set(doms), key=lambda v: (-doms.count(v), v))
    stables = [e.get("stable") for e in entries]
    stable = None if all(s is None for s in stables) else all(s is True for s in stables)
    unit = next((e.get("unit") for e in entries if e.get("unit")), None)
    return dominant, stable, unit


def _at_max(dominant: Any, highest: Any) -> bool | None:
    if dominant is None or highest is None:
        return None
    return float(dominant) >= float(highest)


def _series_max(freq: pl.DataFrame, run: int, source: str) -> pl.DataFrame:
    """(cpu, device, series_max) of frequency.sql's series of ``source`` in
    ``run``: each series' largest value over the whole trace."""
    if not freq.height or "series_max" not in freq.columns:
        return pl.DataFrame(schema={"cpu": pl.Int64, "device": pl.String,
                                    "series_max": pl.Float64})
    return (freq.filter((pl.col("run") == run) & (pl.col("source") == source))
            .group_by("cpu", "device").agg(pl.col("series_max").max()))


def cluster_levels(run: int, sel: Selection, cpufreq: list[dict[str, Any]],
                   freq: pl.DataFrame) -> list[dict[str, Any]]:
    """One entry per cluster holding allowed CPUs (both roles): its CPUs,
    dominant level and unit, stability, the highest frequency its CPUs list
    as available or reached in the trace, and whether it ran at that."""
    allowed = sorted(set(sel.allowed_cpus or []) | set(sel.gc_allowed_cpus or []))
    if not allowed:
        return []
    clusters: dict[int | None, list[int]] = {}
    for cpu in allowed:
        clusters.setdefault(sel.topology.cluster_of.get(cpu), []).append(cpu)
    reached = _series_max(freq, run, "cpufreq")
    by_cpu = {e["cpu"]: e for e in cpufreq}
    out = []
    for cluster, cpus in sorted(clusters.items(), key=lambda kv: kv[1][0]):
        entries = [by_cpu[c] for c in cpus if c in by_cpu]
        dominant, stable, unit = _level(entries)
        available = [sel.topology.available_max_khz.get(c) for c in cpus]
        candidates = [v for v in reached.filter(pl.col("cpu").is_in(cpus))["series_max"].to_list()
                      + available if v is not None]
        highest = number(max(candidates)) if candidates else None
        out.append({"cluster": cluster, "cpus": cpus, "unit": unit or "kHz",
                    "dominant": dominant, "stable": stable, "highest": highest,
                    "at_max": _at_max(dominant, highest)})
    return out


def memory_levels(run: int, memfreq: list[dict[str, Any]],
                  freq: pl.DataFrame) -> list[dict[str, Any]]:
    """One entry per memory-controller series (``is_memory``) of ``memfreq``:
    dominant level and unit, stability, the highest level the series reaches
    anywhere in the trace, and whether the run held that."""
    out = []
    for e in memfreq:
        if not e.get("is_memory"):
            continue
        hit = _series_max(freq, run, e["source"]).filter(pl.col("device") == e["device"])
        reached = [v for v in hit["series_max"].to_list() if v is not None]
        highest = number(max(reached)) if reached else None
        out.append({"device": e["device"], "source": e["source"], "unit": e.get("unit"),
                    "dominant": e.get("dominant"), "stable": e.get("stable"),
                    "highest": highest, "at_max": _at_max(e.get("dominant"), highest)})
    return out


def thermal_readings(run: int, thermal: pl.DataFrame) -> list[dict[str, Any]] | None:
    """Per thermal zone: degrees Celsius at W's start and the maximum in W;
    null when the trace captured no temperature."""
    if not thermal.height:
        return None
    rows = thermal.filter(pl.col("run") == run)
    out = []
    for r in rows.iter_rows(named=True):
        div = THERMAL_DIVISOR.get(r["kind"], 1.0)
        out.append({"zone": r["zone"], "source": r["kind"],
                    "start_c": None if r["start_value"] is None else r["start_value"] / div,
                    "max_c": None if r["max_value"] is None else r["max_value"] / div})
    return out


def conditions_metrics(run: int, sel: Selection, cpufreq: list[dict[str, Any]],
                       memfreq: list[dict[str, Any]], cond: pl.DataFrame,
                       thermal: pl.DataFrame, freq: pl.DataFrame) -> dict[str, Any]:
    """The ``conditions`` object of one run (see the module doc): ``freq``
    is frequency.sql's rows; the CPUs' available maxima come with the
    selection's topology (cpu_topology.sql)."""
    row = cond.filter(pl.col("run") == run).to_dicts() if cond.height else []
    info = row[0] if row else {}
    unix_ns = info.get("started_at_unix_ns")
    fingerprint = info.get("build_fingerprint")
    manufacturer = info.get("device_manufacturer")
    return {
        "started_at": utc_text(unix_ns),
        "started_at_unix_ns": None if unix_ns is None else int(unix_ns),
        "device": {
            "model": device_model(fingerprint, manufacturer),
            "manufacturer": manufacturer,
            "soc_model": info.get("soc_model"),
            "build_fingerprint": fingerprint,
            "kernel_release": info.get("kernel_release"),
            "machine": info.get("machine"),
        },
        "clusters": cluster_levels(run, sel, cpufreq, freq),
        "memory": memory_levels(run, memfreq, freq),
        "thermal": thermal_readings(run, thermal),
    }


def heap_metrics(run: int, heap: pl.DataFrame, has_counter: bool) -> dict[str, Any]:
    """The ``heap`` object of one run from heap.sql's rows: peak, allocated
    (an estimate) and freed KB summed over the target's processes; null
    fields with ``reason`` when the counter is absent."""
    rows = heap.filter(pl.col("run") == run) if heap.height else heap
    rows = rows.filter(pl.col("peak_kb").is_not_null()) if rows.height else rows
    if not rows.height:
        return {"peak_kb": None, "allocated_kb": None, "freed_kb": None, "samples": None,
                "reason": HEAP_NO_SAMPLE if has_counter else HEAP_ABSENT}
    return {
        # processes of one app run side by side: the peak is the highest
        # process's peak, allocations and frees add up
        "peak_kb": number(rows["peak_kb"].max()),
        "allocated_kb": number(rows["allocated_kb"].sum()),
        "freed_kb": number(rows["freed_kb"].sum()),
        "samples": int(rows["samples"].sum()),
        "reason": HEAP_ESTIMATE,
    }


def levels(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every frequency level of a run's ``conditions`` as one list, each
    named by its ``series`` ("cpus 6,7", "memory <device> (<source>)"): what
    a study compares across runs (flat column ``cond_levels``)."""
    cond = result.get("conditions") or {}
    out = []
    for c in cond.get("clusters") or []:
        out.append({"series": "cpus " + ",".join(str(x) for x in c["cpus"]), "kind": "cpu",
                    **{k: c[k] for k in ("unit", "dominant", "stable", "highest", "at_max")}})
    for m in cond.get("memory") or []:
        out.append({"series": f"memory {m['device']} ({m['source']})", "kind": "memory",
                    **{k: m[k] for k in ("unit", "dominant", "stable", "highest", "at_max")}})
    return out


def hottest(result: dict[str, Any], key: str) -> float | None:
    """The highest ``key`` (start_c | max_c) over the run's thermal zones."""
    zones = (result.get("conditions") or {}).get("thermal") or []
    vals = [z[key] for z in zones if z.get(key) is not None]
    return max(vals) if vals else None


def _level_text(entry: dict[str, Any]) -> str:
    from artscope.units import format_frequency

    if entry.get("dominant") is None:
        return "unknown"
    notes = []
    if entry.get("stable") is False:
        notes.append("changing")
    if entry.get("at_max") is False:
        notes.append(f"below the highest, {format_frequency(entry['highest'], entry.get('unit'))}")
    elif entry.get("at_max") is True:
        notes.append("the highest")
    return (format_frequency(entry["dominant"], entry.get("unit"))
            + (f" ({', '.join(notes)})" if notes else ""))


def conditions_line(result: dict[str, Any]) -> str:
    """One line for the run report: device and build, UTC start, each level,
    thermal and heap."""
    cond = result.get("conditions") or {}
    dev = cond.get("device") or {}
    parts = [f"{dev.get('model') or 'unknown device'}"
             + (f", build {dev['build_fingerprint']}" if dev.get("build_fingerprint") else "")
             + (f", kernel {dev['kernel_release']}" if dev.get("kernel_release") else "")]
    started = cond.get("started_at")
    parts.append(f"started {started.replace('T', ' ')[:19]} UTC" if started
                 else "start time unknown (no REALTIME clock snapshot)")
    for c in cond.get("clusters") or []:
        parts.append(f"CPUs {','.join(str(x) for x in c['cpus'])} at {_level_text(c)}")
    for m in cond.get("memory") or []:
        parts.append(f"{m['device']} at {_level_text(m)}")
    thermal = cond.get("thermal")
    if thermal:
        hot = max(thermal, key=lambda z: z.get("max_c") or float("-inf"))
        if hot.get("max_c") is not None:
            parts.append(f"hottest zone {hot['zone']} {hot['max_c']:g} °C")
    else:
        parts.append("no thermal data")
    heap = result.get("heap") or {}
    if heap.get("peak_kb") is not None:
        parts.append(f"heap peak {heap['peak_kb']:,} KB, ~{heap['allocated_kb']:,} KB allocated")
    else:
        parts.append("no heap counter")
    return "; ".join(parts)
