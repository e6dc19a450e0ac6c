"""Graphs: plain data structures of operations, walkable and printable.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.int32, shape=[], name="x")
...     y = x + 1
>>> [op.name for op in g.get_operations()]
['x', 'Const', 'add']
>>> print(g)
x: int32[] = Placeholder()
Const: int32[] = Const(value=1)
add: int32[] = Add(x, Const)
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from runtime import errors
from runtime.core import context, devices
from runtime.core.attr_kinds import DTYPE, SHAPE, TENSOR_VALUE, AttrKind
from runtime.core.forms import constant_form
from runtime.core.op_def import NO_INPUTS, OpDef
from runtime.core.source import caller_frame, locate
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_shape import TensorShape, as_shape

_VALID_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\-/>]*")  # fullmatch: "$" allows a "\n"


def is_valid_op_name(name) -> bool:
    """Whether ``name`` may name an op: ASCII letters, digits and ``_.-/>``, as in TensorFlow."""
    return type(name) is str and _VALID_NAME.fullmatch(name) is not None


def arg_op_name(name: str) -> str:
    """An argument's name made a valid op name, as tf.function names its placeholders.

    A valid name stays; otherwise each character an op name cannot hold becomes ``_``, and a
    name not starting with a letter gets ``arg_`` before it.

    >>> arg_op_name("x"), arg_op_name("_"), arg_op_name("_scale")
    ('x', 'arg__', 'arg__scale')
    """
    if is_valid_op_name(name):
        return name
    swapped = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return swapped if swapped[:1].isalpha() else "arg_" + swapped


class Operation:
    """A node: an op type applied to input tensors, with attributes, producing output tensors."""

    __slots__ = (
        "graph",
        "name",
        "type",
        "opdef",
        "inputs",
        "outputs",
        "attrs",
        "control_inputs",
        "stateful",
        "device",
        "_subgraphs",
        "_source",
    )

    def __init__(self, graph, name, opdef, inputs, attrs, control_inputs, output_specs, source):
        self.graph = graph
        self.name = name
        self.type = opdef.type
        self.opdef = opdef
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.control_inputs = tuple(control_inputs)
        self.outputs = tuple(
            [SymbolicTensor(self, i, dtype, shape) for i, (dtype, shape) in enumerate(output_specs)]
        )
        self._subgraphs = tuple(v for v in attrs.values() if isinstance(v, Graph)) if attrs else ()
        # An op is stateful when its kernel has effects, or when a sub-graph it runs has one.
        self.stateful = opdef.stateful or (
            bool(self._subgraphs) and any(g.is_stateful for g in self._subgraphs)
        )
        self._source = source
        self.device = devices.current()  # the rt.device scope it was made in; "" if none

    @property
    def source(self):
        """The user's ``SourceLocation`` (file, line, function) that made this op, or None."""
        return locate(self._source)

    def get_attr(self, name):
        return self.attrs[name]

    def subgraphs(self):
        """The graphs this op runs (a cond's branches, a loop's test and body)."""
        return self._subgraphs

    def __repr__(self):
        return f"<rt.Operation '{self.name}' type={self.type}>"


class Graph:
    """A dataflow graph. Ops created inside ``with graph.as_default():`` are added to it.

    Ops are kept in creation order, which is always a valid order to run them in.
    """

    building_function = False  # TensorFlow's name: a FuncGraph's is True

    def __init__(self, name="graph"):
        self.graph_name = name
        self._ops = []
        self._ops_by_name = {}
        self._used_names = set()
        self._name_counters = {}
        self._valid_names = set()  # op names (before a suffix) already found valid
        self._name_stack = ""
        self._control_stack = []
        self.variable_handles = {}  # id(variable) -> its handle op's output (runtime.state.variables)
        # id(placeholder) -> the variable a function was traced with, for an argument that is a
        # variable: its handle is an input of the graph (autograph.tracing).
        self.variable_arguments = {}
        self.is_stateful = False
        self.outer_graph = None
        self.version = 0  # bumped on every change, so compiled programs know when they are stale

    # --- building --------------------------------------------------------------------------

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the graph new ops are added to."""
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph(self)

    def unique_name(self, base: str, mark_used=True) -> str:
        """``base`` under the current name scope, suffixed ``_1``, ``_2``... if already taken."""
        name = self._name_stack + base
        key = name.lower()
        used = self._used_names
        # Counting on from the last suffix given to this name keeps naming n ops linear.
        i = self._name_counters.get(key, 0)
        candidate = key if i == 0 else f"{key}_{i}"
        while candidate in used:
            i += 1
            candidate = f"{key}_{i}"
        if mark_used:
            used.add(candidate)
            self._name_counters[key] = i + 1
        return name if i == 0 else f"{name}_{i}"

    def create_op(
        self, opdef, inputs, attrs, name, output_specs, control_inputs=None, source=None
    ) -> Operation:
        """Adds an op. Its control inputs are those of the open ``control_dependencies``
        blocks, or ``control_inputs`` when given (a copy of an op keeps the original's).
        ``source`` is where the user made it (a copy keeps the original's): by default,
        the caller's first frame outside library code."""
        scoped = self._name_stack + name
        if scoped not in self._valid_names:  # a valid name stays valid with a "_3" suffix
            if not _VALID_NAME.fullmatch(scoped):
                raise ValueError(f"{scoped!r} is not a valid op name")
            self._valid_names.add(scoped)
        name = self.unique_name(name)
        if attrs.keys() != opdef.attrs.keys():
            raise ValueError(
                f"op {name!r} ({opdef.type}) has the attributes {sorted(attrs)}, but its row in "
                f"the op table declares {sorted(opdef.attrs)}: declare them with OpDef(attrs=...)"
            )
        if control_inputs is None:
            control_inputs = []
            for frame in self._control_stack:
                control_inputs.extend(op for op in frame if op not in control_inputs)
        if source is None:
            source = caller_frame()
        op = Operation(self, name, opdef, inputs, attrs, control_inputs, output_specs, source)
        self._ops.append(op)
        self._ops_by_name[name] = op
        self.is_stateful = self.is_stateful or op.stateful
        self.version += 1
        if context.active:  # a graph is being built, so it is; but is a tape recording?
            for tape in context.recording_tapes():  # GradientTapes record graph ops here
                tape.record_graph_op(op)
        return op

    def prepare_input(self, t: Tensor) -> Tensor:
        """The tensor an op in this graph reads for ``t``: itself, a constant, or a capture."""
        if isinstance(t, EagerTensor):
            return constant_in_graph(self, t._value, t.dtype)
        if t.graph is self:
            return t
        return self.capture(t)

    def capture(self, t: SymbolicTensor) -> Tensor:
        raise ValueError(
            f"Tensor {t.name!r} belongs to another graph than the one being built "
            f"({self.graph_name!r}); an op's inputs must come from the same graph."
        )

    @contextlib.contextmanager
    def name_scope(self, name):
        saved = self._name_stack
        if not name:
            self._name_stack = ""
        elif name.endswith("/"):
            self._name_stack = name  # re-enter an existing scope as is
        else:
            self._name_stack = self.unique_name(name) + "/"
        try:
            yield self._name_stack
        finally:
            self._name_stack = saved

    @contextlib.contextmanager
    def no_control_dependencies(self):
        """Ops created inside wait on nothing, whatever ``control_dependencies`` blocks are open."""
        saved = self._control_stack
        self._control_stack = []
        try:
            yield
        finally:
            self._control_stack = saved

    @contextlib.contextmanager
    def at_top_level(self):
        """Ops created inside wait on nothing and are named outside every open name scope."""
        saved = self._name_stack
        self._name_stack = ""
        try:
            with self.no_control_dependencies():
                yield
        finally:
            self._name_stack = saved

    @contextlib.contextmanager
    def control_dependencies(self, ops):
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def move_before(self, ops, anchor):
        """Moves ``ops``, made after ``anchor`` and reading nothing, to just before it: for an
        op given new inputs after it was made (a custom gradient traced when first needed)."""
        if any(op.inputs or op.control_inputs for op in ops):
            raise ValueError("only ops that read nothing can be moved before another")
        moved = {id(op) for op in ops}
        kept = [op for op in self._ops if id(op) not in moved]
        at = kept.index(anchor)
        self._ops = kept[:at] + list(ops) + kept[at:]
        self.version += 1

    # --- reading ---------------------------------------------------------------------------

    def get_operations(self):
        return list(self._ops)

    def operations_from(self, first):
        """The ops added since the graph had ``first`` ops: ``len(get_operations())`` then."""
        return self._ops[first:]

    @property
    def num_operations(self):
        return len(self._ops)

    def get_operation_by_name(self, name) -> Operation:
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to no operation in this graph.") from None

    def get_tensor_by_name(self, name) -> SymbolicTensor:
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(f"Tensor names look like 'op_name:output_index', got {name!r}")
        op = self.get_operation_by_name(op_name)
        if int(index) >= len(op.outputs):
            raise KeyError(
                f"Operation {op_name!r} has {len(op.outputs)} outputs; {name!r} is not one"
            )
        return op.outputs[int(index)]

    def as_graph_element(self, obj):
        """A tensor or op of this graph for a tensor, op, variable or name."""
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if isinstance(obj, Tensor | Operation):
            if isinstance(obj, EagerTensor) or obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        raise TypeError(f"Cannot interpret {obj!r} as a tensor or operation of this graph.")

    def as_graph_def(self):
        """The nodes as TensorFlow's GraphDef lists them (``runtime.core.graph_def``)."""
        from runtime.core.graph_def import graph_def_of

        return graph_def_of(self)

    @property
    def variables(self):
        """The variables this graph reads or writes, in the order it first did (TensorFlow's
        FuncGraph.variables): those it captured and those passed to it as arguments."""
        found, seen = [], set()
        for h in self.variable_handles.values():
            if h.op.type == "VarHandleOp":
                variable = h.op.attrs["variable"]
            else:  # an argument's stand-in (runtime.state.variables.ArgumentVariable)
                stand_in = self.variable_arguments.get(id(h))
                variable = None if stand_in is None else stand_in.passed_variable()
            if variable is not None and id(variable) not in seen:
                seen.add(id(variable))
                found.append(variable)
        return tuple(found)

    @property
    def trainable_variables(self):
        """The trainable ones of ``variables``."""
        return tuple(v for v in self.variables if v.trainable)

    def __str__(self):
        """One op a line (``runtime.views.text``)."""
        return _VIEWS["text"](self)

    def to_dot(self):
        """The graph in Graphviz's DOT language (``runtime.views.dot``)."""
        return _VIEWS["dot"](self)

    def __repr__(self):
        return f"<rt.Graph {self.graph_name!r} with {len(self._ops)} ops>"

    def _repr_html_(self):
        """A notebook shows the graph drawn by Graphviz (``runtime.views.render``), when it is
        installed; otherwise its text view."""
        return _VIEWS["html"](self)

    def _repr_svg_(self):
        return _VIEWS["svg"](self)

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self) if cycle else f"{self!r}\n{self}")


class FuncGraph(Graph):
    """A graph with declared inputs and outputs: a traced function, branch or loop body.

    Tensors of enclosing graphs that the function uses are captured: each gets a
    placeholder here, and the op running this graph passes the outer value in.
    Every stateful op of a FuncGraph runs, in program order, even when unused.
    """

    building_function = True

    def __init__(self, name, outer_graph=None):
        super().__init__(name)
        self.outer_graph = outer_graph
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.captures = []  # (outer tensor, inner placeholder) pairs, in order of capture
        self._capture_map = {}
        self._scalar_constants = {}  # (dtype, bytes) -> the Const of a Python scalar used here

    def add_input(self, dtype, shape, name="input"):
        t = placeholder_in_graph(self, dtype, shape, name)
        self.inputs.append(t)
        return t

    def capture(self, t: SymbolicTensor) -> Tensor:
        inner = self._capture_map.get(id(t))
        if inner is not None:
            return inner
        outer = self.outer_graph
        graph = outer
        while graph is not None and graph is not t.graph:
            graph = graph.outer_graph
        if graph is None:
            raise _out_of_scope(self, t)
        if t.op.opdef is CONST and not t.op.control_inputs and isinstance(t.graph, FuncGraph):
            # A function's constant is copied, not captured: the sub-graph's own optimisations
            # (folding, x + 0) then see it, and running it passes one input fewer. The value is
            # shared. Not in a Session's graph, where a feed may replace the constant.
            with self.no_control_dependencies():
                name = t.op.name.replace("/", "_")
                inner = constant_in_graph(self, t.op.attrs["value"], t.dtype, name)
            self._capture_map[id(t)] = inner
            return inner
        if outer is not t.graph:
            t = outer.capture(t)  # let each enclosing function capture it in turn
            inner = self._capture_map.get(id(t))
            if inner is not None:
                return inner
        with self.no_control_dependencies():
            inner = self.add_input(t.dtype, t.shape, name=t.op.name.replace("/", "_") + "_capture")
        self.captures.append((t, inner))
        self._capture_map[id(t)] = inner
        return inner

    @property
    def external_captures(self):
        return [outer for outer, _ in self.captures]


def _out_of_scope(graph, t):
    """The error for ``graph`` given ``t``, a tensor of no graph around it, in TensorFlow's
    words: InaccessibleTensorError for a tensor of a graph built inside this one (a loop
    body's), a TypeError for one of another function's graph (TensorFlow's, at its call)."""
    inner = t.graph
    while inner is not None and inner is not graph:
        inner = inner.outer_graph
    if inner is None and not isinstance(t.graph, FuncGraph):
        Graph.capture(graph, t)  # a TF1 graph's tensor: raises "belongs to another graph"
    made = t.op.source
    message = (
        f"{t!r} is out of scope and cannot be used here. Use return values or explicit Python "
        "locals to access it.\nPlease see "
        "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
        f" for more information.\n\n{t!r} was defined here:\n    {made or '<unknown>'}\n\n"
        f"The tensor {t!r} cannot be accessed from {graph.graph_name!r}, because it was defined "
        f"in {t.graph.graph_name!r}, which is out of scope."
    )
    if inner is graph:
        return errors.InaccessibleTensorError(message)
    return errors.LeakedTensorError(message)


# The kind of an attribute holding a sub-graph (a cond's branches, a loop's test and body).
FUNC_GRAPH = AttrKind("a function graph", lambda value: isinstance(value, FuncGraph))


# --- the two ops a graph makes by itself -----------------------------------------------------
# A Const for an eager value an op is given, and a Placeholder for each input and capture
# of a function graph. Their rows live here, with the graph that needs them.


def _const_kernel(value, dtype):
    return value


def _const_infer(inputs, attrs):
    value, dtype = attrs["value"], attrs["dtype"]
    if dtype.is_opaque or value.dtype != dtype.as_numpy_dtype:
        raise TypeError(f"a {dtype.name} constant cannot hold a value of numpy dtype {value.dtype}")
    return [(dtype, TensorShape(np.shape(value)))]


CONST = OpDef(
    "Const",
    _const_kernel,
    _const_infer,
    attrs={"value": TENSOR_VALUE, "dtype": DTYPE},
    gradient=NO_INPUTS,
    python_form=constant_form,
    static_value=lambda op: op.attrs["value"],
)


def constant_in_graph(graph, value, dtype, name="Const"):
    """A Const op in ``graph`` holding ``value`` (already numpy, of ``dtype``)."""
    specs = [(dtype, TensorShape(np.shape(value)))]
    return graph.create_op(CONST, [], {"value": value, "dtype": dtype}, name, specs).outputs[0]


def scalar_constant(graph, value, dtype):
    """A Const of ``graph`` holding the numpy scalar ``value``, for a Python number an op is given.

    A function graph keeps one per value (``x * 2 + 2`` makes one Const), so tracing
    a long computation does not make, and optimisation does not merge, thousands of
    equal constants; inside ``control_dependencies`` each is its own op, which waits.
    """
    if not isinstance(graph, FuncGraph) or graph._control_stack:
        return constant_in_graph(graph, value, dtype)
    key = (dtype, value.tobytes())
    made = graph._scalar_constants.get(key)
    if made is None:
        made = graph._scalar_constants[key] = constant_in_graph(graph, value, dtype)
    return made


def _placeholder_kernel(dtype, shape):
    raise errors.InvalidArgumentError("A placeholder must be fed a value")


PLACEHOLDER = OpDef(
    "Placeholder",
    _placeholder_kernel,
    infer=lambda i, a: [(a["dtype"], a["shape"])],
    pure=False,
    attrs={"dtype": DTYPE, "shape": SHAPE},
    gradient=NO_INPUTS,
)


def placeholder_in_graph(graph, dtype, shape, name="Placeholder"):
    """A Placeholder op in ``graph``: an input whose value is given when the graph runs."""
    attrs = {"dtype": dtype, "shape": as_shape(shape)}
    return graph.create_op(PLACEHOLDER, [], attrs, name, [(dtype, attrs["shape"])]).outputs[0]


# --- views ------------------------------------------------------------------------------------
# How a graph prints itself. The views depend on the graph, never the reverse: each module of
# runtime/views registers its function here when it is imported (``import runtime`` does).
_VIEWS = {}


def register_view(kind, graph_to_view):
    """Makes ``graph_to_view(graph)`` the ``kind`` view of every graph (``"text"``, ``"dot"``,
    ``"svg"``)."""
    _VIEWS[kind] = graph_to_view


class name_scope:  # noqa: N801 (TensorFlow's name)
    """Prefixes the names of ops and variables created inside it: ``scope/name``.

    In a graph a scope name is made unique (``scope``, ``scope_1``); a name
    ending in ``/`` re-enters that exact scope.

    >>> import runtime as rt
    >>> with rt.name_scope("demo_module"):
    ...     rt.Variable(1.0).name
    'demo_module/Variable:0'
    """

    def __init__(self, name):
        self._name = name or ""

    @property
    def name(self):
        """The name given, as TensorFlow's ``name_scope.name``.

        >>> import runtime as rt
        >>> rt.name_scope("yolo/").name
        'yolo/'
        """
        return self._name

    def __enter__(self):
        graph = context.building_graph()
        if graph is None:
            ctx = context._context
            self._saved = ctx.eager_name_scope
            name = self._name
            fresh = name if (not name or name.endswith("/")) else self._saved + name + "/"
            ctx.eager_name_scope = fresh
            self._scope = None
            return fresh
        self._scope = graph.name_scope(self._name)
        return self._scope.__enter__()

    def __exit__(self, *exc):
        if self._scope is None:
            context._context.eager_name_scope = self._saved
        else:
            self._scope.__exit__(*exc)


def current_name_scope() -> str:
    """The name prefix in force now, like ``"demo_module/"`` (empty at top level)."""
    graph = context.building_graph()
    return graph._name_stack if graph is not None else context._context.eager_name_scope


_default_graph = Graph("default")


def get_default_graph() -> Graph:
    """The graph being built, or the process-wide default graph when executing eagerly."""
    return context.building_graph() or _default_graph


__all__ = ["Graph", "FuncGraph", "Operation", "get_default_graph", "errors"]
