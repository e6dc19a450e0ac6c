"""``rt.custom_gradient`` and ``rt.recompute_grad``: functions whose gradient their author
writes, as TensorFlow's decorators of the same names.

``f(*args)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` (one gradient per tensor of ``y``)
returns the gradients of the arguments, and ``grad_fn(*dy, variables=...)`` with
``(argument_grads, variable_grads)`` when ``f`` read trainable variables. Eagerly a tape
records one ``CustomGradient`` op whose gradient calls ``grad_fn``; in a graph ``grad_fn`` is
traced into the op's gradient sub-graph (``runtime.ops.custom_gradient_ops``) when a gradient
is first taken through the op, or the graph is saved (``DeferredGradient``), not when ``f``
is called: a forward-only call does not run ``grad_fn``, as in TensorFlow. (Inside a branch
or a loop body, which can capture tensors only while it is built, it is traced at once.)

>>> import runtime as rt
>>> @rt.custom_gradient
... def clip_gradient(x):
...     return rt.identity(x), lambda dy: rt.clip_by_value(dy, -0.5, 0.5)
>>> x = rt.constant([1.0, 2.0])
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     y = clip_gradient(x * 3.0)
>>> tape.gradient(y, x).numpy()
array([1.5, 1.5], dtype=float32)
"""

from __future__ import annotations

import functools
import inspect
import types

from runtime.core import context, nest
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_spec import TensorSpec
from runtime.execution.tracing import set_outputs, trace
from runtime.gradients.tape import GradientTape
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT
from runtime.ops.registry import bind
from runtime.state.variables import VAR_HANDLE, handle_in_graph


def custom_gradient(f=None):
    """Decorates ``f``, which returns ``(y, grad_fn)``, so that gradients of ``y`` are those
    ``grad_fn`` gives, as TensorFlow's ``tf.custom_gradient``: a numerically stable or a
    clipped gradient, or one cheaper than differentiating ``f``'s ops.

    ``grad_fn(*upstream)`` takes one gradient per tensor of ``y`` (flattened) and returns one
    gradient (or None) per argument of ``f`` (flattened); if ``f`` reads trainable variables,
    ``grad_fn`` must take them as ``variables=`` and return ``(argument_grads,
    variable_grads)``. It works eagerly under a ``GradientTape``, inside ``ag.function`` and
    in a TensorFlow 1 graph with ``rt.gradients``; the gradient may itself be differentiated
    (its ops are ordinary ops). Keyword arguments are passed to ``f`` only eagerly, as in
    TensorFlow, and get no gradient.

    >>> import runtime as rt
    >>> @rt.custom_gradient
    ... def log1pexp(x):
    ...     e = rt.exp(x)
    ...     def grad(upstream):
    ...         return upstream * (1 - 1 / (1 + e))
    ...     return rt.math.log1p(e), grad
    >>> x = rt.constant(100.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = log1pexp(x)
    >>> tape.gradient(y, x).numpy()
    np.float32(1.0)
    """
    if f is None:
        return custom_gradient
    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """``f`` with the gradient its ``grad_fn`` gives. As a method it binds its instance, which
    is no argument to differentiate (TensorFlow's ``Bind`` decorator)."""

    def __init__(self, f):
        functools.update_wrapper(self, f)
        self._f = f

    def __call__(self, *args, **kwargs):
        if context.building_graph() is None:
            return _eager_call(self._f, args, kwargs)
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments only "
                "when eager execution is enabled."
            )
        return _graph_call(self._f, args)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return _CustomGradientFunction(types.MethodType(self._f, instance))

    def __repr__(self):
        return f"<rt.custom_gradient of {self._f!r}>"

    # AutoGraph runs this wrapper as it is, and converts ``__wrapped__`` (the user's f) in it.
    __autograph_rewrap__ = staticmethod(custom_gradient)


def _call_watching_variables(f, args, kwargs):
    """``f(*args, **kwargs)``'s ``(result, grad_fn)``, and the trainable variables it read."""
    with GradientTape() as watcher:
        result, grad_fn = f(*args, **kwargs)
    return result, grad_fn, list(watcher.watched_variables())


def _eager_call(f, args, kwargs):
    result, grad_fn, variables = _call_watching_variables(f, args, kwargs)
    flat_args = nest.flatten(args)
    variables = [v for v in variables if all(v is not a for a in flat_args)]
    _check_takes_variables(grad_fn, variables)
    flat_result = [convert_to_tensor(t) for t in nest.flatten(result)]
    # New tensors of the same values, made without an op: the tape must reach them only
    # through the CustomGradient record, not through the ops of f.
    outputs = [EagerTensor(t._value, t.dtype) for t in flat_result]
    inputs = [_as_input(a) for a in flat_args]
    attrs = {
        "gradient": lambda upstream: _author_gradients(
            grad_fn, result, upstream, len(flat_args), variables
        ),
        "arguments": len(inputs) + len(variables),
        "results": len(outputs),
        "connected": None,
    }
    for tape in context.recording_tapes():
        tape.record_eager(CUSTOM_GRADIENT, [*inputs, *variables], attrs, outputs)
    return nest.pack_sequence_as(result, outputs)


def _as_input(arg):
    return arg if isinstance(arg, Tensor) else convert_to_tensor(arg)


def _graph_call(f, args):
    graph = context.building_graph()
    args = nest.map_structure(_as_input, args)
    result, grad_fn, variables = _call_watching_variables(f, args, {})
    flat_args = nest.flatten(args)
    _check_takes_variables(grad_fn, variables)
    flat_result = [convert_to_tensor(t) for t in nest.flatten(result)]
    handles = [handle_in_graph(graph, v) for v in variables]
    gradient = DeferredGradient(graph, grad_fn, result, flat_result, flat_args, variables)
    inputs = [*flat_args, *handles, *flat_result]
    attrs = {
        "gradient": gradient,
        "arguments": len(flat_args) + len(handles),
        "results": len(flat_result),
        "connected": None,
    }
    if getattr(graph, "outer_graph", None) is not None:
        # A branch or loop body: grad_fn may read tensors from around it, which it can capture
        # only while it is being built. Traced now (TensorFlow would rewrite the finished op).
        gradient_graph, connected, captured = gradient.trace(graph)
        inputs += captured
        attrs.update(gradient=gradient_graph, connected=connected)
    outputs = bind(CUSTOM_GRADIENT, inputs, attrs, name="CustomGradient")
    return nest.pack_sequence_as(result, outputs)


class DeferredGradient:
    """A ``CustomGradient`` op's ``grad_fn``, traced into the op's gradient sub-graph only when
    a gradient is taken (or the graph is saved), as TensorFlow calls ``grad_fn`` only then:
    a forward-only call never runs it, whatever it does."""

    def __init__(self, graph, grad_fn, result, flat_result, flat_args, variables):
        self._graph = graph  # where f ran: grad_fn reads that graph's tensors
        self._grad_fn, self._result, self._variables = grad_fn, result, variables
        self._specs = [TensorSpec(t.shape, t.dtype) for t in flat_result]
        self._argument_count = len(flat_args)

    def materialize(self, op):
        """Traces ``grad_fn`` into ``op``'s ``gradient`` sub-graph, the tensors it reads
        becoming the op's last inputs (``op`` is the op made with this, or its copy)."""
        graph = op.graph
        first = graph.num_operations
        gradient_graph, connected, captured = self.trace(graph)
        made = {id(o) for o in graph.operations_from(first)}  # a variable's handle, made now
        late = [t.op for t in captured if isinstance(t, SymbolicTensor) and id(t.op) in made]
        if late:
            graph.move_before(list(dict.fromkeys(late)), op)  # inputs come before their reader
        op.inputs = (*op.inputs, *captured)
        op.attrs.update(gradient=gradient_graph, connected=connected)

    def trace(self, graph):
        """``(sub-graph, the arguments it gives gradients for, the tensors of graph it reads)``:
        ``grad_fn`` traced from the results' gradients."""

        def gradients(*upstream):
            return _author_gradients(
                self._grad_fn, self._result, list(upstream), self._argument_count, self._variables
            )

        gradient_graph = trace(
            gradients, self._specs, "custom_gradient", self._graph, convert=False
        )
        grads = gradient_graph.structured_outputs
        connected = tuple(i for i, g in enumerate(grads) if g is not None)
        set_outputs(gradient_graph, [grads[i] for i in connected])
        captured = [_counterpart(graph, t) for t in gradient_graph.external_captures]
        return gradient_graph, connected, captured

    before_saving = materialize  # a saved model holds the gradient sub-graph (TensorFlow's too)


def _counterpart(graph, t):
    """``graph``'s tensor for ``t``, a tensor of the graph the op was made in: a copy of that
    graph (a function's graph differentiated under a tape) names its tensors the same."""
    if not isinstance(t, SymbolicTensor) or t.graph is graph:
        return t
    if t.op.opdef is VAR_HANDLE:  # a variable grad_fn reads: the copy's own handle
        return handle_in_graph(graph, t.op.attrs["variable"])
    return graph.get_tensor_by_name(t.name)


def _author_gradients(grad_fn, result, upstream, argument_count, variables):
    """``grad_fn``'s gradients of the arguments then the variables, checked and flattened."""
    packed = nest.pack_sequence_as(result, upstream)
    upstream = list(packed) if isinstance(packed, list | tuple) else [packed]
    if variables:
        returned = grad_fn(*upstream, variables=variables)
        if not isinstance(returned, list | tuple) or len(returned) != 2:
            raise ValueError(
                "@custom_gradient grad_fn of a function that uses variables must return "
                "(input_grads, variable_grads)"
            )
        input_grads, variable_grads = returned
        variable_grads = list(nest.flatten(variable_grads))
        if len(variable_grads) != len(variables):
            raise ValueError(
                "Must return gradient for each variable from @custom_gradient grad_fn."
            )
    else:
        input_grads, variable_grads = grad_fn(*upstream), []
    flat = nest.flatten(input_grads)
    if len(flat) != argument_count:
        raise ValueError(
            f"custom_gradient function expected to return {argument_count} gradients, but "
            f"returned {len(flat)} instead."
        )
    return [None if g is None else convert_to_tensor(g) for g in [*flat, *variable_grads]]


def _check_takes_variables(grad_fn, variables):
    if not variables:
        return
    spec = inspect.getfullargspec(grad_fn)
    if "variables" not in spec.args and "variables" not in spec.kwonlyargs and not spec.varkw:
        names = ", ".join(repr(v.name) for v in variables)
        raise TypeError(
            "@custom_gradient grad_fn must accept keyword argument 'variables', since function "
            f"uses variables: {names}"
        )


def recompute_grad(f):
    """``f`` with the same values and gradients, its intermediate values recomputed when the
    gradient needs them rather than kept from the forward pass (TensorFlow's
    ``tf.recompute_grad``, to trade computation for memory in large models).

    The gradient runs ``f`` again under a tape (arguments and the trainable variables ``f``
    reads) and differentiates that run. The runtime does not promise the memory saving: a
    tape recording the call still keeps the first run's records, and in a graph the
    optimiser may share values between the two runs. ``f`` should be deterministic (no
    random draws), as TensorFlow requires too.

    >>> import runtime as rt
    >>> square = rt.recompute_grad(lambda x: x * x)
    >>> x = rt.constant(3.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = square(x)
    >>> y.numpy(), tape.gradient(y, x).numpy()
    (np.float32(9.0), np.float32(6.0))
    """

    @functools.wraps(f)
    def recomputing(*args, **kwargs):
        @custom_gradient
        def inner(*args):
            result = f(*args, **kwargs)

            def grad_fn(*upstream, variables=None):
                # In a graph this is traced into the gradient's sub-graph: f runs again on
                # the arguments as that sub-graph captures them.
                inputs = nest.map_structure(_in_graph_being_built, args)
                sources = [*nest.flatten(inputs), *(variables or [])]
                with GradientTape() as tape:
                    tape.watch([s for s in sources if isinstance(s, Tensor)])
                    again = f(*inputs, **kwargs)
                grads = tape.gradient(nest.flatten(again), sources, list(upstream))
                count = len(nest.flatten(args))
                return (grads[:count], grads[count:]) if variables else grads[:count]

            return result, grad_fn

        return inner(*nest.map_structure(_as_input, args))

    recomputing.__autograph_rewrap__ = recompute_grad  # AutoGraph converts f, not this
    return recomputing


def _in_graph_being_built(t):
    graph = context.building_graph()
    return graph.prepare_input(t) if graph is not None and isinstance(t, Tensor) else t
