"""The GC under DVFS: at what frequency its CPU time ran, what it cost in
cycles and instructions, and the energy the run used (docs/metrics.md,
"GC under DVFS").

Reads dvfs_gc_time.sql and dvfs_app_time.sql (CPU time by frequency),
dvfs_counters.sql (perf counters sampled at context switches),
rail_energy.sql (power rails, battery) and, for the GC's share of a CPU
rail without counters, dvfs_cpu_busy.sql; the clusters are the selection's
topology. A number whose data
is missing for more than ``UNKNOWN_TOLERANCE`` of the time it covers is
null, with a reason.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from artscope.metrics.compute import _by_run, number
from artscope.metrics.topology import Topology
from artscope.units import FIXED_FREQUENCY_UNIT

#: The unit of the frequencies (cpufreq reports kHz).
FREQUENCY_UNIT = FIXED_FREQUENCY_UNIT["cpufreq"]
#: A frequency, or a count, stays known while the time it cannot see is at
#: most this share of the time it covers.
UNKNOWN_TOLERANCE = 0.01
#: The DVFS metric files analyze runs: the GC's and the app's CPU time by
#: frequency (the same columns), the counters, the rails.
TIME_METRICS = ("dvfs_gc_time", "dvfs_app_time")
DVFS_METRICS = (*TIME_METRICS, "dvfs_counters", "rail_energy")
#: Each CPU's busy time, read only for the GC's estimated share of a CPU
#: rail (rails, no counters).
BUSY_METRIC = "dvfs_cpu_busy"
#: trace_processor's names of the CPU clusters' core rails (ODPM), littlest
#: first.
CPU_RAILS = ("power.rails.cpu.little", "power.rails.cpu.mid", "power.rails.cpu.big")


def declared(name: str, df: pl.DataFrame) -> pl.DataFrame:
    """A DVFS metric file's rows with its declared column types (a column
    of nulls comes back untyped from the engine)."""
    from artscope.metrics.runner import metric_sql
    from artscope.sqlheader import POLARS_TYPES, header_column_types, split_header

    types = header_column_types(split_header(metric_sql(name))[0])
    return df.cast({c: POLARS_TYPES[t] for c, t in types.items() if c in df.columns})


def needs_busy(energy_rows: pl.DataFrame, counters_recorded: bool) -> bool:
    """Whether the GC's share of a CPU rail must be estimated from the
    CPUs' busy time (a CPU rail, no counters)."""
    return (not counters_recorded and energy_rows.height > 0
            and energy_rows["name"].is_in(list(CPU_RAILS)).any())


def cluster_names(n: int) -> list[str]:
    """Names of n clusters, littlest first: little / mid / big where they
    fit, else cluster0, cluster1, ..."""
    return {1: ["all"], 2: ["little", "big"], 3: ["little", "mid", "big"]}.get(
        n, [f"cluster{i}" for i in range(n)])


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def frequency_summary(rows: pl.DataFrame | list[tuple[int, float | None, int]],
                      topo: Topology) -> dict[str, Any]:
    """Time-weighted frequency of some CPU time from its (cpu, freq_khz, ns)
    rows: mean, min, max, unknown time, time per cluster and the estimated
    cycles (Σ time × frequency)."""
    if isinstance(rows, pl.DataFrame):
        rows = rows.select("cpu", "freq_khz", "ns").rows() if rows.height else []
    rows = [r for r in rows if r[2] > 0]
    total = sum(ns for _, _, ns in rows)
    known = [(c, f, ns) for c, f, ns in rows if f is not None]
    unknown = total - sum(ns for _, _, ns in known)
    out: dict[str, Any] = {"cpu_ns": total, "unknown_ns": unknown, "unit": FREQUENCY_UNIT,
                           "mean": None, "min": None, "max": None, "cycles_estimate": None,
                           "reason": None}
    if total == 0:
        # no time, no cycles; no frequency to speak of
        out["cycles_estimate"] = 0.0
        out["reason"] = "no such CPU time in the window"
    elif unknown > UNKNOWN_TOLERANCE * total:
        cpus = sorted({c for c, f, _ in rows if f is None})
        out["reason"] = (f"frequency unknown for {unknown / total:.1%} of this CPU time "
                         f"(CPU {', '.join(map(str, cpus))}: no cpufreq sample yet, or "
                         f"unreadable), more than the {UNKNOWN_TOLERANCE:.0%} tolerance")
    else:
        weighted = sum(f * ns for _, f, ns in known)
        out.update(mean=weighted / (total - unknown), min=number(min(f for _, f, _ in known)),
                   max=number(max(f for _, f, _ in known)), cycles_estimate=weighted / 1e6)
    out["by_cluster"] = _by_cluster(rows, topo)
    return out


def _by_cluster(rows: list[tuple[int, float | None, int]],
                topo: Topology) -> list[dict[str, Any]]:
    """CPU time and mean frequency per cluster (a CPU of no known cluster
    under 'unknown')."""
    clusters = topo.clusters()
    groups: list[tuple[str, list[int]]] = list(zip(cluster_names(len(clusters)), clusters))
    clustered = {c for cl in clusters for c in cl}
    others = sorted({c for c, _, _ in rows} - clustered)
    if others:
        groups.append(("unknown", others))
    out = []
    for name, cpus in groups:
        mine = [(f, ns) for c, f, ns in rows if c in cpus]
        ns = sum(n for _, n in mine)
        kns = sum(n for f, n in mine if f is not None)
        mean = (sum(f * n for f, n in mine if f is not None) / kns
                if kns and ns - kns <= UNKNOWN_TOLERANCE * ns else None)
        out.append({"cluster": name, "cpus": cpus, "cpu_ns": ns, "freq_mean": mean})
    return out


def _minus(app: pl.DataFrame, gc: pl.DataFrame) -> pl.DataFrame:
    """The app's (cpu, freq_khz, ns) rows less the GC's: the mutators'."""
    def grouped(df: pl.DataFrame) -> pl.DataFrame:
        if not df.height:
            return pl.DataFrame(schema={"cpu": pl.Int64, "freq_khz": pl.Float64, "ns": pl.Int64})
        return df.group_by("cpu", "freq_khz").agg(pl.col("ns").sum())
    joined = grouped(app).join(grouped(gc), on=["cpu", "freq_khz"], how="full",
                               coalesce=True, nulls_equal=True, suffix="_gc")
    return joined.select("cpu", "freq_khz",
                         (pl.col("ns").fill_null(0) - pl.col("ns_gc").fill_null(0)).alias("ns"))


def _scope(df: pl.DataFrame, scope: str) -> pl.DataFrame:
    return df.filter(pl.col("scope") == scope) if df.height else df


def _counted(rows: pl.DataFrame) -> dict[str, Any]:
    """Counted cycles / instructions of some pieces (dvfs_counters rows),
    null beyond the tolerance of uncounted time."""
    ns = int(rows["ns"].sum()) if rows.height else 0
    missing = int(rows["missing_ns"].sum()) if rows.height else 0
    wrapped = int(rows["wrapped_ns"].sum()) if rows.height else 0
    cycles = float(rows["cycles"].sum()) if rows.height else 0.0
    instr = rows["instructions"] if rows.height else None
    instructions = (float(instr.sum()) if instr is not None and instr.null_count() == 0
                    else None)
    known = ns == 0 or missing + wrapped <= UNKNOWN_TOLERANCE * ns
    return {"ns": ns, "cycles": cycles if known else None,
            "instructions": instructions if known else None,
            "missing_ns": missing, "wrapped_ns": wrapped,
            "missing_slices": int(rows["missing_slices"].sum()) if rows.height else 0,
            "wrapped_slices": int(rows["wrapped_slices"].sum()) if rows.height else 0,
            "prorated_ns": int(rows["prorated_ns"].sum()) if rows.height else 0}


def _uncounted_reason(c: dict[str, Any], what: str) -> str | None:
    if c["cycles"] is not None:
        return None
    parts = []
    if c["missing_slices"]:
        parts.append(f"{c['missing_slices']} sched slice(s) without a counter sample at a "
                     "context switch")
    if c["wrapped_slices"]:
        parts.append(f"{c['wrapped_slices']} whose cycle count went down (wrapped or reset)")
    share = (c["missing_ns"] + c["wrapped_ns"]) / c["ns"]
    return (f"{what} cycles not counted for {share:.1%} of the time ({'; '.join(parts)}), "
            f"more than the {UNKNOWN_TOLERANCE:.0%} tolerance")


def _cpi(cycles: float | None, instructions: float | None) -> float | None:
    return cycles / instructions if cycles is not None and instructions else None


def dvfs_metrics(run: int, time_rows: pl.DataFrame, counter_rows: pl.DataFrame,
                 energy_rows: pl.DataFrame, topo: Topology, sched: bool,
                 counters_recorded: bool, gcs_known: bool = True) -> dict[str, Any]:
    """The ``dvfs`` block of one run (frequency, cycles, energy). Without
    sched data CPU time is unknown; without ART's dalvik category (not
    ``gcs_known``) which of it was the GC's."""
    t = _by_run(time_rows, run)
    cols = ["cpu", "freq_khz", "ns"]
    app = _scope(t, "app").select(cols) if t.height else t
    gc = _scope(t, "gc").select(cols) if t.height else t
    out: dict[str, Any] = {"unknown_tolerance": UNKNOWN_TOLERANCE}
    if not sched:
        none = "the trace has no sched data (CPU time unknown)"
        out.update({"gc": None, "mutator": None, "gc_to_mutator_freq_ratio": None,
                    "reason": none})
    elif not gcs_known:
        out.update({"gc": None, "mutator": None, "gc_to_mutator_freq_ratio": None,
                    "reason": "ART's dalvik atrace category was not recorded: the GCs, and "
                              "so the GC's and the mutators' time, are unknown"})
    else:
        out["gc"] = frequency_summary(gc, topo)
        out["mutator"] = frequency_summary(_minus(app, gc), topo)
        g, m = out["gc"]["mean"], out["mutator"]["mean"]
        out["gc_to_mutator_freq_ratio"] = g / m if g is not None and m else None
        out["reason"] = None
    out["cycles"] = _cycles(t, _by_run(counter_rows, run), out, topo, sched,
                            counters_recorded)
    out["energy"] = _energy(_by_run(energy_rows, run), t, _by_run(counter_rows, run),
                            out["cycles"], topo, sched and gcs_known)
    return out


def _cycles(t: pl.DataFrame, c: pl.DataFrame, freq: dict[str, Any],
            topo: Topology, sched: bool, counters_recorded: bool) -> dict[str, Any]:
    """Per run: app / GC / mutator cycles, GC share, CPI; counted from perf
    counters, else estimated (Σ time × frequency)."""
    if not sched:
        return {"source": None, "estimate": None, "app_cycles": None, "gc_cycles": None,
                "mutator_cycles": None, "gc_cycles_share": None, "app_instructions": None,
                "gc_instructions": None, "mutator_instructions": None, "gc_cpi": None,
                "mutator_cpi": None, "reason": "the trace has no sched data", "threads": []}
    if counters_recorded:
        app = _counted(_scope(c, "app"))
        gc = _counted(_scope(c, "gc"))
        if freq["gc"] is None:  # GCs unknown
            gc["cycles"] = gc["instructions"] = None
        mut_cycles = (app["cycles"] - gc["cycles"]
                      if app["cycles"] is not None and gc["cycles"] is not None else None)
        mut_instr = (app["instructions"] - gc["instructions"]
                     if app["instructions"] is not None and gc["instructions"] is not None
                     else None)
        reasons = [r for r in (_uncounted_reason(app, "app"), _uncounted_reason(gc, "GC"))
                   if r]
        return {"source": "counters", "estimate": False,
                "app_cycles": app["cycles"], "gc_cycles": gc["cycles"],
                "mutator_cycles": mut_cycles,
                "gc_cycles_share": (_share(gc["cycles"], app["cycles"])
                                    if gc["cycles"] is not None and app["cycles"] is not None
                                    else None),
                "app_instructions": app["instructions"], "gc_instructions": gc["instructions"],
                "mutator_instructions": mut_instr,
                "gc_cpi": _cpi(gc["cycles"], gc["instructions"]),
                "mutator_cpi": _cpi(mut_cycles, mut_instr),
                "missing_slices": app["missing_slices"], "wrapped_slices": app["wrapped_slices"],
                "uncounted_ns": app["missing_ns"] + app["wrapped_ns"],
                "prorated_ns": gc["prorated_ns"],
                "reason": "; ".join(reasons) or None,
                "threads": _threads(_scope(c, "app"))}
    app_rows = _scope(t, "app")
    app_est = frequency_summary(app_rows.select("cpu", "freq_khz", "ns") if app_rows.height
                                else app_rows, topo)["cycles_estimate"]
    gc_est = freq["gc"]["cycles_estimate"] if freq["gc"] else None
    mut_est = freq["mutator"]["cycles_estimate"] if freq["mutator"] else None
    reasons = [f"{k}: {freq[k]['reason']}" for k in ("gc", "mutator")
               if freq[k] and freq[k]["cycles_estimate"] is None and freq[k]["reason"]]
    if freq["gc"] is None:
        reasons.append(freq["reason"])
    return {"source": "estimate", "estimate": True,
            "app_cycles": app_est, "gc_cycles": gc_est, "mutator_cycles": mut_est,
            "gc_cycles_share": _share(gc_est, app_est) if gc_est is not None and app_est else None,
            "app_instructions": None, "gc_instructions": None, "mutator_instructions": None,
            "gc_cpi": None, "mutator_cpi": None,
            "reason": "; ".join(["no perf counters sampled at context switches: cycles "
                                 "estimated as CPU time × frequency, instructions unknown",
                                 *reasons]),
            "threads": []}


def _threads(rows: pl.DataFrame) -> list[dict[str, Any]]:
    if not rows.height:
        return []
    g = (rows.group_by("utid").agg(
            pl.col("tid").first(), pl.col("thread_name").first(), pl.col("ns").sum(),
            pl.col("counted_ns").sum(), pl.col("cycles").sum(), pl.col("instructions").sum(),
            pl.col("instructions").null_count().alias("no_instr"),
            pl.col("missing_ns").sum(), pl.col("wrapped_ns").sum())
         .sort(["cycles", "utid"], descending=[True, False]))
    out = []
    for r in g.iter_rows(named=True):
        known = r["missing_ns"] + r["wrapped_ns"] <= UNKNOWN_TOLERANCE * r["ns"]
        cycles = r["cycles"] if known else None
        instr = r["instructions"] if known and r["no_instr"] == 0 else None
        out.append({"tid": r["tid"], "name": r["thread_name"], "cpu_ns": r["ns"],
                    "counted_ns": r["counted_ns"], "cycles": cycles,
                    "instructions": instr, "cpi": _cpi(cycles, instr),
                    "missing_ns": r["missing_ns"], "wrapped_ns": r["wrapped_ns"]})
    return out


def _rail_cluster(name: str, n_clusters: int) -> int | None:
    """The cluster (index, littlest 0) a CPU core rail powers."""
    if name not in CPU_RAILS or n_clusters == 0:
        return None
    rank = CPU_RAILS.index(name)
    if n_clusters == 3:
        return rank
    if n_clusters == 2 and rank != 1:
        return 0 if rank == 0 else 1
    return None


def _cluster_cycles(t: pl.DataFrame, c: pl.DataFrame, cycles: dict[str, Any],
                    cpus: list[int]) -> tuple[float | None, float | None]:
    """(GC cycles, all cycles) on some CPUs: counted where the run's cycles
    are counted, else estimated as time × frequency."""
    if cycles["source"] == "counters":
        gc = _scope(c, "gc").filter(pl.col("cpu").is_in(cpus)) if c.height else c
        every = _scope(c, "cpu").filter(pl.col("cpu").is_in(cpus)) if c.height else c
        g, a = _counted(gc), _counted(every)
        return g["cycles"], a["cycles"]
    gc = _scope(t, "gc").filter(pl.col("cpu").is_in(cpus)) if t.height else t
    every = _scope(t, "cpu").filter(pl.col("cpu").is_in(cpus)) if t.height else t

    def estimate(rows: pl.DataFrame) -> float | None:
        if not rows.height:
            return 0.0
        total = int(rows["ns"].sum())
        known = rows.filter(pl.col("freq_khz").is_not_null())
        if total - int(known["ns"].sum()) > UNKNOWN_TOLERANCE * total:
            return None
        return float((known["freq_khz"] * known["ns"]).sum()) / 1e6
    return estimate(gc), estimate(every)


def _listed(names: list[str]) -> str:
    """'N rail(s) (a, b, c ...)' for a reason line."""
    return (f"{len(names)} rail(s) ({', '.join(names[:3])}"
            f"{' ...' if len(names) > 3 else ''})")


def _energy(e: pl.DataFrame, t: pl.DataFrame, c: pl.DataFrame, cycles: dict[str, Any],
            topo: Topology, gcs_known: bool) -> dict[str, Any]:
    """Energy per rail and in total (J); per CPU rail the GC's estimated
    share; the battery's energy where no rail was recorded."""
    rails = e.filter(pl.col("source") == "rail") if e.height else e
    battery = e.filter(pl.col("source") == "battery") if e.height else e
    clusters = topo.clusters()
    out: dict[str, Any] = {"source": None, "total_j": None, "mean_power_w": None,
                           "gc_cpu_j": None, "gc_cpu_mean_power_w": None, "rails": [],
                           "battery_j": None, "reason": None}
    if rails.height:
        out["source"] = "rails"
        uncovered, reset = [], []
        gc_j = gc_w = power_w = 0.0
        gc_known = False
        for r in rails.sort("name").iter_rows(named=True):
            entry = {"name": r["name"], "energy_j": r["energy_j"],
                     "covered_ns": r["covered_ns"], "covered_j": r["covered_j"],
                     "mean_power_w": (r["covered_j"] / (r["covered_ns"] / 1e9)
                                      if r["covered_ns"] and r["covered_j"] is not None
                                      else None),
                     "resets": r["resets"] or 0,
                     "cluster": None, "gc_share": None, "gc_energy_j": None}
            power_w += entry["mean_power_w"] or 0.0
            k = _rail_cluster(r["name"], len(clusters))
            if k is not None:
                entry["cluster"] = cluster_names(len(clusters))[k]
            if r["resets"]:
                reset.append(r["name"])
            elif r["energy_j"] is None:
                uncovered.append(r["name"])
            if k is not None and gcs_known:
                g, a = _cluster_cycles(t, c, cycles, clusters[k])
                if g is not None and a:
                    entry["gc_share"] = g / a
                    gc_w += g / a * (entry["mean_power_w"] or 0.0)
                    if r["energy_j"] is not None:
                        entry["gc_energy_j"] = g / a * r["energy_j"]
                        gc_j += entry["gc_energy_j"]
                        gc_known = True
                elif g == 0:  # no GC on this cluster
                    entry["gc_share"] = 0.0
                    if r["energy_j"] is not None:
                        entry["gc_energy_j"] = 0.0
                        gc_known = True
            out["rails"].append(entry)
        out["gc_cpu_j"] = gc_j if gc_known else None
        # (a rail that reset has no mean power: a sum without it would
        # undercount)
        out["mean_power_w"] = None if reset else power_w
        out["gc_cpu_mean_power_w"] = gc_w if not reset and any(
            x["gc_share"] is not None for x in out["rails"]) else None
        reasons = []
        if uncovered:
            covered = min(x["covered_ns"] for x in out["rails"] if x["name"] in uncovered)
            reasons.append(f"rail samples do not cover the window for {_listed(uncovered)} (at "
                           f"least {covered / 1e9:.3f} s of it covered): energy over the window "
                           "unknown, mean power over the covered part given")
        if reset:
            reasons.append(f"the cumulative energy went down inside the window for "
                           f"{_listed(reset)} (the power monitor reset or its counter "
                           "wrapped): energy unknown")
        if gcs_known and not any(x["cluster"] for x in out["rails"]):
            # (trace_processor names Pixel's CPU core rails power.rails.cpu.*;
            # other devices' rails keep their raw names)
            reasons.append(f"no rail powers a CPU cluster of this trace "
                           f"({', '.join(CPU_RAILS)} for {len(clusters)} cluster(s)): "
                           "the GC's share of the CPU energy unknown")
        if reasons:
            out["reason"] = "; ".join(reasons)
        if not (uncovered or reset):
            out["total_j"] = float(rails["energy_j"].sum())
    elif battery.height:
        out["source"] = "battery"
        known = battery.filter(pl.col("energy_j").is_not_null())
        covered = battery.filter(pl.col("covered_ns") > 0)
        if covered.height:
            out["mean_power_w"] = float((covered["covered_j"] / (covered["covered_ns"] / 1e9)).sum())
        if known.height:
            out["battery_j"] = out["total_j"] = float(known["energy_j"].sum())
            out["reason"] = "no power rails: the device's energy from the battery's power"
        else:
            out["reason"] = "no power rails, and no battery sample holds at the window's start"
    else:
        out["reason"] = ("no power rails (android.power) or battery counters in the trace "
                         "(capture config artscope-dvfs records them)")
    return out


def gc_events_dvfs(run: int, gc_ids: list[int], time_rows: pl.DataFrame,
                   counter_rows: pl.DataFrame, topo: Topology,
                   counters_recorded: bool) -> dict[int, dict[str, Any]]:
    """Each GC's frequency and cycles (its own thread inside it, ∩ W), by
    gc_id."""
    def by_gc(df: pl.DataFrame, cols: tuple[str, ...]) -> dict[int, list[tuple]]:
        out: dict[int, list[tuple]] = {}
        if df.height:
            sub = df.filter((pl.col("run") == run) & pl.col("gc_id").is_not_null())
            for gc_id, row in zip(sub["gc_id"].to_list(), sub.select(cols).iter_rows()):
                out.setdefault(gc_id, []).append(row)
        return out

    times = by_gc(time_rows, ("cpu", "freq_khz", "ns"))
    counts = by_gc(counter_rows, tuple(counter_rows.columns)) if counters_recorded else {}
    out = {}
    for gc_id in gc_ids:
        f = frequency_summary(times.get(gc_id, []), topo)
        event = {"freq_mean": f["mean"], "freq_min": f["min"], "freq_max": f["max"],
                 "freq_unknown_ns": f["unknown_ns"], "freq_reason": f["reason"],
                 "cpu_ns_by_cluster": {x["cluster"]: x["cpu_ns"] for x in f["by_cluster"]}}
        if counters_recorded:
            k = _counted(pl.DataFrame(counts.get(gc_id, []), schema=counter_rows.schema,
                                      orient="row"))
            event.update(cycles=k["cycles"], instructions=k["instructions"],
                         cycles_estimate=False)
        else:
            event.update(cycles=f["cycles_estimate"], instructions=None, cycles_estimate=True)
        out[gc_id] = event
    return out


def counters_recorded(engine: Any) -> bool:
    """Whether the trace holds perf counters sampled at context switches
    (a sched_switch tracepoint timebase with a cpu-cycles follower)."""
    row = engine.query(
        "SELECT EXISTS (SELECT 1 FROM perf_counter_track f "
        "JOIN perf_counter_track tb ON tb.perf_session_id = f.perf_session_id "
        "AND tb.is_timebase AND tb.name GLOB 'sched?sched_switch*' "
        "WHERE NOT f.is_timebase AND f.name GLOB 'cpu-cycles*') AS yes")
    return bool(row["yes"][0])
