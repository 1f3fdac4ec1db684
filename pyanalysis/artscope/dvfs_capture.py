"""The capture check's lines for the DVFS sources (artscope-dvfs): did the
perf counters sampled at context switches and the power rails arrive?"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

#: (line, fatal), as capture.py's findings.
Finding = tuple[str, bool]


def dvfs_findings(engine, config: "TraceConfig | None") -> list[Finding]:
    """One line per DVFS source the config asked for (linux.perf,
    android.power); none when it asked for neither. Never fatal: without
    counters the cycles are estimated, without rails the battery gives the
    device's energy."""
    asked = {ds.config.name for ds in config.data_sources} if config is not None else set()
    out: list[Finding] = []
    if "linux.perf" in asked:
        n, cpus = engine.query(
            "SELECT count(*) AS n, count(DISTINCT f.cpu) AS cpus FROM counter c "
            "JOIN perf_counter_track f ON f.id = c.track_id "
            "JOIN perf_counter_track tb ON tb.perf_session_id = f.perf_session_id "
            "AND tb.cpu = f.cpu AND tb.is_timebase AND tb.name GLOB 'sched?sched_switch*' "
            "WHERE NOT f.is_timebase AND f.name GLOB 'cpu-cycles*'").row(0)
        out.append((f"counters at context switches: {n} cycle samples on {cpus} CPUs "
                    "(dvfs_counters.sql)", False) if n else
                   ("counters at context switches: none arrived — traced_perf's counter "
                    "mode needs Android 15+ or a userdebug build; cycles will be "
                    "estimated from CPU time × frequency", False))
    if "android.power" in asked:
        rails, battery = engine.query(
            "SELECT (SELECT count(DISTINCT t.id) FROM counter_track t JOIN counter c "
            "ON c.track_id = t.id WHERE t.type = 'power_rails') AS rails, "
            "(SELECT count(*) FROM counter_track t WHERE t.name GLOB 'batt.*') AS battery").row(0)
        if rails:
            out.append((f"power rails: {rails} rails with samples (rail_energy.sql)", False))
        elif battery:
            out.append(("power rails: none (no on-device power monitor); the battery "
                        "counters give the device's energy", False))
        else:
            out.append(("power rails: none, and no battery counters — no energy for "
                        "this trace", False))
    return out
