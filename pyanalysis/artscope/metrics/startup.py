"""App launches of the target (startups.sql) as result rows, and a launch
as a run window (``--window launch``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from artscope.errors import SelectionError

#: startups.sql's breakdown columns, in the order of a launch's phases.
PHASES = ("process_start_ns", "bind_application_ns", "activity_start_ns",
          "activity_resume_ns", "first_frame_ns")


def launches_recorded(engine: Any) -> bool:
    """Whether the trace has a slice every launch of startups.sql starts
    from (system_server's "launchingActivity#<id>" or "launching:
    <package>"): without one startups.sql has no rows."""
    row = engine.query(
        "SELECT EXISTS (SELECT 1 FROM slice WHERE name GLOB 'launching*') AS yes")
    return bool(row["yes"][0])


def _is_target(names: list[str], upids: list[int]) -> pl.Expr:
    return pl.col("package").is_in(names) | pl.col("upid").is_in(upids)


def target_launches(startups: pl.DataFrame, names: list[str], upids: list[int]
                    ) -> list[dict[str, Any]]:
    """Launches of the package named ``names`` or resumed in one of ``upids``."""
    if not startups.height:
        return []
    mine = startups.filter(_is_target(names, upids)).sort("ts", "startup_id")
    return [{"startup_id": r["startup_id"], "type": r["startup_type"], "ts": r["ts"],
             "dur": r["dur"], "package": r["package"], "pid": r["pid"],
             "breakdown": {k: r[k] for k in PHASES}}
            for r in mine.iter_rows(named=True)]


def target_startups(startups: pl.DataFrame, sel) -> list[dict[str, Any]]:
    """The selection's target's launches, in time order."""
    names = [n for n in [sel.process_name] if n]
    return target_launches(startups, names, list(sel.upids))


def launch_windows(startups: pl.DataFrame, names: list[str], upids: list[int]
                   ) -> list[tuple[int, int]]:
    """[ts, ts + dur) of every launch of the target: the runs of ``--window
    launch``."""
    runs = [(x["ts"], x["ts"] + x["dur"]) for x in target_launches(startups, names, upids)
            if x["dur"] is not None and x["dur"] > 0]
    if not runs:
        raise SelectionError(
            "--window launch: the trace has no launch of the app (system_server's "
            "launchingActivity# / 'launching: <package>' slices; record atrace "
            "categories am and wm)")
    return runs
