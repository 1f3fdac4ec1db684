"""Trace -> queryable tables. Pick an engine and load a trace with it."""

from __future__ import annotations

from pathlib import Path

from artscope.engines.base import Engine, LoadInfo

ENGINE_NAMES = ("auto", "trace_processor", "embedded")


def load_trace(
    path: str | Path, engine: str = "auto", tp_bin: str | None = None
) -> Engine:
    """Load ``path`` with ``engine`` ('auto' | 'trace_processor' | 'embedded').

    'auto' uses trace_processor when a binary is already available locally
    (--tp-bin / ARTSCOPE_TP_BIN / trace_processor_shell on PATH), else the
    embedded engine. Raises TraceError / EngineUnavailable with one-line
    messages.
    """
    from artscope.engines import trace_processor as tp
    from artscope.engines.embedded import EmbeddedEngine
    from artscope.errors import UsageError

    if engine not in ENGINE_NAMES:
        raise UsageError(f"unknown engine {engine!r} (choose from {', '.join(ENGINE_NAMES)})")
    if engine == "auto":
        engine = "trace_processor" if tp.find_local_binary(tp_bin) else "embedded"
    eng: Engine
    if engine == "trace_processor":
        eng = tp.TraceProcessorEngine(tp_bin=tp_bin)
    else:
        eng = EmbeddedEngine()
    try:
        eng.load(path)
    except BaseException:
        eng.close()
        raise
    return eng


__all__ = ["Engine", "LoadInfo", "load_trace", "ENGINE_NAMES"]
