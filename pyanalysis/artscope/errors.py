"""artscope's exceptions. Every message is one line meant for the user."""

from __future__ import annotations


class ArtscopeError(Exception):
    """Base class: a problem the user can act on (bad input, missing data)."""


class TraceError(ArtscopeError):
    """The file is missing, empty, not a trace, or unreadable."""


class EngineUnavailable(ArtscopeError):
    """The requested engine cannot run here (e.g. no trace_processor binary)."""


class SelectionError(ArtscopeError):
    """The app, marker, window or CPU set asked for is not in the trace."""


class UsageError(ArtscopeError):
    """An argument is malformed (bad window, CPU list, duration...)."""


class QueryError(ArtscopeError):
    """A query failed: it names a table, column or function the engine does
    not serve (the message says where it is served), or is not valid SQL."""
