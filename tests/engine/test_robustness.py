"""Damaged input never crashes artscope: a corrupted or cut trace is either
analysed (marked partial where the damage is seen) or refused with an
ArtscopeError — never any other exception.

Corruption is deterministic (seeded byte flips and cuts of real files); the
seeds below each once found a crash (invalid UTF-8 in strings, wire types
that do not fit the frame-timeline fields).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import artscope
from artscope.errors import ArtscopeError

FIX = Path(__file__).resolve().parents[2] / "fixtures"


def _damage(data: bytes, seed: int) -> bytes:
    rnd = random.Random(seed)
    d = bytearray(data)
    for _ in range(rnd.choice([10, 200, 2000])):
        d[rnd.randrange(len(d))] = rnd.randrange(256)
    if seed % 3 == 0:
        d = d[:rnd.randrange(len(d))]
    return bytes(d)


def _analyse(path: Path, **kw) -> None:
    try:
        with artscope.open(path, engine="embedded", **kw) as runs:
            assert runs.results
    except ArtscopeError:
        pass


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", ["frames.pftrace", "pinned_late.pftrace"])
def test_damaged_fixture(tmp_path, name, seed):
    path = tmp_path / name
    path.write_bytes(_damage((FIX / name).read_bytes(), seed))
    _analyse(path, app="com.example.bench", cpus="6,7")


@pytest.mark.parametrize("name,seed,kw", [
    ("perfskills-api32_startup_warm.perfetto-trace", 11, dict(pid=26290, cpus="6,7")),
    ("nia-sidky.perfetto-trace", 4, dict(app="com.google.samples.apps.nowinandroid.demo")),
    ("trappy-surfaceflinger.html", 5, dict(pid=594, cpus="0-3")),
])
def test_damaged_real_trace(tmp_path, shared_traces, name, seed, kw):
    path = tmp_path / name
    path.write_bytes(_damage((shared_traces / name).read_bytes(), seed))
    _analyse(path, **kw)


# -- truncation is seen, on both engines -------------------------------------------

from artscope.engines import load_trace  # noqa: E402
from artscope.engines import trace_processor as _tp  # noqa: E402
from artscope.engines.truncation import (HTML_NO_END_MARKER, HTML_UNCLOSED_BLOCK,  # noqa: E402
                                         TEXT_CUT_LINE, TRUNCATED_WARNING)
from artscope.errors import EngineUnavailable, SelectionError  # noqa: E402
from artscope.metrics.options import AnalysisOptions  # noqa: E402
from artscope.metrics.runner import MetricRunner  # noqa: E402
from artscope.metrics.selection import select  # noqa: E402


def _has_tp() -> bool:
    try:
        return _tp.find_local_binary() is not None
    except EngineUnavailable:
        return False


ENGINES = ["embedded", pytest.param("trace_processor", marks=[
    pytest.mark.tp, pytest.mark.skipif(not _has_tp(), reason="no trace_processor binary")])]


def _loaded(path: Path, engine: str) -> tuple[bool, list[str]]:
    with load_trace(path, engine=engine) as eng:
        return eng.info.partial, list(eng.info.warnings)


def _packet_starts(data: bytes) -> list[int]:
    """Offsets of the top-level TracePackets (field 1, length-delimited)."""
    starts, pos = [], 0
    while pos < len(data):
        starts.append(pos)
        assert data[pos] == 0x0A
        pos += 1
        length = shift = 0
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        pos += length
    assert pos == len(data)
    return starts


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", [0.25, 0.5, 0.9])
def test_protobuf_cut_inside_a_packet_is_partial(tmp_path, engine, where):
    data = (FIX / "frames.pftrace").read_bytes()
    starts = _packet_starts(data)
    # 3 bytes into a packet: past its tag and (1-2 byte) length, before its end
    k = int(len(starts) * where)
    assert starts[k + 1] - starts[k] > 3
    path = tmp_path / "cut.pftrace"
    path.write_bytes(data[:starts[k] + 3])
    partial, warnings = _loaded(path, engine)
    assert partial and TRUNCATED_WARNING in warnings


@pytest.mark.parametrize("engine", ENGINES)
def test_protobuf_cut_at_a_packet_boundary_cannot_be_seen(tmp_path, engine):
    data = (FIX / "frames.pftrace").read_bytes()
    starts = _packet_starts(data)
    path = tmp_path / "cut.pftrace"
    path.write_bytes(data[:starts[len(starts) // 2]])
    assert _loaded(path, engine) == (False, [])


#: A systrace HTML page as systrace writes it: one text trace-data block
#: between the BEGIN / END TRACE markers.
_LINES = (
    "# tracer: nop\n#\n"
    "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
    "#              | |        |      |   ||||       |         |\n"
    "          <idle>-0     (    0) [000] d..2  1.000000: sched_switch: prev_comm=swapper/0 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120\n"
    "             app-100   (  100) [000] d..2  1.500000: sched_switch: prev_comm=app "
    "prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
)
_BLOCK_START = '<!-- BEGIN TRACE -->\n<script class="trace-data" type="application/text">\n'
_HTML = ("<!DOCTYPE html>\n<html><head></head><body>\n" + _BLOCK_START + _LINES
         + "</script>\n<!-- END TRACE -->\n</body>\n</html>\n")


def _html_cut(after: str, keep: int = 0) -> str:
    """_HTML up to the end of ``after`` (its first occurrence) plus ``keep``
    more characters."""
    return _HTML[:_HTML.index(after) + len(after) + keep]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text, expected", [
    (_HTML, None),
    # inside the block, after its first sched_switch line: 20 characters
    # into the second line, then at its start
    (_html_cut("next_prio=120\n", 20), HTML_UNCLOSED_BLOCK),
    (_html_cut("next_prio=120\n"), HTML_UNCLOSED_BLOCK),
    # after the block, before the END TRACE marker: data may be lost
    (_html_cut("</script>\n"), HTML_NO_END_MARKER),
    # after the END TRACE marker: no trace data is missing
    (_html_cut("<!-- END TRACE -->\n"), None),
])
def test_systrace_html_cut_before_its_end_is_partial(tmp_path, engine, text, expected):
    path = tmp_path / "cut.html"
    path.write_text(text)
    partial, warnings = _loaded(path, engine)
    assert partial is (expected is not None)
    if expected:
        assert warnings[0] == expected


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("keep, expected", [
    (len(_LINES), None),
    (len(_LINES) - 10, TEXT_CUT_LINE),  # inside the last line
    # exactly after the first sched_switch line: a cut no reader can see
    (_LINES.index("\n             app-100") + 1, None),
])
def test_systrace_text_cut_mid_line_is_partial(tmp_path, engine, keep, expected):
    path = tmp_path / "cut.txt"
    path.write_text(_LINES[:keep])
    partial, warnings = _loaded(path, engine)
    assert partial is (expected is not None)
    if expected:
        assert warnings[0] == expected


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, where, expected", [
    ("trappy-surfaceflinger.html", 0.2, HTML_UNCLOSED_BLOCK),
    ("trappy-surfaceflinger.html", 0.4, HTML_UNCLOSED_BLOCK),
    ("trappy-surfaceflinger.html", 0.9, HTML_UNCLOSED_BLOCK),
    ("perfskills-api32_startup_warm.perfetto-trace", 0.4, TRUNCATED_WARNING),
    ("perfskills-api32_startup_warm.perfetto-trace", 0.9, TRUNCATED_WARNING),
    ("nia-sidky.perfetto-trace", 0.4, TRUNCATED_WARNING),
])
def test_cut_real_traces_are_partial(tmp_path, shared_traces, engine, name, where, expected):
    data = (shared_traces / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(data[:int(len(data) * where)])
    partial, warnings = _loaded(path, engine)
    assert partial and expected in warnings


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["trappy-surfaceflinger.html",
                                  "perfskills-api32_startup_warm.perfetto-trace",
                                  "nia-sidky.perfetto-trace"])
def test_whole_real_traces_are_not_partial(shared_traces, engine, name):
    assert _loaded(shared_traces / name, engine)[0] is False


@pytest.mark.parametrize("engine", ENGINES)
def test_trappy_without_its_closing_html_tag_is_complete(tmp_path, shared_traces, engine):
    data = (shared_traces / "trappy-surfaceflinger.html").read_bytes()
    assert data.endswith(b"<!-- END TRACE -->\n</body>\n</html>\n")
    path = tmp_path / "trappy.html"
    path.write_bytes(data[:-len(b"</body>\n</html>\n")])
    assert _loaded(path, engine)[0] is False


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, expected", [
    ("perfskills-api32_startup_warm.perfetto-trace", TRUNCATED_WARNING),
    ("trappy-surfaceflinger.html", HTML_UNCLOSED_BLOCK),
])
def test_app_not_found_in_a_cut_trace_says_it_is_truncated(tmp_path, shared_traces, engine,
                                                          name, expected):
    data = (shared_traces / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(data[:int(len(data) * 0.4)])
    with load_trace(path, engine=engine) as eng:
        with pytest.raises(SelectionError) as exc:
            select(MetricRunner(eng), AnalysisOptions(app="com.example.absent"))
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith(f"app 'com.example.absent' is not in the trace, which is only partly "
                          f"imported ({expected}): it may be in the lost part; best candidates")


def _trappy_text(shared_traces: Path) -> bytes:
    """The ftrace text of trappy's systrace HTML (its text trace-data block
    that holds a '# tracer' header), as a plain text trace."""
    html = (shared_traces / "trappy-surfaceflinger.html").read_bytes()
    tag = b'<script class="trace-data" type="application/text">\n'
    blocks = [b.split(b"</script>")[0] for b in html.split(tag)[1:]]
    (text,) = [b for b in blocks if b.startswith(b"# tracer")]
    return text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", [None, 0.3, 0.75])
def test_real_ftrace_text_cut_mid_line_is_partial(tmp_path, shared_traces, engine, where):
    text = _trappy_text(shared_traces)
    # the page indents its closing tag: the text ends in blanks after its
    # last newline, which are not a cut line
    assert text.endswith(b"\n  ")
    cut = text if where is None else text[:int(len(text) * where)]
    path = tmp_path / "trappy.txt"
    path.write_bytes(cut)
    partial, warnings = _loaded(path, engine)
    # a cut that lands right after a newline would not be seen: these do not
    assert cut.rstrip(b" ").endswith(b"\n") is (where is None)
    assert partial is (where is not None)
    if where is not None:
        assert warnings[0] == TEXT_CUT_LINE
