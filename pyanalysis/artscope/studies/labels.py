"""Run labels of a study: which benchmark, collector config, heap multiple,
invocation and iteration each run is.

Labels come from a CSV (``--meta``: a ``trace`` column plus label columns) or
from the trace's file name (``--name-pattern``, e.g.
``{benchmark}.{x}.{heap}.{config}.{invocation}``; named presets in
:data:`NAME_PRESETS`). Every analysed run carries the ``trace`` it came from;
labels are matched to it as given on the command line, else by file name. A
run without labels, or whose name a pattern parses only in part, is an error
naming it: a study never drops or mislabels runs silently.

An invocation is one start of the app; iterations are the runs inside it.
Runs of one trace (several ``--marker`` windows) are iterations of one
invocation, numbered in window order, unless an ``iteration`` label says
otherwise; a trace without an ``invocation`` label is an invocation of its
own.
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
ROLES = ("benchmark", "config", "x", "invocation", "iteration")
#: Shown in errors so an unmatched run can be found by eye.
_MAX_NAMED = 5


@dataclasses.dataclass(frozen=True)
class NamePreset:
    """A named ``--name-pattern``: the pattern and how its fields read."""

    pattern: str
    #: what the preset is, for errors and docs
    what: str
    #: regex of each field that is not "any text" (fields never span a '.'
    #: unless their regex says so, so a name parses one way or not at all)
    fields: tuple[tuple[str, str], ...] = ()
    #: endings stripped besides the trace endings (running-ng's logs)
    endings: tuple[str, ...] = ()
    #: a file whose own name does not parse takes its folder's name
    #: (running-ng's CopyFile plugin keeps each invocation's files in a
    #: folder named after the result and the invocation)
    folder_names: bool = False


#: running-ng (anupli/running-ng, src/running/command/runbms.py
#: ``get_filename_no_ext``): ``{bm}.{int(hfac * 1000)}.{heap MB}.{config}.{suite}``,
#: the config's ``|``-separated parts joined by '.' (``config_str_encode``),
#: ``.log`` / ``.log.gz`` for the log of every invocation; per invocation,
#: CopyFile's folder ``{that}.{invocation}``. A 0 factor / size means none.
RUNNING_NG = NamePreset(
    pattern="{benchmark}.{hfac}.{heap}.{config}.{suite}.{invocation}",
    what="running-ng's result names, bm.hfac.heap.config.suite[.invocation]",
    fields=(("benchmark", r"[^.]+"), ("hfac", r"\d+"), ("heap", r"\d+"),
            ("config", r"[^.]+(?:\.[^.]+)*"), ("suite", r"[^.]*[^.\d][^.]*"),
            ("invocation", r"\d+")),
    endings=(".log",), folder_names=True)

#: Named ``--name-pattern`` presets.
NAME_PRESETS: dict[str, NamePreset] = {
    "running-ng": RUNNING_NG,
    # android-benchmark-runner's results come from running-ng; its logs
    # are running-ng's names
    "android-benchmark-runner": RUNNING_NG,
}
#: Fields with a meaning of their own: ``x`` the heap multiple (a number, a
#: trailing ``x`` allowed), ``hfac`` running-ng's factor in thousandths.
_NUMBER = r"[-+]?\d+(?:\.\d+)?x?"


def _preset(pattern: str) -> NamePreset:
    return NAME_PRESETS.get(pattern) or NamePreset(pattern=pattern, what="")


def _shown(pattern: str) -> str:
    p = NAME_PRESETS.get(pattern)
    return f"{pattern!r} ({p.what})" if p else repr(pattern)


@dataclasses.dataclass(frozen=True)
class Labels:
    """Where run labels come from, and which source column plays each role.

    Exactly one of ``meta`` (CSV path) and ``name_pattern`` (pattern or preset
    name) is set. ``benchmark``/``config``/``x``/``invocation``/``iteration``
    name the CSV column or pattern field holding that role (``--benchmark-col``
    etc.). Only ``benchmark`` is required: a study without a ``config`` column
    has one config, ``default``; without ``x`` the heap multiple is null (no
    curves, no chaotic check); without ``invocation`` each trace is one
    invocation; without ``iteration`` a trace's runs are its iterations.
    """

    meta: str | Path | None = None
    name_pattern: str | None = None
    benchmark: str = "benchmark"
    config: str = "config"
    x: str = "x"
    invocation: str = "invocation"
    iteration: str = "iteration"

    def __post_init__(self) -> None:
        if (self.meta is None) == (self.name_pattern is None):
            raise UsageError("label the runs with exactly one of --meta FILE.csv "
                             "or --name-pattern PATTERN")

    def role_sources(self) -> dict[str, str]:
        return {role: getattr(self, role) for role in ROLES}


def pattern_regex(pattern: str, x_field: str = "x") -> re.Pattern[str]:
    """'{benchmark}.{x}.{heap}' (or a preset's name) -> an anchored regex
    with one group per field.

    The heap-multiple field matches a number, ``hfac`` digits; a preset's
    fields match what its names hold; other fields match the shortest text
    that lets the whole name match. running-ng's invocation is optional (its
    logs have none).
    """
    preset = _preset(pattern)
    parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", preset.pattern)
    if len(parts) < 3:
        raise UsageError(f"--name-pattern {pattern!r} has no {{field}}; e.g. "
                         "'{benchmark}.{x}.{heap}.{config}.{invocation}' or a preset: "
                         f"{', '.join(NAME_PRESETS)}")
    regex = dict(preset.fields)
    out, seen = [], set()
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part))
            continue
        if part in seen:
            raise UsageError(f"--name-pattern {pattern!r} names {{{part}}} twice")
        seen.add(part)
        body = regex.get(part) or (_NUMBER if part == x_field else r"\d+" if part == "hfac"
                                   else r".+?")
        group = f"(?P<{part}>{body})"
        if preset is RUNNING_NG and part == "invocation":
            out[-1] = f"(?:{out[-1]}{group})?"
        else:
            out.append(group)
    return re.compile("".join(out))


def strip_trace_suffix(name: str, endings: tuple[str, ...] = ()) -> str:
    """'a.2.512M.cmc.0.pftrace.gz' -> 'a.2.512M.cmc.0' (every trace ending,
    and ``endings``)."""
    changed = True
    while changed:
        changed = False
        for suffix in (*TRACE_SUFFIXES, *endings):
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    return name


def _read_fields(m: re.Match[str]) -> dict[str, str | None]:
    """A pattern match -> labels: running-ng's ``hfac`` (thousandths) becomes
    x, its heap size (MB) a heap label; a 0 of either means none."""
    found: dict[str, str | None] = dict(m.groupdict())
    if "hfac" in found:
        hfac = found.pop("hfac")
        found.setdefault("x", None if hfac in (None, "0") else f"{int(hfac) / 1000:g}")
    return found


def _from_pattern(traces: list[str], labels: Labels) -> dict[str, dict[str, str | None]]:
    pattern = labels.name_pattern or ""
    preset = _preset(pattern)
    rx = pattern_regex(pattern, labels.x)
    found, bad = {}, []
    for tr in traces:
        names = [os.path.basename(tr)]
        if preset.folder_names:
            names.append(os.path.basename(os.path.dirname(tr)))
        for name in names:
            m = rx.fullmatch(strip_trace_suffix(name, preset.endings)) if name else None
            if m is not None:
                break
        if m is None:
            bad.append(os.path.basename(tr))
            continue
        fields = _read_fields(m)
        if preset is RUNNING_NG and fields.get("heap") is not None:
            fields["heap"] = None if fields["heap"] == "0" else f"{fields['heap']}M"
        found[tr] = fields
    if bad:
        raise UsageError(f"{len(bad)} trace name(s) do not match --name-pattern "
                         f"{_shown(pattern)}: " + _names(bad))
    return found


def _from_meta(traces: list[str], labels: Labels) -> dict[str, dict[str, str | None]]:
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


def _bad_numbers(table: pl.DataFrame, col: str, parsed: pl.Series, what: str) -> None:
    bad = table.filter(table[col].is_not_null() & parsed.is_null())
    if bad.height:
        raise UsageError(f"{what} is not a number for "
                         + _names([f"{os.path.basename(t)} ({col}={v!r})"
                                   for t, v in bad.select("trace", col).iter_rows()]))


def apply_labels(runs: pl.DataFrame, labels: Labels) -> pl.DataFrame:
    """Add the label columns (benchmark, config, x, invocation, iteration and
    any other field the CSV or pattern names) to the flat per-run frame.

    Raises UsageError naming every run that has no labels, whose ``x`` is
    not a number or whose ``iteration`` is not a whole number.
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
    _bad_numbers(table, "x", x_num, "heap multiple x")
    it_num = table["iteration"].cast(pl.Int64, strict=False)
    _bad_numbers(table, "iteration", it_num, "the iteration")
    unnamed = table.filter(pl.col("benchmark").is_null() | (pl.col("benchmark") == ""))
    if unnamed.height:
        raise UsageError("no benchmark label for " + _names(
            [os.path.basename(t) for t in unnamed["trace"].to_list()]))
    table = table.with_columns(x=x_num, iteration=it_num,
                               config=pl.col("config").fill_null("default"))
    out = runs.join(table, on="trace", how="left")
    # a trace without an invocation label is one invocation; its runs (in
    # window order) are the iterations, unless labelled
    return out.with_columns(invocation=pl.col("invocation").fill_null(pl.col("trace")),
                            iteration=pl.col("iteration").fill_null(pl.col("run")))
