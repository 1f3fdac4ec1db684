"""Run labels of a study: which benchmark, collector config, heap multiple and
invocation each run is.

Labels come from a CSV (``--meta``: a ``trace`` column plus label columns) or
from the trace's file name (``--name-pattern``, e.g.
``{benchmark}.{x}.{heap}.{config}.{invocation}``; named presets in
:data:`NAME_PRESETS`). Every analysed run carries the ``trace`` it came from;
labels are matched to it as given on the command line, else by file name. A
run without labels is an error naming it: a study never drops runs silently.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import re
from pathlib import Path

import polars as pl

from artscope.batch import TRACE_SUFFIXES
from artscope.errors import UsageError

#: The label roles a study uses, in display order.
ROLES = ("benchmark", "config", "x", "invocation")
#: Named ``--name-pattern`` presets. android-benchmark-runner names its logs
#: ``bm.hfac.heap.build.modifiers``: benchmark, heap factor (the heap multiple
#: x), heap size, build (the collector config) and modifiers (the invocation).
NAME_PRESETS = {
    "android-benchmark-runner": "{benchmark}.{x}.{heap}.{config}.{invocation}",
}
#: Shown in errors so an unmatched run can be found by eye.
_MAX_NAMED = 5


@dataclasses.dataclass(frozen=True)
class Labels:
    """Where run labels come from, and which source column plays each role.

    Exactly one of ``meta`` (CSV path) and ``name_pattern`` (pattern or preset
    name) is set. ``benchmark``/``config``/``x``/``invocation`` name the CSV
    column or pattern field holding that role (``--benchmark-col`` etc.).
    Only ``benchmark`` is required: a study without a ``config`` column has
    one config, ``default``; without ``x`` the heap multiple is null (no
    curves, no chaotic check); without ``invocation`` runs are numbered.
    """

    meta: str | Path | None = None
    name_pattern: str | None = None
    benchmark: str = "benchmark"
    config: str = "config"
    x: str = "x"
    invocation: str = "invocation"

    def __post_init__(self) -> None:
        if (self.meta is None) == (self.name_pattern is None):
            raise UsageError("label the runs with exactly one of --meta FILE.csv "
                             "or --name-pattern PATTERN")

    def role_sources(self) -> dict[str, str]:
        return {role: getattr(self, role) for role in ROLES}


def pattern_regex(pattern: str, x_field: str = "x") -> re.Pattern[str]:
    """'{benchmark}.{x}.{heap}' -> an anchored regex with one group per field.

    The heap-multiple field matches a number (so ``1.5`` survives '.'
    separators); other fields match the shortest text that lets the whole
    name match.
    """
    pattern = NAME_PRESETS.get(pattern, pattern)
    parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", pattern)
    if len(parts) < 3:
        raise UsageError(f"--name-pattern {pattern!r} has no {{field}}; e.g. "
                         f"{NAME_PRESETS['android-benchmark-runner']!r} or a preset: "
                         f"{', '.join(NAME_PRESETS)}")
    out, seen = [], set()
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part))
            continue
        if part in seen:
            raise UsageError(f"--name-pattern {pattern!r} names {{{part}}} twice")
        seen.add(part)
        body = r"[-+]?\d+(?:\.\d+)?x?" if part == x_field else r".+?"
        out.append(f"(?P<{part}>{body})")
    return re.compile("".join(out))


def strip_trace_suffix(name: str) -> str:
    """'a.2.512M.cmc.0.pftrace.gz' -> 'a.2.512M.cmc.0' (every trace ending)."""
    changed = True
    while changed:
        changed = False
        for suffix in TRACE_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    return name


def _from_pattern(traces: list[str], labels: Labels) -> dict[str, dict[str, str]]:
    rx = pattern_regex(labels.name_pattern or "", labels.x)
    found, bad = {}, []
    for tr in traces:
        m = rx.fullmatch(strip_trace_suffix(os.path.basename(tr)))
        if m is None:
            bad.append(os.path.basename(tr))
        else:
            found[tr] = m.groupdict()
    if bad:
        raise UsageError(f"{len(bad)} trace name(s) do not match --name-pattern "
                         f"{NAME_PRESETS.get(labels.name_pattern or '', labels.name_pattern)!r}: "
                         + _names(bad))
    return found


def _from_meta(traces: list[str], labels: Labels) -> dict[str, dict[str, str]]:
    path = str(labels.meta)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        raise UsageError(f"--meta file not found: {path}") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise UsageError(f"cannot read --meta {path}: {e}") from None
    if not rows or "trace" not in rows[0]:
        raise UsageError(f"--meta {path} needs a header row with a 'trace' column")
    by_path: dict[str, dict[str, str]] = {}
    by_name: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        key = (row.get("trace") or "").strip()
        if not key:
            continue
        if key in by_path:
            raise UsageError(f"--meta {path} lists trace {key!r} twice")
        by_path[key] = row
        by_name.setdefault(os.path.basename(key), []).append(row)
    found, missing = {}, []
    for tr in traces:
        row = by_path.get(tr) or by_path.get(os.path.normpath(tr))
        if row is None:
            candidates = by_name.get(os.path.basename(tr), [])
            if len(candidates) > 1:
                raise UsageError(f"--meta {path}: {len(candidates)} rows match the file name "
                                 f"{os.path.basename(tr)!r}; give the path as on the command line")
            row = candidates[0] if candidates else None
        if row is None:
            missing.append(tr)
        else:
            found[tr] = {k: v for k, v in row.items() if k != "trace" and k is not None}
    if missing:
        raise UsageError(f"{len(missing)} trace(s) have no row in --meta {path}: "
                         + _names(missing))
    return found


def _names(items: list[str]) -> str:
    more = len(items) - _MAX_NAMED
    return ", ".join(items[:_MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def apply_labels(runs: pl.DataFrame, labels: Labels) -> pl.DataFrame:
    """Add the label columns (benchmark, config, x, invocation and any other
    field the CSV or pattern names) to the flat per-run frame.

    Raises UsageError naming every run that has no labels or whose ``x`` is
    not a number.
    """
    if runs.is_empty():
        raise UsageError("no runs to study")
    traces = list(dict.fromkeys(runs["trace"].to_list()))
    found = (_from_meta if labels.meta is not None else _from_pattern)(traces, labels)
    sources = labels.role_sources()
    if sources["benchmark"] not in next(iter(found.values())):
        raise UsageError(f"no {sources['benchmark']!r} label (the benchmark); "
                         "name its column/field with --benchmark-col")
    rename = {src: role for role, src in sources.items()}
    extra = sorted({k for v in found.values() for k in v} - set(rename))
    clash = [k for k in extra if k in runs.columns]
    if clash:
        raise UsageError(f"label column(s) {', '.join(clash)} collide with analyze output columns")
    rows = []
    for tr in traces:
        values = {rename.get(k, k): (v.strip() if isinstance(v, str) else v)
                  for k, v in found[tr].items()}
        rows.append({"trace": tr, **{k: values.get(k) for k in (*ROLES, *extra)}})
    table = pl.DataFrame(rows, schema={"trace": pl.String,
                                       **{k: pl.String for k in (*ROLES, *extra)}})
    x_num = table["x"].str.strip_suffix("x").cast(pl.Float64, strict=False)
    bad = table.filter(table["x"].is_not_null() & x_num.is_null())
    if bad.height:
        raise UsageError("heap multiple x is not a number for "
                         + _names([f"{os.path.basename(t)} (x={x!r})"
                                   for t, x in bad.select("trace", "x").iter_rows()]))
    unnamed = table.filter(pl.col("benchmark").is_null() | (pl.col("benchmark") == ""))
    if unnamed.height:
        raise UsageError("no benchmark label for " + _names(
            [os.path.basename(t) for t in unnamed["trace"].to_list()]))
    table = table.with_columns(x=x_num, config=pl.col("config").fill_null("default"))
    out = runs.join(table, on="trace", how="left")
    # runs of one trace (several --marker windows) are separate invocations
    numbered = (pl.col("trace").str.split("/").list.last() + "#" + pl.col("run").cast(pl.String))
    return out.with_columns(invocation=pl.col("invocation").fill_null(numbered))
