"""Numbers -> a verdict (pass | warn | fail) and the reasons behind it.

Implements docs/metrics.md "Health". Each reason is {id, severity, message, expected,
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
from artscope.units import format_frequency, format_frequency_range

SEVERITY_ORDER = {"pass": 0, "info": 0, "warn": 1, "fail": 2}


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
                f"the trace end; counted to it ({_s(e['dur'])}; its CPU time only as far as "
                "its CPU's data reaches) — end the trace after the benchmark's last GC",
                "every GC finished", "unfinished",
                {"tids": [e["tid"]], "time_ranges": [[e["ts"], e["ts"] + e["dur"]]]},
                (e["ts"], max(e["ts"] + e["dur"], e["ts"] + 1))))
    return out


def _gc_pause_reasons(result: dict[str, Any],
                      window: tuple[int, int]) -> list[dict[str, Any]]:
    """GC pause times unknown although the run has GCs (no phase slices), or
    known only as an upper bound (thread flips without inner markers)."""
    g = result["gc"]
    if g.get("pause_count") is not None:
        upper = [p for e in g.get("events") or [] for p in e.get("pauses") or []
                 if p["bound"] == "upper"]
        if not upper:
            return []
        return [_reason(
            "gc_pause_upper_bound", "info",
            f"{len(upper)} GC pause(s) ({', '.join(_rel(p['ts'], window[0]) for p in upper[:5])}"
            f"{', ...' if len(upper) > 5 else ''}) are whole ThreadListFlip slices without the "
            "markers that show where ART resumes the app: the pause is at most that long "
            "(ART registers less, and pause percentiles and MMU are pessimistic) — a trace "
            "with ART's phase slices (the dalvik atrace category of a newer ART) shows it",
            "flip markers (flip callback, ResumeRunnableThreads, Resuming mutator threads)",
            len(upper), {"time_ranges": [[p["ts"], p["ts"] + p["dur"]] for p in upper]},
            window)]
    if not g.get("events"):
        return []
    return [_reason(
        "gc_pauses_unknown", "info",
        "the app's GC slices hold no phase slices (ThreadListFlip, Suspending mutator "
        "threads, (Paused)…): pause times and MMU are unknown — ART before Android 8 "
        "does not trace its GC phases; newer ART does with the dalvik atrace category "
        f"({_config_for('gc')})",
        "GC phase slices inside GC slices", None, None, window)]


# -- unknown headline metrics ----------------------------------------------------

def _unknown_reasons(result: dict[str, Any], captured: dict[str, bool],
                     window: tuple[int, int]) -> list[dict[str, Any]]:
    """Why a headline metric (GC share and count, off-mask share, migrations,
    jank) is unknown, one reason per cause; frequency series say it in their
    own reasons. A target with no CPU in its window fails: nothing it measured
    is a benchmark."""
    gc, pin, jank = result["gc"], result["pinning"], result["jank"]
    out = []
    if gc.get("app_cpu_ns") is None:
        judged = " and pinning" if pin.get("allowed_cpus") is not None else ""
        out.append(_reason(
            "sched_missing", "warn",
            "no scheduling data in the trace: the app's CPU time, GC CPU share, "
            f"migrations{judged} are unknown — capture sched/sched_switch with "
            f"{_config_for('pinning')}", "sched_switch events", None, None, window))
    elif gc["app_cpu_ns"] == 0:
        out.append(_reason(
            "no_app_cpu", "fail",
            f"the app ({result['process'].get('name') or 'pids ' + ','.join(map(str, result['process'].get('pids') or []))}) "
            "used no CPU in the window: it did not run, so nothing here measures it — "
            "check --app / --pid and the run window (artscope apps TRACE lists the "
            "processes by CPU)", "app CPU time > 0", 0,
            {"pids": result["process"].get("pids") or []}, window))
    if gc.get("gc_count") is None:
        out.append(_reason(
            "gc_missing", "warn",
            "no GC slices in the trace (ART's atrace category dalvik was not recorded, "
            "or the app is not debuggable/profileable): GC CPU share and count are unknown "
            f"— capture with {_config_for('gc')}", "ART '... GC' slices", None, None,
            window))
    if pin.get("allowed_cpus") is None and gc.get("app_cpu_ns"):
        out.append(_reason(
            "pinning_unchecked", "warn",
            "no allowed CPUs given: pinning and the CPUs' frequency stability are not "
            "judged — pass --cpus (e.g. --cpus big, or the CPUs the app was pinned to)",
            "--cpus", None, None, window))
    if jank.get("draws_on") and jank.get("frames") is None:
        out.append(_reason(
            "jank_unknown", "warn",
            f"the app draws its frames on threads of its own "
            f"({_ENGINES[jank['draws_on']]}): Choreographer#doFrame on its main thread does not "
            "time them, so jank is unknown — record the frame timeline (Android 12+) with "
            f"{_config_for('jank')}", "frames timed where the app draws them", None,
            {"draws_on": jank["draws_on"]}, window))
    elif jank.get("source") == "none" or not jank.get("frames"):
        if captured.get("frames"):
            out.append(_reason(
                "jank_not_applicable", "info",
                "the app drew no frames in the window (a headless benchmark?): jank does "
                "not apply", "frames of the app", 0, None, window))
        else:
            out.append(_reason(
                "jank_missing", "warn",
                "no frame data in the trace: jank is unknown — capture the frame timeline "
                f"(Android 12+) or atrace gfx/view with {_config_for('jank')}",
                "frame timeline or Choreographer#doFrame slices", None, None, window))
    return out


#: Engines that draw an app's frames on threads of their own (frame_source.sql).
_ENGINES = {"flutter": "Flutter's ui and raster threads", "unity": "Unity's UnityMain and "
            "graphics threads", "unreal": "Unreal's GameThread and RHIThread",
            "gl_thread": "a GLSurfaceView's GLThread"}
#: Where a Choreographer frame deadline came from, for reading.
_DEADLINE_FROM = {
    "option": "--frame-deadline",
    "frame_timeline": "the apps' frame deadline in the trace's frame timeline",
    "vsync": "the vsync period of SurfaceFlinger's VSYNC counters",
    "assumed": "assumed: a 60 Hz vsync, as the trace shows no refresh rate — pass "
               "--frame-deadline if the display ran faster",
}


def _jank_reasons(jank: dict[str, Any], window: tuple[int, int]) -> list[dict[str, Any]]:
    """Choreographer jank states its deadline and where it came from."""
    if jank.get("source") != "choreographer" or jank.get("frames") is None:
        return []
    hz = f" ({jank['refresh_hz']:g} Hz display)" if jank.get("refresh_hz") else ""
    return [_reason(
        "jank_deadline", "info",
        f"janky frames: Choreographer#doFrame with its RenderThread DrawFrame longer than "
        f"{_s(jank['frame_deadline_ns'])}{hz} — {_DEADLINE_FROM[jank['deadline_source']]}",
        "a frame deadline", jank["frame_deadline_ns"],
        {"deadline_source": jank["deadline_source"]}, window)]


def _cpus_reasons(pin: dict[str, Any], window: tuple[int, int]) -> list[dict[str, Any]]:
    """A cluster keyword resolved from inferred evidence names the clusters
    and the evidence; CPUs the evidence could not place are named."""
    from artscope.metrics.topology import INFERRED_SOURCES, SOURCE_TEXT, cpu_ranges

    source = pin.get("cpus_source")
    allowed = pin.get("allowed_cpus") or []
    clusters = pin.get("clusters") or []
    listed = ", ".join(cpu_ranges(c) for c in clusters)
    out = []
    if source in INFERRED_SOURCES:
        out.append(_reason(
            "cpus_inferred", "warn",
            f"the trace has no CPU capacities, frequency tables or frequency limits: clusters "
            f"{listed} (littlest first) were ranked by {SOURCE_TEXT[source]}, so the allowed "
            f"CPUs {_cpus(allowed)} are a guess — record linux.system_info "
            f"({_config_for('pinning')}), or name the CPUs the app was pinned to (--cpus "
            f"{cpu_ranges(allowed)} if these are right)", "CPU capacities or available frequencies",
            source, {"clusters": clusters, "cpus": allowed}, window))
    unplaced = pin.get("unplaced_cpus") or []
    if unplaced and source not in (None, "list"):
        many = len(unplaced) > 1
        by = SOURCE_TEXT.get(pin.get("clusters_source") or "", "the evidence")
        out.append(_reason(
            "cpus_unplaced", "warn",
            f"CPU{'s' if many else ''} {cpu_ranges(unplaced)} could not be placed in a cluster "
            f"({by} place only {listed}), so the allowed CPUs {_cpus(allowed)} leave "
            f"{'them' if many else 'it'} out — name the CPUs to include them",
            "every CPU placed", unplaced, {"cpus": unplaced, "clusters": clusters}, window))
    return out


# -- pinning -----------------------------------------------------------------------

def _event_text(events: list[dict[str, Any]], w_start: int) -> str:
    """Affinity evidence for reading: "cgroup_attach_task of tid 7663 at
    +0.488 s (to /top-app)"."""
    return ", ".join(f"{e['kind']} of tid {e['tid']} at {_rel(e['ts'], w_start)}"
                     + (f" (to {e['detail']})" if e.get("detail") else "") for e in events)


def pinning_advice(pin: dict[str, Any], w_start: int) -> str | None:
    """The diagnosis of a run's off-mask time in words (CLI, report, notebooks).
    A story (late, lost) is told only with what shows it: an affinity or
    cgroup event, or a long stretch on the allowed CPUs holding a
    substantial part of the app's CPU; otherwise no mask was seen."""
    from artscope.metrics.compute import PINNED_STRETCH_MIN_NS, PINNED_STRETCH_SHARE

    diagnosis = pin.get("diagnosis")
    if diagnosis is None:
        return None
    if diagnosis == "no_mask_seen":
        return ("no mask seen: nothing in the trace shows the app pinned (no stretch of "
                f"{_s(PINNED_STRETCH_MIN_NS)} or more on the allowed CPUs only holding "
                f"{PINNED_STRETCH_SHARE * 100:.0f}% of its CPU so far, no sched_setaffinity or "
                "cgroup move where it moved onto or off them) — to pin it, apply the mask to "
                "the app's PID after it starts (taskset -p / sched_setaffinity on every "
                "thread), not to the launcher")
    st = pin["pinned_stretch"]
    on = f"{_s(st['end_ts'] - st['start_ts'])}" + (
        f", {st['cpu_share'] * 100:.0f}% of its CPU so far" if st["substantial"] else "")
    before = [e for e in st["events"] if e["ts"] <= st["start_ts"]]
    after = [e for e in st["events"] if e["ts"] > st["start_ts"]]
    at = _rel(pin["diagnosis_ts"], w_start)
    if diagnosis == "pinned_late":
        text = (f"pinning took effect late (at {at}"
                + (f", after {_event_text(before, w_start)}" if before else "")
                + f": off the allowed CPUs until then, then on them only for {on}) — apply the "
                "mask as soon as the app starts (about 1 s after start, or the framework resets "
                "it) or start the window later (--pin-grace)")
        if pin.get("relapse_ts") is not None:
            text += (f"; then off them again from {_rel(pin['relapse_ts'], w_start)}"
                     + (f", after {_event_text(after, w_start)}" if after else ""))
        return text
    who = (f"{_event_text(after, w_start)} reset it" if after else
           "something reset it (the app's own sched_setaffinity or a cgroup move): record "
           f"{_config_for('pinning_evidence')} to see who")
    return (f"the mask was lost at {at}: the app ran only on the allowed CPUs until then "
            f"({on}) — {who}; re-apply it")


def _off_mask_reasons(pin: dict[str, Any], th: HealthThresholds,
                      window: tuple[int, int]) -> list[dict[str, Any]]:
    w_start = window[0]
    off, share, allowed = pin["off_mask_cpu_ns"], pin.get("off_mask_share"), pin["allowed_cpus"]
    if off <= th.off_mask_ns_warn:
        return []
    bad = [t for t in pin.get("threads", []) if t["off_mask_cpu_ns"] > 0]
    bad_cpus = sorted({c for t in bad for c in t["cpus"]} - set(allowed))
    first, last = pin["first_violation_ts"], pin["last_violation_end_ts"]
    fail = share is not None and share > th.off_mask_share_fail
    msg = (f"{len(bad)} thread{'s' if len(bad) != 1 else ''} ran "
           f"{_s(off)} ({(share or 0) * 100:.2f}% of app CPU) on CPUs "
           f"{_cpus(bad_cpus)} outside the allowed {_cpus(allowed)}, "
           f"between {_rel(first, w_start)} and {_rel(last, w_start)}")
    advice = pinning_advice(pin, w_start)
    if advice:
        msg += " — " + advice
    told = (pin.get("pinned_stretch") or {}).get("events") or []
    others = [e for e in pin.get("evidence") or [] if e not in told]
    if others:
        more = len(others) - 5
        msg += ("; seen: " + _event_text(others[:5], w_start)
                + (f" and {more} more" if more > 0 else ""))
    ev: dict[str, Any] = {"threads": [{"tid": t["tid"], "name": t["name"],
                                       "off_mask_cpu_ns": t["off_mask_cpu_ns"]} for t in bad],
                          "cpus": bad_cpus, "time_ranges": [[first, last]],
                          "diagnosis": pin.get("diagnosis")}
    if pin.get("evidence"):
        ev["events"] = pin["evidence"]
    return [_reason(
        "off_mask_cpu", "fail" if fail else "warn", msg,
        f"off_mask_share <= {th.off_mask_share_fail}" if fail else "no off-mask CPU time",
        share if fail else off, ev, (first, last))]


def _interference_reasons(pin: dict[str, Any], th: HealthThresholds,
                          window: tuple[int, int]) -> list[dict[str, Any]]:
    ishare = pin.get("interference_share")
    if ishare is None or ishare <= th.interference_share_warn:
        return []
    allowed = pin["allowed_cpus"]
    top = pin.get("top_interferers", [])
    names = ", ".join(f"{t['name']} ({_s(t['cpu_ns'])})" for t in top[:3])
    return [_reason(
        "interference", "warn",
        f"other threads used {ishare * 100:.1f}% of the allowed CPUs "
        f"{_cpus(sorted(set(allowed) | set(pin.get('gc_allowed_cpus') or [])))}"
        f" (top: {names}) — stop background work or isolate the cores",
        f"interference_share <= {th.interference_share_warn}", ishare,
        {"processes": top, "cpus": allowed, "time_ranges": [list(window)]}, window)]


# -- frequency and data loss ------------------------------------------------------

def _freq_range(e: dict[str, Any]) -> str:
    return format_frequency_range(e.get("min"), e.get("max"), e.get("unit"))


def _instability(e: dict[str, Any]) -> str:
    """Why a series is not stable: its changes, or how little of W is known."""
    known = f"{(e.get('known_share') or 0) * 100:.0f}%"
    if e["transitions"]:
        times = "once" if e["transitions"] == 1 else f"{e['transitions']} times"
        return (f"changed {times} (known {known} of the window, "
                f"{_freq_range(e)})")
    zeros = e.get("zero_samples") or 0
    gap = (f"{zeros} samples read 0, unknown" if zeros
           else "unknown before its first sample")
    return (f"is known for only {known} of the window ({_freq_range(e)}; {gap})")


def _thermal_evidence(result: dict[str, Any], cooling: list[dict[str, Any]],
                      w_start: int) -> tuple[str, dict[str, Any]]:
    """What the trace shows of thermal throttling in the run: the hottest
    zones (conditions.thermal) and the cooling devices above state 0."""
    zones = [z for z in ((result.get("conditions") or {}).get("thermal") or [])
             if z.get("max_c") is not None]
    hot = sorted(zones, key=lambda z: -z["max_c"])[:3]
    active = [d for d in cooling if (d.get("max_state") or 0) > 0]
    if not hot and not active:
        return ("no thermal data in the trace (record thermal/thermal_temperature and "
                f"thermal/cdev_update: {_config_for('cpufreq_evidence')})"), {}
    parts = [f"zone {z['zone']} up to {z['max_c']:.1f} °C" for z in hot]
    parts += [f"cooling device {d['device']} at state {d['max_state']:g} from "
              f"{_rel(max(d['max_from_ts'], w_start), w_start)}" for d in active]
    if hot and not active and cooling:
        parts.append("every cooling device at state 0")
    ev = {"thermal_zones": [{"zone": z["zone"], "max_c": z["max_c"]} for z in hot],
          "cooling_devices": [{"device": d["device"], "max_state": d["max_state"],
                               "from_ts": max(d["max_from_ts"], w_start)} for d in active]}
    return "thermal evidence: " + ", ".join(parts), ev


#: What each frequency cap of compute._caps_below is, for reading.
_CAP_NAMES = {"cpu_max_limit": "the kernel's max-frequency limit",
              "cpu_throttle": "Qualcomm LMh (dcvsh_freq)",
              "cooling_device": "cooling device {device}"}


def _cap_text(cap: dict[str, Any], unit: str | None) -> str:
    """"the kernel's max-frequency limit capped it at 2 GHz for 0.3 s"."""
    name = _CAP_NAMES[cap["source"]].format(device=cap.get("device"))
    at = (f" at {format_frequency(cap['min'], unit)}" if cap.get("min") is not None
          else " (its frequency table unknown) while it ran below that")
    return f"{name} capped it{at} for {_s(cap['ns'])}"


def _cpufreq_reasons(result: dict[str, Any], th: HealthThresholds, cpus: set[int],
                     window: tuple[int, int],
                     cooling: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """cpufreq_missing / cpufreq_unstable / cpufreq_throttled of the judged CPUs."""
    w_start, w_end = window
    out = []
    for c in result["cpufreq"]:
        if c["cpu"] not in cpus:
            continue
        if c["stable"] is None:
            zeros = c.get("zero_samples") or 0
            why = (f"CPU {c['cpu']}'s frequency read 0 in all {zeros} samples (Perfetto "
                   "could not read it; an offline CPU reads 0): unknown"
                   if zeros else f"no CPU frequency data for CPU {c['cpu']}")
            out.append(_reason(
                "cpufreq_missing", "warn", f"{why} — capture with {_config_for('cpufreq')}",
                "cpufreq samples", None, {"cpus": [c["cpu"]]}, window))
        elif c["stable"] is False:
            why = ("a cap held it below its level (cpufreq_throttled)" if c.get("throttled")
                   else "no cap held it below its level: its governor scaled it — fix the "
                   "frequency (scaling_min_freq = scaling_max_freq, or the userspace governor "
                   "and scaling_setspeed) below the thermal limit")
            out.append(_reason(
                "cpufreq_unstable", "fail",
                f"CPU {c['cpu']} frequency {_instability(c)} — {why}",
                f"no transitions, known_share >= {th.stable_known_share}",
                {"transitions": c["transitions"], "known_share": c["known_share"]},
                {"cpus": [c["cpu"]], "time_ranges": [[w_start, w_end]]}, window))
        if c.get("throttled"):
            text, ev = _thermal_evidence(result, cooling or [], w_start)
            caps = "; ".join(_cap_text(k, c.get("unit")) for k in c["capped_by"])
            ev["capped_by"] = c["capped_by"]
            out.append(_reason(
                "cpufreq_throttled", "fail",
                f"CPU {c['cpu']} was capped below its dominant "
                f"{format_frequency(c['dominant'], c.get('unit'))} for more than "
                f"{th.throttle_share * 100:.0f}% of the window: {caps}; {text} — fix its "
                "frequency below the cap, or cool the device",
                "not throttled", True, {"cpus": [c["cpu"]], **ev}, window))
    return out


def _memfreq_reasons(result: dict[str, Any], th: HealthThresholds,
                     window: tuple[int, int]) -> list[dict[str, Any]]:
    """memfreq_missing / memfreq_unstable of the memory-controller series."""
    w_start, w_end = window
    mem = [m for m in result["memfreq"] if m["is_memory"]]
    if not mem:
        return [_reason(
            "memfreq_missing", "warn",
            "no memory-controller frequency data — capture with "
            f"{_config_for('memfreq')} (if the trace names its memory clock otherwise, "
            "--all-clocks lists every clock and --mem-device REGEX picks it)",
            "a memory devfreq or clock series", None, None, window)]
    by_device: dict[str, list[dict[str, Any]]] = {}
    for m in mem:
        by_device.setdefault(m["device"], []).append(m)
    out = []
    # one line per controller: a device seen through several sources (a
    # clock and sys_stats polling) is one controller
    for device, series in by_device.items():
        unstable = [m for m in series if m["stable"] is False]
        if unstable:
            name = f"memory controller ({device}, {'/'.join(m['source'] for m in unstable)})"
            changes = "; ".join((f"as {m['source']}: " if len(unstable) > 1 else "")
                                + _instability(m) for m in unstable)
            out.append(_reason(
                "memfreq_unstable", "fail",
                f"{name} frequency {changes} — set its devfreq governor to performance",
                f"no transitions, known_share >= {th.stable_known_share}",
                {"transitions": sum(m["transitions"] for m in unstable),
                 "known_share": min(m["known_share"] or 0 for m in unstable)},
                {"devices": [device], "time_ranges": [[w_start, w_end]]}, window))
        elif all(m["stable"] is None for m in series):
            m = series[0]
            zeros = m.get("zero_samples") or 0
            why = (f"read 0 in all {zeros} samples: Perfetto polls a devfreq node it "
                   "cannot read as 0, so its frequency is unknown — make its cur_freq "
                   "readable or record its clock_set_rate / devfreq events instead"
                   if zeros else "has no sample by the window end — capture with "
                   f"{_config_for('memfreq')} (sys_stats devfreq polling)")
            out.append(_reason(
                "memfreq_missing", "warn",
                f"memory controller ({device}, {'/'.join(x['source'] for x in series)}) {why}",
                "a sample at or before the window end", None,
                {"devices": [device]}, window))
    return out


#: ftrace events and atrace a headline metric reads: refusing one of them
#: loses that metric (warn); other refused events are an info line.
METRIC_EVENTS = frozenset({
    "sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup_new",
    "sched/sched_process_exit", "sched/sched_process_free", "task/task_newtask",
    "task/task_rename", "power/cpu_frequency", "power/cpu_frequency_limits",
    "power/clock_set_rate", "devfreq/devfreq_frequency", "dcvs/qcom_dcvs_update",
    "thermal/thermal_temperature", "thermal/cdev_update", "ftrace/print",
    "cgroup/cgroup_attach_task"})

#: data_loss.sql kinds -> (what was lost, the fix).
_LOSS_TEXT = {
    "ftrace_cpu_overrun": ("events the kernel's ftrace buffer overwrote before they were "
                           "read", "give ftrace bigger per-CPU buffers (buffer_size_kb) or a "
                           "shorter drain_period_ms"),
    "ftrace_cpu_commit_overrun": ("events lost while being written to the ftrace buffer",
                                  "give ftrace bigger per-CPU buffers (buffer_size_kb)"),
    "ftrace_cpu_dropped_events": ("events the kernel dropped (ftrace buffer full)",
                                  "give ftrace bigger per-CPU buffers (buffer_size_kb)"),
    "ftrace_cpu_has_data_loss": ("events (the kernel flagged lost events)",
                                 "give ftrace bigger per-CPU buffers (buffer_size_kb)"),
    "traced_buf_chunks_overwritten": ("chunks overwritten before they were read: the "
                                      "buffer wrapped and its oldest data is gone",
                                      "make the buffer bigger or the trace shorter"),
    "traced_buf_chunks_discarded": ("chunks discarded: the buffer was full and everything "
                                    "written after that is gone", "make the buffer bigger "
                                    "or use fill_policy RING_BUFFER"),
    "traced_buf_patches_failed": ("packets whose size patch failed (cut packets)",
                                  "make the buffer bigger"),
    "traced_buf_abi_violations": ("chunks a producer wrote against the protocol",
                                  "update the producer"),
    "traced_buf_trace_writer_packet_loss": ("packets a writer lost (its shared memory was "
                                            "full)", "raise shmem_size_hint_kb of the data "
                                            "source or lower its data rate"),
    "traced_buf_sequence_packet_loss": ("packets lost from a writer's sequence",
                                        "make the buffer bigger"),
    "traced_buf_incremental_sequences_dropped": ("writer sequences dropped (their "
                                                 "incremental state was lost)",
                                                 "make the buffer bigger"),
    "traced_final_flush_failed": ("the final flush did not complete: the producers' last "
                                  "data", "stop the trace later or raise "
                                  "data_source_stop_timeout_ms"),
    "traced_flushes_failed": ("flushes that did not complete: data still in the producers",
                              "raise flush_timeout_ms"),
}


def _loss_line(name: str, rows: list[dict[str, Any]]) -> tuple[str, str]:
    what, fix = _LOSS_TEXT.get(name, (name, "make the buffers bigger"))
    total = sum(int(r["value"]) for r in rows)
    if name.startswith("ftrace_cpu_"):
        where = "CPU " + ", ".join(str(r["idx"]) for r in rows)
        per = ", ".join(f"{int(r['value'])} on CPU {r['idx']}" for r in rows)
        return (f"{what}: {per if len(rows) > 1 else total} on {where} ({name}); its "
                "sched, frequency and atrace data has gaps", fix)
    if name.startswith("traced_buf_"):
        per = "; ".join(
            f"buffer {r['idx']}" + (f" ({int(r['buffer_size']) // 1024} KB)"
                                    if r.get("buffer_size") else "")
            + f": {int(r['value'])}" for r in rows)
        return f"{what} — {per} ({name})", fix
    return f"{what}: {total} ({name})", fix


def _data_loss_reasons(data_loss: list[dict[str, Any]], window: tuple[int, int],
                       result: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One data_loss reason per kind of loss the capture recorded, naming what
    is missing (CPUs, buffers, refused events)."""
    out = []
    setup = [d for d in data_loss if d["name"] == "ftrace_setup_errors"]
    stats = [d for d in data_loss if d["name"] != "ftrace_setup_errors"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for d in stats:
        by_name.setdefault(d["name"], []).append(d)
    for name, rows in by_name.items():
        text, fix = _loss_line(name, rows)
        ev: dict[str, Any] = {"stats": rows}
        if name.startswith("ftrace_cpu_"):
            ev["cpus"] = [r["idx"] for r in rows]
        elif name.startswith("traced_buf_"):
            ev["buffers"] = [r["idx"] for r in rows]
        out.append(_reason("data_loss", "warn", f"the trace lost {text} — {fix}",
                           "no data loss", {name: sum(int(r["value"]) for r in rows)},
                           ev, window))
    out += _setup_error_reasons(setup, window, _served_metrics(result or {}))
    return out


def _served_metrics(result: dict[str, Any]) -> set[str]:
    """The metrics with interchangeable sources (configs.INTERCHANGEABLE)
    whose data the run has: a known CPU frequency, a known memory controller."""
    served = set()
    if any(c.get("stable") is not None for c in result.get("cpufreq") or []):
        served.add("cpufreq")
    if any(m["is_memory"] and m.get("stable") is not None for m in result.get("memfreq") or []):
        served.add("memfreq")
    return served


def _names(items: list[str], n: int = 6) -> str:
    more = len(items) - n
    return ", ".join(items[:n]) + (f" and {more} more" if more > 0 else "")


def _not_device_specific(setup: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drops events a curated config lists for other SoC families (e.g. the
    bus_dcvs events on a Pixel): this kernel not having them is expected."""
    from artscope.configs import DEVICE_SPECIFIC

    return [d for d in setup if not (d.get("kind") == "unknown" and d.get("what") in DEVICE_SPECIFIC)]


def _setup_error_reasons(setup: list[dict[str, Any]], window: tuple[int, int],
                         served: set[str] = frozenset()) -> list[dict[str, Any]]:
    """Events and atrace categories the capture asked for and did not get:
    warn for what a metric reads, one info line for the rest — and for an
    event whose metric another source served (``served``) or that is only
    evidence (configs.EVIDENCE_ONLY)."""
    from artscope.configs import EVIDENCE_ONLY, INTERCHANGEABLE

    def stood_in(what: str) -> bool:
        req = f"ftrace:{what}"
        return req in EVIDENCE_ONLY or any(
            req in group for m in served for group in INTERCHANGEABLE.get(m, ()))

    setup = _not_device_specific(setup)
    if not setup:
        return []
    unnamed = [d for d in setup if d.get("what") is None]
    if unnamed:  # a trace_processor without import logs: only the count
        n = sum(int(d["value"]) for d in unnamed)
        return [_reason(
            "data_loss", "warn",
            f"{n} ftrace events or atrace categories failed to enable "
            "(ftrace_setup_errors; this trace_processor does not name them) — check "
            "the capture config against the device's kernel",
            "every configured event enabled", {"ftrace_setup_errors": n}, None, window)]
    out = []
    needed = [d for d in setup if d.get("kind") in ("failed", "unknown")
              and d["what"] in METRIC_EVENTS and not stood_in(d["what"])]
    atrace = [d for d in setup if d.get("kind") in ("atrace", "exclusive", "other")]
    rest = [d for d in setup if d not in needed and d not in atrace]
    if needed:
        refused = [d["what"] for d in needed if d["kind"] == "failed"]
        missing = [d["what"] for d in needed if d["kind"] == "unknown"]
        parts = []
        if refused:
            parts.append(f"the kernel refused to enable {_names(refused)}")
        if missing:
            parts.append(f"this kernel has no {_names(missing)}")
        out.append(_reason(
            "data_loss", "warn",
            f"{'; '.join(parts)} — the metrics that read them are missing from this "
            "trace (ftrace_setup_errors): record on a kernel that has them, or as root on "
            "a userdebug build", "every configured event enabled",
            {"ftrace_setup_errors": len(needed)},
            {"ftrace_events": [d["what"] for d in needed]}, window))
    for d in atrace:
        out.append(_reason(
            "data_loss", "warn",
            f"atrace failed: {d['what']} — GC slices and app markers that need it are "
            "missing (ftrace_setup_errors): check the categories and that the app is "
            "debuggable or profileable", "atrace enabled", {"ftrace_setup_errors": 1},
            {"atrace": d["what"]}, window))
    if rest:
        what = [d["what"] for d in rest]
        out.append(_reason(
            "data_loss", "info",
            f"{len(rest)} configured ftrace events were not enabled (unknown to this "
            f"kernel or refused: {_names(what)}); no metric lost its data by them: none "
            "reads them, or another source served it (ftrace_setup_errors)",
            "every configured event enabled", {"ftrace_setup_errors": len(rest)},
            {"ftrace_events": what}, window))
    return out



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
            {"reclaim_threads": [{"tid": t["tid"], "name": t["name"],
                                  "direct_reclaim_ns": t["direct_reclaim_ns"]}
                                 for t in threads],
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
            {"kswapd_allowed_cpu_ns": mem["kswapd_allowed_cpu_ns"],
             "kswapd_cpu_ns": mem["kswapd_cpu_ns"], "cpus": allowed,
             "time_ranges": [[window[0], window[1]]]}, window))
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
        {"killed": [{"pid": k["pid"], "name": k["process"], "ts": k["ts"],
                     "source": k["source"], "is_target": k["is_target"]} for k in kills],
         "time_ranges": [[k["ts"], k["ts"]] for k in shown]},
        (first, max(last, first + 1)))]


def _validity_reasons(result: dict[str, Any], th: HealthThresholds,
                      window: tuple[int, int]) -> list[dict[str, Any]]:
    """process_reused (warn): the run's first window on a process that started
    long before it; app_died (fail): the app exited, was killed with SIGKILL
    or threw OutOfMemoryError in the window (lmkd's and the OOM killer's
    kills are lmk_kill's)."""
    from artscope.metrics.validity import MEMORY_KILLS

    v = result.get("validity") or {}
    w_start = window[0]
    out = []
    if v.get("cold_start") is False and v.get("first_run_of_process"):
        lead = v.get("process_start_lead_ns")
        since = (f"started {_s(lead)} before the window" if lead is not None
                 else "was already running when the trace began")
        out.append(_reason(
            "process_reused", "warn",
            f"the app's process {since}, more than the {_s(th.cold_start_lead_ns)} a "
            "launch takes: the run reused a running process instead of starting the app "
            "fresh — kill the app before each invocation (ISMM'24 §3.4)",
            f"process start <= {_s(th.cold_start_lead_ns)} before the window",
            lead, {"pids": [v.get("pid")], "process_start_ts": v.get("process_start_ts")},
            window))
    if v.get("app_died") and v.get("died_how") not in MEMORY_KILLS:
        ts = v["died_ts"]
        out.append(_reason(
            "app_died", "fail",
            f"the app died in the window at {_rel(ts, w_start)}: {v['died_detail']} — the "
            "run did not finish: its numbers cover a cut-short run (at a small heap, the "
            "heap is below the benchmark's minimum)",
            "the app alive to the window's end", v["died_how"],
            {"how": v["died_how"], "time_ranges": [[ts, ts]]}, (ts, ts + 1)))
    return out


def evaluate(result: dict[str, Any], th: HealthThresholds,
             partial: bool = False, data_loss: list[dict[str, Any]] | None = None,
             import_warnings: list[str] | None = None,
             cooling: list[dict[str, Any]] | None = None,
             captured: dict[str, bool] | None = None) -> dict[str, Any]:
    """Verdict and reasons for one run's result dict (the JSON output's shape).

    ``data_loss``: data_loss.sql rows and the trace's ftrace setup errors
    (rows named ``ftrace_setup_errors`` with ``kind`` and ``what``);
    ``cooling``: the run's cooling_devices.sql rows (throttling evidence);
    ``captured``: which kinds of data the trace holds at all (``sched``,
    ``dalvik``, ``frames``: compute.Capture), to say why a metric is unknown."""
    reasons: list[dict[str, Any]] = []
    w = result["window"]
    w_start, w_end = w["start_ts"], w["end_ts"]
    window = (w_start, w_end)
    pin = result["pinning"]
    allowed = pin.get("allowed_cpus")

    reasons += _unknown_reasons(result, captured or {}, window)
    reasons += _jank_reasons(result["jank"], window)
    reasons += _cpus_reasons(pin, window)
    if allowed is not None and pin.get("off_mask_cpu_ns") is not None:
        reasons += _off_mask_reasons(pin, th, window)
        reasons += _interference_reasons(pin, th, window)

    # -- CPU and memory frequency, data loss ---------------------------------
    if allowed is not None:
        judged = set(allowed) | set(pin.get("gc_allowed_cpus") or [])
        reasons += _cpufreq_reasons(result, th, judged, window, cooling)
    elif not result["cpufreq"]:
        reasons.append(_reason(
            "cpufreq_missing", "warn",
            "no CPU frequency data in the trace: the CPUs' frequency stability is unknown — "
            f"capture with {_config_for('cpufreq')}", "cpufreq samples", None, None, window))
    reasons += _memfreq_reasons(result, th, window)
    reasons += _data_loss_reasons(data_loss or [], window, result)
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
    reasons += _validity_reasons(result, th, window)

    verdict = "pass"
    for r in reasons:
        if SEVERITY_ORDER[r["severity"]] > SEVERITY_ORDER[verdict]:
            verdict = r["severity"]
    return {"verdict": verdict, "reasons": reasons}
