"""Reading a trace file's bytes, with one-line errors for a missing, unreadable
or empty file. What the bytes are (containers, Perfetto protobuf or systrace)
is the core's business: engine-core/src/decoder/container.rs.
"""

from __future__ import annotations

import os
from pathlib import Path

from artscope.errors import TraceError


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
