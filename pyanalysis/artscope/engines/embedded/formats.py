"""Reading a trace file's bytes, with one-line errors for a missing, unreadable
or empty file. What the bytes are (containers, Perfetto protobuf or systrace)
is the core's business: engine-core/src/decoder/container.rs.
"""

from __future__ import annotations

import os
from pathlib import Path

from artscope.errors import TraceError


def check_file(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path; TraceError when it is missing, a directory or
    empty (what reading it would find, said before reading it)."""
    p = Path(path)
    try:
        if not p.exists():
            raise TraceError(f"no such file: {p}")
        if p.is_dir():
            raise TraceError(f"is a directory, not a trace file: {p}")
        empty = p.stat().st_size == 0
    except OSError as e:
        raise TraceError(f"cannot read {p}: {e.strerror or e}") from None
    if empty:
        raise TraceError(f"empty file: {p}")
    return p


def read_file(path: str | os.PathLike[str]) -> bytes:
    """``path``'s bytes; TraceError when it is missing, a directory,
    unreadable or empty."""
    p = check_file(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise TraceError(f"cannot read {p}: {e.strerror or e}") from None
    if not data:  # a file that is not a regular one (a pipe) may read empty
        raise TraceError(f"empty file: {p}")
    return data
