"""CPU clusters from the strongest evidence a trace holds, never against the
CPU numbering without it.

``--cpus big|mid|little`` needs the CPUs grouped into clusters and the
clusters ranked. Both come from the trace, strongest evidence first
(docs/metrics.md "Selecting what to measure").

Frequency domains (which CPUs belong together):
  1. ``available_frequencies``: CpuInfo's per-CPU frequency tables, when
     every CPU has one (CPUs of one domain share a table);
  2. ``cpufreq_policies``: CPUs whose frequency changes together (the same
     value within 1 ms, in at least 80% of each one's changes: the kernel
     writes cpu_frequency for every CPU of a policy); a CPU that changes
     alone is a domain of its own;
  3. CPUs with no frequency changes of their own (an idle policy never
     changes) are placed by their limits and by numbering: a CPU named by a
     max-frequency limit starts a domain (the kernel names a policy's first
     CPU), the unnamed CPUs after it join it (policies are runs of
     consecutive CPUs).

Ranking (which domain is bigger), first that names every domain:
  ``capacity`` (CpuInfo), ``available_frequencies`` (highest available) —
  either, given for every CPU, places each CPU by its own value —
  ``frequency_limits`` (highest max-frequency limit; ties broken by the
  highest frequency reached, when that agrees with the numbering),
  ``clock_names`` (the cluster clock driving the domain: pwrcl < perfcl <
  perfpcl, cpucl0 < cpucl1 < cpucl2), ``cpu_numbering`` (on Android SoCs CPU
  numbers rise with capacity; the highest frequency reached only orders
  domains whose CPU numbers interleave — an idle prime core runs slow, so it
  never inverts the numbering). The last two are inferences: a run whose
  clusters came from them gets a ``cpus_inferred`` warning.

A strong source (the first three) that names only some domains ranks those;
the CPUs of the others are ``unplaced`` (named in a ``cpus_unplaced``
warning). Domains of equal rank form one cluster; cluster 0 is the littlest.
A strong source that ranks every CPU equal, or one frequency policy holding
every CPU, means the CPUs are all of one kind (``equal``): no big, no little.
"""

from __future__ import annotations

import dataclasses
import re

import polars as pl

from artscope.errors import SelectionError, UsageError

#: Ranking sources that only infer the clusters (a warning names them).
INFERRED_SOURCES = ("clock_names", "cpu_numbering")
#: Ranking sources that state each CPU's place (strongest first).
STRONG_SOURCES = (("capacity", "capacity"), ("available_max_khz", "available_frequencies"),
                  ("limit_max_khz", "frequency_limits"))
#: Changes of one domain's CPUs land within this of each other.
BURST_GAP_NS = 1_000_000
#: Share of a CPU's changes that must be shared for two CPUs to be one domain.
SAME_DOMAIN_SHARE = 0.8
#: A CPU needs this many changes before co-changes can group it.
MIN_CHANGES = 3
#: A clock drives the domain whose changes match the largest share of its
#: rates (same value in kHz or Hz, within CLOCK_MATCH_NS), at least this.
CLOCK_MATCH_SHARE = 0.5
CLOCK_MATCH_NS = 2_000_000

_CLOCK_RANKS = ((re.compile(r"perfpcl", re.I), 2), (re.compile(r"perfcl", re.I), 1),
                (re.compile(r"pwrcl", re.I), 0))
_CPUCL = re.compile(r"cpucl(\d)", re.I)

#: What each ranking source is, for messages.
SOURCE_TEXT = {
    "capacity": "the CPUs' capacities (CpuInfo)",
    "available_frequencies": "the CPUs' available frequencies (CpuInfo)",
    "frequency_limits": "the CPUs' max-frequency limits (cpu_frequency_limits)",
    "clock_names": "the names of the clocks driving them (pwrcl/perfcl/cpuclN)",
    "cpu_numbering": "CPU numbering (on Android SoCs CPU numbers rise with capacity)",
}


@dataclasses.dataclass
class Topology:
    """CPU clusters: cluster 0 = littlest."""

    #: placed CPU -> its cluster
    cluster_of: dict[int, int]
    #: which evidence ranked the clusters (see the module doc), None: none
    source: str | None
    #: each CPU's highest available frequency (CpuInfo), where the trace lists one
    available_max_khz: dict[int, float] = dataclasses.field(default_factory=dict)
    #: every CPU the trace knows (sched, cpufreq or CpuInfo)
    cpus: list[int] = dataclasses.field(default_factory=list)
    #: CPUs the evidence could not place in a cluster
    unplaced: list[int] = dataclasses.field(default_factory=list)
    #: the evidence says every CPU is of one kind (no big, no little)
    equal: bool = False
    #: how the frequency domains were found (``available_frequencies``,
    #: ``cpufreq_policies``), or None when no CPU changed frequency
    domains_source: str | None = None
    #: the frequency domains (cpufreq policies), in CPU order
    domains: list[list[int]] = dataclasses.field(default_factory=list)
    #: each CPU's available frequencies (CpuInfo), ascending, where listed
    available_khz: dict[int, list[float]] = dataclasses.field(default_factory=dict)

    def domain_of(self, cpu: int) -> list[int]:
        """The CPUs of ``cpu``'s frequency domain ([cpu] when unknown)."""
        return next((d for d in self.domains if cpu in d), [cpu])

    def clusters(self) -> list[list[int]]:
        """CPUs of each cluster, littlest first."""
        n = max(self.cluster_of.values(), default=-1) + 1
        return [sorted(c for c, k in self.cluster_of.items() if k == i) for i in range(n)]

    def example(self) -> str:
        """A --cpus value of this trace for hints: its biggest cluster, else
        its two highest-numbered CPUs."""
        clusters = self.clusters()
        if len(clusters) > 1:
            return cpu_ranges(clusters[-1])
        return cpu_ranges(self.cpus[-2:]) if self.cpus else "6,7"

    def keyword(self, word: str) -> list[int]:
        """The CPUs of cluster keyword ``word`` (big | mid | little)."""
        if not self.cpus:
            raise UsageError(
                f"--cpus {word}: the trace has no CPU data (no sched, CPU frequency or CPU "
                "info), so it has no clusters and pinning cannot be judged — leave --cpus out")
        clusters = self.clusters()
        known = f"its CPUs are {cpu_ranges(self.cpus)}"
        if self.equal:
            why = ("one frequency policy holds them all" if self.source is None
                   else f"{SOURCE_TEXT[self.source]} rank them equal")
            raise SelectionError(
                f"--cpus {word}: the trace's CPUs {cpu_ranges(self.cpus)} are all of one kind "
                f"({why}): there is no {word} cluster — name the CPUs the app was pinned to, "
                f"e.g. --cpus {cpu_ranges(self.cpus)}")
        if len(clusters) < 2:
            raise SelectionError(
                f"--cpus {word}: nothing in the trace tells its clusters apart (no CPU "
                "capacities, frequency tables or limits, and no CPUs changing frequency "
                f"together; {known}) — record linux.system_info or name the CPUs, e.g. "
                f"--cpus {self.example()}")
        top = len(clusters) - 1
        want = {"big": [top], "little": [0]}.get(word, list(range(1, top)))
        cpus = sorted(c for i in want for c in clusters[i])
        listed = ", ".join(cpu_ranges(c) for c in clusters)
        if not cpus:
            raise SelectionError(f"--cpus {word}: the trace has no {word} cluster (its "
                                 f"{len(clusters)} clusters, littlest first: {listed})")
        # an unplaced CPU numbered beyond the chosen end may be that cluster
        beyond = [u for u in self.unplaced
                  if (word == "big" and u > cpus[-1]) or (word == "little" and u < cpus[0])]
        if beyond:
            raise SelectionError(
                f"--cpus {word}: {SOURCE_TEXT[self.source or 'cpu_numbering']} place CPUs "
                f"{listed} (littlest first) but not CPU{'s' if len(beyond) > 1 else ''} "
                f"{cpu_ranges(beyond)}, which by numbering may be the {word} cluster — "
                f"name the CPUs, e.g. --cpus {cpu_ranges(cpus)} or --cpus "
                f"{cpu_ranges(sorted(cpus + beyond))}")
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
    cpus = sorted(c for c in per_cpu["cpu"].to_list() if c is not None)
    topo = _derive(per_cpu, changes, cpus) if cpus else Topology({}, None)
    topo.cpus = cpus
    topo.available_max_khz = _column(per_cpu, "available_max_khz")
    topo.available_khz = {c: [float(x) for x in v.split(",")] for c, v in
                          per_cpu.select("cpu", "available_khz").iter_rows()
                          if c is not None and v}
    return topo


def _column(per_cpu: pl.DataFrame, col: str) -> dict[int, float]:
    return {c: v for c, v in per_cpu.select("cpu", col).iter_rows()
            if c is not None and v is not None}


def _derive(per_cpu: pl.DataFrame, changes: pl.DataFrame, cpus: list[int]) -> Topology:
    cpufreq = changes.filter(pl.col("kind") == "cpufreq") if changes.height else changes
    limits = _column(per_cpu, "limit_max_khz")
    domains, domains_source, evident = _domains(per_cpu, cpufreq, cpus, limits)
    topo = _ranked(per_cpu, changes, cpus, cpufreq, domains, domains_source, evident)
    topo.domains = domains if evident else []
    return topo


def _ranked(per_cpu: pl.DataFrame, changes: pl.DataFrame, cpus: list[int],
            cpufreq: pl.DataFrame, domains: list[list[int]], domains_source: str | None,
            evident: bool) -> Topology:
    observed = _column(per_cpu, "observed_max_khz")
    for col, source in STRONG_SOURCES:
        named = _column(per_cpu, col)
        if source != "frequency_limits" and set(named) >= set(cpus):
            # a value of every CPU's own places each CPU, domains aside
            return _clusters([[c] for c in cpus], dict(enumerate(named[c] for c in cpus)),
                             source, domains_source)
        values = _domain_values(domains, named)
        # a source naming one domain of several ranks nothing
        if not values or (len(values) == 1 and len(domains) > 1):
            continue
        if source == "frequency_limits":
            values = _break_ties(values, domains, observed)
        return _clusters(domains, values, source, domains_source)
    if not evident:
        return Topology({}, None, unplaced=[], domains_source=domains_source)
    if len(domains) == 1:
        # one policy holds every CPU: they are all of one kind
        return Topology({c: 0 for c in domains[0]}, None, equal=True,
                        domains_source=domains_source)
    clocks = changes.filter(pl.col("kind") == "clock") if changes.height else changes
    by_clock = _clock_ranks(domains, cpufreq, clocks)
    if by_clock is not None:
        return _clusters(domains, dict(enumerate(by_clock)), "clock_names", domains_source)
    return _clusters(domains, _numbering(domains, observed), "cpu_numbering", domains_source)


def _domains(per_cpu: pl.DataFrame, cpufreq: pl.DataFrame, cpus: list[int],
             limits: dict[int, float]) -> tuple[list[list[int]], str | None, bool]:
    """(domains in CPU order, how they were found, whether the CPUs' grouping
    rests on evidence: frequency tables, co-changes or limits naming several
    policies' first CPUs)."""
    tables = {c: t for c, t in per_cpu.select("cpu", "available_khz").iter_rows()}
    if all(tables.get(c) for c in cpus):
        groups: dict[str, list[int]] = {}
        for c in cpus:
            groups.setdefault(tables[c], []).append(c)
        return sorted(groups.values()), "available_frequencies", True
    policies, changed = _policies(cpufreq, cpus)
    grouped = {c for d in policies for c in d}
    domains = list(policies)
    # CPUs that (almost) never changed: a CPU named by a max-frequency limit
    # starts a policy (the kernel names a policy's first CPU); the next CPU
    # joins it unless its own few changes differ from its neighbour's.
    current: list[int] | None = None
    for c in cpus:
        if c in grouped:
            current = None
            continue
        if (current is None or c in limits or c - 1 not in current
                or (c in changed and changed[c] != changed.get(current[-1]))):
            current = [c]
            domains.append(current)
        else:
            current.append(c)
    return (sorted(domains), "cpufreq_policies" if policies else None,
            bool(policies) or len(limits) > 1)


def _policies(cpufreq: pl.DataFrame, cpus: list[int]
              ) -> tuple[list[list[int]], dict[int, frozenset[int]]]:
    """(domains of the CPUs that changed frequency at least MIN_CHANGES
    times: CPUs changing together form one, a CPU changing alone is one;
    each CPU's changes as a set of change moments)."""
    if not cpufreq.height:
        return [], {}
    bursts = (cpufreq.sort("ts", "cpu")
              .with_columns(new=((pl.col("ts") - pl.col("ts").shift(1)) > BURST_GAP_NS)
                            | (pl.col("value") != pl.col("value").shift(1))
                            | pl.col("ts").shift(1).is_null())
              .with_columns(burst=pl.col("new").cum_sum())
              .select("burst", "cpu").unique())
    changed = {c: frozenset(b) for (c,), b in
               ((k, g["burst"].to_list()) for k, g in bursts.group_by("cpu"))}
    changes = {c: len(b) for c, b in changed.items()}
    busy = [c for c in cpus if changes.get(c, 0) >= MIN_CHANGES]
    pairs = (bursts.join(bursts, on="burst", suffix="_other")
             .filter(pl.col("cpu") < pl.col("cpu_other"))
             .group_by("cpu", "cpu_other").len())
    parent = {c: c for c in busy}

    def find(c: int) -> int:
        while parent[c] != c:
            c = parent[c]
        return c

    for a, b, n in pairs.iter_rows():
        if a in parent and b in parent \
                and n >= SAME_DOMAIN_SHARE * changes[a] and n >= SAME_DOMAIN_SHARE * changes[b]:
            parent[find(b)] = find(a)
    groups: dict[int, list[int]] = {}
    for c in busy:
        groups.setdefault(find(c), []).append(c)
    return sorted(groups.values()), changed


def _domain_values(domains: list[list[int]], named: dict[int, float]) -> dict[int, float]:
    """Domain index -> its value (the highest of its CPUs'), for the domains
    ``named`` covers."""
    out = {}
    for i, d in enumerate(domains):
        values = [named[c] for c in d if c in named]
        if values:
            out[i] = max(values)
    return out


def _break_ties(values: dict[int, float], domains: list[list[int]],
                observed: dict[int, float]) -> dict[int, float]:
    """Equal limits (a cap on several policies) are told apart by the highest
    frequency each domain reached, only where it rises with the numbering."""
    out = dict(values)
    by_value: dict[float, list[int]] = {}
    for i, v in values.items():
        by_value.setdefault(v, []).append(i)
    for v, idx in by_value.items():
        if len(idx) < 2:
            continue
        idx.sort(key=lambda i: domains[i][0])
        reached = [max((observed.get(c, 0.0) for c in domains[i]), default=0.0) for i in idx]
        if all(a < b for a, b in zip(reached, reached[1:])):
            for k, i in enumerate(idx):
                out[i] = v + k * 1e-3
    return out


def _numbering(domains: list[list[int]], observed: dict[int, float]) -> dict[int, float]:
    """Domains in CPU-number order; the highest frequency reached orders only
    domains whose CPU numbers interleave."""
    def reached(d: list[int]) -> float:
        return max((observed.get(c, 0.0) for c in d), default=0.0)

    order = sorted(range(len(domains)), key=lambda i: (domains[i][0], domains[i][-1]))
    rank: list[int] = []
    for i in order:
        # place i after every domain that lies wholly below it
        pos = len(rank)
        while pos > 0 and domains[rank[pos - 1]][-1] > domains[i][0] \
                and reached(domains[rank[pos - 1]]) > reached(domains[i]):
            pos -= 1
        rank.insert(pos, i)
    return {i: float(k) for k, i in enumerate(rank)}


def _clusters(domains: list[list[int]], values: dict[int, float], source: str,
              domains_source: str | None) -> Topology:
    ranks = sorted(set(values.values()))
    cluster_of = {c: ranks.index(values[i]) for i, d in enumerate(domains) if i in values
                  for c in d}
    unplaced = sorted(c for i, d in enumerate(domains) if i not in values for c in d)
    equal = len(ranks) == 1 and not unplaced and source not in INFERRED_SOURCES
    return Topology(cluster_of, source, unplaced=unplaced, equal=equal,
                    domains_source=domains_source)


def _clock_rank(name: str) -> int | None:
    m = _CPUCL.search(name)
    if m:
        return int(m.group(1))
    return next((r for rx, r in _CLOCK_RANKS if rx.search(name)), None)


def _clock_ranks(domains: list[list[int]], cpufreq: pl.DataFrame,
                 clocks: pl.DataFrame) -> list[int] | None:
    """Each domain's cluster-clock rank, when every domain changed frequency
    and is driven by exactly one ranked clock."""
    if not clocks.height or not cpufreq.height:
        return None
    out: list[int] = []
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
        out.append(ranks.pop())
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
