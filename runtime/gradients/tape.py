"""``rt.GradientTape``: records the ops that run under it, then differentiates them.

>>> import runtime as rt
>>> x = rt.constant(3.0)
>>> with rt.GradientTape() as tape:
...     tape.watch(x)
...     y = x * x
>>> tape.gradient(y, x)
<rt.Tensor: shape=(), dtype=float32, numpy=6.0>

Eagerly the tape keeps each op that ran on a watched tensor (a record of its
inputs, attributes and outputs); inside a graph being built (``ag.function``)
it keeps the ops added to that graph, and ``gradient`` adds the backward ops
to the same graph. Either way ``runtime.gradients.backprop`` walks what was
recorded in reverse, applying each op row's gradient rule.
"""

from __future__ import annotations

import contextlib

from runtime.core import context, dtypes, nest
from runtime.core.tensor import Tensor
from runtime.gradients.backprop import Recorded, backward, is_trainable, seed
from runtime.gradients.sources import as_source_key, zeros_for_source
from runtime.ops.array_ops import reshape, stack
from runtime.ops.constant_ops import convert_to_tensor
from runtime.state.variables import READ, Variable, handle_in_graph, variable_of

_UNCONNECTED = ("none", "zero")


class GradientTape:
    """Records operations for automatic differentiation.

    Ops on *watched* tensors run under the tape are recorded: tensors given to
    ``watch``, and (with ``watch_accessed_variables``) every trainable
    variable read under it, together with everything computed from them.
    ``gradient(target, sources)`` then gives d target / d source for each
    source. A tape can be used for one ``gradient`` (or ``jacobian``) call
    unless it is ``persistent``; tapes nest, and an outer tape records the
    gradient an inner one computes, which gives higher-order gradients.

    >>> import runtime as rt
    >>> v = rt.Variable(2.0)
    >>> with rt.GradientTape(persistent=True) as tape:
    ...     y = v * v * v                          # v is trainable: watched when read
    >>> tape.gradient(y, v).numpy(), tape.gradient(y, [v, v])[1].numpy()
    (np.float32(12.0), np.float32(12.0))
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._graph = None  # the graph recorded in; None eagerly
        self._ops = []  # what was recorded, in the order it ran
        self._watched = {}  # id -> watched tensor or variable (kept alive: ids stay unique)
        self._recorded_graph_ops = set()  # ids of the graph ops in _ops (they stay alive there)
        self._variables = []  # the variables watched, in order
        self._recording = False
        self._used = False

    # --- recording ---------------------------------------------------------------------------

    def __enter__(self):
        self._graph = context.building_graph()
        self._start_recording()
        return self

    def __exit__(self, *exc):
        self._stop_recording()

    def _start_recording(self):
        if self._recording:
            raise ValueError("This GradientTape is already recording")
        self._recording = True
        context.push_tape(self)

    def _stop_recording(self):
        context.pop_tape(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded (a tape's own bookkeeping, a metric)."""
        if not self._recording:
            raise RuntimeError("stop_recording() is only useful while the tape is recording")
        self._stop_recording()
        try:
            yield
        finally:
            self._start_recording()

    def reset(self):
        """Forgets what was recorded, and what was watched: as new, but still recording."""
        self._ops, self._watched, self._variables = [], {}, []
        self._recorded_graph_ops = set()
        self._used = False

    def watch(self, tensor):
        """Records what is computed from ``tensor`` (a tensor, variable, or structure of them)."""
        for item in nest.flatten(tensor):
            if isinstance(item, Variable):
                self._watch_variable(item)
            elif isinstance(item, Tensor):
                self._watched[id(item)] = item
            else:
                raise ValueError(
                    f"GradientTape.watch: {item!r} is not a tensor or a variable; "
                    "pass tensors (rt.constant(...)) or rt.Variables"
                )

    def _watch_variable(self, variable):
        if all(v is not variable for v in self._variables):
            self._variables.append(variable)
        if self._graph is None:
            self._watched[id(variable)] = variable
        else:
            handle = handle_in_graph(self._graph, variable)
            self._watched[id(handle)] = handle

    def watched_variables(self):
        """The variables watched so far, explicitly or by being read, in the order first seen."""
        return tuple(self._variables)

    def record_eager(self, opdef, inputs, attrs, outputs):
        """Called by ``bind`` for each op that ran eagerly while this tape records."""
        if self._graph is not None:
            return
        watched = self._watched
        if any(id(t) in watched for t in inputs):
            self._ops.append(Recorded(opdef, inputs, attrs, outputs))
            for t in outputs:
                if is_trainable(t.dtype):
                    watched[id(t)] = t

    def record_variable_read(self, variable, value):
        """Called when ``variable`` is read eagerly, ``value`` being what the read gave."""
        if self._graph is not None:
            return
        if id(variable) not in self._watched:
            if not (self._watch_accessed_variables and variable.trainable):
                return
            self._watch_variable(variable)
        self._ops.append(Recorded(READ, (variable,), {"variable": variable}, (value,)))
        self._watched[id(value)] = value

    def watches_call(self, inputs, variables):
        """Whether a call of a function on ``inputs``, reading ``variables``, is recorded."""
        if self._graph is not None:
            return False
        watched = self._watched
        return any(id(t) in watched for t in inputs) or any(
            id(v) in watched or (self._watch_accessed_variables and v.trainable)
            for v in _read(inputs, variables)
        )

    def record_call(self, opdef, inputs, attrs, outputs, variables):
        """Records a call of a traced function (``outputs`` from ``inputs`` and ``variables``)."""
        if self._graph is not None:
            return
        for variable in _read(inputs, variables):
            if self._watch_accessed_variables and variable.trainable:
                self._watch_variable(variable)
        self.record_eager(opdef, [*inputs, *variables], attrs, outputs)

    def record_graph_op(self, op):
        """Called by ``Graph.create_op`` for each op added while this tape records."""
        if op.graph is not self._graph:
            return
        watched, recorded_ops = self._watched, self._recorded_graph_ops
        recorded = False
        for t in op.inputs:
            # An output of a recorded op is watched even if the op grew it after it was
            # recorded: a loop being differentiated grows the stacks its gradient reads.
            if id(t) in watched or (id(t.op) in recorded_ops and is_trainable(t.dtype)):
                recorded = True
            elif t.dtype is dtypes.resource and self._watch_accessed_variables:
                variable = variable_of(t)
                if variable is not None and variable.trainable:
                    self._watch_variable(variable)  # a variable read (or captured) under the tape
                    recorded = True
        if recorded:
            self._ops.append(op)
            recorded_ops.add(id(op))
            for t in op.outputs:
                if is_trainable(t.dtype):
                    watched[id(t)] = t

    # --- differentiating -----------------------------------------------------------------------

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """The gradient of ``target`` with respect to each of ``sources``, in their structure.

        ``target`` may be a tensor or a structure of them (their gradients add
        up); ``output_gradients`` weighs each target (ones by default). A target that is
        itself a source (a tensor or a variable) gives it its weight: ``gradient(v, v)`` is
        ones. A source the target does not depend on gets None, or zeros with
        ``unconnected_gradients="zero"``; so do integer, boolean and string ones.
        """
        if unconnected_gradients not in _UNCONNECTED:
            raise ValueError(
                f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}"
            )
        self._use()
        flat_sources = nest.flatten(sources)
        grads = self._gradients(target, flat_sources, output_gradients)
        if not self._persistent:
            # It cannot be used again: let the values go.
            self._ops, self._watched, self._recorded_graph_ops = [], {}, set()
        if unconnected_gradients == "zero":
            grads = [zeros_for_source(s) if g is None else g for s, g in zip(flat_sources, grads)]
        return nest.pack_sequence_as(sources, grads)

    def _use(self):
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients "
                "(or jacobians); create it with persistent=True to call gradient() again"
            )
        self._used = True

    def _gradients(self, target, flat_sources, output_gradients):
        targets = [
            t if isinstance(t, Variable) else convert_to_tensor(t) for t in nest.flatten(target)
        ]
        weights = (
            [None] * len(targets)
            if output_gradients is None
            else list(nest.flatten(output_gradients))
        )
        if len(weights) != len(targets):
            raise ValueError(
                f"output_gradients has {len(weights)} tensors for {len(targets)} targets"
            )
        with self._in_graph():
            pairs = [
                (self._target_key(t), seed(t) if w is None else convert_to_tensor(w, t.dtype))
                for t, w in zip(targets, weights)
                if is_trainable(t.dtype)
            ]
            keys = [as_source_key(s, self._graph) for s in flat_sources]
            ops = list(self._ops)
            grads = backward(ops, [t for t, _ in pairs], [w for _, w in pairs], keys)
        return [g if key is not None else None for key, g in zip(keys, grads)]

    def _target_key(self, target):
        """What the backward pass knows ``target`` by: a variable as a source is known (so that
        ``gradient(v, v)`` is ones, as in TensorFlow, which differentiates the variable's handle);
        in a graph that makes the handle, which a source variable then finds."""
        if not isinstance(target, Variable):
            return target
        return target if self._graph is None else handle_in_graph(self._graph, target)

    def _in_graph(self):
        if self._graph is None or context.building_graph() is self._graph:
            return contextlib.nullcontext()
        return self._graph.as_default()

    def jacobian(self, target, sources, unconnected_gradients="none"):
        """d target[i...] / d source[j...] for each source: shape ``target.shape + source.shape``.

        Computed row by row (one gradient per element of ``target``), so the
        target's size must be known.

        >>> import runtime as rt
        >>> x = rt.constant([1.0, 2.0])
        >>> with rt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
        """
        self._use()
        target = convert_to_tensor(target)
        size = target.shape.num_elements()
        if size is None:
            raise ValueError(
                f"jacobian needs a target of known size, got shape {target.shape}; compute the "
                "rows with gradient(target, source, output_gradients=...) in a loop instead"
            )
        flat_sources = nest.flatten(sources)
        rows = [[] for _ in flat_sources]
        for i in range(size):
            one_hot = [0] * size
            one_hot[i] = 1
            weight = reshape(convert_to_tensor(one_hot, target.dtype), target.shape.as_list())
            for row, g in zip(rows, self._gradients(target, flat_sources, [weight])):
                row.append(g)
        result = []
        for source, row in zip(flat_sources, rows):
            if all(g is None for g in row) and unconnected_gradients != "zero":
                result.append(None)
                continue
            row = [zeros_for_source(source) if g is None else g for g in row]
            shape = target.shape.as_list() + _shape_list(source)
            result.append(reshape(stack(row), shape))
        return nest.pack_sequence_as(sources, result)


def _shape_list(source):
    shape = source.shape
    if not shape.is_fully_defined():
        raise ValueError(f"jacobian needs sources of known shape, got {shape}")
    return shape.as_list()


def _read(inputs, variables):
    """The variables a call reads: those its graph captured, and those given as its inputs (an
    ``ag.function``'s variable arguments, passed by handle)."""
    return [*variables, *(t for t in inputs if isinstance(t, Variable))]
