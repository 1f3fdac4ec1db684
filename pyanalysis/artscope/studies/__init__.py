"""Studies over many runs: labels, LBO tables, responsiveness, noise diagnosis.

    import artscope
    st = artscope.study("traces/", app="com.example.bench", cpus="6,7",
                        name_pattern="running-ng")
    st.lbo()             # polars: LBO per device, benchmark, config, x + summary rows
    st.at(2.0)           # the Table-5 view at a 2x heap
    st.flags()           # chaotic, noisy, workload_varies, drift, heap: listed, never summarised away
    st.excluded()        # runs left out, with reasons
    st.failures()        # runs whose app died or reused a process, per (benchmark, config, x)
    st.warnings()        # mixed devices, memory below max, sweeps spread over the study
    st.sweeps()          # each benchmark's sweep over x against the study's span
    st.conditions()      # frequency level per device and run, drifted runs marked
    st.responsiveness()  # frame-duration percentiles and janky % per (benchmark, config, x)
    st.noise("task_clock").groups

Data flows one way: load_runs (analyse traces / read analyze output) ->
apply_labels -> compute_lbo / responsiveness / diagnose_noise -> render /
charts / HTML.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl

from artscope.studies.labels import NAME_PRESETS, Labels, apply_labels
from artscope.studies.lbo import (COSTS, LboResult, StudyOptions, compute_lbo, lbo_of,
                                  prepare_runs, split_runs)
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
    def _prepared(self) -> pl.DataFrame:
        if "benchmark" not in self.runs.columns:
            return compute_lbo(self.runs, self.options)  # raises: the runs have no labels
        return prepare_runs(self.runs, self.options)

    @functools.cached_property
    def _split(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return split_runs(self._prepared, self.options)

    @functools.cached_property
    def lbo_result(self) -> LboResult:
        return lbo_of(self._prepared, *self._split, self.options)

    def lbo(self) -> pl.DataFrame:
        """LBO per (device, benchmark, config, x) then the summary rows."""
        return self.lbo_result.table

    def at(self, x: float) -> pl.DataFrame:
        """The Table-5 view at heap multiple ``x``."""
        return self.lbo_result.at(x)

    def flags(self) -> pl.DataFrame:
        return self.lbo_result.flags

    def warnings(self) -> pl.DataFrame:
        """Study warnings (severity warn) and notes (info): mixed devices or
        builds, memory controllers below their maximum, CPUs below theirs,
        sweeps over x spread over the study."""
        return self.lbo_result.warnings

    def failures(self) -> pl.DataFrame:
        """Per (device, benchmark, config, x): runs, and those whose app died
        (by OutOfMemoryError, a kill, an exit) or that reused a process."""
        return self.lbo_result.failures

    def sweeps(self) -> pl.DataFrame:
        """Per (device, benchmark, config): its sweep over x against the span
        of its config's runs (errata E.3.1)."""
        return self.lbo_result.sweeps

    def conditions(self) -> pl.DataFrame:
        """Frequency level per device, run and series, with the study's level
        and whether the run drifted from it (artscope.studies.checks)."""
        from artscope.studies.checks import conditions_table

        return conditions_table(self.runs)

    def excluded(self) -> pl.DataFrame:
        """Runs left out of the LBO and why (available even when none is left)."""
        return self._split[1]

    def responsiveness(self) -> pl.DataFrame:
        """Frame-duration percentiles with their spread over invocations, and
        janky % with its CI, per (device, benchmark, config, x)."""
        from artscope.studies.responsiveness import responsiveness

        return responsiveness(self._split[0], self.options.ci_level)

    def noise(self, metric: str = "task_clock", group_by: tuple[str, ...] | list[str] | None = None
              ) -> Any:
        """Why repeated runs disagree (see artscope.studies.noise.NoiseResult)."""
        from artscope.studies.noise import diagnose_noise

        return diagnose_noise(self.runs, metric, group_by)

    # -- charts (artscope.report.study_charts) ---------------------------------

    def plot_lbo(self, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.lbo_curves(self.lbo_result, **kw)

    def plot_frame_percentiles(self, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.frame_percentiles(self.responsiveness(), **kw)

    def plot_janky(self, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.janky_curves(self.responsiveness(), self.options.ci_level, **kw)

    def plot_noise(self, metric: str = "task_clock", group_by: Any = None, **kw: Any) -> Any:
        from artscope.report import study_charts

        return study_charts.noise_factors(self.noise(metric, group_by), **kw)


__all__ = ["Study", "Labels", "StudyOptions", "LboResult", "NAME_PRESETS", "COSTS",
           "load_runs", "apply_labels", "compute_lbo"]
