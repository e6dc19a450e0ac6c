"""Compiling a graph to straight-line Python over numpy kernels.

Each op becomes one line ``outputs = kernel(inputs)``, or a Python operator
where the kernel is a numpy ufunc with that meaning (``x + y`` on numpy values
is ``np.add``, without a Python call in between); a cond becomes a native
``if``/``else`` and a while loop a native ``while``, with their sub-graphs
inlined, so running a loop costs no per-iteration call chain. The source is
what runs, and what ``print(program)`` shows.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.float32, [], name="x")
...     y = rt.cond(x > 0, lambda: x * 2.0, lambda: -x)
>>> print(compile_graph(g, [x], [y]))
def graph_fn(x):
    if x > const:
        cond = x * const_1
    else:
        cond = -x
    return (cond,)

A scalar value used once is written into the expression that uses it, as above.

No text from the graph reaches the source: names are made here from a safe
alphabet (ASCII letters, digits and ``_``), constants and attributes are bound
as values of the function's globals under such names, and an index's ints are
written by the compiler from checked ints. So a graph, whatever its names and
attributes hold (one loaded from an untrusted file, say), cannot add code.
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import linecache
import re

import numpy as np

from runtime import errors
from runtime.core import floating_point

_program_ids = itertools.count()


class Program:
    """A compiled graph: call it with the input values; it returns a tuple of output values.

    ``source`` is its text; ``bound_values`` maps the names the source uses for
    constants, attributes, variables and kernels to the values they stand for.
    """

    def __init__(self, source, fn, line_ops, filename, bound_values):
        self.source = source
        self.bound_values = bound_values
        self._fn = fn
        self._line_ops = line_ops
        self._filename = filename

    def __call__(self, *args):
        token = floating_point.ignore()  # x/0 is inf and log(-1) is nan, as in TensorFlow
        try:
            return self._fn(*args)
        except errors.OpError as e:
            op = e.op or self._failing_op(e.__traceback__)
            if op is None or getattr(e, "described", False):  # by a program this one calls
                raise
            raise _described(type(e)(f"{e.message}\n\t [[{describe_op(op)}]]", op)) from e
        except Exception as e:
            op = self._failing_op(e.__traceback__)
            if op is None:
                raise
            raise _described(
                errors.InvalidArgumentError(
                    f"{type(e).__name__}: {e}\n\t [[{describe_op(op)}]]", op
                )
            ) from e
        finally:
            floating_point.restore(token)

    def _failing_op(self, tb):
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                op = self._line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        return op

    def __str__(self):
        return self.source.rstrip("\n")

    def __repr__(self):
        return f"<rt.compile.Program {self._filename}>"


def _described(error):
    error.described = True  # the op is named in the message already
    return error


def describe_op(op):
    """``node add (Add) defined at File "model.py", line 3, in f``: the op and its user's line."""
    where = op.source
    return f"node {op.name} ({op.type})" + (f" defined at {where}" if where else "")


def ops_to_run(graph, targets, fed_ids, run_all_stateful):
    """The ops of ``graph`` that ``targets`` (tensors or ops) need, in creation order.

    Traversal stops at fed tensors. With ``run_all_stateful`` (function
    graphs), every stateful op runs too, whether or not anything uses it.
    """
    stack = [
        t if not hasattr(t, "value_index") else t.op
        for t in targets
        if not (hasattr(t, "value_index") and id(t) in fed_ids)
    ]
    if run_all_stateful:
        stack.extend(op for op in graph._ops if op.stateful)
    needed = set()
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs if id(t) not in fed_ids)
        stack.extend(op.control_inputs)
    return [op for op in graph._ops if id(op) in needed]


def missing_feed_error(op):
    shape = op.attrs["shape"]
    dims = ",".join("?" if d is None else str(d) for d in shape.as_tuple() or ())
    shape_text = f" and shape [{dims}]" if shape.rank else ""
    return errors.InvalidArgumentError(
        f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{op.attrs['dtype'].name}{shape_text}",
        op,
    )


def compile_graph(
    graph, inputs, outputs, run_all_stateful=False, name="graph_fn", states=None, kernels=None
) -> Program:
    """Compiles the part of ``graph`` that computes ``outputs`` from ``inputs``.

    ``outputs`` may hold ops; their result is None. Raises InvalidArgumentError
    naming the placeholder when one is needed but not among ``inputs``.
    ``states`` (a dict) gives the program its own copy of each op's run-time
    state (a random generator), keyed by op: a Session's programs share one.
    ``kernels`` (op -> kernel) replaces those ops' kernels (``runtime.xla.observe`` watches so).
    """
    emitter = _Emitter(states, kernels)
    name = emitter.fresh(name)  # so no value of the graph can take the function's name
    env = {}
    arg_names = []
    for t in inputs:
        arg = emitter.value_name(t)
        env[id(t)] = arg
        arg_names.append(arg)
    emitter.emit(0, f"def {name}({', '.join(arg_names)}):")
    ops = ops_to_run(graph, outputs, set(env), run_all_stateful)
    for op in ops:
        if op.type == "Placeholder" and not all(id(t) in env for t in op.outputs):
            raise missing_feed_error(op)
    emitter.emit_ops(ops, env, 1, [t for t in outputs if hasattr(t, "value_index")])
    results = ["None" if not hasattr(t, "value_index") else env[id(t)] for t in outputs]
    emitter.emit(1, f"return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    return emitter.build(name)


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
        name=_identifier(func_graph.graph_name),
    )
    func_graph._program = (func_graph.version, program)
    return program


_NOT_NAME_CHARACTER = re.compile(r"[^A-Za-z0-9_]")
_MAX_NAME_LENGTH = 40


def _identifier(text):
    """A name made from ``text`` with ASCII letters, digits and ``_`` only (Unicode names could
    merge under Python's NFKC normalisation); never starting with ``_``, never a keyword."""
    name = _NOT_NAME_CHARACTER.sub("_", str(text)).strip("_")[:_MAX_NAME_LENGTH] or "v"
    if name[0].isdigit():
        name = "v_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _tuple_text(names):
    return ", ".join(names)


class _Emitter:
    def __init__(self, states=None, kernels=None):
        self.states, self.kernels = states, kernels or {}  # kernels: see compile_graph
        self.lines = []
        self.namespace = {}
        self.line_ops = {}
        self._used = set(dir(builtins))  # generated names never shadow a builtin
        self._kernels = {}
        self._counters = {}
        self._inlined = {}  # id(tensor) -> "expr" or "test": written into its one consumer
        self._precedence = {}  # id(inlined tensor) -> the precedence of its text
        self._inlined_size = {}  # id(inlined tensor) -> how many ops its text holds

    def fresh(self, hint):
        base = _identifier(hint)
        i = self._counters.get(base, 0)  # continue where this base left off: linear in the ops
        name = base if i == 0 else f"{base}_{i}"
        while name in self._used or keyword.iskeyword(name):
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        self._counters[base] = i + 1
        return name

    def emit(self, indent, text, op=None):
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    def value_name(self, t):
        """A fresh local name for tensor ``t``, from its op's name (lower case, unlike kernels)."""
        op = t.op
        base = self._base(op)
        return self.fresh(f"{base}_{t.value_index}" if len(op.outputs) > 1 else base)

    @staticmethod
    def _base(op):
        return re.sub(r"_\d+$", "", op.name).lower()  # "add_3" -> "add": fresh() renumbers

    def bind_global(self, hint, value):
        name = self.fresh(hint)
        self.namespace[name] = value
        return name

    def numpy_type_name(self, dtype):
        """The global naming numpy's scalar type for ``dtype`` (``float32``), bound once."""
        key = ("type", dtype)
        name = self._kernels.get(key)
        if name is None:
            name = self._kernels[key] = self.bind_global(dtype.name, dtype.as_numpy_dtype)
        return name

    def kernel_call(self, op, arguments):
        """``Kernel(arguments, attr=value_name, ...)``: each attribute is bound as a global.

        The keywords are the names the op's row declares, never text of the graph.
        """
        declared = op.opdef.attrs
        if op.attrs.keys() != declared.keys():
            raise ValueError(f"op {op.name!r} ({op.type}) has attributes its row does not declare")
        kernel = self.kernels.get(op, op.opdef.kernel)  # another one: xla.observe watching
        name = self._kernels.get(kernel)
        if name is None:
            name = self._kernels[kernel] = self.bind_global(op.type, kernel)
        keywords = []
        for key in declared:
            value = op.attrs[key]
            if key == "state" and self.states is not None:
                state = self.states.get(id(op))
                if state is None:
                    state = self.states[id(op)] = value.fresh()
                value = state
            keywords.append(f"{key}={self.bind_global(key, value)}")
        return f"{name}({', '.join([*arguments, *keywords])})"

    def emit_ops(self, ops, env, indent, outputs=(), tests=()):
        """Emits ``ops``, a block whose results are ``outputs`` and ``tests`` (an if/while test)."""
        self._plan_inlining(ops, outputs, tests)
        for op in ops:
            self.emit_op(op, env, indent)

    def _plan_inlining(self, ops, outputs, tests):
        """Marks the scalar values of this block that are written into their one consumer.

        ``y = a + b; z = y * c`` becomes ``z = (a + b) * c``: a store and a load
        fewer, and in a test, Python's ``not``/``and``/``or`` instead of numpy's
        ``~``/``&``/``|``. Only pure operators on scalars are inlined: they cannot
        raise, so deferring one to its consumer's line changes nothing.
        """
        consumers = {}
        for op in ops:
            for position, t in enumerate(op.inputs):
                consumers.setdefault(id(t), []).append((op, position))
        for t in outputs:
            consumers.setdefault(id(t), []).append((None, "output"))
        for t in tests:
            consumers.setdefault(id(t), []).append((None, "test"))
        for op in reversed(ops):  # a consumer is decided before the values it reads
            if len(op.outputs) != 1 or not _inlinable(op) or op in self.kernels:
                continue
            uses = consumers.get(id(op.outputs[0]), ())
            if len(uses) != 1:
                continue
            consumer, position = uses[0]
            if consumer is None:
                in_test = position == "test"
            elif consumer.type == "If" and position == 0:
                in_test = True
            elif consumer.outputs and _operator(consumer) is not None:
                in_test = self._inlined.get(id(consumer.outputs[0])) == "test"
            else:
                continue  # a kernel's argument, or a value a sub-graph reads: keep the name
            test = in_test and op.type in _TEST_OPERATORS
            self._inlined[id(op.outputs[0])] = "test" if test else "expr"

    def _operand(self, t, env):
        return env[id(t)], self._precedence.get(id(t), _ATOM)

    def emit_op(self, op, env, indent):
        kind = op.type
        if kind == "Const":
            env[id(op.outputs[0])] = self.bind_global(self._base(op), op.attrs["value"])
        elif kind == "VarHandleOp":
            env[id(op.outputs[0])] = self.bind_global(self._base(op), op.attrs["variable"])
        elif kind == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise missing_feed_error(op)
        elif kind == "Identity" or kind == "StopGradient":
            env[id(op.outputs[0])] = env[id(op.inputs[0])]
        elif kind == "If":
            self.emit_if(op, env, indent)
        elif kind == "While":
            self.emit_while(op, env, indent)
        else:
            self.emit_call(op, env, indent)

    def emit_call(self, op, env, indent):
        form = None if op in self.kernels else _operator(op)
        mode = self._inlined.get(id(op.outputs[0])) if op.outputs else None
        if mode == "test":
            form = ("unary" if op.type == "LogicalNot" else "binary", _TEST_OPERATORS[op.type])
        elif form is not None and form[0] == "cast":
            form = ("call", self.numpy_type_name(form[1]))
        elif form is not None and form[0] == "subscript":
            form = ("subscript", self.subscript_parts(form[1]))
        if form is not None:
            call, precedence = _expression(form, [self._operand(t, env) for t in op.inputs])
            size = 1 + sum(self._inlined_size.get(id(t), 0) for t in op.inputs)
            if mode is not None and size <= _MAX_INLINED_OPS and len(call) <= _MAX_INLINED_CHARS:
                env[id(op.outputs[0])] = call
                self._precedence[id(op.outputs[0])] = precedence
                self._inlined_size[id(op.outputs[0])] = size
                return
        else:
            call = self.kernel_call(op, [env[id(t)] for t in op.inputs])
        if not op.outputs:
            self.emit(indent, call, op)
            return
        names = [self.value_name(t) for t in op.outputs]
        for t, n in zip(op.outputs, names):
            env[id(t)] = n
        target = names[0] if len(names) == 1 else ", ".join(names)
        self.emit(indent, f"{target} = {call}", op)

    def subscript_parts(self, spec):
        """An index spec as the parts of a subscript: text, or ("input", k) for input k + 1.

        An int is written as its digits, by the compiler; anything else the spec
        holds is bound as a global.
        """

        def bound(v):
            if v is None:
                return ""
            if type(v) is tuple:
                return ("input", v[1])
            if type(v) is int and abs(v) < _LITERAL_INT_LIMIT:
                return str(v)
            return self.bind_global("index", v)

        parts = []
        for k in spec:
            if k is Ellipsis:
                parts.append(["..."])
            elif k is None:
                parts.append(["None"])
            elif type(k) is slice:
                part = [bound(k.start), ":", bound(k.stop)]
                parts.append(part + ([":", bound(k.step)] if k.step is not None else []))
            else:
                parts.append([bound(k)])
        return parts

    def emit_subgraph(self, graph, input_exprs, indent, is_test=False):
        """Inlines ``graph`` with its inputs bound to ``input_exprs``; returns its outputs.

        Each output is ``(text, precedence)``. ``is_test``: the one output is a while loop's test.
        """
        env = {id(ph): expr for ph, expr in zip(graph.inputs, input_exprs)}
        ops = ops_to_run(graph, graph.outputs, set(env), run_all_stateful=True)
        outputs, tests = ((), graph.outputs) if is_test else (graph.outputs, ())
        self.emit_ops(ops, env, indent, outputs, tests)
        return [self._operand(t, env) for t in graph.outputs]

    def emit_if(self, op, env, indent):
        then_graph, else_graph = op.attrs["then_graph"], op.attrs["else_graph"]
        args = [env[id(t)] for t in op.inputs[1:]]
        outs = [self.value_name(t) for t in op.outputs]
        self.emit(indent, f"if {env[id(op.inputs[0])]}:", op)
        for branch in (then_graph, else_graph):
            if branch is else_graph:
                self.emit(indent, "else:", op)
            start = len(self.lines)
            if indent >= _MAX_NESTING:  # a program of its own: Python limits how deep blocks nest
                call = f"{self._outlined(branch)}({_tuple_text(args)})"
                self.emit(indent + 1, f"({_tuple_text(outs)},) = {call}" if outs else call, op)
                continue
            results = [text for text, _ in self.emit_subgraph(branch, args, indent + 1)]
            if outs:
                self.emit(indent + 1, f"{_tuple_text(outs)} = {_tuple_text(results)}", op)
            if len(self.lines) == start:
                self.emit(indent + 1, "pass")
        for t, n in zip(op.outputs, outs):
            env[id(t)] = n

    def _outlined(self, graph):
        """The name of ``graph`` compiled as a program of its own (inputs in, outputs out)."""
        program = compile_graph(
            graph,
            graph.inputs,
            graph.outputs,
            run_all_stateful=True,
            name=_identifier(graph.graph_name),
            states=self.states,
        )
        return self.bind_global(f"{graph.graph_name}_program", program)

    def emit_while(self, op, env, indent):
        """A native ``while``. A loop being differentiated (attr ``stacked``) also counts its
        iterations and appends the body's extra outputs to lists: its extra outputs."""
        n = op.attrs["num_loop_vars"]
        cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
        inputs = [env[id(t)] for t in op.inputs]
        has_max = op.attrs["has_maximum_iterations"]
        stacked = op.attrs["stacked"]
        captured = inputs[n:-1] if has_max else inputs[n:]
        loop_vars = [self.value_name(t) for t in op.outputs[:n]]
        self.emit(indent, f"{_tuple_text(loop_vars)} = {_tuple_text(inputs[:n])}", op)
        counts = has_max or stacked is not None
        if counts:
            counter = self.fresh(f"{self._base(op)}_iterations")
            self.emit(indent, f"{counter} = 0", op)
        stacks = [self.value_name(t) for t in op.outputs[n + 1 :]] if stacked is not None else []
        for stack in stacks:
            self.emit(indent, f"{stack} = []", op)
        self.emit(indent, "while True:", op)
        header = len(self.lines) - 1
        if has_max:
            self.emit(indent + 1, f"if {counter} >= {inputs[-1]}:", op)
            self.emit(indent + 2, "break")
        (pred,) = self.emit_subgraph(cond_graph, loop_vars + captured, indent + 1, is_test=True)
        if len(self.lines) == header + 1:  # the test is one expression: it heads the loop
            self.lines[header] = "    " * indent + f"while {pred[0]}:"
        else:
            self.emit(indent + 1, f"if {_expression(('unary', 'not'), [pred])[0]}:", op)
            self.emit(indent + 2, "break")
        if indent >= _MAX_NESTING:  # a program of its own: Python limits how deep blocks nest
            results = loop_vars + [self.fresh(f"{stack}_item") for stack in stacks]
            call = f"{self._outlined(body_graph)}({_tuple_text(loop_vars + captured)})"
            self.emit(indent + 1, f"({_tuple_text(results)},) = {call}", op)
        else:
            results = [
                text for text, _ in self.emit_subgraph(body_graph, loop_vars + captured, indent + 1)
            ]
        for stack, value in zip(stacks, results[n:]):
            self.emit(indent + 1, f"{stack}.append({value})", op)
        if indent < _MAX_NESTING:
            self.emit(indent + 1, f"{_tuple_text(loop_vars)} = {_tuple_text(results[:n])}", op)
        if counts:
            self.emit(indent + 1, f"{counter} += 1", op)
        for t, name in zip(op.outputs, loop_vars):
            env[id(t)] = name
        if stacked is not None:
            iterations = self.value_name(op.outputs[n])
            self.emit(
                indent, f"{iterations} = {self.numpy_type_name(op.outputs[n].dtype)}({counter})"
            )
            env[id(op.outputs[n])] = iterations
            for t, stack in zip(op.outputs[n + 1 :], stacks):
                env[id(t)] = stack

    def build(self, name) -> Program:
        source = "\n".join(self.lines) + "\n"
        filename = f"<rt-graph-{next(_program_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        namespace = dict(self.namespace)
        exec(
            code, namespace
        )  # made here, with no text of the graph in it: see the module docstring
        return Program(source, namespace[name], self.line_ops, filename, dict(self.namespace))


# Ops whose kernel is a numpy ufunc with an operator of the same meaning: on numpy values
# (which every value of a compiled graph is) the operator calls that ufunc directly, with the
# same dtype rules, and skips a Python call. Only for numeric (or bool) inputs: strings keep
# their kernels.
_BINARY = {
    "Add": "+", "Sub": "-", "Mul": "*", "RealDiv": "/",
    "Less": "<", "LessEqual": "<=", "Greater": ">", "GreaterEqual": ">=",
    "Equal": "==", "NotEqual": "!=",
}  # fmt: skip
_BOOL_BINARY = {"LogicalAnd": "&", "LogicalOr": "|", "LogicalXor": "^"}
_FLOAT_BINARY = {"FloorDiv": "//", "FloorMod": "%", "Pow": "**"}
# In a test (``if``/``while``) a scalar bool needs no numpy op: Python's own are faster.
_TEST_OPERATORS = {"LogicalAnd": "and", "LogicalOr": "or", "LogicalNot": "not"}

# Python's operator precedence, to print an inlined operand without needless parentheses.
_PRECEDENCE = {
    "or": 1, "and": 2, "not": 3,
    "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4,
    "|": 5, "^": 6, "&": 7, "+": 9, "-": 9, "*": 10, "/": 10, "//": 10, "%": 10,
    "unary": 11, "**": 12,
}  # fmt: skip
_ATOM = 13
# An expression grows by inlining only up to here, then is named: lines stay readable, and
# Python's parser has a limit on nesting.
_MAX_INLINED_OPS = 6
# Deeper than this, a branch or loop body is compiled as a program of its own and called:
# Python allows only so many levels of indentation (and 20 nested loops).
_MAX_NESTING = 12
_MAX_INLINED_CHARS = 80


# An int of an index is written as digits below this; a larger one is bound as a global.
_LITERAL_INT_LIMIT = 1 << 63


def _subscript_text(base, parts, dynamic):
    """``base[...]`` from ``subscript_parts``, with ``dynamic`` the texts of the index inputs."""
    items = [
        "".join(dynamic[piece[1]] if type(piece) is tuple else piece for piece in part)
        for part in parts
    ]
    trailing = "," if items == ["..."] else ""  # x[...,] is x[(...,)], as the kernel indexes
    return f"{base}[{', '.join(items)}{trailing}]"


def _operator(op):
    """How ``op`` prints as a Python operator, where one means exactly what its kernel does.

    ``("binary", "+")``, ``("unary", "-")``, ``("call", "abs")``, ``("subscript", spec)``,
    ``("cast", dtype)``, or None for a kernel call.
    """
    if op.type == "StridedSlice":
        return "subscript", op.attrs["spec"]  # numpy indexing is what the kernel does
    if op.type == "Cast" and op.inputs[0].shape.rank == 0:
        # On a scalar, numpy's type is the cast: np.float32(x) is x.astype(np.float32).
        source, target = op.inputs[0].dtype, op.attrs["dtype"]
        if (source.is_numeric or source.is_bool) and (target.is_numeric or target.is_bool):
            return "cast", target
        return None
    if op.attrs or not op.inputs:
        return None
    dtype = op.inputs[0].dtype
    if op.type in _BOOL_BINARY:
        return ("binary", _BOOL_BINARY[op.type]) if dtype.is_bool else None
    if op.type == "LogicalNot":
        return ("unary", "~") if dtype.is_bool else None
    if not (dtype.is_numeric or dtype.is_bool):
        return None
    if op.type in _FLOAT_BINARY:
        # Integer // and % by zero must raise, as the kernel makes them: only floats here,
        # or integers by a constant known not to be zero.
        divisor = op.inputs[1].op
        safe = divisor.type == "Const" and bool(np.all(divisor.attrs["value"] != 0))
        if dtype.is_floating or (safe and op.type != "Pow"):
            return "binary", _FLOAT_BINARY[op.type]
        return None
    if op.type in _BINARY:
        return "binary", _BINARY[op.type]
    if op.type == "Neg":
        return "unary", "-"
    if op.type == "Abs":
        return "call", "abs"
    return None


def _inlinable(op) -> bool:
    """A pure operator on scalars: it cannot fail (no broadcasting, no index out of range)."""
    form = _operator(op)
    return (
        form is not None
        and form[0] != "subscript"
        and op.outputs[0].shape.rank == 0
        and all(t.shape.rank == 0 for t in op.inputs)
    )


def _wrap(operand, needs_parentheses):
    return f"({operand[0]})" if needs_parentheses else operand[0]


def _expression(form, operands):
    """The text and precedence of ``form`` (from ``_operator``) applied to ``operands``.

    Each operand is ``(text, precedence)``; an inlined one is parenthesised only
    where Python would otherwise read it differently.
    """
    kind, symbol = form
    if kind == "subscript":
        base = _wrap(operands[0], operands[0][1] < _ATOM)
        return _subscript_text(base, symbol, [text for text, _ in operands[1:]]), _ATOM
    if kind == "call":
        return f"{symbol}({operands[0][0]})", _ATOM
    if kind == "unary":
        precedence = _PRECEDENCE["not"] if symbol == "not" else _PRECEDENCE["unary"]
        separator = " " if symbol == "not" else ""
        return f"{symbol}{separator}{_wrap(operands[0], operands[0][1] < precedence)}", precedence
    precedence = _PRECEDENCE[symbol]
    left, right = operands
    # ``(a < b) == c`` is not the chain ``a < b == c``; ``(a ** b) ** c`` is not ``a ** b ** c``.
    left_tight = precedence in (_PRECEDENCE["<"], _PRECEDENCE["**"])
    left_text = _wrap(left, left[1] < precedence or (left_tight and left[1] == precedence))
    right_text = _wrap(right, right[1] <= precedence)
    return f"{left_text} {symbol} {right_text}", precedence
