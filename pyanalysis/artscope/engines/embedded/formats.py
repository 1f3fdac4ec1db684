"""What is this file? Detect a trace's format from its content, not its name.

``read_trace_bytes(path)`` returns the trace payload after unwrapping any
container (gzip, zip, atrace's zlib "ctrace"), as one of two kinds the
embedded engine decodes:

* ``"proto"``    Perfetto protobuf (``proto.py``)
* ``"systrace"`` systrace HTML or plain ftrace / atrace text (``text.py``)

Detection mirrors trace_processor's ``GuessTraceType``
(src/trace_processor/util/trace_type.cc) where it matters for parity:

* gzip magic ``1f 8b`` and zip magic ``PK\\x03\\x04`` are containers;
* ``# tracer`` in the first 64 bytes, a leading ``<!DOCTYPE html>`` /
  ``<html>``, or atrace's ``TRACE:\\n`` marker mean systrace; ``TRACE:\\n``
  followed by a zlib header (``78 9c``) is a compressed ctrace;
* a first byte ``0x0a`` (TracePacket field 1, length-delimited) means proto.

Deliberate differences, each stricter or friendlier than trace_processor:

* proto: the first packet's length varint must be valid and non-zero and
  the bytes that follow must look like protobuf fields (trace_processor only
  checks the first byte, so random bytes starting with ``0a`` would pass);
* systrace HTML must contain a ``<script class="trace-data"`` block;
  Chrome-JSON trace-data blocks are ignored with a warning (trace_processor
  ignores them silently);
* headerless ftrace text is accepted when its first lines tokenize as ftrace
  lines (trace_processor only accepts such text when it starts with a
  space); a file trace_processor would reject is then still imported here.
* a truncated or corrupt gzip yields its intact prefix plus a warning.
"""

from __future__ import annotations

import dataclasses
import io
import os
import zipfile
import zlib
from pathlib import Path

from artscope.errors import TraceError

#: trace_processor's kGuessTraceMaxLookahead (trace_type.h).
GUESS_LOOKAHEAD = 64

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_TRACE_DATA_TAG = b'<script class="trace-data"'
_MAX_NESTING = 4


@dataclasses.dataclass
class TraceBytes:
    """A trace's decoded payload: ``kind`` is "proto" or "systrace"."""

    kind: str
    data: bytes
    #: One-line warnings (truncated gzip, ignored JSON blocks...).
    warnings: list[str] = dataclasses.field(default_factory=list)
    #: Containers unwrapped on the way, outermost first ("gzip", "zip", "ctrace").
    containers: list[str] = dataclasses.field(default_factory=list)
    #: True when a container was truncated/corrupt and only a prefix is here.
    partial: bool = False


def read_trace_bytes(path: str | os.PathLike[str]) -> TraceBytes:
    """Read ``path`` and return its trace payload; TraceError for bad input."""
    data = read_file(path)
    out = TraceBytes(kind="", data=b"")
    _unwrap(data, str(path), out, depth=0)
    return out


def read_file(path: str | os.PathLike[str]) -> bytes:
    """``path``'s bytes; TraceError when it is missing, a directory,
    unreadable or empty."""
    p = Path(path)
    try:
        if not p.exists():
            raise TraceError(f"no such file: {p}")
        if p.is_dir():
            raise TraceError(f"is a directory, not a trace file: {p}")
        data = p.read_bytes()
    except TraceError:
        raise
    except OSError as e:
        raise TraceError(f"cannot read {p}: {e.strerror or e}") from None
    if not data:
        raise TraceError(f"empty file: {p}")
    return data


def detect_kind(data: bytes) -> str | None:
    """Classify raw bytes: 'gzip', 'zip', 'ctrace', 'systrace', 'proto' or None."""
    if not data:
        return None
    if data.startswith(_GZIP_MAGIC):
        return "gzip"
    if data.startswith(_ZIP_MAGIC):
        return "zip"
    start = data[:GUESS_LOOKAHEAD]
    # Chrome JSON is not ours (trace_processor has its own JSON importer).
    stripped = bytes(b for b in start if b not in b" \t\n\v\f\r")
    if stripped.startswith(b'{"') or stripped.startswith(b'[{"'):
        return None
    if b"# tracer" in start:
        return "systrace"
    if _is_html(data):
        return "systrace" if _TRACE_DATA_TAG in data else None
    if b"TRACE:\n\x78\x9c" in start:
        return "ctrace"
    if b"TRACE:\n" in start:
        return "systrace"
    if _looks_like_ftrace_text(data):
        return "systrace"
    if _looks_like_proto(data):
        return "proto"
    return None


# -- internals ---------------------------------------------------------------


def _unwrap(data: bytes, name: str, out: TraceBytes, depth: int) -> None:
    if depth > _MAX_NESTING:
        raise TraceError(f"too many nested containers: {name}")
    kind = detect_kind(data)
    if kind is None:
        raise TraceError(f"not a Perfetto or systrace trace: {name}")
    if kind == "gzip":
        out.containers.append("gzip")
        inner = _gunzip(data, name, out)
        if not inner:
            raise TraceError(f"gzip file holds no data: {name}")
        _unwrap(inner, name, out, depth + 1)
    elif kind == "zip":
        out.containers.append("zip")
        member, inner = _unzip(data, name)
        if not inner:
            raise TraceError(f"zip member {member} is empty: {name}")
        _unwrap(inner, f"{name}:{member}", out, depth + 1)
    elif kind == "ctrace":
        out.containers.append("ctrace")
        inner = _inflate_ctrace(data, name, out)
        if not inner:
            raise TraceError(f"compressed atrace holds no data: {name}")
        _unwrap(inner, name, out, depth + 1)
    else:
        out.kind = kind
        out.data = data
        if kind == "systrace" and _is_html(data):
            n_json = _count_json_blocks(data)
            if n_json:
                out.warnings.append(
                    f"systrace HTML: ignored {n_json} JSON trace-data block(s) "
                    "(Chrome JSON events are not imported, as in trace_processor)"
                )


def _gunzip(data: bytes, name: str, out: TraceBytes) -> bytes:
    """Decompress all gzip members; keep the intact prefix of a damaged stream."""
    chunks: list[bytes] = []
    rest = data
    step = 1 << 16
    while rest:
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        pos = 0
        try:
            while pos < len(rest) and not d.eof:
                chunks.append(d.decompress(rest[pos : pos + step]))
                pos += step
            # the next member starts after this one's trailer, wherever that
            # was in the last step (unused_data only holds that step's rest)
            end = min(pos, len(rest)) - len(d.unused_data)
            if not d.eof:
                chunks.append(d.flush())
        except zlib.error as e:
            got = sum(map(len, chunks))
            if got == 0:
                raise TraceError(f"corrupt gzip ({e}): {name}") from None
            out.partial = True
            out.warnings.append(
                f"gzip data is corrupt ({e}); imported the intact first {got} bytes"
            )
            return b"".join(chunks)
        if not d.eof:
            got = sum(map(len, chunks))
            if got == 0:
                raise TraceError(f"truncated gzip with no readable data: {name}")
            out.partial = True
            out.warnings.append(
                f"gzip stream is truncated; imported the intact first {got} bytes"
            )
            return b"".join(chunks)
        rest = rest[end:]
        if rest and not rest.startswith(_GZIP_MAGIC):
            if rest.strip(b"\0"):
                out.warnings.append(
                    f"ignored {len(rest)} bytes of trailing garbage after the gzip stream"
                )
            break
    return b"".join(chunks)


def _unzip(data: bytes, name: str) -> tuple[str, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [
                i for i in zf.infolist()
                if not i.is_dir() and not i.filename.startswith("__MACOSX/")
            ]
            if not members:
                raise TraceError(f"zip file holds no trace: {name}")
            if len(members) > 1:
                raise TraceError(
                    f"zip file holds {len(members)} files, expected exactly one trace: {name}"
                )
            info = members[0]
            return info.filename, zf.read(info)
    except TraceError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
            ValueError) as e:  # ValueError: a damaged directory's negative seek
        raise TraceError(f"corrupt or truncated zip ({e}): {name}") from None


def _inflate_ctrace(data: bytes, name: str, out: TraceBytes) -> bytes:
    """atrace -z output: text up to 'TRACE:\\n', then one zlib stream."""
    idx = data.find(b"TRACE:\n")
    d = zlib.decompressobj()
    try:
        inner = d.decompress(data[idx + 7 :]) + d.flush()
    except zlib.error as e:
        raise TraceError(f"corrupt compressed atrace ({e}): {name}") from None
    if not d.eof:
        out.partial = True
        out.warnings.append("compressed atrace stream is truncated; imported its intact prefix")
    return inner


def _is_html(data: bytes) -> bool:
    head = data[:GUESS_LOOKAHEAD].lstrip().lower()
    return head.startswith(b"<!doctype html") or head.startswith(b"<html")


def _count_json_blocks(data: bytes) -> int:
    n = 0
    pos = data.find(_TRACE_DATA_TAG)
    while pos >= 0:
        gt = data.find(b">", pos)
        if gt < 0:
            break
        body = data[gt + 1 : gt + 1 + 256].lstrip()
        if body.startswith(b"{") or body.startswith(b"["):
            n += 1
        pos = data.find(_TRACE_DATA_TAG, gt)
    return n


def _looks_like_ftrace_text(data: bytes) -> bool:
    """Headerless ftrace text: most of the first lines tokenize as ftrace lines."""
    from artscope.engines.embedded.text import tokenize_line

    head = data[: 1 << 16]
    if b"\0" in head:
        return False
    text = head.decode("utf-8", "replace")
    lines = text.split("\n")
    if len(head) < len(data):
        lines = lines[:-1]  # possibly cut in the middle
    ok = bad = 0
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        if tokenize_line(line) is not None:
            ok += 1
        else:
            bad += 1
        if ok + bad >= 20:
            break
    return ok > 0 and ok >= bad


def _read_varint(data: bytes, pos: int) -> tuple[int, int] | None:
    """proto.py's varint reader, returning None instead of raising."""
    from google.protobuf.message import DecodeError

    from artscope.engines.embedded.proto import _varint

    try:
        return _varint(data, pos)
    except (IndexError, DecodeError):
        return None


def _looks_like_proto(data: bytes) -> bool:
    """Trace{repeated TracePacket packet = 1}: tag 0x0a, varint length, fields."""
    if data[:1] != b"\x0a":
        return False
    head = data[:256]
    if all(0x20 <= b < 0x7F or b in b"\t\n\r" for b in head):
        return False  # plain text that happens to start with a newline
    # Empty packets (0x0a 0x00) are valid TracePackets; trace_processor reads
    # a trace that starts with them, so the first non-empty packet decides.
    start = 0
    while data[start:start + 2] == b"\x0a\x00":
        start += 2
    if start == len(data):
        return start > 0
    if data[start:start + 1] != b"\x0a":
        return False
    r = _read_varint(data, start + 1)
    if r is None:
        return False
    length, pos = r
    end = min(len(data), pos + length)
    # Walk the first packet's fields (a truncated file may cut it short).
    fields = 0
    while pos < end:
        t = _read_varint(data, pos)
        if t is None:
            return pos >= len(data) and fields > 0
        tag, pos = t
        field, wire = tag >> 3, tag & 7
        if field == 0 or wire in (3, 4, 6, 7):
            return False
        if wire == 0:
            v = _read_varint(data, pos)
            if v is None:
                return pos >= len(data) and fields > 0
            pos = v[1]
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:  # 2: length-delimited
            v = _read_varint(data, pos)
            if v is None:
                return False
            pos = v[1] + v[0]
        fields += 1
        if fields >= 64:
            break
    if pos > end and end < len(data):
        return False  # a field overran its packet
    return fields > 0
