"""Shared CTEs: a metric file reading cpufreq_change / cpufreq_interval /
target_utid_range by name runs with the defining file's query inlined at the head of its WITH."""

from __future__ import annotations

import re

import pytest

from artscope._resources import resource_dir
from artscope.metrics.runner import SHARED_CTES, _with_shared_ctes, metric_names, metric_sql


def _raw(name: str) -> str:
    return (resource_dir("sql_metrics") / f"{name}.sql").read_text()


def test_each_reader_gets_one_definition_at_the_head_of_its_with():
    readers = {n: [s for s in SHARED_CTES if n != s and re.search(
        rf"\b{s}\b", re.sub(r"--[^\n]*", "", _raw(n)))] for n in metric_names()}
    assert readers["dvfs_gc_time"] == ["cpufreq_change"]
    assert readers["dvfs_app_time"] == ["cpufreq_interval", "target_utid_range"]
    assert readers["dvfs_cpu_busy"] == ["cpufreq_interval"]
    assert readers["interference"] == ["target_utid_range"]
    assert readers["cpufreq_interval"] == ["cpufreq_change"]
    for name, shared in readers.items():
        text = metric_sql(name)
        if not shared:
            assert text == _raw(name), name
            continue
        body = text[text.index("\nWITH\n") + len("\nWITH\n"):]
        assert body.startswith(f"{shared[0]} AS MATERIALIZED (\n"), name
        for s in shared:
            assert text.count(f"{s} AS MATERIALIZED (") == 1, (name, s)


def test_a_name_only_in_comments_is_not_inlined():
    text = "-- reads nothing like cpufreq_change\nWITH\nx AS (SELECT 1)\nSELECT * FROM x\n"
    assert _with_shared_ctes("x", text) == text


def test_a_reader_without_a_with_is_refused():
    with pytest.raises(ValueError, match="cpufreq_change"):
        _with_shared_ctes("x", "-- header\nSELECT * FROM cpufreq_change\n")
