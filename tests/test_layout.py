"""The layout the architecture promises: no import cycles, ``runtime`` below ``autograph``, the
``runtime`` packages in layers, small modules.

Imports are read from the source (function-level ones included), so a cycle
hidden by an import inside a function is found too.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("runtime", "autograph")
MAX_LINES = 600

# The runtime's packages, lowest first (docs/architecture.md, "Layers"): a module imports only
# from its own layer and the layers below it. Within a layer packages may import each other, one
# way only (no cycle: test_runtime_packages_form_no_cycle).
LAYERS = (
    # the data the rest is built on, and the leaves: exceptions, the optional extras, the version
    ("runtime.core", "runtime.errors", "runtime.extras", "runtime._version"),
    ("runtime.ops",),  # the op table: the rows and the functions that bind them
    ("runtime.state",),  # variables, modules
    ("runtime.execution",),  # tracing, optimising, compiling, sessions
    ("runtime.gradients",),  # the backward pass, the tape
    # what is built from those: traced sub-graphs and calls, views, saving, backends, Keras
    (
        "runtime.functions",
        "runtime.views",
        "runtime.saving",
        "runtime.export",
        "runtime.xla",
        "runtime.keras",
        "runtime.compat",
        "runtime.data",  # input pipelines: Keras reads them
    ),
    # the public namespaces: rt, rt.nn, ...
    (
        "runtime",
        "runtime.linalg",
        "runtime.math",
        "runtime.nn",
        "runtime.random",
        "runtime.strings",
        "runtime.debugging",
        "runtime.saved_model",
        "runtime.onnx",
        "runtime.summary",
        "runtime.train",
        "runtime.config",
        "runtime.profiler",
    ),
)


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _imports(name, path, known):
    """The project modules that ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                # ``from runtime.ops import math_ops`` imports the module runtime.ops.math_ops;
                # ``from runtime.ops.math_ops import add`` imports runtime.ops.math_ops.
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return {m for m in found if m in known and m != name}


def _graph():
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_no_module_imports_itself_back_through_others():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()))


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_runtime_never_imports_autograph():
    graph = _graph()
    offenders = sorted(
        f"{name} imports {dep}"
        for name, deps in graph.items()
        if name.startswith("runtime")
        for dep in deps
        if dep.startswith("autograph")
    )
    assert not offenders


def _package(module):
    """The runtime package a module is in: ``runtime.ops`` for ``runtime.ops.math_ops``; a module
    directly under ``runtime`` (``runtime.nn``), and ``runtime`` itself, are their own."""
    return ".".join(module.split(".")[:2])


def _package_edges(graph):
    """``{(package, package): [module imports behind it]}`` between different runtime packages."""
    edges = {}
    for name, deps in graph.items():
        for dep in sorted(deps):
            importer, imported = _package(name), _package(dep)
            if name.startswith("runtime") and dep.startswith("runtime") and importer != imported:
                edges.setdefault((importer, imported), []).append(f"{name} -> {dep}")
    return edges


def _package_cycle(graph):
    """A cycle of runtime packages, each step with the module imports behind it, or None."""
    edges = _package_edges(graph)
    packages = {}
    for a, b in edges:
        packages.setdefault(a, set()).add(b)
        packages.setdefault(b, set())
    cycle = _cycle(packages)
    if cycle is None:
        return None
    return [f"{a} -> {b}: {', '.join(edges[a, b])}" for a, b in zip(cycle, cycle[1:])]


def _upward_imports(graph):
    """The imports of a runtime module from a higher layer than its own. A package in no layer
    (test_every_runtime_package_has_one_layer says which) may import anything, and be imported."""
    level = {package: i for i, layer in enumerate(LAYERS) for package in layer}
    return sorted(
        f"{name} (layer {level[_package(name)]}) imports {dep} (layer {level[_package(dep)]})"
        for name, deps in graph.items()
        if name.startswith("runtime")
        for dep in deps
        if dep.startswith("runtime")
        and level.get(_package(dep), -1) > level.get(_package(name), len(LAYERS))
    )


def test_runtime_packages_form_no_cycle():
    cycle = _package_cycle(_graph())
    assert cycle is None, "the runtime packages import each other in a cycle:\n" + "\n".join(cycle)


def test_a_package_cycle_is_found_without_a_module_cycle():
    # runtime.a.x -> runtime.b.y and runtime.b.z -> runtime.a.w: no module cycle, a package one.
    graph = {
        "runtime.a.x": {"runtime.b.y"},
        "runtime.a.w": set(),
        "runtime.b.y": set(),
        "runtime.b.z": {"runtime.a.w"},
    }
    assert _cycle(graph) is None
    assert _package_cycle(graph) == [
        "runtime.a -> runtime.b: runtime.a.x -> runtime.b.y",
        "runtime.b -> runtime.a: runtime.b.z -> runtime.a.w",
    ]
    assert _package_cycle({"runtime.a.x": {"runtime.b.y"}, "runtime.b.y": set()}) is None


def test_every_runtime_package_has_one_layer():
    packages = {_package(name) for name in _modules() if name.startswith("runtime")}
    listed = [package for layer in LAYERS for package in layer]
    assert len(listed) == len(set(listed)), "a package is in two layers"
    assert packages - set(listed) == set(), "packages in no layer of LAYERS"
    assert set(listed) - packages == set(), "LAYERS names packages that do not exist"


def test_a_lower_layer_never_imports_a_higher_one():
    offenders = _upward_imports(_graph())
    assert not offenders, "\n".join(offenders)


def test_an_upward_import_is_found():
    graph = {"runtime.ops.math_ops": {"runtime.gradients.tape"}, "runtime.gradients.tape": set()}
    assert _upward_imports(graph) == [
        "runtime.ops.math_ops (layer 1) imports runtime.gradients.tape (layer 4)"
    ]
    assert _upward_imports({"runtime.gradients.tape": {"runtime.ops.math_ops"}}) == []


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_is_over_600_lines(name):
    lines = len(_modules()[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines"
