"""Study sets for the study tests: generated once per test session.

fixtures/study_sets.py chooses app CPU and GC CPU per run; here the sets are
written to a temporary folder and analysed once (embedded engine, 2 jobs),
so the lbo / noise / report tests share one analysis. Expected values in the
tests are derived by hand from the StudyRun values, never from artscope.
"""

from __future__ import annotations

import atexit
import functools
import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "fixtures") not in sys.path:
    sys.path.insert(0, str(REPO / "fixtures"))

import study_sets as SS  # noqa: E402

APP = "com.example.bench"
CPUS = "6,7"
PRESET = "running-ng"
MS = 1_000_000
#: t(0.975, df) (df = n - 1): closed forms for df 1 and 2 (the Cauchy
#: quantile tan(pi (p - 1/2)) and (2p - 1) / sqrt(2p(1 - p))), a t-table's
#: values to 10 digits for the rest -- compare with rel=1e-9.
T975 = {1: math.tan(math.pi * 0.475), 2: 0.95 / math.sqrt(2 * 0.975 * 0.025),
        3: 3.182446305, 4: 2.776445105, 5: 2.570581836, 7: 2.364624252, 8: 2.306004135,
        11: 2.200985160,
        14: 2.144786688, 17: 2.109815578}
#: t(0.95, df) and t(0.995, df) (90% and 99% CIs), a t-table's values to 10 digits.
T95 = {2: 2.919985580, 14: 1.761310136}
T995 = {2: 9.924843201, 14: 2.976842734}

_ROOT = Path(tempfile.mkdtemp(prefix="artscope-study-"))
atexit.register(shutil.rmtree, _ROOT, True)


@functools.lru_cache(maxsize=None)
def study_dir(name: str) -> Path:
    """A folder holding one trace per run of study set ``name``."""
    SS.write_set(SS.SETS[name](), _ROOT / name)
    return _ROOT / name


@functools.lru_cache(maxsize=None)
def analyzed(name: str) -> tuple[dict[str, Any], ...]:
    """Per-run analyze results (the JSON output's shape) of study set ``name``."""
    from artscope.batch import analyze_many, expand_paths
    from artscope.metrics.options import AnalysisOptions

    paths = expand_paths([str(study_dir(name))])
    return tuple(analyze_many(paths, AnalysisOptions(app=APP, cpus=CPUS), engine="embedded",
                              jobs=2))


@functools.lru_cache(maxsize=None)
def saved_output(name: str, fmt: str) -> Path:
    """Study set ``name`` saved as `artscope analyze --format fmt` writes it."""
    from artscope.output import render

    path = _ROOT / f"{name}-analyze.{fmt}"
    path.write_bytes(render(list(analyzed(name)), fmt))
    return path


def flat(name: str):
    from artscope.flatschema import flat_frame, flatten

    return flat_frame([flatten(r) for r in analyzed(name)])


def ci95_pct(values_ms: list[float], t: dict[int, float] = T975) -> float:
    """Half-width of the 95% CI of the mean (or the level of table ``t``), %
    of the mean (plain arithmetic)."""
    n = len(values_ms)
    mean = sum(values_ms) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values_ms) / (n - 1))
    return 100 * t[n - 1] * sd / math.sqrt(n) / mean


def name(benchmark: str, x: float, config: str, invocation: int) -> str:
    """A study set trace's file name (running-ng's result name + invocation)."""
    return SS.StudyRun(benchmark, config, x, invocation, 0, 0).file_name
