"""One walk over a graph: the ops it runs, in program order, each through its walk's rule.

Three walks read a graph, each making something else of it: the numpy
compiler writes Python source (``runtime.execution.emitter.Emitter``), the XLA
lowering traces JAX operations (``runtime.xla.lower.Lowering``), and the ONNX
exporter adds ONNX nodes (``runtime.export.onnx_graph.Scope``). Each is an
``Interpreter`` (torch.fx's ``Interpreter`` is the model): it names a rule for
each op (``rule_for``), and ``run_ops`` gives the rule the walk's values of the
op's inputs and stores what it returns as the values of the op's outputs. One
rule signature serves every walk::

    rule(walker, op, inputs) -> outputs

``inputs`` and ``outputs`` are lists, one item per tensor of ``op.inputs`` and
``op.outputs``: text of Python for the emitter, JAX values for the lowering,
ONNX value names for the exporter. While a rule runs, ``walker.op`` is its op.

>>> import runtime as rt
>>> g = rt.Graph()
>>> with g.as_default():
...     x = rt.placeholder(rt.int32, [], name="x")
...     y = -(x + 1)
>>> class Spelling(Interpreter):  # a walk writing each value as text
...     def rule_for(self, op):
...         return lambda walker, op, inputs: [f"{op.type}({', '.join(inputs)})"]
>>> env = Spelling().run_ops(g.get_operations()[1:], {id(x): "x"})
>>> env[id(y)]
'Neg(Add(x, Const()))'

A rule's error leaves the walk as it is, naming the op and the user's line
that made it: an ``OpError`` that carries its op names them in its message; any
other error gets a note saying which op the walk was at.

If and While have one rule for every walk (``if_rule``, ``while_rule``):
``IfParts`` and ``WhileParts`` say what they carry, and the walk's primitives,
``branch(op, cond)`` and ``loop(op, loop)``, give its form of a branch and a
loop. By default those run the sub-graphs through ``run_graph`` as ``run_if``
and ``run_while`` say, in plain Python: what If and While mean.
"""

from __future__ import annotations

from typing import NamedTuple

from runtime import errors
from runtime.core.graph import PLACEHOLDER
from runtime.ops.control_flow_ops import IF, WHILE


def describe_op(op):
    """``node add (Add) defined at File "model.py", line 3, in f``: the op and its user's line."""
    where = op.source
    return f"node {op.name} ({op.type})" + (f" defined at {where}" if where else "")


def failure_message(message, op):
    """The message of ``op`` failing as its graph runs: ``message``, then the op and its user's
    line; in a function's graph headed "Graph execution error:", as TensorFlow's (a Session's
    graph is not). Every executor says it so (the default one, XLA)."""
    heading = "Graph execution error:\n\n" if op.graph.building_function else ""
    return f"{heading}{message}\n\t [[{describe_op(op)}]]"


class Interpreter:
    """A walk over the ops of a graph: subclasses say what each op's rule is (``rule_for``)."""

    op = None  # the op whose rule is running

    def rule_for(self, op):
        """The rule of ``op``: ``rule(walker, op, inputs) -> outputs`` (see the module)."""
        raise NotImplementedError

    def run_ops(self, ops, env):
        """Runs ``ops`` (in program order) through their rules; ``env`` maps ``id(tensor)`` to
        its value, the fed ones given. Returns ``env``, with the values of the ops' outputs.

        A placeholder in ``ops`` whose value ``env`` holds is skipped (it is fed); one it does
        not hold goes to its rule, which says what an input not given means to the walk.
        """
        for op in ops:
            if op.opdef is PLACEHOLDER and all(id(t) in env for t in op.outputs):
                continue
            outputs = self.run_op(op, [env[id(t)] for t in op.inputs])
            self.store(op, outputs, env)
        return env

    def run_op(self, op, inputs):
        """The outputs of ``op``'s rule on ``inputs``; ``self.op`` is ``op`` meanwhile."""
        rule = self.rule_for(op)
        saved, self.op = self.op, op
        try:
            return rule(self, op, inputs)
        except Exception as error:
            note_op(error, op)
            raise
        finally:
            self.op = saved

    def store(self, op, outputs, env):
        """Records ``outputs`` as the values of ``op``'s outputs."""
        for t, value in zip(op.outputs, outputs):
            env[id(t)] = value

    # --- the primitives of If and While (``if_rule``, ``while_rule``) -------------------------

    def run_graph(self, graph, values):
        """The values of a function graph's outputs, its inputs being ``values``."""
        raise NotImplementedError

    def branch(self, op, cond):
        """The outputs of If op ``op``, whose parts are ``cond`` (an ``IfParts``)."""
        return run_if(cond, self.run_graph)

    def loop(self, op, loop):
        """The outputs of While op ``op``, whose parts are ``loop`` (a ``WhileParts``)."""
        return run_while(loop, self.run_graph)


def note_op(error, op):
    """Names the op (and the user's line) an error left a walk at, once: an OpError that
    carries its op names it in its message already; the innermost op of nested branches and
    loops is the one."""
    if getattr(error, "walk_noted", False):
        return
    if isinstance(error, errors.OpError) and error.op is not None:
        return
    error.walk_noted = True
    note = f"While at {describe_op(op)}"
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:  # Python 3.10: the notes a traceback of 3.11 would show, kept where they are read
        error.__notes__ = [*getattr(error, "__notes__", ()), note]


# --- If and While: what they carry and what they mean, once -----------------------------------


class IfParts(NamedTuple):
    """An If op's inputs and attributes, as every walk reads them: it runs ``then_graph`` if
    ``pred`` holds, else ``else_graph``, on ``operands``; its outputs are the branch's."""

    pred: object
    operands: list
    then_graph: object
    else_graph: object

    @classmethod
    def of(cls, op, inputs):
        """The parts of If op ``op``, whose inputs' values (for some walk) are ``inputs``."""
        return cls(inputs[0], list(inputs[1:]), op.attrs["then_graph"], op.attrs["else_graph"])

    @property
    def branches(self):
        return self.then_graph, self.else_graph


class WhileParts(NamedTuple):
    """A While op's inputs and attributes, as every walk reads them.

    It runs ``cond_graph`` and then ``body_graph`` on the loop variables and
    ``captured`` while the test holds and fewer than ``limit`` iterations ran
    (``limit`` None: no limit). A loop being differentiated (``stacked``, an
    int) also counts its iterations and keeps each iteration's ``stacked`` extra
    body outputs in lists. Its outputs: the loop variables, then with
    ``stacked`` the count and the lists (``outputs``).
    """

    initial: list
    captured: list
    limit: object
    cond_graph: object
    body_graph: object
    stacked: int | None

    @classmethod
    def of(cls, op, inputs):
        """The parts of While op ``op``, whose inputs' values (for some walk) are ``inputs``."""
        attrs = op.attrs
        n, has_limit = attrs["num_loop_vars"], attrs["has_maximum_iterations"]
        end = len(inputs) - 1 if has_limit else len(inputs)
        return cls(
            list(inputs[:n]),
            list(inputs[n:end]),
            inputs[-1] if has_limit else None,
            attrs["cond_graph"],
            attrs["body_graph"],
            attrs["stacked"],
        )

    @property
    def counts(self):
        """Whether the loop counts its iterations: to stop at ``limit``, or to report the count."""
        return self.limit is not None or self.stacked is not None

    def outputs(self, loop_vars, count=None, stacks=()):
        """The op's outputs: the loop variables, then (``stacked``) the count and the lists."""
        if self.stacked is None:
            return list(loop_vars)
        return [*loop_vars, count, *stacks]


def run_if(parts, run_graph):
    """What an If does: its outputs are those of the branch ``parts.pred`` picks, run by
    ``run_graph(graph, values)`` on the operands."""
    graph = parts.then_graph if parts.pred else parts.else_graph
    return list(run_graph(graph, parts.operands))


def run_while(parts, run_graph):
    """What a While does, in plain Python: ``run_graph(graph, values)`` runs its test and body.

    Before each iteration the limit is checked, then the test; the body's new
    loop variables replace the old; a counted loop counts iterations and a
    stacking one appends its extra outputs to its lists.
    """
    n = len(parts.initial)
    loop_vars, count, stacks = list(parts.initial), 0, [[] for _ in range(parts.stacked or 0)]
    while parts.limit is None or count < parts.limit:
        (pred,) = run_graph(parts.cond_graph, loop_vars + parts.captured)
        if not pred:
            break
        results = run_graph(parts.body_graph, loop_vars + parts.captured)
        loop_vars = list(results[:n])
        for stack, value in zip(stacks, results[n:]):
            stack.append(value)
        count += 1
    return parts.outputs(loop_vars, count, stacks)


def if_rule(walker, op, inputs):
    """The rule of If in every walk: its parts, given to the walk's ``branch``."""
    return walker.branch(op, IfParts.of(op, inputs))


def while_rule(walker, op, inputs):
    """The rule of While in every walk: its parts, given to the walk's ``loop``."""
    return walker.loop(op, WhileParts.of(op, inputs))


CONTROL_FLOW_RULES = {IF: if_rule, WHILE: while_rule}
