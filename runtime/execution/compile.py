"""Compiling a graph to straight-line Python over numpy kernels.

Each op becomes one line ``outputs = kernel(inputs)``, or the Python its row's
form says (``runtime.core.forms``): an operator where the kernel is a numpy
ufunc with that meaning (``x + y`` on numpy values is ``np.add``, without a
Python call in between), a method with constant arguments (``x.reshape(shape)``);
a cond becomes a native ``if``/``else`` and a while loop a native ``while``,
with their sub-graphs inlined, so running a loop costs no per-iteration call
chain (``runtime.execution.emitter``). The source is what runs, and what
``print(program)`` shows.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, [], name="x")
...     y = rt.cond(x > 0, lambda: x * 2.0, lambda: -x)
>>> print(compile_graph(g, [x], [y]))
def graph_fn(placeholder):
    if placeholder > const:
        if_ = placeholder * const_1
    else:
        if_ = -placeholder
    return (if_,)

A scalar value used once is written into the expression that uses it, as above.

No text from the graph reaches the source: names are made here from the type
of each op's row and a number (``mul_1``), never from the graph's names; the
function is ``graph_function`` whatever the graph is called; constants and attributes are bound
as values of the function's globals under such names, and an index's ints are
written by the compiler from checked ints. So a graph, whatever its names and
attributes hold (one loaded from an untrusted file, say), cannot add code.
"""

from __future__ import annotations

import itertools

from runtime import errors
from runtime.core import floating_point, tracebacks
from runtime.core.gc_pause import no_cyclic_gc
from runtime.core.graph import PLACEHOLDER
from runtime.execution.emitter import Emitter
from runtime.execution.interpreter import describe_op, failure_message
from runtime.execution.schedule import function_ops, missing_feed_error, ops_to_run
from runtime.execution.sources import register_source
from runtime.ops.registry import kernel_error

__all__ = [
    "Program",
    "compile_graph",
    "compile_function",
    "describe_op",
    "ops_to_run",
    "missing_feed_error",
]

_program_ids = itertools.count()


class Program:
    """A compiled graph: call it with the input values; it returns a tuple of output values.

    ``source`` is its text; ``bound_values`` maps the names the source uses for
    constants, attributes, variables and kernels to the values they stand for.
    """

    def __init__(self, source, fn, line_ops, filename, bound_values, body, namer):
        self.source = source
        self.bound_values = bound_values
        self._fn = fn
        self.line_ops = line_ops
        self.filename = filename
        # What runtime.execution.entry needs to write this program as an entry function:
        # (the body's lines, its results' names, its arguments' names, the body's line_ops).
        self.body = body
        self.namer = namer

    def __call__(self, *args):
        token = floating_point.ignore()  # x/0 is inf and log(-1) is nan, as in TensorFlow
        try:
            return self._fn(*args)
        except Exception as error:
            described = describe_error(error, self.filename, self.line_ops)
            if described is None:
                raise
            raise described from error
        finally:
            floating_point.restore(token)

    def __str__(self):
        return self.source.rstrip("\n")

    def __repr__(self):
        return f"<rt.compile.Program {self.filename}>"


def describe_error(error, filename, line_ops):
    """The error a program raises for ``error``, naming the op whose line (in ``filename``,
    through ``line_ops``) failed; None when no op's line failed (raise ``error`` as it is)."""
    if getattr(error, "described", False):  # by a program this one calls (a deep block)
        return None
    op = error.op if isinstance(error, errors.OpError) else None
    op = op or _failing_op(error.__traceback__, filename, line_ops)
    if op is None:
        return None
    failure = kernel_error(error)  # the OpError a kernel's exception means, as eagerly
    return _described(type(failure)(failure_message(failure.message, op), op))


def _described(error):
    error.described = True  # the op is named in the message already
    return error


def _failing_op(tb, filename, line_ops):
    op = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            op = line_ops.get(tb.tb_lineno, op)
        tb = tb.tb_next
    return op


def compile_graph(
    graph,
    inputs,
    outputs,
    run_all_stateful=False,
    name="graph_fn",
    states=None,
    kernels=None,
    *,
    specialize=True,
    reuse=True,
) -> Program:
    """Compiles the part of ``graph`` that computes ``outputs`` from ``inputs``.

    ``outputs`` may hold ops; their result is None. Raises InvalidArgumentError
    naming the placeholder when one is needed but not among ``inputs``.
    ``states`` (a dict) gives the program its own copy of each op's run-time
    state (a random generator), keyed by op: a Session's programs share one.
    ``kernels`` (op -> kernel) replaces those ops' kernels, and writes those ops
    as calls of them (``runtime.xla.observe`` watches so). ``specialize=False`` writes every op as its kernel's call, ignoring the
    rows' forms; ``reuse=False`` never writes into a dead temporary. Both are
    there to check that the program computes the same with and without them.
    """
    emitter = Emitter(states, kernels, specialize=specialize, reuse=reuse)
    emitter.outline = lambda block: compile_graph(  # a block nested deeper than Python allows
        block,
        block.inputs,
        block.outputs,
        run_all_stateful=True,
        name="graph_block",  # not the graph's name, which a loaded file chooses
        states=states,
        kernels=kernels,
        specialize=specialize,
        reuse=reuse,
    )
    with no_cyclic_gc():
        return _compile(emitter, graph, inputs, outputs, run_all_stateful, name)


def _compile(emitter, graph, inputs, outputs, run_all_stateful, name):
    name = emitter.fresh(name)  # so no value of the graph can take the function's name
    env = {}
    arg_names = []
    for t in inputs:
        arg = emitter.value_name(t)
        env[id(t)] = arg
        arg_names.append(arg)
    emitter.emit(0, f"def {name}({', '.join(arg_names)}):")
    if run_all_stateful and _whole_function(graph, inputs, outputs):
        ops = function_ops(graph)
    else:
        ops = ops_to_run(graph, outputs, set(env), run_all_stateful)
    for op in ops:
        if op.opdef is PLACEHOLDER and not all(id(t) in env for t in op.outputs):
            raise missing_feed_error(op)
    emitter.emit_ops(ops, env, 1, [t for t in outputs if hasattr(t, "value_index")])
    results = ["None" if not hasattr(t, "value_index") else env[id(t)] for t in outputs]
    body = (emitter.lines[1:], results, arg_names, dict(emitter.line_ops))
    emitter.emit(1, f"return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    source = "\n".join(emitter.lines) + "\n"
    filename = new_filename()
    function = load(source, emitter.namespace, filename, name)
    return Program(
        source, function, emitter.line_ops, filename, emitter.namespace, body, emitter.namer
    )


def _whole_function(graph, inputs, outputs):
    """Whether ``inputs`` and ``outputs`` are those of ``graph``, a function graph."""
    own_inputs, own_outputs = getattr(graph, "inputs", None), getattr(graph, "outputs", None)
    return (
        own_inputs is not None
        and len(inputs) == len(own_inputs)
        and len(outputs) == len(own_outputs)
        and all(a is b for a, b in zip(inputs, own_inputs))
        and all(a is b for a, b in zip(outputs, own_outputs))
    )


def compile_function(func_graph) -> Program:
    """Compiles a FuncGraph (a traced function or sub-graph), cached until the graph changes."""
    cached = getattr(func_graph, "_program", None)
    if cached is not None and cached[0] == func_graph.version:
        return cached[1]
    program = compile_graph(
        func_graph,
        func_graph.inputs,
        func_graph.outputs,
        run_all_stateful=True,
        name="graph_function",  # not the graph's name, which a loaded file chooses
    )
    func_graph._program = (func_graph.version, program)
    return program


def new_filename():
    return f"{tracebacks.COMPILED_GRAPH_FILES}{next(_program_ids)}>"


def load(source, globals_, filename, name):
    """Runs ``source`` (made here, with no text of the graph in it) in a copy of ``globals_``
    and returns its function ``name``, whose lines linecache holds (for tracebacks) while it
    lives."""
    namespace = dict(globals_)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    register_source(filename, source, function)
    return function
