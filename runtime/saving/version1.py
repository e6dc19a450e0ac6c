"""Reading format version 1 (the layout before the object tree): its description, once checked
as written, is read as the version 2 description it stands for.

Version 1 saved one object: its attributes that were variables or functions (each function
one concrete function, traced with tensors only), and the signatures by function name. So a
function's arguments as traced are its inputs, each a tensor, in order; the root object's
children are its attributes; its variables are all the saved variables.

>>> upgrade({"functions": {"f": {"arguments": ["x"]}}, "attributes": {"f": {"function": "f"}},
...          "signatures": ["f"], "variables": []})["objects"][0]["children"]
[['f', {'function': {'concrete': ['f'], 'parameters': [{'name': 'x', 'kind': 1}]}}]]
"""

from __future__ import annotations

import inspect

from runtime.saving.format import expect, expect_list, expect_object

FIELDS = (
    "format",
    "version",
    "functions",
    "signatures",
    "attributes",
    "variables",
    "arrays",
    "checksum",
)
_POSITIONAL_OR_KEYWORD = int(inspect.Parameter.POSITIONAL_OR_KEYWORD.value)


def upgrade(description):
    """The version 2 description a version 1 ``description`` stands for (a new dict; the
    parts it cannot place are left for the version 2 checks to refuse)."""
    functions = {}
    for key, entry in expect_object(description["functions"], "'functions'").items():
        expect_object(entry, f"function {key!r:.100}")
        arguments = expect_list(entry.get("arguments"), f"function {key!r:.100}'s arguments")
        inputs = [[name, {"tensor": i}] for i, name in enumerate(arguments)]
        functions[key] = {**entry, "inputs": inputs}
    children = []
    for name, reference in expect_object(description["attributes"], "'attributes'").items():
        expect(
            type(reference) is dict and len(reference) == 1, f"attribute {name!r:.100} is damaged"
        )
        ((kind, key),) = reference.items()
        if kind == "function":
            arguments = functions.get(key, {}).get("arguments", [])
            parameters = [{"name": a, "kind": _POSITIONAL_OR_KEYWORD} for a in arguments]
            reference = {"function": {"concrete": [key], "parameters": parameters}}
        children.append([name, reference])
    variables = [v.get("key") for v in expect_list(description["variables"], "'variables'")]
    root = {"kind": "object", "children": children, "variables": variables}
    signatures = [[name, name] for name in expect_list(description["signatures"], "'signatures'")]
    upgraded = {k: v for k, v in description.items() if k != "attributes"}
    return {**upgraded, "functions": functions, "objects": [root], "signatures": signatures}
