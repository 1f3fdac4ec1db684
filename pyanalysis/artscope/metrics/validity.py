"""Run validity: was the run a valid benchmark invocation? (the ``validity`` block)

The ISMM'24 protocol (§3.4) starts the app fresh for every invocation and
counts an invocation only when the app ran to its end: a run that reused a
running process, or whose app died, was killed or ran out of memory inside
the window, is not a measurement of the benchmark (a minimum-heap search
counts exactly those failures, Tables 4 and 6). The JIT compiler's CPU share
is kept as a noise factor: heavy JIT activity (the app not yet compiled, or
its profile lost) changes the cost of a run without being the collector's.

From run_validity.sql (the run's process, exits, SIGKILLs, OutOfMemoryErrors,
JIT CPU) and memory_kills.sql (lmkd and OOM-killer kills of the target). A
value is null when the trace did not record what it needs, and
``unavailable`` says what to record; false / 0 means recorded, none.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from artscope.metrics.memory import _records

#: How a run's app died, earliest first when several happened together.
DEATH_KINDS = ("out_of_memory_error", "killed", "lmk_kill", "oom_kill", "exit")
#: Deaths the health check ``lmk_kill`` already fails a run for.
MEMORY_KILLS = ("lmk_kill", "oom_kill")


@dataclasses.dataclass(frozen=True)
class ValidityCapture:
    """Which of the events validity reads the trace recorded."""

    #: process creation (ftrace task/task_newtask): a process without a
    #: start in the trace existed when it began
    starts: bool
    #: process ends (ftrace sched/sched_process_free): a dead app's process ends
    exits: bool
    sched: bool
    #: ART's atrace category dalvik (JIT compile slices)
    dalvik: bool

    @classmethod
    def probe(cls, pbtxt: str | None, sched: bool, dalvik: bool,
              rows: pl.DataFrame) -> "ValidityCapture":
        """``rows``: run_validity.sql's rows (a start or exit seen proves the
        event was recorded when the trace has no config)."""
        seen_start = rows.height > 0 and rows["process_start_ts"].is_not_null().any()
        seen_exit = rows.height > 0 and rows["exit_ts"].is_not_null().any()
        return cls(starts=bool(seen_start) or _records(pbtxt, "task/task_newtask"),
                   exits=bool(seen_exit) or _records(pbtxt, "sched/sched_process_free"),
                   sched=sched, dalvik=dalvik)


def _deaths(row: dict[str, Any], kills: pl.DataFrame,
            window: tuple[int, int]) -> list[tuple[int, str, str]]:
    """(ts, how, detail) of every sign that the app died in [W's start, W's
    end]: a kill or an OutOfMemoryError with W's end included (a window may
    end where the killed process did); a plain exit only before W's end (a
    process window ends where its app ended: that exit is its natural end)."""
    out = []
    if row.get("exit_ts") is not None and row["exit_ts"] < window[1]:
        out.append((row["exit_ts"], "exit", f"process {row['exit_pid']} ended"))
    if row.get("kill_ts") is not None:
        out.append((row["kill_ts"], "killed", f"SIGKILL sent to thread {row['kill_tid']}"))
    if row.get("oom_ts") is not None:
        where = "ART's trace" if row["oom_source"] == "slice" else "logcat"
        out.append((row["oom_ts"], "out_of_memory_error",
                    f"thread {row['oom_tid']} threw OutOfMemoryError ({where})"))
    if kills.height:
        mine = kills.filter(pl.col("is_target").cast(pl.Boolean)
                            & pl.col("ts").is_between(window[0], window[1]))
        for r in mine.iter_rows(named=True):
            how = "lmk_kill" if r["source"] == "lmkd" else "oom_kill"
            who = "lmkd" if r["source"] == "lmkd" else "the kernel's OOM killer"
            out.append((r["ts"], how, f"process {r['pid']} killed by {who}"))
    return sorted(out, key=lambda d: (d[0], DEATH_KINDS.index(d[1])))


def validity_metrics(row: dict[str, Any] | None, window: tuple[int, int],
                     first_run_of_process: bool | None, kills: pl.DataFrame,
                     app_cpu_ns: int | None, cap: ValidityCapture,
                     cold_start_lead_ns: int) -> dict[str, Any]:
    """The ``validity`` block of one run (see the module doc). ``row`` is the
    run's run_validity.sql row, ``kills`` memory_kills.sql's rows (all runs)."""
    row = row or {}
    w_start = window[0]
    why: dict[str, str] = {}
    out: dict[str, Any] = {}

    start = row.get("process_start_ts")
    out["pid"] = row.get("pid")
    out["process_start_ts"] = start
    out["process_start_lead_ns"] = None if start is None else w_start - start
    if row.get("upid") is None:
        out["cold_start"] = None
        why["cold_start"] = "no target process overlaps the window"
    elif start is not None:
        out["cold_start"] = w_start - start <= cold_start_lead_ns
    elif cap.starts and w_start - row["trace_start_ts"] > cold_start_lead_ns:
        # process creation was recorded and this process was not created in
        # the trace: it was running before the trace began
        out["cold_start"] = False
    else:
        out["cold_start"] = None
        why["cold_start"] = ("the process's start is not in the trace (record ftrace "
                             "task/task_newtask and start the trace before the app)")
    out["first_run_of_process"] = first_run_of_process

    deaths = _deaths(row, kills, window)
    if deaths:
        ts, how, detail = deaths[0]
        out.update(app_died=True, died_ts=ts, died_how=how, died_detail=detail)
    else:
        out.update(app_died=False if cap.exits else None, died_ts=None, died_how=None,
                   died_detail=None)
        if not cap.exits:
            why["app_died"] = ("process ends were not recorded (ftrace "
                               "sched/sched_process_free; kills: signal/signal_generate)")

    if cap.sched and app_cpu_ns is not None:
        jit = int(row.get("jit_cpu_ns") or 0)
        out["jit_cpu_ns"] = jit
        out["jit_cpu_share"] = jit / app_cpu_ns if app_cpu_ns else None
    else:
        out["jit_cpu_ns"] = out["jit_cpu_share"] = None
        why["jit_cpu_ns"] = "no scheduling data (ftrace sched/sched_switch)"
    if cap.dalvik:
        out["jit_compiles"] = int(row.get("jit_compiles") or 0)
    else:
        out["jit_compiles"] = None
        why["jit_compiles"] = "ART's trace slices were not recorded (atrace category dalvik)"
    out["unavailable"] = why
    return out


def first_runs_of_process(rows: pl.DataFrame, starts: dict[int, int]) -> dict[int, bool | None]:
    """run -> whether no run of the trace with an earlier window start has
    the same process (later runs of one process are iterations of one
    invocation by design); None when the run has no process."""
    out: dict[int, bool | None] = {}
    by_run = {r["run"]: r.get("upid") for r in rows.iter_rows(named=True)}
    for run, upid in by_run.items():
        if upid is None:
            out[run] = None
            continue
        out[run] = not any(u == upid and starts[r] < starts[run]
                           for r, u in by_run.items() if r != run)
    return out
