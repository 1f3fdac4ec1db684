"""Tiny explicit traces for the metric tests (tests/test_metrics_*.py).

Each test writes its own schedule — a handful of sched runs, atrace lines,
counters and frames spelled out in milliseconds after ``T0`` — and encodes it
with fixtures/make_fixtures.py (``TraceProtoBuilder`` + hand-encoded frame
timeline packets). Expected numbers in the tests are derived by hand from
those schedules; nothing here computes an expected value.

Trace rules the hand arithmetic relies on (the ones trace_processor applies
and artscope's embedded engine mirrors):

* every CPU starts with a *leading idle run* that produces no sched row;
  ``place()`` adds it (and the idle gaps) for you;
* the last run of every CPU is open (sched dur -1): it ends at the trace end,
  and a thread placed with ``end=None`` runs until the trace end;
* trace bounds span every ftrace event (plus frame timeline / sys_stats
  packets): ``tiny()`` puts a cpu_frequency event at ``t(0)`` and one at
  ``t(end_ms)`` so a tiny trace spans exactly [T0, T0 + end_ms].
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterable

REPO = Path(__file__).resolve().parents[1]
_FIXTURES = REPO / "fixtures"
if str(_FIXTURES) not in sys.path:
    sys.path.insert(0, str(_FIXTURES))

import make_fixtures as M  # noqa: E402
import schedules as S  # noqa: E402
from schedules import (MS, T0, Atrace, ClockRate, CpuFreq, CpuFreqLimits, Devfreq,  # noqa: E402,F401
                       Frame, Process, Run, Schedule, SysStatsPoll, Thread, frame_pair, t)

# The app of every tiny trace (same identity as the committed fixtures, so the
# frame-timeline layer name "com.example.bench/...#0" matches it too).
APP = S.APP  # "com.example.bench"
PID = S.APP_PID  # 1000
MAIN, RT, W1, W2, HTD, POOL = S.MAIN, S.RT, S.W1, S.W2, S.HTD, S.POOL

APP_THREADS = {
    MAIN: Thread(MAIN, PID, "m.example.bench", prio=110),
    RT: Thread(RT, PID, "RenderThread", prio=110),
    W1: Thread(W1, PID, "Worker-1"),
    W2: Thread(W2, PID, "Worker-2"),
    HTD: Thread(HTD, PID, "HeapTaskDaemon", prio=124),
    POOL: Thread(POOL, PID, "Heap thread pool worker #0", comm="Heap thread poo", prio=124),
}


def ms(x: float) -> int:
    """Duration of ``x`` milliseconds in ns."""
    return int(round(x * MS))


def run(cpu: int, start_ms: float, end_ms: float | None, tid: int, end_state: int = S.S) -> Run:
    """``tid`` on ``cpu`` during [start_ms, end_ms) after T0 (end None: open)."""
    return Run(cpu, t(start_ms), None if end_ms is None else t(end_ms), tid, end_state=end_state)


def slice_(tid: int, name: str, start_ms: float, end_ms: float | None) -> list[Atrace]:
    """A B/E atrace pair on thread ``tid`` of the app (end None: never closed)."""
    ev = [Atrace(t(start_ms), tid, "B", PID, name)]
    if end_ms is not None:
        ev.append(Atrace(t(end_ms), tid, "E", PID))
    return ev


def tiny(name: str, end_ms: float, *, threads: Iterable[int] = (MAIN,),
         extra_threads: Iterable[Thread] = (), extra_processes: Iterable[Process] = (),
         runs: Iterable[Run] = (), atrace: Iterable[Atrace] = (), cpu_info: bool = True,
         bounds_cpu: int = 0, **fields: Any) -> Schedule:
    """A schedule of the app (pid 1000) and whatever the test adds.

    ``runs`` are sparse placements; idle runs are filled in per CPU. Trace
    bounds are pinned to [t(0), t(end_ms)] with two cpu_frequency events on
    ``bounds_cpu`` (1.0 GHz) unless the test passes its own ``cpufreq``.
    """
    runs = list(runs)
    sch = Schedule(
        name=name, description=name, start=t(0), end=t(end_ms),
        processes=list(S.BASE_PROCESSES) + [S.APP_PROCESS] + list(extra_processes),
        threads=list(S.BASE_THREADS) + [APP_THREADS[x] for x in threads] + list(extra_threads),
        cpus=list(S.CPUS) if cpu_info else [],
        packages=list(S.PACKAGES),
    )
    sch.runs = S.fill_cpus(runs, sch.start, sorted({r.cpu for r in runs})) if runs else []
    sch.atrace = sorted(atrace, key=lambda a: a.ts)
    if "cpufreq" not in fields:
        sch.cpufreq = [CpuFreq(t(0), bounds_cpu, 1_000_000), CpuFreq(t(end_ms), bounds_cpu, 1_000_000)]
    for k, v in fields.items():
        setattr(sch, k, v)
    sch.validate()
    return sch


def write(sch: Schedule, directory: Path) -> Path:
    path = Path(directory) / f"{sch.name}.pftrace"
    path.write_bytes(M.build(sch))
    return path


_VALIDATOR: Any = None


def validate(results: list[dict[str, Any]]) -> None:
    """Every output must match the JSON Schema shipped in the package."""
    global _VALIDATOR
    import json

    import jsonschema

    if _VALIDATOR is None:
        import artscope

        path = Path(artscope.__file__).resolve().parent / "schema" / "analyze-output.schema.json"
        schema = json.loads(path.read_text())
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _VALIDATOR = cls(schema)
    _VALIDATOR.validate(json.loads(json.dumps(results)))


def analyze(path: str | Path, app: str | None = APP, **options: Any) -> list[dict[str, Any]]:
    """artscope's per-run results (the JSON output's shape) on the embedded engine, schema-checked."""
    import artscope

    rs = artscope.open(str(path), app=app, engine="embedded", **options)
    try:
        results = rs.results
    finally:
        close = getattr(rs, "close", None)
        if close is not None:
            close()
    validate(results)
    return results


def build_and_analyze(sch: Schedule, directory: Path, **options: Any) -> list[dict[str, Any]]:
    return analyze(write(sch, directory), **options)


def reason_ids(result: dict[str, Any]) -> dict[str, str]:
    """{reason id: severity} of a run's health (one id may appear per CPU)."""
    return {r["id"]: r["severity"] for r in result["health"]["reasons"]}


def judged_reasons(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(id, severity) of the reasons that set the verdict (warn and fail), in
    order; info notes such as jank_not_applicable are left out."""
    return [(x["id"], x["severity"]) for x in result["health"]["reasons"]
            if x["severity"] != "info"]
