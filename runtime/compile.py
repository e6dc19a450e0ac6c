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
    greater = x > const
    if greater:
        mul = x * const_1
        cond = mul
    else:
        neg = -x
        cond = neg
    return (cond,)
"""

from __future__ import annotations

import builtins
import functools
import itertools
import keyword
import linecache
import re

import numpy as np

from runtime import errors

_program_ids = itertools.count()


class Program:
    """A compiled graph: call it with the input values; it returns a tuple of output values."""

    def __init__(self, source, fn, line_ops, filename):
        self.source = source
        self._fn = fn
        self._line_ops = line_ops
        self._filename = filename

    def __call__(self, *args):
        try:
            with np.errstate(all="ignore"):  # x/0 is inf and log(-1) is nan, as in TensorFlow
                return self._fn(*args)
        except errors.OpError as e:
            op = e.op or self._failing_op(e.__traceback__)
            if op is None:
                raise
            raise type(e)(f"{e.message}\n\t [[node {op.name} ({op.type})]]", op) from e
        except Exception as e:
            op = self._failing_op(e.__traceback__)
            if op is None:
                raise
            raise errors.InvalidArgumentError(
                f"{type(e).__name__}: {e}\n\t [[node {op.name} ({op.type})]]", op
            ) from e

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
    graph, inputs, outputs, run_all_stateful=False, name="graph_fn", states=None
) -> Program:
    """Compiles the part of ``graph`` that computes ``outputs`` from ``inputs``.

    ``outputs`` may hold ops; their result is None. Raises InvalidArgumentError
    naming the placeholder when one is needed but not among ``inputs``.
    ``states`` (a dict) gives the program its own copy of each op's run-time
    state (a random generator), keyed by op: a Session's programs share one.
    """
    emitter = _Emitter(states)
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
    emitter.emit_ops(ops, env, 1)
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


def _identifier(text):
    name = re.sub(r"\W", "_", text).strip("_") or "v"
    if name[0].isdigit():
        name = "v_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _tuple_text(names):
    return ", ".join(names)


class _Emitter:
    def __init__(self, states=None):
        self.states = states
        self.lines = []
        self.namespace = {}
        self.line_ops = {}
        self._used = set(dir(builtins))  # generated names never shadow a builtin
        self._kernels = {}
        self._counters = {}

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

    def kernel_name(self, op):
        attrs = dict(op.attrs)
        if self.states is not None and "state" in attrs:
            state = self.states.get(id(op))
            if state is None:
                state = self.states[id(op)] = attrs["state"].fresh()
            attrs["state"] = state
        if not attrs:
            name = self._kernels.get(op.type)
            if name is None:
                name = self._kernels[op.type] = self.bind_global(op.type, op.opdef.kernel)
            return name, ""
        kernel = functools.partial(op.opdef.kernel, **attrs)
        note = ", ".join(f"{k}={_short(v)}" for k, v in attrs.items())
        return self.bind_global(op.type, kernel), f"  # {note}"

    def emit_ops(self, ops, env, indent):
        start = len(self.lines)
        for op in ops:
            self.emit_op(op, env, indent)
        return len(self.lines) > start

    def emit_op(self, op, env, indent):
        kind = op.type
        if kind == "Const":
            env[id(op.outputs[0])] = self.bind_global(self._base(op), op.attrs["value"])
        elif kind == "VarHandleOp":
            env[id(op.outputs[0])] = self.bind_global(self._base(op), op.attrs["variable"])
        elif kind == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise missing_feed_error(op)
        elif kind == "Identity":
            env[id(op.outputs[0])] = env[id(op.inputs[0])]
        elif kind == "If":
            self.emit_if(op, env, indent)
        elif kind == "While":
            self.emit_while(op, env, indent)
        else:
            self.emit_call(op, env, indent)

    def emit_call(self, op, env, indent):
        infix = _infix(op)
        if infix is not None:
            call, note = infix.format(*(env[id(t)] for t in op.inputs)), ""
        else:
            kernel, note = self.kernel_name(op)
            call = f"{kernel}({', '.join(env[id(t)] for t in op.inputs)})"
        if not op.outputs:
            self.emit(indent, call + note, op)
            return
        names = [self.value_name(t) for t in op.outputs]
        for t, n in zip(op.outputs, names):
            env[id(t)] = n
        target = names[0] if len(names) == 1 else ", ".join(names)
        self.emit(indent, f"{target} = {call}{note}", op)

    def emit_subgraph(self, graph, input_exprs, indent):
        """Inlines ``graph`` with its inputs bound to ``input_exprs``; returns its output exprs."""
        env = {id(ph): expr for ph, expr in zip(graph.inputs, input_exprs)}
        ops = ops_to_run(graph, graph.outputs, set(env), run_all_stateful=True)
        self.emit_ops(ops, env, indent)
        return [env[id(t)] for t in graph.outputs]

    def emit_if(self, op, env, indent):
        then_graph, else_graph = op.attrs["then_graph"], op.attrs["else_graph"]
        args = [env[id(t)] for t in op.inputs[1:]]
        outs = [self.value_name(t) for t in op.outputs]
        self.emit(indent, f"if {env[id(op.inputs[0])]}:", op)
        for branch in (then_graph, else_graph):
            if branch is else_graph:
                self.emit(indent, "else:", op)
            start = len(self.lines)
            results = self.emit_subgraph(branch, args, indent + 1)
            if outs:
                self.emit(indent + 1, f"{_tuple_text(outs)} = {_tuple_text(results)}", op)
            if len(self.lines) == start:
                self.emit(indent + 1, "pass")
        for t, n in zip(op.outputs, outs):
            env[id(t)] = n

    def emit_while(self, op, env, indent):
        n = op.attrs["num_loop_vars"]
        cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
        inputs = [env[id(t)] for t in op.inputs]
        has_max = op.attrs["has_maximum_iterations"]
        captured = inputs[n:-1] if has_max else inputs[n:]
        loop_vars = [self.value_name(t) for t in op.outputs]
        self.emit(indent, f"{_tuple_text(loop_vars)} = {_tuple_text(inputs[:n])}", op)
        if has_max:
            counter = self.fresh(f"{self._base(op)}_iterations")
            self.emit(indent, f"{counter} = 0", op)
        self.emit(indent, "while True:", op)
        if has_max:
            self.emit(indent + 1, f"if {counter} >= {inputs[-1]}:", op)
            self.emit(indent + 2, "break")
        (pred,) = self.emit_subgraph(cond_graph, loop_vars + captured, indent + 1)
        self.emit(indent + 1, f"if not {pred}:", op)
        self.emit(indent + 2, "break")
        results = self.emit_subgraph(body_graph, loop_vars + captured, indent + 1)
        self.emit(indent + 1, f"{_tuple_text(loop_vars)} = {_tuple_text(results)}", op)
        if has_max:
            self.emit(indent + 1, f"{counter} += 1", op)
        for t, name in zip(op.outputs, loop_vars):
            env[id(t)] = name

    def build(self, name) -> Program:
        source = "\n".join(self.lines) + "\n"
        filename = f"<rt-graph-{next(_program_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        namespace = dict(self.namespace)
        exec(code, namespace)  # the source is generated here from the graph, never read from a file
        return Program(source, namespace[name], self.line_ops, filename)


# Ops whose kernel is a numpy ufunc with an operator of the same meaning: on numpy values
# (which every value of a compiled graph is) the operator calls that ufunc directly, with the
# same dtype rules, and skips a Python call. Only for numeric (or bool) inputs: strings keep
# their kernels.
_INFIX = {
    "Add": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}", "RealDiv": "{0} / {1}",
    "Less": "{0} < {1}", "LessEqual": "{0} <= {1}", "Greater": "{0} > {1}",
    "GreaterEqual": "{0} >= {1}", "Equal": "{0} == {1}", "NotEqual": "{0} != {1}",
    "Neg": "-{0}", "Abs": "abs({0})",
}  # fmt: skip
_BOOL_INFIX = {"LogicalAnd": "{0} & {1}", "LogicalOr": "{0} | {1}", "LogicalNot": "~{0}",
               "LogicalXor": "{0} ^ {1}"}  # fmt: skip
_FLOAT_INFIX = {"FloorDiv": "{0} // {1}", "FloorMod": "{0} % {1}", "Pow": "{0} ** {1}"}


def _subscript(spec):
    """``x[...]`` for an index spec: ints, slices, None, ``...``, and ("t", k) for input k+1."""

    def part(v):
        if isinstance(v, tuple):
            return "{" + str(v[1] + 1) + "}"
        return "" if v is None else repr(v)

    parts = []
    for k in spec:
        if k is Ellipsis:
            parts.append("...")
        elif k is None:
            parts.append("None")
        elif isinstance(k, slice):
            text = f"{part(k.start)}:{part(k.stop)}"
            parts.append(text + (f":{part(k.step)}" if k.step is not None else ""))
        else:
            parts.append(part(k))
    return "{0}[" + ", ".join(parts) + ("," if len(parts) == 1 and parts[0] == "..." else "") + "]"


def _infix(op):
    """An operator expression for ``op``, where it means exactly what its kernel does."""
    if op.type == "StridedSlice":
        return _subscript(op.attrs["spec"])  # numpy indexing is what the kernel does
    if op.attrs or not op.inputs:
        return None
    dtype = op.inputs[0].dtype
    if op.type in _BOOL_INFIX:
        return _BOOL_INFIX[op.type] if dtype.is_bool else None
    if op.type in _FLOAT_INFIX:
        # Integer // and % by zero must raise, as the kernel makes them: only floats here,
        # or integers by a constant known not to be zero.
        divisor = op.inputs[1].op
        safe = divisor.type == "Const" and bool(np.all(divisor.attrs["value"] != 0))
        return _FLOAT_INFIX[op.type] if dtype.is_floating or (safe and op.type != "Pow") else None
    if op.type in _INFIX and (dtype.is_numeric or dtype.is_bool):
        return _INFIX[op.type]
    return None


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
