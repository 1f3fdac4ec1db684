"""The compiled core's decoder on damaged and wrapped input: no damaged file
makes it panic or crash (seeded corruption loops over protobuf, systrace
text and gzip), bad input is a one-line TraceError naming the file, and a
container (gzip, zip, ctrace) is transparent: the same tables as its payload.
"""

from __future__ import annotations

import gzip
import io
import random
import sqlite3
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from artscope.engines.embedded import core
from artscope.errors import TraceError

REPO = Path(__file__).resolve().parents[2]

HEADER = (b"# tracer: nop\n#\n"
          b"#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
          b"#              | |        |      |   ||||       |         |\n")


def _corruptions(data: bytes, rng: random.Random, n: int) -> Iterator[bytes]:
    for _ in range(n):
        b = bytearray(data)
        how = rng.randrange(4)
        if how == 0:  # flip bytes
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif how == 1:  # truncate
            del b[rng.randrange(1, len(b)):]
        elif how == 2:  # splice a chunk elsewhere
            i, j = sorted(rng.randrange(len(b)) for _ in range(2))
            k = rng.randrange(len(b))
            b[k:k] = b[i:j][:4096]
        else:  # random varints / lengths overwritten with 0xff runs
            k = rng.randrange(len(b))
            b[k:k + rng.randint(1, 12)] = b"\xff" * rng.randint(1, 12)
        yield bytes(b)


#: What describes the file or the import's run, not the trace inside: the
#: UUID (hashed from the file's first bytes, containers included), the size of
#: the text a systrace HTML wraps, the import's timings.
_FILE_ROWS = {"metadata": "name NOT IN ('trace_uuid', 'trace_size_bytes')",
              "stats": "name NOT IN ('guess_trace_type_duration_ns', 'parse_trace_duration_ns')"}


def _rows(conn: sqlite3.Connection, containers: int = 0) -> dict[str, list[tuple[Any, ...]]]:
    """Every table and view, row by row with typed values (1 and 1.0 differ),
    without the rows that describe the file (_FILE_ROWS). A trace_id counts
    the files before the trace: its `containers` (trace_processor's
    trace_file ids: the gzip or zip file is 0, the trace inside it 1), taken
    off here so a trace reads the same in or out of them."""
    names = [n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    out = {}
    for n in names:
        cur = conn.execute(f"SELECT * FROM {n} WHERE {_FILE_ROWS.get(n, 'true')}")
        trace_ids = [i for i, d in enumerate(cur.description) if d[0] == "trace_id"]
        out[n] = [tuple((type(v).__name__, v - containers if i in trace_ids and v is not None
                         else v) for i, v in enumerate(r)) for r in cur]
    return out


def _assert_survives(variants: Iterator[bytes], import_bytes: Callable[[bytes, str], Any]
                     ) -> None:
    """Every damaged variant imports (possibly partially: its tables answer
    queries) or raises a one-line TraceError naming the input, never an
    internal error (a panic) or any other exception; some import."""
    imported_ok = 0
    for i, bad in enumerate(variants):
        name = f"variant-{i}"
        try:
            imported = import_bytes(bad, name)
        except TraceError as e:
            msg = str(e)
            assert name in msg and "\n" not in msg and "internal error" not in msg, msg
            continue
        assert imported.conn.execute("SELECT count(*) FROM sched").fetchone()[0] >= 0
        assert imported.packets > 0
        imported_ok += 1
    assert imported_ok > 0


@pytest.mark.parametrize("name", ["pinned_late_compact.pftrace", "frames.pftrace", "freq.pftrace"])
def test_decoder_survives_seeded_corruption(name):
    data = (REPO / "fixtures" / name).read_bytes()
    _assert_survives(_corruptions(data, random.Random(20261123), 150), core.import_proto)


def test_decoder_survives_seeded_corruption_of_track_events():
    """The track event decoder and tracker (interning, descriptors, delta
    times, annotations, callstacks, streaming profile samples) on damaged
    SDK, legacy, callstack and CPU profile sequences."""
    sys.path.insert(0, str(REPO / "tests"))
    import test_core_stack_profile as sp
    import test_core_track_event as te

    traces = (te._sdk_trace(), te._legacy_trace(), sp._callstack_trace(), sp._streaming_trace())
    for seed, data in enumerate(traces):
        _assert_survives(_corruptions(data, random.Random(seed), 150), core.import_proto)


def test_random_track_event_traces_import():
    """tools/track_event_fuzz.py's generator (random descriptors, parents,
    interning, defaults, events of every type and legacy phase, clocks,
    losses): every trace imports, none raises."""
    sys.path.insert(0, str(REPO / "tools"))
    import track_event_fuzz

    for seed in range(300):
        imported = core.import_proto(track_event_fuzz.gen(random.Random(seed)), f"seed-{seed}")
        assert imported.conn.execute("SELECT count(*) FROM slice").fetchone()[0] >= 0
    # and its callstack traces (interned / inline callstacks, CPU profile samples)
    for seed in range(100):
        data = track_event_fuzz.gen_callstacks(random.Random(seed))
        imported = core.import_proto(data, f"callstacks-{seed}")
        assert imported.conn.execute("SELECT count(*) FROM stack_profile_callsite").fetchone()[0] >= 0


def test_non_trace_bytes_raise_trace_error_naming_the_file():
    with pytest.raises(TraceError, match="junk.bin"):
        core.import_proto(b"\x00\x00\x00", "junk.bin")  # no packet at all


def _systrace_text() -> bytes:
    """A small bench/bench_systrace.py text (switches, wakings, atrace,
    counters) after a header and a few lines of every handled kind."""
    sys.path.insert(0, str(REPO / "bench"))
    import bench_systrace

    lines = HEADER + (
        b"   app-101   (  100) [001] d..3  10.000000: sched_switch: prev_comm=app prev_pid=101 "
        b"prev_prio=120 prev_state=D|K ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
        b"   app-101   (  100) [001] ...1  10.000001: tracing_mark_write: B|100|doFrame\n"
        b"  <...>-102  (-----) [002] d..4  10.000002: sched_waking: comm=rt pid=103 prio=110 "
        b"target_cpu=002\n"
        b" <idle>-0    (-----) [000] d..2  10.000003: cpu_frequency: state=1800000 cpu_id=0\n"
        b"garbage line\n")
    return lines + bench_systrace.synth(60_000, seed=3)


@pytest.mark.parametrize("what", ["systrace", "gzip"])
def test_decoder_survives_seeded_corruption_of_text_and_gzip(what):
    """Damaged systrace text and gzip files (flipped bytes, truncation,
    spliced chunks, 0xff runs)."""
    text = _systrace_text()
    data = text if what == "systrace" else gzip.compress(text)
    _assert_survives(_corruptions(data, random.Random(20261124), 60), core.import_trace)


def _zipped(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_containers_are_transparent():
    """gzip (also multi-member, a member ending past the 64 KiB step, a
    header longer than it, trailing zeros), zip (deflate, stored, nested),
    ctrace and HTML around a payload give exactly the payload's tables, not
    partial; trailing garbage after gzip and HTML's JSON blocks are ignored
    with a warning."""
    proto = (REPO / "fixtures" / "frames.pftrace").read_bytes()
    text = _systrace_text()
    gz_text = gzip.compress(text)
    raw = zlib.compressobj(wbits=-15)
    long_name = (b"\x1f\x8b\x08\x08\0\0\0\0\0\xff" + b"n" * 70_000 + b"\0"
                 + raw.compress(text) + raw.flush()
                 + (zlib.crc32(text)).to_bytes(4, "little") + len(text).to_bytes(4, "little"))
    payloads = {"proto": proto, "text": text}
    wrapped = {  # name: (payload, bytes, containers)
        "proto.gz": ("proto", gzip.compress(proto), 1),
        "proto.zip": ("proto", _zipped({"trace.pftrace": proto}), 1),
        "nested.zip": ("proto", _zipped({"__MACOSX/._t": b"x", "d/": b"",
                                         "t.gz": gzip.compress(proto)}), 2),
        "text.gz": ("text", gz_text, 1),
        "multi_member.gz": ("text", gzip.compress(text[:1000]) + gzip.compress(text[1000:]), 1),
        "multi_member_big.gz": ("text", gzip.compress(text[:200_000], compresslevel=0)
                                + gzip.compress(text[200_000:]), 1),
        "trailing_zeros.gz": ("text", gz_text + b"\0" * 10, 1),
        "long_name.gz": ("text", long_name, 1),
        "stored.zip": ("text", _zipped({"t.txt": text}, zipfile.ZIP_STORED), 1),
        "ctrace": ("text", b"capturing\nTRACE:\n" + zlib.compress(text), 1),
        "trailing_garbage.gz": ("text", gz_text + b"garbage", 1),
        "html_json": ("text", b'<!DOCTYPE html>\n<script class="trace-data" '
                      b'type="application/json">\n{"traceEvents": []}</script>\n'
                      b'<script class="trace-data" type="application/text">\n'
                      + text + b"</script>\n", 0),
    }
    warned = {"trailing_garbage.gz": "ignored 7 bytes of trailing garbage after the gzip stream",
              "html_json": "systrace HTML: ignored 1 JSON trace-data block(s) (Chrome JSON "
                           "events are not imported, as in trace_processor)"}
    want = {k: _rows(core.import_trace(v, k).conn) for k, v in payloads.items()}
    for name, (payload, data, containers) in wrapped.items():
        imported = core.import_trace(data, name)
        assert not imported.partial, name
        assert _rows(imported.conn, containers) == want[payload], name
        assert (warned[name] in imported.warnings) if name in warned else not any(
            "gzip" in w or "zip" in w or "HTML" in w for w in imported.warnings), name


def test_damaged_containers_are_partial_or_one_line_errors():
    """A cut gzip or ctrace keeps its intact prefix (partial, with a
    warning); other damage is a one-line TraceError naming the input."""
    text = _systrace_text()
    gz_text = gzip.compress(text)
    for name, data in {"truncated.gz": gz_text[: len(gz_text) // 2],
                       "ctrace_cut": b"TRACE:\n" + zlib.compress(text)[:5000]}.items():
        imported = core.import_trace(data, name)
        assert imported.partial and imported.warnings, name
    for name, data in {"header_only.gz": gz_text[:12],
                       "bad.gz": b"\x1f\x8b\x08\x00garbagegarbage",
                       "bad_crc.gz": gz_text[:-8] + bytes(8),
                       "cut.zip": _zipped({"a": text})[:60],
                       "two.zip": _zipped({"a": text, "b": text}),
                       "none.zip": _zipped({"d/": b""}),
                       "empty_member.zip": _zipped({"a": b""}),
                       "not_a_trace": b"Hello,\nthis is just a text file.\n" * 20,
                       "json": b'{"traceEvents": []}'}.items():
        with pytest.raises(TraceError) as e:
            core.import_trace(data, name)
        msg = str(e.value)
        assert name in msg and "\n" not in msg and "internal error" not in msg, msg
