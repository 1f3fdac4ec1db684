"""The header of a sql-metrics file: its leading comment, its "Output
columns" list (names and descriptions) and its "Column types" list (each
column's PerfettoSQL type), the one place a metric file declares its output.
Read by the SQL package (docs and RETURNS TABLE) and the runner (typed empty
results)."""

from __future__ import annotations

import re

import polars as pl

#: The types a header's "Column types:" list may name (PerfettoSQL's).
COLUMN_TYPE_NAMES = ("LONG", "DOUBLE", "STRING", "BOOL", "TIMESTAMP", "DURATION")
#: ... and the polars type of each in a result DataFrame.
POLARS_TYPES = {"LONG": pl.Int64, "DOUBLE": pl.Float64, "STRING": pl.String,
                "BOOL": pl.Int64, "TIMESTAMP": pl.Int64, "DURATION": pl.Int64}


def split_header(sql: str) -> tuple[list[str], str]:
    """A sql-metrics file -> (its leading ``--`` comment lines, the rest verbatim)."""
    lines = sql.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith("--"):
        n += 1
    return [ln.rstrip("\n") for ln in lines[:n]], "".join(lines[n:])


def _comment_text(line: str) -> str:
    return line.lstrip()[2:]


def header_columns(header: list[str]) -> list[tuple[list[str], str]]:
    """The "Output columns" list of a header: [(names, description)], in order.

    Lines of the list are ``--   name[, name...]   description`` (three spaces
    after ``--``); more-indented lines continue the previous description.
    """
    start = None
    for i, line in enumerate(header):
        if _comment_text(line).strip().startswith("Output columns"):
            start = i
            break
    if start is None:
        return []
    i = start
    while not _comment_text(header[i]).rstrip().endswith(":"):
        i += 1
        if i == len(header):
            return []
    out: list[tuple[list[str], str]] = []
    for line in header[i + 1:]:
        text = _comment_text(line)
        if text.strip().startswith("Column types:"):
            break
        m = re.match(r"   ([a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*)(?:\s{2,}(\S.*))?$", text)
        if m and not text.startswith("    "):
            out.append((m.group(1).split(", "), (m.group(2) or "").strip()))
        elif out and text.strip():
            names, desc = out[-1]
            out[-1] = (names, (desc + " " + text.strip()).strip())
        elif text.strip():
            break
    return out


def header_column_types(header: list[str]) -> dict[str, str]:
    """The "Column types:" list of a header: {column: TYPE}, in SELECT order.

    ``-- Column types: name TYPE, name TYPE,`` with more-indented ``--``
    lines continuing it, after the Output columns list.
    """
    text, inside = "", False
    for line in header:
        body = _comment_text(line).strip()
        if body.startswith("Column types:"):
            inside, text = True, body[len("Column types:"):]
        elif inside and body:
            text += " " + body
        elif inside:
            break
    types: dict[str, str] = {}
    for item in (x.strip() for x in text.split(",") if x.strip()):
        name, _, type_ = item.partition(" ")
        types[name] = type_.strip()
    return types


def empty_frame(sql: str) -> pl.DataFrame:
    """A metric file's result with no rows: its declared columns and types."""
    header, _ = split_header(sql)
    return pl.DataFrame(schema={n: POLARS_TYPES[t]
                                for n, t in header_column_types(header).items()})
