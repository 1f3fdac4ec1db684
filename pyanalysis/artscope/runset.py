"""RunSet: the notebook face of one analysed trace.

Metric methods return polars DataFrames (one row per run, or per thread /
per frequency value for breakdowns); ``plot_*`` methods return altair charts
(see artscope.report.charts). ``results`` holds the per-run dicts in the JSON
shape of ``artscope analyze --format json``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from artscope.engines.base import Engine
from artscope.flatschema import flat_frame, flatten  # noqa: F401 - the flat row lives there
from artscope.metrics.analysis import Analysis


class RunSet:
    """All runs of one trace, analysed. Keep it open to plot timelines."""

    def __init__(self, analysis: Analysis, engine: Engine) -> None:
        self.analysis = analysis
        self.engine = engine
        self.results = analysis.results

    def __repr__(self) -> str:
        verdicts = ", ".join(r["health"]["verdict"] for r in self.results)
        return (f"RunSet({self.analysis.trace!r}, engine={self.analysis.engine}, "
                f"runs={len(self.results)} [{verdicts}])")

    def __len__(self) -> int:
        return len(self.results)

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> "RunSet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- per run ---------------------------------------------------------------

    def to_dicts(self) -> list[dict[str, Any]]:
        return self.results

    def flat(self) -> pl.DataFrame:
        return flat_frame([flatten(r) for r in self.results])

    def runs(self) -> pl.DataFrame:
        return pl.DataFrame([{
            "run": r["run"], "start_ts": r["window"]["start_ts"],
            "end_ts": r["window"]["end_ts"], "source": r["window"]["source"],
            "verdict": r["health"]["verdict"], "engine": r["engine"],
        } for r in self.results])

    def _section(self, key: str, drop: tuple[str, ...] = ()) -> pl.DataFrame:
        rows = []
        for r in self.results:
            d = {k: v for k, v in r[key].items() if k not in drop}
            rows.append({"run": r["run"], **d})
        return pl.DataFrame(rows, infer_schema_length=None)

    def gc(self) -> pl.DataFrame:
        """GC CPU share and counts per run."""
        return self._section("gc", drop=("events", "by_cause", "by_kind", "mmu",
                                          "main_thread_mmu"))

    def gc_by_cause(self) -> pl.DataFrame:
        """GC count and CPU per run and cause (alloc, background, explicit ...)."""
        return self._gc_breakdown("by_cause", "cause")

    def gc_by_kind(self) -> pl.DataFrame:
        """GC count and CPU per run and kind (young, partial, full)."""
        return self._gc_breakdown("by_kind", "kind")

    def _gc_breakdown(self, group: str, column: str) -> pl.DataFrame:
        return pl.DataFrame([
            {"run": r["run"], column: k, **v}
            for r in self.results for k, v in r["gc"][group].items()],
            infer_schema_length=None)

    def gc_pauses(self) -> pl.DataFrame:
        """One row per run and pause as ART registers it (sql-metrics/gc_pause.sql):
        gc_id (null: a suspend-all outside any GC), ts, dur, dur_in_run, source,
        bound (exact / upper / lower), end_slice, thread."""
        return self.analysis.tables["gc_pause"]

    def gc_mmu(self) -> pl.DataFrame:
        """MMU per run and window: ``mmu`` over GC pauses and foreground GCs,
        ``main_thread_mmu`` over GC pauses, the main thread's GC waits and its
        own GCs (null: pauses unknown)."""
        rows = []
        for r in self.results:
            main = {p["window_ns"]: p["mmu"] for p in r["gc"].get("main_thread_mmu") or []}
            rows += [{"run": r["run"], "window_ms": p["window_ns"] / 1e6, "mmu": p["mmu"],
                      "main_thread_mmu": main.get(p["window_ns"])}
                     for p in r["gc"].get("mmu") or []]
        return pl.DataFrame(rows, schema={"run": pl.Int64, "window_ms": pl.Float64,
                                          "mmu": pl.Float64, "main_thread_mmu": pl.Float64})

    def gc_events(self) -> pl.DataFrame:
        """One row per GC: ts, dur, name, cause, kind, unfinished, thread, cpu_ns,
        runnable_ns."""
        return self.analysis.tables["gc_events"]

    def dvfs(self) -> pl.DataFrame:
        """At what frequency the GC and the mutators ran, and their cycles:
        one row per run, part (gc, mutator) and cluster ('all': the whole
        part), with mean / min / max frequency (kHz), CPU and unknown time,
        cycles and whether they are an estimate (docs/metrics.md)."""
        rows = []
        for r in self.results:
            d = r.get("dvfs") or {}
            cyc = d.get("cycles") or {}
            for part in ("gc", "mutator"):
                f = d.get(part)
                if f is None:
                    continue
                rows.append({"run": r["run"], "part": part, "cluster": "all",
                             "cpu_ns": f["cpu_ns"], "unknown_ns": f["unknown_ns"],
                             "freq_mean_khz": f["mean"], "freq_min_khz": f["min"],
                             "freq_max_khz": f["max"], "cycles": cyc.get(f"{part}_cycles"),
                             "cycles_estimate": cyc.get("estimate"), "reason": f["reason"]})
                rows += [{"run": r["run"], "part": part, "cluster": c["cluster"],
                          "cpu_ns": c["cpu_ns"], "unknown_ns": None,
                          "freq_mean_khz": c["freq_mean"], "freq_min_khz": None,
                          "freq_max_khz": None, "cycles": None,
                          "cycles_estimate": None, "reason": None}
                         for c in f["by_cluster"]]
        return pl.DataFrame(rows, schema={
            "run": pl.Int64, "part": pl.String, "cluster": pl.String, "cpu_ns": pl.Int64,
            "unknown_ns": pl.Int64, "freq_mean_khz": pl.Float64, "freq_min_khz": pl.Float64,
            "freq_max_khz": pl.Float64, "cycles": pl.Float64, "cycles_estimate": pl.Boolean,
            "reason": pl.String})

    def energy(self) -> pl.DataFrame:
        """Energy per run and power rail (J; null where the rail's samples do
        not cover the window or its counter went down inside it: resets),
        the covered part and its mean power, and per CPU rail the GC's
        estimated share."""
        rows = [{"run": r["run"], **x}
                for r in self.results for x in ((r.get("dvfs") or {}).get("energy") or {})
                .get("rails", [])]
        return pl.DataFrame(rows, schema={
            "run": pl.Int64, "name": pl.String, "energy_j": pl.Float64, "covered_ns": pl.Int64,
            "covered_j": pl.Float64, "mean_power_w": pl.Float64, "resets": pl.Int64,
            "cluster": pl.String,
            "gc_share": pl.Float64, "gc_energy_j": pl.Float64})

    def pinning(self) -> pl.DataFrame:
        return self._section("pinning", drop=("threads", "top_interferers", "evidence",
                                              "allowed_cpus", "gc_allowed_cpus"))

    def pinning_threads(self) -> pl.DataFrame:
        """Per run and thread: CPU time, off-mask time and the CPUs it used."""
        return pl.DataFrame([
            {"run": r["run"], **t} for r in self.results for t in r["pinning"]["threads"]],
            infer_schema_length=None)

    def pinning_cpus(self) -> pl.DataFrame:
        """Per run, thread and CPU (the raw pinning.sql rows)."""
        return self.analysis.tables["pinning"]

    def interference(self) -> pl.DataFrame:
        return self.analysis.tables["interference"]

    def jank(self) -> pl.DataFrame:
        rows = []
        for r in self.results:
            j = dict(r["jank"])
            pct = j.pop("frame_dur_ms")
            rows.append({"run": r["run"], **j, **{f"frame_dur_ms_{k}": v for k, v in pct.items()}})
        return pl.DataFrame(rows, infer_schema_length=None)

    def frames(self) -> pl.DataFrame:
        """Every frame of the target app per run (frames.sql)."""
        return self.analysis.tables["frames"]

    def cpufreq(self) -> pl.DataFrame:
        return pl.DataFrame([
            {"run": r["run"], **{k: v for k, v in c.items() if k != "residency"}}
            for r in self.results for c in r["cpufreq"]], infer_schema_length=None)

    def memfreq(self) -> pl.DataFrame:
        return pl.DataFrame([
            {"run": r["run"], **{k: v for k, v in m.items() if k != "residency"}}
            for r in self.results for m in r["memfreq"]], infer_schema_length=None)

    def residency(self) -> pl.DataFrame:
        """Per run, series and frequency value: time spent there (ns)."""
        rows = []
        for r in self.results:
            for c in r["cpufreq"]:
                for v, ns in c["residency"].items():
                    rows.append({"run": r["run"], "series": f"cpu{c['cpu']}",
                                 "source": c["source"], "value": float(v), "ns": ns})
            for m in r["memfreq"]:
                for v, ns in m["residency"].items():
                    rows.append({"run": r["run"], "series": m["device"],
                                 "source": m["source"], "value": float(v), "ns": ns})
        return pl.DataFrame(rows, schema={"run": pl.Int64, "series": pl.String,
                                          "source": pl.String, "value": pl.Float64,
                                          "ns": pl.Int64})

    def memory(self) -> pl.DataFrame:
        """Memory pressure per run: direct reclaim, kswapd, I/O wait, RSS in
        kB, faults, whether the target was killed (its kills:
        :meth:`memory_kills`)."""
        return self._section("memory", drop=("direct_reclaim_threads", "kills", "unavailable"))

    def memory_kills(self) -> pl.DataFrame:
        """One row per run and process killed to free memory in it (lmkd, the
        OOM killer): ts, pid, process, source, is_target."""
        return pl.DataFrame(
            [{"run": r["run"], **k} for r in self.results for k in r["memory"]["kills"] or []],
            schema={"run": pl.Int64, "ts": pl.Int64, "pid": pl.Int64, "process": pl.String,
                    "source": pl.String, "is_target": pl.Boolean})

    def startups(self) -> pl.DataFrame:
        """One row per launch of the target app in the trace (the same in
        every run): type, ts, dur, pid and the phases' ns."""
        from artscope.metrics.startup import PHASES

        launches = self.results[0]["startups"] if self.results else []
        schema = {"startup_id": pl.Int64, "type": pl.String, "ts": pl.Int64, "dur": pl.Int64,
                  "package": pl.String, "pid": pl.Int64, **dict.fromkeys(PHASES, pl.Int64)}
        return pl.DataFrame(
            [{k: v for k, v in x.items() if k != "breakdown"} | dict(x.get("breakdown") or {})
             for x in launches], schema=schema)

    def heap(self) -> pl.DataFrame:
        """ART's heap per run (the app's Heap size counter): peak_kb,
        allocated_kb, freed_kb, samples, and why a value is null."""
        return self._section("heap")

    def conditions(self) -> pl.DataFrame:
        """The conditions each run held: its wall-clock start, the device
        (``device_*``), and per cluster, memory controller and thermal zone
        the levels and temperatures (lists of structs)."""
        rows = []
        for r in self.results:
            c = dict(r["conditions"])
            device = c.pop("device", None) or {}
            rows.append({"run": r["run"], **c, **{f"device_{k}": v for k, v in device.items()}})
        return pl.DataFrame(rows, infer_schema_length=None)

    def health(self) -> pl.DataFrame:
        """One row per run and reason (a passing run has one row, reason null)."""
        rows = []
        for r in self.results:
            reasons = r["health"]["reasons"] or [None]
            for reason in reasons:
                rows.append({"run": r["run"], "verdict": r["health"]["verdict"],
                             "id": reason and reason["id"],
                             "severity": reason and reason["severity"],
                             "message": reason and reason["message"]})
        return pl.DataFrame(rows, schema={"run": pl.Int64, "verdict": pl.String,
                                          "id": pl.String, "severity": pl.String,
                                          "message": pl.String})

    # -- charts (artscope.report.charts; altair is imported on first use) --------

    @staticmethod
    def _charts() -> Any:
        from artscope.report import charts
        return charts

    def plot_timeline(self, run: int = 0, **kw: Any) -> Any:
        """Target threads per CPU, off-mask slices and GCs highlighted."""
        return self._charts().timeline(self, run, **kw)

    def plot_frequency(self, run: int = 0, **kw: Any) -> Any:
        return self._charts().frequency(self, run, **kw)

    def plot_residency(self, run: int = 0) -> Any:
        return self._charts().residency(self, run)

    def plot_frame_durations(self, run: int = 0, **kw: Any) -> Any:
        return self._charts().frame_durations(self, run, **kw)

    def plot_gc(self, **kw: Any) -> Any:
        return self._charts().gc_cpu(self, **kw)

    def plot_mmu(self, run: int = 0) -> Any:
        """Minimum mutator utilisation over GC pauses (and with the main
        thread's GC waits)."""
        return self._charts().mmu(self, run)

    def plot_gc_pauses(self, run: int = 0) -> Any:
        """The run's GCs, their pauses, other suspend-alls and GC waits over W."""
        return self._charts().gc_pauses(self, run)
