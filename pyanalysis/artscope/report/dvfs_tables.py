"""The report's DVFS tables: the GC's and the mutators' CPU time per
cluster and the frequency it ran at (beside the GC tables), and the energy
per power rail (docs/metrics.md, "The GC under DVFS")."""

from __future__ import annotations

from typing import Any

from artscope.report.html_tables import _e, _rows_table
from artscope.units import format_frequency


def _cycles(value: float | None, estimate: bool | None) -> str | None:
    if value is None:
        return None
    return f"{value:.4g}{' (est.)' if estimate else ''}"


def _or_dash(v: float | None, fmt: str) -> str:
    return "—" if v is None else format(v, fmt)


def dvfs_tables(result: dict[str, Any]) -> str:
    """HTML: frequency of GC and mutator time per cluster; energy per rail."""
    d = result.get("dvfs") or {}
    cyc = d.get("cycles") or {}
    rows = []
    for part in ("gc", "mutator"):
        f = d.get(part)
        if f is None:
            continue
        rows.append({"time": part, "cluster": "all", "cpu_ns": f["cpu_ns"],
                     "frequency": format_frequency(f["mean"], f["unit"]),
                     "range": (f"{format_frequency(f['min'], f['unit'])} – "
                               f"{format_frequency(f['max'], f['unit'])}"
                               if f["min"] is not None else None),
                     "unknown_ns": f["unknown_ns"],
                     "cycles": _cycles(cyc.get(f"{part}_cycles"), cyc.get("estimate")),
                     "note": f["reason"]})
        rows += [{"time": part, "cluster": f"{c['cluster']} ({', '.join(map(str, c['cpus']))})",
                  "cpu_ns": c["cpu_ns"], "frequency": format_frequency(c["freq_mean"], f["unit"])
                  if c["cpu_ns"] else None, "range": None, "unknown_ns": None,
                  "cycles": None, "note": None}
                 for c in f["by_cluster"]]
    out = ["<h4>GC and mutator time per cluster, and its frequency</h4>"]
    if rows:
        share = cyc.get("gc_cycles_share")
        note = "; " + _e(cyc["reason"]) if cyc.get("reason") else ""
        out += [_rows_table(rows),
                f'<p class="meta">GC / mutator frequency: '
                f'{_or_dash(d.get("gc_to_mutator_freq_ratio"), ".3f")}; GC share of cycles: '
                f'{_or_dash(None if share is None else 100 * share, ".2f")}%'
                f'{" (estimate)" if cyc.get("estimate") else ""}; '
                f'GC CPI {_or_dash(cyc.get("gc_cpi"), ".3f")}, '
                f'mutator CPI {_or_dash(cyc.get("mutator_cpi"), ".3f")}{note}</p>']
    else:
        out.append(f'<p class="meta">{_e(d.get("reason") or "none")}</p>')
    energy = d.get("energy") or {}
    out.append("<h4>Energy per power rail</h4>")
    if energy.get("rails"):
        out.append(_rows_table(energy["rails"]))
    note = "; " + _e(energy["reason"]) if energy.get("reason") else ""
    out.append(f'<p class="meta">total {_or_dash(energy.get("total_j"), ".4g")} J; mean power '
               f'{_or_dash(energy.get("mean_power_w"), ".4g")} W; GC share of the CPU rails '
               f'{_or_dash(energy.get("gc_cpu_j"), ".4g")} J (estimate){note}</p>')
    return "\n".join(out)
