"""Arguments as signatures: what decides whether a traced graph serves a call.

A call's signature is made of its tensors' dtypes and shapes and its Python
values (by value), element by element in lists, tuples and dicts; other
objects count by identity. A variable counts by its dtype, shape and
trainability (and which arguments are the same variable), as TensorFlow's
``VariableSpec``: it is an input of the graph, its handle, so one graph serves
every variable of that spec. (An ``input_signature`` is checked by
``autograph.input_signature``.)

>>> import runtime as rt
>>> signature_key([("x", rt.constant([1.0, 2.0])), ("n", 3)])
(('x', ('tensor', 'float32', (2,))), ('n', ('python', 'int', 3)))
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

import runtime as rt


def call_key(args):
    """The dtype and shape of each argument when all are eager tensors, else None."""
    key = []
    for a in args:
        if type(a) is not rt.EagerTensor or not isinstance(a._value, _ARRAY_TYPES):
            return None
        key.append((a.dtype, a._value.shape))
    return tuple(key)


_ARRAY_TYPES = (np.ndarray, np.generic)


def is_tensor_leaf(value):
    # numpy arrays and numeric numpy scalars are tensors, as in TensorFlow: by dtype and shape.
    return isinstance(value, _TENSOR_TYPES)


class VariableSpec:
    """What a graph with a variable argument was traced for: the variable's dtype, shape and
    trainability (TensorFlow's ``VariableSpec``). The graph takes the variable's handle.

    >>> VariableSpec.of(rt.Variable([1.0, 2.0]))
    VariableSpec(shape=(2,), dtype=rt.float32, trainable=True)
    """

    __slots__ = ("shape", "dtype", "trainable")

    def __init__(self, shape, dtype, trainable):
        self.shape, self.dtype, self.trainable = shape, dtype, trainable

    @classmethod
    def of(cls, variable):
        return cls(variable.shape, variable.dtype, variable.trainable)

    def key(self):
        return ("variable", self.dtype.name, self.shape.as_tuple(), self.trainable)

    def fits(self, variable):
        return isinstance(variable, rt.Variable) and VariableSpec.of(variable).key() == self.key()

    def __eq__(self, other):
        return isinstance(other, VariableSpec) and other.key() == self.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return f"VariableSpec(shape={self.shape}, dtype=rt.{self.dtype.name}, trainable={self.trainable})"


class _Mode(threading.local):
    variables_by_identity = False


_mode = _Mode()


_UNCHANGED = contextlib.nullcontext()


def variables_captured(on=True):
    """Inside: a variable argument counts by its identity and the graph captures it, not its
    handle as an input (``jit_compile``: an XLA program takes arrays only)."""
    if bool(on) == _mode.variables_by_identity:
        return _UNCHANGED  # (the common case, on every call: costs nothing)
    return _captured(on)


@contextlib.contextmanager
def _captured(on):
    before = _mode.variables_by_identity
    _mode.variables_by_identity = bool(on)
    try:
        yield
    finally:
        _mode.variables_by_identity = before


_TENSOR_TYPES = (rt.Tensor, rt.TensorSpec, np.ndarray, np.number, np.bool_)
_VARIABLE_TYPES = (rt.Variable, VariableSpec)
_LEAF_TYPES = _TENSOR_TYPES + _VARIABLE_TYPES


def capturing_variables():
    """Whether a variable argument counts by identity now (inside ``variables_captured``)."""
    return _mode.variables_by_identity


def is_variable_leaf(value):
    return isinstance(value, _VARIABLE_TYPES) and not _mode.variables_by_identity


def is_leaf(value):
    """A tensor or a variable: each is one input of the graph."""
    return isinstance(value, _LEAF_TYPES) and not (
        _mode.variables_by_identity and isinstance(value, _VARIABLE_TYPES)
    )


_HANDLE_SPEC = rt.TensorSpec([], rt.resource)


def is_op(value):
    return isinstance(value, rt.Operation)


def spec_of(value):
    """The spec of ``value``'s placeholder (a variable's: its handle's)."""
    if is_variable_leaf(value):
        return _HANDLE_SPEC
    if isinstance(value, rt.TensorSpec):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return rt.TensorSpec(value.shape, rt.as_dtype(value.dtype))
    return rt.TensorSpec(value.shape, value.dtype)


def as_tensor(leaf):
    """A tensor argument as an eager tensor: itself (what a tape may watch), or converted; a
    variable as itself."""
    if isinstance(leaf, (rt.EagerTensor, rt.Variable)):
        return leaf
    return rt.EagerTensor(as_value(leaf), spec_of(leaf).dtype)


def as_value(leaf):
    """What the graph's program takes for ``leaf``: a tensor's value, a variable itself."""
    if isinstance(leaf, rt.Tensor):
        return leaf._value
    if isinstance(leaf, rt.Variable):
        return leaf
    if isinstance(leaf, (rt.TensorSpec, VariableSpec)):
        raise TypeError("A TensorSpec describes an argument; call the function with a tensor")
    if isinstance(leaf, (np.ndarray, np.generic)):
        return rt.convert_to_tensor(leaf)._value
    return leaf._value


def walk(value, visit):
    """Calls ``visit`` on each tensor or variable of ``value``, depth first, in a fixed order."""
    if isinstance(value, _LEAF_TYPES):  # (is_leaf, inline: this runs for every argument)
        if not (_mode.variables_by_identity and isinstance(value, _VARIABLE_TYPES)):
            visit(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            walk(v, visit)
    elif isinstance(value, dict):
        for k in sorted(value, key=repr):
            walk(value[k], visit)


def tensor_leaves(arguments):
    leaves = []
    for _, value in arguments:
        walk(value, leaves.append)
    return leaves


def tensor_leaves_named(arguments, var_keyword=None):
    """``[(placeholder name, leaf)]``: a parameter's name, numbered when it holds several
    leaves; the ``**kwargs`` parameter ``var_keyword`` is named key by key, as TensorFlow names
    a keyword argument's placeholder."""
    named = []
    for name, value in _keys_as_arguments(arguments, var_keyword):
        leaves = []
        walk(value, leaves.append)
        named += [
            (spec_name(leaf) or (name if len(leaves) == 1 else f"{name}_{i}"), leaf)
            for i, leaf in enumerate(leaves)
        ]
    return named


def _keys_as_arguments(arguments, var_keyword):
    for name, value in arguments:
        if name == var_keyword and isinstance(value, dict):
            yield from ((key, value[key]) for key in sorted(value, key=repr))  # (walk's order)
        else:
            yield name, value


def spec_name(leaf):
    """A TensorSpec's name names its placeholder and saved signature input, as in TensorFlow;
    None for a tensor or an unnamed spec."""
    return leaf.name if isinstance(leaf, rt.TensorSpec) else None


def replace_leaves(value, placeholders):
    if is_leaf(value):
        return next(placeholders)
    if isinstance(value, (list, tuple)):
        items = [replace_leaves(v, placeholders) for v in value]
        if hasattr(value, "_fields"):
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, dict):
        out = {}
        for k in sorted(value, key=repr):
            out[k] = replace_leaves(value[k], placeholders)
        return type(value)((k, out[k]) for k in value)
    return value


def encode(value, shapes=True, variables=None):
    """A hashable description of one argument: what decides whether a graph can be reused.
    ``variables``: a list the variables found are appended to, in the order walked."""
    if isinstance(value, rt.Tensor):  # (the common case first)
        return ("tensor", value.dtype.name, value.shape.as_tuple() if shapes else value.shape.rank)
    if is_tensor_leaf(value):
        spec = spec_of(value)
        shape = spec.shape.as_tuple() if shapes else spec.shape.rank
        if spec_name(value):  # a named TensorSpec names its placeholder: its own graph
            return ("tensor", spec.dtype.name, shape, spec.name)
        return ("tensor", spec.dtype.name, shape)
    if isinstance(value, rt.Variable):
        if _mode.variables_by_identity:
            return ("variable", id(value))
        if variables is not None:
            variables.append(value)
        # VariableSpec.of(value).key(), inline: this runs on every call with a variable
        return ("variable", value.dtype.name, value._shape.as_tuple(), value.trainable)
    if isinstance(value, VariableSpec):
        return value.key()
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(encode(v, shapes, variables) for v in value))
    if isinstance(value, dict):
        return (
            "dict",
            tuple((repr(k), encode(value[k], shapes, variables)) for k in sorted(value, key=repr)),
        )
    if isinstance(value, float):
        return ("python", "float", value.hex())  # nan == nan here, so nan does not always retrace
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return ("python", type(value).__name__, value)
    if isinstance(value, WeakArgument):
        return value.encoded()
    return ("object", type(value).__name__, id(value))


def _by_value(value):
    return value is None or isinstance(value, (bool, int, float, str, bytes))


def _by_identity(value):
    """Whether ``value`` is an argument that counts by its identity (an "other object")."""
    return not (
        is_tensor_leaf(value)
        or _by_value(value)
        or isinstance(value, (rt.Variable, VariableSpec, list, tuple, dict, WeakArgument))
    )


class WeakArgument:
    """An object argument as a traced graph remembers it: weakly where Python allows, so that a
    graph does not keep alive every object it was traced for (as TensorFlow holds them).

    >>> class Config: pass
    >>> config = Config()
    >>> held = WeakArgument(config)
    >>> held() is config, encode(held) == encode(config)
    (True, True)
    >>> del config
    >>> held() is None, held.encoded()[0]
    (True, 'dead object')
    """

    __slots__ = ("_ref", "_type_name", "_identity")

    def __init__(self, value):
        self._type_name = type(value).__name__
        self._identity = id(value)
        try:
            self._ref = weakref.ref(value)
        except TypeError:  # not weak-referenceable (an object() or a __slots__ class): kept
            self._ref = lambda: value

    def __call__(self):
        """The object, or None once it is gone."""
        return self._ref()

    def encoded(self):
        # Once the object is gone its id may be another object's: then it matches nothing.
        if self._ref() is None:
            return ("dead object", self._type_name, self._identity)
        return ("object", self._type_name, self._identity)

    def __repr__(self):
        value = self._ref()
        return f"<{self._type_name} object, gone>" if value is None else repr(value)


def detached(value):
    """``value`` as a traced graph keeps it: tensors and variables as their specs, objects
    held weakly."""
    if is_variable_leaf(value):
        return VariableSpec.of(value) if isinstance(value, rt.Variable) else value
    if is_tensor_leaf(value):
        return spec_of(value)
    if isinstance(value, (list, tuple)):
        items = [detached(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return type(value)((k, detached(v)) for k, v in value.items())
    return WeakArgument(value) if _by_identity(value) else value


def objects_in(arguments):
    """The arguments' objects that count by identity, in order (their ids are in the key)."""
    found = []

    def visit(value):
        if isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
        elif isinstance(value, dict):
            for v in value.values():
                visit(v)
        elif _by_identity(value):
            found.append(value)

    for _, value in arguments:
        visit(value)
    return found


def signature_key(arguments, shapes=True):
    variables = []
    key = tuple((name, encode(value, shapes, variables)) for name, value in arguments)
    if len(variables) > 1:  # f(v, v) and f(v, w) are two graphs: one handle, or two
        firsts = {}
        key += (("variables", tuple(firsts.setdefault(id(v), i) for i, v in enumerate(variables))),)
    return key


def describe_value(value):
    if is_tensor_leaf(value):
        spec = spec_of(value)
        return f"{spec.dtype.name} Tensor, shape={spec.shape}"
    if isinstance(value, rt.Variable):
        return f"variable {value.name}"
    if isinstance(value, VariableSpec):
        return f"{value.dtype.name} variable, shape={value.shape}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe_value(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def describe_change(old, new):
    old_map = dict(old)
    for name, value in new:
        if name not in old_map:
            return f"argument '{name}' is new"
        before, after = encode(old_map[name]), encode(value)
        if before != after:
            return f"argument '{name}' changed from {describe_value(old_map[name])} to {describe_value(value)}"
    return "the arguments changed"


def to_specs(value):
    if is_tensor_leaf(value):
        return spec_of(value)
    if isinstance(value, WeakArgument):
        return value()
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(to_specs(v) for v in value)
    return value
