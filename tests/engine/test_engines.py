"""Engine selection and the trace_processor engine's binary resolution.

The trace_processor tests run for real wherever a binary is available
(ARTSCOPE_TP_BIN or trace_processor_shell on PATH) and skip, saying so,
everywhere else.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest

from artscope.engines import load_trace
from artscope.engines import trace_processor as tp
from artscope.errors import EngineUnavailable, UsageError

FIX = Path(__file__).resolve().parents[2] / "fixtures"


def _binary() -> str | None:
    try:
        return tp.find_local_binary()
    except EngineUnavailable:
        return None


needs_tp = pytest.mark.skipif(
    _binary() is None,
    reason="no trace_processor binary: set ARTSCOPE_TP_BIN or put trace_processor_shell on PATH")


@pytest.fixture
def no_binary(monkeypatch, tmp_path):
    """A world without any trace_processor binary (and no pinned cache)."""
    monkeypatch.delenv(tp.ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tp, "_cached_pinned_binary", lambda: None)


def test_auto_falls_back_to_embedded(no_binary):
    with load_trace(FIX / "pinned_clean.pftrace", engine="auto") as eng:
        assert eng.name == "embedded"


def test_unknown_engine_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown engine"):
        load_trace(FIX / "pinned_clean.pftrace", engine="duckdb")


def test_trace_processor_fails_fast_without_binary(no_binary, monkeypatch):
    # No binary and no reachable download host: a clear error within seconds.
    monkeypatch.setattr(tp, "_DOWNLOAD_HOST", ("192.0.2.1", 9))  # TEST-NET: unroutable
    monkeypatch.setattr(tp, "_CONNECT_TIMEOUT_S", 1.0)
    t0 = time.monotonic()
    with pytest.raises(EngineUnavailable) as e:
        load_trace(FIX / "pinned_clean.pftrace", engine="trace_processor")
    assert time.monotonic() - t0 < 10
    assert "ARTSCOPE_TP_BIN" in str(e.value) and "\n" not in str(e.value)


def test_explicit_binary_must_be_executable(tmp_path, monkeypatch):
    fake = tmp_path / "trace_processor_shell"
    fake.write_text("not a binary")
    monkeypatch.setenv(tp.ENV_VAR, str(fake))
    with pytest.raises(EngineUnavailable, match="not an executable file"):
        tp.find_local_binary()
    with pytest.raises(EngineUnavailable, match="--tp-bin"):
        tp.find_local_binary(str(tmp_path / "missing"))


def test_binary_on_path_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "trace_processor_shell"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.delenv(tp.ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    assert tp.find_local_binary() == str(fake)


def test_bad_input_same_error_on_both_engines(no_binary, tmp_path):
    empty = tmp_path / "empty.pftrace"
    empty.write_bytes(b"")
    for engine in ("embedded", "trace_processor"):
        with pytest.raises(Exception, match="empty file"):
            load_trace(empty, engine=engine)


@needs_tp
def test_trace_processor_loads_fixture_with_raw_ingestion():
    with load_trace(FIX / "pinned_clean.pftrace", engine="trace_processor") as eng:
        assert eng.name == "trace_processor"
        assert eng.query("SELECT count(*) AS n FROM ftrace_event")["n"][0] > 0
        emb = load_trace(FIX / "pinned_clean.pftrace", engine="embedded")
        for sql in ("SELECT start_ts, end_ts FROM trace_bounds",
                    "SELECT count(*) AS n FROM sched",
                    "SELECT count(*) AS n FROM slice"):
            assert eng.query(sql).rows() == emb.query(sql).rows(), sql


@needs_tp
@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("setpriv") is None,
                    reason="no setpriv (util-linux) here: the shell cannot follow its parent")
def test_shell_dies_with_a_killed_client():
    """A client SIGKILLed mid-analysis (no close, no atexit) takes its
    trace_processor_shell with it instead of leaving it running."""
    import signal
    import subprocess

    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from artscope.engines import load_trace\n"
         f"eng = load_trace({str(FIX / 'pinned_clean.pftrace')!r}, engine='trace_processor')\n"
         "print(eng._shell.pid, flush=True)\n"
         "time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        shell = int(child.stdout.readline())
        os.kill(shell, 0)  # running
        child.kill()
        child.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(shell, 0)
            except ProcessLookupError:
                return
            # reaped by init once killed; a zombie still answers kill(0)
            with open(f"/proc/{shell}/stat") as f:
                if f.read().split(") ")[1].startswith("Z"):
                    return
            time.sleep(0.05)
        os.kill(shell, signal.SIGKILL)
        pytest.fail("trace_processor_shell outlived its SIGKILLed client")
    finally:
        child.kill()


def test_bounds_include_sys_stats_counters_not_imported():
    # trace_processor makes meminfo/vmstat counters from these packets, which
    # bound the trace; the embedded engine does not import them but must give
    # the same trace_bounds: [500, 3000], not the lone ftrace event's [1000].
    from perfetto.trace_builder.proto_builder import TraceProtoBuilder

    from artscope.engines.embedded import EmbeddedEngine

    b = TraceProtoBuilder()
    p = b.add_packet()
    p.timestamp = 500
    m = p.sys_stats.meminfo.add()
    m.key, m.value = 1, 100
    p = b.add_packet()
    p.ftrace_events.cpu = 0
    e = p.ftrace_events.event.add()
    e.timestamp, e.pid = 1000, 1
    e.cpu_frequency.state, e.cpu_frequency.cpu_id = 5, 0
    p = b.add_packet()
    p.timestamp = 3000
    v = p.sys_stats.vmstat.add()
    v.key, v.value = 1, 100
    eng = EmbeddedEngine()
    eng.load_bytes(b.serialize())
    assert eng.query("SELECT start_ts, end_ts FROM trace_bounds").rows() == [(500, 3000)]


@pytest.mark.parametrize("engine", [
    "embedded", pytest.param("trace_processor", marks=needs_tp)])
def test_repeated_column_names_are_suffixed_not_an_error(engine):
    # SQL users write this all the time; a DataFrame cannot hold two "name"s.
    with load_trace(FIX / "pinned_clean.pftrace", engine=engine) as eng:
        df = eng.query("SELECT t.name, p.name, p.name AS name_right FROM thread t "
                       "JOIN process p USING (upid) WHERE p.name = 'com.example.bench' "
                       "AND t.tid = p.pid")
    assert df.columns == ["name", "name_right_2", "name_right"]
    # the main thread's name is its 15-character comm
    assert df.rows() == [("m.example.bench", "com.example.bench", "com.example.bench")]


def test_unique_column_names():
    from artscope.engines.base import unique_column_names

    assert unique_column_names(["a", "b"]) == ["a", "b"]
    assert unique_column_names(["a", "a", "a"]) == ["a", "a_right", "a_right_2"]
    assert unique_column_names(["a", "a", "a_right"]) == ["a", "a_right_2", "a_right"]


def test_empty_first_packet_is_read_as_trace_processor_reads_it(tmp_path):
    # An empty TracePacket (0x0a 0x00) is valid protobuf; trace_processor reads
    # what follows it. The fixture has 1,532 sched rows (as without the packet).
    path = tmp_path / "empty_first.pftrace"
    path.write_bytes(b"\x0a\x00" * 3 + (FIX / "pinned_clean.pftrace").read_bytes())
    with load_trace(FIX / "pinned_clean.pftrace", engine="embedded") as plain, \
            load_trace(path, engine="embedded") as eng:
        n = plain.query("SELECT count(*) AS n FROM sched")["n"][0]
        assert n == 1532
        assert eng.query("SELECT count(*) AS n FROM sched")["n"][0] == n


# -- query errors: one QueryError line on both engines ----------------------------

from artscope.errors import QueryError  # noqa: E402


@needs_tp
@pytest.mark.tp
@pytest.mark.parametrize("sql, message", [
    ("SELECT * FROM nosuch", "no such table: nosuch (line 1, column 1)"),
    ("SELECT nocol FROM sched", "no such column: nocol (line 1, column 8)"),
    ("SELEC 1", "syntax error near 'SELEC' (line 1, column 1)"),
    ("INCLUDE PERFETTO MODULE no.such_module; SELECT 1",
     "INCLUDE: Package 'no.such_module' not found"),
])
def test_trace_processor_query_errors_are_one_line(sql, message):
    with load_trace(FIX / "pinned_clean.pftrace", engine="trace_processor") as eng:
        with pytest.raises(QueryError) as exc:
            eng.query(sql)
        assert str(exc.value) == f"query failed on the trace_processor engine: {message}"
        # the shell still answers
        assert eng.query("SELECT count(*) AS n FROM cpu")["n"][0] == 8


@pytest.mark.parametrize("sql, message", [
    # a typo: no engine has it; the closest trace_processor names are offered
    ("SELECT * FROM slcie",
     "no such table 'slcie': neither the embedded engine nor trace_processor has it (did you "
     "mean 'slice' or 'slices' or 'sched'?); a table of Perfetto's standard library needs "
     "INCLUDE PERFETTO MODULE on the trace_processor engine"),
    ("SELECT * FROM main.thred",
     "no such table 'main.thred': neither the embedded engine nor trace_processor has it (did "
     "you mean 'thread' or 'sched'?); a table of Perfetto's standard library needs INCLUDE "
     "PERFETTO MODULE on the trace_processor engine"),
    # a trace_processor table the embedded engine does not serve
    ("SELECT * FROM heap_graph_object",
     "the embedded engine does not serve table 'heap_graph_object'; query it with "
     "trace_processor: --engine trace_processor, or load_trace(path, "
     "engine='trace_processor') with ARTSCOPE_TP_BIN set"),
    # PerfettoSQL
    ("INCLUDE PERFETTO MODULE android.startup.startups;\nSELECT * FROM android_startups",
     "INCLUDE PERFETTO MODULE android.startup.startups: Perfetto's standard library needs the "
     "trace_processor engine, not the embedded one; query it with trace_processor: --engine "
     "trace_processor, or load_trace(path, engine='trace_processor') with ARTSCOPE_TP_BIN set"),
    ("  include  perfetto module linux.cpu.frequency",
     "INCLUDE PERFETTO MODULE linux.cpu.frequency: Perfetto's standard library needs the "
     "trace_processor engine, not the embedded one; query it with trace_processor: --engine "
     "trace_processor, or load_trace(path, engine='trace_processor') with ARTSCOPE_TP_BIN set"),
    ("CREATE PERFETTO TABLE big AS SELECT 1",
     "CREATE PERFETTO TABLE big: PerfettoSQL statements need the trace_processor engine, not "
     "the embedded one; query it with trace_processor: --engine trace_processor, or "
     "load_trace(path, engine='trace_processor') with ARTSCOPE_TP_BIN set"),
])
def test_embedded_query_errors_tell_unknown_from_unserved(sql, message):
    with load_trace(FIX / "pinned_clean.pftrace", engine="embedded") as eng:
        with pytest.raises(QueryError) as exc:
            eng.query(sql)
        assert str(exc.value) == message


# -- --cpus naming CPUs the trace does not have ------------------------------------

from artscope.metrics.selection import check_cpus_exist  # noqa: E402


def test_check_cpus_exist():
    assert check_cpus_exist([6, 7], range(8)) == [6, 7]
    with pytest.raises(UsageError) as exc:
        check_cpus_exist([7, 9, 10], range(8))
    assert str(exc.value) == "CPUs 9-10 are not in the trace, whose CPUs are 0-7"
    with pytest.raises(UsageError, match=r"^CPU 4 is not in the trace, whose CPUs are 0-3,6$"):
        check_cpus_exist([4], [0, 1, 2, 3, 6])
    # a trace naming no CPU has nothing to judge them against
    with pytest.raises(UsageError, match="the trace has no CPU data"):
        check_cpus_exist([9], [])


@pytest.mark.parametrize("engine", [
    "embedded", pytest.param("trace_processor", marks=[needs_tp, pytest.mark.tp])])
@pytest.mark.parametrize("flag", ["--cpus", "--gc-cpus"])
def test_cpus_not_in_the_trace_is_a_usage_error(engine, flag):
    import subprocess

    # pinned_clean has CPUs 0-7 (CpuInfo and sched)
    p = subprocess.run([sys.executable, "-m", "artscope.cli", "analyze",
                        str(FIX / "pinned_clean.pftrace"), "--app", "com.example.bench",
                        flag, "6,9,10", "--engine", engine],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr == ("artscope: error: CPUs 9-10 are not in the trace, whose CPUs are 0-7\n")


@pytest.mark.parametrize("engine", [
    "embedded", pytest.param("trace_processor", marks=[needs_tp, pytest.mark.tp])])
def test_cpus_not_in_a_real_trace(shared_traces, engine):
    from artscope.metrics.options import AnalysisOptions
    from artscope.metrics.runner import MetricRunner
    from artscope.metrics.selection import select

    # api32 comes from a Pixel 6a: 8 CPUs
    with load_trace(shared_traces / "perfskills-api32_startup_warm.perfetto-trace",
                    engine=engine) as eng:
        with pytest.raises(UsageError, match=r"^CPUs 9-10 are not in the trace, whose CPUs "
                                             r"are 0-7$"):
            select(MetricRunner(eng), AnalysisOptions(pid=7663, cpus="9,10"))
