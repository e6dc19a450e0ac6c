"""A function graph compiled by XLA, called as the default executor's ``Program`` is.

``XlaProgram(graph)(*input_values)`` returns the output values as numpy, like
``runtime.execution.compile.Program``. Inside, the graph is lowered to one JAX
function (``runtime.xla.lower``) and compiled once by ``jax.jit``; a call

1. passes the inputs, the current value of each variable the graph uses, and
   the program's random key;
2. gets back the outputs, the new value of each variable the graph assigns,
   the next random key and, if something may fail at run time, the error code;
3. writes what the callbacks printed, in order, writes the variables back, and
   raises the first failure the way the default executor raises it.

Values XLA needs when compiling but the graph computes (``runtime.xla.observe``)
are observed on a first run; a later call that computes others observes again,
and its program, compiled for those, is kept beside the first.

>>> import numpy as np
>>> import runtime as rt
>>> from runtime.execution.tracing import trace
>>> g = trace(lambda x: rt.reduce_sum(x * x), [rt.TensorSpec([3], rt.float32)], "f")
>>> XlaProgram(g)(np.array([1, 2, 3], np.float32))
(np.float32(14.0),)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from runtime import errors
from runtime.core import dtypes
from runtime.execution.compile import describe_op
from runtime.execution.emitter import ModuleNamer
from runtime.execution.entry import MISS
from runtime.execution.interpreter import failure_message
from runtime.ops.logging_ops import write_text
from runtime.state.variables import VAR_HANDLE
from runtime.xla import lowerings
from runtime.xla.effects import is_static
from runtime.xla.lower import Host, Lowering, Specialization
from runtime.xla.observe import all_ops, observe
from runtime.xla.state import DETAIL, ERROR, KEY, NeedsObservation, ProgramState
from runtime.xla.tensor_lists import TensorArrayValue

_WIDE = (dtypes.int64, dtypes.float64)


class XlaProgram:
    """A FuncGraph compiled by XLA; call it with the values of the graph's inputs."""

    body_runs_kernels = False  # its entry functions' body calls XLA (runtime.execution.entry)

    def __init__(self, graph):
        self.graph = graph
        ops = list(all_ops(graph))
        self.variables = list({id(v): v for v in _variables(ops)}.values())
        self.keyed = any(op.opdef in lowerings.KEYED for op in ops)
        # JAX computes in 32 bits unless told otherwise: a graph with 64-bit values runs with
        # 64-bit types on (for its own calls only), so int64 stays int64.
        self.wide = any(t.dtype in _WIDE for op in ops for t in (*op.inputs, *op.outputs))
        # Inputs of sizes known only when called: jax.jit traces once per shape, and what a trace
        # finds static (a shape returned, a check decided) differs from shape to shape.
        self.polymorphic = any(
            not t.shape.is_fully_defined() for t in (*graph.inputs, *self.variables)
        )
        self.key = _initial_key(ops) if self.keyed else None
        self.strings = [t for t in graph.inputs if t.dtype.is_string]  # JAX cannot take these
        self.plans = {}  # each graph's ops in order: shared by the programs of every specialization
        self._compiled = {}  # Specialization.key() -> _Compiled
        self._base = Specialization()  # what is observed: the same for every input value
        self._static = []  # positions of the inputs compiled in, by value
        self._by_inputs = {}  # the static inputs' values -> _Compiled
        self._current = self._compile(self._base)
        self.namer, self.bound_values = None, {}  # the entry functions' names (see body)

    def __call__(self, *values):
        try:
            compiled = (
                self._by_inputs.get(self._input_key(values)) if self._static else self._current
            )
            if compiled is not None and compiled.fast is not None:  # the common call
                return compiled.fast(values)
            if self.wide:
                with jax.enable_x64(True):
                    return self._call(values)
            return self._call(values)
        except errors.OpError as e:
            if not getattr(e, "__notes__", None):
                raise
            # Raised while JAX traced the program: JAX's note about its own frames is noise here.
            raise type(e)(e.message, e.op) from None
        except jax.errors.JaxRuntimeError as e:
            if "RESOURCE_EXHAUSTED" not in str(e):
                raise
            raise _out_of_memory(self.graph, e) from None

    def _call(self, values):
        if self.strings:
            raise _string_argument(self.strings[0])
        compiled = self._current
        if self._static:
            compiled = self._by_inputs.get(self._input_key(values)) or self._for_inputs(values)
        try:
            return compiled.run(values)
        except NeedsObservation as e:
            if e.input_index is None:
                return self._observe_then_run(values)
            self._static = sorted({*self._static, e.input_index})
            return self._call(values)
        except _Respecialize:
            return self._observe_then_run(values)

    def _input_key(self, values):
        if len(self._static) == 1:  # usually a size: a numpy scalar is its own key, and fast
            value = values[self._static[0]]
            return value if isinstance(value, np.generic) else value.tobytes()
        return tuple([values[i].tobytes() for i in self._static])

    def _for_inputs(self, values):
        """The program compiled for these values of the static inputs (and what is observed)."""
        inputs = {i: np.array(values[i]) for i in self._static}
        compiled = self._compile(self._base.with_inputs(inputs))
        self._by_inputs[self._input_key(values)] = compiled
        return compiled

    def _compile(self, specialization):
        key = specialization.key()
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = _Compiled(self, specialization)
        return compiled

    def _observe_then_run(self, values):
        observation = observe(self.graph, values, self.variables)
        if observation.varies:
            _changing(observation.varies[0])
        positions = {id(t): i for i, t in enumerate(self.graph.inputs)}
        static, observed = set(self._static), {}
        for (op, p), value in observation.values.items():
            index = positions.get(id(op.inputs[p]))
            if index is None:
                observed[(op, p)] = value
            else:
                static.add(index)
        self._base = Specialization(observed, observation.capacities, observed=True)
        self._static, self._by_inputs = sorted(static), {}
        if self._static:
            compiled = self._for_inputs(values)
        else:
            compiled = self._current = self._compile(self._base)
        try:
            return compiled.run(values)
        except _Respecialize as e:
            _changing(e.check.op)
        except NeedsObservation as e:
            if e.input_index is None:  # what was observed is all a run needs
                raise
            # An input the trace asked to have compiled in (a loop's bound): compiled for its
            # value, with what was observed (checked on each call, as always).
            self._static, self._by_inputs = sorted({*self._static, e.input_index}), {}
            return self._call(values)

    @property
    def body(self):
        """What ``runtime.execution.entry`` writes an entry function from, as for the default
        executor's ``Program.body``: lines that pick the program compiled for the inputs and
        call its jitted function, or None where a call needs more (64-bit types; a program
        that prints, writes variables, draws random numbers or checks at run time).

        A call the lines cannot take (static inputs of values not compiled yet, a program
        not traced yet) returns ``MISS``, and the general path takes it.
        """
        if self.wide or not any(c.plain for c in self._compiled.values()):
            return None
        if self.namer is None:
            self.namer = ModuleNamer()
        fresh, bound = self.namer.fresh, self.bound_values

        def bind(hint, value):
            name = fresh(hint)
            bound[name] = value
            return name

        program, miss = bind("program", self), bind("miss", MISS)
        args = [fresh("input") for _ in self.graph.inputs]
        compiled, outputs = fresh("compiled"), [fresh("output") for _ in self.graph.outputs]
        if self._static:  # the key _input_key makes, written out
            static = [args[i] for i in self._static]
            if len(static) == 1:
                generic = bind("generic", np.generic)
                key = (
                    f"{static[0]} if isinstance({static[0]}, {generic}) else {static[0]}.tobytes()"
                )
            else:
                key = f"({', '.join(f'{a}.tobytes()' for a in static)},)"
            dynamic = [a for i, a in enumerate(args) if i not in self._static]
            lines = [
                f"    if {program}._static is not {bind('static', self._static)}:",
                f"        return {miss}",
                f"    {compiled} = {program}._by_inputs.get({key})",
                f"    if {compiled} is None or not {compiled}.plain:",
                f"        return {miss}",
            ]
        else:
            dynamic = args
            lines = [
                f"    {compiled} = {program}._current",
                f"    if {program}._static or not {compiled}.plain:",
                f"        return {miss}",
            ]
        if self.variables:  # a plain program may read variables: their values now, after
            read, variables = bind("read", _device_or_numpy), bind("variables", self.variables)
            dynamic = [*dynamic, f"*map({read}, {variables})"]
        lines.append(f"    {', '.join(outputs)}, = {compiled}.jitted({', '.join(dynamic)})")
        asarray, numpy_value = bind("asarray", np.asarray), bind("numpy_value", _numpy)
        results = []
        for name, tensor in zip(outputs, self.graph.outputs):
            rank = tensor.shape.rank
            if rank is None:
                results.append(f"{numpy_value}({name})")
            else:  # a scalar is a numpy scalar, as the default executor gives it
                results.append(f"{asarray}({name}){'[()]' if rank == 0 else ''}")
        return lines, results, args, {}

    def __str__(self):
        return f"<rt.xla.XlaProgram {self.graph.graph_name!r}>"


def _out_of_memory(graph, error):
    """XLA could not allocate: the error the default executor raises for numpy's MemoryError."""
    detail = str(error).removeprefix("RESOURCE_EXHAUSTED: ").strip()
    return errors.InvalidArgumentError(
        f"MemoryError: XLA ran out of memory running {graph.graph_name}: {detail}"
    )


def _string_argument(placeholder):
    op = placeholder.op
    return errors.UnimplementedError(
        f"argument '{op.name}' is a string tensor, and XLA has no strings. Run the function "
        "without jit_compile, or pass the string as a Python value (then it is part of the "
        f"signature, and each value traces its own graph).\n\t [[{describe_op(op)}]]",
        op,
    )


def _changing(op):
    raise errors.UnimplementedError(
        f"{op.type}: XLA needs this shape or size when compiling, and it changes while the "
        "function runs (from one run of the op to the next, or not as it was observed). Run the "
        f"function without jit_compile, or make the size a constant.\n\t [[{describe_op(op)}]]",
        op,
    )


class _Respecialize(Exception):  # noqa: N818 (a signal, not an error)
    def __init__(self, check):
        super().__init__(check.message)
        self.check = check


class _Layout:
    """Where each result of a traced program is: filled in while tracing."""

    def __init__(self):
        self.outputs = []  # ("static", value) | ("result", index) | ("list", buffer index, n)
        self.written = []  # (variable, result index)
        self.key = self.error = self.detail = None
        self.prints = False

    @property
    def plain(self):
        """Only outputs, all computed: the call needs nothing around the jitted function."""
        return (
            not (self.written or self.prints)
            and self.key is self.error is None
            and all(kind == "result" for kind, *_ in self.outputs)
        )


class _Compiled:
    """The program compiled for one specialization."""

    def __init__(self, program, specialization):
        self.program = program
        # What tracing a loop or cond learns is its own: the specs of what it allocates follow
        # the sizes compiled in (an inner loop's bound, a TensorArray's element shape).
        self.host = Host(specialization, program.graph, plans=program.plans)
        self.static = specialization.inputs
        self.dynamic = [i for i in range(len(program.graph.inputs)) if i not in self.static]
        self.layout = None
        self.layouts = {}  # the shapes of the arguments -> their trace's layout (polymorphic)
        self.plain = False
        self.fast = None  # once traced, for a plain program that needs no 64-bit types: the call
        self.jitted = jax.jit(self._trace)

    def _trace(self, *args):
        program, host = self.program, self.host
        n_in, n_var = len(self.dynamic), len(program.variables)
        inputs, old = dict(self.static), args[n_in : n_in + n_var]
        inputs.update(zip(self.dynamic, args[:n_in]))
        inputs = [inputs[i] for i in range(len(program.graph.inputs))]
        state = ProgramState(zip(program.variables, old))
        if program.keyed:
            state[KEY] = args[-1]
        host.callbacks = 0
        traced = {i: inputs[i] for i in self.dynamic}
        outputs = Lowering(host, state, traced).run(program.graph, list(inputs))
        layout, results = _Layout(), []
        for value, tensor in zip(outputs, program.graph.outputs):
            if isinstance(value, TensorArrayValue):
                length = value.length
                if value.dynamic:
                    results.append(length)
                    length = ("result", len(results) - 1)
                layout.outputs.append(("list", len(results), length))
                results.append(value.buffer)
            elif is_static(value) or tensor.dtype.is_string or tensor.dtype.is_opaque:
                layout.outputs.append(("static", value))
            else:
                layout.outputs.append(("result", len(results)))
                results.append(value)
        for variable, before in zip(program.variables, old):
            after = state[variable]
            if after is not before:
                layout.written.append((variable, len(results)))
                results.append(jnp.asarray(after, variable.dtype.as_numpy_dtype))
        if program.keyed:
            layout.key = len(results)
            results.append(state[KEY])
        if ERROR in state:
            layout.error = len(results)
            results.append(jnp.asarray(state[ERROR], jnp.int32))
            if DETAIL in state:
                layout.detail = len(results)
                results.append(state[DETAIL])
        layout.prints = host.callbacks > 0
        self.layouts[tuple(a.shape for a in args)] = layout
        # A polymorphic program's call always looks up its shapes' layout: a new shape's
        # trace may find it is not plain only once called.
        self.layout, self.plain = layout, layout.plain and not program.polymorphic
        if self.plain and not program.wide:
            dynamic = self.dynamic if self.static else None
            self.fast = _fast_call(self.jitted, dynamic, program.variables)
        return tuple(results)

    def run(self, values):
        if self.plain:  # the common call: nothing around the jitted function but reads
            if self.static:
                values = [values[i] for i in self.dynamic]
            variables = map(_device_or_numpy, self.program.variables)
            return tuple(map(_numpy, self.jitted(*values, *variables)))
        program, host = self.program, self.host
        args = [values[i] for i in self.dynamic] if self.static else list(values)
        args.extend(_device_or_numpy(v) for v in program.variables)
        if program.keyed:
            args.append(program.key)
        host.printed_text, host.assert_messages = [], {}
        results = self.jitted(*args)
        layout = self.layout
        if program.polymorphic:
            layout = self.layouts[tuple(np.shape(a) for a in args)]
        code = 0 if layout.error is None else int(np.asarray(results[layout.error]))
        check = host.checks[code - 1] if code else None
        if check is not None and check.respecialize:
            raise _Respecialize(check)
        if layout.prints:
            jax.block_until_ready(results)
            jax.effects_barrier()
            for stream, text in host.printed_text:
                write_text(stream, text)
        for variable, index in layout.written:
            variable._set_device_value(results[index])
        if layout.key is not None:
            program.key = results[layout.key]
        if check is not None:
            raise self._error(check, code, results)
        return tuple(_output(entry, results) for entry in layout.outputs)

    def _error(self, check, code, results):
        if check.message is None:
            message = self.host.assert_messages.get(code, "assertion failed")
        else:
            detail = [0, 0] if self.layout.detail is None else results[self.layout.detail]
            message = check.message.format(*np.asarray(detail).tolist())
        return check.error_type(failure_message(message, check.op), check.op)


def _fast_call(jitted, dynamic, variables):
    """The call of a plain program: the jitted function on the inputs not compiled in and
    the current values of the variables it reads, and its results as numpy."""
    if variables:

        def call(values):
            inputs = values if dynamic is None else [values[i] for i in dynamic]
            return tuple(map(_numpy, jitted(*inputs, *map(_device_or_numpy, variables))))

        return call
    if dynamic is None:
        return lambda values: tuple(map(_numpy, jitted(*values)))
    if not dynamic:
        return lambda values: tuple(map(_numpy, jitted()))
    return lambda values: tuple(map(_numpy, jitted(*[values[i] for i in dynamic])))


def _device_or_numpy(variable):
    """What a call passes for a variable: the array a compiled program left, else numpy."""
    device = variable._device_value
    return device if device is not None else variable._numpy_value


def _numpy(value):
    array = np.asarray(value)
    return array if array.ndim else array[()]


def _output(entry, results):
    kind = entry[0]
    if kind == "result":
        return _numpy(results[entry[1]])
    if kind == "static":
        return entry[1]
    buffer, length = entry[1], entry[2]  # a TensorArray: the default executor's list of values
    if isinstance(length, tuple):
        length = int(np.asarray(results[length[1]]))
    items = [] if results[buffer] is None else list(np.asarray(results[buffer]))
    return [_numpy(v) for v in items[:length]]


def _variables(ops):
    return [op.attrs["variable"] for op in ops if op.opdef is VAR_HANDLE]


def _initial_key(ops):
    """A key from the random ops' seeds (``rt.random.set_seed``), or fresh entropy without."""
    seeds = [op.attrs["state"].entropy for op in ops if op.opdef in lowerings.KEYED]
    material = None if any(s is None for s in seeds) else [int(x) for s in seeds for x in s]
    words = np.random.SeedSequence(material).generate_state(2, np.uint32)
    return jnp.asarray(words, dtype=jnp.uint32)
