"""Where trace bytes come from: local paths or fsspec URLs.

A batch names its traces as local paths or URLs (``file://...``, and
``s3://``, ``gs://``, ``http://``... when the user installs the matching
fsspec backend). Workers turn each into a local file the engines can open
and hash its bytes on the way (the results dataset is keyed by that hash);
the client only asks for a cheap stamp (size + modification time) to decide
whether a finished trace can be reused without reading it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from typing import Any, Iterator

from artscope.errors import TraceError, UsageError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_CHUNK = 1 << 20


def is_url(trace: str) -> bool:
    """``scheme://...`` (fsspec) rather than a local path."""
    return bool(_URL.match(trace))


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"trace URLs need fsspec: pip install fsspec ({url})") from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as e:
        # An unknown protocol or a backend that is not installed (s3fs, gcsfs...).
        raise UsageError(f"cannot open {url}: {str(e).splitlines()[0]}") from None


def _local_path(url: str) -> str | None:
    """The plain path behind a ``file://`` URL (no copy needed), else None."""
    fs, path = _filesystem(url)
    from fsspec.implementations.local import LocalFileSystem

    return path if isinstance(fs, LocalFileSystem) else None


def expand_url(url: str, suffixes: tuple[str, ...]) -> list[str]:
    """A URL naming a file, a directory (searched by ``suffixes``) or a glob."""
    fs, path = _filesystem(url)
    protocol = url.split("://", 1)[0]

    def unstrip(p: str) -> str:
        return f"{protocol}://{p}" if not is_url(p) else p

    if any(ch in path for ch in "*?["):
        found = sorted(fs.glob(path))
        if not found:
            raise TraceError(f"no files match: {url}")
        return [unstrip(p) for p in found]
    if fs.isdir(path):
        found = sorted(p for p in fs.find(path)
                       if not os.path.basename(p).startswith(".")
                       and p.lower().endswith(suffixes))
        if not found:
            raise TraceError(f"no trace files in directory: {url}")
        return [unstrip(p) for p in found]
    return [url]


def stamp(trace: str) -> tuple[int, str] | None:
    """(size, modification stamp) of a trace without reading it; None when
    unknown (missing, or a store that reports neither)."""
    try:
        if not is_url(trace):
            st = os.stat(trace)
            return st.st_size, str(st.st_mtime_ns)
        fs, path = _filesystem(trace)
        info = fs.info(path)
    except (OSError, ValueError, UsageError):
        return None
    # LocalFileSystem / sftp: mtime; s3: LastModified + ETag; gcs: updated + md5Hash.
    marks = [str(info[k]) for k in ("mtime", "LastModified", "last_modified", "updated",
                                    "ETag", "etag", "md5Hash") if info.get(k) is not None]
    if info.get("size") is None or not marks:
        return None
    return int(info["size"]), "|".join(marks)


def index_key(trace: str) -> str:
    """The name a trace is remembered by across runs: absolute for local
    paths (a rerun from another directory is the same trace), URLs as given."""
    return trace if is_url(trace) else os.path.abspath(trace)


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def fetched(trace: str) -> Iterator[tuple[str, str | None]]:
    """A local file holding ``trace``'s bytes and their sha256.

    Local paths and ``file://`` URLs are used in place (the hash is None when
    the file cannot be read: the engine then reports why, as for any batch).
    Other URLs are copied to a temporary file, hashed while copying, and the
    copy is removed afterwards.
    """
    path = trace if not is_url(trace) else _local_path(trace)
    if path is not None:
        try:
            digest: str | None = _sha256_file(path)
        except OSError:
            digest = None
        yield path, digest
        return
    fs, remote = _filesystem(trace)
    tmpdir = tempfile.mkdtemp(prefix="artscope-fetch-")
    try:
        local = os.path.join(tmpdir, os.path.basename(remote.rstrip("/")) or "trace")
        h = hashlib.sha256()
        try:
            with fs.open(remote, "rb") as src, open(local, "wb") as dst:
                while chunk := src.read(_CHUNK):
                    h.update(chunk)
                    dst.write(chunk)
        except (OSError, ValueError) as e:
            raise TraceError(f"cannot read {trace}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        yield local, h.hexdigest()
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
