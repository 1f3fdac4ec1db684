"""Numbers -> a verdict (pass | warn | fail) and the reasons behind it.

Implements SPEC "Health". Each reason is {id, severity, message, expected,
actual, evidence, start_ts, end_ts}; evidence names threads, CPUs, devices and
absolute time ranges (trace ns), and messages give times relative to the
window start for reading. ``start_ts``/``end_ts`` (absolute trace ns) are the
range to look at -- what `artscope open --reason ID` shows in the Perfetto UI:
the evidence's time range when the reason has one (off-mask CPU time), else
the run's window, since the other checks judge the window as a whole.
"""

from __future__ import annotations

from typing import Any

from artscope.metrics.options import HealthThresholds

SEVERITY_ORDER = {"pass": 0, "warn": 1, "fail": 2}


def _config_for(requirement: str) -> str:
    from artscope.configs import config_for

    try:
        return f"perfetto-configs/{config_for(requirement)}.pbtxt"
    except Exception:  # a missing config must never break a verdict
        return "perfetto-configs/artscope-full.pbtxt"


def _s(ns: int | float) -> str:
    """A duration for reading: 1.57 s, 24 ms, 300 ns."""
    if abs(ns) >= 1e8:
        return f"{ns / 1e9:.3g} s"
    if abs(ns) >= 1e5:
        return f"{ns / 1e6:.3g} ms"
    if abs(ns) >= 1e3:
        return f"{ns / 1e3:.3g} us"
    return f"{int(ns)} ns"


def _rel(ts: int, w_start: int) -> str:
    """A time relative to the window start, as the Perfetto UI shows it."""
    dt = ts - w_start
    return f"+{dt / 1e9:.3f} s" if abs(dt) >= 1e6 else f"+{_s(dt)}"


def _cpus(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


def _reason(id_: str, severity: str, message: str, expected: Any, actual: Any,
            evidence: dict[str, Any] | None, span: tuple[int, int]) -> dict[str, Any]:
    return {"id": id_, "severity": severity, "message": message,
            "expected": expected, "actual": actual, "evidence": evidence or {},
            "start_ts": span[0], "end_ts": span[1]}


def _gc_unfinished_reasons(result: dict[str, Any],
                           window: tuple[int, int]) -> list[dict[str, Any]]:
    """A GC still running at the trace end: its length is cut by the trace."""
    out = []
    for e in result["gc"].get("events") or []:
        if e.get("unfinished"):
            out.append(_reason(
                "gc_unfinished", "warn",
                f"GC \"{e['name']}\" at {_rel(e['ts'], window[0])} was still running at "
                f"the trace end; counted as {_s(e['dur'])} (as Perfetto's stdlib counts "
                "it) — end the trace after the benchmark's last GC",
                "every GC finished", "unfinished",
                {"tids": [e["tid"]], "time_ranges": [[e["ts"], e["ts"] + e["dur"]]]},
                (e["ts"], max(e["ts"] + e["dur"], e["ts"] + 1))))
    return out


def _gc_pause_reasons(result: dict[str, Any],
                      window: tuple[int, int]) -> list[dict[str, Any]]:
    """GC pause times unknown although the run has GCs (no phase slices)."""
    g = result["gc"]
    if g.get("pause_count") is not None or not g.get("events"):
        return []
    return [_reason(
        "gc_pauses_unknown", "warn",
        "the app's GC slices hold no phase slices (ThreadListFlip, Suspending mutator "
        "threads, (Paused)…): pause times and MMU are unknown — capture the dalvik "
        f"atrace category, where ART traces its GC phases ({_config_for('gc')})",
        "GC phase slices inside GC slices", None, None, window)]


def _memory_pressure_reasons(result: dict[str, Any], th: HealthThresholds,
                             window: tuple[int, int]) -> list[dict[str, Any]]:
    """memory_pressure (warn): the target reclaimed memory itself for more than
    a share of its CPU time, or kswapd took more than a share of W on the
    allowed CPUs."""
    mem = result.get("memory") or {}
    w_start = window[0]
    out = []
    share = mem.get("direct_reclaim_share")
    if share is not None and share > th.direct_reclaim_share_warn:
        threads = mem.get("direct_reclaim_threads") or []
        first, last = mem["direct_reclaim_first_ts"], mem["direct_reclaim_last_end_ts"]
        top = ", ".join(f"{t['name']} ({_s(t['direct_reclaim_ns'])})" for t in threads[:3])
        out.append(_reason(
            "memory_pressure", "warn",
            f"the app's threads spent {_s(mem['direct_reclaim_ns'])} in direct reclaim "
            f"({share * 100:.1f}% of its CPU time; {top}) between {_rel(first, w_start)} "
            f"and {_rel(last, w_start)} — free memory first (stop background apps, drop "
            "caches) or give the app a larger heap margin",
            f"direct_reclaim_share <= {th.direct_reclaim_share_warn}", share,
            {"threads": [{"tid": t["tid"], "name": t["name"],
                          "direct_reclaim_ns": t["direct_reclaim_ns"]} for t in threads],
             "time_ranges": [[first, last]]}, (first, last)))
    kshare = mem.get("kswapd_allowed_share")
    if kshare is not None and kshare > th.kswapd_allowed_share_warn:
        allowed = sorted(set(result["pinning"].get("allowed_cpus") or [])
                         | set(result["pinning"].get("gc_allowed_cpus") or []))
        out.append(_reason(
            "memory_pressure", "warn",
            f"kswapd ran {_s(mem['kswapd_allowed_cpu_ns'])} on the allowed CPUs "
            f"{_cpus(allowed)} ({kshare * 100:.1f}% of the window; "
            f"{_s(mem['kswapd_cpu_ns'])} on all CPUs) — the system was short of memory: "
            "free memory before the run",
            f"kswapd_allowed_share <= {th.kswapd_allowed_share_warn}", kshare,
            {"threads": [{"name": "kswapd", "cpu_ns": mem["kswapd_allowed_cpu_ns"]}],
             "cpus": allowed, "time_ranges": [[window[0], window[1]]]}, window))
    return out


def _lmk_kill_reasons(result: dict[str, Any],
                      window: tuple[int, int]) -> list[dict[str, Any]]:
    """lmk_kill: fail when the target was killed in W (low-memory or OOM
    killer), warn when another process was."""
    kills = (result.get("memory") or {}).get("kills") or []
    if not kills:
        return []
    w_start = window[0]
    mine = [k for k in kills if k["is_target"]]
    severity = "fail" if mine else "warn"
    shown = mine or kills
    named = ", ".join(f"{k['process'] or '<unknown>'} (pid {k['pid']}, {k['source']}) at "
                      f"{_rel(k['ts'], w_start)}" for k in shown[:5])
    more = len(shown) - min(len(shown), 5)
    if mine:
        msg = (f"the app was killed to free memory: {named}"
               + (f" and {more} more" if more > 0 else "")
               + " — the run is cut short: free memory or lower the heap size")
    else:
        msg = (f"{len(kills)} other process{'es were' if len(kills) != 1 else ' was'} killed "
               f"to free memory during the run: {named}"
               + (f" and {more} more" if more > 0 else "")
               + " — the system was short of memory: stop background apps")
    first, last = min(k["ts"] for k in shown), max(k["ts"] for k in shown)
    return [_reason(
        "lmk_kill", severity, msg, "no process killed in the window", len(shown),
        {"processes": [{"pid": k["pid"], "name": k["process"], "ts": k["ts"],
                        "source": k["source"], "is_target": k["is_target"]} for k in kills],
         "time_ranges": [[k["ts"], k["ts"]] for k in shown]},
        (first, max(last, first + 1)))]


def evaluate(result: dict[str, Any], th: HealthThresholds,
             partial: bool = False, data_loss: list[dict[str, Any]] | None = None,
             import_warnings: list[str] | None = None) -> dict[str, Any]:
    """Verdict and reasons for one run's result dict (SPEC JSON shape)."""
    reasons: list[dict[str, Any]] = []
    w = result["window"]
    w_start, w_end = w["start_ts"], w["end_ts"]
    window = (w_start, w_end)
    pin = result["pinning"]
    allowed = pin.get("allowed_cpus")

    # -- pinning ----------------------------------------------------------
    if allowed is not None:
        if pin.get("off_mask_cpu_ns") is None:
            reasons.append(_reason(
                "pinning_unchecked", "warn",
                "no scheduling data: cannot check that the app stayed on CPUs "
                f"{_cpus(allowed)} — capture with {_config_for('pinning')}",
                "sched_switch events", None, None, window))
        else:
            off = pin["off_mask_cpu_ns"]
            share = pin.get("off_mask_share")
            if off > th.off_mask_ns_warn:
                bad = [t for t in pin.get("threads", []) if t["off_mask_cpu_ns"] > 0]
                bad_cpus = sorted({c for t in bad for c in t["cpus"]} - set(allowed))
                first, last = pin["first_violation_ts"], pin["last_violation_end_ts"]
                fail = share is not None and share > th.off_mask_share_fail
                msg = (f"{len(bad)} thread{'s' if len(bad) != 1 else ''} ran "
                       f"{_s(off)} ({(share or 0) * 100:.2f}% of app CPU) on CPUs "
                       f"{_cpus(bad_cpus)} outside the allowed {_cpus(allowed)}, "
                       f"between {_rel(first, w_start)} and {_rel(last, w_start)}")
                if first - w_start < (w_end - w_start) * 0.5 and last - w_start < (w_end - w_start) * 0.5:
                    msg += (f" — pinning took effect late (at {_rel(last, w_start)}): "
                            "apply the mask to the app's PID after it starts, not the launcher")
                else:
                    msg += (" — something reset the mask during the run (the app's own "
                            "sched_setaffinity or a cgroup move): re-apply it or "
                            f"record {_config_for('pinning_evidence')} to see who")
                if pin.get("evidence"):
                    named = [f"{e['kind']} of tid {e['tid']} at {_rel(e['ts'], w_start)}"
                             + (f" (to {e['detail']})" if e.get("detail") else "")
                             for e in pin["evidence"][:5]]
                    more = len(pin["evidence"]) - len(named)
                    msg += "; seen: " + ", ".join(named) + (f" and {more} more" if more > 0 else "")
                ev = {"threads": [{"tid": t["tid"], "name": t["name"],
                                   "off_mask_cpu_ns": t["off_mask_cpu_ns"]} for t in bad],
                      "cpus": bad_cpus, "time_ranges": [[first, last]]}
                if pin.get("evidence"):
                    ev["events"] = pin["evidence"]
                reasons.append(_reason(
                    "off_mask_cpu", "fail" if fail else "warn", msg,
                    f"off_mask_share <= {th.off_mask_share_fail}" if fail
                    else "no off-mask CPU time", share if fail else off, ev, (first, last)))
            ishare = pin.get("interference_share")
            if ishare is not None and ishare > th.interference_share_warn:
                top = pin.get("top_interferers", [])
                names = ", ".join(f"{t['name']} ({_s(t['cpu_ns'])})" for t in top[:3])
                reasons.append(_reason(
                    "interference", "warn",
                    f"other threads used {ishare * 100:.1f}% of the allowed CPUs "
                    f"{_cpus(sorted(set(allowed) | set(pin.get('gc_allowed_cpus') or [])))}"
                    f" (top: {names}) — stop background work or isolate the cores",
                    f"interference_share <= {th.interference_share_warn}", ishare,
                    {"processes": top, "cpus": allowed,
                     "time_ranges": [[w_start, w_end]]}, window))

    # -- CPU frequency ------------------------------------------------------
    if allowed is not None:
        for c in result["cpufreq"]:
            if c["cpu"] not in set(allowed) | set(pin.get("gc_allowed_cpus") or []):
                continue
            if c["stable"] is None:
                reasons.append(_reason(
                    "cpufreq_missing", "warn",
                    f"no CPU frequency data for CPU {c['cpu']} — capture with "
                    f"{_config_for('cpufreq')}", "cpufreq samples", None,
                    {"cpus": [c["cpu"]]}, window))
            elif c["stable"] is False:
                reasons.append(_reason(
                    "cpufreq_unstable", "fail",
                    f"CPU {c['cpu']} frequency changed {c['transitions']} times "
                    f"(known {c['known_share'] * 100:.0f}% of the window, "
                    f"{c['min']}–{c['max']} kHz) — fix scaling_min_freq = scaling_max_freq "
                    "below the thermal limit",
                    "no transitions, known_share >= "
                    f"{th.stable_known_share}",
                    {"transitions": c["transitions"], "known_share": c["known_share"]},
                    {"cpus": [c["cpu"]], "time_ranges": [[w_start, w_end]]}, window))
            if c.get("throttled"):
                reasons.append(_reason(
                    "cpufreq_throttled", "fail",
                    f"CPU {c['cpu']} ran below its dominant {c['dominant']} kHz for more "
                    f"than {th.throttle_share * 100:.0f}% of the window (thermal or "
                    "power limit) — lower the fixed frequency or cool the device",
                    "not throttled", True, {"cpus": [c["cpu"]]}, window))

    # -- memory frequency ------------------------------------------------------
    mem = [m for m in result["memfreq"] if m["is_memory"]]
    if not mem:
        reasons.append(_reason(
            "memfreq_missing", "warn",
            "no memory-controller frequency data — capture with "
            f"{_config_for('memfreq')}", "a memory devfreq or clock series", None, None,
            window))
    for m in mem:
        if m["stable"] is False:
            reasons.append(_reason(
                "memfreq_unstable", "fail",
                f"memory controller ({m['device']}) changed frequency "
                f"{m['transitions']} times (known {m['known_share'] * 100:.0f}% of the "
                "window) — set its devfreq governor to performance",
                f"no transitions, known_share >= {th.stable_known_share}",
                {"transitions": m["transitions"], "known_share": m["known_share"]},
                {"devices": [m["device"]], "time_ranges": [[w_start, w_end]]}, window))
        elif m["stable"] is None:
            reasons.append(_reason(
                "memfreq_missing", "warn",
                f"memory controller ({m['device']}) has no sample by the window end — "
                f"capture with {_config_for('memfreq')} (sys_stats devfreq polling)",
                "a sample at or before the window end", None,
                {"devices": [m["device"]]}, window))

    # -- data loss -------------------------------------------------------------
    if data_loss:
        what = ", ".join(f"{d['name']}[{d['idx']}]={d['value']}" if d["idx"] is not None
                         else f"{d['name']}={d['value']}" for d in data_loss)
        reasons.append(_reason(
            "data_loss", "warn",
            f"the trace lost events ({what}) — use bigger buffers or a lighter config "
            f"({_config_for('gc')})", "no data loss", data_loss, None, window))
    if partial:
        detail = "; ".join(import_warnings or []) or "the trace is truncated or corrupt"
        reasons.append(_reason(
            "partial_trace", "warn",
            f"{detail} — numbers cover only the intact part",
            "a complete trace", "partial", None, window))

    reasons += _gc_unfinished_reasons(result, window)
    reasons += _gc_pause_reasons(result, window)
    reasons += _memory_pressure_reasons(result, th, window)
    reasons += _lmk_kill_reasons(result, window)

    verdict = "pass"
    for r in reasons:
        if SEVERITY_ORDER[r["severity"]] > SEVERITY_ORDER[verdict]:
            verdict = r["severity"]
    return {"verdict": verdict, "reasons": reasons}
