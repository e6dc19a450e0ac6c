"""Reading the object tree back (``runtime.saving.object_tree`` describes it): every node, name
and reference checked, then the loaded objects, lists, tuples and dicts built and linked.

Nothing here runs code from the file: a node becomes a LoadedObject, a list, a tuple or a
dict; a reference names a node by index, a variable by key or concrete functions by key.
"""

from __future__ import annotations

from runtime.saving.arguments import decode_parameters
from runtime.saving.format import MAX_GRAPH_DEPTH, expect, expect_list, expect_object
from runtime.saving.loaded import (
    RESERVED_ATTRIBUTES,
    CallableLoadedObject,
    LoadedFunction,
    LoadedObject,
    RestoredConcreteFunction,
    SignatureFunction,
    SignatureMap,
)

_KINDS = {
    "object": ("kind", "children", "variables"),
    "list": ("kind", "children"),
    "tuple": ("kind", "children"),
    "dict": ("kind", "children"),
}


def read_signatures(data, concretes):
    """``{name: SignatureFunction}`` from ``[[name, function key]]``."""
    signatures = {}
    for entry in expect_list(data, "'signatures'"):
        expect(
            type(entry) is list and len(entry) == 2 and all(type(x) is str for x in entry),
            "a signature must be [name, function key]",
        )
        name, key = entry
        expect(key in concretes, f"signature {name!r:.100}: no function {key!r:.100}")
        expect(name not in signatures, f"signature {name!r:.100} is listed twice")
        signatures[name] = SignatureFunction(concretes[key], name)
    return SignatureMap(signatures)


class ObjectReader:
    """Builds the loaded objects of ``objects`` (a description's list of nodes)."""

    def __init__(self, nodes, variables, concretes):
        self.nodes = expect_list(nodes, "'objects'")
        expect(self.nodes, "'objects' must hold the root object")
        self.variables = variables  # key -> Variable
        self.concretes = concretes  # key -> LoadedConcreteFunction
        self.built = [None] * len(self.nodes)
        self._building = set()

    def root(self):
        for index, node in enumerate(self.nodes):
            self._check(index, node)
        for index, node in enumerate(self.nodes):  # tuples are made when first referred to
            if node["kind"] != "tuple":
                self.built[index] = _empty(node)
        for index, node in enumerate(self.nodes):
            if node["kind"] != "tuple":
                self._fill(index, node)
        return self._get(0, 0)

    def _check(self, index, node):
        what = f"object {index}"
        expect(type(node) is dict, f"{what} must be an object")
        kind = node.get("kind")
        expect(type(kind) is str and kind in _KINDS, f"{what}: unknown kind {kind!r:.40}")
        expect_object(node, what, keys=_KINDS[kind])
        for entry in expect_list(node["children"], f"{what}'s children"):
            expect(
                type(entry) is list and len(entry) == 2 and type(entry[0]) is str,
                f"{what}: a child must be [name, reference]",
            )
            _check_child_name(kind, entry[0], what, entry[1])
        names = [name for name, _ in node["children"]]
        expect(len(set(names)) == len(names), f"{what}: a child name is used twice")
        if kind in ("list", "tuple"):  # the original's indices: items not saved are left out
            expect(
                all(n.isdecimal() and n == str(int(n)) for n in names)
                and [int(n) for n in names] == sorted(int(n) for n in names),
                f"{what}: items must be numbered in order",
            )
        if kind == "object":
            for key in expect_list(node["variables"], f"{what}'s variables"):
                expect(
                    type(key) is str and key in self.variables, f"{what}: no variable {key!r:.40}"
                )

    def _fill(self, index, node):
        target = self.built[index]
        values = [(name, self._value(ref, index, 0, name)) for name, ref in node["children"]]
        if node["kind"] == "object":
            variables = tuple(self.variables[k] for k in node["variables"])
            target.set_derived("variables", variables)
            target.set_derived("trainable_variables", tuple(v for v in variables if v.trainable))
            for name, value in values:  # the saved attributes win
                setattr(target, name, value)
        elif node["kind"] == "list":  # items not saved (not trackable) are None, as in TF
            items = dict(values)
            target.extend(items.get(str(i)) for i in range(_length(values)))
        else:
            target.update(values)

    def _get(self, index, depth):
        expect(type(index) is int and 0 <= index < len(self.nodes), f"no object {index!r:.40}")
        if self.built[index] is None:  # a tuple: its items first
            expect(index not in self._building, f"tuple {index} holds itself")
            expect(depth < MAX_GRAPH_DEPTH, "tuples are nested too deeply")
            self._building.add(index)
            refs = self.nodes[index]["children"]
            items = {n: self._value(r, index, depth + 1, n) for n, r in refs}
            self.built[index] = tuple(items.get(str(i)) for i in range(_length(refs)))
        return self.built[index]

    def _value(self, ref, index, depth, name):
        what = f"object {index}"
        expect(type(ref) is dict and len(ref) == 1, f"{what}: a reference must be {{kind: target}}")
        ((kind, target),) = ref.items()
        if kind == "object":
            return self._get(target, depth)
        if kind == "variable":
            expect(
                type(target) is str and target in self.variables,
                f"{what}: no variable {target!r:.40}",
            )
            return self.variables[target]
        expect(
            kind in ("function", "concrete_function"),
            f"{what}: unknown kind of reference {kind!r:.40}",
        )
        function = self._function(target, what, name, single=kind == "concrete_function")
        if kind == "concrete_function":
            return RestoredConcreteFunction(function.concrete_functions[0], function.__signature__)
        return function

    def _function(self, data, what, name, single):
        """A LoadedFunction: its concrete functions (one where ``single``; none for a function
        saved untraced) and its parameters."""
        optional = ("input_signature",) if type(data) is dict and "input_signature" in data else ()
        expect_object(data, f"{what}: a function", keys=("concrete", "parameters", *optional))
        has_input_signature = data.get("input_signature", False)
        expect(
            has_input_signature is False or (has_input_signature is True and not single),
            f"{what}: a function's 'input_signature' must be true, for a function",
        )
        keys = expect_list(data["concrete"], f"{what}: a function's concrete functions")
        expect(
            len(keys) == 1 if single or has_input_signature else True,
            f"{what}: a concrete function (or a function with an input_signature) must name one "
            "function",
        )
        for key in keys:
            expect(type(key) is str and key in self.concretes, f"{what}: no function {key!r:.100}")
        signature = decode_parameters(data["parameters"])
        concretes = [self.concretes[k] for k in keys]
        for concrete in concretes:
            expect(
                [name for name, _ in concrete._traced] == list(signature.parameters),
                f"{what}: function {concrete.name!r:.100} was traced for other parameters",
            )
        return LoadedFunction(name, concretes, signature, has_input_signature)


def _length(entries):
    """A list's or tuple's length: up to its last saved item (checked numbered in order)."""
    return int(entries[-1][0]) + 1 if entries else 0


def _empty(node):
    if node["kind"] == "object":
        names = {name for name, _ in node["children"]}
        return CallableLoadedObject() if "__call__" in names else LoadedObject()
    return [] if node["kind"] == "list" else {}


def _check_child_name(kind, name, what, ref):
    if kind != "object":
        return
    callable_ref = type(ref) is dict and ref.keys() & {"function", "concrete_function", "object"}
    expect(
        name.isidentifier()
        and name not in RESERVED_ATTRIBUTES
        and (not name.startswith("__") or (name == "__call__" and bool(callable_ref))),
        f"{what}: {name!r:.100} cannot name an attribute of a loaded object"
        + (" ('__call__' must be a function or an object)" if name == "__call__" else ""),
    )
