"""Frequency stability: exact residencies derived by hand.

Part 1 uses fixtures/freq.pftrace (its schedule is fixtures/schedules.py freq();
W = "App Benchmark" = [500, 1500) ms after T0). Part 2 builds tiny traces for the
thresholds (known_share 0.99, throttle 1 %, stable null, sample at W's end).
"""

from __future__ import annotations

import pytest

import metric_traces as MT
from metric_traces import ClockRate, CpuFreq, CpuFreqLimits, SysStatsPoll, run, t

MS = 1_000_000
#: The frequency reasons' ids (the other checks have tests of their own).
FREQ_REASONS = ("cpufreq_", "memfreq_")


@pytest.fixture(scope="module")
def freq(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "freq.pftrace")
    return r


def _cpu(r, cpu):
    (e,) = [c for c in r["cpufreq"] if c["cpu"] == cpu]
    return e


def _dev(r, device):
    (e,) = [m for m in r["memfreq"] if m["device"] == device]
    return e


def test_window(freq):
    assert freq["window"] == {"start_ts": t(500), "end_ts": t(1500), "source": "app_benchmark"}
    # no --cpus: every CPU of the trace (CpuInfo lists 0-7)
    assert [c["cpu"] for c in freq["cpufreq"]] == list(range(8))


def test_cpufreq_value_carried_in(freq):
    c = _cpu(freq, 0)
    # samples: 1.0 GHz @100 (before W: carried in), 1.4 GHz @800, 1.0 GHz @1200
    # (sys_stats polls every 250 ms repeat the value in force).
    # 1.0 GHz: [500,800) 300 + [1200,1500) 300 = 600 ms; 1.4 GHz: [800,1200) 400 ms
    assert c["residency"] == {"1000000": 600 * MS, "1400000": 400 * MS}
    assert c["transitions"] == 2  # @800 and @1200
    assert (c["min"], c["max"], c["dominant"]) == (1_000_000, 1_400_000, 1_000_000)
    assert c["mean"] == pytest.approx((1.0e6 * 600 + 1.4e6 * 400) / 1000, rel=1e-12)  # 1.16e6
    assert c["dominant_residency"] == pytest.approx(0.6, rel=1e-12)
    assert c["known_share"] == pytest.approx(1.0, rel=1e-12)
    assert c["stable"] is False
    assert c["throttled"] is False  # never below its dominant 1.0 GHz; no limits on CPU 0
    assert (c["source"], c["unit"]) == ("cpufreq", "kHz")


def test_cpufreq_three_values(freq):
    c = _cpu(freq, 4)
    # 1.2 GHz from 0 (carried in): [500,600) 100; 1.6 GHz [600,1000) 400; 2.2 GHz [1000,1500) 500
    assert c["residency"] == {"1200000": 100 * MS, "1600000": 400 * MS, "2200000": 500 * MS}
    assert c["transitions"] == 2
    assert c["dominant"] == 2_200_000
    assert c["dominant_residency"] == pytest.approx(0.5, rel=1e-12)
    assert c["mean"] == pytest.approx((1.2e6 * 100 + 1.6e6 * 400 + 2.2e6 * 500) / 1000, rel=1e-12)
    # below the dominant 2.2 GHz for 500 ms, but no cap held it there (no
    # limits, LMh or cooling devices for CPU 4): the governor, not throttling
    assert (c["capped_by"], c["throttled"]) == ([], False)


def test_cpufreq_unknown_before_first_sample(freq):
    c = _cpu(freq, 7)
    # first sample 2.4 GHz @1000 (no sys_stats for CPU 7): [500,1000) unknown;
    # 2.4 GHz [1000,1250) 250 ms, 2.8 GHz [1250,1500) 250 ms
    assert c["residency"] == {"2400000": 250 * MS, "2800000": 250 * MS}
    assert c["known_share"] == pytest.approx(0.5, rel=1e-12)  # 500 / 1000
    # the first sample is not a change from a known value: only @1250 counts
    assert c["transitions"] == 1
    assert c["mean"] == pytest.approx(2.6e6, rel=1e-12)
    assert c["dominant_residency"] == pytest.approx(0.5, rel=1e-12)  # of *known* time
    assert c["stable"] is False


def test_cpufreq_stable_but_limit_throttled(freq):
    c = _cpu(freq, 6)
    # cpufreq 2.8 GHz throughout; max limit 2.4 GHz during [1100,1300): 200 ms below
    # the dominant 2.8 GHz (> 1 % of W) -> throttled, though the frequency never moved
    assert c["residency"] == {"2800000": 1000 * MS}
    assert (c["transitions"], c["stable"], c["throttled"]) == (0, True, True)
    for cpu, khz in [(1, 1_000_000), (2, 1_000_000), (3, 1_000_000), (5, 1_200_000)]:
        c = _cpu(freq, cpu)
        assert c["residency"] == {str(khz): 1000 * MS}
        assert (c["transitions"], c["stable"], c["throttled"]) == (0, True, False)
        assert c["known_share"] == pytest.approx(1.0, rel=1e-12)


def test_memfreq_series(freq):
    mif = _dev(freq, "17000010.devfreq_mif")  # clock_set_rate
    # 3 172 000 @0, 1 539 000 @700, 3 172 000 @1300:
    # 3 172 000: [500,700) 200 + [1300,1500) 200 = 400; 1 539 000: [700,1300) 600
    assert mif["residency"] == {"3172000": 400 * MS, "1539000": 600 * MS}
    assert (mif["transitions"], mif["is_memory"], mif["stable"]) == (2, True, False)
    assert mif["dominant"] == 1_539_000
    llcc = _dev(freq, "soc:qcom,cpu-cpu-llcc-bw")  # devfreq_frequency
    # 762 000 @100, 1 144 000 @900, 762 000 @1400:
    # 762 000: [500,900) 400 + [1400,1500) 100 = 500; 1 144 000: [900,1400) 500
    assert llcc["residency"] == {"762000": 500 * MS, "1144000": 500 * MS}
    assert (llcc["source"], llcc["transitions"], llcc["is_memory"]) == ("devfreq", 2, True)
    ddr = _dev(freq, "soc:qcom,cpu-llcc-ddr-bw")  # sys_stats devfreq polls every 250 ms
    # polls: 1 555 000 at 0..500, 2 092 000 at 750 and 1000, 1 555 000 from 1250:
    # 1 555 000: [500,750) 250 + [1250,1500) 250 = 500; 2 092 000: [750,1250) 500
    assert ddr["residency"] == {"1555000": 500 * MS, "2092000": 500 * MS}
    assert (ddr["transitions"], ddr["is_memory"]) == (2, True)
    # the other devices only with all_clocks
    assert sorted(m["device"] for m in freq["memfreq"]) == [
        "17000010.devfreq_mif", "soc:qcom,cpu-cpu-llcc-bw", "soc:qcom,cpu-llcc-ddr-bw"]


def test_other_devices_with_all_clocks(fixtures_dir):
    (freq,) = MT.analyze(fixtures_dir / "freq.pftrace", all_clocks=True)
    gpu = _dev(freq, "soc:qcom,gpubw")  # "bw" but also "gpu": not memory
    # 2288 @200, 5931 @1000: 500 ms each, one change inside W
    assert gpu["residency"] == {"2288": 500 * MS, "5931": 500 * MS}
    assert (gpu["transitions"], gpu["is_memory"]) == (1, False)
    # 5931 is below 10^4: neither a kHz nor an Hz clock (a bandwidth vote)
    assert gpu["unit"] is None
    bus = _dev(freq, "soc:qcom,kgsl-busmon")
    assert bus["residency"] == {"200000": 1000 * MS}
    assert (bus["transitions"], bus["is_memory"], bus["stable"]) == (0, False, True)


def test_mem_device_regex_replaces_rule(fixtures_dir):
    (r,) = MT.analyze(fixtures_dir / "freq.pftrace", mem_device="gpubw|busmon")
    mem = sorted(m["device"] for m in r["memfreq"] if m["is_memory"])
    assert mem == ["soc:qcom,gpubw", "soc:qcom,kgsl-busmon"]


def test_health_without_cpus_judges_memory_only(freq):
    # no --cpus: no cpufreq verdict; three memory series changed frequency
    reasons = [(x["id"], x["severity"], tuple(x["evidence"].get("devices", [])))
               for x in freq["health"]["reasons"] if x["id"].startswith(FREQ_REASONS)]
    assert sorted(reasons) == [
        ("memfreq_unstable", "fail", ("17000010.devfreq_mif",)),
        ("memfreq_unstable", "fail", ("soc:qcom,cpu-cpu-llcc-bw",)),
        ("memfreq_unstable", "fail", ("soc:qcom,cpu-llcc-ddr-bw",)),
    ]
    assert freq["health"]["verdict"] == "fail"


# ---------------------------------------------------------------------------
# thresholds on a tiny trace: W = [100, 1100) (1000 ms), trace [0, 1200]
# ---------------------------------------------------------------------------

G = 1_000_000  # 1 GHz in kHz


def threshold_schedule():
    f = [
        CpuFreq(t(0), 0, G), CpuFreq(t(1200), 0, G),        # known all of W, constant
        CpuFreq(t(110), 1, G),                              # known 990/1000 = 0.99
        CpuFreq(t(111), 2, G),                              # known 989/1000
        CpuFreq(t(1150), 3, G),                             # first sample after W's end
        CpuFreq(t(1100), 4, G),                             # first sample exactly at W's end
        CpuFreq(t(0), 5, 2_800_000), CpuFreq(t(500), 5, 2_400_000), CpuFreq(t(510), 5, 2_800_000),
        CpuFreq(t(0), 6, 2_800_000), CpuFreq(t(500), 6, 2_400_000), CpuFreq(t(511), 6, 2_800_000),
        CpuFreq(t(0), 7, 2_800_000),
    ]
    # CPUs 5 and 6 are held at 2.4 GHz by their max-frequency limit while
    # they run at it; CPU 7's limit drops to 2.0 GHz for 20 ms.
    lim = [CpuFreqLimits(t(0), 7, 500_000, 2_800_000), CpuFreqLimits(t(600), 7, 500_000, 2_000_000),
           CpuFreqLimits(t(620), 7, 500_000, 2_800_000)]
    lim += [CpuFreqLimits(t(ms), c, 500_000, khz) for c, back in ((5, 510), (6, 511))
            for ms, khz in ((0, 2_800_000), (500, 2_400_000), (back, 2_800_000))]
    return MT.tiny("freq_tiny", 1200, runs=[run(6, 200, 300, MT.MAIN)], cpufreq=sorted(
        f, key=lambda x: (x.ts, x.cpu)), cpufreq_limits=lim)


@pytest.fixture(scope="module")
def thresholds(tmp_path_factory):
    path = MT.write(threshold_schedule(), tmp_path_factory.mktemp("freq"))
    (r,) = MT.analyze(path, cpus="0-7", window="+100ms:+1100ms")
    return r


def test_known_share_threshold(thresholds):
    c0, c1, c2 = (_cpu(thresholds, c) for c in (0, 1, 2))
    assert (c0["known_share"], c0["stable"]) == (pytest.approx(1.0), True)
    # 990 / 1000 = 0.99 >= 0.99 -> stable
    assert c1["known_share"] == pytest.approx(0.99, rel=1e-12)
    assert c1["residency"] == {"1000000": 990 * MS}
    assert c1["stable"] is True
    # 989 / 1000 < 0.99 -> not stable, though it never changed
    assert c2["known_share"] == pytest.approx(0.989, rel=1e-12)
    assert (c2["transitions"], c2["stable"]) == (0, False)


def test_stable_null_only_without_any_sample_by_window_end(thresholds):
    c3 = _cpu(thresholds, 3)  # first sample at 1150 > W's end: nothing known
    assert c3["stable"] is None
    assert c3["residency"] == {}
    c4 = _cpu(thresholds, 4)  # a sample at exactly W's end: "at or before" -> judged
    assert c4["residency"] == {}
    assert c4["stable"] is False


def test_throttle_threshold_is_strictly_more_than_one_percent(thresholds):
    c5, c6, c7 = (_cpu(thresholds, c) for c in (5, 6, 7))
    # CPU 5: capped at 2.4 GHz for [500,510) = 10 ms = exactly 1 % of W -> not throttled
    assert c5["residency"] == {"2400000": 10 * MS, "2800000": 990 * MS}
    assert (c5["transitions"], c5["dominant"], c5["throttled"]) == (2, 2_800_000, False)
    assert c5["mean"] == pytest.approx((2.8e6 * 990 + 2.4e6 * 10) / 1000, rel=1e-12)
    # CPU 6: capped 11 ms below the dominant 2.8 GHz -> throttled
    assert (c6["transitions"], c6["throttled"]) == (2, True)
    assert c6["capped_by"] == [{"source": "cpu_max_limit", "device": None, "min": 2_400_000,
                                "ns": 11 * MS}]
    # CPU 7: frequency constant, max limit 2.0 GHz for [600,620) 20 ms -> throttled
    assert (c7["transitions"], c7["stable"], c7["throttled"]) == (0, True, True)


def test_threshold_health_reasons(thresholds):
    got = sorted((x["id"], x["severity"], tuple(x["evidence"].get("cpus", [])))
                 for x in thresholds["health"]["reasons"] if x["id"].startswith(FREQ_REASONS))
    assert got == [
        ("cpufreq_missing", "warn", (3,)),
        ("cpufreq_throttled", "fail", (6,)),
        ("cpufreq_throttled", "fail", (7,)),
        ("cpufreq_unstable", "fail", (2,)),
        ("cpufreq_unstable", "fail", (4,)),
        ("cpufreq_unstable", "fail", (5,)),
        ("cpufreq_unstable", "fail", (6,)),
        ("memfreq_missing", "warn", ()),  # no memory series at all
    ]
    assert thresholds["health"]["verdict"] == "fail"


# ---------------------------------------------------------------------------
# sources are never merged
# ---------------------------------------------------------------------------


def _two_source_schedule():
    # The same device name reported by clock_set_rate (Hz) and by sys_stats
    # devfreq polling (kHz): two series. W = whole trace [0, 1000].
    clk = [ClockRate(t(0), "17000010.devfreq_mif", 3_172_000_000)]
    polls = [SysStatsPoll(t(ms), (), (("17000010.devfreq_mif", 3_172_000),)) for ms in (0, 500)]
    return MT.tiny("two_sources", 1000, runs=[run(6, 200, 300, MT.MAIN)],
                   clock_rates=clk, sys_stats=polls)


def test_same_device_two_sources_are_two_series(tmp_path):
    (r,) = MT.build_and_analyze(_two_source_schedule(), tmp_path)
    mif = [m for m in r["memfreq"] if m["device"] == "17000010.devfreq_mif"]
    # two constant series, each known over all of W and stable
    assert len(mif) == 2
    assert sorted(m["dominant"] for m in mif) == [3_172_000, 3_172_000_000]
    assert all(m["transitions"] == 0 and m["stable"] is True for m in mif)


def test_sys_stats_devfreq_unit_is_khz(fixtures_dir, freq):
    ddr = _dev(freq, "soc:qcom,cpu-llcc-ddr-bw")
    assert ddr["unit"] == "kHz"
    assert ddr["source"] != _dev(freq, "17000010.devfreq_mif")["source"]


def test_memory_series_without_sample_by_window_end_warns(tmp_path):
    # memory clock first set at 1150 ms, after W = [100, 1100) ends: stable null -> warn
    sch = MT.tiny("mem_late", 1200, runs=[run(6, 200, 300, MT.MAIN)],
                  clock_rates=[ClockRate(t(1150), MT.S.MIF, 3_172_000)])
    (r,) = MT.build_and_analyze(sch, tmp_path, window="+100ms:+1100ms")
    (m,) = r["memfreq"]
    assert (m["device"], m["is_memory"], m["stable"], m["residency"]) == (
        MT.S.MIF, True, None, {})
    assert [(x["id"], x["severity"], x["evidence"].get("devices")) for x in
            r["health"]["reasons"] if x["id"].startswith(FREQ_REASONS)] == [
        ("memfreq_missing", "warn", [MT.S.MIF])]
    assert r["health"]["verdict"] == "warn"


def test_change_exactly_at_window_start_is_not_a_transition(tmp_path):
    # CPU 6: 2.0 GHz from t(0), 2.8 GHz from t(200) = W's start, 2.4 GHz at
    # t(700). W = [200, 1000): the window starts on 2.8 GHz (no change inside
    # W at its start), then one change at 700.
    #   residency: 2.8 GHz [200, 700) = 500 ms; 2.4 GHz [700, 1000) = 300 ms
    #   transitions: 1 (only the sample at 700 is strictly inside W)
    sch = MT.tiny("edge_change", 1000, runs=[run(6, 100, 900, MT.MAIN)],
                  cpufreq=[CpuFreq(t(0), 6, 2_000_000), CpuFreq(t(200), 6, 2_800_000),
                           CpuFreq(t(700), 6, 2_400_000), CpuFreq(t(1000), 0, 1_000_000)])
    (r,) = MT.build_and_analyze(sch, tmp_path, cpus="6", window="+200ms:+1000ms")
    (c6,) = r["cpufreq"]
    assert c6["residency"] == {"2800000": 500 * MS, "2400000": 300 * MS}
    assert c6["transitions"] == 1
    # Only the starting value in W: stable.
    sch2 = MT.tiny("edge_change2", 1000, runs=[run(6, 100, 900, MT.MAIN)],
                   cpufreq=[CpuFreq(t(0), 6, 2_000_000), CpuFreq(t(200), 6, 2_800_000),
                            CpuFreq(t(1000), 0, 1_000_000)])
    (r2,) = MT.build_and_analyze(sch2, tmp_path, cpus="6", window="+200ms:+1000ms")
    assert r2["cpufreq"][0]["transitions"] == 0
    assert r2["cpufreq"][0]["stable"] is True
