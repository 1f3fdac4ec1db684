"""The Python package's modules import one way: no import circles, and the
public API exports what it returns."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "pyanalysis" / "artscope"
#: compiled or generated modules imported from the package
EXTENSIONS = {"_core"}


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = f
    return mods


def _graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (at any level of the file)."""
    mods = _modules()

    def resolve(dotted: str) -> str | None:
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in mods:
                return ".".join(parts[:i])
        return None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        for node in ast.walk(ast.parse(f.read_text())):
            targets = []
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("artscope"):
                targets = [resolve(f"{node.module}.{a.name}") or resolve(node.module)
                           for a in node.names if a.name not in EXTENSIONS]
            elif isinstance(node, ast.Import):
                targets = [resolve(a.name) for a in node.names if a.name.startswith("artscope")]
            graph[m] |= {t for t in targets if t and t != m}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_one_that_imports_it_back():
    assert _circles(_graph()) == []


def test_the_public_api_exports_what_it_returns():
    import artscope

    for name in ("open", "analyze", "apps", "study", "load_results", "RunSet", "Study",
                 "Labels", "StudyOptions", "AnalysisOptions", "HealthThresholds"):
        assert name in artscope.__all__ and getattr(artscope, name) is not None
