"""Small statistics every study module uses (a leaf: imports no study module)."""

from __future__ import annotations

import polars as pl


def t_quantile(n: int) -> float | None:
    """t(0.975, n-1), the two-sided 95% Student's t quantile (None for n < 2)."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1)) if n >= 2 else None


def t975(n: pl.Expr) -> pl.Expr:
    """:func:`t_quantile` of each group size (null for n < 2)."""
    return n.map_elements(t_quantile, return_dtype=pl.Float64)
