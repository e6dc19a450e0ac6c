"""Writing a graph's ops as lines of Python: the compiler's emitter (``runtime.execution.compile``).

An op is written as its row's form (``runtime.core.forms``: an operator, a
method, a subscript) or as a call of its row's kernel; a cond is a native
``if``/``else`` and a while loop a native ``while`` with its sub-graphs
inlined. Two plans are made for each block before it is written:

- inlining: a scalar used once is written into the expression that uses it
  (``z = (a + b) * c``), and a scalar bool an ``if`` or ``while`` tests uses
  Python's ``not``/``and``/``or``;
- reuse (``runtime.execution.reuse``): an elementwise op whose operand is a
  large temporary nothing reads afterwards writes its result into it
  (``add(acc, mul, out=mul)``), as numpy does with its own temporaries.

Names are made here from a safe alphabet; constants, attributes and kernels
are bound as values of the function's globals.
"""

from __future__ import annotations

import builtins
import keyword
import re

from runtime.core.forms import Bound, Call, Form, Input, Method, name_hint
from runtime.core.graph import PLACEHOLDER
from runtime.execution import int_counters, reuse
from runtime.execution.expressions import ATOM, operator_text, render
from runtime.execution.interpreter import CONTROL_FLOW_RULES, Interpreter, note_op
from runtime.execution.schedule import function_ops, missing_feed_error
from runtime.ops.control_flow_ops import IF

_NOT_NAME_CHARACTER = re.compile(r"[^A-Za-z0-9_]")
_MAX_NAME_LENGTH = 40

# An expression grows by inlining only up to here, then is named: lines stay readable, and
# Python's parser has a limit on nesting.
_MAX_INLINED_OPS = 6
_MAX_INLINED_CHARS = 80
# Python allows 100 levels of indentation (and 20 nested loops): a cond's branch or a loop's
# body this deep is a program of its own, which the block calls.
_MAX_NESTING = 12


def identifier(text):
    """A name made from ``text`` with ASCII letters, digits and ``_`` only (Unicode names could
    merge under Python's NFKC normalisation); never starting with ``_``, never a keyword."""
    name = _NOT_NAME_CHARACTER.sub("_", str(text)).strip("_")[:_MAX_NAME_LENGTH] or "v"
    if name[0].isdigit():
        name = "v_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _tuple_text(names):
    return ", ".join(names)


class ModuleNamer:
    """The one owner of a generated module's names: each is unique, made of ASCII letters,
    digits and ``_``, never a keyword, never a builtin's name."""

    def __init__(self):
        self._used = set(dir(builtins))  # generated names never shadow a builtin
        self._counters = {}

    def fresh(self, hint):
        base = identifier(hint)
        i = self._counters.get(base, 0)  # continue where this base left off: linear in the ops
        name = base if i == 0 else f"{base}_{i}"
        while name in self._used or keyword.iskeyword(name):
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        self._counters[base] = i + 1
        return name


class Emitter(Interpreter):
    """Lines of one generated module, the globals they read, and the op each line runs.

    A walk (``runtime.execution.interpreter``) whose values are Python text: each
    rule, ``rule(emitter, op, inputs)``, gets its inputs' text, writes the op's
    lines at ``emitter.indent`` and returns its outputs' text (a name, or an
    expression written into the one line using it).
    """

    def __init__(self, states=None, kernels=None, specialize=True, reuse=True):
        self.states = states
        self.kernels = kernels or {}  # op -> the kernel that replaces its row's (a call, no form)
        self.specialize = specialize  # write the rows' forms (else every op is a kernel call)
        self.reuse = reuse and specialize  # write into dead temporaries
        self.lines = []
        self.namespace = {}
        self.line_ops = {}
        self.indent = 0  # of the block being written
        self.namer = ModuleNamer()
        self.fresh = self.namer.fresh
        self._shared = {}  # id(value) -> its global name: kernels, types, ufuncs, bound once
        self._forms = {}  # id(op) -> its Form, or None for a kernel call
        self._inlined = {}  # id(tensor) -> "expr" or "test": written into its one consumer
        self._precedence = {}  # id(inlined tensor) -> the precedence of its text
        self._inlined_size = {}  # id(inlined tensor) -> how many ops its text holds
        self._reused = {}  # id(op) -> which of its inputs is a dead temporary to write into
        self.outline = None  # graph -> a Program of its own (compile.py sets it)
        # Loop counters carried as Python ints (runtime.execution.int_counters): range-checked
        # arithmetic, constants written as int literals, writes of int values.
        self._checked, self._literals, self._int_writes = set(), {}, set()

    # --- names and globals ----------------------------------------------------------------

    def emit(self, indent, text, op=None):
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    def value_name(self, t):
        """A fresh local name for tensor ``t``, from its op's type (lower case, unlike kernels)."""
        op = t.op
        base = name_hint(op)
        return self.fresh(f"{base}_{t.value_index}" if len(op.outputs) > 1 else base)

    def bind_global(self, hint, value):
        name = self.fresh(hint)
        self.namespace[name] = value
        return name

    def bind(self, bound):
        """The global name of a ``Bound`` value: a builtin by its own name (no generated name
        shadows one), a shared value once for all its uses, anything else under a fresh name."""
        value = bound.value
        if not bound.shared:
            return self.bind_global(bound.hint, value)
        if getattr(builtins, bound.hint, None) is value:
            return bound.hint
        name = self._shared.get(id(value))
        if name is None:
            name = self._shared[id(value)] = self.bind_global(bound.hint, value)
        return name

    def numpy_type_name(self, dtype):
        """The global naming numpy's scalar type for ``dtype`` (``float32``), bound once."""
        return self.bind(Bound(dtype.as_numpy_dtype, dtype.name, shared=True))

    def kernel_call(self, op, arguments):
        """``Kernel(arguments, attr=value_name, ...)``: each attribute is bound as a global.

        The keywords are the names the op's row declares, never text of the graph.
        """
        kernel = self.kernels.get(op, op.opdef.kernel)
        name = self.bind(Bound(kernel, op.type, shared=True))
        keywords = []
        for key in op.opdef.attrs:
            value = op.attrs[key]
            if key == "state" and self.states is not None:
                state = self.states.get(id(op))
                if state is None:
                    state = self.states[id(op)] = value.fresh()
                value = state
            keywords.append(f"{key}={self.bind_global(key, value)}")
        return f"{name}({', '.join([*arguments, *keywords])})"

    # --- blocks -----------------------------------------------------------------------------

    def emit_ops(self, ops, env, indent, outputs=(), tests=()):
        """Emits ``ops``, a block whose results are ``outputs`` and ``tests`` (an if/while test)."""
        forms = self._forms
        for op in ops:
            if op.attrs.keys() != op.opdef.attrs.keys():
                raise ValueError(
                    f"op {op.name!r} ({op.type}) has attributes its row does not declare"
                )
            python_form = op.opdef.python_form
            if not self.specialize or op in self.kernels:
                python_form = None
            forms[id(op)] = python_form(op) if python_form is not None else None
            if id(op) in self._int_writes:
                forms[id(op)] = Form(Method(Input(0), "write_int32", Input(1), Input(2)))
        self._plan_inlining(ops, outputs, tests)
        if self.reuse:
            self._reused.update(reuse.plan(ops, forms, self._inlined, [*outputs, *tests]))
        saved, self.indent = self.indent, indent
        try:
            self.run_ops(ops, env)
        finally:
            self.indent = saved

    def rule_for(self, op):
        """A placeholder not fed raises, If and While have the walks' one rule (their blocks
        are ``branch`` and ``loop``); any other op is written as its form."""
        return _BLOCKS.get(op.opdef, Emitter.emit_form)

    def run_ops(self, ops, env):
        """The walk (``Interpreter.run_ops``) with its layers inlined for the ops written as
        forms: compiling runs once per op on every first call, and the generic loop's calls
        cost a tenth of it. Placeholders, If and While go through ``run_op``."""
        saved, op = self.op, None
        emit_form = self.emit_form
        try:
            for op in ops:
                inputs = [env[id(t)] for t in op.inputs]
                if op.opdef not in _BLOCKS:
                    self.op = op
                    outputs = emit_form(op, inputs)
                elif op.opdef is PLACEHOLDER and all(id(t) in env for t in op.outputs):
                    continue
                else:
                    outputs = self.run_op(op, inputs)
                if len(outputs) == 1:
                    env[id(op.outputs[0])] = outputs[0]
                else:
                    for t, value in zip(op.outputs, outputs):
                        env[id(t)] = value
        except Exception as error:
            note_op(error, op)
            raise
        finally:
            self.op = saved
        return env

    def _plan_inlining(self, ops, outputs, tests):
        """Marks the scalar values of this block that are written into their one consumer.

        ``y = a + b; z = y * c`` becomes ``z = (a + b) * c``: a store and a load
        fewer, and in a test, Python's ``not``/``and``/``or`` instead of numpy's
        ``~``/``&``/``|``. Only inlinable forms on scalars are inlined: they cannot
        raise, so deferring one to its consumer's line changes nothing.
        """
        only_use = {}  # id(tensor) -> (consumer, position) of its one use, or _MANY
        for op in ops:
            for position, t in enumerate(op.inputs):
                key = id(t)
                only_use[key] = _MANY if key in only_use else (op, position)
        for t in outputs:
            only_use[id(t)] = _MANY if id(t) in only_use else (None, "output")
        for t in tests:
            only_use[id(t)] = _MANY if id(t) in only_use else (None, "test")
        forms = self._forms
        for op in reversed(ops):  # a consumer is decided before the values it reads
            form = forms[id(op)]
            if form is None or not form.inlinable or len(op.outputs) != 1 or not _scalar_op(op):
                continue
            use = only_use.get(id(op.outputs[0]), _MANY)
            if use is _MANY:
                continue
            consumer, position = use
            if consumer is None:
                in_test = position == "test"
            elif consumer.opdef is IF and position == 0:
                in_test = True
            elif consumer.outputs and _writes_operands(forms[id(consumer)]):
                in_test = self._inlined.get(id(consumer.outputs[0])) == "test"
            else:
                continue  # a kernel's argument, or a value a sub-graph reads: keep the name
            test = in_test and form.in_test is not None
            self._inlined[id(op.outputs[0])] = "test" if test else "expr"

    def _operand(self, t, env):
        return env[id(t)], self._precedence.get(id(t), ATOM)

    def emit_form(self, op, inputs):
        """``op`` written as its row's form, or as a call of its kernel."""
        form = self._forms.get(id(op))
        if form is not None and type(form.expression) is Input:  # the value itself: Identity
            return [inputs[form.expression.index]]
        if form is not None and type(form.expression) is Bound:  # a constant, a handle
            literal = self._literals.get(id(op.outputs[0]))
            return [literal or self.bind(form.expression)]
        if id(op) in self._checked:
            return self.emit_checked(op, form, inputs)
        return self.emit_call(op, form, inputs)

    def emit_call(self, op, form, inputs):
        out = op.outputs[0] if op.outputs else None
        mode = self._inlined.get(id(out)) if out is not None else None
        if form is None:
            call = self.kernel_call(op, inputs)
        else:
            precedence, size = self._precedence, 1
            operands = []
            for t, text in zip(op.inputs, inputs):
                operands.append((text, precedence.get(id(t), ATOM)))
                size += self._inlined_size.get(id(t), 0)
            target = self._reused.get(id(op))
            if target is not None:  # into a dead temporary: ufunc(args, out=that input)
                ufunc = Bound(form.ufunc, f"np_{form.ufunc.__name__}", shared=True)
                call, _ = render(
                    Call(ufunc, *form.ufunc_args, out=Input(target)), operands, self.bind
                )
            else:
                expression = form.in_test if mode == "test" else form.expression
                call, own = render(expression, operands, self.bind)
                if (
                    mode is not None
                    and size <= _MAX_INLINED_OPS
                    and len(call) <= _MAX_INLINED_CHARS
                ):
                    precedence[id(out)] = own
                    self._inlined_size[id(out)] = size
                    return [call]
        if not op.outputs:
            self.emit(self.indent, call, op)
            return []
        names = [self.value_name(t) for t in op.outputs]
        self.emit(self.indent, f"{_tuple_text(names)} = {call}", op)
        return names

    def emit_checked(self, op, form, inputs):
        """``+``/``-``/``*`` on a loop counter's Python ints: computed again on int32 operands
        where the result leaves int32's range, so it wraps (and warns) as numpy's does."""
        indent = self.indent
        operands = [(text, self._precedence.get(id(t), ATOM)) for t, text in zip(op.inputs, inputs)]
        call, _ = render(form.expression, operands, self.bind)
        int32 = self.numpy_type_name(op.outputs[0].dtype)
        again, _ = render(
            form.expression, [(f"{int32}({text})", ATOM) for text, _ in operands], self.bind
        )
        name = self.value_name(op.outputs[0])
        self.emit(indent, f"{name} = {call}", op)
        bounds = f"{int_counters.INT32_MIN} <= {name} <= {int_counters.INT32_MAX}"
        self.emit(indent, f"if not {bounds}:", op)
        self.emit(indent + 1, f"{name} = {again}", op)
        return [name]

    def emit_subgraph(self, graph, input_exprs, indent, is_test=False):
        """Inlines ``graph`` with its inputs bound to ``input_exprs``; returns its outputs.

        Each output is ``(text, precedence)``. ``is_test``: the one output is a while loop's test.
        """
        env = {id(ph): expr for ph, expr in zip(graph.inputs, input_exprs)}
        ops = function_ops(graph)
        outputs, tests = ((), graph.outputs) if is_test else (graph.outputs, ())
        self.emit_ops(ops, env, indent, outputs, tests)
        return [self._operand(t, env) for t in graph.outputs]

    def emit_placeholder(self, op, inputs):
        raise missing_feed_error(op)  # a fed one holds a value already: it is never walked

    def branch(self, op, cond):
        """If's primitive: a native ``if``/``else`` holding the branches inlined."""
        indent = self.indent
        args = cond.operands
        outs = [self.value_name(t) for t in op.outputs]
        self.emit(indent, f"if {cond.pred}:", op)
        for branch in cond.branches:
            if branch is cond.else_graph:
                self.emit(indent, "else:", op)
            start = len(self.lines)
            if indent >= _MAX_NESTING:
                call = f"{self._outlined(branch)}({_tuple_text(args)})"
                self.emit(indent + 1, f"({_tuple_text(outs)},) = {call}" if outs else call, op)
                continue
            results = [text for text, _ in self.emit_subgraph(branch, args, indent + 1)]
            if outs:
                self.emit(indent + 1, f"{_tuple_text(outs)} = {_tuple_text(results)}", op)
            if len(self.lines) == start:
                self.emit(indent + 1, "pass")
        return outs

    def _outlined(self, graph):
        """The global naming ``graph`` compiled as a program of its own (inputs in, outputs out)."""
        return self.bind_global("block_program", self.outline(graph))

    def loop(self, op, loop):
        """While's primitive: a native ``while``, written as ``interpreter.run_while`` runs a
        loop: the limit, then the test, then the body. A loop being differentiated
        (``stacked``) also counts its iterations and appends the body's extra outputs to lists."""
        indent = self.indent
        n = len(loop.initial)
        loop_vars = [self.value_name(t) for t in op.outputs[:n]]
        ints = None
        if self.specialize and not self.kernels and indent < _MAX_NESTING:
            ints = int_counters.plan(op)
        initial = loop.initial
        if ints is not None:
            self._checked |= ints.checked
            self._literals.update(ints.literals)
            self._int_writes |= ints.int_writes
            initial = [f"int({x})" if k in ints.positions else x for k, x in enumerate(initial)]
        self.emit(indent, f"{_tuple_text(loop_vars)} = {_tuple_text(initial)}", op)
        captured = loop.captured
        cond_captured = list(captured)
        for j in ints.int_captures if ints is not None else ():
            cond_captured[j] = self.fresh(f"{captured[j]}_int")
            self.emit(indent, f"{cond_captured[j]} = int({captured[j]})", op)
        if loop.counts:
            counter = self.fresh(f"{name_hint(op)}_iterations")
            self.emit(indent, f"{counter} = 0", op)
        stacks = (
            [self.value_name(t) for t in op.outputs[n + 1 :]] if loop.stacked is not None else []
        )
        for stack in stacks:
            self.emit(indent, f"{stack} = []", op)
        self.emit(indent, "while True:", op)
        header = len(self.lines) - 1
        if loop.limit is not None:
            self.emit(indent + 1, f"if {counter} >= {loop.limit}:", op)
            self.emit(indent + 2, "break")
        (pred,) = self.emit_subgraph(
            loop.cond_graph, loop_vars + cond_captured, indent + 1, is_test=True
        )
        if len(self.lines) == header + 1:  # the test is one expression: it heads the loop
            self.lines[header] = "    " * indent + f"while {pred[0]}:"
        else:
            self.emit(indent + 1, f"if {operator_text('not', [pred])[0]}:", op)
            self.emit(indent + 2, "break")
        if indent >= _MAX_NESTING:
            results = loop_vars + [self.fresh(f"{stack}_item") for stack in stacks]
            call = f"{self._outlined(loop.body_graph)}({_tuple_text(loop_vars + captured)})"
            self.emit(indent + 1, f"({_tuple_text(results)},) = {call}", op)
        else:
            body = self.emit_subgraph(loop.body_graph, loop_vars + captured, indent + 1)
            results = [text for text, _ in body]
        for stack, value in zip(stacks, results[n:]):
            self.emit(indent + 1, f"{stack}.append({value})", op)
        if indent < _MAX_NESTING:
            self.emit(indent + 1, f"{_tuple_text(loop_vars)} = {_tuple_text(results[:n])}", op)
        if loop.counts:
            self.emit(indent + 1, f"{counter} += 1", op)
        for k in ints.positions if ints is not None else ():
            int32 = self.numpy_type_name(op.outputs[k].dtype)
            self.emit(indent, f"{loop_vars[k]} = {int32}({loop_vars[k]})", op)
        if loop.stacked is None:
            return loop.outputs(loop_vars)
        iterations = self.value_name(op.outputs[n])
        count_type = self.numpy_type_name(op.outputs[n].dtype)
        self.emit(indent, f"{iterations} = {count_type}({counter})")
        return loop.outputs(loop_vars, iterations, stacks)


# The ops that are not one line: a placeholder is an argument, a cond and a loop are blocks.
_BLOCKS = {PLACEHOLDER: Emitter.emit_placeholder, **CONTROL_FLOW_RULES}


def _writes_operands(form):
    """Whether a consumer with ``form`` writes its operands' text into its own expression."""
    return form is not None and type(form.expression) not in (Input, Bound)


_MANY = object()  # a value used more than once


def _scalar_op(op) -> bool:
    """Scalars in and out: an inlinable form cannot fail on them (no broadcasting to hide)."""
    if op.outputs[0].shape.as_tuple() != ():
        return False
    for t in op.inputs:  # noqa: SIM110 (a loop, not all(): this runs for every op compiled)
        if t.shape.as_tuple() != ():
            return False
    return True
