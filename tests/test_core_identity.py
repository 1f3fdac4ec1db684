"""The compiled core (engine-core/) imports protobuf traces into tables
identical to the Python importer's: every table and view, row by row, typed
values (tools/compare_core.py does the same from the command line). And no
damaged input makes it panic or crash: a seeded corruption loop over the
decoder.

Skipped when the extension is not built (python3 tools/build_core.py).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from artscope.engines.embedded import core
from artscope.errors import TraceError

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "tests" / "conformance"))

import compare_core  # noqa: E402

pytestmark = pytest.mark.skipif(not core.available(),
                                reason="compiled core not built (python3 tools/build_core.py)")

FIXTURE_TRACES = sorted(p.name for p in (REPO / "fixtures").iterdir()
                        if p.name.endswith((".pftrace", ".pftrace.gz")))


@pytest.mark.parametrize("name", FIXTURE_TRACES)
def test_fixture_tables_identical(name):
    assert compare_core.compare(str(REPO / "fixtures" / name)) == []


@pytest.mark.slow
def test_shared_traces_tables_identical(shared_traces):
    traces = [p for p in sorted(shared_traces.iterdir()) if p.suffix != ".md"]
    results = {p.name: compare_core.compare(str(p)) for p in traces}
    compared = {k: v for k, v in results.items() if v[:1] != ["skipped: not a protobuf trace"]}
    assert compared, "no protobuf trace among the shared traces"
    assert compared == {k: [] for k in compared}


def _conformance_inputs() -> list[tuple[str, bytes]]:
    import conformance_runner as cr
    seen: dict[bytes, str] = {}
    for case in cr.discover():
        kind, data = cr.build_trace(case.path)
        if kind == "proto" and data not in seen:
            seen[data] = case.id
    return [(name, data) for data, name in seen.items()]


@pytest.mark.slow
def test_conformance_inputs_tables_identical():
    inputs = _conformance_inputs()
    assert len(inputs) > 20
    diffs = {name: compare_core.compare_bytes(data, name) for name, data in inputs}
    assert diffs == {name: [] for name, _ in inputs}


@pytest.mark.slow
def test_bench_trace_tables_identical(tmp_path):
    """A small bench/gen_trace.py trace in both encodings (compact_sched and
    plain sched_switch, with wakings, atrace, counters and frame timeline)."""
    sys.path.insert(0, str(REPO / "bench"))
    import gen_trace
    sim = gen_trace.simulate(2, 40_000, 3, 0.3)
    for compact in (True, False):
        data = gen_trace.encode(sim, compact)
        assert compare_core.compare_bytes(data, f"bench compact={compact}") == []


def _corruptions(data: bytes, rng: random.Random, n: int):
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


@pytest.mark.parametrize("name", ["pinned_late_compact.pftrace", "frames.pftrace", "freq.pftrace"])
def test_decoder_survives_seeded_corruption(name):
    """Every damaged variant imports (possibly partially) or raises TraceError
    naming the input; never a panic or any other exception."""
    data = (REPO / "fixtures" / name).read_bytes()
    rng = random.Random(20261123)
    outcomes = {"ok": 0, "error": 0}
    for i, bad in enumerate(_corruptions(data, rng, 150)):
        try:
            imported = core.import_proto(bad, f"variant-{i}")
        except TraceError as e:
            assert f"variant-{i}" in str(e)
            outcomes["error"] += 1
            continue
        # the tables answer queries
        assert imported.conn.execute("SELECT count(*) FROM sched").fetchone()[0] >= 0
        assert imported.packets > 0
        outcomes["ok"] += 1
    assert outcomes["ok"] > 0


def test_non_trace_bytes_raise_trace_error_naming_the_file():
    with pytest.raises(TraceError, match="junk.bin"):
        core.import_proto(b"\x00\x00\x00", "junk.bin")  # no packet at all


# -- systrace and containers: the core's own detection and unwrapping --------

def _systrace_texts() -> dict[str, bytes]:
    """Every systrace input of tests/test_systrace.py (synthetic text, HTML
    with PROCESS DUMPs, unsorted, invalid UTF-8, ...), the trappy HTML and a
    small bench/bench_systrace.py text."""
    import test_systrace as ts
    sys.path.insert(0, str(REPO / "bench"))
    import bench_systrace

    texts = {
        "atrace_marker": b"capturing trace... done\nTRACE:\ncpus=8\n"
                         b"a-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n",
        "no_newline": b"a-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n"
                      b"a-1 [000] 2.0: cpu_idle: state=2 cpu_id=0",
        "unsorted": b"a-1 (1) [000] .... 2.0: print: B|1|x\nb-1 (1) [000] .... 1.0: print: E|1\n"
                    b"a-1 (1) [000] .... 3.0: print: B|1|y\n",
        "invalid_utf8": b"a\xff-1 [000] 1.0: print: B|1|x\xfey\nb\xe2\x82-2 [001] 1.5: "
                        b"sched_switch: prev_comm=b\xe2\x82 prev_pid=2 prev_prio=120 prev_state=S"
                        b" ==> next_comm=c\xc3 next_pid=3 next_prio=120\n",
        "bench_systrace": bench_systrace.synth(400_000, seed=3),
        "header_only": ts.SYSTRACE_TEXT,
    }
    for name, fn in (("decoder_events", ts.test_decoder_events_and_packets),
                     ("html_process_dump", ts.test_html_process_dump_and_sections)):
        captured = []
        real_decode = ts.decode
        ts.decode = lambda text, _c=captured: (_c.append(text), real_decode(text))[1]
        try:
            fn()
        finally:
            ts.decode = real_decode
        (text,) = captured
        texts[name] = text.encode() if isinstance(text, str) else text
    out = Path(__import__("tempfile").mkdtemp()) / "s.txt"
    ts._write_text(out)
    texts["parity_schedule"] = out.read_bytes()
    if ts.REAL.exists():
        texts["trappy_html"] = ts.REAL.read_bytes()
    return texts


def test_systrace_tables_identical():
    texts = _systrace_texts()
    diffs = {name: compare_core.compare_file_bytes(data, name) for name, data in texts.items()}
    assert diffs == {name: [] for name in texts}


def _containers() -> dict[str, bytes]:
    import gzip
    import io
    import zipfile
    import zlib

    proto = (REPO / "fixtures" / "frames.pftrace").read_bytes()
    text = _systrace_texts()["bench_systrace"]

    def zipped(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as zf:
            for name, data in members.items():
                zf.writestr(name, data)
        return buf.getvalue()

    gz_text = gzip.compress(text)
    # a gzip header longer than the 64 KiB decompression step (FNAME)
    raw = zlib.compressobj(wbits=-15)
    long_name = (b"\x1f\x8b\x08\x08\0\0\0\0\0\xff" + b"n" * 70_000 + b"\0"
                 + raw.compress(text) + raw.flush()
                 + (zlib.crc32(text)).to_bytes(4, "little") + len(text).to_bytes(4, "little"))
    return {
        "proto.gz": gzip.compress(proto),
        "text.gz": gz_text,
        "multi_member.gz": gzip.compress(text[:1000]) + gzip.compress(text[1000:]),
        # the first member ends past the first 64 KiB step (stored blocks)
        "multi_member_big.gz": gzip.compress(text[:200_000], compresslevel=0)
        + gzip.compress(text[200_000:]),
        "truncated.gz": gz_text[: len(gz_text) // 2],
        "header_only.gz": gz_text[:12],
        "trailing_zeros.gz": gz_text + b"\0" * 10,
        "trailing_garbage.gz": gz_text + b"garbage",
        "bad_crc.gz": gz_text[:-8] + bytes(8),
        "bad.gz": b"\x1f\x8b\x08\x00garbagegarbage",
        "long_name.gz": long_name,
        "proto.zip": zipped({"trace.pftrace": proto}),
        "stored.zip": zipped({"t.txt": text}, zipfile.ZIP_STORED),
        "nested.zip": zipped({"__MACOSX/._t": b"x", "d/": b"", "t.gz": gzip.compress(proto)}),
        "two.zip": zipped({"a": proto, "b": proto}),
        "none.zip": zipped({"d/": b""}),
        "empty_member.zip": zipped({"a": b""}),
        "cut.zip": zipped({"a": proto})[:60],
        "ctrace": b"capturing\nTRACE:\n" + zlib.compress(text),
        "ctrace_cut": b"TRACE:\n" + zlib.compress(text)[:5000],
        "html_json": b'<!DOCTYPE html>\n<script class="trace-data" type="application/json">\n'
                     b'{"traceEvents": []}</script>\n'
                     b'<script class="trace-data" type="application/text">\n'
                     + text + b"</script>\n",
        "not_a_trace": b"Hello,\nthis is just a text file.\n" * 20,
        "json": b'{"traceEvents": []}',
    }


def test_containers_identical():
    """gzip (multi-member, truncated, corrupt, trailing bytes), zip (deflate,
    stored, nested, bad), ctrace and HTML: same tables, partial flag and
    warnings, or the same one-line error. zlib's own wording of a deflate
    error is not reproduced, so those compare tables and flags only."""
    cases = _containers()
    diffs = {name: compare_core.compare_file_bytes(data, name,
                                                   check_warnings=name not in ("bad.gz",))
             for name, data in cases.items()}
    assert diffs == {name: [] for name in cases}


@pytest.mark.parametrize("what", ["systrace", "gzip"])
def test_seeded_corruption_identical(what):
    """Damaged systrace text and gzip files (flipped bytes, truncation,
    spliced chunks, 0xff runs): the core's tables, partial flag (and, for
    text, warnings) equal the Python importer's, or both reject the input."""
    import gzip

    text = _systrace_texts()["decoder_events"] + _systrace_texts()["bench_systrace"][:60_000]
    data = text if what == "systrace" else gzip.compress(text)
    rng = random.Random(20261124)
    diffs = {}
    for i, bad in enumerate(_corruptions(data, rng, 60)):
        d = compare_core.compare_file_bytes(bad, f"variant-{i}",
                                            check_warnings=what == "systrace")
        if d:
            diffs[i] = d
    assert diffs == {}
