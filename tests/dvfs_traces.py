"""Tiny traces for the DVFS metrics: CPU frequency under the GC's time, perf
counters recorded on context switches, power rails and battery counters.

The schedule (ms after T0, window the whole trace [0, 100)):

* CPU 6 (big): MAIN [5, 20), HeapTaskDaemon [20, 50), MAIN [60, 90);
  cpufreq 1 GHz from 0, 2 GHz from 30, 2.8 GHz from 70.
* CPU 2 (little): the heap thread pool worker [25, 45); cpufreq 600 MHz
  from 0.
* CPU 4 (mid): Worker-1 [40, 80); its first cpufreq sample, 1.2 GHz, at 50
  (frequency unknown before).
* GCs: "Background concurrent copying GC" on HeapTaskDaemon [22, 48) (the
  frequency changes inside it, at 30), "Alloc young concurrent copying GC"
  on MAIN [65, 75) (changes at 70).

Perf counters (``linux.perf`` with a ``sched/sched_switch`` tracepoint
timebase and cpu-cycles / instructions followers) are samples at context
switches with cumulative counts; each test passes the per-run deltas it
wants, so its expected numbers are the deltas it wrote. Power rails are
ODPM energy samples (cumulative µWs), battery samples a current / voltage
pair. Expected values are derived by hand in the tests, never from here.
"""

from __future__ import annotations

from typing import Iterable

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

from metric_traces import (HTD, MAIN, PID, POOL, W1, CpuFreq, M, Schedule, ms, run,  # noqa: F401
                           slice_, t, tiny)

BG_GC = "Background concurrent copying GC"
FG_GC = "Alloc young concurrent copying GC"
SEQ_PERF = 40
SEQ_POWER = 41

#: (cpu, start ms, end ms, tid) of the app's runs
RUNS = ((6, 5, 20, MAIN), (6, 20, 50, HTD), (6, 60, 90, MAIN), (2, 25, 45, POOL),
        (4, 40, 80, W1))
CPUFREQ = ((6, 0, 1_000_000), (6, 30, 2_000_000), (6, 70, 2_800_000), (2, 0, 600_000),
           (4, 50, 1_200_000), (6, 100, 2_800_000))


def schedule(name: str, end_ms: float = 100) -> Schedule:
    return tiny(
        name, end_ms, threads=(MAIN, HTD, POOL, W1),
        runs=[run(c, a, b, tid) for c, a, b, tid in RUNS],
        atrace=[*slice_(HTD, BG_GC, 22, 48), *slice_(MAIN, FG_GC, 65, 75)],
        cpufreq=[CpuFreq(t(a), c, khz) for c, a, khz in CPUFREQ])


def switches(sch: Schedule) -> dict[int, list[tuple[int, int]]]:
    """Per CPU, each context switch (ts, tid switched out) of the schedule,
    in time order (the leading idle run's start is no switch)."""
    out: dict[int, list[tuple[int, int]]] = {}
    for cpu in sch.used_cpus():
        runs = sch.cpu_runs(cpu)
        out[cpu] = [(b.ts, a.tid) for a, b in zip(runs, runs[1:])]
    return out


def perf_packets(samples: Iterable[tuple[int, int, int, int, int]],
                 timebase: str = "sched/sched_switch") -> bytes:
    """A ``linux.perf`` session: (ts, cpu, tid, cycles, instructions) samples
    with cumulative counts, a tracepoint timebase and cpu-cycles /
    instructions followers."""
    tr = pb.Trace()
    p = tr.packet.add(timestamp=t(0) - 1, trusted_packet_sequence_id=SEQ_PERF)
    p.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    d = p.trace_packet_defaults.perf_sample_defaults
    d.timebase.period = 1
    d.timebase.tracepoint.name = timebase
    d.followers.add(counter=pb.PerfEvents.HW_CPU_CYCLES)
    d.followers.add(counter=pb.PerfEvents.HW_INSTRUCTIONS)
    for n, (ts, cpu, tid, cycles, instructions) in enumerate(sorted(samples)):
        q = tr.packet.add(timestamp=ts, trusted_packet_sequence_id=SEQ_PERF)
        q.sequence_flags = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
        q.perf_sample.cpu = cpu
        q.perf_sample.pid = PID if tid else 0
        q.perf_sample.tid = tid
        q.perf_sample.timebase_count = n + 1
        q.perf_sample.follower_counts.extend([cycles, instructions])
    return tr.SerializeToString()


def counted_samples(sch: Schedule, deltas: dict[tuple[int, int], tuple[int, int]],
                    *, start: dict[int, int] | None = None,
                    missing: Iterable[tuple[int, int]] = (),
                    wraps: dict[tuple[int, int], int] | None = None
                    ) -> list[tuple[int, int, int, int, int]]:
    """One sample per context switch of ``sch``: the counts of each CPU start
    at ``start[cpu]`` (default 1e9) and grow by ``deltas[(cpu, run start
    ms)]`` (cycles, instructions) across that run (idle runs: 0); a switch in
    ``missing`` (cpu, ms) has no sample; at a switch in ``wraps`` the cycle
    count is reset to the given value (a counter wrap)."""
    out = []
    for cpu, sw in switches(sch).items():
        cycles = instructions = (start or {}).get(cpu, 1_000_000_000)
        runs = sch.cpu_runs(cpu)
        for (ts, tid), ran in zip(sw, runs):
            dc, di = deltas.get((cpu, _ms(ran.ts)), (0, 0)) if ran.tid else (0, 0)
            cycles += dc
            instructions += di
            key = (cpu, _ms(ts))
            if wraps and key in wraps:
                cycles = wraps[key]
            if key not in set(missing):
                out.append((ts, cpu, tid, cycles, instructions))
    return out


def _ms(ts: int) -> float:
    v = (ts - t(0)) / ms(1)
    return int(v) if float(v).is_integer() else v


def rail_packets(rails: dict[str, list[tuple[float, int]]]) -> bytes:
    """ODPM power rails: {raw rail name: [(ms, cumulative energy µWs)]}."""
    tr = pb.Trace()
    p = tr.packet.add(timestamp=t(0), trusted_packet_sequence_id=SEQ_POWER)
    names = list(rails)
    for i, name in enumerate(names):
        p.power_rails.rail_descriptor.add(index=i, rail_name=name, subsys_name="sys",
                                          sampling_rate=1000)
    for when in sorted({a for samples in rails.values() for a, _ in samples}):
        q = tr.packet.add(timestamp=t(when), trusted_packet_sequence_id=SEQ_POWER)
        for i, name in enumerate(names):
            for a, energy in rails[name]:
                if a == when:
                    q.power_rails.energy_data.add(index=i, energy=energy)
    return tr.SerializeToString()


def battery_packets(samples: Iterable[tuple[float, int, int]]) -> bytes:
    """Battery counters: (ms, current µA, voltage µV) samples."""
    tr = pb.Trace()
    for when, current_ua, voltage_uv in samples:
        p = tr.packet.add(timestamp=t(when), trusted_packet_sequence_id=SEQ_POWER)
        p.battery.current_ua = current_ua
        p.battery.voltage_uv = voltage_uv
    return tr.SerializeToString()


def build(sch: Schedule, *extra: bytes) -> bytes:
    """The schedule's trace with extra packets (serialized Trace messages)."""
    return M.build(sch) + b"".join(extra)
