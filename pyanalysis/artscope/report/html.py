"""``artscope report``: one self-contained HTML file per set of traces.

Everything is inline — the Vega, Vega-Lite and vega-embed JavaScript (from
vl-convert's bundle), every chart spec with its data, the styles — so the file
opens offline and can be attached to a bug. Per run it shows the verdict, the
reasons, the metric tables and the charts of artscope.report.charts.

The page records chart failures and script errors in ``#artscope-errors`` and
sets ``data-charts-rendered`` / ``data-charts-failed`` on <body> once every
chart has rendered, which the browser test reads.
"""

from __future__ import annotations

import datetime as _dt
import functools
import html
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from artscope.errors import ArtscopeError, UsageError

if TYPE_CHECKING:
    from artscope.runset import RunSet

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
  max-width:1100px;padding:16px 24px;color:#222}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.pass{background:#2ca02c}.warn{background:#ff7f0e}.fail{background:#d62728}
.sev-fail{color:#d62728;font-weight:600}.sev-warn{color:#c76200;font-weight:600}
.meta{color:#555}.chart{margin:10px 0 18px}.grid{display:flex;flex-wrap:wrap;gap:18px}
details{margin:2px 0}pre{white-space:pre-wrap;margin:0;font-size:12px}
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


# -- formatting ----------------------------------------------------------------

def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _fmt(key: str, v: Any) -> str:
    if v is None:
        return '<span class="meta">null</span>'
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if key.endswith("share") or key.endswith("residency"):
            return f"{v:.4g} ({100 * v:.2f}%)"
        return f"{v:.6g}"
    if isinstance(v, int) and key.endswith("_ns") and abs(v) >= 1000:
        return f"{v:,} ({v / 1e6:,.3f} ms)"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, dict)):
        return f"<pre>{_e(json.dumps(v, sort_keys=True))}</pre>"
    return _e(v)


def _num(v: Any) -> str:
    return ' class="num"' if isinstance(v, (int, float)) and not isinstance(v, bool) else ""


def _kv_table(d: dict[str, Any], skip: Iterable[str] = ()) -> str:
    rows = "".join(
        f'<tr><th>{_e(k)}</th><td{_num(v)}>{_fmt(k, v)}</td></tr>'
        for k, v in d.items() if k not in set(skip))
    return f"<table>{rows}</table>"


def _rows_table(rows: Sequence[dict[str, Any]], skip: Iterable[str] = ()) -> str:
    if not rows:
        return '<p class="meta">none</p>'
    skip = set(skip)
    cols = [c for c in rows[0] if c not in skip]
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f'<td{_num(r.get(c))}>{_fmt(c, r.get(c))}</td>' for c in cols)
                   + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _reasons(reasons: list[dict[str, Any]]) -> str:
    if not reasons:
        return "<p>No problems found: every check passed.</p>"
    out = ["<table><tr><th>severity</th><th>check</th><th>message</th>"
           "<th>expected</th><th>actual</th><th>evidence</th></tr>"]
    for r in reasons:
        sev = r.get("severity", "")
        ev = r.get("evidence")
        ev_html = (f"<details><summary>show</summary><pre>{_e(json.dumps(ev, indent=1))}"
                   "</pre></details>" if ev else "")
        out.append(f'<tr><td class="sev-{_e(sev)}">{_e(sev)}</td><td>{_e(r.get("id"))}</td>'
                   f'<td>{_e(r.get("message"))}</td><td>{_e(r.get("expected"))}</td>'
                   f'<td>{_fmt("actual", r.get("actual"))}</td><td>{ev_html}</td></tr>')
    out.append("</table>")
    return "".join(out)


class _Charts:
    """Collects chart specs; each becomes a div + an inline JSON script."""

    def __init__(self) -> None:
        self.n = 0
        self.failures: list[str] = []

    def add(self, title: str, build: Callable[[], Any]) -> str:
        self.n += 1
        cid = f"chart-{self.n}"
        try:
            spec = build().to_dict()
            payload = json.dumps(spec, allow_nan=False, separators=(",", ":"))
        except ArtscopeError as e:
            self.failures.append(f"{title}: {e}")
            return f'<p class="meta">{_e(title)}: {_e(e)}</p>'
        # "<" escaped: the JSON can never close its <script> element.
        payload = payload.replace("<", "\\u003c")
        return (f'<div class="chart" id="{cid}" data-title="{_e(title)}"></div>'
                f'<script type="application/json" data-artscope-target="{cid}">'
                f"{payload}</script>")


def _run_section(rs: "RunSet", result: dict[str, Any], charts_: _Charts, mod: Any,
                 deadline_ns: int) -> str:
    run = result["run"]
    verdict = result["health"]["verdict"]
    w = result["window"]
    length = (w["end_ts"] - w["start_ts"]) / 1e9
    out = [f'<h2 id="run-{_e(run)}">Run {_e(run)} <span class="verdict {_e(verdict)}">'
           f'{_e(verdict)}</span></h2>',
           f'<p class="meta">window [{w["start_ts"]}, {w["end_ts"]}) ns — {length:.3f} s, '
           f'from {_e(w["source"])}; engine {_e(result["engine"])}'
           f'{"; <b>partial</b>" if result.get("partial") else ""}</p>',
           "<h3>Reasons</h3>", _reasons(result["health"]["reasons"])]
    p = result["pinning"]
    out += ["<h3>Metrics</h3>", '<div class="grid"><div><b>GC</b>',
            _kv_table(result["gc"], skip=("by_type", "events")),
            "</div><div><b>Pinning</b>",
            _kv_table(p, skip=("threads", "top_interferers", "evidence")),
            "</div><div><b>Jank</b>", _kv_table(
                {**{k: v for k, v in result["jank"].items() if k != "frame_dur_ms"},
                 **{f"frame_dur_ms {k}": v for k, v in result["jank"]["frame_dur_ms"].items()}}),
            "</div></div>",
            "<b>GC by type</b>", _rows_table([{"gc_type": t, **v}
                                             for t, v in result["gc"]["by_type"].items()]),
            "<b>Threads (pinning)</b>", _rows_table(p.get("threads") or []),
            "<b>Top interferers on the allowed CPUs</b>", _rows_table(p.get("top_interferers") or []),
            "<b>CPU frequency</b>", _rows_table(result["cpufreq"], skip=("residency",)),
            "<b>Memory / device frequency</b>", _rows_table(result["memfreq"], skip=("residency",))]
    if p.get("evidence"):
        out += ["<b>Affinity evidence</b>", _rows_table(p["evidence"])]
    out.append("<h3>Charts</h3>")
    frames = functools.partial(mod.frame_durations, deadline_ns=deadline_ns)
    for title, fn in (("timeline", mod.timeline), ("frequency", mod.frequency),
                      ("residency", mod.residency), ("frame durations", frames),
                      ("MMU", mod.mmu)):
        out.append(charts_.add(f"run {run} {title}", lambda fn=fn: fn(rs, run)))
    return "\n".join(out)


def render(runsets: Sequence["RunSet"], title: str | None = None,
           deadline_ns: int | None = None) -> str:
    """The report page for already opened run sets (one per trace).

    ``deadline_ns``: the choreographer frame deadline the analysis used
    (default: AnalysisOptions' default), for marking late frames.
    """
    from artscope.metrics.options import DEFAULT_FRAME_DEADLINE_NS
    from artscope.report import charts as mod
    from artscope.runset import flatten, flat_frame

    charts_ = _Charts()
    body: list[str] = []
    all_rows = []
    toc = []
    for i, rs in enumerate(runsets):
        sel = rs.analysis.selection
        body.append(f'<h1 id="trace-{i}">{_e(rs.analysis.trace)}</h1>')
        body.append(
            f'<p class="meta">app {_e(sel.process_name)} (pids {_e(sel.pids)}, matched by '
            f'{_e(sel.matched_by)}); allowed CPUs {_e(sel.allowed_cpus)}, GC threads\' '
            f'{_e(sel.gc_allowed_cpus)}; {len(rs.results)} run(s); engine {_e(rs.analysis.engine)}</p>')
        body.append(_rows_table(rs.runs().to_dicts()))
        body.append(charts_.add(f"trace {i} GC", lambda rs=rs: mod.gc_cpu(rs)))
        for r in rs.results:
            body.append(_run_section(rs, r, charts_, mod,
                                     deadline_ns or DEFAULT_FRAME_DEADLINE_NS))
            all_rows.append(flatten(r))
            toc.append(f'<li><a href="#trace-{i}">{_e(Path(rs.analysis.trace).name)}</a> run '
                       f'{_e(r["run"])}: <span class="verdict {_e(r["health"]["verdict"])}">'
                       f'{_e(r["health"]["verdict"])}</span></li>')
    if len(all_rows) > 1:
        df = flat_frame(all_rows)
        body.insert(0, charts_.add("runs", lambda: mod.runs_strip(df)))
    title = title or ("artscope report: " + ", ".join(Path(rs.analysis.trace).name
                                                        for rs in runsets))
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>{_e(title)}</title><style>{CSS}</style>",
        f"<script>{vega_javascript()}</script></head><body>",
        f'<h1>{_e(title)}</h1><p class="meta">generated {stamp} by artscope</p>',
        f"<ul>{''.join(toc)}</ul>",
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
                 **options: Any) -> list[dict[str, Any]]:
    """Analyse ``traces`` and write the report page to ``output`` atomically.

    ``opts`` is an AnalysisOptions (else built from ``options``: app, pid,
    cpus, marker, window...). Returns the per-run results it shows.
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
        text = render(runsets, title=title, deadline_ns=opts.frame_deadline_ns)
        results = [r for rs in runsets for r in rs.results]
    finally:
        for rs in runsets:
            rs.close()
    write_atomic(out, text)
    return results
