"""Per-run conditions (levels against the highest, thermal, device and build,
UTC start) and heap work, on generated traces with and without REALTIME
snapshots, thermal data and the heap counter, and on a real trace; both
engines. Every expected value is derived by hand from the schedule.

The generated runs are fixtures/study_sets.py schedules, app pinned to CPUs
6,7 (``--cpus 6,7``); the window is the "App Benchmark" slice
[10 ms, 12 ms + max(mutator, gc) + 3 ms) = [10, 115) ms for mutator 100 ms.
"""

from __future__ import annotations

import json

import pytest

import metric_traces as MT
import study_sets as SS
from schedules import BIG_FREQS, MIF

import artscope
from artscope.metrics.conditions import HEAP_ABSENT, HEAP_NO_SAMPLE, device_model, utc_text

ENGINES = ["embedded", pytest.param("trace_processor", marks=pytest.mark.tp)]
APP = "com.example.bench"

#: Everything captured: the memory controller at MIF_HIGH at 0 ms, MIF_LOW
#: from 5 ms (steady through W); a REALTIME snapshot putting W's start 1.5 s
#: after STUDY_EPOCH_NS; heap samples 20,000 KB at 9 ms (holds at W's start),
#: 120,000 at 13 ms, 20,000 at 14 ms, 50,000 at 15 ms; zone cpu-big at 41.0 °C
#: from 5 ms, 43.5 at 11 ms, 47.25 at 20 ms and 50.0 at 200 ms (after W).
FULL = SS.StudyRun("full", "cmc", 2, 0, 100, 10, mif_hz=SS.MIF_LOW, started_at_s=1.5,
                   heap_kb=(20_000, 120_000, 20_000, 50_000),
                   thermal=((5, 41_000), (11, 43_500), (20, 47_250), (200, 50_000)),
                   fingerprint=SS.DEVICE_A)
#: Nothing extra: no snapshot, no thermal data, no heap counter, default device.
BARE = SS.StudyRun("bare", "cmc", 2, 0, 100, 10)


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    import make_fixtures as M

    d = tmp_path_factory.mktemp("conditions")
    out = {}
    for r in (FULL, BARE):
        path = d / r.file_name
        path.write_bytes(M.build(SS.schedule(r)))
        out[r.benchmark] = path
    return out


def _result(path, engine: str, request, **kw) -> dict:
    tp_bin = request.getfixturevalue("tp_bin") if engine == "trace_processor" else None
    with artscope.open(str(path), app=APP, cpus="6,7", engine=engine, tp_bin=tp_bin, **kw) as rs:
        assert len(rs.results) == 1
        MT.validate(rs.results)  # the shipped JSON Schema
        return rs.results[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_everything_captured(traces, engine, request):
    r = _result(traces["full"], engine, request)
    cond = r["conditions"]
    # 2024-01-01T00:00:00Z + 1.5 s
    assert cond["started_at"] == "2024-01-01T00:00:01.500000Z"
    assert cond["started_at_unix_ns"] == 1_704_067_201_500_000_000
    # google/bluejay/bluejay:13/...: brand/product/device -> bluejay
    assert cond["device"]["model"] == "bluejay"
    assert cond["device"]["build_fingerprint"] == SS.DEVICE_A
    assert cond["device"]["kernel_release"] == "5.10.157-android13-4-00001-g5e8a0b2d1c3f-ab10000000"
    assert cond["device"]["manufacturer"] is None
    # CPUs 6,7 are the big cluster (index 2 of little/mid/big), fixed at
    # 2.8 GHz from 0 ms, the highest frequency CpuInfo lists for them
    assert cond["clusters"] == [{"cluster": 2, "cpus": [6, 7], "unit": "kHz",
                                 "dominant": 2_800_000, "stable": True,
                                 "highest": max(BIG_FREQS), "at_max": True}]
    # the memory controller steady at MIF_LOW in W; the trace reached MIF_HIGH at 0 ms
    mem_entry = next(m for m in r["memfreq"] if m["device"] == MIF)
    assert cond["memory"] == [{"device": MIF, "source": "clock", "unit": mem_entry["unit"],
                               "dominant": SS.MIF_LOW, "stable": True,
                               "highest": SS.MIF_HIGH, "at_max": False}]
    # 41 °C holds at 10 ms; 43.5 and 47.25 inside W; 50 only after it
    assert cond["thermal"] == [{"zone": "cpu-big", "source": "thermal_temperature",
                                "start_c": 41.0, "max_c": 47.25}]
    # read samples 20,000 -> 120,000 -> 20,000 -> 50,000: rises 100,000 +
    # 30,000; falls 100,000; peak 120,000; three samples inside W
    heap = r["heap"]
    assert (heap["peak_kb"], heap["allocated_kb"], heap["freed_kb"], heap["samples"]) == (
        120_000, 130_000, 100_000, 3)
    assert "estimate" in heap["reason"]


@pytest.mark.parametrize("engine", ENGINES)
def test_nothing_extra_captured(traces, engine, request):
    r = _result(traces["bare"], engine, request)
    cond = r["conditions"]
    assert cond["started_at"] is None and cond["started_at_unix_ns"] is None
    assert cond["thermal"] is None
    # make_fixtures' default fingerprint google/bench/bench:13/...
    assert cond["device"]["model"] == "bench"
    # MIF_HIGH all along: the run held the highest level the trace shows
    assert [(m["dominant"], m["highest"], m["at_max"]) for m in cond["memory"]] == [
        (SS.MIF_HIGH, SS.MIF_HIGH, True)]
    assert r["heap"] == {"peak_kb": None, "allocated_kb": None, "freed_kb": None,
                         "samples": None, "reason": HEAP_ABSENT}


@pytest.mark.parametrize("engine", ENGINES)
def test_heap_counter_with_no_sample_before_the_window_ends(traces, engine, request):
    # W = the first 5 ms of the trace; the first heap sample is at 9 ms
    r = _result(traces["full"], engine, request, window="+0ms:+5ms")
    assert r["heap"]["peak_kb"] is None and r["heap"]["reason"] == HEAP_NO_SAMPLE
    # the snapshot at 1 ms maps trace time 0 to 1.5 s - 10 ms after the epoch
    assert r["conditions"]["started_at_unix_ns"] == 1_704_067_201_490_000_000


def test_flat_columns(traces, request):
    from artscope.flatschema import flatten

    row = flatten(_result(traces["full"], "embedded", request))
    assert row["cond_started_at"] == "2024-01-01T00:00:01.500000Z"
    assert row["cond_device_model"] == "bluejay"
    # the memory controller is below its highest: not every level at max
    assert row["cond_at_max"] is False
    assert row["cond_thermal_start_c"] == 41.0 and row["cond_thermal_max_c"] == 47.25
    assert row["heap_peak_kb"] == 120_000 and row["heap_allocated_kb"] == 130_000
    assert json.loads(row["cond_memory"])[0]["dominant"] == SS.MIF_LOW


def test_helpers():
    assert device_model("google/oriole/oriole:13/TQ1A/1:user/release-keys", None) == "oriole"
    assert device_model("google/oriole/oriole:13/TQ1A/1:user/release-keys", "Google") == \
        "Google oriole"
    assert device_model(None, None) is None
    # 1,661,546,315.293575464 s after the epoch = 2022-08-26 20:38:35 UTC
    assert utc_text(1_661_546_315_293_575_464) == "2022-08-26T20:38:35.293575Z"
    assert utc_text(None) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_real_trace(shared_traces, engine, request):
    """api32 (Pixel 6a 'bluejay'): REALTIME snapshot 0 is 1,661,546,315,447,306,792 ns
    at trace time 157,479,470,410,065; the target's 'Heap size (KB)' counter
    (pid 7663) peaks at 4,186 KB in the trace; no thermal data."""
    path = shared_traces / "perfskills-api32_startup_warm.perfetto-trace"
    tp_bin = request.getfixturevalue("tp_bin") if engine == "trace_processor" else None
    with artscope.open(str(path), app="androidx.benchmark.integration.macrobenchmark.target",
                       cpus="big", engine=engine, tp_bin=tp_bin) as rs:
        r = rs.results[0]
    cond = r["conditions"]
    start = r["window"]["start_ts"]
    assert cond["started_at_unix_ns"] == 1_661_546_315_447_306_792 + (start - 157_479_470_410_065)
    assert cond["device"]["model"] == "bluejay"
    assert cond["device"]["kernel_release"] == "5.10.107-android13-4-00011-g913113f05fa2-ab8919828"
    assert cond["thermal"] is None
    assert r["heap"]["peak_kb"] == 4186
    # the memory controller is the clock 17000010.devfreq_mif; its highest
    # rate in the trace is 3,172,000
    assert [(m["device"], m["highest"]) for m in cond["memory"]] == [(MIF, 3_172_000)]


def test_run_report_conditions_line(traces, request, tmp_path):
    from artscope.metrics.conditions import conditions_line
    from artscope.metrics.options import AnalysisOptions
    from artscope.report.html import write_report

    r = _result(traces["full"], "embedded", request)
    line = conditions_line(r)
    # 2.8 GHz = 2,800,000 kHz, the big cluster's highest; the memory
    # controller's unit comes from its memfreq entry (format_frequency)
    from artscope.units import format_frequency

    unit = r["conditions"]["memory"][0]["unit"]
    assert line == (f"bluejay, build {SS.DEVICE_A}, kernel "
                    "5.10.157-android13-4-00001-g5e8a0b2d1c3f-ab10000000; "
                    "started 2024-01-01 00:00:01 UTC; CPUs 6,7 at 2.8 GHz (the highest); "
                    f"{MIF} at {format_frequency(SS.MIF_LOW, unit)} (below the highest, "
                    f"{format_frequency(SS.MIF_HIGH, unit)}); hottest zone cpu-big 47.25 °C; "
                    "heap peak 120,000 KB, ~130,000 KB allocated")
    out = tmp_path / "run.html"
    write_report([str(traces["full"])], out, AnalysisOptions(app=APP, cpus="6,7"),
                 engine="embedded")
    page = out.read_text()
    assert '<p class="meta" data-section="conditions">Conditions: ' in page
    assert "started 2024-01-01 00:00:01 UTC" in page


@pytest.mark.parametrize("engine", ENGINES)
def test_thermal_from_sys_stats_polling(tmp_path, engine, request):
    """BARE plus two sys_stats thermal-zone polls of type skin-therm (degrees
    C, not millidegrees): 40 at 5 ms (holds at W's start, 10 ms) and 45 at
    50 ms (inside W)."""
    import make_fixtures as M
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    from schedules import t

    extra = pb.Trace()
    for ms, temp in ((5, 40), (50, 45)):
        p = extra.packet.add()
        p.timestamp = t(ms)
        p.trusted_packet_sequence_id = 30
        z = p.sys_stats.thermal_zone.add()
        z.name, z.type, z.temp = "thermal_zone0", "skin-therm", temp
    path = tmp_path / "sys_thermal.pftrace"
    path.write_bytes(M.build(SS.schedule(BARE)) + extra.SerializeToString())
    r = _result(path, engine, request)
    assert r["conditions"]["thermal"] == [{"zone": "skin-therm",
                                           "source": "thermal_temperature_sys",
                                           "start_c": 40.0, "max_c": 45.0}]
