"""The compiled engine core (engine-core/, a Rust extension ``artscope._core``).

It decodes Perfetto protobuf traces and replays them with the same
trace_processor import semantics as the Python importer in this package,
producing the same tables; they reach Python's ``sqlite3`` as one serialized
database (``sqlite3_serialize`` in Rust -> ``Connection.deserialize``), so
every metric query runs unchanged on Python's SQLite.

When the extension is built (``python3 tools/build_core.py``; not yet part
of ``pip install``), the embedded engine imports protobuf traces with it;
``ARTSCOPE_CORE=0`` switches back to the Python importer, which stays the
reference: ``tools/compare_core.py`` and tests/test_core_identity.py check
that both give identical tables (see engine-core/README.md).
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any, NamedTuple

from artscope.errors import TraceError

try:  # the extension is optional until it is the default
    from artscope import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _core = None


def available() -> bool:
    """Whether the compiled core is importable."""
    return _core is not None


def enabled() -> bool:
    """Whether the embedded engine imports protobuf traces with the core."""
    return _core is not None and os.environ.get("ARTSCOPE_CORE", "1") != "0"


def _trace_config_text(imported: Any) -> str | None:
    """The last recorded TraceConfig that parses, as text proto (what
    trace_processor shows as metadata.trace_config_pbtxt). The core does not
    know TraceConfig's nested layout: a config that does not parse here makes
    its packet corrupt, as a whole-packet protobuf parse would."""
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    text, bad = None, 0
    for raw in imported.trace_configs():
        try:
            text = text_format.MessageToString(pb.TraceConfig.FromString(raw))
        except DecodeError:
            bad += 1
    imported.reject_packets(bad)
    return text


class CoreImport(NamedTuple):
    """What one import gives: the tables and the load's flags."""

    conn: sqlite3.Connection
    partial: bool
    warnings: list[str]
    packets: int


def import_proto(data: bytes, path: str = "",
                 ingest_ftrace_in_raw: bool = True) -> CoreImport:
    """Import Perfetto protobuf ``data`` into a connection holding every table,
    view and index; TraceError naming ``path`` for bad input."""
    if _core is None:
        raise RuntimeError("artscope's compiled core is not built (python3 tools/build_core.py)")
    try:
        imported = _core.import_proto(data, ingest_ftrace_in_raw)
        blob = imported.to_sqlite(_trace_config_text(imported))
    except _core.CoreError as e:
        raise TraceError(f"{e}: {path}") from None
    out = CoreImport(sqlite3.connect(":memory:", check_same_thread=False),
                     imported.partial, list(imported.warnings), imported.packets)
    del imported  # the core's columns (peak RSS)
    out.conn.deserialize(blob)
    return out
