"""The package's modules import one way: the import graph is acyclic.

Every ``import`` counts, at module level or inside a function: an import inside a
function that closes a cycle still means two modules know each other, which is what
this test is for.  Modules are those of the installed ``devsession`` package
(``devsession/``, and ``kernels/`` and ``benchmarks/`` installed as
``devsession.kernels`` and ``devsession.benchmarks``).  Importing a submodule also runs
its parent packages' ``__init__``; that implicit edge is not counted, the explicit
imports of each ``__init__`` are.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = {"devsession": ROOT / "devsession", "devsession.kernels": ROOT / "kernels",
                "devsession.benchmarks": ROOT / "benchmarks"}


def package_modules() -> dict[str, Path]:
    """{module name: file} for every module of the package."""
    modules = {}
    for prefix, folder in PACKAGE_DIRS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([prefix] + parts)
            if name.startswith("devsession.proto.") and name.endswith("_pb2"):
                continue      # generated protobuf code imports only protobuf
            modules[name] = path
    return modules


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, modules: dict) -> set[str]:
    """The package modules ``module`` imports anywhere in its file."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found = set()

    def add(name: str) -> None:
        while name and name not in modules:        # "pkg.mod.attr" -> "pkg.mod"
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as [a, b, ..., a], or None when it is acyclic."""
    state: dict[str, int] = {}       # 1 = on the current path, 2 = finished
    for root in sorted(graph):
        if state.get(root):
            continue
        path, stack = [root], [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


def import_graph() -> dict[str, set[str]]:
    modules = package_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_the_import_graph_is_acyclic():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = import_graph()
    graph["devsession.errors"] = graph["devsession.errors"] | {"devsession.session"}
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert "devsession.errors" in cycle and "devsession.session" in cycle


def test_the_walker_sees_imports_inside_functions():
    graph = import_graph()
    # demo.py imports the benchmark suites inside run_demo(), not at module level
    assert "devsession.benchmarks.suites" in graph["devsession.demo"]
