"""The object tree a save writes: each object reachable from the root as a node, with its
children (sub-objects, variables) and its functions (every concrete function each has traced).

``objects`` in the description is a list of nodes, the root first, in the order of
``runtime.state.trackable.walk``. A node is ``{"kind": "object", "children": [[name, ref]],
"variables": [key]}`` (``variables``: the object's own ``variables``, in its order) or
``{"kind": "list" | "tuple" | "dict", "children": [[name, ref]]}``; a ref is ``{"object": index}``,
``{"variable": key}``, ``{"function": {"concrete": [function key], "parameters": [...]}}``
(an ``ag.function``: every concrete function it traced, none for one that traced nothing;
``"input_signature": true`` where it had one) or ``{"concrete_function": {...}}`` (one concrete
function, as an attribute held it).
An object reached twice is one node, so what two modules share stays shared when loaded.

>>> import runtime as rt
>>> class Net(rt.Module):
...     def __init__(self):
...         super().__init__()
...         self.blocks = [rt.Module(name="a")]
>>> from runtime.saving.writer import _Writer
>>> [(node["kind"], node["children"]) for node in ObjectTree(_Writer()).describe(Net())]
[('object', [['blocks', {'object': 1}]]), ('list', [['0', {'object': 2}]]), ('object', [])]
"""

from __future__ import annotations

import inspect
import logging

from runtime.core import dtypes
from runtime.core.tensor_spec import TensorSpec
from runtime.saving.arguments import encode_parameters
from runtime.saving.format import SavedModelError
from runtime.saving.loaded import RESERVED_ATTRIBUTES
from runtime.state.module import Module, ignored_properties
from runtime.state.trackable import children, holds_trackables, is_function, walk
from runtime.state.variables import Variable

logger = logging.getLogger("runtime")

# Names a loaded object uses itself: no saved attribute may take them (see runtime.saving.loaded).
RESERVED_NAMES = RESERVED_ATTRIBUTES


class ObjectTree:
    """Describes the objects reachable from a root, adding variables and concrete functions to
    ``writer`` (``runtime.saving.writer._Writer``) as it meets them. ``untraced`` names the
    functions met that had traced nothing (saved, but with nothing to call)."""

    def __init__(self, writer):
        self.writer = writer
        self.untraced = []
        self.root_functions = []  # the root's function attributes, each read once

    def describe(self, root):
        """The nodes, root first; each object's children are asked for once (an object may
        make its list of children anew each time), in ``walk``'s order: breadth first."""
        found, edges = [("", root)], []
        reachable = self.writer.reachable = set()
        self.index = {id(root): 0}
        self._kept = [root]  # alive while their ids are keys
        self._attributes = []  # each object's function attributes, read once
        for path, obj in found:
            own = self._walk_step(path, obj)
            edges.append(own)
            for name, child in own:
                if isinstance(child, Variable):
                    reachable.add(id(child))
                if not _is_leaf(child) and id(child) not in self.index:
                    self.index[id(child)] = len(found)
                    self._kept.append(child)
                    found.append((f"{path}/{name}" if path else name, child))
        return [
            self._node(path, obj, own, attributes, index == 0)
            for index, ((path, obj), own, attributes) in enumerate(
                zip(found, edges, self._attributes)
            )
        ]

    def _walk_step(self, path, obj):
        """``obj``'s children, after its functions with an input_signature that traced nothing
        yet are traced (tracing may make the variables they read: those are children too)."""
        attributes = [] if isinstance(obj, (list, tuple, dict)) else function_attributes(obj)
        self._attributes.append(attributes)
        own = _children(obj)
        functions = attributes + [(name, child) for name, child in own if is_function(child)]
        if any([self._trace_for_signature(fn, _join(path, name)) for name, fn in functions]):
            own = _children(obj)
        return own

    def _trace_for_signature(self, fn, key):
        """Traces ``fn`` for its input_signature when it traced nothing yet; whether it did."""
        if getattr(fn, "input_signature", None) is None or not hasattr(fn, "get_concrete_function"):
            return False
        lister = getattr(fn, "_list_all_concrete_functions", None)
        if lister is None or lister():
            return False
        traced(fn, key)
        return True

    def _node(self, path, obj, own, attributes, is_root):
        entries = [[name, self._ref(child, _join(path, name))] for name, child in own]
        if isinstance(obj, (list, tuple, dict)):
            kind = (
                "list" if isinstance(obj, list) else "tuple" if isinstance(obj, tuple) else "dict"
            )
            return {"kind": kind, "children": entries}
        taken = {name for name, _ in entries}
        attributes = [(n, fn) for n, fn in attributes if n not in taken]
        if is_root:
            self.root_functions = [(n, c) for n, c in own if is_function(c)] + attributes
        for name, fn in attributes:
            entries.append([name, self._function(fn, _join(path, name))])
        entries.sort(key=lambda entry: entry[0])
        for name, _ in entries:
            _check_attribute_name(name)
        variables = [self.writer.variable(v) for v in _own_variables(obj)]
        return {"kind": "object", "children": entries, "variables": variables}

    def _ref(self, child, key):
        if isinstance(child, Variable):
            return {"variable": self.writer.variable(child)}
        if is_function(child):
            return self._function(child, key)
        return {"object": self.index[id(child)]}

    def _function(self, fn, key):
        """The ref of a function: ``{"function": ...}`` for an ``ag.function`` or a loaded one
        (every concrete function it traced, maybe none), ``{"concrete_function": ...}`` for one
        concrete function (loaded as one)."""
        if not hasattr(fn, "_list_all_concrete_functions"):
            signature = getattr(fn, "_signature", None)
            return {"concrete_function": self._concretes(fn, [fn], signature, key)}
        concretes = fn._list_all_concrete_functions()
        if not concretes and getattr(fn, "input_signature", None) is not None:
            concretes = [traced(fn, key)]
        concretes = [cf for cf in concretes if not _takes_a_variable(cf, key)]
        if not concretes:
            self.untraced.append(getattr(fn, "__name__", key.rsplit("/", 1)[-1]))
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):  # a callable Python cannot describe: by its traces
            signature = None
        ref = self._concretes(fn, concretes, signature, key)
        if _has_input_signature(fn) and len(concretes) == 1:
            ref["input_signature"] = True  # a call must fit it: TensorFlow's TypeError if not
        return {"function": ref}

    def _concretes(self, fn, concretes, signature, key):
        if not isinstance(signature, inspect.Signature):
            signature = None
        if concretes:
            names = [name for name, _ in traced_arguments(concretes[0])]
            if signature is None or list(signature.parameters) != names:  # loading checks
                signature = _plain_signature(names)
        elif signature is None:
            signature = _plain_signature([])
        keys = [self.writer.concrete(cf, key) for cf in concretes]
        return {"concrete": keys, "parameters": encode_parameters(signature)}


def _children(obj):
    """``children(obj)`` with the functions they hold; for an object naming its own children
    (a ``rt.train.Checkpoint``), also its attributes holding only functions (a checkpoint has
    nothing of them to save, a saved model saves them)."""
    if callable(getattr(type(obj), "_saved_model_functions", None)):
        return children(obj)  # it offers its functions itself (function_attributes)
    own = children(obj, functions=True)
    if isinstance(obj, (list, tuple, dict, Module)) or is_function(obj):
        return own
    taken = {name for name, _ in own}
    extra = [
        (name, value)
        for name, value in sorted(getattr(obj, "__dict__", {}).items())
        if name not in taken
        and not name.startswith("_")
        and holds_trackables(value, functions=True)
    ]
    return own + extra


def _has_input_signature(fn):
    """Whether ``fn`` (an ``ag.function`` or a loaded one) was given an input_signature."""
    flag = getattr(fn, "has_input_signature", None)
    return flag if isinstance(flag, bool) else getattr(fn, "input_signature", None) is not None


def _join(path, name):
    return f"{path}/{name}" if path else name


def _is_leaf(child):
    """A variable or a function: a reference of its holder, not a node of the tree."""
    return isinstance(child, Variable) or is_function(child)


def function_attributes(obj):
    """``[(name, function)]``: the ``ag.function`` attributes of ``obj`` (of its class, bound to
    it, and its own, and those its own classes' properties give, each read once), or the
    functions it offers itself (a Keras model), sorted by name."""
    offered = offered_functions(obj)
    if offered is not None:
        offered.pop("serving_default", None)  # a signature, not an attribute
        return sorted(offered.items())
    if isinstance(obj, (list, tuple, dict)):
        return []
    names = {n for cls in type(obj).__mro__ for n, v in vars(cls).items() if _is_function(v)}
    names |= {n for n, v in getattr(obj, "__dict__", {}).items() if _is_function(v)}
    names |= _user_properties(type(obj))
    skip = ignored_properties(obj) if isinstance(obj, Module) else ()
    found = []
    for name in sorted(names):
        if name in skip or (name.startswith("__") and name != "__call__"):
            continue
        try:
            fn = getattr(obj, name, None)
        except Exception:  # a property that cannot be read now: not a function to save
            continue
        if _is_function(fn):
            found.append((name, fn))
    return found


def _user_properties(cls):
    """The names of the properties the user's classes define (the library's own, such as a
    module's ``variables``, give no functions)."""
    return {
        name
        for base in cls.__mro__
        if not base.__module__.startswith(("runtime.", "autograph.", "builtins"))
        for name, value in vars(base).items()
        if isinstance(value, property)
    }


def offered_functions(obj):
    """The functions an object chooses to save (name -> concrete function), or None for those
    found in its attributes. A Keras model offers its ``__call__`` and, unless other
    signatures are given, ``serving_default``, as TensorFlow saves one, and the functions
    its class defines, not the training steps it keeps."""
    offer = getattr(type(obj), "_saved_model_functions", None)
    return dict(offer(obj)) if callable(offer) else None


def traced(fn, name):
    """``fn``'s concrete function for its input_signature; tracing compiles its graph, which may
    fail."""
    try:
        return fn.get_concrete_function()
    except SyntaxError as e:  # only compiling makes Python source while tracing
        raise SavedModelError(
            f"Cannot save {name!r}: its graph does not compile to Python: {e}"
        ) from e


def traced_arguments(cf):
    """``[(name, value)]``: what ``cf`` was traced for (TensorSpecs, Python values), or, for a
    concrete function that does not say, its graph's inputs by name."""
    traced = getattr(cf, "_traced", None)
    if isinstance(traced, list):
        return traced
    graph = cf.graph
    n_args = len(graph.inputs) - len(getattr(graph, "captures", ()))
    return [(t.op.name, TensorSpec(t.shape, t.dtype)) for t in graph.inputs[:n_args]]


def _takes_a_variable(cf, key):
    """Whether ``cf`` was traced with a variable argument (its handle an input), which a saved
    model cannot take: then it is left out, with a warning, as TensorFlow warns of the
    functions it does not save."""
    graph = cf.graph
    n_args = len(graph.inputs) - len(getattr(graph, "captures", ()))
    if all(t.dtype is not dtypes.resource for t in graph.inputs[:n_args]):
        return False
    logger.warning(
        "Found a concrete function of %r traced with a variable argument (VariableSpec), "
        "which a saved model cannot take: it is not saved, and will not be callable after "
        "loading. Trace it with the variable read from the closure to save it.",
        key,
    )
    return True


def _is_function(value):
    return callable(getattr(value, "_list_all_concrete_functions", None))


def _own_variables(obj):
    own = getattr(obj, "variables", None)
    if isinstance(own, (list, tuple)) and all(isinstance(v, Variable) for v in own):
        return own
    return [v for _, v in walk(obj) if isinstance(v, Variable)]


def _check_attribute_name(name):
    if (
        not name.isidentifier()
        or name in RESERVED_NAMES
        or (name.startswith("__") and name != "__call__")
    ):
        raise SavedModelError(
            f"Cannot save the attribute {name!r}: a loaded object cannot take that name (an "
            "identifier, not one starting with '__' but __call__, nor one it uses itself)"
        )


def _plain_signature(names):
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([inspect.Parameter(n, kind) for n in names])
