"""Each name means one thing: no two public classes share a name, and an op row's name is that
row wherever the op modules bind it."""

from __future__ import annotations

import ast
import importlib
import pathlib
import pkgutil
from collections import defaultdict

import runtime.ops
from runtime.core.op_def import OpDef

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")


def _public_classes():
    """{class name: the modules defining a public class of that name at their top level}."""
    found = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    found[node.name].append(str(path.relative_to(ROOT)))
    return found


def _keras_namespace(path):
    """``losses``, ``metrics``, ``layers``...: the Keras namespace a module of ``rt.keras``
    belongs to (None outside ``rt.keras``)."""
    parts = pathlib.PurePath(path).parts
    if parts[:2] != ("runtime", "keras") or len(parts) < 3:
        return None
    return parts[2].removesuffix(".py").removesuffix("_base")  # loss_base.py: losses' base


def _one_per_keras_namespace(paths):
    """Keras names a thing alike in each of its namespaces (``keras.losses.MeanSquaredError``
    and ``keras.metrics.MeanSquaredError``, ``keras.initializers.Identity`` and
    ``keras.layers.Identity``): one class of the name in each namespace."""
    spaces = [_keras_namespace(p) for p in paths]
    return None not in spaces and len(set(spaces)) == len(spaces)


def test_no_two_public_classes_share_a_name():
    classes = _public_classes()
    assert len(classes) > 100, "the packages' classes should be found"
    shared = {
        name: paths
        for name, paths in classes.items()
        if len(paths) > 1 and not _one_per_keras_namespace(paths)
    }
    assert shared == {}


def _op_modules():
    return [
        importlib.import_module(f"runtime.ops.{info.name}")
        for info in pkgutil.iter_modules(runtime.ops.__path__)
    ]


def test_an_op_row_name_means_that_row_in_every_op_module():
    modules = _op_modules()
    rows = defaultdict(set)  # name -> id of each row bound to it
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, OpDef):
                rows[name].add(id(value))
    assert len(rows) > 50, "the op table's rows should be found"
    other = sorted(
        f"{module.__name__}.{name}"
        for module in modules
        for name, value in vars(module).items()
        if name in rows and not isinstance(value, OpDef)
    )
    assert other == []
    assert {name for name, ids in rows.items() if len(ids) > 1} == set()
