"""What the embedded engine does not serve, said instead of answered silently.

Two cases:

* a query naming a table, column or function the embedded engine does not
  serve fails with one line naming it and pointing at trace_processor
  (:func:`query_error`, raised by ``EmbeddedEngine.query`` as a
  :class:`~artscope.errors.QueryError`; the CLI prints it as one line, exit 2);
  a table trace_processor does not have either is named as unknown, with
  the closest table names (tp_tables.py), and a PerfettoSQL statement
  (``INCLUDE PERFETTO MODULE``, ``CREATE PERFETTO TABLE`` ...) is answered
  with one line saying it needs the trace_processor engine;
* a trace holding packets of a kind the importer skips (GPU, heap
  graphs, ...) gets one ``stats`` row per skipped kind,
  ``artscope_skipped_<TracePacket field>`` (severity info, value = packets;
  engine-core/src/decoder/proto.rs counts them), and track events with a
  part not imported are counted in ``artscope_skipped_track_event_fields``; the
  first query made by user code says once, as a :class:`SkippedDataWarning`
  (a UserWarning: a notebook shows it under the cell), which tables
  trace_processor would have filled from them. artscope's own metric
  queries do not count as that first query: they read only what the engine
  imports, and a warning printed in the middle of ``artscope analyze`` would
  only be noise.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from typing import Any

from artscope.errors import QueryError

SKIPPED_STAT_PREFIX = "artscope_skipped_"

_HINT = ("query it with trace_processor: --engine trace_processor, or "
         "load_trace(path, engine='trace_processor') with ARTSCOPE_TP_BIN set")

#: Skipped TracePacket kinds -> the trace_processor tables they fill (the
#: kinds not listed fill trace_processor tables of their own name).
WOULD_FILL: dict[str, str] = {
    "track_event_fields": ("args, chrome_raw: raw legacy phases, JSON and typed-proto debug "
                           "annotations, Chrome's typed fields"),
    "chrome_events": "slice, args (legacy JSON events)",
    "stack_sample": "instruments_sample / cpu_profile_stack_sample",
    "deobfuscation_mapping": "stack_profile_frame (deobfuscated names)",
    "gpu_render_stage_event": "gpu_slice, gpu_track",
    "graphics_frame_event": "graphics_frame_slice",
    "vulkan_memory_event": "vulkan_memory_allocations",
    "vulkan_api_event": "slice (Vulkan API)",
    "memory_tracker_snapshot": "memory_snapshot, memory_snapshot_node",
    "statsd_atom": "slice, counter, args (statsd atoms)",
    # TracePacket extensions (Android-tree payloads)
    "heap_graph": "heap_graph_object, heap_graph_class, heap_graph_reference (Java heap dumps)",
    "network_packet": "slice, args (network packets)",
    "network_packet_bundle": "slice, args (network packets)",
    "surfaceflinger_layers_snapshot": "winscope's surfaceflinger_layer tables",
    "surfaceflinger_transactions": "winscope's surfaceflinger_transaction tables",
    "shell_transition": "winscope's window manager shell transition tables",
    "shell_handler_mappings": "winscope's window manager shell transition tables",
    "protolog_message": "protolog",
    "protolog_viewer_config": "protolog",
    "winscope_extensions": "winscope's input, viewcapture and window manager tables",
    "bluetooth_trace_event": "slice (Bluetooth events)",
    "evdev_event": "input events",
    "chrome_metadata": "metadata",
    "chrome_benchmark_metadata": "metadata",
    "remote_machine_packets": ("the trace's other machines' track events, profiles and other "
                               "packets (machine_id > 0; their ftrace events, process trees "
                               "and stats, system info, system stats, power rails and clock "
                               "syncs are imported)"),
    # (deflate `compressed_packets` are read; zstd ones are not: trace_processor
    # reads them only when built with zstd, which the reference build is not)
    "zstd_compressed_packets": "every table (the zstd-compressed packets inside are not read)",
}


#: What a skipped stat counts, where it is not packets of its kind.
WHAT_IS_COUNTED: dict[str, str] = {
    "track_event_fields": "track event(s) with parts not imported",
}


class SkippedDataWarning(UserWarning):
    """The trace holds data the embedded engine does not import."""


#: PerfettoSQL statements (trace_processor's own syntax, not SQLite's).
_PERFETTO_SQL = re.compile(
    r"\b(?P<stmt>INCLUDE\s+PERFETTO\s+MODULE|CREATE\s+(?:OR\s+REPLACE\s+)?PERFETTO\s+"
    r"(?:TABLE|VIEW|FUNCTION|MACRO|INDEX))\s*(?P<name>[\w.*]*)", re.IGNORECASE)


def query_error(err: sqlite3.Error, engine: str = "embedded",
                sql: str | None = None) -> QueryError:
    """One line for a failed query (``sql``, when given, is its text): a
    PerfettoSQL statement, a table no engine has (a typo), or what the
    embedded engine does not serve and where it is served."""
    msg = " ".join(str(err).split())
    perfetto_sql = _PERFETTO_SQL.search(sql or "")
    if perfetto_sql and re.search(r'near "(INCLUDE|PERFETTO)"', msg, re.IGNORECASE):
        stmt = " ".join(perfetto_sql["stmt"].upper().split())
        what = f"{stmt} {perfetto_sql['name']}".strip()
        if stmt.startswith("INCLUDE"):
            return QueryError(f"{what}: Perfetto's standard library needs the trace_processor "
                              f"engine, not the {engine} one; {_HINT}")
        return QueryError(f"{what}: PerfettoSQL statements need the trace_processor engine, "
                          f"not the {engine} one; {_HINT}")
    m = re.match(r"no such (table|column|function): (.+)", msg)
    if m:
        kind, name = m.groups()
        if kind == "table" and not _trace_processor_has(name):
            return QueryError(unknown_table_message(name, engine))
        return QueryError(f"the {engine} engine does not serve {kind} {name!r}; {_HINT}")
    return QueryError(f"query failed on the {engine} engine: {msg}")


def _bare_table_name(name: str) -> str:
    """``main.slice`` / ``temp.x`` -> the table's own name, lower case."""
    return name.split(".", 1)[1].lower() if name.lower().startswith(
        ("main.", "temp.")) else name.lower()


def _trace_processor_has(name: str) -> bool:
    from artscope.engines.embedded.tp_tables import TRACE_PROCESSOR_TABLES

    return _bare_table_name(name) in TRACE_PROCESSOR_TABLES


def unknown_table_message(name: str, engine: str = "embedded") -> str:
    """A table neither engine has: the closest trace_processor table names,
    and where the standard library's tables are."""
    import difflib

    from artscope.engines.embedded.tp_tables import PUBLIC_TABLES

    close = difflib.get_close_matches(_bare_table_name(name), sorted(PUBLIC_TABLES), n=3)
    guess = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return (f"no such table {name!r}: neither the {engine} engine nor trace_processor has "
            f"it{guess}; a table of Perfetto's standard library needs INCLUDE PERFETTO "
            "MODULE on the trace_processor engine")


def skipped_data_message(rows: list[tuple[str, Any]]) -> str | None:
    """The one-line warning for ``stats`` rows (name, value), or None."""
    parts = []
    for name, value in sorted(rows):
        if not name.startswith(SKIPPED_STAT_PREFIX) or not value:
            continue
        kind = name[len(SKIPPED_STAT_PREFIX):]
        what = WHAT_IS_COUNTED.get(kind, f"{kind} packet(s)")
        parts.append(f"{value} {what} ({WOULD_FILL.get(kind, kind)})")
    if not parts:
        return None
    return ("this trace holds data the embedded engine does not import, so these tables "
            f"lack it: {'; '.join(parts)}. Counted in stats as {SKIPPED_STAT_PREFIX}*; "
            f"{_HINT}")


def called_from_artscope(depth: int = 2) -> bool:
    """Whether the caller ``depth`` frames up is artscope's own code (metric
    queries), not the user's."""
    frame = sys._getframe(depth)
    name = frame.f_globals.get("__name__", "")
    return name == "artscope" or name.startswith("artscope.")
