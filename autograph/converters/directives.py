"""Directives: ``set_loop_options`` becomes the options of its loop's call, and
``set_element_type`` tells ``ag.stack`` of the same list what an empty list holds.

    while i < n:                                        ...
        ag.experimental.set_loop_options(       ->      ag__.while_stmt(loop_test, loop_body, ('i', 'v'),
            maximum_iterations=3)                           options={'maximum_iterations': 3})
        ...

The directive's arguments are evaluated where the loop starts, so a shape
invariant's ``(v, shape)`` names the value ``v`` has before the loop. The call
itself stays in the body, where it does nothing. It must be the first
statement of a loop's body, as in TensorFlow.

    ag.set_element_type(l, rt.int32)                    ag.set_element_type(l, rt.int32)
    ...                                     ->          ...
    return ag.stack(l)                                  return ag.stack(l, element_dtype=rt.int32,
                                                                        element_shape=None)

This pass runs first, before other converters add statements to loop bodies.
"""

from __future__ import annotations

import copy
import inspect

import gast

from autograph.lang import directives, special_functions
from autograph.pyct import anno, walk
from autograph.pyct.analysis.activity import symbol

_NAMES = {"set_loop_options", "set_element_type", "stack"}
_LOOPS = (gast.For, gast.While)


def _called_name(call):
    func = call.func
    if isinstance(func, gast.Attribute):
        return func.attr
    return func.id if isinstance(func, gast.Name) else None


def _resolved(ctx, call):
    found, value = ctx.resolve(call.func)
    return value if found else None


def _arguments(call, fn):
    """The call's arguments by parameter name, as expression nodes."""
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise ValueError(
            f"{fn.__name__} at line {call.lineno}: give its arguments one by one, "
            "not with * or **, so that they can be read where it is written"
        )
    bound = inspect.signature(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords})
    return dict(bound.arguments)


def transform(node, ctx):
    calls = [n for n in walk.nodes(node) if isinstance(n, gast.Call) and _called_name(n) in _NAMES]
    if not calls:
        return node
    loop_options = {}  # id of a directive call -> the loop it begins
    for loop in walk.nodes(node):
        if isinstance(loop, _LOOPS) and loop.body:
            first = loop.body[0]
            if isinstance(first, gast.Expr) and isinstance(first.value, gast.Call):
                loop_options[id(first.value)] = loop
    element_types = {}  # list symbol -> (dtype node, shape node)
    stacks = []
    for call in calls:
        target = _resolved(ctx, call)
        if target is directives.set_loop_options:
            loop = loop_options.get(id(call))
            if loop is None:
                raise ValueError(
                    f"set_loop_options at {ctx.filename}, line {call.lineno}: it must be the "
                    "first statement of a loop's body, whose options it sets"
                )
            options = _arguments(call, directives.set_loop_options)
            anno.setanno(
                loop, anno.Basic.LOOP_OPTIONS, {k: copy.deepcopy(v) for k, v in options.items()}
            )
        elif target is directives.set_element_type:
            arguments = _arguments(call, directives.set_element_type)
            listed = symbol(arguments["entity"])
            if listed is not None:
                shape = arguments.get("shape", gast.Constant(value=None, kind=None))
                element_types[listed] = (arguments["dtype"], shape)
        elif target is special_functions.stack:
            stacks.append(call)
    for call in stacks:
        given = {k.arg for k in call.keywords}
        known = element_types.get(symbol(call.args[0])) if call.args else None
        if known is None or "element_dtype" in given or len(call.args) > 1:
            continue
        dtype, shape = known
        call.keywords += [
            gast.keyword(arg="element_dtype", value=copy.deepcopy(dtype)),
            gast.keyword(arg="element_shape", value=copy.deepcopy(shape)),
        ]
    return node


def options_dict(loop):
    """The ``options`` argument of a loop's call: a dict display, or None without options."""
    options = anno.getanno(loop, anno.Basic.LOOP_OPTIONS)
    if not options:
        return None
    keys = [gast.Constant(value=k, kind=None) for k in options]
    return gast.Dict(keys=keys, values=list(options.values()))
