"""Small statistics every study module uses (a leaf: imports no study module)."""

from __future__ import annotations

import functools
from typing import Sequence

import polars as pl

#: The confidence levels a study's CIs may use (``--ci``), percent.
CI_LEVELS = (90, 95, 99)


def _q(level: int) -> float:
    """The two-sided quantile of a ``level``% interval: 0.975 for 95."""
    return 1 - (1 - level / 100) / 2


@functools.lru_cache(maxsize=None)
def t_quantile(n: int, level: int = 95) -> float | None:
    """t(q, n-1) of a two-sided ``level``% CI (t(0.975, n-1) for 95%);
    None for n < 2."""
    from scipy.stats import t

    return float(t.ppf(_q(level), n - 1)) if n >= 2 else None


def t_quantiles(n: pl.Expr, level: int = 95) -> pl.Expr:
    """:func:`t_quantile` of each group size (null for n < 2)."""
    def quantiles(s: pl.Series) -> pl.Series:
        from scipy.stats import t

        df = s.cast(pl.Float64) - 1
        q = pl.Series(t.ppf(_q(level), df.to_numpy()), dtype=pl.Float64)
        return pl.select(pl.when(df >= 1).then(q)).to_series()
    return n.map_batches(quantiles, return_dtype=pl.Float64)


def ci_half(values: list[float], level: int = 95) -> float | None:
    """Half-width of the ``level``% CI of the mean of ``values`` (None for
    fewer than two)."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    return t_quantile(n, level) * sd / n ** 0.5  # type: ignore[operator]


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def rank_correlation(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation of two equally long sequences: Pearson's
    correlation of their average ranks (None when either is constant)."""
    ra, rb = _ranks(a), _ranks(b)
    n = len(ra)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else None
