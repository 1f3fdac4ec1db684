"""A generated batch for the dataset and cluster tests (test_results.py,
test_cluster.py): small enough to analyse in a few seconds, long enough that
a test can kill a run in the middle of it.

* ``tiny_K.pftrace`` (K = 0..3): hand schedules (tests/metric_traces.py) whose
  numbers are known: the app's main thread runs on CPU 6 for [10, 40 + 10K)
  ms and on CPU 2 for [50 + 10K, 55 + 10K) ms of a 100 ms trace, so with
  ``--cpus 6,7``: app CPU = 35 + 10K ms, off-mask CPU = 5 ms, 1 migration;
* ``sim_NN.pftrace``: 0.5 s simulated phones (bench/gen_trace.py, ~4k
  sched_switch, compact_sched, one seed each), ~0.2 s of analysis apiece;
* ``zz_bad.pftrace``: not a trace (an error row).
"""

from __future__ import annotations

import sys
from pathlib import Path

import metric_traces as MT

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "bench") not in sys.path:
    sys.path.insert(0, str(REPO / "bench"))

APP = MT.APP
CPUS = "6,7"
N_TINY = 4
N_SIM = 16
MS = 1_000_000


def tiny_truth(k: int) -> dict[str, int]:
    """Flat columns of tiny_K's only run, derived from its schedule by hand."""
    return {"gc_app_cpu_ns": (30 + 10 * k + 5) * MS, "pinning_off_mask_cpu_ns": 5 * MS,
            "pinning_migrations": 1}


def make_batch(directory: Path) -> list[Path]:
    """Write the batch into ``directory``; returns the traces in name order."""
    import gen_trace

    directory.mkdir(parents=True, exist_ok=True)
    for k in range(N_TINY):
        sch = MT.tiny(f"tiny_{k}", 100, runs=[MT.run(6, 10, 40 + 10 * k, MT.MAIN),
                                              MT.run(2, 50 + 10 * k, 55 + 10 * k, MT.MAIN)])
        MT.write(sch, directory)
    for i in range(N_SIM):
        data = gen_trace.encode(gen_trace.simulate(0.5, 4_000, seed=500 + i), compact=True)
        (directory / f"sim_{i:02d}.pftrace").write_bytes(data)
    (directory / "zz_bad.pftrace").write_bytes(b"\x0a\xff\xff this is not a trace\n" * 64)
    return sorted(directory.glob("*.pftrace"))


def tiny_traces(batch: list[Path]) -> list[Path]:
    """The hand-made traces of ``batch``, tiny_0 .. tiny_3."""
    return [p for p in batch if p.name.startswith("tiny_")]
