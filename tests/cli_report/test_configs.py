"""The curated capture configs: they parse as TraceConfig and feed every metric."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from artscope import _resources, configs
from artscope.cli import main
from artscope.errors import UsageError

REPO = Path(__file__).resolve().parents[2]
NAMES = ["artscope-affinity-debug", "artscope-dvfs", "artscope-full", "artscope-light"]
METRICS = ["gc", "pinning", "jank", "cpufreq", "memfreq"]


def _cfg(name: str, app: str = "com.example.app", duration: str = "45s"):
    return configs.parse_config(configs.render_config(name, app=app, duration=duration))


def _ftrace(cfg):
    (ftrace,) = [ds.config.ftrace_config for ds in cfg.data_sources if ds.config.name == "linux.ftrace"]
    return ftrace


def test_list_configs_names_paths_and_summaries():
    infos = configs.list_configs()
    assert [i.name for i in infos] == NAMES
    assert [i.path for i in infos] == [REPO / "perfetto-configs" / f"{n}.pbtxt" for n in NAMES]
    assert [i.summary for i in infos] == [
        "artscope-full plus who changed the CPU mask.",
        "artscope-light plus counters at context switches and power rails.",
        "every metric plus the evidence behind each health reason.",
        "the lowest-overhead capture that still feeds every metric.",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_every_shipped_file_is_a_trace_config_as_committed(name):
    """What `perfetto --txt -c FILE` reads: the file itself, parsed directly
    with the perfetto package's TraceConfig (not through artscope)."""
    from google.protobuf import text_format
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

    text = (REPO / "perfetto-configs" / f"{name}.pbtxt").read_text()
    cfg = text_format.Parse(text, TraceConfig())
    assert cfg.duration_ms == 30000  # the documented default: 30 s
    assert list(_ftrace(cfg).atrace_apps)[0] == "*"  # all apps
    assert set(_ftrace(cfg).atrace_apps) <= {"*", "lmkd"}
    assert "{{" not in text


def test_full_config_records_everything_the_metrics_read():
    """The data each metric's SQL reads, listed by hand from sql-metrics/."""
    from google.protobuf import text_format
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import TraceConfig

    cfg = text_format.Parse((REPO / "perfetto-configs/artscope-full.pbtxt").read_text(), TraceConfig())
    by_name = {ds.config.name: ds.config for ds in cfg.data_sources}
    events = set(by_name["linux.ftrace"].ftrace_config.ftrace_events)
    assert {
        "sched/sched_switch",  # sched: CPU time, pinning, migrations
        "power/cpu_frequency",  # cpufreq transitions
        "devfreq/devfreq_frequency",  # devfreq devices, kernels 5.11+
        "power/clock_set_rate",  # Tensor memory controller (17000010.devfreq_mif)
        "dcvs/qcom_dcvs_update",  # Snapdragon 8 Gen 1+ memory votes (bus_dcvs)
    } <= events
    assert "clk/clk_set_rate" not in events  # never becomes a counter in trace_processor
    assert "dalvik" in by_name["linux.ftrace"].ftrace_config.atrace_categories  # "* GC" slices
    assert "android.surfaceflinger.frametimeline" in by_name  # actual/expected frame timeline
    assert by_name["linux.process_stats"].process_stats_config.scan_all_processes_on_start
    stats = by_name["linux.sys_stats"].sys_stats_config
    assert stats.cpufreq_period_ms > 0 and stats.devfreq_period_ms > 0  # value at run start


@pytest.mark.parametrize("name", NAMES)
def test_every_config_renders_with_app_and_duration_set(name):
    cfg = _cfg(name, app="com.example.app", duration="45s")
    assert cfg.duration_ms == 45000
    # The app replaces "*"; lmkd (its markers are the low-memory kills) stays.
    assert list(_ftrace(cfg).atrace_apps) == (
        ["com.example.app"] if name in ("artscope-light", "artscope-dvfs") else ["com.example.app", "lmkd"])
    assert cfg.write_into_file is True
    assert cfg.file_write_period_ms == 2500
    assert _ftrace(cfg).compact_sched.enabled is True
    # Every data source writes into a buffer that exists.
    assert all(ds.config.target_buffer < len(cfg.buffers) for ds in cfg.data_sources)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("metric", METRICS)
def test_every_config_feeds_every_metric(name, metric):
    assert configs.missing(_cfg(name), metric) == []


@pytest.mark.parametrize("name", NAMES)
def test_header_documents_the_config(name):
    text = (REPO / "perfetto-configs" / f"{name}.pbtxt").read_text()
    header = text[: text.index("duration_ms:")]
    assert header.startswith(f"# {name}: ")
    for needed in ("duration_ms  30000", 'atrace_apps  "*"', f"perfetto --txt -c /data/misc/perfetto-configs/{name}.pbtxt",
                   "Expected overhead", "Buffer sizing"):
        assert needed in header, needed
    for metric in METRICS:  # the metric -> data source table, one line per metric
        assert f"\n#   {metric} " in header, metric


def test_full_config_has_exactly_the_specified_kernel_events_and_categories():
    cfg = _cfg("artscope-full")
    ftrace = _ftrace(cfg)
    assert sorted(ftrace.ftrace_events) == sorted([
        "sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup_new",
        "sched/sched_blocked_reason", "sched/sched_process_exit", "sched/sched_process_free",
        "task/task_newtask", "task/task_rename",
        "power/cpu_frequency", "power/cpu_frequency_limits",
        "thermal/thermal_temperature", "thermal/cdev_update", "dcvsh/dcvsh_freq",
        "power/clock_set_rate", "devfreq/devfreq_frequency",
        "dcvs/qcom_dcvs_update", "dcvs/memlat_dev_update", "dcvs/bw_hwmon_update",
        "vmscan/mm_vmscan_direct_reclaim_begin", "vmscan/mm_vmscan_direct_reclaim_end",
        "vmscan/mm_vmscan_kswapd_wake", "vmscan/mm_vmscan_kswapd_sleep",
        "lowmemorykiller/lowmemory_kill", "oom/mark_victim", "oom/oom_score_adj_update",
        "kmem/rss_stat", "power/suspend_resume",
    ])
    assert ftrace.throttle_rss_stat is True
    assert list(ftrace.atrace_categories) == ["dalvik", "view", "am"]
    assert list(ftrace.atrace_apps) == ["com.example.app", "lmkd"]  # rendered for the app
    assert sorted(ds.config.name for ds in cfg.data_sources) == [
        "android.packages_list", "android.surfaceflinger.frametimeline", "linux.ftrace",
        "linux.process_stats", "linux.sys_stats", "linux.system_info",
    ]
    (ps,) = [d.config.process_stats_config for d in cfg.data_sources if d.config.name == "linux.process_stats"]
    # No proc_stats_poll_ms: no metric reads per-process memory polls.
    assert (ps.scan_all_processes_on_start, ps.proc_stats_poll_ms) == (True, 0)
    (ss,) = [d.config.sys_stats_config for d in cfg.data_sources if d.config.name == "linux.sys_stats"]
    assert (ss.cpufreq_period_ms, ss.devfreq_period_ms, ss.thermal_period_ms, ss.vmstat_period_ms) == (
        250, 250, 1000, 1000)
    assert list(ss.vmstat_counters) == []  # all counters: every perfetto version knows the field
    assert [b.size_kb for b in cfg.buffers] == [17408, 1024, 2048]
    assert (ftrace.buffer_size_kb, cfg.data_source_stop_timeout_ms, cfg.flush_period_ms) == (2048, 10000, 0)


def test_light_config_drops_the_expensive_parts():
    light, full = _cfg("artscope-light"), _cfg("artscope-full")
    events = set(_ftrace(light).ftrace_events)
    assert "sched/sched_waking" not in events and "power/cpu_idle" not in events
    assert list(_ftrace(light).atrace_categories) == ["dalvik", "view"]
    assert configs.missing(light, "gc_runnable") == ["ftrace:sched/sched_waking", "ftrace:sched/sched_wakeup_new"]
    # Metrics only: no reason evidence, no memory pressure, no start-ups.
    assert configs.serves(light) == ["gc", "pinning", "jank", "cpufreq", "memfreq"]
    assert sum(b.size_kb for b in light.buffers) < sum(b.size_kb for b in full.buffers)
    assert _ftrace(light).buffer_size_kb < _ftrace(full).buffer_size_kb


def test_only_affinity_debug_records_who_changed_the_mask():
    dbg = _cfg("artscope-affinity-debug")
    assert list(_ftrace(dbg).syscall_events) == ["sys_sched_setaffinity"]
    assert {"raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "cgroup/cgroup_attach_task"} <= set(
        _ftrace(dbg).ftrace_events
    )
    assert configs.missing(dbg, "pinning_evidence") == []
    assert configs.missing(_cfg("artscope-full"), "pinning_evidence") == [
        "syscall:sys_sched_setaffinity",
        "ftrace:cgroup/cgroup_attach_task",
    ]
    # Otherwise it is artscope-full.
    full = _cfg("artscope-full")
    assert set(_ftrace(dbg).ftrace_events) - set(_ftrace(full).ftrace_events) == {
        "raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "cgroup/cgroup_attach_task"}
    assert list(_ftrace(dbg).atrace_categories) == list(_ftrace(full).atrace_categories)


@pytest.mark.parametrize(
    "requirement, expected",
    [
        ("gc", "artscope-full"),
        ("pinning", "artscope-full"),
        ("jank", "artscope-full"),
        ("cpufreq", "artscope-full"),
        ("memfreq", "artscope-full"),
        ("gc_runnable", "artscope-full"),
        ("pinning_evidence", "artscope-affinity-debug"),
        ("ftrace:cgroup/cgroup_attach_task", "artscope-affinity-debug"),
        ("syscall:sys_sched_setaffinity", "artscope-affinity-debug"),
        ("ftrace:power/clock_set_rate", "artscope-full"),
        ("cpufreq_evidence", "artscope-full"),
        ("memory", "artscope-full"),
        ("startups", "artscope-full"),
        ("atrace_app:lmkd", "artscope-full"),
    ],
)
def test_config_for_names_the_capturing_config(requirement, expected):
    assert configs.config_for(requirement) == expected


def test_config_for_errors():
    with pytest.raises(UsageError, match=r"^unknown requirement 'bogus' \(a metric: gc, gc_runnable, "):
        configs.config_for("bogus")
    with pytest.raises(UsageError, match=r"^no curated config captures 'ftrace:ext4/ext4_sync_file'$"):
        configs.config_for("ftrace:ext4/ext4_sync_file")


def test_missing_on_a_hand_written_config():
    cfg = configs.parse_config(
        'data_sources { config { name: "linux.ftrace" ftrace_config {'
        ' ftrace_events: "sched/*" ftrace_events: "raw_syscalls/sys_enter" atrace_categories: "dalvik" } } }'
        ' data_sources { config { name: "linux.sys_stats" sys_stats_config { cpufreq_period_ms: 0 } } }'
    )
    assert configs.missing(cfg, "gc") == [
        "ftrace:task/task_newtask",
        "ftrace:task/task_rename",
        "process_stats:scan_all_processes_on_start",
    ]
    assert configs.missing(cfg, "ftrace:sched/sched_waking") == []  # via the group glob
    assert configs.missing(cfg, "sys_stats:cpufreq_period_ms") == ["sys_stats:cpufreq_period_ms"]
    # raw syscalls without a filter record every syscall, including this one ...
    assert configs.missing(cfg, "syscall:sys_sched_setaffinity") == []
    # ... but a filter for other syscalls does not.
    filtered = configs.parse_config(
        'data_sources { config { name: "linux.ftrace" ftrace_config { syscall_events: "sys_read" } } }'
    )
    assert configs.missing(filtered, "syscall:sys_sched_setaffinity") == ["syscall:sys_sched_setaffinity"]


def test_render_without_changes_returns_the_file_with_its_comments():
    text = (REPO / "perfetto-configs/artscope-full.pbtxt").read_text()
    assert configs.render_config("full") == text
    # Values equal to the file's are no change either (name aliases work).
    assert configs.render_config("artscope-full.pbtxt", app="*", duration="30s") == text


@pytest.mark.parametrize("name", NAMES)
def test_render_sets_fields_on_the_message_and_keeps_the_header(name):
    text = (REPO / "perfetto-configs" / f"{name}.pbtxt").read_text()
    rendered = configs.render_config(name, app="com.example.app", duration="45s")
    # Exactly the two fields differ from the shipped config.
    expected = configs.parse_config(text)
    expected.duration_ms = 45000
    for ds in expected.data_sources:
        if ds.config.name == "linux.ftrace":
            kept = [a for a in ds.config.ftrace_config.atrace_apps if a != "*"]
            ds.config.ftrace_config.atrace_apps[:] = ["com.example.app"] + kept
    assert configs.parse_config(rendered) == expected
    # The header comment survives, with a line saying where the config came from.
    header = text[: text.index("\n\n") + 1]
    title, rest = header.split("\n", 1)
    from google.protobuf import text_format

    # light records the app's markers only; the others also lmkd's kills.
    apps = '"com.example.app"' if name in ("artscope-light", "artscope-dvfs") else '"com.example.app" "lmkd"'
    assert rendered == (
        f"{title}\n#\n# Rendered by artscope from perfetto-configs/{name}.pbtxt:\n"
        f'# duration_ms 45000, atrace_apps {apps}, set on the\n'
        "# parsed TraceConfig and printed by protobuf, so the file's per-field\n"
        "# comments are not repeated; the defaults named below are the file's.\n"
        f"{rest}\n" + text_format.MessageToString(expected)  # then the printed message
    )


def test_render_only_duration_keeps_all_apps():
    cfg = configs.parse_config(configs.render_config("full", duration="2m"))
    assert cfg.duration_ms == 120000 and list(_ftrace(cfg).atrace_apps) == ["*", "lmkd"]


def test_render_rounds_sub_millisecond_durations_up():
    assert configs.parse_config(configs.render_config("light", duration="1500us")).duration_ms == 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "nope"}, "unknown config 'nope' (available: artscope-affinity-debug, artscope-dvfs, artscope-full, artscope-light)"),
        ({"name": "full", "app": 'com.x" } x {'}, "invalid app 'com.x\" } x {': expected a package name like com.example.app"),
        ({"name": "full", "app": ""}, "invalid app '': expected a package name like com.example.app"),
        ({"name": "full", "duration": "0s"}, "invalid duration '0s': must be longer than 0"),
        ({"name": "full", "duration": "soon"}, "invalid duration 'soon': expected e.g. 30s, 500ms, 2m, 1500us or an integer number of ns"),
    ],
)
def test_render_errors(kwargs, message):
    with pytest.raises(UsageError) as e:
        configs.render_config(**kwargs)
    assert str(e.value) == message


def test_render_accepts_process_names_with_a_colon():
    cfg = configs.parse_config(configs.render_config("full", app="com.example.app:remote"))
    assert list(_ftrace(cfg).atrace_apps) == ["com.example.app:remote", "lmkd"]


def test_parse_config_rejects_unknown_fields():
    with pytest.raises(UsageError, match=r"^not a valid TraceConfig: .*no_such_field"):
        configs.parse_config("no_such_field: 1")


@pytest.mark.parametrize(
    "text, ns",
    [
        ("30s", 30_000_000_000),
        ("500ms", 500_000_000),
        ("2m", 120_000_000_000),
        ("1500us", 1_500_000),
        ("1h", 3_600_000_000_000),
        ("1.5s", 1_500_000_000),
        ("42", 42),
        ("7ns", 7),
        (" 0 ", 0),
    ],
)
def test_parse_duration(text, ns):
    assert configs.parse_duration(text) == ns


@pytest.mark.parametrize("text", ["", "5x", "-1s", "1.5", "s", "1 s", "30 seconds"])
def test_parse_duration_rejects(text):
    with pytest.raises(UsageError) as e:
        configs.parse_duration(text)
    assert str(e.value) == (
        f"invalid duration {text.strip()!r}: expected e.g. 30s, 500ms, 2m, 1500us or an integer number of ns"
    )


def test_parse_duration_rejects_fractional_nanoseconds():
    with pytest.raises(UsageError) as e:
        configs.parse_duration("0.5ns")
    assert str(e.value) == "invalid duration '0.5ns': not a whole number of nanoseconds"


def test_resource_dir_prefers_packaged_copy(tmp_path, monkeypatch):
    assert _resources.resource_dir("perfetto_configs") == REPO / "perfetto-configs"
    (tmp_path / "perfetto_configs").mkdir()
    monkeypatch.setattr(_resources, "_PACKAGE_DIR", tmp_path)
    assert _resources.resource_dir("perfetto_configs") == tmp_path / "perfetto_configs"


def test_resource_dir_errors(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown resource 'fixtures'"):
        _resources.resource_dir("fixtures")
    monkeypatch.setattr(_resources, "_PACKAGE_DIR", tmp_path / "a" / "b")
    with pytest.raises(FileNotFoundError, match="artscope data directory 'sql_metrics' is missing"):
        _resources.resource_dir("sql_metrics")


def test_cli_configs_list():
    result = CliRunner().invoke(main, ["configs", "list"])
    assert result.exit_code == 0
    assert result.stdout == (
        "artscope-affinity-debug  artscope-full plus who changed the CPU mask.\n"
        "artscope-dvfs            artscope-light plus counters at context switches and power rails.\n"
        "artscope-full            every metric plus the evidence behind each health reason.\n"
        "artscope-light           the lowest-overhead capture that still feeds every metric.\n"
    )


def test_cli_configs_show():
    plain = CliRunner().invoke(main, ["configs", "show", "light"])
    assert plain.exit_code == 0
    assert plain.stdout == (REPO / "perfetto-configs/artscope-light.pbtxt").read_text()
    result = CliRunner().invoke(main, ["configs", "show", "light", "--app", "com.example.app", "--duration", "2m"])
    assert result.exit_code == 0
    assert result.stdout == configs.render_config("artscope-light", app="com.example.app", duration="120s")
    assert configs.parse_config(result.stdout).duration_ms == 120000


@pytest.mark.parametrize(
    "args, message",
    [
        (["configs", "show", "nope"], "unknown config 'nope' (available: artscope-affinity-debug, artscope-dvfs, artscope-full, artscope-light)"),
        (["configs", "show", "full", "--duration", "5x"], "invalid duration '5x': expected e.g. 30s, 500ms, 2m, 1500us or an integer number of ns"),
    ],
)
def test_cli_configs_show_errors(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"artscope: error: {message}\n"


# The group of each typed event the configs list, as the kernel names it:
# from Perfetto's Pixel 6 tracefs snapshot
# (src/traced/probes/ftrace/test/data/android_raven_AOSP.MASTER_5.10.43/
# available_events) where the event exists there, else from the kernel
# header that defines it (devfreq_frequency: include/trace/events/devfreq.h,
# Linux 5.11+; dcvsh_freq: Qualcomm include/trace/events/dcvsh.h;
# lowmemory_kill: drivers/staging/android/trace/lowmemorykiller.h).
KERNEL_GROUP = {
    "sched_switch": "sched", "sched_waking": "sched", "sched_wakeup_new": "sched",
    "sched_blocked_reason": "sched",
    "sched_process_exit": "sched", "sched_process_free": "sched",
    "task_newtask": "task", "task_rename": "task",
    "cpu_frequency": "power", "cpu_frequency_limits": "power", "clock_set_rate": "power",
    "suspend_resume": "power",
    "thermal_temperature": "thermal", "cdev_update": "thermal",
    "mm_vmscan_direct_reclaim_begin": "vmscan", "mm_vmscan_direct_reclaim_end": "vmscan",
    "mm_vmscan_kswapd_wake": "vmscan", "mm_vmscan_kswapd_sleep": "vmscan",
    "mark_victim": "oom", "oom_score_adj_update": "oom", "rss_stat": "kmem",
    "cgroup_attach_task": "cgroup", "sys_enter": "raw_syscalls", "sys_exit": "raw_syscalls",
    "devfreq_frequency": "devfreq", "dcvsh_freq": "dcvsh", "lowmemory_kill": "lowmemorykiller",
}
# Qualcomm's bus_dcvs events (drivers/soc/qcom/dcvs/trace-dcvs.h, TRACE_SYSTEM
# dcvs) have no typed proto: perfetto records them as generic events and
# trace_processor keeps them in ftrace_event with their fields as args.
GENERIC = {"dcvs/qcom_dcvs_update", "dcvs/memlat_dev_update", "dcvs/bw_hwmon_update"}

# Atrace categories that also switch on kernel events (Perfetto's
# src/traced/probes/ftrace/predefined_tracepoints.cc,
# GeneratePredefinedTracePoints): a config using one would record events no
# comment accounts for.
KERNEL_ENABLING_CATEGORIES = {
    "gfx", "ion", "sched", "irq", "irqoff", "preemptoff", "i2c", "freq", "membus", "idle",
    "disk", "mmc", "load", "sync", "workq", "memreclaim", "regulators", "binder_driver",
    "binder_lock", "pagecache", "memory", "thermal", "camera",
}


@pytest.mark.parametrize("name", NAMES)
def test_every_ftrace_event_is_one_perfetto_knows(name):
    """Typed events are FtraceEvent fields of the perfetto package's protos
    (what trace_processor parses) under their kernel group; the rest are the
    known generic bus_dcvs events, which must not have a typed field."""
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import FtraceEvent

    fields = FtraceEvent.DESCRIPTOR.fields_by_name
    for event in configs.ftrace_events(_cfg(name)):
        group, _, short = event.partition("/")
        if event in GENERIC:
            assert short not in fields, f"{event} has a typed proto now"
            continue
        assert short in fields and fields[short].message_type is not None, event
        assert KERNEL_GROUP[short] == group, event


@pytest.mark.parametrize("name", NAMES)
def test_no_atrace_category_enables_kernel_events_silently(name):
    assert not set(_ftrace(_cfg(name)).atrace_categories) & KERNEL_ENABLING_CATEGORIES


@pytest.mark.parametrize("name", NAMES)
def test_sys_stats_periods_are_multiples_of_the_shortest(name):
    """Perfetto's sys_stats polls nothing at all when a period is not an
    integer multiple of the shortest (sys_stats_data_source.cc: "SysStat
    periods are not integer multiples of each other")."""
    (ss,) = [d.config.sys_stats_config for d in _cfg(name).data_sources if d.config.name == "linux.sys_stats"]
    periods = [v for f, v in ss.ListFields() if f.name.endswith("_period_ms") and v]
    assert periods and all(p % min(periods) == 0 and p >= 10 for p in periods)


@pytest.mark.parametrize("name", NAMES)
def test_every_recorded_item_names_its_reader(name):
    """Each ftrace event, syscall, atrace category/app and data source line
    sits under a comment (a run of lines of one kind shares it)."""
    lines = (REPO / "perfetto-configs" / f"{name}.pbtxt").read_text().splitlines()
    body = lines.index("data_sources {")
    kinds = ("ftrace_events:", "syscall_events:", "atrace_categories:", "atrace_apps:", "name:")
    for i in range(body, len(lines)):
        kind = next((k for k in kinds if lines[i].strip().startswith(k)), None)
        if kind is None:
            continue
        j = i - 1
        while lines[j].strip().startswith(kind):
            j -= 1
        assert lines[j].strip().startswith("#"), f"{name}:{i + 1}: {lines[i].strip()} has no reader comment"


def test_device_specific_events_are_in_the_configs_that_need_them():
    listed = set(configs.ftrace_events(_cfg("artscope-affinity-debug")))
    assert set(configs.DEVICE_SPECIFIC) <= listed
    # the same SoC-specific memory-controller sources in every config
    for name in NAMES:
        assert configs.missing(_cfg(name), "memfreq") == []


def test_ftrace_events_adds_what_the_syscall_filter_enables():
    cfg = configs.parse_config(
        'data_sources { config { name: "linux.ftrace" ftrace_config {'
        ' ftrace_events: "sched/sched_switch" syscall_events: "sys_read" } } }')
    assert configs.ftrace_events(cfg) == ["sched/sched_switch", "raw_syscalls/sys_enter", "raw_syscalls/sys_exit"]


def test_cli_configs_show_help_has_an_example_and_the_guide():
    result = CliRunner().invoke(main, ["configs", "show", "--help"])
    assert result.exit_code == 0
    assert "artscope configs show full --app com.example.app --duration 60s > full.pbtxt" in result.stdout
    assert "docs/capturing.md" in result.stdout
    assert '<profileable android:shell="true"/>' in result.stdout
