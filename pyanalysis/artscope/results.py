"""Batch results that survive interruption: a Parquet dataset, one part per trace.

``analyze``/``check`` with ``-o DIR/`` (and ``artscope.analyze(..., output=DIR)``)
write here as traces finish; ``load_results(DIR)`` reads the rows back in
the order and shape a single run gives (``analyze --format parquet``).

    DIR/_artscope.json   the last run: format, artscope version, options and
                         their hash, the traces in input order (rewritten
                         atomically when a run starts)
    DIR/_index.jsonl     resume index, one line per finished trace: its path,
                         size and mtime stamp, content sha256, options hash,
                         part file and error (appended after the part is in
                         place; compacted when a run starts and ends)
    DIR/<sha256[:24]>-<options[:12]>.parquet
                         one part per trace, keyed by the trace's content
                         hash and the options hash (which covers artscope's
                         version): its flat rows as `analyze --format
                         parquet` writes them, the nested rows as JSON in the
                         file's metadata (for `check` and the study commands)
    DIR/err-<sha256(path)[:24]>-<options[:12]>.parquet
                         the error row of a trace that could not be analysed
    DIR/.lock            held (flock) by the one run writing DIR

Every part is written to a temporary file and renamed into place, so a run
killed at any moment leaves whole parts only; a part whose index line was
not written yet is simply recomputed. A rerun stats each trace and reuses
its part when path, size, mtime and options are unchanged -- the trace is not
read. Error rows are always retried (the cause is often outside the trace:
a missing binary, a file still being copied). Parts are content-addressed,
so a trace copied or moved elsewhere reuses nothing (its stamp is new) but
maps to the same part; rows carry the path of the current run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import io
import json
import os
import re
import warnings
from typing import Any, Callable, Iterator

import polars as pl

from artscope import sources
from artscope.batch import TraceResult, iter_results
from artscope.errors import UsageError
from artscope.metrics.options import AnalysisOptions
from artscope.output import write_atomic
from artscope.flatschema import flat_frame, flatten

FORMAT = 1
MANIFEST = "_artscope.json"
INDEX = "_index.jsonl"
LOCK = ".lock"
_META_KEY = "artscope"
_PART = re.compile(r"^(?:err-)?[0-9a-f]{24}-[0-9a-f]{12}\.parquet$")
_TEMP_PREFIX = ".artscope-"


def is_dataset_dir(output: str) -> bool:
    """``-o DIR/`` (trailing slash) or an existing directory means a dataset."""
    return output.endswith(("/", os.sep)) or os.path.isdir(output)


def is_results_dir(path: str) -> bool:
    """A directory written with ``-o DIR/`` (it has a manifest)."""
    return os.path.isfile(os.path.join(path, MANIFEST))


def options_hash(opts: AnalysisOptions, engine: str, tp_bin: str | None) -> str:
    """Everything besides a trace's bytes that decides its rows: artscope's
    version, every analysis option (thresholds included) and the engine."""
    from artscope._version import __version__

    doc = {"artscope": __version__, "options": dataclasses.asdict(opts),
           "engine": engine, "tp_bin": tp_bin}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class DatasetRun:
    """What one run into a dataset did."""

    directory: str
    analysed: int
    reused: int
    #: the flat rows of the parts this run wrote, by part file name (what
    #: :meth:`frame` need not read back)
    written: dict[str, list[dict[str, Any]]] = dataclasses.field(
        default_factory=dict, repr=False, compare=False)

    def frame(self) -> pl.DataFrame:
        """The flat per-run rows of every trace, as :func:`load_results`
        reads them, without reading back the parts this run wrote."""
        return _load_flat(self.directory, self.written)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Nested per-run rows of every trace, in input order (as a single
        run), read from the dataset when asked for (a study reads the flat
        rows only: ``load_results``)."""
        return load_rows(self.directory)


class ResultStore:
    """One run's writer of DIR (use as a context manager; one writer per DIR)."""

    def __init__(self, directory: str, options_key: str, *, resume: bool = True) -> None:
        self.directory = directory
        self.options_key = options_key
        self.resume = resume
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise UsageError(f"-o {directory}: exists and is not a directory")
        parent = os.path.dirname(os.path.abspath(directory.rstrip("/") or "/"))
        if not os.path.isdir(parent):
            raise UsageError(f"output directory does not exist: {parent}")
        os.makedirs(directory, exist_ok=True)
        if [n for n in os.listdir(directory) if not n.startswith(".")
                and n not in (MANIFEST, INDEX) and not _PART.match(n)]:
            # Never mix results into (or garbage-collect parts from) a
            # directory of other files, such as the traces themselves.
            raise UsageError(f"-o {directory}: not an artscope results directory "
                             "(it holds other files); use a new or empty directory")
        self._lock = open(self._path(LOCK), "a")  # noqa: SIM115 - held for the run
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise UsageError(f"{directory} is being written by another artscope run") from None
        self._remove_temp_files()
        self._entries = _read_index(self._path(INDEX))
        self._compact()
        self._index = open(self._path(INDEX), "a", encoding="utf-8")  # noqa: SIM115
        self._traces: list[str] = []
        self._keys: list[str] = []
        #: flat rows of the parts written by this run, by part file name
        self.written: dict[str, list[dict[str, Any]]] = {}

    def _path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Compact the index, drop parts no entry names, release DIR."""
        if self._lock.closed:
            return
        try:
            self._index.close()
            self._entries = _read_index(self._path(INDEX))
            self._compact()
            live = {e["part"] for e in self._entries.values()}
            for name in os.listdir(self.directory):
                if _PART.match(name) and name not in live:
                    with contextlib.suppress(OSError):
                        os.unlink(self._path(name))
        finally:
            self._lock.close()

    def _remove_temp_files(self) -> None:
        # Left by a run killed while writing a part; never read as parts.
        for name in os.listdir(self.directory):
            if name.startswith(_TEMP_PREFIX):
                with contextlib.suppress(OSError):
                    os.unlink(self._path(name))

    def _compact(self) -> None:
        lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in self._entries.values())
        write_atomic(self._path(INDEX), lines.encode())

    # -- a run ---------------------------------------------------------------

    def plan(self, traces: list[str], options: dict[str, Any]) -> tuple[list[int], list]:
        """Record the run's traces (manifest) and return the positions that
        need analysing (first occurrence of each) and every trace's stamp."""
        from artscope._version import __version__

        self._traces = list(traces)
        self._keys = [sources.index_key(t) for t in traces]
        write_atomic(self._path(MANIFEST), (json.dumps({
            "format": FORMAT, "artscope": __version__,
            "options_hash": self.options_key, "options": options,
            "traces": self._traces, "keys": self._keys}, indent=1, default=str) + "\n").encode())
        stamps = [sources.stamp(t) for t in traces]
        todo, seen = [], set()
        for i, (key, st) in enumerate(zip(self._keys, stamps)):
            if key in seen:
                continue
            seen.add(key)
            if not (self.resume and self._reusable(key, st)):
                todo.append(i)
        return todo, stamps

    def _reusable(self, key: str, st: tuple[int, str] | None) -> bool:
        e = self._entries.get((key, self.options_key))
        return (e is not None and st is not None and e["error"] is None
                and [e["size"], e["mtime"]] == list(st)
                and os.path.exists(self._path(e["part"])))

    def put(self, position: int, result: TraceResult,
            st: tuple[int, str] | None) -> None:
        """Write one trace's part atomically, then its index line."""
        key = self._keys[position]
        error = next((r["error"] for r in result.rows if "error" in r), None)
        if error is None and result.content_hash:
            part = f"{result.content_hash[:24]}-{self.options_key[:12]}.parquet"
        else:
            part = f"err-{_sha(key)[:24]}-{self.options_key[:12]}.parquet"
        meta = {"format": FORMAT, "trace": result.trace, "content_hash": result.content_hash,
                "options_hash": self.options_key, "rows": result.rows}
        buf = io.BytesIO()
        flat = [flatten(r) for r in result.rows]
        flat_frame(flat).write_parquet(buf, metadata={_META_KEY: json.dumps(meta, default=str)})
        write_atomic(self._path(part), buf.getvalue())
        self.written[part] = flat
        entry = {"trace": key, "options_hash": self.options_key,
                 "size": st[0] if st else None, "mtime": st[1] if st else None,
                 "content_hash": result.content_hash, "part": part, "error": error}
        self._index.write(json.dumps(entry, sort_keys=True) + "\n")
        self._index.flush()
        os.fsync(self._index.fileno())
        self._entries[(key, self.options_key)] = entry


def analyze_to_dataset(directory: str, traces: list[str], opts: AnalysisOptions, *,
                       engine: str = "auto", tp_bin: str | None = None,
                       jobs: int | None = None, cluster: str | None = None,
                       resume: bool = True,
                       progress: Callable[[int, int], None] | None = None) -> DatasetRun:
    """Analyse ``traces`` into the dataset ``directory``, reusing finished
    traces unless ``resume`` is False; parts are written as traces finish."""
    key = options_hash(opts, engine, tp_bin)
    options = {"analysis": dataclasses.asdict(opts), "engine": engine, "tp_bin": tp_bin}
    with ResultStore(directory, key, resume=resume) as store:
        todo, stamps = store.plan(traces, options)
        total, reused = len(traces), len(traces) - len(todo)
        if progress and reused:
            progress(reused, total)
        if todo:
            pending = [traces[i] for i in todo]
            for done, (j, res) in enumerate(
                    iter_results(pending, opts, engine, tp_bin, jobs, cluster), 1):
                store.put(todo[j], res, stamps[todo[j]])
                if progress:
                    progress(reused + done, total)
    return DatasetRun(directory, analysed=len(todo), reused=reused, written=store.written)


# -- reading -------------------------------------------------------------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _read_index(path: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Latest entry per (trace, options hash); a line cut by a kill is skipped."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    with contextlib.suppress(FileNotFoundError), open(path, encoding="utf-8") as f:
        for line in f:
            try:
                e = json.loads(line)
                entries[(e["trace"], e["options_hash"])] = e
            except (ValueError, KeyError, TypeError):
                continue
    return entries


def _read_manifest(directory: str) -> dict[str, Any]:
    path = os.path.join(directory, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise UsageError(f"{directory} is not an artscope results directory "
                         f"(no {MANIFEST}; write one with -o DIR/)") from None
    except ValueError as e:
        raise UsageError(f"{path} is damaged: {e}") from None
    if manifest.get("format") != FORMAT:
        raise UsageError(f"{directory}: results format {manifest.get('format')!r} is not "
                         f"{FORMAT}; rerun with --force")
    return manifest


def _parts(directory: str, traces: list[str], keys: list[str], options_key: str,
           entries: dict[tuple[str, str], dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(trace as named by the run, part path) of each finished trace, in order."""
    missing = 0
    for trace, key in zip(traces, keys):
        e = entries.get((key, options_key))
        if e is None or not os.path.exists(os.path.join(directory, e["part"])):
            missing += 1
            continue
        yield trace, os.path.join(directory, e["part"])
    if missing:
        warnings.warn(f"{directory}: {missing} of {len(traces)} traces not finished yet "
                      "(rerun the batch to complete it)", stacklevel=3)


def _manifest_rows(directory: str, traces: list[str], keys: list[str], options_key: str,
                   entries: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for trace, part in _parts(directory, traces, keys, options_key, entries):
        meta = json.loads(pl.read_parquet_metadata(part)[_META_KEY])
        rows += [{**r, "trace": trace} for r in meta["rows"]]
    return rows


def load_rows(directory: str) -> list[dict[str, Any]]:
    """The nested per-run rows of DIR's last run, in input order (the JSON
    shape of `analyze --format json`)."""
    m = _read_manifest(directory)
    return _manifest_rows(directory, m["traces"], m["keys"], m["options_hash"],
                          _read_index(os.path.join(directory, INDEX)))


def load_results(directory: str | os.PathLike[str]) -> pl.DataFrame:
    """The flat per-run DataFrame of DIR's last run: the rows, columns, dtypes
    and order `analyze --format parquet` gives for the same traces. Traces
    not finished yet (an interrupted run) are left out, with a warning."""
    return _load_flat(os.fspath(directory), {})


def _load_flat(directory: str, written: dict[str, list[dict[str, Any]]]) -> pl.DataFrame:
    """load_results, with the flat rows of the parts in ``written`` (by part
    file name) taken as given instead of read."""
    m = _read_manifest(directory)
    parts = list(_parts(directory, m["traces"], m["keys"], m["options_hash"],
                        _read_index(os.path.join(directory, INDEX))))
    # Each part once (two traces with the same bytes share one): those in
    # `written` as one frame, the others read; then each part's rows where
    # each of its traces comes in this run, named as that trace (a trace
    # with no runs adds no row, as in a single run).
    files = list(dict.fromkeys(part for _, part in parts))
    given = [f for f in files if os.path.basename(f) in written]
    read = [f for f in files if os.path.basename(f) not in written]
    rows = [r for f in given for r in written[os.path.basename(f)]]
    frames, heights = [flat_frame(rows)], [len(written[os.path.basename(f)]) for f in given]
    if read:
        frame, read_heights = _read_parts(read)
        frames.append(frame)
        heights += read_heights
    # each part's first row in the frames' rows
    at, start = {}, 0
    for f, h in zip(given + read, heights):
        at[f] = (start, h)
        start += h
    order = [first + i for _, part in parts for first, h in [at[part]] for i in range(h)]
    if not order:
        return pl.DataFrame()
    traces = [trace for trace, part in parts for _ in range(at[part][1])]
    every = pl.concat(frames, how="diagonal_relaxed")
    return every[order].with_columns(pl.Series("trace", traces, pl.String))


def _read_parts(files: list[str]) -> tuple[pl.DataFrame, list[int]]:
    """The rows of the part files, in order, and how many each has. Parts
    written by one artscope share the flat schema (flatschema.flat_frame)
    and are read in one parallel scan; parts of differing schemas one by
    one."""
    try:
        df = pl.read_parquet(files, include_file_paths="_part")
    except pl.exceptions.PolarsError:
        frames = [pl.read_parquet(f) for f in files]
        return pl.concat(frames, how="diagonal_relaxed"), [f.height for f in frames]
    counts = dict(df["_part"].value_counts().iter_rows())
    return df.drop("_part"), [counts.get(f, 0) for f in files]
