"""The GC under DVFS: frequency of the GC's and the mutators' CPU time,
cycles (counted at context switches, or estimated) and energy (rails,
battery). Every expected value is worked out by hand from the schedule in
tests/dvfs_traces.py:

    CPU 6 (big)    MAIN [5,20)  HTD [20,50)  MAIN [60,90)
                   cpufreq 1 GHz from 0, 2 GHz from 30, 2.8 GHz from 70
    CPU 2 (little) pool worker [25,45)        cpufreq 600 MHz from 0
    CPU 4 (mid)    Worker-1 [40,80)           cpufreq 1.2 GHz from 50 (unknown before)
    GCs            HTD "Background ..." [22,48), MAIN "Alloc ..." [65,75)

GC time (gc.sql's: own thread in its GCs + the worker whole), 56 ms:
    HTD GC  [22,30) 8 ms @ 1 GHz, [30,48) 18 ms @ 2 GHz        (big)
    MAIN GC [65,70) 5 ms @ 2 GHz, [70,75) 5 ms @ 2.8 GHz        (big)
    pool    [25,45) 20 ms @ 600 MHz                             (little)
    Σ f·t = 8e6 + 36e6 + 10e6 + 14e6 + 12e6 kHz·ms = 80e6  ->  mean 80e6/56 kHz
Mutator time = app (135 ms) - GC (56 ms) = 79 ms, 10 ms of it (Worker-1
[40,50)) at an unknown frequency: 12.7% > the 1% tolerance -> null.
"""

from __future__ import annotations

import polars as pl
import pytest

import dvfs_traces as D
import metric_traces as MT
from metric_traces import MAIN, W1, ms, run

M = 1_000_000
#: (cpu, run start ms) -> (cycles, instructions) across that run
DELTAS = {(6, 5): (15 * M, 15 * M), (6, 20): (40 * M, 20 * M), (6, 60): (60 * M, 30 * M),
          (2, 25): (12 * M, 6 * M), (4, 40): (30 * M, 30 * M)}


def _analyze(tmp_path, *extra: bytes, name: str = "dvfs", **options):
    path = tmp_path / f"{name}.pftrace"
    path.write_bytes(D.build(D.schedule(name), *extra))
    (r,) = MT.analyze(path, **options)
    return r


def test_gc_frequency_with_a_change_inside_each_gc(tmp_path):
    d = _analyze(tmp_path)["dvfs"]
    gc = d["gc"]
    assert gc["cpu_ns"] == ms(56) and gc["unknown_ns"] == 0 and gc["unit"] == "kHz"
    assert gc["mean"] == pytest.approx(80e6 / 56)
    assert (gc["min"], gc["max"]) == (600_000, 2_800_000)
    assert gc["cycles_estimate"] == pytest.approx(80 * M)  # kHz × ns / 1e6
    by = {c["cluster"]: c for c in gc["by_cluster"]}
    assert [by[k]["cpu_ns"] for k in ("little", "mid", "big")] == [ms(20), 0, ms(36)]
    # big: (8e6 + 36e6 + 10e6 + 14e6) / 36
    assert by["big"]["freq_mean"] == pytest.approx(68e6 / 36)
    assert by["little"]["freq_mean"] == 600_000


def test_mutator_frequency_unknown_beyond_the_tolerance(tmp_path):
    d = _analyze(tmp_path)["dvfs"]
    mut = d["mutator"]
    assert mut["cpu_ns"] == ms(79) and mut["unknown_ns"] == ms(10)
    assert mut["mean"] is None and mut["min"] is None and mut["cycles_estimate"] is None
    assert "12.7%" in mut["reason"] and "CPU 4" in mut["reason"]
    by = {c["cluster"]: c for c in mut["by_cluster"]}
    # big: MAIN [5,20) + [60,65) + [75,90) and HTD [20,22) + [48,50) = 39 ms
    assert by["big"]["cpu_ns"] == ms(39) and by["mid"]["cpu_ns"] == ms(40)
    # big: 15 ms + 2 ms @ 1 GHz, 5 ms + 2 ms @ 2 GHz, 15 ms @ 2.8 GHz
    assert by["big"]["freq_mean"] == pytest.approx((17e6 + 14e6 + 42e6) / 39)
    assert by["mid"]["freq_mean"] is None  # 10 of its 40 ms unknown
    assert d["gc_to_mutator_freq_ratio"] is None


def test_mutator_frequency_known_in_a_window_after_the_first_sample(tmp_path):
    # W = [50, 100): mutators MAIN [60,65) @ 2 GHz, [75,90) @ 2.8 GHz,
    # Worker-1 [50,80) @ 1.2 GHz; GC MAIN [65,75): 5 ms @ 2 GHz, 5 @ 2.8 GHz
    d = _analyze(tmp_path, window="+50ms:+100ms")["dvfs"]
    mut, gc = d["mutator"], d["gc"]
    assert mut["cpu_ns"] == ms(50) and mut["unknown_ns"] == 0
    assert mut["mean"] == pytest.approx((10e6 + 42e6 + 36e6) / 50)
    assert (mut["min"], mut["max"]) == (1_200_000, 2_800_000)
    assert gc["mean"] == pytest.approx(2_400_000)
    assert d["gc_to_mutator_freq_ratio"] == pytest.approx(2_400_000 / (88e6 / 50))


def test_each_gc_event_has_its_frequency(tmp_path):
    r = _analyze(tmp_path)
    bg, fg = (e["dvfs"] for e in r["gc"]["events"])
    assert bg["freq_mean"] == pytest.approx((8e6 + 36e6) / 26)
    assert (bg["freq_min"], bg["freq_max"]) == (1_000_000, 2_000_000)
    assert bg["cpu_ns_by_cluster"] == {"little": 0, "mid": 0, "big": ms(26)}
    assert fg["freq_mean"] == pytest.approx(2_400_000)
    # no counters: cycles are the estimate, said so
    assert bg["cycles_estimate"] is True and bg["cycles"] == pytest.approx(44 * M)
    assert bg["instructions"] is None


def test_without_counters_cycles_are_estimates(tmp_path):
    c = _analyze(tmp_path)["dvfs"]["cycles"]
    assert c["source"] == "estimate" and c["estimate"] is True
    assert c["gc_cycles"] == pytest.approx(80 * M)
    # the app's time has 10 ms of 135 (7.4%) at an unknown frequency
    assert c["app_cycles"] is None and c["gc_cycles_share"] is None
    assert c["gc_cpi"] is None and "estimated" in c["reason"]


def test_counted_cycles_instructions_and_cpi(tmp_path):
    sch = D.schedule("counted")
    r = _analyze(tmp_path, D.perf_packets(D.counted_samples(sch, DELTAS)), name="counted")
    c = r["dvfs"]["cycles"]
    assert c["source"] == "counters" and c["estimate"] is False
    assert c["app_cycles"] == pytest.approx(157 * M)  # 15 + 40 + 60 + 12 + 30
    assert c["app_instructions"] == pytest.approx(101 * M)  # 15 + 20 + 30 + 6 + 30
    # GC: HTD's slice [20,50) is 26/30 in its GC, MAIN's [60,90) 10/30, the
    # worker's whole: 40·26/30 + 60·10/30 + 12 cycles, 20·26/30 + 30·10/30 + 6
    gc_cycles = 40 * M * 26 / 30 + 60 * M * 10 / 30 + 12 * M
    gc_instr = 20 * M * 26 / 30 + 30 * M * 10 / 30 + 6 * M
    assert c["gc_cycles"] == pytest.approx(gc_cycles)
    assert c["gc_cycles_share"] == pytest.approx(gc_cycles / (157 * M))
    assert c["gc_cpi"] == pytest.approx(gc_cycles / gc_instr)
    assert c["mutator_cpi"] == pytest.approx((157 * M - gc_cycles) / (101 * M - gc_instr))
    assert c["prorated_ns"] == ms(36) and c["missing_slices"] == c["wrapped_slices"] == 0
    threads = {t["name"]: t for t in c["threads"]}
    assert threads["HeapTaskDaemon"]["cycles"] == 40 * M
    assert threads["HeapTaskDaemon"]["cpi"] == 2.0
    assert threads["m.example.bench"]["cycles"] == 75 * M
    bg, fg = (e["dvfs"] for e in r["gc"]["events"])
    assert bg["cycles"] == pytest.approx(40 * M * 26 / 30) and bg["cycles_estimate"] is False
    assert fg["instructions"] == pytest.approx(10 * M)


def test_a_counter_wrap_and_a_missing_sample_are_said_not_guessed(tmp_path):
    # the cycle count resets to 5 at MAIN's switch-out at 90 (its slice
    # [60,90) wrapped), and Worker-1's switch-out at 80 has no sample
    sch = D.schedule("wrapped")
    samples = D.counted_samples(sch, DELTAS, missing=[(4, 80)], wraps={(6, 90): 5})
    r = _analyze(tmp_path, D.perf_packets(samples), name="wrapped")
    c = r["dvfs"]["cycles"]
    assert c["missing_slices"] == 1 and c["wrapped_slices"] == 1
    assert c["uncounted_ns"] == ms(40) + ms(30)
    assert c["app_cycles"] is None and c["gc_cycles"] is None
    assert "1 sched slice(s) without a counter sample" in c["reason"]
    assert "1 whose cycle count went down" in c["reason"]
    threads = {t["name"]: t for t in c["threads"]}
    assert threads["Worker-1"]["cycles"] is None and threads["Worker-1"]["missing_ns"] == ms(40)
    assert threads["HeapTaskDaemon"]["cycles"] == 40 * M  # its slices are fine
    bg, fg = (e["dvfs"] for e in r["gc"]["events"])
    assert bg["cycles"] == pytest.approx(40 * M * 26 / 30)
    assert fg["cycles"] is None  # inside the wrapped slice


RAILS = {"S4M_VDD_CPUCL2": [(0, 0), (50, 1000), (100, 3000)],  # cpu.big, µWs
         "VSYS_PWR_DISPLAY": [(10, 500), (90, 900)]}


def test_rail_energy_interpolated_at_a_window_cutting_the_samples(tmp_path):
    # W = [10, 90): cpu.big E(10) = 1000·10/50 = 200, E(90) = 1000 + 2000·40/50
    # = 2600 µWs -> 2400 µJ; display: samples at both edges, 900 - 500 = 400 µJ
    d = _analyze(tmp_path, D.rail_packets(RAILS), window="+10ms:+90ms")["dvfs"]
    e = d["energy"]
    assert e["source"] == "rails" and e["reason"] is None
    rails = {x["name"]: x for x in e["rails"]}
    assert rails["power.rails.cpu.big"]["energy_j"] == pytest.approx(2400e-6)
    assert rails["power.rails.display"]["energy_j"] == pytest.approx(400e-6)
    assert e["total_j"] == pytest.approx(2800e-6)
    # GC share of the big cluster (estimate, no counters): GC cycles there
    # 8e6 + 36e6 + 10e6 + 14e6 = 68e6 (kHz × ms) of all cycles there: CPU 6
    # busy 70 ms of W (MAIN [10,20), HTD [20,50), MAIN [60,90)) at its mean
    # frequency over W, (20 ms × 1 GHz + 40 × 2 + 20 × 2.8) / 80 = 1.95 GHz:
    # 136.5e6; CPU 7 never ran anything
    big = rails["power.rails.cpu.big"]
    assert big["cluster"] == "big" and big["gc_share"] == pytest.approx(68 / 136.5)
    assert big["gc_energy_j"] == pytest.approx(68 / 136.5 * 2400e-6)
    assert rails["power.rails.display"]["gc_share"] is None
    assert e["gc_cpu_j"] == pytest.approx(68 / 136.5 * 2400e-6)


def test_a_window_cutting_a_busy_slice_counts_its_part_inside(tmp_path):
    # W = [10, 80): CPU 6 busy MAIN [10,20) + HTD [20,50) + MAIN [60,80) = 60
    # ms at its mean frequency over W, (20 ms × 1 GHz + 40 × 2 + 10 × 2.8) /
    # 70 = 128/70 GHz; the GC's cycles there are still 68e6 (kHz × ms);
    # cpu.big E(80) = 1000 + 2000·30/50 = 2200 µWs, E(10) = 200
    d = _analyze(tmp_path, D.rail_packets(RAILS), window="+10ms:+80ms")["dvfs"]
    big = {x["name"]: x for x in d["energy"]["rails"]}["power.rails.cpu.big"]
    assert big["energy_j"] == pytest.approx(2000e-6)
    assert big["gc_share"] == pytest.approx(68 / (60 * 128 / 70))


def test_rail_samples_not_covering_the_window_leave_the_total_unknown(tmp_path):
    e = _analyze(tmp_path, D.rail_packets(RAILS))["dvfs"]["energy"]  # W = [0, 100)
    rails = {x["name"]: x for x in e["rails"]}
    assert rails["power.rails.cpu.big"]["energy_j"] == pytest.approx(3000e-6)
    assert rails["power.rails.display"]["energy_j"] is None  # first sample at 10
    assert e["total_j"] is None and "power.rails.display" in e["reason"]
    display = rails["power.rails.display"]
    assert display["covered_ns"] == ms(80) and display["covered_j"] == pytest.approx(400e-6)
    # mean power over the covered parts: 3000 µJ / 100 ms + 400 µJ / 80 ms
    assert e["mean_power_w"] == pytest.approx(0.03 + 0.005)


#: cpu.big's cumulative energy drops between 40 and 60 ms (the monitor reset)
RESET_RAILS = {"S4M_VDD_CPUCL2": [(0, 0), (40, 800), (60, 100), (100, 900)],
               "VSYS_PWR_DISPLAY": [(0, 100), (100, 600)]}


def test_a_rail_reset_inside_the_window_leaves_its_energy_unknown(tmp_path):
    # W = [10, 90): cpu.big's samples spanning W (0, 40, 60, 100 ms) go down
    # once; display: E(10) = 100 + 500·10/100 = 150, E(90) = 550 -> 400 µJ
    e = _analyze(tmp_path, D.rail_packets(RESET_RAILS), window="+10ms:+90ms")["dvfs"]["energy"]
    rails = {x["name"]: x for x in e["rails"]}
    big, display = rails["power.rails.cpu.big"], rails["power.rails.display"]
    assert big["resets"] == 1
    assert big["energy_j"] is None and big["covered_j"] is None and big["mean_power_w"] is None
    assert big["gc_energy_j"] is None and e["gc_cpu_j"] is None
    # the sums over rails leave none out: unknown with it
    assert e["mean_power_w"] is None and e["gc_cpu_mean_power_w"] is None
    assert display["resets"] == 0 and display["energy_j"] == pytest.approx(400e-6)
    assert e["total_j"] is None
    assert "went down inside the window for 1 rail(s) (power.rails.cpu.big)" in e["reason"]
    assert "do not cover" not in e["reason"]


def test_a_rail_reset_before_the_samples_spanning_the_window_does_not_count(tmp_path):
    # cpu.big drops from 500 to 0 at 5 ms, before W = [10, 90) (its samples
    # spanning W: 5, 50, 100 ms): E(10) = 1000·5/45, E(90) = 1000 + 2000·40/50
    rails = {"S4M_VDD_CPUCL2": [(0, 500), (5, 0), (50, 1000), (100, 3000)]}
    e = _analyze(tmp_path, D.rail_packets(rails), window="+10ms:+90ms")["dvfs"]["energy"]
    (big,) = e["rails"]
    assert big["resets"] == 0 and e["reason"] is None
    assert big["energy_j"] == pytest.approx((2600 - 1000 * 5 / 45) * 1e-6)


@pytest.mark.tp
def test_rail_resets_on_both_engines(tp_bin, tmp_path):
    from test_parity import assert_parity

    path = tmp_path / "reset.pftrace"
    path.write_bytes(D.build(D.schedule("dvfs"), D.rail_packets(RESET_RAILS)))
    assert_parity("rail_energy", path, tp_bin=tp_bin, window="+10ms:+90ms")


def test_rails_without_a_cpu_rail_say_why_the_gc_share_is_unknown(tmp_path):
    # only the display rail: its energy over W = [10, 90) is 900 - 500 µJ
    rails = {"VSYS_PWR_DISPLAY": [(10, 500), (90, 900)]}
    e = _analyze(tmp_path, D.rail_packets(rails), window="+10ms:+90ms")["dvfs"]["energy"]
    assert e["total_j"] == pytest.approx(400e-6) and e["gc_cpu_j"] is None
    assert e["reason"].startswith("no rail powers a CPU cluster of this trace")


def test_battery_gives_the_energy_without_rails(tmp_path):
    # |I·V| = 0.5 A × 4 V = 2 W over [0,50), 0.6 A × 4 V = 2.4 W over [50,100)
    e = _analyze(tmp_path, D.battery_packets([(0, -500_000, 4_000_000),
                                               (50, -600_000, 4_000_000)]))["dvfs"]["energy"]
    assert e["source"] == "battery" and e["rails"] == []
    assert e["total_j"] == pytest.approx(2 * 0.05 + 2.4 * 0.05)
    assert "battery" in e["reason"]


def test_no_power_data_is_null_with_a_reason(tmp_path):
    e = _analyze(tmp_path)["dvfs"]["energy"]
    assert e["source"] is None and e["total_j"] is None and "artscope-dvfs" in e["reason"]


def test_without_sched_everything_is_null(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "no_sched.pftrace")
    d = r["dvfs"]
    assert d["gc"] is None and d["mutator"] is None and "sched" in d["reason"]
    assert d["cycles"]["source"] is None and d["cycles"]["gc_cycles"] is None


def _counted_with_rails() -> bytes:
    sch = D.schedule("parity")
    samples = D.counted_samples(sch, DELTAS, missing=[(4, 80)], wraps={(6, 90): 5})
    return D.build(sch, D.perf_packets(samples), D.rail_packets(RAILS),
                   D.battery_packets([(0, -500_000, 4_000_000), (50, -600_000, 4_000_000)]))


@pytest.mark.tp
@pytest.mark.parametrize("metric", ["dvfs_gc_time", "dvfs_app_time", "dvfs_cpu_busy",
                                    "dvfs_counters", "rail_energy", "results"])
def test_both_engines_give_the_same_numbers(tp_bin, tmp_path, metric):
    from test_parity import assert_parity

    path = tmp_path / "parity.pftrace"
    path.write_bytes(_counted_with_rails())
    assert_parity(metric, path, tp_bin=tp_bin, app=MT.APP, window="+10ms:+90ms")


@pytest.mark.tp
def test_counter_and_rail_tracks_are_imported_as_trace_processor_does(tp_diffs):
    diffs, compared = tp_diffs(_counted_with_rails())
    for table in ("perf_counter_track", "counter", "counter_track", "track"):
        assert table in compared and table not in diffs, (table, diffs.get(table))


def _busy_and_churning(tmp_path):
    """CPU 2: MAIN in ten 2 ms slices [3k+1, 3k+3) for k = 0..9, cpufreq
    1 GHz from 0 and 2 GHz from 5 (inside the slice [4,6)): many slices, one
    change. CPU 4: Worker-1 [10,30) and [50,60), cpufreq 1 GHz from 0,
    2 GHz from 15, 1 GHz from 20, 3 GHz from 25, 1 GHz from 55: few slices,
    many changes. Window: the whole trace [0, 100)."""
    runs = [run(2, 3 * k + 1, 3 * k + 3, MAIN) for k in range(10)]
    runs += [run(4, 10, 30, W1), run(4, 50, 60, W1)]
    freq = [(2, 0, 1_000_000), (2, 5, 2_000_000), (4, 0, 1_000_000), (4, 15, 2_000_000),
            (4, 20, 1_000_000), (4, 25, 3_000_000), (4, 55, 1_000_000), (4, 100, 1_000_000)]
    sch = MT.tiny("churn", 100, threads=(MAIN, W1), runs=runs,
                  cpufreq=[D.CpuFreq(D.t(a), c, khz) for c, a, khz in freq])
    return MT.write(sch, tmp_path)


def test_app_time_by_frequency_on_a_busy_cpu_and_on_a_churning_one(tmp_path):
    from artscope.metrics.options import AnalysisOptions
    from test_parity import run_on

    path = _busy_and_churning(tmp_path)
    # CPU 2: 10 slices for 1 interval lookup (read per interval); CPU 4: 2
    # slices for 4 (read in one pass)
    slices = run_on("embedded", "target_cpu_time", path, AnalysisOptions(app=MT.APP))
    assert sorted(slices.group_by("cpu").agg(pl.col("slices").sum()).rows()) == [(2, 10), (4, 2)]
    rows = run_on("embedded", "dvfs_app_time", path, AnalysisOptions(app=MT.APP))
    got = {(c, f): ns for c, f, ns in rows.select("cpu", "freq_khz", "ns").iter_rows()}
    assert got == {
        # CPU 2: [1,3) and [4,5) at 1 GHz; [5,6) and eight more slices at 2 GHz
        (2, 1_000_000): ms(3), (2, 2_000_000): ms(1 + 8 * 2),
        # CPU 4: [10,15) + [20,25) + [55,60) at 1 GHz, [15,20) at 2 GHz,
        # [25,30) + [50,55) at 3 GHz
        (4, 1_000_000): ms(15), (4, 2_000_000): ms(5), (4, 3_000_000): ms(10)}


@pytest.mark.tp
def test_app_time_by_frequency_on_both_engines(tp_bin, tmp_path):
    from test_parity import assert_parity

    assert_parity("dvfs_app_time", _busy_and_churning(tmp_path), tp_bin=tp_bin, app=MT.APP)


REAL = [("perfskills-api32_startup_warm.perfetto-trace", dict(app="com.google.android.gms.persistent")),
        ("gtechoogle-mytrace.html", dict(pid=8704)),
        ("trappy-surfaceflinger.html", dict(app="surfaceflinger"))]


@pytest.mark.tp
@pytest.mark.slow
@pytest.mark.parametrize("trace,options", REAL, ids=[t for t, _ in REAL])
def test_real_traces_on_both_engines(tp_bin, shared_traces, trace, options):
    """Real phones' traces (sched and cpufreq, no counters, no rails): the
    DVFS files agree on both engines, and the split by frequency adds up to
    gc.sql's CPU times."""
    import artscope
    from test_parity import assert_parity

    path = shared_traces / trace
    for metric in ("dvfs_gc_time", "dvfs_app_time", "dvfs_cpu_busy", "dvfs_counters",
                   "rail_energy"):
        assert_parity(metric, path, tp_bin=tp_bin, **options)
    with artscope.open(str(path), engine="embedded", **options) as rs:
        for r in rs.results:
            d, gc = r["dvfs"], r["gc"]
            if gc["gc_cpu_ns"] is None:  # trappy: no dalvik category, GCs unknown
                assert d["gc"] is None and "dalvik" in d["reason"]
            else:
                assert d["gc"]["cpu_ns"] == gc["gc_cpu_ns"]
                assert d["gc"]["cpu_ns"] + d["mutator"]["cpu_ns"] == gc["app_cpu_ns"]
            assert d["cycles"]["source"] == "estimate"
            energy = d["energy"]
            if trace.startswith("perfskills"):
                # a Pixel 6a's 16 ODPM rails, sampled from +438 ms to +2044 ms
                # of the 2.149 s trace (read with trace_processor_shell):
                # cpu.big 646,152,210 -> 646,264,391 µWs over those 1.606 s
                rails = {x["name"]: x for x in energy["rails"]}
                assert energy["source"] == "rails" and len(rails) == 16
                big = rails["power.rails.cpu.big"]
                assert big["energy_j"] is None and big["covered_ns"] == 1_606_000_000
                assert big["covered_j"] == pytest.approx((646_264_391 - 646_152_210) / 1e6)
                assert energy["total_j"] is None and "covered" in energy["reason"]
            else:
                assert energy["source"] is None


def test_a_window_without_gc_time_has_zero_gc_cycles(tmp_path):
    # W = [50, 60): only Worker-1 runs (CPU 4 at 1.2 GHz); no GC overlaps W
    d = _analyze(tmp_path, window="+50ms:+60ms")["dvfs"]
    assert d["gc"]["cpu_ns"] == 0 and d["gc"]["mean"] is None
    assert d["gc"]["reason"] == "no such CPU time in the window"
    c = d["cycles"]
    assert c["gc_cycles"] == 0 and c["app_cycles"] == pytest.approx(12 * M)
    assert c["gc_cycles_share"] == 0


@pytest.mark.parametrize("extra,lines", [
    # 9 context switches on CPUs 2, 4 and 6, one sample missing (CPU 4 at 80)
    (lambda sch: [D.perf_packets(D.counted_samples(sch, DELTAS, missing=[(4, 80)])),
                  D.rail_packets(RAILS)],
     ["counters at context switches: 8 cycle samples on 3 CPUs (dvfs_counters.sql)",
      "power rails: 2 rails with samples (rail_energy.sql)"]),
    (lambda sch: [D.battery_packets([(0, -500_000, 4_000_000)])],
     ["counters at context switches: none arrived — traced_perf's counter mode needs "
      "Android 15+ or a userdebug build; cycles will be estimated from CPU time × frequency",
      "power rails: none (no on-device power monitor); the battery counters give the "
      "device's energy"]),
    (lambda sch: [],
     ["counters at context switches: none arrived — traced_perf's counter mode needs "
      "Android 15+ or a userdebug build; cycles will be estimated from CPU time × frequency",
      "power rails: none, and no battery counters — no energy for this trace"]),
])
def test_the_capture_check_says_whether_counters_and_rails_arrived(load_embedded, extra, lines):
    from artscope import configs
    from artscope.dvfs_capture import dvfs_findings

    sch = D.schedule("capture")
    engine = load_embedded(D.build(sch, *extra(sch)))
    dvfs_config = configs.parse_config(configs.render_config("artscope-dvfs"))
    assert dvfs_findings(engine, dvfs_config) == [(line, False) for line in lines]
    # a config that asked for neither gets no line
    assert dvfs_findings(engine, configs.parse_config(configs.render_config("artscope-light"))) == []
