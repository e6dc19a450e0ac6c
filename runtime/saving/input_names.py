"""Input names a saved model keeps: as TensorFlow's save does, an input whose name has
characters other than letters, digits and ``_`` (or starts with no letter) is renamed, lowered
(``A-b`` -> ``a_b``, ``1x`` -> ``arg_1x``), and the renaming is logged.

>>> sanitized("A-b"), sanitized("A/D"), sanitized("x_0"), sanitized("1x")
('a_b', 'a_d', 'x_0', 'arg_1x')
"""

from __future__ import annotations

import logging
import re


def sanitized(name):
    """TensorFlow's name for an input of a saved function."""
    swapped = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return swapped.lower() if swapped[:1].isalpha() else "arg_" + swapped


def renames(function_name, arguments, taken):
    """``{old: new}`` for the inputs (``arguments``, their op names) to rename, logged as
    TensorFlow logs it; a new name that another op (``taken``) already has is not used."""
    found = {}
    for name in arguments:
        new = sanitized(name)
        if new != name and new not in taken and new not in found.values():
            found[name] = new
    if found:
        logging.getLogger("runtime.saved_model").info(
            f"Function `{function_name}` contains input name(s) {', '.join(found)} with "
            f"unsupported characters which will be renamed to {', '.join(found.values())} in "
            "the SavedModel."
        )
    return found


def apply(graph, renamed):
    """Renames ops of a written graph (``{"ops", "inputs", "outputs"}``) and every reference
    to their tensors in it; the graph's sub-graphs have their own ops, and are left as they
    are."""

    def tensor(name):
        op, _, index = name.rpartition(":")
        return f"{renamed.get(op, op)}:{index}"

    for op in graph["ops"]:
        op["name"] = renamed.get(op["name"], op["name"])
        op["inputs"] = [tensor(t) for t in op["inputs"]]
        op["control_inputs"] = [renamed.get(c, c) for c in op["control_inputs"]]
    graph["inputs"] = [tensor(t) for t in graph["inputs"]]
    graph["outputs"] = [tensor(t) for t in graph["outputs"]]
    return graph
