"""engine-core's modules flow one way: decoders -> events -> sorter ->
trackers -> tables / virtual tables -> session (see engine-core/src/lib.rs).

The module graph is read from the Rust sources: every `use crate::...`,
`use super::...` and `use child::...` line and every `crate::x::` /
`super::x::` path in the code (comments and `#[cfg(test)]` modules aside:
a unit test may build its input with a later layer). Each file is a module;
an edge a -> b means a names something b defines.

Run as a script to print the graph's strongly connected components (the
import circles) and every edge that points to a later layer:

    python tests/engine/test_engine_layers.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SRC = next(
    p / "engine-core" / "src"
    for p in Path(__file__).resolve().parents
    if (p / "engine-core" / "src").is_dir()
)
if __name__ == "__main__" and len(sys.argv) > 1:
    SRC = Path(sys.argv[1])

# Layers in import order: a module may import from its own layer and from
# the layers above it only. The data flows decoder -> events -> sorter ->
# trackers -> tables -> session; `events` comes first here because it is the
# leaf: the payload types every decoder produces and every later layer reads.
# A module belongs to the layer of its longest listed prefix
# (`decoder::wire` is in `decoder`).
LAYERS: list[tuple[str, list[str]]] = [
    # the decoders' payload types, the stats and metadata vocabularies, the
    # machines' numbering: imports nothing of the crate
    ("events", ["events", "ints", "tp_stats", "metadata", "machines"]),
    # wire format, packets and text: trace bytes -> events (`decoder::sink`)
    ("decoder", ["decoder", "diagnostics"]),
    # timestamp order (trace_processor's TraceSorter)
    ("sorter", ["sorter"]),
    # events -> rows: the replay and one module per importer
    ("trackers", ["trackers", "replay"]),
    # rows -> typed columns -> SQLite tables and virtual tables, and the SQL
    # functions and operators over them
    (
        "tables",
        [
            "columns",
            "tables",
            "vtab",
            "stats_table",
            "span_join",
            "time_functions",
            "to_ftrace",
        ],
    ),
    # one opened trace: import, tables, queries; the Python module
    ("session", ["session", "arrow", "crate"]),
]


def module_of(path: Path) -> str:
    """`src/decoder/wire.rs` -> `decoder::wire`; `src/lib.rs` -> `crate`."""
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    if parts == ["lib"]:
        return "crate"
    return "::".join(parts)


def modules() -> dict[str, Path]:
    return {module_of(p): p for p in sorted(SRC.rglob("*.rs"))}


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        # a `//` inside a string literal ("http://") cuts the line short:
        # harmless, no `crate::` path follows one in this code base
        out.append(line.split("//", 1)[0])
    return "\n".join(out)


def without_tests(text: str) -> str:
    """The code before the file's `#[cfg(test)]` module (always last)."""
    m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d, e as f}}` -> [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def parse(s: str, prefix: str) -> list[str]:
        brace = s.find("{")
        if brace < 0:
            return [prefix + s]
        head, body = s[:brace], s[brace + 1 : s.rindex("}")]
        items, depth, start = [], 0, 0
        for i, ch in enumerate(body):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                items.append(body[start:i])
                start = i + 1
        items.append(body[start:])
        return [p for item in items if item for p in parse(item, prefix + head)]

    return parse(tree, "")


def resolve(path: str, here: str, known: dict[str, Path]) -> str | None:
    """The module a path names (its longest known prefix), or None (std,
    an external crate, an item of `here`)."""
    segs = [s for s in path.split("::") if s]
    base = [] if here == "crate" else here.split("::")
    relative = False
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("self", "super"):
        while segs and segs[0] in ("self", "super"):
            if segs.pop(0) == "super":
                base = base[:-1]
    else:
        relative = True  # `use child::x`: a child module, or an extern crate
    best = None
    for i in range(int(relative), len(segs) + 1):
        name = "::".join(base + segs[:i]) or "crate"
        if name in known:
            best = name
    return best


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for mod, path in known.items():
        code = without_tests(strip_comments(path.read_text()))
        paths: list[str] = []
        for m in re.finditer(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code, flags=re.M
        ):
            tree = m.group(1)
            if tree.split("::")[0].strip() in ("std", "core", "alloc"):
                continue
            paths.extend(expand_use_tree(tree))
        paths.extend(
            re.findall(r"\b(?:crate|super)(?:::[A-Za-z_]\w*)+", code)
        )
        for p in paths:
            target = resolve(p, mod, known)
            if target and target != mod:
                edges[mod].add(target)
    return edges


def layer_of(mod: str) -> int:
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for pre in prefixes:
            if (mod == pre or mod.startswith(pre + "::")) and len(pre) > best_len:
                best, best_len = i, len(pre)
    if best is None:
        raise AssertionError(f"module {mod} is in no layer: add it to LAYERS")
    return best


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm; components of more than one module, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out, key=len, reverse=True)


def backward_edges(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted(
        (a, b) for a, bs in edges.items() for b in bs if layer_of(b) > layer_of(a)
    )


def test_use_trees_and_paths_are_read() -> None:
    # a nested use tree names each leaf path once, aliases dropped
    assert expand_use_tree("crate::a::{b, c::{d, e as f}, g}") == [
        "crate::a::b",
        "crate::a::c::d",
        "crate::a::c::e",
        "crate::a::g",
    ]
    edges = graph()
    # edges the crate is known to have, one per way of naming a module:
    # `use crate::`, `use super::` from a file, a `crate::x::` path in code,
    # and a child named from its parent's mod.rs
    assert "sorter" in edges["replay"]  # use crate::sorter::{self, TsOrder}
    assert "trackers" in edges["trackers::core::sched"]  # crate::trackers::Ctx
    assert "decoder::wire" in edges["decoder::proto"]  # use super::wire::..
    assert "trackers::core::tracks" in edges["trackers::extra::power"]
    assert "machines" in edges["tables"]  # crate::machines::machine_cpu(..)
    assert "trackers::core::process" in edges["trackers"]  # use self::core::..


def test_every_module_is_in_a_layer() -> None:
    for mod in modules():
        layer_of(mod)


def test_the_only_import_circle_is_the_trackers_context() -> None:
    # trackers::Ctx (trackers/mod.rs) holds each tracker's state and each
    # tracker works on it, as trace_processor's TraceProcessorContext: that
    # circle stays inside the trackers layer; any other is a design error
    for comp in strongly_connected(graph()):
        assert "trackers" in comp and all(
            m.startswith("trackers::") or m == "trackers" for m in comp
        ), f"import circle: {' '.join(comp)}"


def test_no_module_imports_from_a_later_layer() -> None:
    bad = [
        f"{a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]})"
        for a, b in backward_edges(graph())
    ]
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def main() -> None:
    edges = graph()
    sccs = strongly_connected(edges)
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} edges")
    print(f"{len(sccs)} import circles:")
    for comp in sccs:
        print(f"  {len(comp)}: {' '.join(comp)}")
    back = backward_edges(edges)
    print(f"{len(back)} imports against the layer order:")
    for a, b in back:
        print(f"  {a} -> {b}")


if __name__ == "__main__":
    main()
