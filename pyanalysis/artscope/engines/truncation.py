"""Whether a trace file was cut before its end: a property of the file, the
same whichever engine imports it.

Both importers read a cut file without complaint and import its intact
part; this says so, in one line, and marks the load ``partial``:

* Perfetto protobuf: a packet whose framing (tag, length) runs past the
  end of the file. The compiled core checks it for both engines (its
  ``inspect`` for trace_processor, its import for the embedded engine):
  ``TRUNCATED_WARNING``. A truncated gzip / zip / compressed-atrace
  container is likewise the core's finding.
* systrace HTML: the last ``<script class="trace-data">`` block has no
  closing ``</script>``, or the file opens the trace with
  ``<!-- BEGIN TRACE -->`` (as systrace writes it) and has no
  ``<!-- END TRACE -->`` after it: the file stops inside or between its
  trace-data blocks. A file cut after its last block (only ``</body>`` or
  ``</html>`` missing) has lost no trace data and is not partial.
* ftrace / atrace text: the last line has no final newline (the kernel and
  atrace end every line with one; blanks after the last newline do not
  count as a line). A cut that falls exactly at a line end cannot be told
  from a complete file.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

from artscope.engines.base import LoadInfo

#: The core's one-line warning for a protobuf trace cut inside a packet.
TRUNCATED_WARNING = "trace is truncated: imported the intact packets before the cut"

HTML_UNCLOSED_BLOCK = ("systrace HTML is truncated: it ends inside a trace-data block (no "
                       "closing </script>); imported the intact part before the cut")
HTML_NO_END_MARKER = ("systrace HTML is truncated: it has <!-- BEGIN TRACE --> but no "
                      "<!-- END TRACE -->; imported the intact part before the cut")
TEXT_CUT_LINE = ("trace text is truncated: its last line is cut off (no final newline); "
                 "imported the intact lines before the cut")

_TRACE_DATA_TAG = b'<script class="trace-data"'
_SCRIPT_END = b"</script>"
_BEGIN_TRACE = b"<!-- BEGIN TRACE -->"
_END_TRACE = b"<!-- END TRACE -->"
_CONTAINER_MAGICS = (b"\x1f\x8b", b"PK\x03\x04")
_HEAD = 1 << 16
_WHITESPACE = b" \t\n\x0b\x0c\r"


def _is_html(head: bytes) -> bool:
    start = head.lstrip(_WHITESPACE)[:16].lower()
    return start.startswith(b"<!doctype html") or start.startswith(b"<html")


def _is_text(head: bytes) -> bool:
    """Plain text (ftrace / atrace): no NUL in the first 64 KiB and no control
    byte besides tab / newline / carriage return in the first 256 (a
    protobuf trace has both)."""
    if b"\0" in head:
        return False
    return all(b >= 0x20 or b in b"\t\n\r" for b in head[:256])


def truncation(data: bytes | mmap.mmap) -> str | None:
    """The one-line warning when the trace file ``data`` (its raw bytes) is a
    systrace HTML or text file cut before its end, else None (a complete
    file, or a protobuf trace or container, which the core checks)."""
    if not len(data):
        return None
    head = bytes(data[:_HEAD])
    if head.startswith(_CONTAINER_MAGICS) or b"TRACE:\n\x78" in head[:4096]:
        return None  # gzip / zip / compressed atrace: the core sees their cut
    if _is_html(head):
        last_block = data.rfind(_TRACE_DATA_TAG)
        if last_block < 0:
            return None
        if data.find(_SCRIPT_END, last_block) < 0:
            return HTML_UNCLOSED_BLOCK
        begin = data.find(_BEGIN_TRACE)
        if begin >= 0 and data.find(_END_TRACE, begin) < 0:
            return HTML_NO_END_MARKER
        return None
    if _is_text(head):
        # (blanks after the last newline are not a line: systrace pages
        # indent their closing tag, and text copied out of them keeps it)
        tail = bytes(data[max(0, len(data) - 4096):]).rstrip(b" \t\r")
        return None if not tail or tail.endswith(b"\n") else TEXT_CUT_LINE
    return None


def file_truncation(path: str | os.PathLike[str]) -> str | None:
    """:func:`truncation` of the file at ``path``, read through a memory map
    (no copy of a large file); None when it cannot be read (the import
    itself reports that)."""
    try:
        with open(Path(path), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return truncation(m)
    except (OSError, ValueError):
        return None


def mark(info: LoadInfo, warning: str | None) -> LoadInfo:
    """``info`` made partial with ``warning`` (once, first: the partial-trace
    reason leads with it), when there is one."""
    if warning:
        info.partial = True
        if warning not in info.warnings:
            info.warnings.insert(0, warning)
    return info
