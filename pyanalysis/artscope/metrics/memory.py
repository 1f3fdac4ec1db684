"""Memory pressure per run: the ``memory`` block of a result.

From the memory sql-metrics files (direct_reclaim, memory_pressure,
memory_kills, memory_rss, memory_vmstat): time the target lost in direct
reclaim and I/O waits, kswapd's CPU time (and its share on the allowed
CPUs), low-memory and OOM kills, the target's resident memory and the
system's page faults. A value is null when the trace did not capture its
data, and ``unavailable`` then says why and what to record; zero means
"captured, nothing happened".
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from artscope.metrics.compute import _by_run
from artscope.metrics.selection import Selection

#: RSS series (memory_rss.sql) and the JSON key prefix of each.
RSS_PARTS = {"rss.anon": "rss_anon", "rss.file": "rss_file", "rss.shmem": "rss_shmem"}
#: /proc/vmstat keys whose increase is a refault (kernels < 5.9; 5.9+).
REFAULT_KEYS = ("workingset_refault", "workingset_refault_anon", "workingset_refault_file")
#: Every numeric field of the block, in JSON order.
FIELDS = ("direct_reclaim_ns", "direct_reclaim_share", "direct_reclaim_slices",
          "kswapd_cpu_ns", "kswapd_allowed_cpu_ns", "kswapd_allowed_share", "io_wait_ns",
          "rss_start_kb", "rss_peak_kb", "rss_end_kb",
          *(f"{p}_{s}_kb" for p in RSS_PARTS.values() for s in ("start", "peak", "end")),
          "major_faults", "refaults")


def _records(pbtxt: str | None, *events: str) -> bool:
    """Whether the recorded config names any of these ftrace events."""
    return bool(pbtxt) and any(f'"{e}"' in pbtxt for e in events)


@dataclasses.dataclass
class MemoryCapture:
    """Which memory data the trace captured (null vs zero)."""

    sched: bool
    direct_reclaim: bool
    io_wait: bool
    kills: bool

    @classmethod
    def probe(cls, engine, sched: bool, pbtxt: str | None,
              pressure: pl.DataFrame, kills: pl.DataFrame) -> "MemoryCapture":
        seen = engine.query(
            "SELECT EXISTS (SELECT 1 FROM slice WHERE name = 'mm_vmscan_direct_reclaim')"
        ).item(0, 0)
        reclaim = bool(seen) or _records(pbtxt, "vmscan/mm_vmscan_direct_reclaim_begin")
        io_known = bool(pressure.height and pressure["io_wait_known"].max())
        io_wait = sched and (io_known or _records(pbtxt, "sched/sched_blocked_reason"))
        # lmkd writes its kills as atrace when its app tag is traced. The
        # kernel's own lowmemorykiller (lowmemory_kill, kernels < 4.12) is
        # not read: only trace_processor imports it, so it does not count
        # as captured here.
        lmkd = bool(pbtxt) and ('atrace_apps: "lmkd"' in pbtxt or 'atrace_apps: "*"' in pbtxt)
        kill = kills.height > 0 or lmkd or _records(pbtxt, "oom/mark_victim")
        return cls(sched=sched, direct_reclaim=reclaim, io_wait=io_wait, kills=kill)


def _kb(v: float | None) -> int | None:
    return None if v is None else int(round(v))


def _step_total(rows: pl.DataFrame) -> pl.DataFrame:
    """(ts, value_kb) of the sum of several sampled series, each holding its
    last value until the next sample; from the first time every series is
    known."""
    wide = (rows.with_columns(key=pl.format("{}|{}", pl.col("upid"), pl.col("series")))
            .group_by("ts", "key").agg(pl.col("value_kb").last())
            .pivot(on="key", index="ts", values="value_kb")
            .sort("ts"))
    keys = [c for c in wide.columns if c != "ts"]
    wide = wide.with_columns(pl.col(keys).forward_fill()).drop_nulls(keys)
    return wide.select("ts", pl.sum_horizontal(keys).alias("value_kb"))


def _start_peak_end(series: pl.DataFrame) -> tuple[int | None, int | None, int | None]:
    """memory_rss.sql gives each run's samples from the one in force at W's
    start (or W's first, when none is earlier) to the last before W's end."""
    if not series.height:
        return None, None, None
    v = series["value_kb"]
    return _kb(v[0]), _kb(v.max()), _kb(v[-1])


def rss_metrics(rows: pl.DataFrame) -> dict[str, Any]:
    """The target's RSS in one run (memory_rss.sql rows of that run)."""
    out: dict[str, Any] = {}
    polled, parts, use_parts = _rss_sources(rows)
    # the sum of the parts (rss_stat pushes each change) when anon and file
    # are both known; else the total process_stats polls
    total = _step_total(parts if use_parts else polled) if rows.height else rows
    out["rss_start_kb"], out["rss_peak_kb"], out["rss_end_kb"] = _start_peak_end(total)
    for series, key in RSS_PARTS.items():
        one = parts.filter(pl.col("series") == series) if parts.height else parts
        s = _step_total(one) if one.height else one
        out[f"{key}_start_kb"], out[f"{key}_peak_kb"], out[f"{key}_end_kb"] = _start_peak_end(s)
    out["rss_source"] = ("sum_of_parts" if use_parts
                         else "polled_total" if polled.height else None)
    return out


def _rss_sources(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    """(polled total rows, part rows, whether the total is the sum of the parts)."""
    if not rows.height:
        return rows, rows, False
    polled = rows.filter(pl.col("series") == "rss")
    parts = rows.filter(pl.col("series") != "rss")
    have = set(parts["series"].unique().to_list())
    return polled, parts, {"rss.anon", "rss.file"} <= have or not polled.height and bool(have)


def _increase(vm: pl.DataFrame, keys: tuple[str, ...]) -> int | None:
    have = vm.filter(pl.col("vmstat_key").is_in(list(keys))) if vm.height else vm
    if not have.height:
        return None
    return int(sum(e - s for s, e in have.select("start_value", "end_value").iter_rows()))


def memory_metrics(run: int, w: tuple[int, int], sel: Selection, app_cpu_ns: int | None,
                   reclaim: pl.DataFrame, pressure: pl.DataFrame, kills: pl.DataFrame,
                   rss: pl.DataFrame, vmstat: pl.DataFrame,
                   cap: MemoryCapture) -> dict[str, Any]:
    """The ``memory`` block of one run (see the module doc)."""
    w_start, w_end = w
    out: dict[str, Any] = {}
    why: dict[str, str] = {}

    rc = _by_run(reclaim, run)
    if cap.direct_reclaim:
        out["direct_reclaim_ns"] = int(rc["dur"].sum()) if rc.height else 0
        out["direct_reclaim_slices"] = rc.height
        out["direct_reclaim_share"] = (out["direct_reclaim_ns"] / app_cpu_ns
                                       if app_cpu_ns else None)
        out["direct_reclaim_threads"] = _reclaim_threads(rc)
        out["direct_reclaim_first_ts"] = int(rc["ts"].min()) if rc.height else None
        out["direct_reclaim_last_end_ts"] = int(rc["end_ts"].max()) if rc.height else None
    else:
        out.update(direct_reclaim_ns=None, direct_reclaim_slices=None,
                   direct_reclaim_share=None, direct_reclaim_threads=[],
                   direct_reclaim_first_ts=None, direct_reclaim_last_end_ts=None)
        why["direct_reclaim_ns"] = ("direct reclaim was not recorded (ftrace "
                                    "vmscan/mm_vmscan_direct_reclaim_begin and _end)")

    pr = _by_run(pressure, run)
    row = pr.row(0, named=True) if pr.height else None
    w_len = w_end - w_start
    if cap.sched and row is not None:
        out["kswapd_cpu_ns"] = int(row["kswapd_cpu_ns"])
        if sel.allowed_cpus is not None:
            out["kswapd_allowed_cpu_ns"] = int(row["kswapd_allowed_cpu_ns"])
            out["kswapd_allowed_share"] = (out["kswapd_allowed_cpu_ns"] / w_len
                                           if w_len > 0 else None)
        else:
            out["kswapd_allowed_cpu_ns"] = out["kswapd_allowed_share"] = None
            why["kswapd_allowed_cpu_ns"] = "no allowed CPUs given (--cpus)"
    else:
        out["kswapd_cpu_ns"] = out["kswapd_allowed_cpu_ns"] = out["kswapd_allowed_share"] = None
        why["kswapd_cpu_ns"] = "no scheduling data (ftrace sched/sched_switch)"
    if cap.io_wait and row is not None:
        out["io_wait_ns"] = int(row["io_wait_ns"])
    else:
        out["io_wait_ns"] = None
        why["io_wait_ns"] = ("no scheduling data (ftrace sched/sched_switch)" if not cap.sched
                             else "blocked reasons were not recorded "
                                  "(ftrace sched/sched_blocked_reason)")

    if cap.kills:
        # a kill at W's end counts: a window that ends where the app was
        # killed ends at the kill
        k = kills.filter((pl.col("ts") >= w_start) & (pl.col("ts") <= w_end)) \
            if kills.height else kills
        out["kills"] = [{"ts": r["ts"], "pid": r["pid"], "process": r["process_name"],
                         "source": r["source"], "is_target": bool(r["is_target"])}
                        for r in k.iter_rows(named=True)]
        out["target_killed"] = any(x["is_target"] for x in out["kills"])
    else:
        out["kills"] = None
        out["target_killed"] = None
        why["kills"] = "kills were not recorded (atrace app lmkd, ftrace oom/mark_victim)"

    out.update(rss_metrics(_by_run(rss, run)))
    if out["rss_source"] is None:
        why["rss_start_kb"] = ("no memory counters of the target (ftrace kmem/rss_stat, or "
                               "process_stats polling)")
    vm = _by_run(vmstat, run)
    out["major_faults"] = _increase(vm, ("pgmajfault",))
    out["refaults"] = _increase(vm, REFAULT_KEYS)
    if out["major_faults"] is None:
        why["major_faults"] = "/proc/vmstat was not polled (sys_stats vmstat_period_ms, pgmajfault)"
    if out["refaults"] is None:
        why["refaults"] = ("/proc/vmstat was not polled (sys_stats vmstat_period_ms, "
                           "workingset_refault*)")
    out["unavailable"] = why
    return out


def _reclaim_threads(rc: pl.DataFrame) -> list[dict[str, Any]]:
    if not rc.height:
        return []
    g = (rc.group_by("utid").agg(pl.col("tid").first(), pl.col("thread_name").first(),
                                 pl.col("role").first(), pl.col("dur").sum().alias("ns"),
                                 pl.len().alias("slices"))
         .sort(["ns", "utid"], descending=[True, False]))
    return [{"tid": r["tid"], "name": r["thread_name"], "role": r["role"],
             "direct_reclaim_ns": int(r["ns"]), "slices": int(r["slices"])}
            for r in g.iter_rows(named=True)]


#: The sql-metrics files the memory block reads.
MEMORY_METRICS = ("direct_reclaim", "memory_pressure", "memory_kills", "memory_rss",
                  "memory_vmstat")
