"""Studies over many runs: labels, LBO tables, noise diagnosis.

    import artscope
    st = artscope.study("traces/", app="com.example.bench", cpus="6,7",
                        name_pattern="android-benchmark-runner")
    st.lbo()          # polars: LBO per benchmark, config, x + summary rows
    st.at(2.0)        # the Table-5 view at a 2x heap
    st.excluded()     # runs left out, with reasons
    st.warnings()     # mixed devices, runs below the maximum, x-by-x order
    st.conditions()   # frequency level per device and run, drifted runs marked
    st.noise("task_clock").groups

Data flows one way: load_runs (analyse traces / read analyze output) ->
apply_labels -> compute_lbo / diagnose_noise -> render / charts / HTML.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl

from artscope.studies.labels import NAME_PRESETS, Labels, apply_labels
from artscope.studies.lbo import LboResult, StudyOptions, compute_lbo, split_runs
from artscope.studies.runs import load_runs


class Study:
    """Labelled runs of a study and what artscope computes from them."""

    def __init__(self, runs: pl.DataFrame, options: StudyOptions = StudyOptions()) -> None:
        #: every run (flat analyze columns + labels), including excluded ones
        self.runs = runs
        self.options = options

    def __repr__(self) -> str:
        n_bm = self.runs["benchmark"].n_unique() if "benchmark" in self.runs.columns else 0
        return f"Study({self.runs.height} runs, {n_bm} benchmarks, {self.options})"

    @functools.cached_property
    def lbo_result(self) -> LboResult:
        return compute_lbo(self.runs, self.options)

    def lbo(self) -> pl.DataFrame:
        """LBO per (benchmark, config, x) then the summary rows."""
        return self.lbo_result.table

    def at(self, x: float) -> pl.DataFrame:
        """The Table-5 view at heap multiple ``x``."""
        return self.lbo_result.at(x)

    def flags(self) -> pl.DataFrame:
        return self.lbo_result.flags

    def warnings(self) -> pl.DataFrame:
        """Study warnings: mixed devices or builds, counted runs held below the
        maximum level, heap multiples recorded one after another."""
        return self.lbo_result.warnings

    def conditions(self) -> pl.DataFrame:
        """Frequency level per device, run and series, with the study's level
        and whether the run drifted from it (artscope.studies.checks)."""
        from artscope.studies.checks import conditions_table

        return conditions_table(self.runs)

    def excluded(self) -> pl.DataFrame:
        """Runs left out of the LBO and why (available even when none is left)."""
        return split_runs(self.runs, self.options)[1]

    def noise(self, metric: str = "task_clock", group_by: tuple[str, ...] | list[str] | None = None
              ) -> Any:
        """Why repeated runs disagree (see artscope.studies.noise.NoiseResult)."""
        from artscope.studies.noise import diagnose_noise

        return diagnose_noise(self.runs, metric, group_by)

    # -- charts (artscope.report.study_charts) ---------------------------------

    def plot_lbo(self, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.lbo_curves(self.lbo_result, **kw)

    def plot_noise(self, metric: str = "task_clock", group_by: Any = None, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.noise_factors(self.noise(metric, group_by), **kw)


__all__ = ["Study", "Labels", "StudyOptions", "LboResult", "NAME_PRESETS", "load_runs",
           "apply_labels", "compute_lbo"]
