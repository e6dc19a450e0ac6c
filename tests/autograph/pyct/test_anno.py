"""Annotation keys are one closed set: constants of anno.Basic and anno.Static, each written once."""

import ast
import pathlib

import autograph
from autograph.pyct import anno

_HELPERS = {"setanno", "getanno", "hasanno"}


def _key_arguments():
    """(file, line, the key argument) of every annotation helper call in the autograph package."""
    root = pathlib.Path(autograph.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            called = node.func.attr if isinstance(node.func, ast.Attribute) else None
            called = called or (node.func.id if isinstance(node.func, ast.Name) else None)
            if called in _HELPERS:
                yield path.relative_to(root.parent), node.lineno, node.args[1]


def _named_key(key):
    """The key ``anno.Basic.NAME`` or ``anno.Static.NAME`` stands for, or None."""
    if not (isinstance(key, ast.Attribute) and isinstance(key.value, ast.Attribute)):
        return None
    namespace = key.value
    if not (isinstance(namespace.value, ast.Name) and namespace.value.id == "anno"):
        return None
    return getattr(getattr(anno, namespace.attr, None), key.attr, None)


def test_every_annotation_key_is_a_named_constant():
    calls = list(_key_arguments())
    assert len(calls) > 20, "the helpers should be found where the passes call them"
    unnamed = [f"{path}:{line}" for path, line, key in calls if _named_key(key) not in anno.KEYS]
    assert unnamed == []


def test_each_key_names_one_fact():
    constants = [
        value
        for namespace in (anno.Basic, anno.Static)
        for attribute, value in vars(namespace).items()
        if attribute.isupper()
    ]
    assert len(constants) == len(set(constants)) == len(anno.KEYS)
