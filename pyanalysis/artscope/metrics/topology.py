"""CPU clusters from the strongest evidence a trace holds.

``--cpus big|mid|little`` needs the CPUs grouped into clusters and the
clusters ranked. Both come from the trace, strongest evidence first:

Frequency domains (which CPUs belong together), first that applies:
  1. ``available_frequencies``: CpuInfo's per-CPU frequency tables (CPUs of
     one domain share a table);
  2. ``cpufreq_policies``: CPUs whose frequency changes together (the same
     value within 1 ms, in at least 80% of each one's changes: one cpufreq
     policy sets them all);
  3. otherwise each CPU alone.
  A CPU the ranking data does not name (max-frequency limits are often
  recorded for a domain's first CPU only) takes its domain's value; with no
  domain data, a named CPU covers the unnamed CPUs after it up to the next
  named one (policies are runs of consecutive CPUs).

Ranking (which domain is bigger), first that covers every domain:
  ``capacity`` (CpuInfo), ``available_frequencies`` (highest available),
  ``frequency_limits`` (highest max-frequency limit), ``clock_names`` (the
  cluster clock driving the domain: pwrcl < perfcl < perfpcl, cpucl0 <
  cpucl1 < cpucl2), ``observed_frequency`` (highest frequency reached over
  the whole trace). The last two are inferences: a run whose clusters came
  from them gets a ``cpus_inferred`` warning naming the clusters.

Domains of equal rank form one cluster; cluster 0 is the littlest.
"""

from __future__ import annotations

import dataclasses
import re

import polars as pl

from artscope.errors import SelectionError

#: Ranking sources that only infer the clusters (a warning names them).
INFERRED_SOURCES = ("clock_names", "observed_frequency")
#: Changes of one domain's CPUs land within this of each other.
BURST_GAP_NS = 1_000_000
#: Share of a CPU's changes that must be shared for two CPUs to be one domain.
SAME_DOMAIN_SHARE = 0.8
#: A clock drives the domain whose changes match the largest share of its
#: rates (same value in kHz or Hz, within CLOCK_MATCH_NS), at least this.
CLOCK_MATCH_SHARE = 0.5
CLOCK_MATCH_NS = 2_000_000

_CLOCK_RANKS = ((re.compile(r"perfpcl", re.I), 2), (re.compile(r"perfcl", re.I), 1),
                (re.compile(r"pwrcl", re.I), 0))
_CPUCL = re.compile(r"cpucl(\d)", re.I)


@dataclasses.dataclass
class Topology:
    """CPU clusters: cluster 0 = littlest."""

    cluster_of: dict[int, int]
    #: which evidence ranked the clusters (see the module doc), None: none
    source: str | None
    #: each CPU's highest available frequency (CpuInfo), where the trace lists one
    available_max_khz: dict[int, float] = dataclasses.field(default_factory=dict)

    def clusters(self) -> list[list[int]]:
        """CPUs of each cluster, littlest first."""
        n = max(self.cluster_of.values(), default=-1) + 1
        return [sorted(c for c, k in self.cluster_of.items() if k == i) for i in range(n)]

    def keyword(self, word: str) -> list[int]:
        if not self.cluster_of:
            raise SelectionError(
                f"cannot derive CPU clusters for --cpus {word}: the trace has no CPU "
                "frequency or capacity data; pass explicit CPUs, e.g. --cpus 6,7")
        top = max(self.cluster_of.values())
        if word == "big":
            want = {top}
        elif word == "little":
            want = {0}
        else:
            want = set(range(1, top))
        cpus = sorted(c for c, k in self.cluster_of.items() if k in want)
        if not cpus:
            raise SelectionError(f"the trace's CPUs have no '{word}' cluster "
                                 f"({top + 1} cluster(s) found)")
        return cpus


def cpu_ranges(cpus: list[int]) -> str:
    """[0, 1, 2, 3, 6] -> "0-3,6"."""
    out, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(str(start) if start == c else f"{start}-{c}")
            start = None
    return ",".join(out)


def derive(per_cpu: pl.DataFrame, changes: pl.DataFrame) -> Topology:
    """Clusters from cpu_topology.sql's rows and cpu_frequency_changes.sql's."""
    topo = _derive(per_cpu, changes)
    topo.available_max_khz = {c: v for c, v in per_cpu.select("cpu", "available_max_khz")
                              .iter_rows() if c is not None and v is not None}
    return topo


def _derive(per_cpu: pl.DataFrame, changes: pl.DataFrame) -> Topology:
    cpus = sorted(c for c in per_cpu["cpu"].to_list() if c is not None)
    if not cpus:
        return Topology({}, None)
    cpufreq = changes.filter(pl.col("kind") == "cpufreq") if changes.height else changes
    domains, domains_source = _domains(per_cpu, cpufreq, cpus)
    for col, source in (("capacity", "capacity"), ("available_max_khz", "available_frequencies"),
                        ("limit_max_khz", "frequency_limits")):
        named = {c: v for c, v in per_cpu.select("cpu", col).iter_rows() if v is not None}
        ranked = _rank_domains(domains, named, domains_source is not None)
        if ranked is not None:
            return _clusters(ranked, source)
    clocks = changes.filter(pl.col("kind") == "clock") if changes.height else changes
    by_clock = _clock_ranks(domains, cpufreq, clocks)
    if by_clock is not None:
        return _clusters(by_clock, "clock_names")
    observed = {c: v for c, v in per_cpu.select("cpu", "observed_max_khz").iter_rows()
                if v is not None}
    ranked = _rank_domains(domains, observed, domains_source is not None)
    if ranked is not None:
        return _clusters(ranked, "observed_frequency")
    return Topology({}, None)


def _domains(per_cpu: pl.DataFrame, cpufreq: pl.DataFrame,
             cpus: list[int]) -> tuple[list[list[int]], str | None]:
    tables = {c: t for c, t in per_cpu.select("cpu", "available_khz").iter_rows()}
    if all(tables.get(c) for c in cpus):
        groups: dict[str, list[int]] = {}
        for c in cpus:
            groups.setdefault(tables[c], []).append(c)
        return sorted(groups.values()), "available_frequencies"
    policies = _policies(cpufreq, cpus)
    if policies is not None:
        return policies, "cpufreq_policies"
    return [[c] for c in cpus], None


def _policies(cpufreq: pl.DataFrame, cpus: list[int]) -> list[list[int]] | None:
    """Domains from CPUs changing frequency together; None when no CPU changed
    often enough to tell (fewer than 3 changes each)."""
    if not cpufreq.height:
        return None
    bursts = (cpufreq.sort("ts", "cpu")
              .with_columns(new=((pl.col("ts") - pl.col("ts").shift(1)) > BURST_GAP_NS)
                            | (pl.col("value") != pl.col("value").shift(1))
                            | pl.col("ts").shift(1).is_null())
              .with_columns(burst=pl.col("new").cum_sum())
              .select("burst", "cpu").unique())
    changes = dict(bursts.group_by("cpu").len().iter_rows())
    if not any(n >= 3 for n in changes.values()):
        return None
    pairs = (bursts.join(bursts, on="burst", suffix="_other")
             .filter(pl.col("cpu") < pl.col("cpu_other"))
             .group_by("cpu", "cpu_other").len())
    parent = {c: c for c in cpus}

    def find(c: int) -> int:
        while parent[c] != c:
            c = parent[c]
        return c

    for a, b, n in pairs.iter_rows():
        if a in parent and b in parent and min(changes[a], changes[b]) >= 3 \
                and n >= SAME_DOMAIN_SHARE * changes[a] and n >= SAME_DOMAIN_SHARE * changes[b]:
            parent[find(b)] = find(a)
    groups: dict[int, list[int]] = {}
    for c in cpus:
        groups.setdefault(find(c), []).append(c)
    return sorted(groups.values())


def _rank_domains(domains: list[list[int]], named: dict[int, float],
                  known_domains: bool) -> dict[int, float] | None:
    """Each CPU's ranking value, or None when some domain has none."""
    if not named:
        return None
    if not known_domains:
        # Policies are runs of consecutive CPUs named by their first CPU.
        cpus = sorted(c for d in domains for c in d)
        if cpus[0] not in named:
            return None
        out, last = {}, None
        for c in cpus:
            last = named.get(c, last)
            out[c] = last
        return out
    out = {}
    for d in domains:
        values = [named[c] for c in d if c in named]
        if not values:
            return None
        out.update({c: max(values) for c in d})
    return out


def _clock_rank(name: str) -> int | None:
    m = _CPUCL.search(name)
    if m:
        return int(m.group(1))
    return next((r for rx, r in _CLOCK_RANKS if rx.search(name)), None)


def _clock_ranks(domains: list[list[int]], cpufreq: pl.DataFrame,
                 clocks: pl.DataFrame) -> dict[int, int] | None:
    """Each CPU's cluster-clock rank, when every domain that changed frequency
    is driven by exactly one ranked clock."""
    if not clocks.height or not cpufreq.height:
        return None
    out: dict[int, int] = {}
    changed = set(cpufreq["cpu"].to_list())
    for d in domains:
        if not changed & set(d):
            return None
        mine = (cpufreq.filter(pl.col("cpu").is_in(d))
                .select("ts", pl.col("value").cast(pl.Float64)).unique().sort("ts"))
        shares = {}
        for (name,), rates in clocks.group_by("clock"):
            rank = _clock_rank(name)
            if rank is not None:
                shares[name] = (_match_share(rates, mine), rank)
        best = max((share for share, _ in shares.values()), default=0.0)
        ranks = {rank for share, rank in shares.values() if share == best}
        if best < CLOCK_MATCH_SHARE or len(ranks) != 1:
            return None
        rank = ranks.pop()
        out.update({c: rank for c in d})
    return out


def _match_share(rates: pl.DataFrame, domain_changes: pl.DataFrame) -> float:
    """Share of a clock's rates that match one of a domain's frequency
    changes nearby (the rate in kHz or Hz)."""
    hit = pl.lit(False)
    rates = rates.select("ts", pl.col("value").cast(pl.Float64)).sort("ts")
    matched = rates
    for scale in (1.0, 1000.0):
        keyed = rates.with_columns(key=pl.col("value") / scale)
        m = keyed.join_asof(domain_changes.rename({"value": "key"}).with_columns(
                               seen=pl.lit(True)),
                            on="ts", by="key", strategy="nearest",
                            tolerance=CLOCK_MATCH_NS, check_sortedness=False)
        matched = matched.with_columns(m["seen"].fill_null(False).alias(f"hit{int(scale)}"))
        hit = hit | pl.col(f"hit{int(scale)}")
    return matched.select(hit.sum()).item() / rates.height


def _clusters(value_of: dict[int, float], source: str) -> Topology:
    values = sorted(set(value_of.values()))
    return Topology({c: values.index(v) for c, v in sorted(value_of.items())}, source)
