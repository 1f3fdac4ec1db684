"""``artscope report``: one self-contained HTML file per set of traces.

Everything is inline — the Vega, Vega-Lite and vega-embed JavaScript (from
vl-convert's bundle), every chart spec with its data, the styles — so the file
opens offline and can be attached to a bug. It reads top-down: per run the
verdict and each reason with the chart that shows it beside it
(charts.reason_chart), the metric tables, then the charts of the whole run. It
fits a 1300 px wide window; times are relative to the run start.

The page records chart failures and script errors in ``#artscope-errors`` and
sets ``data-charts-rendered`` / ``data-charts-failed`` on <body> once every
chart has rendered, which the browser test reads.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from artscope.metrics.conditions import conditions_line
from artscope.errors import ArtscopeError, UsageError

if TYPE_CHECKING:
    from artscope.runset import RunSet

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
  max-width:1240px;padding:12px 20px;color:#222}
h1{font-size:22px;margin:8px 0}h2{font-size:19px;margin:26px 0 6px;border-bottom:2px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}
table{border-collapse:collapse;margin:4px 0 10px;font-size:13px;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top;
  overflow-wrap:anywhere}
th{background:#f5f5f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;
  white-space:nowrap}
.verdict{display:inline-block;padding:1px 10px;border-radius:10px;color:#fff;font-weight:600}
.pass{background:#2ca02c}.info{background:#1f77b4}.warn{background:#ff7f0e}.fail{background:#d62728}
.sev{display:inline-block;padding:0 7px;border-radius:8px;color:#fff;font-size:12px;
  font-weight:600;margin-right:6px}
.meta{color:#555}.chart{margin:8px 0 16px;max-width:100%}
.grid{display:flex;flex-wrap:wrap;gap:0 18px;align-items:flex-start}
.grid>div{flex:1 1 300px;min-width:0}
.reason{display:grid;grid-template-columns:minmax(0,380px) minmax(0,1fr);gap:16px;
  border:1px solid #e3e3e3;border-left:5px solid #999;border-radius:4px;padding:8px 12px;
  margin:10px 0}
.reason.no-chart{grid-template-columns:minmax(0,1fr)}
.reason.sev-fail{border-left-color:#d62728}.reason.sev-warn{border-left-color:#ff7f0e}
.reason p{margin:4px 0}.reason .chart{margin:0}.reason dl{margin:4px 0;font-size:13px}
.reason dt{font-weight:600;float:left;clear:left;margin-right:6px}.reason dd{margin:0 0 2px}
.reason ul{margin:2px 0;padding-left:18px;font-size:13px}
details{margin:4px 0}summary{cursor:pointer}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:12px}
nav ul{padding-left:20px}
#artscope-errors{color:#d62728}
"""

LOADER = """
(function () {
  var errs = document.getElementById('artscope-errors');
  function fail(msg) { errs.textContent += msg + '\\n'; errs.hidden = false; }
  window.addEventListener('error', function (e) { fail('script error: ' + e.message); });
  window.addEventListener('unhandledrejection', function (e) { fail('rejected: ' + e.reason); });
  var specs = document.querySelectorAll('script[data-artscope-target]');
  var failed = 0;
  var jobs = Array.prototype.map.call(specs, function (s) {
    var target = document.getElementById(s.getAttribute('data-artscope-target'));
    return vegaEmbed(target, JSON.parse(s.textContent),
                     {renderer: 'svg', actions: {export: true, source: false,
                      compiled: false, editor: false}})
      .catch(function (err) { failed += 1; fail('chart ' + target.id + ': ' + err); });
  });
  Promise.all(jobs).then(function () {
    document.body.setAttribute('data-charts-failed', String(failed));
    document.body.setAttribute('data-charts-rendered', String(jobs.length - failed));
  });
})();
"""


class ReportError(ArtscopeError):
    """The report could not be written."""


@functools.lru_cache(maxsize=1)
def vega_javascript() -> str:
    """vega + vega-lite + vega-embed as one classic script (window globals)."""
    import altair as alt
    import vl_convert as vlc

    want = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    have = vlc.get_vegalite_versions()
    js = vlc.javascript_bundle(vl_version=want if want in have else have[-1])
    # Never let the bundle end its own <script> element.
    return js.replace("</script", "<\\/script").replace("<!--", "<\\!--")


from artscope.report.dvfs_tables import dvfs_tables
from artscope.report.html_tables import (  # noqa: E402 - the cells of every report table
    _FREQ_KEYS, _e, _fmt, _kv_table, _ms, _rel, _rows_table)


# -- health reasons --------------------------------------------------------------

def _evidence(ev: dict[str, Any], start: int) -> str:
    """A reason's evidence as a short list a person reads (times relative)."""
    items = []
    for key, v in ev.items():
        if key == "threads":
            text = ", ".join(f"{_e(t.get('name'))} ({_e(t.get('tid'))}) "
                             f"{_ms(t.get('off_mask_cpu_ns') or 0)}" for t in v)
            items.append(f"<li>threads off the mask: {text}</li>")
        elif key == "time_ranges":
            text = ", ".join(f"{_rel(a, start)} to {_rel(b, start)}" for a, b in v)
            items.append(f"<li>time: {text}</li>")
        elif key == "events":
            text = ", ".join(f"{_e(x.get('kind'))} of tid {_e(x.get('tid'))} at "
                             f"{_rel(x['ts'], start)}"
                             + (f" (to {_e(x['detail'])})" if x.get("detail") else "")
                             for x in v)
            items.append(f"<li>events: {text}</li>")
        elif key == "processes":
            text = ", ".join(f"{_e(x.get('name'))} ({_e(x.get('pid'))}) {_ms(x['cpu_ns'])}"
                             for x in v)
            items.append(f"<li>other processes: {text}</li>")
        else:
            items.append(f"<li>{_e(key)}: {_fmt(key, v, start)}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _actual(reason: dict[str, Any]) -> str:
    v = reason.get("actual")
    key = "share" if "share" in str(reason.get("expected")) and isinstance(v, float) else "actual"
    return _fmt(key, v)


def _reason(reason: dict[str, Any], start: int, chart: str) -> str:
    sev = reason.get("severity", "")
    ev = reason.get("evidence") or {}
    wide = "" if chart else " no-chart"
    return (f'<div class="reason sev-{_e(sev)}{wide}" data-reason="{_e(reason.get("id"))}">'
            f'<div class="reason-text"><p><span class="sev {_e(sev)}">{_e(sev)}</span>'
            f'<b>{_e(reason.get("id"))}</b></p><p>{_e(reason.get("message"))}</p>'
            f'<dl><dt>expected</dt><dd>{_e(reason.get("expected"))}</dd>'
            f'<dt>actual</dt><dd>{_actual(reason)}</dd>'
            + (f'<dt>when</dt><dd>{_rel(reason["start_ts"], start)} to '
               f'{_rel(reason["end_ts"], start)}</dd>'
               if reason.get("start_ts") is not None and reason.get("end_ts") is not None
               else "")
            + "</dl>"
            + (f"<details><summary>evidence</summary>{_evidence(ev, start)}</details>"
               if ev else "")
            + f'</div><div class="reason-chart">{chart}</div></div>')


class _Charts:
    """Collects chart specs; each becomes a div + an inline JSON script."""

    def __init__(self) -> None:
        self.n = 0
        self.failures: list[str] = []

    def add(self, title: str, build: Callable[[], Any]) -> str:
        """The chart's HTML; "" when ``build`` returns None (nothing to show)."""
        try:
            chart = build()
            if chart is None:
                return ""
            spec = chart.to_dict()
            payload = json.dumps(spec, allow_nan=False, separators=(",", ":"))
        except ArtscopeError as e:
            self.failures.append(f"{title}: {e}")
            return f'<p class="meta">{_e(title)}: {_e(e)}</p>'
        self.n += 1
        cid = f"chart-{self.n}"
        # "<" escaped: the JSON can never close its <script> element.
        payload = payload.replace("<", "\\u003c")
        return (f'<div class="chart" id="{cid}" data-title="{_e(title)}"></div>'
                f'<script type="application/json" data-artscope-target="{cid}">'
                f"{payload}</script>")


# -- one run -----------------------------------------------------------------------

def _readable_freq(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frequency rows with min / max / mean / dominant in MHz or GHz (each
    series in its own unit; a value of unknown unit stays as recorded)."""
    from artscope.units import format_frequency

    return [{k: (format_frequency(v, r.get("unit")) if k in _FREQ_KEYS and v is not None
                 else v) for k, v in r.items()} for r in rows]


def _metric_tables(result: dict[str, Any], start: int) -> str:
    p = result["pinning"]
    jank = result["jank"]
    memory = [m for m in result["memfreq"] if m["is_memory"]]
    other = [m for m in result["memfreq"] if not m["is_memory"]]
    freq_skip = ("residency", "is_memory")
    out = ['<div class="grid"><div><h4>GC</h4>',
           _kv_table(result["gc"], start, skip=("by_cause", "by_kind", "events", "mmu",
                                                "main_thread_mmu")),
           "</div><div><h4>Pinning</h4>",
           _kv_table(p, start, skip=("threads", "top_interferers", "evidence")),
           "</div><div><h4>Jank</h4>",
           _kv_table({**{k: v for k, v in jank.items() if k != "frame_dur_ms"},
                      **{f"frame_dur_ms {k}": v for k, v in jank["frame_dur_ms"].items()}},
                     start),
           "</div></div>",
           "<h4>GC by cause</h4>",
           _rows_table([{"cause": k, **v} for k, v in result["gc"]["by_cause"].items()], start),
           "<h4>GC by kind</h4>",
           _rows_table([{"kind": k, **v} for k, v in result["gc"]["by_kind"].items()], start),
           dvfs_tables(result),
           "<h4>Threads (pinning)</h4>", _rows_table(p.get("threads") or [], start),
           "<h4>Top interferers on the allowed CPUs</h4>",
           _rows_table(p.get("top_interferers") or [], start)]
    if p.get("evidence"):
        out += ["<h4>Affinity evidence</h4>", _rows_table(p["evidence"], start)]
    out += ["<h4>CPU frequency</h4>",
            _rows_table(_readable_freq(result["cpufreq"]), start, skip=("residency",)),
            "<h4>Memory-controller frequency</h4>",
            _rows_table(_readable_freq(memory), start, skip=freq_skip)]
    if other:
        # Every other clock the trace has (GPU, UCLAMP votes, bus domains...):
        # listed (folded away) and charted only with --all-clocks.
        out += [f'<details class="other-clocks"><summary>Other clocks and devices '
                f'({len(other)}) — not memory controllers, not part of the verdict</summary>',
                _rows_table(_readable_freq(other), start, skip=freq_skip), "</details>"]
    return "\n".join(out)


def _run_section(rs: "RunSet", result: dict[str, Any], charts_: _Charts, mod: Any,
                 anchor: str, deadline_ns: int, all_clocks: bool) -> str:
    run = result["run"]
    health = result["health"]
    verdict = health["verdict"]
    w = result["window"]
    start = w["start_ts"]
    length = (w["end_ts"] - start) / 1e9
    out = [f'<section class="run" id="{anchor}">',
           f'<h2>Run {_e(run)} <span class="verdict {_e(verdict)}">{_e(verdict)}</span></h2>',
           f'<p class="meta">{length:.3f} s window from {_e(w["source"])}; times below are '
           f'seconds since its start; engine {_e(result["engine"])}'
           f'{"; <b>partial trace</b>" if result.get("partial") else ""}</p>',
           f'<p class="meta" data-section="conditions">Conditions: '
           f'{_e(conditions_line(result))}</p>',
           '<div data-section="verdict">']
    reasons = health["reasons"]
    if not reasons:
        out.append("<p>No problems found: every check passed.</p>")
    else:
        n = len(reasons)
        out.append(f"<h3>Why {_e(verdict)}: {n} reason{'s' if n != 1 else ''}</h3>")
    for k, reason in enumerate(reasons):
        chart = charts_.add(f"run {run} reason {k + 1} {reason.get('id')}",
                            lambda reason=reason: mod.reason_chart(rs, run, reason,
                                                                   all_clocks=all_clocks))
        out.append(_reason(reason, start, chart))
    out += ["</div>", '<div data-section="tables"><h3>Metrics</h3>',
            _metric_tables(result, start), "</div>",
            '<div data-section="charts"><h3>The whole run</h3>']
    frames = functools.partial(mod.frame_durations, deadline_ns=deadline_ns)
    whole = (("timeline", mod.timeline),
             ("frequency", functools.partial(mod.frequency, all_clocks=all_clocks)),
             ("residency", functools.partial(mod.residency, all_clocks=all_clocks)),
             ("frame durations", frames), ("GC pauses", mod.gc_pauses), ("MMU", mod.mmu))
    for title, fn in whole:
        out.append(charts_.add(f"run {run} {title}", lambda fn=fn: fn(rs, run)))
    out.append("</div>")
    from artscope.report import memory_charts

    out.append(memory_charts.report_section(rs, result, charts_.add, start))
    out.append("</section>")
    return "\n".join(out)


def _trace_header(rs: "RunSet", i: int) -> str:
    sel = rs.analysis.selection
    runs = rs.results
    origin = getattr(sel, "trace_start", None)
    if origin is None:
        origin = min((r["window"]["start_ts"] for r in runs), default=0)
    table = _rows_table([{
        "run": r["run"], "verdict": r["health"]["verdict"],
        "starts (s into the trace)": round((r["window"]["start_ts"] - origin) / 1e9, 3),
        "length (s)": round((r["window"]["end_ts"] - r["window"]["start_ts"]) / 1e9, 3),
        "window from": r["window"]["source"]} for r in runs])
    return (f'<h1 id="trace-{i}">{_e(Path(rs.analysis.trace).name)}</h1>'
            f'<p class="meta">{_e(rs.analysis.trace)}: app {_e(sel.process_name)} (pids '
            f'{_e(", ".join(map(str, sel.pids or [])))}, matched by {_e(sel.matched_by)}); '
            f'allowed CPUs {_e(", ".join(map(str, sel.allowed_cpus or [])) or "any")}, GC '
            f'threads\' {_e(", ".join(map(str, sel.gc_allowed_cpus or [])) or "any")}; '
            f'{len(runs)} run(s); engine {_e(rs.analysis.engine)}</p>{table}')


def render(runsets: Sequence["RunSet"], title: str | None = None,
           deadline_ns: int | None = None, all_clocks: bool = False) -> str:
    """The report page for already opened run sets (one per trace).

    Read top-down: per trace its runs; per run the verdict and every reason
    with the chart that shows it beside it, then the metric tables, then the
    charts of the whole run; last the trace's GC chart. ``deadline_ns``: the
    choreographer frame deadline the analysis used (default:
    AnalysisOptions' default), for marking late frames. ``all_clocks`` also
    charts the clocks that are not memory controllers (the tables always list
    them, folded away).
    """
    from artscope.metrics.options import DEFAULT_FRAME_DEADLINE_NS
    from artscope.report import charts as mod
    from artscope.flatschema import flat_frame, flatten

    charts_ = _Charts()
    body: list[str] = []
    all_rows = []
    toc = []
    for i, rs in enumerate(runsets):
        body.append(f'<section class="trace">{_trace_header(rs, i)}')
        for r in rs.results:
            anchor = f"run-{i}-{r['run']}"
            body.append(_run_section(rs, r, charts_, mod, anchor,
                                     deadline_ns or DEFAULT_FRAME_DEADLINE_NS, all_clocks))
            all_rows.append(flatten(r))
            ids = ", ".join(dict.fromkeys(x["id"] for x in r["health"]["reasons"]))
            toc.append(f'<li><a href="#{anchor}">{_e(Path(rs.analysis.trace).name)} run '
                       f'{_e(r["run"])}</a> <span class="verdict {_e(r["health"]["verdict"])}">'
                       f'{_e(r["health"]["verdict"])}</span> {_e(ids)}</li>')
        body.append(f'<div data-section="gc"><h3>GC of every run in '
                    f'{_e(Path(rs.analysis.trace).name)}</h3>'
                    + charts_.add(f"trace {i} GC", lambda rs=rs: mod.gc_cpu(rs))
                    + "</div></section>")
    if len(all_rows) > 1:
        df = flat_frame(all_rows)
        body.insert(0, '<section data-section="across-runs"><h2>All runs</h2>'
                    + charts_.add("runs", lambda: mod.runs_strip(df)) + "</section>")
    title = title or ("artscope report: " + ", ".join(Path(rs.analysis.trace).name
                                                        for rs in runsets))
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style>",
        f"<script>{vega_javascript()}</script></head><body>",
        f'<h1>{_e(title)}</h1><p class="meta">generated {stamp} by artscope</p>',
        f"<nav><ul>{''.join(toc)}</ul></nav>",
        '<pre id="artscope-errors" hidden></pre>',
        *body,
        f"<script>{LOADER}</script></body></html>\n",
    ])


def write_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` via a temp file + os.replace (no half files)."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"cannot write {path}: directory {parent} does not exist")
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise ReportError(f"cannot write {path}: {e.strerror or e}") from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def open_runsets(traces: Sequence[str | Path], opts: Any = None, *, engine: str = "auto",
                 tp_bin: str | None = None, **options: Any) -> list["RunSet"]:
    """Open every trace (files, directories, globs) with ``opts`` (an
    AnalysisOptions) or AnalysisOptions keyword ``options``."""
    from artscope.batch import expand_paths
    from artscope.engines import load_trace
    from artscope.metrics.analysis import analyze_engine
    from artscope.metrics.options import AnalysisOptions
    from artscope.runset import RunSet

    if opts is None:
        opts = AnalysisOptions(**options)
    paths = expand_paths([str(t) for t in traces])
    if not paths:
        raise UsageError("no traces given")
    runsets: list[RunSet] = []
    try:
        for p in paths:
            try:
                eng = load_trace(p, engine=engine, tp_bin=tp_bin)
                try:
                    runsets.append(RunSet(analyze_engine(eng, opts, p), eng))
                except BaseException:
                    eng.close()
                    raise
            except ArtscopeError as e:
                if len(paths) == 1 or p in str(e):
                    raise
                raise type(e)(f"{p}: {e}") from e
    except BaseException:
        for rs in runsets:
            rs.close()
        raise
    return runsets


def write_report(traces: Sequence[str | Path], output: str | Path, opts: Any = None, *,
                 engine: str = "auto", tp_bin: str | None = None, title: str | None = None,
                 all_clocks: bool = False, **options: Any) -> list[dict[str, Any]]:
    """Analyse ``traces`` and write the report page to ``output`` atomically.

    ``opts`` is an AnalysisOptions (else built from ``options``: app, pid,
    cpus, marker, window...); ``all_clocks`` charts every clock, not only the
    memory controllers. Returns the per-run results it shows.
    """
    out = Path(output)
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"cannot write {out}: directory {parent} does not exist")
    if opts is None:
        from artscope.metrics.options import AnalysisOptions
        opts = AnalysisOptions(**options)
    runsets = open_runsets(traces, opts, engine=engine, tp_bin=tp_bin)
    try:
        text = render(runsets, title=title, deadline_ns=opts.frame_deadline_ns,
                      all_clocks=all_clocks)
        results = [r for rs in runsets for r in rs.results]
    finally:
        for rs in runsets:
            rs.close()
    write_atomic(out, text)
    return results
