"""Metric DataFrames -> the per-run numbers defined in docs/metrics.md.

Each function takes the DataFrames the sql-metrics files return and the
selection, and produces per-run dicts in the JSON shape of ``artscope analyze
--format json`` (``gc``, ``pinning``, ``jank``, ``cpufreq``, ``memfreq``). Null means
"not captured", zero means "captured, nothing happened" (see ``Capture``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import polars as pl

from artscope.metrics.options import (
    DEFAULT_FRAME_DEADLINE_NS, DEFAULT_MEM_DEVICE_EXCLUDE, DEFAULT_MEM_DEVICE_INCLUDE,
    AnalysisOptions)
from artscope.metrics.selection import Selection
from artscope.metrics.topology import Topology
from artscope.units import FIXED_FREQUENCY_UNIT, frequency_unit

PERCENTILES = (50, 90, 95, 99)
#: Units fixed by the source (cpufreq: kHz); every other source's unit is
#: decided per series from its values (artscope.units.frequency_unit).
UNIT_BY_SOURCE = dict(FIXED_FREQUENCY_UNIT)
#: frequency.sql sources that are devices (memfreq), not CPUs.
DEVICE_SOURCES = ("devfreq", "clock", "sys_stats", "bus_dcvs", "memlat", "bw_hwmon")
#: bus_dcvs hardware that is the memory hierarchy (DDR, the last-level
#: cache controller, the CPU L3); DDRQOS and UBWCP are QoS / compression
#: levels. The per-CPU path's updates interleave each CPU's own vote.
DCVS_MEMORY_HW = ("DDR", "LLCC", "L3")


@dataclasses.dataclass
class Capture:
    """Which kinds of data the trace captured (for null vs zero)."""

    sched: bool
    #: ART's dalvik atrace category was recorded: GCs are known (none is 0)
    dalvik: bool
    config_pbtxt: str | None
    #: frame data of any process (frame timeline or Choreographer slices):
    #: a target without frames then drew none, jank does not apply
    frames: bool = False

    @classmethod
    def probe(cls, engine) -> "Capture":
        """Needs the runner's inputs (artscope_gc_pattern: --gc-pattern)."""
        from artscope.metrics.runner import metric_sql

        # EXISTS: the first matching row answers (a count read every row)
        row = engine.query(
            "SELECT EXISTS (SELECT 1 FROM sched WHERE utid != 0) AS has_sched, "
            "EXISTS (SELECT 1 FROM actual_frame_timeline_slice) "
            "OR EXISTS (SELECT 1 FROM slice WHERE name GLOB 'Choreographer#doFrame*') AS has_frames"
        ).row(0)
        cfg = engine.query(
            "SELECT str_value FROM metadata WHERE name = 'trace_config_pbtxt'")
        pbtxt = cfg.item(0, 0) if cfg.height else None
        sched = row[0] > 0 or bool(pbtxt and '"sched/sched_switch"' in pbtxt)
        # GCs are known (a window without one is 0) when ART's dalvik category
        # was recorded: its heap counter, GC or other ART slices, or the config.
        dalvik = bool(engine.query(metric_sql("dalvik_recorded"))["recorded"][0])
        gc = dalvik or bool(pbtxt and '"dalvik"' in pbtxt)
        frames = row[1] > 0 or bool(pbtxt and "android.surfaceflinger.frametimeline" in pbtxt)
        return cls(sched=sched, dalvik=gc, config_pbtxt=pbtxt, frames=frames)

    def kinds(self) -> dict[str, bool]:
        """For the verdict: which kinds of data the trace holds at all."""
        return {"sched": self.sched, "dalvik": self.dalvik, "frames": self.frames}


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def number(v: Any) -> int | float | None:
    """A measured value as JSON writes it: an int when integral, else a float."""
    if v is None:
        return None
    f = float(v)
    return int(f) if f.is_integer() else f


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def _sum(s: pl.Series) -> int:
    """Integer sum; 0 for an empty (possibly untyped) column."""
    v = s.sum()
    return 0 if v is None else int(v)


def _by_run(df: pl.DataFrame, run: int) -> pl.DataFrame:
    return df.filter(pl.col("run") == run) if df.height else df


# -- GC ------------------------------------------------------------------------

def gc_metrics(run: int, gc_df: pl.DataFrame, events: pl.DataFrame,
               cap: Capture, pauses: pl.DataFrame | None = None,
               waits: pl.DataFrame | None = None,
               window: tuple[int, int] | None = None,
               gc_set: pl.DataFrame | None = None) -> dict[str, Any]:
    """The ``gc`` block of one run: CPU, counts, pauses, waits and MMU.

    ``pauses`` / ``waits`` are the gc_pause / gc_wait rows, ``window`` the run
    window W (start_ts, end_ts) and ``gc_set`` every GC of the target (the
    artscope_target_gc rows: its foreground GCs stop their threads for the MMU);
    without them the pause fields are null.
    """
    row = _by_run(gc_df, run)
    ev = _by_run(events, run)
    app = _int(row["app_cpu_ns"][0]) if cap.sched and row.height else None
    gc_cpu = _int(row["gc_cpu_ns"][0]) if cap.sched and cap.dalvik and row.height else None
    daemon = _int(row["gc_daemon_cpu_ns"][0]) if cap.sched and row.height else None
    counted = cap.dalvik and row.height > 0
    pz = _by_run(pauses, run) if pauses is not None else None
    wt = _by_run(waits, run) if waits is not None else None
    # Pause times need ART's phase slices inside the GC slices: a run with
    # GCs none of which holds one cannot tell its pauses (zero would lie).
    pauses_known = (cap.dalvik and pz is not None and window is not None
                    and not (ev.height and not ev["has_phases"].cast(pl.Boolean).any()))
    by_gc: dict[int, list[dict[str, Any]]] = {}
    if pz is not None and pz.height:
        for r in pz.filter(pl.col("gc_id").is_not_null()).iter_rows(named=True):
            by_gc.setdefault(r["gc_id"], []).append(
                {"ts": r["ts"], "dur": r["dur"], "source": r["source"], "bound": r["bound"],
                 "end_slice": r["end_slice"]})
    out: dict[str, Any] = {
        "app_cpu_ns": app,
        "gc_cpu_ns": gc_cpu,
        "gc_cpu_share": _ratio(gc_cpu, app),
        "mutator_cpu_ns": None if app is None or gc_cpu is None else app - gc_cpu,
        "gc_count": _int(row["gc_count"][0]) if counted else None,
        "gc_wall_ns": _int(row["gc_wall_ns"][0]) if counted else None,
        "gc_daemon_cpu_ns": daemon,
        "foreground_count": _int(row["foreground_count"][0]) if counted else None,
        "foreground_ns": _int(row["foreground_ns"][0]) if counted else None,
        "unfinished_count": ev["unfinished"].cast(pl.Int64).sum() if ev.height
        else (0 if cap.dalvik else None),
        "by_cause": _gc_breakdown(ev, "cause", GC_CAUSES, cap),
        "by_kind": _gc_breakdown(ev, "kind", GC_KINDS, cap),
    }
    out.update(_pause_stats(pz, window) if pauses_known else dict.fromkeys(PAUSE_FIELDS))
    out.update(_wait_stats(wt) if cap.dalvik and wt is not None
               else {"mutator_wait_ns": None, "main_thread_wait_ns": None})
    out.update(_mmu_curves(pz, wt, window, gc_set) if pauses_known
               else {"mmu": None, "main_thread_mmu": None})
    out["events"] = [
        {"ts": r["ts"], "dur": r["dur"], "cause": r["cause"], "kind": r["kind"],
         "name": r["name"], "foreground": bool(r["foreground"]), "depth": r["depth"],
         "unfinished": bool(r["unfinished"]),
         "tid": r["tid"], "thread": r["thread_name"],
         "cpu_ns": r["cpu_ns"] if cap.sched else None,
         "runnable_ns": r["runnable_ns"] if cap.sched else None,
         "heap_before_kb": number(r["heap_before_kb"]),
         "heap_after_kb": number(r["heap_after_kb"]),
         "reclaimed_mb": r["reclaimed_mb"],
         "pause_count": len(by_gc.get(r["gc_id"], [])) if pauses_known else None,
         "pause_ns": sum(p["dur"] for p in by_gc.get(r["gc_id"], [])) if pauses_known else None,
         "pauses": by_gc.get(r["gc_id"], []) if pauses_known else None}
        for r in ev.iter_rows(named=True)]
    return out


#: GC causes and kinds of gc_events.sql (the breakdown keys, stable for the
#: flat columns).
GC_CAUSES = ("alloc", "native_alloc", "background", "explicit", "collector_transition",
             "other")
GC_KINDS = ("young", "partial", "full")
#: Per-run pause fields (null together when pauses cannot be known).
PAUSE_FIELDS = ("pause_count", "pause_total_ns", "pause_max_ns", "pause_p50_ns",
                "pause_p90_ns", "pause_p99_ns", "other_pause_count", "other_pause_total_ns")
#: MMU window sizes (ns): 1, 2, 5, 10, 20, 50, 100, 200, 500 ms and 1 s.
MMU_WINDOWS_NS = tuple(ms * 1_000_000 for ms in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))


def _gc_breakdown(ev: pl.DataFrame, column: str, keys: tuple[str, ...],
                  cap: Capture) -> dict[str, dict[str, int | None]]:
    """{key: {count, cpu_ns}} of the run's GC events by cause or kind."""
    out: dict[str, dict[str, int | None]] = {}
    for k in keys:
        sub = ev.filter(pl.col(column) == k) if ev.height else ev
        out[k] = {"count": sub.height if cap.dalvik else None,
                  "cpu_ns": _sum(sub["cpu_ns"]) if (cap.dalvik and cap.sched) else None}
    return out


def _pause_stats(pz: pl.DataFrame, window: tuple[int, int]) -> dict[str, int]:
    """Pause count, total, max and percentiles in W (GC pauses), and the
    suspend-alls outside any GC, from the run's gc_pause rows."""
    in_w = pz.filter(pl.col("dur_in_run") > 0) if pz.height else pz
    gc_p = sorted(in_w.filter(pl.col("gc_id").is_not_null())["dur_in_run"].to_list()) \
        if in_w.height else []
    other = in_w.filter(pl.col("gc_id").is_null())["dur_in_run"].to_list() if in_w.height else []
    pct = {p: (nearest_rank(gc_p, p) if gc_p else 0) for p in (50, 90, 99)}
    return {"pause_count": len(gc_p), "pause_total_ns": sum(gc_p),
            "pause_max_ns": gc_p[-1] if gc_p else 0,
            "pause_p50_ns": pct[50], "pause_p90_ns": pct[90], "pause_p99_ns": pct[99],
            "other_pause_count": len(other), "other_pause_total_ns": sum(other)}


def _intervals(df: pl.DataFrame | None, start: str, end: str) -> list[tuple[int, int]]:
    if df is None or not df.height:
        return []
    return list(zip(df[start].to_list(), df[end].to_list()))


def _wait_stats(wt: pl.DataFrame) -> dict[str, int]:
    """GC waits in W: each thread's union of wait intervals, summed over
    mutator threads and over main threads."""
    from artscope.metrics.mmu import merge_intervals

    total = main = 0
    if wt.height:
        for (utid, is_main), grp in wt.group_by("utid", "is_main_thread"):
            ns = sum(e - s for s, e in merge_intervals(
                _intervals(grp, "clipped_ts", "clipped_end_ts"), -2**62, 2**62))
            total += ns
            main += ns if is_main else 0
    return {"mutator_wait_ns": total, "main_thread_wait_ns": main}


def _mmu_curves(pz: pl.DataFrame, wt: pl.DataFrame | None, window: tuple[int, int],
                gc_set: pl.DataFrame | None) -> dict[str, list[dict[str, float]]]:
    """gc.mmu and gc.main_thread_mmu at MMU_WINDOWS_NS within W.

    Unavailable for gc.mmu: the GC pauses, and every foreground GC whole (a
    mutator that collects itself is stopped for it: ISMM'15 counts it as a
    pause). For main_thread_mmu: the GC pauses, the main thread's GC waits and
    its own foreground GCs."""
    from artscope.metrics.mmu import mmu

    start, end = window
    gc_p = pz.filter(pl.col("gc_id").is_not_null()) if pz.height else pz
    paused = [(ts, ts + d) for ts, d in _intervals(gc_p, "ts", "dur")]
    fg = (gc_set.filter(pl.col("foreground").cast(pl.Boolean))
          if gc_set is not None and gc_set.height else None)
    foreground = _intervals(fg, "ts", "end_ts")
    main_foreground = _intervals(fg.filter(pl.col("is_main_thread").cast(pl.Boolean))
                                 if fg is not None else None, "ts", "end_ts")
    main_waits = _intervals(wt.filter(pl.col("is_main_thread").cast(pl.Boolean))
                            if wt is not None and wt.height else None,
                            "clipped_ts", "clipped_end_ts")

    def curve(intervals: list[tuple[int, int]]) -> list[dict[str, float]]:
        return [{"window_ns": int(w), "mmu": u}
                for w, u in mmu(intervals, start, end, MMU_WINDOWS_NS)]

    return {"mmu": curve(paused + foreground),
            "main_thread_mmu": curve(paused + main_waits + main_foreground)}


# -- pinning -------------------------------------------------------------------

def pinning_metrics(run: int, window: tuple[int, int, int], sel: Selection, pin: pl.DataFrame,
                    mig: pl.DataFrame, interf: pl.DataFrame, evidence: pl.DataFrame,
                    app_cpu_ns: int | None, cap: Capture,
                    phases: pl.DataFrame | None = None) -> dict[str, Any]:
    """The ``pinning`` block of one run; ``window`` is (W's start, the end of
    its --pin-grace period, W's end)."""
    w_len = window[2] - window[0]
    allowed = sel.allowed_cpus
    gc_allowed = sel.gc_allowed_cpus
    out: dict[str, Any] = {"allowed_cpus": allowed, "gc_allowed_cpus": gc_allowed,
                           "cpus_source": sel.cpus_source,
                           "clusters": sel.topology.clusters(),
                           "clusters_source": sel.topology.source,
                           "unplaced_cpus": sel.topology.unplaced,
                           "diagnosis": None, "diagnosis_ts": None, "relapse_ts": None,
                           "pinned_stretch": None}
    p = _by_run(pin, run)
    m = _by_run(mig, run)
    judged = allowed is not None and cap.sched
    # Migrations do not depend on the allowed set.
    if cap.sched:
        out["migrations"] = _sum(m["migrations"])
        clusters = sel.topology.cluster_of
        if m.height and clusters:
            cc = 0
            for f, t, n in m.select("from_cpu", "to_cpu", "migrations").iter_rows():
                a, b = clusters.get(f), clusters.get(t)
                if a is None or b is None:
                    cc = None
                    break
                cc += n if a != b else 0
            out["cross_cluster_migrations"] = cc
        else:
            out["cross_cluster_migrations"] = 0 if (clusters and not m.height) else None
    else:
        out["migrations"] = out["cross_cluster_migrations"] = None
    if not judged:
        out.update({k: None for k in (
            "off_mask_cpu_ns", "off_mask_share", "grace_off_mask_cpu_ns",
            "violation_slices", "threads_violating", "first_violation_ts",
            "last_violation_end_ts", "interference_cpu_ns", "interference_share")})
        out["top_interferers"] = []
        out["threads"] = _thread_breakdown(p) if cap.sched else []
        out["evidence"] = _evidence(evidence, run)
        return out
    off = _sum(p["off_mask_ns"])
    viol = p.filter(pl.col("violation_slices") > 0) if p.height else p
    out.update({
        "off_mask_cpu_ns": off,
        "off_mask_share": _ratio(off, app_cpu_ns),
        "grace_off_mask_cpu_ns": _sum(p["grace_off_mask_ns"]),
        "violation_slices": _sum(p["violation_slices"]),
        "threads_violating": viol["utid"].n_unique() if viol.height else 0,
        "first_violation_ts": _int(viol["first_violation_ts"].min()) if viol.height else None,
        "last_violation_end_ts": _int(viol["last_violation_end_ts"].max()) if viol.height else None,
    })
    i = _by_run(interf, run)
    icpu = _sum(i["cpu_ns"])
    a_set = sorted(set(allowed or []) | set(gc_allowed or []))
    out["evidence"] = _evidence(evidence, run)
    if off > 0 and phases is not None and phases.height:
        out.update(pinning_diagnosis(_by_run(phases, run), out["evidence"], window))
    out["interference_cpu_ns"] = icpu
    out["interference_share"] = _ratio(icpu, len(a_set) * w_len)
    out["top_interferers"] = _top_interferers(i)
    out["threads"] = _thread_breakdown(p)
    return out


#: A stretch of the run on the allowed CPUs only shows a mask by itself when
#: it lasts at least PINNED_STRETCH_MIN_NS and holds at least
#: PINNED_STRETCH_SHARE of the app's CPU time in W up to its end (so far,
#: not in all of W: a trace and a prefix of it then agree). An app the
#: scheduler merely placed there for a moment does not qualify.
PINNED_STRETCH_SHARE = 0.25
PINNED_STRETCH_MIN_NS = 500_000_000


def pinning_diagnosis(stretches: pl.DataFrame, events: list[dict[str, Any]],
                      window: tuple[int, int, int]) -> dict[str, Any]:
    """Whether and when a mask held, from pinning_phases.sql's clean
    stretches of one run and the run's affinity evidence (``events``:
    sched_setaffinity syscalls and cgroup moves of target threads);
    ``window`` is (W's start, the grace period's end, W's end).

    A stretch shows a mask when it is long and substantial (see
    PINNED_STRETCH_SHARE), or when an event explains each of its ends inside
    W (an event explains the first change onto or off the allowed CPUs at or
    after it). mask_lost: the first such stretch began the run (diagnosis_ts:
    the first off-mask slice after it); pinned_late: it came after off-mask
    time (diagnosis_ts: its start; relapse_ts: its end, when the app left the
    allowed CPUs again). Without one, no_mask_seen: the off-mask time is
    reported as such, without a story.
    """
    w_start, grace_end, w_end = window
    none = {"diagnosis": None, "diagnosis_ts": None, "relapse_ts": None,
            "pinned_stretch": None}
    if not stretches.height:
        return none
    if not events:
        # without events only a long stretch (one with CPU sums) can show a
        # mask: the short ones, most of the rows, are not read
        stretches = stretches.filter(pl.col("cpu_ns").is_not_null())
    rows = stretches.sort("start_ts").select(
        "start_ts", "end_ts", "cpu_ns", "cpu_before_ns").rows()
    changes = sorted({t for s, e, _, _ in rows for t in (s, e) if grace_end < t < w_end})
    explained: dict[int, list[dict[str, Any]]] = {}
    for ev in events:
        at = next((t for t in changes if t >= ev["ts"]), None)
        if at is not None:
            explained.setdefault(at, []).append(ev)
    so_far = 0
    for start, end, cpu, before in rows:
        share = None
        if cpu is not None:
            so_far += (before or 0) + cpu
            share = cpu / so_far if so_far else None
        substantial = share is not None and cpu > 0 and share >= PINNED_STRETCH_SHARE
        by_events = ((start <= grace_end or start in explained) and end < w_end
                     and end in explained)
        if not (substantial or by_events) or end <= start:
            continue
        found = {"start_ts": start, "end_ts": end, "cpu_ns": cpu, "cpu_share": share,
                 "substantial": substantial,
                 "events": [*explained.get(start, []), *explained.get(end, [])]}
        if start <= grace_end:
            return {"diagnosis": "mask_lost", "diagnosis_ts": end, "relapse_ts": None,
                    "pinned_stretch": found}
        return {"diagnosis": "pinned_late", "diagnosis_ts": start,
                "relapse_ts": end if end < w_end else None, "pinned_stretch": found}
    return {**none, "diagnosis": "no_mask_seen"}


def _thread_breakdown(p: pl.DataFrame) -> list[dict[str, Any]]:
    if not p.height:
        return []
    g = (p.group_by("utid").agg(
            pl.col("tid").first(), pl.col("thread_name").first(), pl.col("role").first(),
            pl.col("cpu_ns").sum(), pl.col("off_mask_ns").sum().alias("off_mask_cpu_ns"),
            pl.col("grace_off_mask_ns").sum().alias("grace_off_mask_cpu_ns"),
            pl.col("cpu").sort().alias("cpus"))
         .sort(["off_mask_cpu_ns", "cpu_ns", "utid"], descending=[True, True, False]))
    return [{"tid": r["tid"], "name": r["thread_name"], "role": r["role"],
             "cpu_ns": r["cpu_ns"], "off_mask_cpu_ns": r["off_mask_cpu_ns"],
             "grace_off_mask_cpu_ns": r["grace_off_mask_cpu_ns"], "cpus": list(r["cpus"])}
            for r in g.iter_rows(named=True)]


def _top_interferers(i: pl.DataFrame, n: int = 5) -> list[dict[str, Any]]:
    if not i.height:
        return []
    # A thread with no known process stands alone; ties by name.
    keyed = i.with_columns(
        pl.when(pl.col("upid").is_not_null())
        .then(pl.format("p{}", pl.col("upid")))
        .otherwise(pl.format("t{}", pl.col("utid"))).alias("key"),
        pl.coalesce(pl.col("process_name"), pl.col("thread_name"),
                    pl.lit("<unknown>")).alias("label"))
    g = (keyed.group_by("key").agg(
            pl.col("label").first().alias("name"), pl.col("pid").first(),
            pl.col("tid").first(), pl.col("upid").first(), pl.col("cpu_ns").sum())
         .sort(["cpu_ns", "name", "key"], descending=[True, False, False]).head(n))
    return [{"name": r["name"], "pid": r["pid"] if r["upid"] is not None else None,
             "tid": None if r["upid"] is not None else r["tid"], "cpu_ns": r["cpu_ns"]}
            for r in g.iter_rows(named=True)]


def _evidence(ev: pl.DataFrame, run: int) -> list[dict[str, Any]]:
    e = _by_run(ev, run)
    return [{"ts": r["ts"], "kind": r["kind"], "tid": r["tid"], "detail": r["detail"]}
            for r in e.iter_rows(named=True)]


# -- jank ----------------------------------------------------------------------

def nearest_rank(sorted_values: list[int], p: float) -> int | None:
    """The ceil(p/100 * n)-th smallest value (nearest-rank percentile)."""
    n = len(sorted_values)
    if n == 0:
        return None
    k = max(1, math.ceil(p / 100 * n))
    return sorted_values[k - 1]


def jank_metrics(run: int, source: dict[str, Any], frames: pl.DataFrame,
                 opts: AnalysisOptions) -> dict[str, Any]:
    """The ``jank`` block of one run from frames.sql's rows and
    frame_source.sql's row (``source``), with the assumptions it rests on:
    the refresh rate the trace shows, the deadline Choreographer frames are
    judged against and where it came from, and an engine drawing on threads
    of its own (Flutter, game engines), whose Choreographer frames say
    nothing of its frames (jank unknown)."""
    f = _by_run(frames, run)
    kind, draws_on = source.get("source"), source.get("draws_on")
    period = source.get("refresh_period_ns")
    if opts.frame_deadline_ns is not None:
        deadline, deadline_source = opts.frame_deadline_ns, "option"
    elif source.get("app_deadline_ns"):  # what SurfaceFlinger judges apps against
        deadline, deadline_source = int(source["app_deadline_ns"]), "frame_timeline"
    elif period:
        deadline, deadline_source = int(period), source["refresh_source"]
    else:
        deadline, deadline_source = DEFAULT_FRAME_DEADLINE_NS, "assumed"
    out: dict[str, Any] = {
        "source": kind or "none",
        "refresh_hz": round(1e9 / period, 1) if period else None,
        "refresh_source": source.get("refresh_source"),
        "frame_deadline_ns": deadline if kind == "choreographer" else None,
        "deadline_source": deadline_source if kind == "choreographer" else None,
        "draws_on": draws_on,
    }
    if kind is None or (kind == "choreographer" and draws_on):
        return {**out, "frames": None, "janky_frames": None, "app_janky_frames": None,
                "janky_pct": None, "unfinished_frames": None,
                "frame_dur_ms": {f"p{p}": None for p in PERCENTILES}}
    done = f.filter(pl.col("unfinished") == 0) if f.height else f
    n = done.height
    if kind == "frame_timeline":
        janky = _sum(done["is_missed"]) if n else 0
        app_janky = _sum(done["is_app_jank"]) if n else 0
    else:
        janky = _sum(done["dur"] > deadline) if n else 0
        app_janky = janky
    durs = sorted(done["dur"].to_list()) if n else []
    return {
        **out,
        "frames": n,
        "janky_frames": janky,
        "app_janky_frames": app_janky,
        "janky_pct": (100.0 * janky / n) if n else None,
        "unfinished_frames": f.height - n,
        "frame_dur_ms": {f"p{p}": (None if not durs else nearest_rank(durs, p) / 1e6)
                         for p in PERCENTILES},
    }


# -- frequency -----------------------------------------------------------------

def _value_key(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _residency(rows: pl.DataFrame) -> pl.DataFrame:
    """(value, ns): time in W per known value, from frequency.sql's sample
    intervals (an unknown sample -- a polled 0 -- holds unknown time)."""
    known = rows.filter(pl.col("known") == 1) if "known" in rows.columns else rows
    return (known.with_columns(ns=pl.col("end_ts") - pl.col("start_ts"))
            .filter(pl.col("ns").is_not_null() & (pl.col("ns") > 0))
            .group_by("value").agg(pl.col("ns").sum())
            .sort("value"))


def series_stats(rows: pl.DataFrame, w_len: int, stable_share: float) -> dict[str, Any]:
    """Stats of one series in one run from its frequency.sql rows (a row
    with ts NULL: no sample at or before W's end, nothing known; a row with
    known 0: a polled 0, unknown from its ts on)."""
    transitions = _sum(rows["is_transition"])
    sampled = rows.filter(pl.col("ts").is_not_null())
    known_rows = sampled.filter(pl.col("known") == 1)
    res = _residency(rows)
    residency = {_value_key(v): int(ns) for v, ns in res.iter_rows()}
    known = _sum(res["ns"])
    if res.height:
        vals = res["value"].to_list()
        nss = res["ns"].to_list()
        mean = sum(v * ns for v, ns in zip(vals, nss)) / known
        # Longest residency wins; ties go to the higher value.
        dom_v, dom_ns = max(zip(vals, nss), key=lambda t: (t[1], t[0]))
        vmin, vmax = min(vals), max(vals)
    else:
        mean = dom_v = vmin = vmax = None
        dom_ns = 0
    known_share = known / w_len if w_len > 0 else None
    if known_rows.height == 0:
        stable = None
    else:
        stable = transitions == 0 and known_share is not None and known_share >= stable_share
    return {
        "transitions": transitions,
        "min": number(vmin), "max": number(vmax), "mean": mean,
        "dominant": number(dom_v),
        "dominant_residency": (dom_ns / known) if known else None,
        "known_share": known_share,
        "residency": residency,
        "stable": stable,
        "zero_samples": sampled.height - known_rows.height,
    }


#: Votes for a memory controller's frequency, not its frequency: Tensor's
#: per-CPU votes (gs_governor_memlat.c traces clock_set_rate "cpu<N>mif",
#: gs_governor_dsulat.c "cpu<N>dsu" and its "DSUlat Governor" output, a
#: BCI domain's vote per CPU), the ALT-DVFS governor's MIF target
#: (governor_simpleinteractive.c: "MIF_ALT") and memlat monitors' votes.
#: A vote of 0 is a withdrawn vote, not a frequency.
MEM_VOTE = re.compile(r"(?i)(memlat|dsulat|governor|^cpu\d+(mif|dsu|bci)$|_alt$)")


def is_memory_vote(name: str, source: str | None = None) -> bool:
    """Whether a device series is a vote for a memory frequency (per-CPU
    MIF/DSU/BCI votes, a governor's target, memlat / bw_hwmon monitors,
    bus_dcvs's per-CPU path), not a controller's frequency."""
    if source in ("memlat", "bw_hwmon"):
        return True
    if source == "bus_dcvs":
        return name.partition("/")[2] == "percpu"
    return MEM_VOTE.search(name) is not None


def is_memory_device(name: str, opts: AnalysisOptions, source: str | None = None) -> bool:
    """Whether a device series is the memory controller: ``--mem-device``
    when given, else :func:`is_memory_controller`."""
    if opts.mem_device is not None:
        return re.search(opts.mem_device, name) is not None
    return is_memory_controller(name, source)


def is_memory_controller(name: str, source: str | None = None) -> bool:
    """The default rule: bus_dcvs DDR / LLCC / L3 on their slow or fast
    path, never a vote (is_memory_vote), and for devfreq and clock names the
    include / exclude patterns of options.py."""
    if is_memory_vote(name, source):
        return False
    if source == "bus_dcvs":
        return name.partition("/")[0] in DCVS_MEMORY_HW
    return (re.search(DEFAULT_MEM_DEVICE_INCLUDE, name) is not None
            and re.search(DEFAULT_MEM_DEVICE_EXCLUDE, name) is None)


def _vote_rows(rows: pl.DataFrame) -> pl.DataFrame:
    """A vote series' rows with its 0s (withdrawn votes) unknown: no time at
    a value, and no transition to or from them."""
    rows = rows.sort("ts")
    zero = pl.col("value") == 0
    return rows.with_columns(
        known=pl.when(zero).then(0).otherwise(pl.col("known")),
        is_transition=pl.when(zero | (pl.col("value").shift(1) == 0)).then(0)
        .otherwise(pl.col("is_transition")))


def _no_data_stats() -> dict[str, Any]:
    return {"transitions": None, "min": None, "max": None, "mean": None,
            "dominant": None, "dominant_residency": None, "known_share": None,
            "residency": {}, "stable": None, "zero_samples": 0}


def cpufreq_metrics(run: int, w_len: int, freq: pl.DataFrame, cpus: list[int],
                    opts: AnalysisOptions, topology: Topology | None = None
                    ) -> list[dict[str, Any]]:
    """The ``cpufreq`` series of ``cpus`` in one run, with the caps that held
    each below its dominant (held) frequency; ``topology`` maps cpufreq
    cooling devices to the CPUs they cap."""
    f = _by_run(freq, run)
    out = []
    share = opts.thresholds.stable_known_share
    cooling = f.filter(pl.col("source") == "cooling_device") if f.height else f
    for cpu in cpus:
        rows = f.filter((pl.col("source") == "cpufreq") & (pl.col("cpu") == cpu)) if f.height else f
        caps = (f.filter(pl.col("source").is_in(["cpu_max_limit", "cpu_throttle"])
                         & (pl.col("cpu") == cpu)) if f.height else f)
        entry: dict[str, Any] = {"cpu": cpu, "source": "cpufreq", "unit": UNIT_BY_SOURCE["cpufreq"]}
        entry.update(series_stats(rows, w_len, share) if rows.height else _no_data_stats())
        entry["capped_by"] = _caps_below(entry.get("dominant"), caps) + _cooling_caps(
            entry.get("dominant"), cpu, rows, cooling, topology)
        entry["throttled"] = _throttled(entry, w_len, opts)
        out.append(entry)
    return out


def _caps_below(dominant: float | None, caps: pl.DataFrame) -> list[dict[str, Any]]:
    """The CPU's frequency caps that were below its dominant frequency in W:
    the kernel's max-frequency limit (cpu_max_limit, thermal or power
    policy) and Qualcomm LMh (cpu_throttle), each with its lowest value and
    the time it held the CPU below the dominant."""
    if dominant is None or not caps.height:
        return []
    out = []
    for source in ("cpu_max_limit", "cpu_throttle"):
        below = _residency(caps.filter(pl.col("source") == source)).filter(
            pl.col("value") < dominant)
        if below.height:
            low = below["value"].min()
            out.append({"source": source, "device": None, "min": number(low),
                        "ns": _sum(below["ns"])})
    return out


#: cpufreq cooling devices (drivers/thermal/cpufreq_cooling.c): before Linux
#: 5.16 "thermal-cpufreq-<n>", the n-th policy registered (CPU order); since,
#: "cpufreq-cpu<n>", the policy of CPU n.
_COOLING_BY_INDEX = re.compile(r"thermal-cpufreq-(\d+)")
_COOLING_BY_CPU = re.compile(r"cpufreq-cpu(\d+)")


def cooling_device_cpus(name: str, topology: Topology | None) -> list[int]:
    """The CPUs a cpufreq cooling device caps (empty when the trace cannot
    tell: another kind of device, or frequency domains unknown)."""
    if topology is None:
        return []
    m = _COOLING_BY_CPU.fullmatch(name)
    if m:
        return topology.domain_of(int(m.group(1)))
    m = _COOLING_BY_INDEX.fullmatch(name)
    if m and int(m.group(1)) < len(topology.domains):
        return topology.domains[int(m.group(1))]
    return []


def _cooling_caps(dominant: float | None, cpu: int, rows: pl.DataFrame,
                  cooling: pl.DataFrame, topology: Topology | None) -> list[dict[str, Any]]:
    """The cpufreq cooling devices of ``cpu``'s policy that capped it below
    its dominant frequency: state N caps the policy at its N-th highest
    available frequency (cpufreq_cooling.c's get_state_freq); without the
    CPU's frequency table, the time at state > 0 in which the CPU ran below
    its dominant frequency counts."""
    if dominant is None or not cooling.height:
        return []
    table = sorted(topology.available_khz.get(cpu, []), reverse=True) if topology else []
    out = []
    for (name,), dev in cooling.group_by(["device"], maintain_order=True):
        if cpu not in cooling_device_cpus(name, topology):
            continue
        states = dev.filter(pl.col("ts").is_not_null() & (pl.col("value") > 0))
        if table:
            capped = states.with_columns(
                value=pl.col("value").map_elements(lambda n: table[min(int(n), len(table) - 1)],
                                                   return_dtype=pl.Float64))
            below = _residency(capped).filter(pl.col("value") < dominant)
            low, ns = (below["value"].min(), _sum(below["ns"])) if below.height else (None, 0)
        else:
            slow = rows.filter((pl.col("known") == 1) & (pl.col("value") < dominant))
            ns = _overlap(_spans(states), _spans(slow))
            low = None
        if ns > 0:
            out.append({"source": "cooling_device", "device": name, "min": number(low),
                        "ns": ns})
    return out


def _spans(rows: pl.DataFrame) -> list[tuple[int, int]]:
    return [(a, b) for a, b in rows.select("start_ts", "end_ts").rows() if b > a]


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Time in both of two lists of disjoint intervals."""
    return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


def _throttled(entry: dict[str, Any], w_len: int, opts: AnalysisOptions) -> bool | None:
    """A cap (capped_by) held the CPU below its dominant frequency for more
    than throttle_share of W. Frequency changes with no cap are a governor
    at work (``stable`` false), not throttling."""
    if entry.get("dominant") is None or w_len <= 0:
        return None
    limit = opts.thresholds.throttle_share * w_len
    return any(c["ns"] > limit for c in entry["capped_by"])


def memfreq_metrics(run: int, w_len: int, freq: pl.DataFrame,
                    opts: AnalysisOptions) -> list[dict[str, Any]]:
    """The device frequency series of one run: the memory controllers, and
    with ``opts.all_clocks`` every other clock, devfreq device and vote of the
    trace too (``is_memory`` false)."""
    f = _by_run(freq, run)
    if not f.height:
        return []
    dev = f.filter(pl.col("source").is_in(list(DEVICE_SOURCES)))
    out = []
    share = opts.thresholds.stable_known_share
    for _key, rows in dev.group_by(["track_id", "source"], maintain_order=True):
        name = rows["device"][0]
        source = rows["source"][0]
        is_memory = is_memory_device(name, opts, source)
        if not (is_memory or opts.all_clocks):
            continue
        is_vote = not is_memory and is_memory_vote(name, source)
        entry = {"device": name, "source": source,
                 "unit": frequency_unit(source, rows["series_max"][0]),
                 "is_memory": is_memory, "is_vote": is_vote}
        entry.update(series_stats(_vote_rows(rows) if is_vote else rows, w_len, share))
        out.append(entry)
    out.sort(key=lambda e: (not e["is_memory"], e["device"], e["source"]))
    return out
