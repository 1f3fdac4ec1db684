"""artscope.report.charts: data behind each chart, row caps, valid specs."""

from __future__ import annotations

import json

import altair as alt
import polars as pl
import pytest

import artscope
from artscope.errors import UsageError
from artscope.report import charts

APP = "com.example.bench"
MS = 1_000_000
T0 = 1_000_000_000_000


@pytest.fixture(scope="module")
def late(fixtures_dir):
    rs = artscope.open(fixtures_dir / "pinned_late.pftrace", app=APP, cpus="6,7",
                       engine="embedded")
    yield rs
    rs.close()


def _rows(chart) -> list[list[dict]]:
    """Inline data values of every (sub)chart of a spec."""
    spec = chart.to_dict()
    out = []

    def walk(node):
        if isinstance(node, dict):
            data = node.get("data")
            if isinstance(data, dict) and "values" in data:
                out.append(data["values"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return out


def test_every_chart_builds_a_valid_spec(late):
    built = {
        "timeline": late.plot_timeline(), "frequency": late.plot_frequency(),
        "residency": late.plot_residency(), "frames": late.plot_frame_durations(),
        "gc": late.plot_gc(), "mmu": late.plot_mmu(),
    }
    for name, chart in built.items():
        assert isinstance(chart, alt.TopLevelMixin), name
        spec = chart.to_dict()  # validates against the Vega-Lite schema
        json.dumps(spec, allow_nan=False)  # browsers reject NaN in JSON


def test_spec_compiles_with_vl_convert(late):
    vlc = pytest.importorskip("vl_convert")
    svg = vlc.vegalite_to_svg(late.plot_timeline().to_dict(), vl_version="6.4")
    assert svg.startswith("<svg") and "off-mask" in svg


def test_timeline_rows_match_pinning(late):
    rows, tol = charts.timeline_rows(late, 0)
    assert tol == 0  # small trace: nothing merged across gaps
    assert rows["busy_ns"].sum() == late.gc()["app_cpu_ns"][0] == 3_205_000_000
    off = rows.filter(pl.col("status") == "off-mask")
    assert off["busy_ns"].sum() == late.pinning()["off_mask_cpu_ns"][0] == 1_574_000_000
    assert set(off["cpu"].to_list()) == {2, 3, 4, 5}
    assert rows["t0"].min() >= 0 and rows["t1"].max() <= 2.5


def test_timeline_respects_row_cap(late):
    chart = charts.timeline(late, 0, max_rows=50)
    slices = max(_rows(chart), key=len)
    assert 0 < len(slices) <= 50
    rows, tol = charts.timeline_rows(late, 0, max_rows=50)
    assert tol > 0
    assert rows["busy_ns"].sum() == 3_205_000_000  # merging keeps the CPU time
    assert rows.filter(pl.col("status") == "off-mask")["busy_ns"].sum() == 1_574_000_000


def test_downsample_caps_a_60s_trace():
    # 60 s of 30 us slices every 150 us (8 CPUs x 16 threads): 400k rows
    n = 400_000
    df = pl.DataFrame({
        "thread": (pl.int_range(0, n, eager=True) % 16).cast(pl.String),
        "cpu": pl.int_range(0, n, eager=True) % 8,
        "ts": pl.int_range(0, n, eager=True) * 150_000,
    }).with_columns(end_ts=pl.col("ts") + 30_000)
    out, tol = charts.downsample_slices(df, ["thread", "cpu"], 150_000 * n)
    assert out.height <= charts.MAX_ROWS == 20_000
    assert tol > 0
    assert out["busy_ns"].sum() == 30_000 * n
    assert out["slices"].sum() == n


def test_timeline_chart_caps_huge_input(late, monkeypatch):
    # Feed the chart a 400k-slice thread_timeline: the spec stays capped.
    start = T0 + 200 * MS
    n = 400_000
    big = pl.DataFrame({
        "run": pl.zeros(n, pl.Int64, eager=True),
        "utid": pl.int_range(0, n, eager=True) % 6 + 4,
        "tid": pl.int_range(0, n, eager=True) % 6 + 1000,
        "thread_name": ["t"] * n,
        "role": ["mutator"] * n,
        "cpu": pl.int_range(0, n, eager=True) % 8,
        "ts": start + pl.int_range(0, n, eager=True) * 6_000,
    }).with_columns(end_ts=pl.col("ts") + 1_000, dur=pl.lit(1_000),
                    allowed=(pl.col("cpu") >= 6).cast(pl.Int64))
    from artscope.report import chart_data

    monkeypatch.setattr(chart_data, "_metric_rows", lambda rs, name: big)
    chart = charts.timeline(late, 0)
    assert sum(len(v) for v in _rows(chart)) <= charts.MAX_ROWS + 100


def test_frequency_rows(late):
    rows = charts.frequency_rows(late, 0)
    mif = rows.filter(pl.col("series") == "17000010.devfreq_mif (clock)")
    # value at W start + 5 changes + closing point at W end
    assert mif.height == 7
    assert mif["value"].to_list()[:2] == [3_172_000, 2_730_000]
    assert mif["t"].to_list()[0] == 0.0 and mif["t"].to_list()[-1] == 2.5
    cpu6 = rows.filter(pl.col("series") == "cpu6")
    assert sorted(set(cpu6["value"].to_list())) == [2_000_000, 2_800_000]
    assert rows.filter(pl.col("series") == "cpu6 max limit").height > 0
    # only the allowed CPUs' series
    assert not rows.filter(pl.col("series").str.starts_with("cpu0")).height
    capped = charts.frequency_rows(late, 0, max_rows=8)
    assert capped.height <= 8 + 2 * 5  # per-series floor of 4 points, 5 series
    assert capped.filter(pl.col("series") == "17000010.devfreq_mif (clock)")["value"].min() \
        == 1_539_000  # binning keeps the extremes


def test_frame_rows(late):
    f = charts.frame_rows(late, 0)
    assert f.height == 31
    assert f.filter(pl.col("jank") != "on time").height == 3
    assert f["pct"].max() == 100.0 and f["dur_ms"].is_sorted()
    capped = charts.frame_rows(late, 0, max_rows=10)
    assert capped.height <= 10
    assert capped.filter(pl.col("jank") != "on time").height == 3  # jank always kept


def test_mmu_rows(late):
    # The fixture's GCs hold phase slices (GC30_NESTED) but no pause slice: pauses are
    # known and there are none. Worker-1 runs one GC itself ("Alloc concurrent copying
    # GC", 3 ms in slot 90): a foreground GC, unavailable time for the app's curve:
    # 1 - 3 ms / w for windows of 5 ms .. 1 s, 0 for 1 and 2 ms (inside the GC). The
    # main thread's curve holds no foreground GC of its own: 1 everywhere.
    rows = charts.mmu_rows(late, 0)
    assert rows.height == 20
    windows_ms = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    assert rows["window_ns"].unique().sort().to_list() == [ms * 1_000_000 for ms in windows_ms]
    app = rows.filter(pl.col("curve").str.starts_with("app"))["mmu"].to_list()
    assert app == pytest.approx([0.0, 0.0] + [1 - 3 / w for w in windows_ms[2:]])
    assert rows.filter(pl.col("curve").str.starts_with("main"))["mmu"].to_list() == [1.0] * 10


def test_gc_intervals(late):
    ivs = charts.gc_intervals(late, 0)
    assert len(ivs) == 4
    assert sum(e - s for s, e in ivs) == 27 * MS


def test_unknown_run(late):
    with pytest.raises(UsageError, match="no run 3"):
        charts.timeline(late, 3)


@pytest.mark.parametrize("name", ["frames", "freq", "no_sched", "choreographer_only",
                                  "pinned_clean"])
def test_charts_on_other_fixtures(fixtures_dir, name):
    # no_sched has no CPU to name in --cpus
    cpus = None if name == "no_sched" else "6,7"
    with artscope.open(fixtures_dir / f"{name}.pftrace", app=APP, cpus=cpus,
                       engine="embedded") as rs:
        for r in rs.results:
            for fn in (charts.timeline, charts.frequency, charts.residency,
                       charts.frame_durations, charts.mmu):
                json.dumps(fn(rs, r["run"]).to_dict(), allow_nan=False)
        json.dumps(charts.gc_cpu(rs).to_dict(), allow_nan=False)


def test_no_sched_timeline_is_a_placeholder(fixtures_dir):
    with artscope.open(fixtures_dir / "no_sched.pftrace", app=APP, engine="embedded") as rs:
        spec = charts.timeline(rs, 0).to_dict()
        assert spec["mark"]["type"] == "text"
        assert "no sched data" in json.dumps(spec)


def test_runs_strip(fixtures_dir):
    df = artscope.analyze([fixtures_dir / "pinned_clean.pftrace",
                           fixtures_dir / "pinned_late.pftrace",
                           fixtures_dir / "tid_reuse.pftrace"],  # no such app: error row
                          app=APP, cpus="6,7", engine="embedded", jobs=1)
    long = charts.strip_rows(df)
    assert set(long["verdict"].to_list()) == {"pass", "fail"}
    assert "pinning_off_mask_share" in long["metric"].to_list()
    assert long["label"].str.contains("pinned_late.pftrace #0").any()
    spec = charts.runs_strip(df).to_dict()
    json.dumps(spec, allow_nan=False)
    with pytest.raises(UsageError):
        charts.runs_strip(df, ["nope"])
    assert charts.runs_strip(pl.DataFrame()).to_dict()["mark"]["type"] == "text"


# -- the charts beside the health reasons ------------------------------

def _reason(rs, rid):
    return next(r for r in rs.results[0]["health"]["reasons"] if r["id"] == rid)


def _series(chart) -> set[str]:
    return {row["series"] for values in _rows(chart) for row in values if "series" in row}


def test_off_mask_reason_zooms_the_timeline(late):
    chart = charts.reason_chart(late, 0, _reason(late, "off_mask_cpu"))
    spec = chart.to_dict()
    # W = [200, 2700) ms; off-mask from W's start (the 190 ms slot runs into
    # it) to 2061 ms (end of worker1's escape); the view adds 3% of those
    # 1861 ms on each side, clipped to W: [0, 1.91683] s since the run start.
    domains = [layer["encoding"]["x"]["scale"]["domain"]
               for layer in spec["layer"] if "scale" in layer["encoding"].get("x", {})]
    assert domains and all(d == [0.0, pytest.approx(1.91683)] for d in domains)
    assert "+0.000 s to +1.917 s" in json.dumps(spec["title"])
    assert spec["width"] == charts.REASON_WIDTH
    # only slices inside the view; the escape on CPU 3 is there, outlined
    rows, _ = charts.timeline_rows(late, 0, time_range=charts.zoom_range(
        late.results[0], (T0 + 200 * MS, T0 + 2061 * MS)))
    assert rows["t1"].max() <= 1.91683 + 1e-9
    escape = rows.filter((pl.col("cpu") == 3) & (pl.col("t0") >= 1.8))
    assert escape["status"].to_list() == ["off-mask"]
    assert escape["busy_ns"].sum() == 50 * MS


def test_frequency_reasons_show_that_cpu_or_device(late):
    cpu6 = charts.reason_chart(late, 0, _reason(late, "cpufreq_unstable"))
    assert _series(cpu6) == {"cpu6", "cpu6 max limit"}
    dash = json.dumps(cpu6.to_dict())
    assert '"domain": ["frequency", "max limit"]' in dash and '"max limit: false"' not in dash
    assert _series(charts.reason_chart(late, 0, _reason(late, "cpufreq_throttled"))) \
        == {"cpu6", "cpu6 max limit"}
    mif = charts.reason_chart(late, 0, _reason(late, "memfreq_unstable"))
    assert _series(mif) == {"17000010.devfreq_mif (clock)"}
    values = [r["shown"] for v in _rows(mif) for r in v if "shown" in r]
    assert values[:2] == [3172.0, 2730.0]  # kHz as recorded, drawn in MHz as the reasons say
    # nothing to draw for a missing series or data loss
    assert charts.reason_chart(late, 0, {"id": "cpufreq_missing", "evidence": {"cpus": [6]}}) \
        is None
    assert charts.reason_chart(late, 0, {"id": "data_loss", "evidence": {}}) is None


def test_one_colour_per_cpu(late):
    spec = charts.frequency(late, 0).to_dict()
    cpu_panel = spec["vconcat"][0]
    colors = [layer["encoding"]["color"]["scale"] for layer in cpu_panel["layer"]]
    assert all(c == {"domain": ["cpu6", "cpu7"],
                     "range": [charts.CPU_COLORS[6], charts.CPU_COLORS[7]]} for c in colors)
    assert charts.CPU_COLORS[6] != charts.CPU_COLORS[7]


def test_coinciding_cpus():
    def steps(cpu, ts, values):
        return [{"kind": "cpu", "line": "frequency", "cpu": cpu, "ts": t, "value": v}
                for t, v in zip(ts, values)]
    rows = pl.DataFrame(
        steps(6, [0, 10 * MS, 20 * MS], [500.0, 900.0, 500.0])
        + steps(7, [0, 10 * MS + 300_000, 20 * MS], [500.0, 900.0, 500.0])  # 0.3 ms later
        + steps(5, [0, 10 * MS, 20 * MS], [500.0, 800.0, 500.0])  # other values
        + steps(4, [0, 12 * MS, 20 * MS], [500.0, 900.0, 500.0]))  # 2 ms later
    assert charts.coinciding_cpus(rows) == [[6, 7]]


def test_memory_controllers_only_unless_all_clocks(fixtures_dir):
    memory = {"17000010.devfreq_mif (clock)", "soc:qcom,cpu-cpu-llcc-bw (devfreq)",
              "soc:qcom,cpu-llcc-ddr-bw (sys_stats)"}
    # a run set opened without all_clocks holds the memory controllers only
    with artscope.open(fixtures_dir / "freq.pftrace", app=APP, cpus="6,7",
                       engine="embedded") as rs:
        for every in (False, True):
            assert {s for s in _series(charts.frequency(rs, 0, all_clocks=every))
                    if not s.startswith("cpu")} == memory
    with artscope.open(fixtures_dir / "freq.pftrace", app=APP, cpus="6,7",
                       engine="embedded", all_clocks=True) as rs:
        others = {"soc:qcom,gpubw (devfreq)", "soc:qcom,kgsl-busmon (sys_stats)"}
        devices = {s for s in _series(charts.frequency(rs, 0)) if not s.startswith("cpu")}
        assert devices == memory
        every = {s for s in _series(charts.frequency(rs, 0, all_clocks=True))
                 if not s.startswith("cpu")}
        assert every == memory | others
        panels = charts.frequency(rs, 0, all_clocks=True).to_dict()["vconcat"][1]
        assert panels["facet"]["row"]["sort"] == sorted(memory) + sorted(others)
        res = {s for s in _series(charts.residency(rs, 0)) if not s.startswith("cpu")}
        assert res == memory
        assert {s for s in _series(charts.residency(rs, 0, all_clocks=True))
                if not s.startswith("cpu")} == memory | others


def test_gc_chart_of_one_run_has_no_lone_share_bar(late):
    spec = charts.gc_cpu(late).to_dict()
    assert "hconcat" not in spec and spec["title"] == "CPU per GC"


def test_frequency_ticks_and_residency_labels_read_as_the_reasons(late):
    # the memory controller's clock records kHz (3 172 000): the chart's
    # axis is MHz and the residency bars are labelled as the reasons write
    # frequencies ("3.172 GHz"), not "3172000"
    spec = json.dumps(charts.frequency(late, 0).to_dict())
    assert '"title": "MHz"' in spec and "(unit unknown)" not in spec
    labels = {r["label"] for v in _rows(charts.residency(late, 0)) for r in v if "label" in r}
    assert {"3.172 GHz", "2.73 GHz", "2.8 GHz", "2 GHz"} <= labels
    assert not any(label.isdigit() for label in labels)
