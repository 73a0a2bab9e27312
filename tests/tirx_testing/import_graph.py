"""The import graph of a package, read from its source (nothing is imported).

Every ``import a.b`` and ``from a import b`` is an edge from the module that holds it to the module
it names: ``from a import b`` names the submodule ``a.b`` when there is one, else the package ``a``
(whose ``__init__`` must then bind ``b``). Importing ``a.b.c`` also runs the ``__init__`` of ``a``
and ``a.b``: those are edges too, except to the importer's own enclosing packages (they are already
being initialised when the importer runs).

How the kinds of import statement count:

* module level (also inside ``try``/``if`` and class bodies): an edge, it runs at import time;
* function-local (lazy) imports: an edge too. The project defers heavy imports into the function
  that needs them to keep start-up cheap; that changes *when* a dependency is paid for, not
  *which way* it points, so a lazy import back up the layering is as much a cycle as a
  module-level one (and the next refactor that hoists it turns it into an import-time failure);
* ``if TYPE_CHECKING:`` blocks: no edge, they never run (annotations are strings under
  ``from __future__ import annotations``);
* ``importlib.import_module(name)`` with a computed name (the backend loader, dispatch modules
  declared by name): not visible, by design: that is how the core reaches a backend without
  depending on it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``line`` (``lazy`` when function-local)."""

    source: str
    target: str
    line: int
    lazy: bool


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` below ``root`` (the package dir)."""
    files: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join([package, *parts])] = path
    return files


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module):
    """``(node, lazy)`` for every import statement that can run."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, lazy = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                stack.extend((c, lazy) for c in child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, lazy
                continue
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            stack.append((child, inner))


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_edges(root: Path, package: str) -> list[Edge]:
    """Every edge between modules of ``package`` (imports of other packages are left out)."""
    files = module_files(root, package)
    edges: list[Edge] = []
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        own_packages = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
        if is_package:
            own_packages.add(module)

        def add(target: str, line: int, lazy: bool, *, explicit: bool) -> None:
            parts = target.split(".")
            for i in range(1, len(parts)):
                parent = ".".join(parts[:i])
                if parent in files and parent not in own_packages and parent != module:
                    edges.append(Edge(module, parent, line, lazy))
            if target in files and target != module and (explicit or target not in own_packages):
                edges.append(Edge(module, target, line, lazy))

        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, lazy in _imports(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, node.lineno, lazy, explicit=True)
                continue
            base = _absolute(module, is_package, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in files:
                    add(sub, node.lineno, lazy, explicit=True)
                else:
                    add(base, node.lineno, lazy, explicit=True)
    return edges


def cycles(edges: list[Edge]) -> list[list[Edge]]:
    """One cycle (as its edges, in order) per strongly connected component that has one."""
    graph: dict[str, dict[str, Edge]] = {}
    for e in edges:
        graph.setdefault(e.source, {}).setdefault(e.target, e)
    found: list[list[Edge]] = []
    for component in _components(graph):
        found.append(_cycle_in(component, graph))
    return found


def _components(graph: dict[str, dict[str, Edge]]) -> list[set[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[set[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(component)
    return result


def _cycle_in(component: set[str], graph: dict[str, dict[str, Edge]]) -> list[Edge]:
    """A shortest cycle through the component's smallest node (breadth-first)."""
    start = min(component)
    previous: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph.get(node, {})):
                if target not in component:
                    continue
                edge = graph[node][target]
                if target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, previous[path[0].source])
                    return path
                if target not in previous:
                    previous[target] = edge
                    following.append(target)
        frontier = following
    raise AssertionError("a strongly connected component without a cycle")


def describe(cycle: list[Edge]) -> str:
    """``a -> b (line 3) -> c (line 9, lazy) -> a (line 1)``."""
    parts = [cycle[0].source]
    for e in cycle:
        parts.append(f"{e.target} (line {e.line} of {e.source}{', lazy' if e.lazy else ''})")
    return " -> ".join(parts)
